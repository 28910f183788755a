"""The shared machinery of the linear learners (binary classifiers and regressors).

A learner here is a preset of the linear kernel (:mod:`olearn._kernels._binary_linear`):
it names a step rule, a loss, a schedule and its hyperparameters, and inherits
everything else. :class:`LinearLearner` holds what does not depend on the task
(hyperparameters, weights, growth, scores, persistence);
:class:`BinaryClassifierMixin` adds the two class labels and the binary APIs,
and :class:`BinaryLinearClassifier` puts the two together.
:class:`KernelizableLearner` adds the dual form with a Mercer kernel
(:mod:`olearn._kernels._mercer_binary`, support set of :mod:`olearn.kernel`).
``partial_fit``, ``learn_one`` and :func:`olearn.run` all call the same
compiled code, so the three agree by construction.

Importance weights reach the kernels as one float64 weight per row (the
hooks ``_pass(arrays, targets, record, weights=None)`` and
``_learn_target(indices, data, target, weight=1.0)``; an unweighted call
passes neither). Averaging (``average``) keeps the running sum of the
iterates next to the weights, as :mod:`olearn._kernels._binary_linear` derives.
"""

import copy

import numpy as np

from .. import _calibration
from .._averaging import average_start, interleaved, zero_records
from .._estimator import ClassifierEstimator, locked, only_when
from .._held_out import held_out_chunk
from ..exceptions import PartialUpdateError
from .._kernels import _codes, _compiled
from .._kernels._codes import A_SIGMA, A_START, N_AVERAGE
from .._labels import BinaryLabels, plain_label
from .._lazy import LazyModule
from .._learner import ManyRows, OnlineLearner
from .._params import BOOLEAN, Interval, NoneOr
from .._persistence import COUNT, LABELS, NONNEGATIVE, POSITIVE, Array, Count, StateSchema, distinct
from .._validation import CSRArrays, check_label, check_y, seen_columns, unchecked_csr
from .._weights import UNWEIGHTED
from ..kernel import SupportSet
from ..kernel._hyperparameters import call_kernel, initial_seed, mercer_arrays

K = LazyModule("olearn._kernels._binary_linear")

# A batch whose rows the pass checks as it reads them is learned on a copy of the weights' state, to be
# put back if a row is refused; the copy costs up to ~1.7 ns a weight (fresh pages), the separate check
# it saves ~0.4 ns an entry: so a learner with weights takes that path from this many entries per copied
# weight (a learner not started has nothing to copy and always takes it).
_ENTRIES_PER_COPIED_WEIGHT = 4



def _stopped(err, scores):
    """``err`` (a PartialUpdateError) with ``scores_kept``: the recorded scores of the rows kept (empty if none)."""
    err.scores_kept = scores[:err.rows_kept]
    return err

class _RowNotLearned(Exception):
    """A pass over rows it checks itself stopped at one: refused as given, or its numbers overflowed.

    Never leaves olearn: the batch is learned again after ``check_X`` (:meth:`LinearLearner._progressive_pass`).
    """

_COMMON_CONSTRAINTS = {
    "fit_intercept": BOOLEAN,
    "n_features": NoneOr(Interval(1, None, integer=True)),
}


def negated(array):
    """``-array`` with every zero +0.0 (-0.0 + 0.0 is +0.0): the room past a model's columns, negated with it,
    stays what a column that grows in takes, whatever width the model had when its classes changed sides."""
    return -array + 0.0


def grown_intercept_last(array, capacity, new_capacity, fill=0.0):
    """``array`` (a vector, or a square matrix) resized for ``new_capacity`` features.

    The last entry (row and column) belongs to the intercept and stays last;
    new features get ``fill`` (in a matrix, on the diagonal, and 0 elsewhere).
    """
    if array.ndim == 1:
        # zeros where it can: a fresh block of zeros is mapped as it is first touched, not written here
        grown = np.zeros(new_capacity + 1) if fill == 0.0 else np.full(new_capacity + 1, fill)
        grown[:capacity] = array[:capacity]
        grown[new_capacity] = array[capacity]
        return grown
    grown = np.zeros((new_capacity + 1, new_capacity + 1))
    grown[np.diag_indices(new_capacity)] = fill
    new = np.append(np.arange(capacity), new_capacity)
    grown[np.ix_(new, new)] = array
    return grown


class LinearLearner(OnlineLearner):
    """Base class: subclasses define ``_constraints`` and ``_kernel_config()``.

    ``_kernel_config()`` returns (codes, params): two dicts keyed by the names
    of :mod:`olearn._kernels._codes` (``K_STEP``, ``P_ETA``, ...).

    The learned state is the weight vector ``_w`` (its last entry is the
    intercept, the weight of a constant feature) and the ``_state`` array of the
    kernel (round counter, scale, squared norm). With ``average`` set, the
    running sum ``_avg`` (laid out as ``_w``) and ``_avg_state`` (sigma and the
    first round averaged) join it: see :mod:`olearn._kernels._binary_linear`.
    ``_w`` and ``_avg`` are then the two views of one array of records
    ``(v_j, u_j)`` (:func:`~olearn._averaging.interleaved`), so that a score
    reads a weight and its running sum on one cache line.
    Predictions, ``coef_``, ``intercept_`` and saved models then use the
    averaged weights; the progressive scores of :func:`olearn.run` and
    ``predict_learn_one`` use the current ones, as the online learner's own.
    Averaged scores average each weight a row reads as they read it
    (:func:`~olearn._kernels._binary_linear.averaged_scores`): those of
    ``X @ coef_ + intercept_``, bit for bit, for O(nnz) work, whatever the
    size of the batch.
    """

    _learned = ("_w", "_state", "_avg", "_avg_state", "n_features_in_")
    # the arrays a pass writes in place (those of them the learner has): copied before a pass over
    # unchecked rows and written back if it stops (see _progressive_pass)
    _written_by_pass = ("_w", "_state", "_avg", "_avg_state")

    # -- hyperparameters ------------------------------------------------------

    def _all_constraints(self):
        return {**_COMMON_CONSTRAINTS, **super()._all_constraints()}

    def _config_arrays(self):
        """The ``codes`` and ``params`` arrays for the current hyperparameters.

        Rebuilt only when a hyperparameter changed since the last call, so
        that ``learn_one`` pays for the checks once, not on every example.
        """
        return self._checked_config(self._build_config)

    def _build_config(self):
        """(codes, params) of the kernel for hyperparameters already checked; may refuse them with ValueError."""
        if self._is_started() and self._learned_average_start() != average_start(getattr(self, "average", False)):
            raise ValueError(
                f"{type(self).__name__}: parameter average={self.average!r} differs from the model learned so far "
                f"(learned with average={self._learned_average_start()}, 0 meaning none); the running average "
                "cannot be started or moved midway: call fit to start over with it"
            )
        codes, params = self._kernel_config()
        code_arr = np.zeros(_codes.N_CODES, dtype=np.int64)
        param_arr = np.zeros(_codes.N_PARAMS)
        for name, value in codes.items():
            code_arr[getattr(_codes, name)] = value
        for name, value in params.items():
            param_arr[getattr(_codes, name)] = value
        param_arr[_codes.P_BIAS] = 1.0 if self.fit_intercept else 0.0
        return code_arr, param_arr

    # -- learned state --------------------------------------------------------

    def _start(self):
        self._w = np.zeros(1)
        self._state = np.array([0.0, 1.0, 0.0])
        start = average_start(getattr(self, "average", False))
        if start:
            self._w, self._avg = interleaved(self._w, np.zeros(1))
            self._avg_state = np.zeros(N_AVERAGE)
            self._avg_state[A_START] = start
        self.n_features_in_ = 0
        if self.n_features is not None:
            self._grow(self.n_features, "n_features")

    def _averaging(self):
        return "_avg" in self.__dict__

    def __setstate__(self, state):
        # pickle and deepcopy copy the two views of the records apart: laid side by side again
        super().__setstate__(state)
        if "_avg" in state:
            self._w, self._avg = interleaved(self._w, self._avg)

    def _learned_average_start(self):
        """The first round averaged by the model learned so far; 0 when it does not average."""
        return int(self._avg_state[A_START]) if self._averaging() else 0

    def _state_bytes(self, n_features):
        """One float64 weight per feature and the intercept, twice with averaging (the running sum)."""
        averaged = 2 if average_start(getattr(self, "average", False)) else 1
        return averaged * super()._state_bytes(n_features)

    def _grow(self, n_features, where):
        """Make room for feature indices below ``n_features``."""
        self._check_feature_limit(n_features, where)
        self._make_room(n_features)
        if n_features > self.n_features_in_:
            self.n_features_in_ = int(n_features)

    def _make_room(self, n_features):
        """Grow the weights (by doubling) to hold feature indices below ``n_features``."""
        capacity = self._w.size - 1
        if n_features > capacity:
            new_capacity = n_features if capacity == 0 else max(n_features, 2 * capacity)
            if self._averaging():
                # the records of the new room are zeros never touched, as grown_intercept_last leaves them
                w, avg = zero_records((new_capacity + 1,))
                for old, new in ((self._w, w), (self._avg, avg)):
                    new[:capacity] = old[:capacity]
                    new[new_capacity] = old[capacity]
                self._w, self._avg = w, avg
            else:
                self._w = grown_intercept_last(self._w, capacity, new_capacity)

    def _negate(self):
        """Negate the learned function: the labels' encoding changed sides (see BinaryClassifierMixin)."""
        self._w = negated(self._w)
        if self._averaging():
            # every iterate changes sign, so does their sum sigma v - u
            self._w, self._avg = interleaved(self._w, negated(self._avg))

    def _weights_used(self):
        """The weights that predict (the intercept's last): the average once it has begun, else the current ones.

        The average of the iterates of rounds a..N is ``(sigma v - u) / (N - a + 1)``.
        """
        if self._averaging():
            n, start = self._state[_codes.S_T], self._avg_state[A_START]
            if n >= start:
                return (self._avg_state[A_SIGMA] * self._w - self._avg) / (n - start + 1.0)
        return self._state[_codes.S_SCALE] * self._w

    @property
    def coef_(self):
        """Weights, shape (1, n_features) as in scikit-learn's binary linear models (averaged with ``average``)."""
        self._check_started()
        return self._weights_used()[: self.n_features_in_].reshape(1, -1)

    @property
    def intercept_(self):
        """Intercept, shape (1,); 0 unless ``fit_intercept=True`` (averaged with ``average``)."""
        self._check_started()
        bias = 1.0 if self.fit_intercept else 0.0
        return np.array([self._weights_used()[-1] * bias])

    # -- prediction -----------------------------------------------------------

    def _check_width(self, n_features, where):
        if self.n_features is not None and n_features > self.n_features:
            raise ValueError(f"{where} has {n_features} features, more than n_features={self.n_features}")

    def _scores(self, X):
        """w.x (+ intercept) of every row of X; a feature not seen in learning contributes 0."""
        self._check_started()
        _, params = self._config_arrays()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        arrays = seen_columns(arrays, self._w.size - 1)
        out = np.empty(arrays.n_rows)
        if not self._averaging() or self._state[_codes.S_T] < self._avg_state[A_START]:
            _compiled.binary_linear_scores(arrays.indptr, arrays.indices, arrays.data, self._w, self._state, params,
                                           out)
        else:
            K.averaged_scores(arrays.indptr, arrays.indices, arrays.data, self._w, self._state, self._avg,
                              self._avg_state, params, out)
        return out

    def _score_one(self, x):
        """w.x of one example, or None before the first example; the input is checked either way."""
        self._config_arrays()
        return self._score_row(*self._row(x))

    def _score_row(self, indices, data, n_features):
        """w.x of one converted example, or None before the first example; a feature not learned counts 0."""
        _, params = self._config_arrays()
        if not self._is_started():
            return None
        self._check_width(n_features, "x")
        if self._averaging():
            return K.averaged_row_score(indices, data, self._w, self._state, self._avg, self._avg_state, params)
        return K.row_score(indices, data, self._w, self._state, params)

    def _pass(self, arrays, targets, record, weights=None):
        """Run the kernel over the rows of ``arrays``; return (scores, losses, taus, totals).

        ``weights``: the checked importance weight of each row, or None (all 1).
        Unchecked arrays (:func:`~olearn._validation.unchecked_csr`) go to the
        pass that checks each row before reading it; where it stops, this
        raises ``_RowNotLearned`` (see :meth:`_progressive_pass`).
        """
        codes, params = self._config_arrays()
        n = arrays.n_rows if record else 0
        # one block for the three: from 4 MB NumPy asks the kernel for huge pages, which, where it grants
        # them, saves a page fault per 4 KB; where it does not, the record of 200,000 rows costs ~1,200
        # faults (~3 ms, ~10% of the pass) however it is allocated
        scores, losses, taus = np.empty((3, n))
        totals = np.zeros(_codes.N_TOTALS)
        weights = UNWEIGHTED if weights is None else weights
        rows = (arrays.indptr, arrays.indices, arrays.data)
        if arrays.unchecked:
            rows += (np.uint64(arrays.n_features),)
        if self._averaging():
            kernel = K.checking_averaged_pass if arrays.unchecked else K.averaged_linear_pass
            stopped = kernel(*rows, targets, weights, self._w, self._state, self._avg, self._avg_state, params, codes,
                             scores, losses, taus, totals)
        else:
            kernel = _compiled.checking_linear_pass if arrays.unchecked else _compiled.binary_linear_pass
            stopped = kernel(*rows, targets, weights, self._w, self._state, params, codes, scores, losses, taus, totals)
        if stopped >= 0 and arrays.unchecked:
            raise _RowNotLearned(stopped)
        if stopped >= 0:
            raise _stopped(PartialUpdateError(
                f"{type(self).__name__}: the score or the squared norm of the weights overflowed at row {stopped}; "
                f"the model keeps the updates of rows 0..{stopped - 1}. Scale the features or lower the step size.",
                rows_kept=stopped,
            ), scores)
        return scores, losses, taus, totals

    # -- a batch's rows, checked by the pass that learns them -----------------

    def _pass_checks_rows(self):
        """Whether :meth:`_pass` takes a batch's rows unchecked, checking each before it reads it.

        This class's pass does; a subclass with a ``_pass`` of its own does
        not, unless it says so by overriding this method.
        """
        return type(self)._pass is LinearLearner._pass

    def _progressive_pass(self, X, y, record, **extra):
        """The task's ``_learn_arrays(arrays, y, record, **extra)`` for the rows of ``X``: its result, after the rows
        were checked (the hooks: :mod:`olearn._learner`).

        ``check_X`` reads the whole of a CSR matrix before the pass reads it
        again. Where it pays (:meth:`_unchecked_rows`) the pass checks each row
        itself instead, just before it reads it, so that the arrays are read
        once. The learner is then saved first: if anything goes wrong (a row
        refused, not in canonical form, an overflow, a bad label), it is put
        back exactly as it was and the batch takes the checked path, which
        raises what it always raised (naming the first bad entry) or learns
        the batch's canonical form. A refused batch costs up to two passes.
        """
        self._config_arrays()
        arrays = self._unchecked_rows(X, y)
        if arrays is not None:
            saved = dict(self.__dict__)
            # what the passes write in place, put back into the same arrays
            contents = {name: saved[name].copy() for name in self._written_by_pass if name in saved}
            for name in self._changed_in_place:
                if name in saved:
                    saved[name] = copy.deepcopy(saved[name])
            try:
                return self._learn_arrays(arrays, y, record, **extra)
            except BaseException as err:
                for name, content in contents.items():
                    saved[name][...] = content
                self.__dict__.clear()
                self.__dict__.update(saved)
                if not isinstance(err, Exception):
                    raise
        # the checked path: the call's result, or its error
        return self._learn_arrays(self._check_X(X, learning=True), y, record, **extra)

    def _unchecked_rows(self, X, y):
        """The unchecked arrays of ``X`` (:func:`~olearn._validation.unchecked_csr`) where its pass may check them.

        That is: the learner's pass checks rows (:meth:`_pass_checks_rows`),
        ``X`` is a non-empty CSR matrix in the kernels' types, ``y`` a 1-d
        array (a column would be warned about twice if the batch were then
        learned again), no column names were learned (a matrix would be
        warned about), and the copy of the weights' state the learner keeps
        costs less than the check it saves (``_ENTRIES_PER_COPIED_WEIGHT``);
        else None.
        """
        if not (isinstance(y, np.ndarray) and y.ndim == 1 and self._pass_checks_rows()):
            return None
        if getattr(self, "feature_names_in_", None) is not None:
            return None
        arrays = unchecked_csr(X)
        if arrays is None or arrays.n_rows == 0:
            return None
        copied = sum(getattr(self, name).size for name in self._written_by_pass if name in self.__dict__)
        if arrays.data.size < _ENTRIES_PER_COPIED_WEIGHT * copied:
            return None
        return arrays

    def _learn_target(self, indices, data, target, weight=1.0):
        """Learn one example already converted, of importance weight ``weight``; return its score before the update."""
        codes, params = self._config_arrays()
        if self._averaging():
            score = K.learn_one_row_averaged(indices, data, target, weight, self._w, self._state, self._avg,
                                             self._avg_state, params, codes)
        else:
            score = K.learn_one_row(indices, data, target, weight, self._w, self._state, params, codes)
        if score != score:
            raise FloatingPointError(
                f"{type(self).__name__}: the score or the squared norm of the weights overflowed on this "
                "example; the model is unchanged. Scale the features or lower the step size."
            )
        return score

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """:func:`~olearn._kernels._binary_linear.held_out_linear_pass` of checked ``arrays`` (with ``average``,
        :func:`~olearn._kernels._binary_linear.held_out_averaged_pass`); returns -1 or the row where it stopped."""
        codes, params = self._config_arrays()
        rows = (arrays.indptr, arrays.indices, arrays.data, targets, weights, held)
        if self._averaging():
            return K.held_out_averaged_pass(*rows, self._w, self._state, self._avg, self._avg_state, params, codes,
                                            *outputs)
        return _compiled.held_out_linear_pass(*rows, self._w, self._state, params, codes, *outputs)

    def _masked_outputs(self, arrays, targets, weights, held):
        """:meth:`_held_out_kernel` over checked rows: ``(scores, losses, taus, totals)``, or None where an overflow
        stopped it."""
        scores, losses, taus = np.empty((3, arrays.n_rows))
        totals = np.zeros(_codes.N_TOTALS)
        stopped = self._held_out_kernel(arrays, targets, UNWEIGHTED if weights is None else weights, held,
                                        (scores, losses, taus, totals))
        return None if stopped >= 0 else (scores, losses, taus, totals)

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: the weights (the intercept's last) and the kernel's state vector.

        With ``average`` set, also the running sum ``average`` (laid out as the
        weights) and ``average_state`` (sigma, the first round averaged, which
        must match the hyperparameter); a model saved without averaging has
        neither.
        """
        schema = StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={"weights": Array("float64", ("n_features_in+1",)), "state": self._state_array()},
            limits=self._width_limits(),
        )
        start = average_start(getattr(self, "average", False))
        if not start:
            return schema

        def same_start(arrays, dims):
            saved = arrays["average_state"][A_START]
            if saved != start:
                return (f"array 'average_state' starts averaging at round {saved:g}; "
                        f"average={self.average!r} says {start}")
            return None

        entries = {A_SIGMA: NONNEGATIVE, A_START: COUNT}
        return schema.extended(
            arrays={"average": Array("float64", ("n_features_in+1",)),
                    "average_state": Array("float64", (N_AVERAGE,), entries=entries)},
            relations=[same_start],
        )

    @staticmethod
    def _state_array():
        """The kernel's state vector: round counter, scale of the weights, their squared norm."""
        entries = {_codes.S_T: COUNT, _codes.S_SCALE: POSITIVE, _codes.S_SQNORM: NONNEGATIVE}
        return Array("float64", (_codes.N_STATE,), entries=entries)

    def _get_state(self):
        self._check_started()
        weights = np.append(self._w[: self.n_features_in_], self._w[-1])
        arrays = {"weights": weights, "state": self._state}
        if self._averaging():
            arrays["average"] = np.append(self._avg[: self.n_features_in_], self._avg[-1])
            arrays["average_state"] = self._avg_state
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        self._start()
        # the two arrays as the file holds them: laying them side by side here would hold the records and the
        # file's arrays at once, past the memory a load may take (they are laid out at the next growth or copy)
        self._w = np.array(arrays["weights"], dtype=np.float64)
        self._state = np.array(arrays["state"], dtype=np.float64)
        if self._averaging():
            self._avg = np.array(arrays["average"], dtype=np.float64)
            self._avg_state = np.array(arrays["average_state"], dtype=np.float64)
        self.n_features_in_ = int(state["n_features_in"])


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
            Importance weight of each row (finite, >= 0), times its class's
            weight under ``class_weight``; the class docstring states what a
            weight does to the step.
        """
        weights = self._row_weights(X, y, sample_weight)
        self._progressive(X, y, record=False, classes=classes, sample_weight=weights)
        return self

    def learn_one(self, x, y, sample_weight=None):
        """Learn one example ``x`` (dict, 1-d array or sparse row) with label ``y`` and weight; returns self."""
        if self._config_cache is None:
            self._config_arrays()  # a changed hyperparameter is refused before the example is read
        indices, data, n_features, new = self._learning_row(x)
        self._learn_row(indices, data, n_features, y, sample_weight, new)
        return self

    def predict_learn_one(self, x, y, sample_weight=None):
        """Predict ``x``, then learn it with label ``y`` (and optional weight); return the prediction.

        One step of progressive validation, with the example converted once:
        the same as ``predict_one(x)`` followed by ``learn_one(x, y)``, but
        cheaper, except that the prediction comes from the current weights
        even when the learner averages (as :func:`olearn.run`'s). The
        prediction is None before any class is known.
        """
        if self._config_cache is None:
            self._config_arrays()
        indices, data, n_features, new = self._learning_row(x)
        return self._learn_row(indices, data, n_features, y, sample_weight, new)

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

    learn_one.__doc__ = BinaryClassifierMixin.learn_one.__doc__

    def predict_learn_one(self, x, y, sample_weight=None):
        # a dict with the keys of the last plain row (FeatureMap.repeated), settings built and unchanged (no
        # value watched in place), no weight, weights learned without a kernel and not averaged, no feature of
        # the row past them, both classes known and y one of them: one compiled call (dict_learn_one), which
        # answers NaN, the model unchanged, for a dict it cannot read so or an overflow; the general path then
        # gives the same result or the error. The conditions are checked inline: this is a stream's whole round.
        cache, state = self._config_cache, self.__dict__
        features = state.get("_features")
        if (cache is not None and not cache[1] and features is not None and type(x) is dict
                and sample_weight is None and "_avg" not in state and self.class_weight is None
                and state.get("calibration") is None):
            repeated = features.repeated
            w = state.get("_w")
            if repeated is not None and w is not None and repeated[4] <= state["n_features_in_"]:
                labels = state["_labels"]
                try:
                    target = labels.both_targets.get(y)
                except TypeError:  # a label that cannot be a class
                    target = None
                if target is not None:
                    codes, params = cache[0]
                    score = K.dict_learn_one(id(x), repeated[0], repeated[1], repeated[2], repeated[3], target, w,
                                             state["_state"], params, codes)
                    if score == score:
                        return labels.sides[score > 0.0]
        return super().predict_learn_one(x, y, sample_weight)

    predict_learn_one.__doc__ = BinaryClassifierMixin.predict_learn_one.__doc__
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


# rows per call of a callable kernel when scoring a batch: bounds the dense copies
_CALLABLE_BLOCK = 256
# rows per compiled dual pass: room for new support vectors is reserved a block at a time
_PASS_BLOCK = 4096


class KernelizableLearner(LinearLearner):
    r"""A linear learner that learns in dual form, with a Mercer kernel, when ``kernel`` is not None.

    Every hook (start, growth, passes, scores, persistence) is the primal one
    while ``kernel=None``. With a kernel the learner keeps
    :math:`f(x) = \sum_i \alpha_i (K(x_i, x) + b^2)`, where ``b`` is 1 with
    ``fit_intercept=True``: the intercept is the weight of a constant feature
    appended inside the kernel's feature map, so that it counts in
    :math:`\|z\|^2 = K(x, x) + b^2` as in the primal learner. A learner becomes
    kernelizable by inheriting from this class (after its task's mixin) and
    taking the hyperparameters of :data:`olearn.kernel.KERNEL_CONSTRAINTS`.

    The dual state is the :class:`~olearn.kernel.SupportSet` ``_support``
    (rows in growable CSR arrays, one coefficient each) and the kernel's
    ``_state`` array (its round counter; the scale stays 1). Importance weights
    enter the step as in the primal learner. ``average`` is refused with a
    kernel: once a budget removes a support vector, the earlier iterates it
    belonged to are lost, so their average cannot be kept exactly.

    The compiled dual kernels (:mod:`olearn._kernels._mercer_binary`) are
    imported by the methods that call them, so that a learner without a
    kernel (``olearn run --algo pa1``) never loads them; the pass and the
    batch scores are taken from :mod:`olearn._kernels._compiled` (compiled at
    install, loaded on their first call).
    """

    _changed_in_place = ("_support",)

    # -- hyperparameters ------------------------------------------------------

    def __getstate__(self):
        # built with the configuration, and rebuilt with it on first use
        state = super().__getstate__()
        state.pop("_mercer", None)
        return state

    def _check_hyperparameters(self, learned=False):
        """The checks of every learner, and that a kernel is not averaged (a loaded file is checked alike)."""
        super()._check_hyperparameters(learned)
        if self.kernel is not None and average_start(self.average):
            raise ValueError(
                f"{type(self).__name__}: parameter average={self.average!r} is not available with a kernel "
                f"(kernel={self.kernel!r}): the averaged iterates live in the kernel's feature space and a budget "
                "forgets them; use average=False, or kernel=None to average the primal weights"
            )

    def _build_config(self):
        if self._is_started() and self._is_dual() != (self.kernel is not None):
            learned = "with a kernel" if self._is_dual() else "without a kernel (kernel=None)"
            raise ValueError(
                f"{type(self).__name__}: parameter kernel={self.kernel!r} differs from the model learned so far, "
                f"which was learned {learned}; call fit to start over with it"
            )
        config = super()._build_config()
        self._mercer = mercer_arrays(self, 1.0 if self.fit_intercept else 0.0)
        return config

    # -- learned state --------------------------------------------------------

    def _is_dual(self):
        return hasattr(self, "_support")

    def _is_started(self):
        return hasattr(self, "_w") or hasattr(self, "_support")

    def _start(self):
        if self.kernel is None:
            super()._start()
            return
        self._state = np.array([0.0, 1.0, 0.0])
        self.n_features_in_ = 0
        self._support = SupportSet(seed=initial_seed(self.random_state))
        if self.n_features is not None:
            self._grow(self.n_features, "n_features")

    def _reset(self):
        super()._reset()
        self.__dict__.pop("_support", None)

    def _make_room(self, n_features):
        if self._is_dual():
            self._support.reserve_features(n_features)
        else:
            super()._make_room(n_features)

    def _negate(self):
        if self._is_dual():
            self._support.negate()
        else:
            super()._negate()

    # -- what was learned -----------------------------------------------------

    def _check_dual(self, name):
        self._check_started()
        if not self._is_dual():
            raise AttributeError(
                f"{type(self).__name__} with kernel=None learns the weights w directly and has no {name}; "
                "set a kernel to learn in dual form"
            )

    @property
    def support_vectors_(self):
        """The support vectors x_i, a CSR matrix of shape ``(n_support_, n_features_in_)``, oldest first."""
        self._check_dual("support_vectors_")
        return self._support.rows(self.n_features_in_)

    @property
    def dual_coef_(self):
        """The coefficients alpha_i of f(x) = sum_i alpha_i (K(x_i, x) + b^2), shape ``(1, n_support_)``."""
        self._check_dual("dual_coef_")
        return self._support.coefficients().T

    @property
    def n_support_(self):
        """The number of support vectors (never above ``budget``)."""
        self._check_dual("n_support_")
        return len(self._support)

    @property
    def coef_(self):
        """Weights; with ``kernel="linear"``, w = sum_i alpha_i x_i.

        Any other kernel has no weight vector in the input space: AttributeError.
        """
        if not self._is_dual():
            return super().coef_
        if self.kernel != "linear":
            raise AttributeError(
                f"{type(self).__name__}: coef_ is only available with kernel='linear'; with kernel={self.kernel!r} "
                "the weight vector lives in the kernel's feature space. Use support_vectors_ and dual_coef_."
            )
        return (self._support.coefficients().T @ self.support_vectors_).reshape(1, -1)

    @property
    def intercept_(self):
        """Intercept, shape (1,): sum_i alpha_i with ``fit_intercept=True`` (any kernel), else 0."""
        if not self._is_dual():
            return super().intercept_
        bias = 1.0 if self.fit_intercept else 0.0
        return np.array([bias * float(np.sum(self._support.coefficients()))])

    # -- learning -------------------------------------------------------------

    def _pass_checks_rows(self):
        """The primal pass checks rows (:meth:`LinearLearner._pass_checks_rows`); the dual one does not."""
        return type(self)._pass is KernelizableLearner._pass and self.kernel is None and not self._is_dual()

    def _pass(self, arrays, targets, record, weights=None):
        """The primal pass, or the dual one: then (scores, losses, taus, totals, support sizes after each round)."""
        if not self._is_dual():
            return super()._pass(arrays, targets, record, weights)
        codes, params = self._config_arrays()
        n = arrays.n_rows if record else 0
        scores, losses, taus = np.empty(n), np.empty(n), np.empty(n)
        sizes = np.empty(n, dtype=np.int64)
        totals = np.zeros(_codes.N_TOTALS)
        if callable(self.kernel):
            self._support.reserve_for_rows(arrays.indptr, self.budget)
            stopped = self._callable_pass(arrays, targets, weights, scores, losses, taus, sizes, totals)
        else:
            stopped = self._compiled_pass(arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals)
        if stopped >= 0:
            raise _stopped(PartialUpdateError(
                f"{type(self).__name__}: the score, K(x, x) or the new coefficient overflowed at row {stopped}; "
                f"the model keeps the updates of rows 0..{stopped - 1}. Scale the features or lower the step size.",
                rows_kept=stopped,
            ), scores)
        return scores, losses, taus, totals, sizes

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """With a kernel, :meth:`_compiled_pass` of checked ``arrays`` whose rows with ``held[i]`` are held out:
        scored by the support set of their moment, as ``decision_function`` scores them, and no round (else
        :meth:`LinearLearner._held_out_kernel`); returns -1 or the row where it stopped."""
        if self.kernel is None:
            return super()._held_out_kernel(arrays, targets, weights, held, outputs)
        codes, params = self._config_arrays()
        scores, losses, taus, totals = outputs
        sizes = np.empty(arrays.n_rows, dtype=np.int64)
        return self._compiled_pass(arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals, held)

    def _compiled_pass(self, arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals, held=None):
        """``dual_pass`` a block of rows at a time; returns -1 or the row where an overflow stopped it.

        Room is reserved before each block for every row of it to join the
        support set, so a long stream never reserves more than the support set
        plus one block. ``held``: see :meth:`_held_out_kernel`.
        """
        mcodes, mparams = self._mercer
        support = self._support
        record = scores.size > 0
        run_pass = _compiled.dual_pass if held is None else _compiled.held_out_dual_pass
        for first in range(0, arrays.n_rows, _PASS_BLOCK):
            last = min(arrays.n_rows, first + _PASS_BLOCK)
            lo, hi = arrays.indptr[first], arrays.indptr[last]
            indptr = arrays.indptr[first:last + 1] - lo
            support.reserve_for_rows(indptr, self.budget)
            outputs = (scores, losses, taus, sizes)
            if record:
                outputs = tuple(out[first:last] for out in outputs)
            block_weights = UNWEIGHTED if weights is None else weights[first:last]
            masked = () if held is None else (held[first:last],)
            stopped = run_pass(
                indptr, arrays.indices[lo:hi], arrays.data[lo:hi], targets[first:last], block_weights,
                *support.arrays(),
                self._state, params, codes, mcodes, mparams, support.work, *outputs, totals, *masked,
            )
            if stopped >= 0:
                return first + stopped
        return -1

    def _learn_target(self, indices, data, target, weight=1.0):
        if not self._is_dual():
            return super()._learn_target(indices, data, target, weight)
        codes, params = self._config_arrays()
        mcodes, mparams = self._mercer
        support = self._support
        support.reserve(1, indices.size, self.budget)
        if callable(self.kernel):
            score, _, _, ok = self._callable_learn(indices, data, target, weight)
        else:
            from .._kernels._mercer_binary import dual_learn_one  # with a kernel only: see the class docstring

            score, ok = dual_learn_one(indices, data, target, weight, *support.arrays(), self._state, params, codes,
                                       mcodes, mparams, support.work)
        if not ok:
            raise FloatingPointError(
                f"{type(self).__name__}: the score, K(x, x) or the new coefficient overflowed on this example; "
                "the model is unchanged. Scale the features or lower the step size."
            )
        return score

    # -- a kernel given as a Python callable ----------------------------------

    def _callable_learn(self, indices, data, target, weight, row=None):
        """One round with the Gram row computed by the callable; returns (score, loss, tau, ok).

        The callable sees dense rows; it is not called on an empty support set.
        """
        from .._kernels._mercer_binary import dual_learn_values  # with a kernel only: see the class docstring

        codes, params = self._config_arrays()
        mcodes, mparams = self._mercer
        x = np.zeros((1, self.n_features_in_))
        x[0, indices] = data
        support = self._support
        name = type(self).__name__ if row is None else f"{type(self).__name__} (row {row})"
        values = np.zeros(0)
        if len(support):
            values = call_kernel(self.kernel, x, support.rows(x.shape[1]).toarray(), name)[0]
        self_value = call_kernel(self.kernel, x, x, name)[0, 0]
        return dual_learn_values(indices, data, target, weight, values, self_value, *support.arrays(), self._state,
                                 params, codes, mcodes, mparams)

    def _callable_pass(self, arrays, targets, weights, scores, losses, taus, sizes, totals):
        """The dual pass with a callable kernel, one Python round per row; returns as ``dual_pass``."""
        record = scores.size > 0
        classify = self._config_arrays()[0][_codes.K_LOSS] != _codes.LOSS_EPSILON_INSENSITIVE
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            weight = 1.0 if weights is None else weights[i]
            score, loss, tau, ok = self._callable_learn(arrays.indices[lo:hi], arrays.data[lo:hi], targets[i], weight,
                                                        row=i)
            if not ok:
                return i
            if record:
                scores[i], losses[i], taus[i], sizes[i] = score, loss, tau, len(self._support)
            totals[_codes.T_MISTAKES] += classify and targets[i] * score <= 0.0
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += tau != 0.0
            totals[_codes.T_ROUNDS] += 1
        return -1

    # -- prediction -----------------------------------------------------------

    def _scores(self, X):
        if not self._is_dual():
            return super()._scores(X)
        self._check_started()
        self._config_arrays()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        return self._dual_scores(arrays)

    def _dual_scores(self, arrays):
        mcodes, mparams = self._mercer
        support = self._support
        out = np.empty(arrays.n_rows)
        if not callable(self.kernel):
            # unseen features meet no support vector but count in ||x||^2: one shared column holds them
            arrays = seen_columns(arrays, self.n_features_in_, sink=True)
            support.reserve_features(arrays.n_features)
            _compiled.dual_scores(arrays.indptr, arrays.indices, arrays.data, *support.arrays()[:6], mcodes, mparams,
                                  support.work, out)
            return out
        if not len(support):
            out[:] = 0.0
            return out
        d = max(arrays.n_features, self.n_features_in_)
        # the callable sees dense rows as wide as the input: refused before allocating them
        self._check_feature_limit(d, "X")
        rows = support.rows(d).toarray()
        coef = support.coefficients()[:, 0]
        offset = mparams[_codes.M_OFFSET]
        import scipy.sparse as sp

        matrix = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=(arrays.n_rows, d))
        for start in range(0, arrays.n_rows, _CALLABLE_BLOCK):
            block = matrix[start:start + _CALLABLE_BLOCK].toarray()
            gram = call_kernel(self.kernel, block, rows, type(self).__name__)
            out[start:start + block.shape[0]] = (gram + offset) @ coef
        return out

    def _score_row(self, indices, data, n_features):
        if not self._is_dual():
            return super()._score_row(indices, data, n_features)
        self._config_arrays()
        self._check_width(n_features, "x")
        arrays = CSRArrays(np.array([0, indices.size], dtype=np.int64), indices, data, 1, n_features)
        return self._dual_scores(arrays)[0]

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The primal state, or with a kernel the support set and the kernel's state vector."""
        if self.kernel is None:
            return super()._state_schema()
        return SupportSet.state_schema(1, self.budget).extended(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={"state": self._state_array()},
            limits=self._width_limits(),
        )

    def _get_state(self):
        if not self._is_dual():
            return super()._get_state()
        self._check_started()
        if callable(self.kernel):
            raise ValueError(
                f"{type(self).__name__}: parameter kernel={self.kernel!r} is a Python callable and cannot be saved "
                "portably; pickle the model instead (the callable must be picklable, e.g. a module-level function)"
            )
        arrays = {**self._support.to_arrays(), "state": self._state}
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        if self.kernel is None:
            super()._set_state(arrays, state)
            return
        self._start()
        self.n_features_in_ = int(state["n_features_in"])
        self._support.reserve_features(self.n_features_in_)
        self._support.load_arrays(arrays)
        self._state = np.array(arrays["state"], dtype=np.float64)
