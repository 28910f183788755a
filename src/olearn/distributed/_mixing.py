r"""Iterative parameter mixing on Dask (McDonald, Hall & Mann 2010).

Each epoch, every shard's worker makes one online pass over its shard from
the current model, and the coordinator mixes the shards' models into the
next current model (:mod:`._models` gives the rules):

.. math:: w^{(e)} = \sum_i \mu_{i,e}\, w^{(i,e)}, \qquad
    w^{(i,e)} = \text{OnePass}(\text{shard}_i,\ w^{(e-1)}),

with :math:`\mu_{i,e} = 1/S_e` over the :math:`S_e` shards that learned an
example in epoch e (``weighting="uniform"``), :math:`n_{i,e} / \sum_j n_{j,e}`
where :math:`n_{i,e}` counts the examples shard i learned in epoch e
(``weighting="examples"``), or :math:`k_{i,e} / \sum_j k_{j,e}` where
:math:`k_{i,e}` counts its updates (``weighting="updates"``, the paper's
error-weighted mixing). A shard that learned no example gets
:math:`\mu_{i,e} = 0` under every weighting, so an empty shard changes
nothing (it would otherwise pull the mixture back to the epoch's start). A shard's pass is one Dask task: a pure function of
the shard and the current model, so a task lost with its worker is run again
elsewhere by Dask and gives the same result.
"""

import copy
import re

import numpy as np

from .._averaging import average_start
from .._kernels import _codes
from .._labels import plain_label
from ._cluster import DistributedError, require_dask
from ._models import kind_of, mix_states, mixing_weights, start_with_classes
from ._kept import keep_shard, keeps
from ._result import DistributedResult
from ._tables import keep_features, with_features
from ._parts import is_sequences, rows_of
from ._shards import Shard, on_cluster

# how the learners name a row of the arrays they were given
_ROW = re.compile(r"\brow (\d+)\b")


def learn_shard(est, shard, values=(), holdout_every=None, kept=None):
    """One online pass of a copy of ``est`` over ``shard`` (its Dask parts made of ``values``, its chunks those of
    ``kept`` if it was kept in memory, :mod:`._kept`); runs on a worker.

    With ``holdout_every`` K, the rows K, 2K, ... of the shard (counted from 1)
    are held out: predicted by the shard's learner at that moment, never
    learned. Returns (its state, its totals, (held-out rows, their mistakes,
    and a regressor's sums of their absolute errors, squared errors and
    losses: :func:`held_out_of`)).
    """
    from ..evaluate import run

    est = copy.deepcopy(est)  # a scattered model is shared by the tasks of a worker
    totals = np.zeros(_codes.N_TOTALS)
    held_out = held_out_of(est, holdout_every)
    row = 0
    names = _names(est)
    for X, y, weight, part, first in (shard.with_values(values) if kept is None else kept).weighted_chunks():
        if (holdout_every is not None and y is not None and not is_sequences(X)
                and _learned_masked(est, X, y, weight, held_out, totals, shard, part, first, row)):
            row += rows_of(X)
            continue
        for lo, hi, is_held in held_out.segments(rows_of(X)):
            labels = None if y is None else y[lo:hi]  # a uniclass stream has none
            try:
                _check_labels(est, labels)
                if is_held:
                    held_out.add(_predicted(est, X[lo:hi], labels), labels, est)
                else:
                    res = run(est, X[lo:hi], labels, record=False,
                              sample_weight=None if weight is None else weight[lo:hi])
                    totals += (res.n_mistakes, res.cumulative_loss, res.n_updates, res.n_rounds)
            except (ValueError, FloatingPointError) as err:
                raise type(err)(f"{shard.describe()}: {located(str(err), part, first + lo, row + lo)}") from err
        row += rows_of(X)
    _check_no_new_names(est, shard, names)
    return est._get_state(), totals, np.array([held_out.examples, held_out.mistakes, *held_out.sums], dtype=float)


def held_out_of(est, every):
    """The :class:`~olearn.cli._holdout.HeldOut` counts of a shard's pass of ``est`` holding out every ``every``-th
    row: the rows and their mistakes; a regressor's sums of their absolute errors, squared errors and losses too, as
    a serial ``olearn run --passes N`` counts them (MAE, RMSE and loss)."""
    from ..cli._holdout import HeldOut
    from ..cli._tasks import task_named

    return HeldOut(every, task_named("regression") if getattr(est, "_estimator_type", None) == "regressor" else None)


def _predicted(est, X, y):
    """What :meth:`HeldOut.add` reads of held-out rows that ``est`` predicts, learning nothing: their number, their
    mistakes (a regressor makes none) and a regressor's predictions (its errors are summed from them)."""
    from types import SimpleNamespace

    if getattr(est, "_estimator_type", None) == "regressor":
        return SimpleNamespace(n_rounds=len(y), n_mistakes=0, predictions=est.predict(X))
    return SimpleNamespace(n_rounds=rows_of(X), n_mistakes=_mistakes(est, X, y), predictions=None)


def _quasi_additive_link(est):
    """``link(theta, w, state)``: a quasi-additive learner's w = g(theta), ||theta||^2 and dual objective
    D = gamma sum(alpha) - F*(theta) (the aggressive p-norm algorithm's own potential: sum(alpha) - f*(theta)),
    as its kernel writes them after a round."""
    from .._kernels import _quasi_additive as qa

    codes, params = est._config_arrays()

    def link(theta, w, state):
        est._relink(theta, w, state, codes, params)
        bias = params[qa.Q_BIAS]
        n = qa.n_coordinates(theta, bias)
        state[qa.S_SQNORM] = float(theta[:n] @ theta[:n])
        if codes[qa.Q_UPDATE] == qa.UPDATE_PNORM_R:
            p = params[qa.Q_P]
            state[qa.S_DUAL] = state[qa.S_SUM_ALPHA] - qa.conjugate(theta, qa.LINK_PNORM, p, bias) / (p - 1.0)
        else:
            qa.refresh_dual(theta, state, codes[qa.Q_LINK], params[qa.Q_P], bias, params[qa.Q_GAMMA])

    return link


def _mistakes(est, X, y):
    """The mistakes of ``est``'s predictions for rows it does not learn: a sequence is one if a position is wrong
    (or if no tag was known to predict it), a multilabel row if its predicted set of labels is not its own."""
    if kind_of(est) == "multilabel":  # a mistake: a row whose predicted set of labels is not its own
        if not est._is_started() or not est.classes_.size:
            return len(y)
        predicted = est.predict(X).astype(bool)
        return sum(set(est.classes_[row].tolist()) != set(labels) for row, labels in zip(predicted, y))
    if not is_sequences(X):
        return np.count_nonzero(est.predict(X) != np.asarray(y))
    if not est._is_started() or not est.classes_.size:
        return len(X)
    return sum(not np.array_equal(p, t) for p, t in zip(est.predict(X), y))


def _names(est):
    """The number of feature names in ``est``'s vocabulary (0 when it hashes names or has none)."""
    features = est.__dict__.get("_features")
    return 0 if features is None else features.size


def _check_no_new_names(est, shard, names):
    """Refuse a shard whose rows added names to the learner's vocabulary (it had ``names``): each shard would give
    a new name a column of its own, and the mixture would add up unrelated weights."""
    if _names(est) > names:
        raise ValueError(f"{shard.describe()}: its rows name their features, and each shard would give a name "
                         f"a column of its own vocabulary; hash the names, {type(est).__name__}(n_bits=18), "
                         "so that every shard gives a name the same column")


def _learned_masked(est, X, y, weight, held_out, totals, shard, part, first, row):
    """Learn a chunk in one compiled pass that holds out its held-out rows (:meth:`HeldOut.learn_masked`, as the
    serial command line does), adding to ``totals`` and ``held_out``; False, nothing learned, for a learner without
    such a pass (its chunk is then learned a run of rows at a time, with the same results)."""
    try:
        _check_labels(est, y)
        masked = held_out.learn_masked(est, X, y, weight)
    except (ValueError, FloatingPointError) as err:
        raise type(err)(f"{shard.describe()}: {located(str(err), part, first, row)}") from err
    if masked is None:
        return False
    res = masked[0]
    totals += (res.n_mistakes, res.cumulative_loss, res.n_updates, res.n_rounds)
    return True


def _check_labels(est, y):
    """A label outside the classes fixed before the first epoch is an error: a multiclass learner would give it a
    slot of its own in this shard only, and a held-out row would count it as a plain mistake."""
    classes = getattr(est, "classes_", None)
    if classes is None or y is None or kind_of(est) in ("sequence", "multilabel"):  # labels met as they come
        return
    unknown = ~np.isin(np.asarray(y), classes)
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ValueError(f"label {plain_label(y[row])!r} at row {row} is not one of the classes "
                         f"{[plain_label(c) for c in classes]} fixed before the first epoch")


def located(message, part, first, row):
    """A learner's message about "row k" of a chunk that starts at row ``first`` of ``part`` and ``row`` of its shard,
    with that row named as its source numbers it (:meth:`Shard.where`)."""
    found = _ROW.search(message)
    if found is None:
        return f"{message} (in the chunk from {Shard.where(part, first, row)})"
    k = int(found.group(1))
    return _ROW.sub(Shard.where(part, first + k, row + k), message, count=1)


def mix_shards(est, kind, shards, client, epochs, weighting, classes, timeout, holdout_every, progress):
    """:func:`parameter_mixing` of ``est`` (whose state mixes as ``kind``) over ``shards`` made already."""
    distributed = require_dask()
    shards, features = with_features(est, shards, client)
    before = copy.deepcopy(est.__dict__)
    totals = np.zeros((epochs, len(shards), _codes.N_TOTALS))
    mus = np.zeros((epochs, len(shards)))
    held_out = np.zeros((epochs, len(shards), 2))
    held_out_sums = np.zeros((epochs, len(shards), held_out_of(est, None).sums.size))
    epoch_runner = _Epochs(distributed, client, shards, timeout, holdout_every, keep=epochs > 1)
    try:
        start_with_classes(est, classes)
        for epoch in range(epochs):
            results = epoch_runner.run(est, epoch + 1)
            states = [state for state, _, _ in results]
            totals[epoch] = [shard_totals for _, shard_totals, _ in results]
            held = np.array([shard_held for _, _, shard_held in results])
            held_out[epoch], held_out_sums[epoch] = held[:, :2], held[:, 2:]
            mus[epoch] = mixing_weights(weighting, totals[epoch, :, _codes.T_UPDATES],
                                        totals[epoch, :, _codes.T_ROUNDS])
            if mus[epoch].any():  # else every shard was empty: the model stays as it was
                est._set_state(*mix_states(kind, states, mus[epoch], average_start(getattr(est, "average", False)),
                                           _quasi_additive_link(est) if kind == "quasi_additive" else None))
            if progress is not None:
                progress(epoch + 1, totals[epoch])
        keep_features(est, features)
    except BaseException:
        est.__dict__.clear()
        est.__dict__.update(before)
        raise
    finally:
        epoch_runner.close()
    return DistributedResult(est, "mixing", len(shards), totals, mus, held_out=held_out, held_out_sums=held_out_sums)


def pass_over_shards(client, shards, task, job, name, number=1, holdout_every=None, timeout=None):
    """Each shard's ``task(job, shard, values, holdout_every)``, run once on the cluster of ``client`` (as an epoch
    of :class:`_Epochs`, ``name`` and ``number`` naming it in messages): their answers, in the order of ``shards``."""
    runner = _Epochs(require_dask(), client, shards, timeout, holdout_every, task=task, name=name)
    try:
        return runner.run(job, number)
    finally:
        runner.close()


class _Epochs:
    """Runs the shards' passes of an epoch as Dask tasks.

    The shards are sent to the cluster once (``scatter``), not with every
    epoch's tasks, and their Dask partitions computed there once
    (:func:`on_cluster`). A scattered shard lives on one worker only; if that worker
    dies, the epoch's tasks are cancelled, and the shards are sent again and
    the epoch run again: its result does not depend on where it runs. The
    epoch's model is scattered to one worker too, and fetched from there by
    the tasks of the others: broadcast to every worker, it would be copied in
    a loop (Dask's ``replicate``) that never ends once one of them has died.
    A worker that dies while the shards or the model are being sent (a
    connection error, no worker running for Dask's 2 s, or the KeyError Dask
    raises when the worker it chose is gone) counts as one lost in the epoch.
    ``task(model, shard, values, holdout_every)`` is a shard's work (default:
    its pass, :func:`learn_shard`), ``name`` what the messages call a run.
    With ``keep`` (a run of several epochs of :func:`learn_shard`), each shard
    of files is read once into its worker's memory (:mod:`._kept`), a task
    whose future every epoch's pass of the shard takes (its last argument),
    and so runs where it is kept.
    """

    attempts = 3

    def __init__(self, distributed, client, shards, timeout, holdout_every, task=learn_shard, name="epoch",
                 keep=False):
        self.distributed, self.client, self.shards, self.timeout = distributed, client, shards, timeout
        self.holdout_every, self.task, self.name, self.keep = holdout_every, task, name, keep
        self.scattered = self.values = self.kept = None

    def run(self, est, epoch):
        from concurrent.futures import CancelledError

        distributed, client = self.distributed, self.client
        for attempt in range(1, self.attempts + 1):
            sent = []
            try:
                if self.scattered is None:
                    bare, self.values = on_cluster(client, self.shards)
                    self.scattered = self._scatter(bare)
                    self.kept = [client.submit(keep_shard, scattered, pure=False) if self.keep and keeps(shard)
                                 else None for shard, scattered in zip(bare, self.scattered)]
                # a copy: on a cluster of threads the object itself would be shared, and its lock is held by the
                # caller for the whole run
                sent.append(self._scatter(copy.deepcopy(est)))
                sent += [client.submit(self.task, sent[0], shard, values, self.holdout_every,
                                       *(() if kept is None else (kept,)), pure=False)
                         for shard, values, kept in zip(self.scattered, self.values, self.kept)]
                self._wait(sent[1:], epoch)
                return client.gather(sent[1:])
            except distributed.KilledWorker as err:
                raise DistributedError(
                    f"{self.name} {epoch}: workers died while learning a shard, more often than Dask retries ({err})"
                ) from None
            except (CancelledError, OSError):
                if attempt == self.attempts:
                    raise DistributedError(
                        f"{self.name} {epoch}: the workers holding the shards were lost {attempt} times"
                    ) from None
                self.close()
            finally:
                client.cancel(sent)

    def _scatter(self, data):
        """``client.scatter(data)``; a KeyError of Dask's (the worker it chose has left the cluster meanwhile) is
        raised as the ConnectionError of a lost worker."""
        try:
            return self.client.scatter(data, hash=False)
        except KeyError as err:
            raise ConnectionError(f"a worker left while data were sent to it (KeyError: {err})") from err

    def _wait(self, tasks, epoch):
        """Wait for the epoch's tasks, up to the timeout (a TimeoutError of Dask's is an OSError: not a lost worker)."""
        try:
            self.distributed.wait(tasks, timeout=self.timeout)
        except self.distributed.TimeoutError:
            raise DistributedError(f"{self.name} {epoch} did not finish within {self.timeout} s") from None

    def close(self):
        """Let the cluster forget the scattered shards (they are sent again if needed) and the computed partitions.

        The partitions' futures are released, not cancelled: their keys may be those of a collection the
        caller persisted, which must outlive the run.
        """
        if self.scattered is not None:
            self.client.cancel(self.scattered + [kept for kept in self.kept if kept is not None])
            self.scattered = self.values = self.kept = None
