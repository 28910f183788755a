"""The binary task of the linear learners: two classes over the kernel's targets -1 and +1, and their calibration.

:class:`BinaryClassifierMixin` maps two class labels to the targets of a
learner whose weights are odd in the labels and gives the binary APIs
(``partial_fit``, ``learn_one``, ``predict``, ...) over the hooks of
:mod:`olearn._learner`; :class:`PlattCalibrated` adds ``calibration`` and
``predict_proba``; :class:`BinaryLinearClassifier` is the mixin over
:class:`~olearn.linear._base.LinearLearner`.
"""

import math

import numpy as np

from .. import _calibration
from .._averaging import average_start
from .._docstrings import shared_entries
from .._estimator import ClassifierEstimator, locked, only_when
from .._held_out import held_out_chunk
from ..exceptions import PartialUpdateError
from .._kernels import _codes
from .._labels import BinaryLabels, plain_label
from .._learner import ManyRows
from .._state_schema import LABELS, Array, distinct
from .._validation import check_label, check_y
from ._base import K, LinearLearner


class BinaryClassifierMixin(ManyRows, ClassifierEstimator):
    """Two classes mapped to the targets -1 and +1 of a kernel, and the binary APIs on top of them.

    For a learner whose weight vector ``_w`` is odd in the labels (negating
    every label negates ``_w``), so that a change of which class is +1 is a
    negation of ``_w``. The learner provides :class:`LinearLearner`'s hooks
    (``_config_arrays``, ``_grow``, ``_negate``, ``_pass``, ``_learn_target``,
    ``_scores``, ``_score_row``) and sets ``_labels`` when it starts.
    """

    _task = "binary"
    _changed_in_place = ("_labels", "_support")
    # nothing is copied for a batch: the labels change only until both classes are known, and until then
    # the learner is copied whole (see _learns_again)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _observe_labels(self, y, classes=None):
        flip = self._labels.declare(classes) if classes is not None else False
        flip = self._labels.observe(y) or flip
        if flip:
            self._negate()
            if "_calibration" in self.__dict__:
                self._calibration = _calibration.flipped(self._calibration)
        self.classes_ = self._labels.classes

    def _copied_in_place(self):
        """The attributes a call that may be refused copies when it begins: not the labels once both classes are
        known (:attr:`~olearn._labels.BinaryLabels.settled`: a call's labels and classes then change nothing in
        them, they are taken or refused), which spares a copy of them per batch and per growing example."""
        labels = self.__dict__.get("_labels")
        if labels is not None and labels.settled:
            return tuple(name for name in self._changed_in_place if name != "_labels")
        return self._changed_in_place

    def _learns_again(self, state, y, classes):
        """While a class is unknown and the batch may bring it: a second class changes which one is +1 (and some
        rules learn otherwise with one class), so the rows kept are learned again with only theirs."""
        labels = state.get("_labels")
        if labels is None or labels.classes is None:
            return True  # nothing learned yet: the copy costs nothing
        if labels.classes.size == 2:
            return False
        if classes is not None:
            return True
        try:
            return not bool(np.all(np.asarray(y, dtype=object) == labels.classes[0]))
        except (TypeError, ValueError):
            return True  # labels the pass will refuse

    # -- learning -------------------------------------------------------------

    def _learn_arrays(self, arrays, y, record, classes=None, sample_weight=None, log_odds=None):
        """Predict then learn every row of ``arrays`` in order; return the per-round outputs.

        Returns (predictions, scores, losses, taus, mistakes, totals): the
        per-round arrays (empty when ``record`` is False; ``mistakes`` is
        boolean) and the kernel's totals, followed by the support-set size
        after each round when ``_pass`` gives one (a kernel learner's).
        ``sample_weight`` is None or the checked effective weight of each row
        (:meth:`~olearn._learner.OnlineLearner._row_weights`). ``log_odds``:
        None, or with ``calibration`` an array of one float64 per row that
        receives the calibrated log-odds of each row before its update.
        """
        y = check_y(y, arrays.n_rows)
        if arrays.n_rows == 0 and classes is None:
            empty = np.empty(0)
            return empty, empty, empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)
        with self._first_call_atomic(arrays):
            self._grow(arrays.n_features, "X")
            self._observe_labels(y, classes)
        targets = self._labels.encode(y)
        weighted = {} if sample_weight is None else {"weights": sample_weight}
        calibrating = self._calibrating()
        try:
            scores, losses, taus, totals, *sizes = self._pass(arrays, targets, record or calibrating, **weighted)
        except PartialUpdateError as err:
            if calibrating:  # the calibrator learns the rows kept, as the learner did
                k = err.rows_kept
                self._calibration = _calibration.updated(self._calibrator(), err.scores_kept, targets[:k],
                                                         None if sample_weight is None else sample_weight[:k])
            raise
        if calibrating:
            # the calibrator does not change the learner: its steps on the pass's scores come out as within it
            self._calibration = _calibration.updated(self._calibrator(), scores, targets, sample_weight, log_odds)
        if not record:
            empty = np.empty(0)
            return empty, empty, empty, empty, np.empty(0, dtype=bool), totals, *(size[:0] for size in sizes)
        mistakes = targets * scores <= 0.0
        return self._labels.decode(scores), scores, losses, taus, mistakes, totals, *sizes

    @shared_entries
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from the rows of X in order (one online pass); returns self.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Any two class labels.
        classes : array-like of 2 labels, optional
            Both classes, when the first batches may show only one.
        sample_weight : float or array-like of shape (n_samples,), optional
            <shared entry: sample_weight>
            It is multiplied by the weight of the example's true class under ``class_weight``.
        """
        weights = self._row_weights(X, y, sample_weight)
        self._progressive(X, y, record=False, classes=classes, sample_weight=weights)
        return self

    def _learn_row(self, indices, data, n_features, y, sample_weight=None, new=None):
        """Learn one converted example; return the prediction made before learning (None before any class).

        ``new`` lists the feature names the example adds (see :mod:`olearn._features`), or is None.
        """
        self._config_arrays()
        weight = self._weight_one(y, sample_weight)
        # an unweighted call leaves the hook's default, so learners without weights keep working
        weighted = {} if sample_weight is None and weight == 1.0 else {"weight": weight}
        labels = self._labels if self._is_started() else None
        classes = None if labels is None else labels.classes
        target = None if labels is None else labels.target(y)
        if target is None or classes.size < 2 or n_features > self.n_features_in_ or new is not None:
            # growing, meeting a class or naming a feature, the learner must be put back if the
            # example is then refused, by its label or by an overflow
            with self._first_call_atomic(new=new):
                if n_features > self.n_features_in_:
                    self._grow(n_features, "x")
                target = self._labels.target(y)
                if target is None or self._labels.classes.size < 2:
                    self._observe_labels(check_label(y))
                    target = self._labels.target(y)
                score = self._learn_target(indices, data, target, **weighted)
        else:
            score = self._learn_target(indices, data, target, **weighted)
        if self._calibrating():
            self._calibration = _calibration.updated(self._calibrator(), [score], [target], [weight])
        if classes is None:
            return None
        return plain_label(classes[-1] if score > 0.0 or classes.size == 1 else classes[0])

    @staticmethod
    def _with_classes(schema):
        """``schema`` and the saved ``classes``: one or two distinct labels, sorted."""
        return schema.extended(
            arrays={"classes": Array(LABELS, ("n_classes",))},
            relations=[distinct("classes", ordered=True)],
            limits={"n_classes": (1, 2)},
        )

    def decision_function(self, X):
        """Signed scores w.x (+ intercept); positive means ``classes_[1]``."""
        return self._scores(X)

    def predict(self, X):
        """Predicted classes: ``classes_[1]`` where the score is > 0, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self._labels.decode(scores)

    def predict_one(self, x):
        """Predicted class of one example (dict, 1-d array or sparse row).

        Before the first example has been learned no class is known, and the
        answer is None (a stream's first prediction), as in River.
        """
        if self._config_cache is None:
            self._config_arrays()
        return self._predict_row(*self._row(x))

    def _predict_row(self, indices, data, n_features):
        """The class predicted for one converted example (None before any class is known)."""
        score = self._score_row(indices, data, n_features)
        if score is None:
            return None
        return self._labels.sides[bool(score > 0.0)]

    # -- a chunk of a multi-pass run with held-out rows -------------------------

    def _takes_held_out(self):
        """Whether the learner's pass takes held-out rows as a mask (:meth:`_held_out_kernel`); none by default."""
        return False

    def _held_out_pass(self, X, y, held, sample_weight=None, log_odds=None):
        """Learn the rows of X not ``held`` in order, and score the held-out ones on the weights of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:meth:`_held_out_kernel`, e.g.
        :func:`~olearn._kernels._binary_linear.held_out_linear_pass`): the
        learned rows end as ``partial_fit`` of them alone would, a held-out row
        is predicted as ``predict`` would predict it then, and only the labels of
        the learned rows are observed. Returns ``(predictions, scores, losses,
        taus, mistakes, totals)`` of every row in order (a held-out row's
        mistake is a prediction other than its label, as ``predict`` is judged;
        its loss and tau are 0) with the totals of the learned rows only; or
        None, the learner untouched, where the pass does not apply
        (:meth:`_takes_held_out`) or the chunk is refused: the caller then
        learns it by the general path, which says why. ``log_odds``: None, or
        with ``calibration`` an array of one float64 per row that receives the
        calibrated log-odds of each row at its moment (a learned row's before
        its update, as in :func:`olearn.run`; a held-out row's as
        ``predict_proba`` would give them then).
        """
        if not self._takes_held_out():
            return None
        return held_out_chunk(self, self._written_by_pass, self._changed_in_place,
                              lambda: self._held_out_targets(X, y, held, sample_weight),
                              lambda checked: self._held_out_rows(*checked, held, log_odds))

    def _held_out_targets(self, X, y, held, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, labels and weights read, and the
        learner grown to its columns and the classes of its learned rows; returns ``(arrays, y, targets, weights)``."""
        self._config_arrays()
        weights = self._row_weights(X, y, sample_weight)
        arrays = self._check_X(X, learning=True)
        y = check_y(y, arrays.n_rows)
        learned = ~held
        with self._first_call_atomic(arrays):
            self._grow(arrays.n_features, "X")
            self._observe_labels(y[learned])
        targets = np.zeros(arrays.n_rows)
        targets[learned] = self._labels.encode(y[learned])
        return arrays, y, targets, weights

    def _held_out_rows(self, arrays, y, targets, weights, held, log_odds=None):
        """The masked pass over checked rows (:meth:`_held_out_kernel`): the outputs of
        :meth:`_held_out_pass`, or None where an overflow stopped it."""
        outputs = self._masked_outputs(arrays, targets, weights, held)
        if outputs is None:
            return None
        scores, losses, taus, totals = outputs
        if self._calibrating():
            # the calibrator learns the learned rows' scores before their updates, in order, as on every path;
            # a held-out row's log-odds are read between them
            self._calibration = _calibration.updated(self._calibrator(), scores, targets, weights, log_odds, held)
        predictions = self._labels.decode(scores)
        mistakes = targets * scores <= 0.0
        mistakes[held] = predictions[held] != y[held]
        return predictions, scores, losses, taus, mistakes, totals

    # -- calibration of the scores (see PlattCalibrated) ------------------------

    def _calibrating(self):
        """Whether the learner calibrates its scores (``calibration="platt"``, :mod:`olearn._calibration`)."""
        return getattr(self, "calibration", None) is not None

    def _calibrator(self):
        """The calibrator's state: learned so far, or the prior before its first example."""
        return self.__dict__.get("_calibration", _calibration.prior())


class PlattCalibrated:
    """The hyperparameter ``calibration`` of a binary margin classifier, and ``predict_proba`` and its twins.

    With ``calibration="platt"`` the learner's scores go through the
    calibration :mod:`olearn._calibration` learns from them online
    (:class:`BinaryClassifierMixin` updates it on every path that learns),
    saved with the model; the probability methods exist (``hasattr``) only
    then. Mixed in before the family's class, whose hyperparameter checks,
    configuration and saved state it extends. A family whose files were
    first written without ``calibration`` lists it in
    ``_params_added_later``: those files load with ``calibration=None``,
    which is what their models did.
    """

    def _all_constraints(self):
        return {**super()._all_constraints(), "calibration": _calibration.CALIBRATION}

    def _build_config(self):
        if self._calibrating() and average_start(getattr(self, "average", False)):
            raise ValueError(
                f"{type(self).__name__}: parameter calibration={self.calibration!r} is not available with "
                f"average={self.average!r}: the calibration learns from the scores of the current weights, while the "
                "averaged ones predict; use one or the other"
            )
        return super()._build_config()

    def _state_schema(self):
        """The family's state, and with ``calibration`` the calibrator's (:mod:`olearn._calibration`)."""
        schema = super()._state_schema()
        if not self._calibrating():
            return schema
        return schema.extended(arrays={"calibration": Array("float64", (_calibration.N_STATE,))},
                               relations=[_calibration.state_problem])

    def _get_state(self):
        arrays, state = super()._get_state()
        if self._calibrating():
            arrays["calibration"] = self._calibrator()
        return arrays, state

    def _set_state(self, arrays, state):
        super()._set_state(arrays, state)
        if self._calibrating():
            self._calibration = np.array(arrays["calibration"], dtype=np.float64)

    def _why_no_probabilities(self):
        if self._calibrating():
            return None
        return ("its scores are margins, not probabilities; set calibration='platt' to learn a map from "
                "scores to probabilities online (see docs/probabilities.md)")

    @only_when(_why_no_probabilities)
    @locked  # a mixin's methods are not locked by Estimator's subclass hook
    def predict_proba(self, X):
        r"""Probability of each class, columns in the order of ``classes_`` (with ``calibration="platt"``).

        The probability of ``classes_[1]`` is :math:`\sigma(a f(x) + b)` of
        the decision function f, with the calibration (a, b) learned online
        from the scores before each update (:mod:`olearn._calibration`); before
        a second class has been seen, the one class known has probability 1.
        """
        log_odds = _calibration.calibrated_scores(self._calibrator(), self.decision_function(X))
        return _calibration.probabilities(log_odds, self.classes_.size)

    @only_when(_why_no_probabilities)
    @locked
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed directly (finite however large the score is)."""
        log_odds = _calibration.calibrated_scores(self._calibrator(), self.decision_function(X))
        return _calibration.log_probabilities(log_odds, self.classes_.size)

    @only_when(_why_no_probabilities)
    @locked
    def predict_proba_one(self, x):
        """Probability of each class for one example, a dict {class: probability}; None before any class is known."""
        score = self._score_one(x)
        if score is None:
            return None
        log_odds = _calibration.calibrated_scores(self._calibrator(), np.array([score]))
        return dict(zip(self.classes_.tolist(), _calibration.probabilities(log_odds, self.classes_.size)[0].tolist()))


class BinaryLinearClassifier(BinaryClassifierMixin, LinearLearner):
    """A linear learner of two classes: a preset of the binary linear kernel.

    The learned state adds the classes to :class:`LinearLearner`'s.
    """

    _learned = (*LinearLearner._learned, "_labels", "classes_", "_calibration")

    def _start(self):
        self._labels = BinaryLabels(type(self).__name__)
        super()._start()

    # -- one example: the common case in one compiled call --------------------

    def learn_one(self, x, y, sample_weight=None):
        self._predict_learn(x, y, sample_weight)
        return self

    learn_one.__doc__ = LinearLearner.learn_one.__doc__

    def predict_learn_one(self, x, y, sample_weight=None):
        # settings built and unchanged (no value watched in place), a dict, no weight, weights learned without a
        # kernel and not averaged, both classes known and y one of them: a dict with the keys of the last plain row
        # (FeatureMap.repeated) and no feature past the weights in one compiled call (dict_learn_one); any other
        # dict converted (FeatureMap.row, as the general path converts it) and, when it names no new feature and
        # none past the weights, learned by one compiled call (learn_one_row, the general path's). Both answer
        # NaN, the model unchanged, for a dict they cannot read so or an overflow; the general path then gives
        # the same result or the error. The conditions are checked inline: this is a stream's whole round.
        cache, state = self._config_cache, self.__dict__
        features = state.get("_features")
        if (cache is not None and not cache[1] and features is not None and type(x) is dict
                and sample_weight is None and "_avg" not in state and self.class_weight is None
                and state.get("calibration") is None):
            w = state.get("_w")
            if w is not None:
                labels = state["_labels"]
                try:
                    target = labels.both_targets.get(y)
                except TypeError:  # a label that cannot be a class
                    target = None
                if target is not None:
                    codes, params = cache[0]
                    width = state["n_features_in_"]
                    repeated = features.repeated
                    if repeated is not None and repeated[4] <= width:
                        score = K.dict_learn_one(id(x), repeated[0], repeated[1], repeated[2], repeated[3], target,
                                                 w, state["_state"], params, codes)
                    else:
                        indices, data, n_features, new = features.row(x, width, True)
                        score = math.nan if new is not None or n_features > width else K.learn_one_row(
                            indices, data, target, 1.0, w, state["_state"], params, codes)
                    if score == score:
                        return labels.sides[score > 0.0]
        return super().predict_learn_one(x, y, sample_weight)

    predict_learn_one.__doc__ = LinearLearner.predict_learn_one.__doc__
    # the same function, unlocked (the class hook locks the public name only): learn_one's, which holds the lock
    _predict_learn = predict_learn_one

    def predict_one(self, x):
        # a dict with the keys of the last plain row (FeatureMap.repeated), settings built and unchanged, weights
        # learned without a kernel and not averaged, no feature of the row past them, a class known: one compiled
        # call (dict_row_score), read as _predict_learn reads it; NaN when it cannot be read so, and the general
        # path then answers or names the fault. Checked inline, as _predict_learn's conditions are.
        cache, state = self._config_cache, self.__dict__
        features = state.get("_features")
        if cache is not None and not cache[1] and features is not None and type(x) is dict and "_avg" not in state:
            repeated = features.repeated
            w = state.get("_w")
            if repeated is not None and w is not None and repeated[4] <= state["n_features_in_"]:
                sides = state["_labels"].sides
                if sides is not None:
                    score = K.dict_row_score(id(x), repeated[0], repeated[1], repeated[2], repeated[3], w,
                                             state["_state"], cache[0][1])
                    if score == score:
                        return sides[score > 0.0]
        return super().predict_one(x)

    predict_one.__doc__ = BinaryClassifierMixin.predict_one.__doc__

    # -- a chunk of a multi-pass run with held-out rows -------------------------

    def _takes_held_out(self):
        """Whether :meth:`_held_out_kernel` applies: no kernel, or one the compiled dual pass computes (not a
        Python callable)."""
        return not callable(getattr(self, "kernel", None))

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The linear state and the classes."""
        return self._with_classes(super()._state_schema())

    def _get_state(self):
        arrays, state = super()._get_state()
        arrays["classes"] = self._labels.classes
        return arrays, state

    def _set_state(self, arrays, state):
        super()._set_state(arrays, state)
        self._labels.set_classes(arrays["classes"])
        self.classes_ = self._labels.classes
