"""The ``average`` hyperparameter: its constraint, its start round, and the averaged weights it reads.

:class:`RunningSumAverage` is the average of the second-order and quasi-additive learners, whose kernels
keep the running sum beside each weight.

See :mod:`olearn._kernels._lazy_average` for the running sum the kernels keep.
"""

import numpy as np

from ._kernels._codes import A_ROUNDS, A_START, N_AVERAGING
from ._lazy import LazyModule
from ._params import BOOLEAN, Interval
from ._weights import UNWEIGHTED

# the kernels of RunningSumAverage, loaded (with numba) when a learner that keeps a running sum first uses them
_second_order = LazyModule("olearn._kernels._second_order")
_lazy_average = LazyModule("olearn._kernels._lazy_average")


class AverageConstraint:
    """scikit-learn SGD's ``average``: a bool, or the integer n >= 0 of the round from which the weights are averaged.

    0 and False average nothing, True is 1. The bound 2**53 keeps n exact in a
    kernel's float64 parameters.
    """

    _start = Interval(0, 2**53, integer=True)

    def accepts(self, value):
        return BOOLEAN.accepts(value) or self._start.accepts(value)

    def describe(self):
        return f"True, False or {self._start.describe()} (the round from which the weights are averaged)"


AVERAGE = AverageConstraint()


def average_start(average):
    """The round a from which the weights are averaged: 0 for none, 1 for True, n for an integer n.

    >>> average_start(False), average_start(True), average_start(10)
    (0, 1, 10)
    """
    return int(average)


def new_averaging(average):
    """The int64 ``averaging`` array of a learner that has seen no example yet."""
    averaging = np.zeros(N_AVERAGING, dtype=np.int64)
    averaging[A_START] = average_start(average)
    return averaging


def n_averaged(averaging):
    """How many rounds the average is over (0: not averaging yet, the weights are the current ones)."""
    if averaging[A_START] == 0:
        return 0
    return max(0, int(averaging[A_ROUNDS]) - int(averaging[A_START]) + 1)


def averaged(weights, correction, averaging):
    """The averaged weights ``w - U / (T - a + 1)``, or ``weights`` itself before averaging starts."""
    n = n_averaged(averaging)
    return weights if n == 0 else weights - correction / n


def interleaved(weights, correction):
    """``weights`` and their running ``correction`` (same shape) as views of one array of records (weight, correction).

    The records array has the shape of ``weights`` plus a last axis of 2;
    the views are ``records[..., 0]`` and ``records[..., 1]``, which the
    kernels read and write as they would two arrays. An averaged score reads
    a weight and its correction side by side, one cache line where two
    separate arrays cost two (see :mod:`olearn._kernels._lazy_average`). The
    two are returned unchanged when they already are such views; the values
    are the same bits either way.
    """
    if side_by_side(weights, correction):
        return weights, correction
    new_weights, new_correction = zero_records(weights.shape)
    new_weights[...] = weights
    new_correction[...] = correction
    return new_weights, new_correction


def joined_rows(weights, corrections):
    """A feature-major matrix of weights and its running ``corrections`` (same shape) side by side in each row.

    Row j of the result is row j of ``weights`` followed by row j of
    ``corrections``: the layout of the sequence tagger, whose emission rows
    hold a feature's weight for every label and are read whole (the weights
    and the corrections of a row are each read as a contiguous run, and
    together they are one run of memory where two arrays cost two). Records
    of (weight, correction) pairs (:func:`interleaved`) were measured 1.7-2x
    slower there: the pairs break the runs the label loops read. The views
    are :func:`row_halves`.
    """
    return np.concatenate((weights, corrections), axis=1)


def row_halves(rows):
    """(weights, corrections): the two halves of the rows of :func:`joined_rows`, as views."""
    half = rows.shape[1] // 2
    return rows[:, :half], rows[:, half:]


def zero_records(shape):
    """The two views (weights, correction) of a new array of zero records of ``shape`` (see :func:`interleaved`).

    A fresh block of zeros is mapped as it is first touched: growing writes the
    old records alone, and a loader writes each saved array into its view as
    it reads it, holding one array of the file at a time.
    """
    records = np.zeros((*shape, 2))
    return records[..., 0], records[..., 1]


def side_by_side(weights, correction):
    """Whether ``weights`` and ``correction`` are the two views of one records array made by :func:`interleaved`."""
    item = weights.itemsize
    return (weights.shape == correction.shape and weights.strides == correction.strides
            and weights.ndim > 0 and weights.strides[-1] == 2 * item
            and correction.ctypes.data - weights.ctypes.data == item)


def averages_entries(n_entries, n_columns):
    """Whether rows of ``n_entries`` non-zeros are scored with the averaged weights of their entries alone.

    Averaged as a row reads them, each entry costs two reads (the weight and
    its running correction) against a plain score's one; averaging all
    ``n_columns`` weights first costs O(d) once. The entries are averaged alone
    while they are fewer than a quarter of the columns (one row, a small batch).
    """
    return 4 * n_entries < n_columns


KEPT_AVERAGE = "_kept_average"


def same_key(kept, key):
    """Whether the key of a kept value is ``key``: arrays by identity, other values (counts) by equality.

    A key's arrays are held by the kept value, so none is freed and its
    identity taken by another array meanwhile; a tuple matches entry by entry.
    Called on every prediction: one loop, no recursion.
    """
    if kept is key:
        return True
    if type(kept) is not tuple or type(key) is not tuple or len(kept) != len(key):
        return False
    for old, new in zip(kept, key):
        if old is not new and (isinstance(old, np.ndarray) or isinstance(new, np.ndarray)
                               or type(old) is not type(new) or old != new):
            return False
    return True


def _kept(learner):
    """What ``learner`` keeps for its predictions: (key, entries read, value or None), or None."""
    return getattr(learner, KEPT_AVERAGE, None)


def _keep(learner, kept):
    # a slot of OnlineLearner, not in __dict__: predictions leave the learner's attributes as they were
    object.__setattr__(learner, KEPT_AVERAGE, kept)


def kept_average(learner, key, average):
    """The whole averaged weights of ``learner``, computed by ``average()`` once and kept between predictions.

    The kept value is valid while ``key`` is the same (:func:`same_key`): the
    running-sum array the average reads, or a tuple of the arrays and counts
    it reads. A learner that replaces an array (growth, a new start, loading)
    makes it stale, and one that writes its state in place either changes a
    count of the key (its rounds) or calls :func:`forget_average` first. It is
    kept in the learner's ``_kept_average`` slot, outside ``__dict__``: a
    prediction leaves the learner's attributes as they were, and the value is
    no part of the model, never saved, pickled or copied. An averaged model
    thus keeps one extra weight array once a batch was predicted with the
    whole average.
    """
    kept = _kept(learner)
    if kept is None or not same_key(kept[0], key) or kept[2] is None:
        kept = (key, 0, average())
        _keep(learner, kept)
    return kept[2]


def reads_entries(learner, key, n_entries, n_columns):
    """Whether rows of ``n_entries`` non-zeros are scored averaging the entries they read alone.

    So they are while no whole average is kept (:func:`kept_average`) and the
    entries read since the state last changed, these included, stay under a
    quarter of the columns (:func:`averages_entries`): the lazy work done
    before the whole average is computed and kept is at most what computing
    it costs, and predictions after it cost what plain ones do.
    """
    kept = _kept(learner)
    read = 0
    if kept is not None and same_key(kept[0], key):
        if kept[2] is not None:
            return False
        read = kept[1]
    read += n_entries
    if not averages_entries(read, n_columns):
        return False
    _keep(learner, (key, read, None))
    return True


def forget_average(learner):
    """Drop the average kept by :func:`kept_average`: called before anything writes the state in place."""
    _keep(learner, None)


def check_average_unchanged(estimator, averaging):
    """Refuse a learner whose ``average`` was changed after learning started (its running sum means the old one)."""
    if averaging[A_START] != average_start(estimator.average):
        raise ValueError(
            f"{type(estimator).__name__}: average={estimator.average!r} was set after learning started with "
            f"averaging from example {int(averaging[A_START])} (0 = none); the averaged weights cannot be rebuilt "
            "for another start: set it back, or call fit to start over"
        )


def averaging_relation(estimator, corrections, counters):
    """Relation of a saved state: the averaging arrays are present exactly when ``average`` is on, and match it.

    ``corrections`` maps the name of each saved running correction U to the
    name of the weights it goes with (same shape); ``counters`` names the saved
    ``averaging`` array.
    """
    start = average_start(estimator.average)
    names = [*corrections, counters]

    def relation(arrays, dims):
        present = [name for name in names if name in arrays]
        if not start:
            return f"the file has the averaging arrays {present} but average={estimator.average!r}" if present else None
        if len(present) < len(names):
            return f"average={estimator.average!r} needs the arrays {names}"
        for correction, weights in corrections.items():
            if arrays[correction].shape != arrays[weights].shape:
                return f"array {correction!r} has shape {arrays[correction].shape}; expected that of {weights!r}"
        rounds, saved_start = (int(v) for v in arrays[counters])
        if saved_start != start or rounds < 0:
            return f"array {counters!r} is {[rounds, saved_start]}; expected [rounds >= 0, {start}]"
        return None

    return relation


class RunningSumAverage:
    """The ``average`` of a learner that keeps the running sum ``_avg_sum`` (laid out as ``_w``) and ``_avg_count``.

    ``_avg_count`` is [rounds averaged, first averaged round]; the kernels of
    :mod:`olearn._kernels._second_order` keep both, and the second-order and
    quasi-additive learners read them here.
    """

    def _averaging(self):
        return "_avg_count" in self.__dict__

    def _average_key(self):
        """The array whose identity keys the kept average (:func:`~olearn._averaging.kept_average`): the running
        sum's, replaced whenever the learner replaces it."""
        return self._avg_sum

    def _learned_average_start(self):
        """The first round averaged by the model learned so far; 0 when it does not average."""
        return int(self._avg_count[1]) if self._averaging() else 0

    def _averaging_arrays(self):
        """(U, [k, first]) for the kernels: the average's state, or two empty arrays."""
        if self._averaging():
            # handed to a kernel that writes them: the kept average no longer holds
            forget_average(self)
            return self._avg_sum, self._avg_count
        return UNWEIGHTED, UNWEIGHTED

    def _predicting_weights(self):
        """The weights that predict: the average of w once a round is averaged (kept until the state changes:
        :func:`~olearn._averaging.kept_average`), else w."""
        if not self._averaging():
            return self._w
        return kept_average(self, self._average_key(), self._whole_average)

    def _whole_average(self):
        out = np.empty(self._w.size)
        _second_order.averaged(self._w, self._avg_sum, self._avg_count, out)
        return out

    def _averages_entries(self, n_entries):
        """Whether rows of ``n_entries`` non-zeros are scored by :meth:`_averaged_scores`: once a round is
        averaged, until the rows read since the last change are many (:func:`~olearn._averaging.reads_entries`)."""
        return (self._averaging() and self._avg_count[0] > 0.0
                and reads_entries(self, self._average_key(), n_entries, self._w.size))

    def _averaged_scores(self, indptr, indices, data, bias):
        """Scores of CSR rows (intercept feature ``bias``) with the averaged weights, once a round is averaged.

        The entries the rows read are averaged alone
        (:func:`~olearn._kernels._lazy_average.averaged_vector_scores`): the
        scores with :meth:`_predicting_weights`, bit for bit, for O(nnz) work
        instead of averaging all d weights.
        """
        out = np.empty(indptr.size - 1)
        _lazy_average.averaged_vector_scores(indptr, indices, data, self._w, self._avg_sum, self._avg_count[0], bias,
                                            out)
        return out
