"""The served learner: updates applied in order, atomically, and the ids of recent updates remembered.

Every update goes through :meth:`ServedModel.apply`, when it is first
learned and when the log is replayed after a restart, so that the two give
the same model bit for bit: learning is deterministic.
"""

import copy
import math
from collections import OrderedDict
from itertools import chain

import numpy as np

from .._labels import plain_label
from .._learner import OnlineLearner
from .._sparse import CSRRows
from ..compose import Pipeline
from ..multilabel import PAMultilabel
from ..sequence import PASequence
from ..exceptions import NotFittedError, PartialUpdateError
from ..linear import PARegressor
from ..linear._binary import BinaryClassifierMixin
from ._bound import LearnedRounds, bounded
from ._feedback import Pending
from ._packed_batch import read_packed_labelled
from ._progress import Progress
from ._requests import NO_LIMITS, Examples, RequestError, digest, example, read_labelled, read_request_id
from ._wal import RawJSONItems, json_bytes, json_value

# what a learner raises for an example or label it refuses; it is then left as it was
_REFUSED = (ValueError, TypeError, OverflowError, FloatingPointError)


def _moderate(value):
    """Whether ``value`` is not a number (a category, None: the learner reads it as 1 or absent), or 0 or a
    number of a magnitude within [1e-100, 1e100]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    magnitude = abs(float(value)) if abs(value) < 1e300 else math.inf
    return magnitude == 0.0 or 1e-100 <= magnitude <= 1e100


def _feature_map(estimator):
    """The :class:`~olearn._features.FeatureMap` of a learner, or of a pipeline (which converts the features once
    for all its steps)."""
    return estimator.feature_map_ if isinstance(estimator, Pipeline) else estimator._feature_map()


def _served_kind(estimator):
    """Whether the service takes ``estimator``: a learner of examples with features, alone or the last step of a
    :class:`~olearn.compose.Pipeline`."""
    learner = estimator.steps[-1][1] if isinstance(estimator, Pipeline) and estimator.steps else estimator
    return isinstance(learner, OnlineLearner) and learner._named_features and not isinstance(learner, PASequence)


def _all_moderate(values):
    """Whether every one of ``values`` is :func:`_moderate`: at once by NumPy when all are floats or ints."""
    if set(map(type, values)) <= {float, int}:
        try:
            return _moderate_array(np.fromiter(values, dtype=np.float64, count=len(values)))
        except OverflowError:  # an int past int64: moderate or not, value by value
            pass
    return all(_moderate(value) for value in values)


def _moderate_array(numbers):
    """Whether every one of the float64 ``numbers`` is 0 or of a magnitude within [1e-100, 1e100]."""
    magnitudes = np.abs(numbers)
    return bool(np.all((magnitudes == 0.0) | ((magnitudes >= 1e-100) & (magnitudes <= 1e100))))


def _learned_keys(estimator):
    """The feature keys a learner's model holds to: "names" once it learned names (a vocabulary, or the columns
    of a DataFrame), "indices" once it learned columns without names or hashing, else None (either fits)."""
    if not estimator._is_started():
        return None
    features = _feature_map(estimator)
    if features.size:
        return "names"
    return None if features.hashing or not estimator.n_features_in_ else "indices"


def feature_keys_for(estimator, asked=None):
    """How a service of ``estimator`` reads its examples' keys: ``asked`` ("names", "indices" or None)
    or by default the keys its model holds to, and names for a learner that holds to neither (JSON clients send
    names; see docs/serve.md). Raises ValueError when ``asked`` contradicts the model."""
    learned = _learned_keys(estimator)
    if asked is not None and learned is not None and asked != learned:
        what = (f"learned {_feature_map(estimator).size} named features (e.g. "
                f"{next(iter(_feature_map(estimator).vocabulary()))!r:.60})" if learned == "names"
                else f"learned {estimator.n_features_in_} columns by index and no names")
        raise ValueError(f"--feature-keys {asked}: the model {what}; its keys are {learned}: serve it with "
                         f"--feature-keys {learned} (its default)")
    return asked or learned or "names"


def _fresh_rounds(estimator):
    """A new :class:`~olearn.serve._bound.LearnedRounds` for a learner with a bound that has learned nothing;
    else None (the rounds it learned from are not known)."""
    started = estimator._is_started() if hasattr(estimator, "_is_started") else True
    return LearnedRounds() if bounded(estimator) and not started else None


def _features_of(estimator):
    """``(width, names)``: the features ``estimator`` has learned, its width and its vocabulary (ValueError for a
    learner that has learned none)."""
    try:
        width = estimator.n_features_in_
    except AttributeError:
        raise ValueError("--freeze-features needs a model that has learned: it has no features yet") from None
    return width, set(_feature_map(estimator).vocabulary())


def _logged_update(record, limits):
    """The examples and request id of an update's log record: its request's body read again, or the examples of a
    record that holds them as JSON.

    A logged body is one the route accepted: :func:`~olearn.serve._fast_json.parse_json_fast` read it, as
    :mod:`json` reads it, with no key repeated in an object, no lone surrogate and no NaN or infinity (else it
    was refused). On such a body the log's reader :func:`~olearn.serve._wal.json_value` (orjson, or :mod:`json`
    for a run of 19 digits) makes the same document without the checks for those faults, and
    :func:`~olearn.serve._requests.read_labelled` the same examples as the route's. A ``/learn`` batch of plain
    named features is read, as the route reads it, from the body's bytes (:mod:`~olearn.serve._packed_batch`)."""
    if "body" in record:
        packed = read_packed_labelled(record["body"], limits) if record["op"] == "learn" else None
        if packed is not None:
            return packed, None
        document = json_value(record["body"])
        return read_labelled(document, limits), read_request_id(document)
    dicts = [example(x, limits) for x in record["x"]]
    return Examples(record["x"], dicts, record["y"], record["w"], record["batch"]), record["id"]


class HalfLearned(RuntimeError):
    """A batch checked up front was refused midway: the model holds examples of it that the log does not.

    Not a RequestError: the writer stops, and a restart recovers the model from the log.
    """


def _plain(value):
    """A prediction as JSON: NumPy scalars as Python values, collections (multilabel) as lists."""
    if isinstance(value, (set, frozenset, tuple, list)):
        return sorted((plain_label(v) for v in value), key=repr) if isinstance(value, (set, frozenset)) \
            else [plain_label(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return plain_label(value)


def _canonical_rows(known, width):
    """The rows ``(indptr, indices, data, _)`` of :meth:`~olearn._features.FeatureMap.known_rows` as a
    :class:`~olearn._sparse.CSRRows` of ``width`` columns in the canonical form of the learner's check of a matrix
    (:func:`~olearn._validation.check_X`: int32 columns, each row's in increasing order; a vocabulary gives each
    name one column, so none repeats within a row): one sort of (row, column) keys puts each row's columns in
    order (the rows are in order already). The keys are distinct, so a stable sort (a merge of the runs already in
    order: about half the time of the default quicksort on a batch's 2,000 keys) gives the same order."""
    indptr, indices, data, _ = known
    rows_of = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    order = np.argsort(rows_of * max(width, 1) + indices, kind="stable")
    return CSRRows(data[order], indices[order].astype(np.int32), indptr, (indptr.size - 1, width))


class _RecentEntries:
    """The checkpoint entries ``[id, seq, digest, answer]`` of the recent ids' ``pairs`` (``(id, (seq, digest,
    answer))`` each), written each time they are iterated."""

    __slots__ = ("_pairs",)

    def __init__(self, pairs):
        self._pairs = pairs

    def __iter__(self):
        return (json_bytes([key, *entry]) for key, entry in self._pairs)


class ModelCopy:
    """What a snapshot writes of a :class:`ServedModel`, copied at one moment so that the files are written (in a
    thread) while the service learns on: the seq, the rollbacks, a copy of the estimator (its arrays copied, as
    :mod:`~olearn.serve._model_file` copies them), the log's checkpoint record (:meth:`ServedModel.checkpoint`, its
    waiting predictions taken as references to their records' texts, their entries written in the snapshot's thread),
    the input entry its model files record and what a version of it lists (the progressive metric, the rounds of
    the bound). :meth:`~olearn.serve._versions.Versions.add` takes it as it takes the served model."""

    def __init__(self, model):
        self.seq = model.seq
        self.rollbacks = model.rollbacks
        self.estimator = copy.deepcopy(model.estimator)
        self.checkpoint = {"op": "checkpoint", "seq": model.seq, **model.checkpoint()}
        self.input_info = model.input_info
        self.waiting = len(model.pending)
        self.progress = Progress(model.progress.regression, model.progress.state())
        self.rounds = None if model.rounds is None else model.rounds.copy()


class ServedModel:
    """An estimator, the number of examples it learned here (``seq``), and the recent update ids.

    Parameters
    ----------
    estimator : olearn estimator
    seq : int
        Examples learned since the service first started with this state.
    window : int
        How many recent update ids are remembered for idempotent retries.
    frozen : bool
        Refuse names outside the estimator's vocabulary and indices past its
        width (the features it has now), instead of growing.
    feature_keys : {"names", "indices"}, optional
        How requests' keys are read; by default as :func:`feature_keys_for` says.
    pending : olearn.serve._feedback.Pending, optional
        The predictions waiting for feedback (none are kept without it).

    ``input_info`` is the metadata ``input`` entry that every model file of the
    service records (see :func:`olearn.save`): that of the model file the state
    started from (how its training data was read, the K of ``olearn run --oaa
    K``), with how VW lines are read once the state learned some
    (:func:`~olearn.serve._vw_daemon.served_input`); ``{}`` when none. It is
    kept in the checkpoints, so that a restart records it too (see
    :meth:`~olearn.serve._store.Store.open`).
    """

    def __init__(self, estimator, seq=0, window=100_000, frozen=False, feature_keys=None, pending=None):
        if not _served_kind(estimator):
            raise ValueError(f"olearn serve serves learners of examples with features (binary, multiclass, "
                             f"regression, cost-sensitive, multilabel), alone or after transformers in a Pipeline; "
                             f"{estimator!r:.200} is not one")
        self.estimator = estimator
        self.feature_keys = feature_keys_for(estimator, feature_keys)
        self.seq = seq
        self.window_size = window
        self.recent = OrderedDict()  # id -> (seq, digest, answer)
        self.frozen = None  # (width, names) of frozen features
        if frozen:
            self.freeze()
        self.fixed_width = getattr(estimator, "n_features", None)
        self.pending = pending if pending is not None else Pending(max_pending=0)
        self.progress = Progress(getattr(estimator, "_estimator_type", None) == "regressor")
        self.version = None  # the version last rolled back to
        self.rollbacks = 0  # rollbacks since the service started (tells a model from one of the same seq)
        self.rounds = _fresh_rounds(estimator)  # the examples learned, for the bound (see _bound)
        self.input_info = {}

    def freeze(self):
        """Take the estimator's features now as the only ones: refuse other names and indices past its width."""
        self.frozen = _features_of(self.estimator)

    # -- the recent ids ---------------------------------------------------------

    def remember(self, request_id, seq, fingerprint, answer):
        self.recent[request_id] = (seq, fingerprint, answer)
        while len(self.recent) > self.window_size:
            self.recent.popitem(last=False)

    def recent_entries(self):
        """The recent ids, oldest first, as the JSON array ``[[id, seq, digest, answer], ...]`` of a checkpoint: their
        pairs taken at once (a pass in C over the dict's own entries, in the ordered dict's order: an id is only
        ever added at the end or removed from the front), each entry written when the checkpoint is, in the
        snapshot's thread (:func:`~olearn.serve._wal.write_in_slices`). Before, the entries were made on the event
        loop when the model was copied: 100-180 ms for 100,000 ids (issue #35), every request waiting."""
        return RawJSONItems(_RecentEntries([*dict.items(self.recent)]))

    def restore_recent(self, entries):
        for key, seq, fingerprint, answer in entries:
            self.remember(key, seq, fingerprint, answer)

    # -- the state a checkpoint keeps besides the learner ------------------------------

    def checkpoint(self):
        """What a log's checkpoint keeps of the service besides the learner (see :meth:`restore_checkpoint`)."""
        return {"window": self.recent_entries(), "feature_keys": self.feature_keys, "pending": self.pending.state(),
                "progress": self.progress.state(), "version": self.version, "input": self.input_info}

    def snapshot_copy(self):
        """The model as of now, for a snapshot written while the service goes on (a :class:`ModelCopy`)."""
        return ModelCopy(self)

    def restore_checkpoint(self, checkpoint):
        """Take back the recent ids, the waiting predictions, the progressive metric and the version of a
        checkpoint (one written before they were kept has the ids only). The feature keys and the input entry are
        the store's to take back (:class:`~olearn.serve._store.Store`): those of the newest checkpoint."""
        self.restore_recent(checkpoint["window"])
        if "pending" in checkpoint:
            self.pending.restore(checkpoint["pending"])
            self.progress = Progress(self.progress.regression, checkpoint["progress"])
            self.version = checkpoint["version"]

    def roll_back(self, estimator, entry):
        """Serve ``estimator``, the learner of the version ``entry`` lists, with its progressive metric. The
        seq, the recent ids and the waiting predictions go on: the updates since are history, not undone.

        Frozen features become the version's own (its vocabulary and width, which may differ from the model's
        at the start when the version was taken before the service froze them): a version that has learned
        nothing has none, and is refused (409) with the model served unchanged.
        """
        if self.frozen is not None:
            try:
                frozen = _features_of(estimator)
            except ValueError:
                raise RequestError(409, f"version {entry['version']} has learned nothing, and --freeze-features "
                                        "serves the features of a model that has learned: roll back to a version "
                                        "that has") from None
            self.frozen = frozen
        self.estimator = estimator
        kept = entry.get("learned_rounds")
        self.rounds = kept.copy() if kept is not None else _fresh_rounds(estimator)
        self.progress = Progress(self.progress.regression, entry["progress_state"])
        self.version = entry["version"]
        self.rollbacks += 1

    # -- checks of the features ---------------------------------------------------

    def check_features(self, examples):
        """Refuse (422) an index past a fixed width, or a name unknown to frozen features."""
        width = self.fixed_width
        names = None
        if self.frozen is not None:
            width, names = self.frozen
        if width is None and names is None:
            return
        for i, x in enumerate(examples.dicts):
            where = f"x[{i}]" if examples.batch else "x"
            for key, value in x.items():
                if isinstance(key, int):
                    if width is not None and key >= width and not isinstance(value, str):
                        raise RequestError(422, f"{where}: feature index {key} is out of range; the model has "
                                                f"{width} features (indices 0 to {width - 1})")
                    if not isinstance(value, str):
                        continue
                if names is not None and value is not None:
                    name = f"{key}={value}" if isinstance(value, str) else key
                    if name not in names:
                        raise RequestError(422, f"{where}: feature {name!r:.100} is not in the model's fixed "
                                                "vocabulary")

    # -- updates -------------------------------------------------------------------

    def apply(self, op, examples, request_id=None, fingerprint=None):
        """Learn ``examples`` (all of them or, when one is refused, none); return the answer of the update.

        ``op`` is ``"learn"`` or ``"predict_learn"`` (the answer then holds the
        predictions made before learning). A refused update raises
        RequestError (422) and leaves the model as it was. An id seen among
        the recent updates answers what that update answered, with
        ``"duplicate": true``, and learns nothing; with another body it is a 409.
        """
        if request_id is not None and request_id in self.recent:
            seq, seen, answer = self.recent[request_id]
            if seen != fingerprint:
                raise RequestError(409, f"id {request_id!r} was used by update {seq} with another body; an id "
                                        "names one update")
            return {**answer, "duplicate": True}
        self.check_features(examples)
        if op == "learn" and examples.batch and self._learned_in_one_pass(examples):
            predictions = None
        else:
            predictions = self._learn_each(op, examples)
        self.seq += len(examples)
        if self.rounds is not None:
            self.rounds.add(examples)
        answer = {"seq": self.seq, "learned": len(examples)}
        if op == "predict_learn":
            answer["y"] = predictions if examples.batch else predictions[0]
            for predicted, y in zip(predictions, examples.ys):
                self.progress.observe(predicted, y)
        if request_id is not None:
            self.remember(request_id, self.seq, fingerprint, answer)
        return answer

    def _learn_each(self, op, examples):
        """Learn the examples one by one (``learn_one``, or ``predict_learn_one`` whose predictions are returned),
        all of them or none (RequestError naming the example refused)."""
        est = self.estimator
        # one example is refused atomically by the learner; a batch that its checks cannot vouch for is
        # put back from a copy
        saved = copy.deepcopy(est) if len(examples) > 1 and not self._learnable(examples) else None
        predictions = []
        try:
            for i, (x, y) in enumerate(zip(examples.dicts, examples.ys)):
                weight = None if examples.weights is None else examples.weights[i]
                if op == "learn":
                    est.learn_one(x, y, sample_weight=weight)
                else:
                    predictions.append(_plain(est.predict_learn_one(x, y, sample_weight=weight)))
        except _REFUSED as err:
            if saved is not None:
                self.estimator = saved
            elif i > 0:
                raise HalfLearned(f"the batch's example {i} was refused after its checks ({type(err).__name__}: "
                                  f"{err}); the examples before it are learned in memory only") from err
            where = f"example {i}: " if examples.batch else ""
            raise RequestError(422, f"{where}{type(err).__name__}: {err}") from None
        return predictions

    def _learned_in_one_pass(self, examples):
        """Learn a batch by one ``partial_fit`` if the learner takes it: its dicts converted once and learned in one
        compiled pass: bit for bit what ``partial_fit`` learns offline from the same dicts, the updates of
        ``learn_one`` of each in turn within rounding (a pass reads a row's columns in sorted order); whether it
        was learned.

        Only a batch that :meth:`_vouched` for, by a learner that puts back a refused batch without a copy of
        itself (``_cuts_columns``): ``partial_fit`` refuses a batch up front (its rows, labels, columns) with
        the learner as it was, and it is then learned by :meth:`_learn_each`, which names the example refused.
        An overflow midway, which no check foresees, stops the writer (:class:`HalfLearned`). A pipeline's
        batch is learned by :meth:`_learn_each` (its transformers learn example by example).

        A batch whose names the learner knows, all of plain numbers (the steady state), is converted here, once,
        into the rows ``partial_fit`` would make of its dicts, in the canonical form its check takes as they are
        (:meth:`_known_matrix`), whose values are then checked in one array, and ``partial_fit`` learns them.
        """
        est = self.estimator
        if isinstance(est, Pipeline) or not est._cuts_columns:
            return False
        matrix = self._known_matrix(examples)
        if not self._vouched(examples, None if matrix is None else matrix.data):
            return False
        try:
            est.partial_fit(examples.dicts if matrix is None else matrix, examples.ys, sample_weight=examples.weights)
        except PartialUpdateError as err:
            if err.rows_kept:
                raise HalfLearned(f"the batch's example {err.rows_kept} was refused after its checks ({err}); the "
                                  "examples before it are learned in memory only") from err
            return False
        except _REFUSED:
            return False
        return True

    def _learnable(self, examples):
        """Whether the learner will take every example of a batch, so that none needs putting back.

        Checked without changing the learner, in the cost of the batch: every
        feature converts as ``learn_one`` converts it (the learner's own
        reading of a batch of dicts) and the columns stay within its limits,
        every label is a number for a regressor or a class the learner knows
        already (of its type too), and every number (values, weights, a
        regressor's labels) is 0 or of a magnitude within [1e-100, 1e100],
        far from where a step overflows. What no check foresees (an overflow
        midway all the same) stops the writer (:class:`HalfLearned`).
        """
        est = self.estimator
        try:
            width = est.n_features_in_
            # the learner's reading of a batch of dicts (as _check_X's), its names taken back at once
            features = est._feature_map()
            size = features.size
            try:
                batch_width = features.rows(examples.dicts, width, True, getattr(est, "n_features", None) is None,
                                            "x")[3]
            finally:
                features.truncate(size)
            if batch_width > width:
                est._check_feature_limit(batch_width, "x")
        except Exception:  # the learner refuses the batch, or has not started: learned on a copy, refused as it says
            return False
        return self._vouched(examples)

    def _known_matrix(self, examples):
        """The batch ``examples`` as the rows the learner makes of their dicts to learn (a
        :class:`~olearn._sparse.CSRRows` of its width) when their names are all in its vocabulary and their values
        plain numbers (read from the body's bytes, :meth:`~olearn.serve._requests.Examples.packed_rows`, or from
        the dicts, :meth:`~olearn._features.FeatureMap.known_rows`), for a learner that has started and reads
        its columns by index (no DataFrame's names); else None.

        The rows come in the canonical form of the learner's check of a matrix (:func:`~olearn._validation.check_X`:
        int32 columns, each row's in increasing order; a vocabulary gives each name one column, so none repeats
        within a row), which the check then reads in one compiled pass and takes as they are, instead of building
        and sorting them again: the batch is checked once, by the learner, and learned bit for bit as its dicts.
        """
        est = self.estimator
        if not est._is_started() or getattr(est, "feature_names_in_", None) is not None:
            return None
        features = est._feature_map()
        packed = examples.packed_rows(features, est.n_features_in_)
        if packed is not None:
            return packed
        known = features.known_rows(examples.dicts)
        return None if known is None else _canonical_rows(known, est.n_features_in_)

    def _vouched(self, examples, values=None):
        """Whether the labels and numbers of a batch are ones the learner takes without overflowing (see
        :meth:`_learnable`), its features aside; False for a learner that has not started. ``values`` are the
        batch's feature values in one array, when it is converted already; else they are read from its dicts."""
        est = self.estimator
        if not est._is_started():
            return False
        numbers = [*chain.from_iterable(map(dict.values, examples.dicts))] if values is None else []
        if examples.weights is not None:
            numbers += examples.weights
        regressor = getattr(est, "_estimator_type", None) == "regressor"
        if regressor:
            numbers += examples.ys
        if not _all_moderate(numbers) or (values is not None and not _moderate_array(values)):
            return False
        multilabel = isinstance(est, PAMultilabel)
        label_types = set(map(type, examples.ys))
        if (label_types != {list}) if multilabel else (list in label_types):  # a multilabel's labels are lists
            return False
        labels = [*chain.from_iterable(examples.ys)] if multilabel else examples.ys
        if regressor:
            return set(map(type, labels)) <= {int, float}
        classes = getattr(est, "classes_", None)
        # a label of the type and value of a class (1 for the class 1.0 goes on a copy, as does a new class)
        known = set() if classes is None else {(type(c), c) for c in classes.tolist()}
        return known.issuperset(zip(map(type, labels), labels))

    # -- feedback by id ----------------------------------------------------------------

    def keep(self, ids, xs, created):
        """Keep the features ``xs`` (as sent) of predictions made at the time ``created`` under ``ids`` (409 for an
        id in use); the log record (its features the JSON text the waiting predictions keep)."""
        self.pending.expire(created)
        self.pending.check_new(ids)
        return {"op": "predict", "ids": ids, "x": self.pending.add(ids, xs, created, checked=True), "t": created}

    def feedback(self, ids, ys, weights, batch, now):
        """Learn the labels ``ys`` of the waiting predictions ``ids`` (404 for an unknown or expired id, 409 for
        one labelled already), each predicted again just before it is learned (a progressive round); the
        answer, with those predictions as ``"y"``, and the log record (which holds the features)."""
        self.pending.expire(now)
        xs = self.pending.features(ids)
        answer = self._learn_feedback(ids, xs, ys, weights, batch, self.feature_keys)
        return answer, {"op": "feedback", "seq": answer["seq"], "ids": ids, "x": xs, "y": ys, "w": weights,
                        "batch": batch}

    def _learn_feedback(self, ids, xs, ys, weights, batch, feature_keys):
        dicts = [example(x, NO_LIMITS[feature_keys]) for x in xs]
        answer = self.apply("predict_learn", Examples(xs, dicts, ys, weights, batch))
        self.pending.learned(ids, answer["seq"])
        return answer

    def replay(self, record, feature_keys=None):
        """Learn a record of the log (see :meth:`record`): the update it acknowledged, to the same seq; or keep
        the predictions of a ``/predict`` record, or learn the feedback of a feedback record.

        ``feature_keys`` are those of the log holding the record (None for a log of before they were kept:
        its digit keys are indices, as with "indices").
        """
        if record["op"] == "predict":
            self.pending.add(record["ids"], record["x"], record["t"])
            return
        if record["op"] == "feedback":
            answer = self._learn_feedback(record["ids"], record["x"], record["y"], record["w"], record["batch"],
                                          feature_keys)
        else:
            examples, request_id = _logged_update(record, NO_LIMITS[feature_keys or "indices"])
            answer = self.apply(record["op"], examples, request_id, record["digest"])
        if answer.get("duplicate") or answer["seq"] != record["seq"]:
            raise ValueError(f"the log's update {record['seq']} replays as update {answer['seq']}")

    @staticmethod
    def record(op, examples, request_id, fingerprint, answer):
        """The log record of an applied update."""
        return {"op": op, "seq": answer["seq"], "id": request_id, "digest": fingerprint, "x": examples.xs,
                "y": examples.ys, "w": examples.weights, "batch": examples.batch}

    @staticmethod
    def body_header(op, fingerprint, answer):
        """The header of the log record of an update applied from a request's body, logged as received after it
        (:func:`~olearn.serve._wal.encode_body`): the body holds the examples and the request's id."""
        return {"op": op, "seq": answer["seq"], "digest": fingerprint}

    @staticmethod
    def fingerprint(op, examples, request_id):
        return None if request_id is None else digest(op, examples)

    # -- predictions ---------------------------------------------------------------

    def predict(self, examples):
        """``{"y": ..., "score": ...}`` of one example, or lists of them for a batch (None before learning)."""
        self.check_features(examples)
        est = self.estimator
        try:
            if examples.batch and self._predicts_a_matrix():
                ys, scores = self._labels_and_scores(self._matrix(examples))
            else:
                ys = [_plain(est.predict_one(x)) for x in examples.dicts]
                scores = self._scores(examples.dicts)
        except _REFUSED as err:
            raise RequestError(422, f"{type(err).__name__}: {err}") from None
        if examples.batch:
            return {"y": ys, "score": scores}
        return {"y": ys[0], "score": scores[0]}

    def _predicts_a_matrix(self):
        """Whether a batch's labels and scores come from one matrix of its rows, as ``predict_one`` gives them: a
        learner that has learned, predicts labels one by one (not a multilabel's indicator rows) and reads any
        columns by index (no DataFrame's names, which a matrix lacks); not a pipeline, whose steps convert the
        features (its batch is predicted example by example)."""
        est = self.estimator
        return (not isinstance(est, Pipeline) and est._is_started() and not isinstance(est, PAMultilabel)
                and getattr(est, "feature_names_in_", None) is None)

    def _matrix(self, examples):
        """The examples' dicts as one CSR matrix, each converted once, as the learner reads a batch of dicts to
        predict (a name it never learned left out, or for a kernel read as a column it never learned): a batch of
        plain named rows whose names it all knows from the body's bytes
        (:meth:`~olearn.serve._requests.Examples.packed_rows`) or by whole-batch passes over the dicts
        (:meth:`~olearn._features.FeatureMap.known_rows`), any other row by row."""
        est = self.estimator
        features = est._feature_map()
        placed = est._places_unknown_names()
        packed = None if placed else examples.packed_rows(features, drop_unknown=True)
        if packed is not None:
            return packed  # the rows that known_rows and _canonical_rows make of the dicts
        dicts = examples.dicts
        if placed:
            # a kernel's unknown names take columns in a copy of its vocabulary: a prediction never changes the
            # model, which a snapshot may be saving meanwhile (in the log's thread)
            return est._named_matrix(dicts, "x", copy.deepcopy(features), True, est._first_free_column())[0]
        known = features.known_rows(dicts, drop_unknown=True)
        if known is None:
            return est._named_matrix(dicts, "x", features, False, est._first_free_column())[0]
        # in the canonical form of the learner's check of a matrix, which the labels' and the scores' checks take
        # as it is (see _known_matrix)
        return _canonical_rows(known, known[3])

    def _labels_and_scores(self, matrix):
        """The labels and scores of the rows ``matrix`` as lists, as ``predict`` and the scores of :meth:`_scores`
        give them: from one pass of the learner's check and scoring where its labels are those of its scores (a
        binary classifier's ``predict`` decodes its ``decision_function``, a linear regressor's is its score),
        else by the two calls."""
        est = self.estimator
        scorer = type(est).decision_function if hasattr(est, "decision_function") else type(est).predict
        if scorer is BinaryClassifierMixin.decision_function and type(est).predict is BinaryClassifierMixin.predict:
            scores = est.decision_function(matrix)
            return est._labels.decode(scores).tolist(), scores.tolist()
        if scorer is PARegressor.predict:
            scores = est.predict(matrix).tolist()
            return scores, scores
        return est.predict(matrix).tolist(), self._scores(matrix)

    def _scores(self, dicts):
        est = self.estimator
        scorer = getattr(est, "decision_function", None) or est.predict
        try:
            return _plain(scorer(dicts))
        except NotFittedError:
            return [None] * len(dicts)
