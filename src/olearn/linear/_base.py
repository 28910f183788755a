"""The linear learner: a preset of the linear kernel, whatever its task (binary classes or real targets).

A learner here is a preset of the linear kernel (:mod:`olearn._kernels._binary_linear`):
it names a step rule, a loss, a schedule and its hyperparameters, and inherits
everything else. :class:`LinearLearner` holds what does not depend on the task
(hyperparameters, weights, growth, scores, the pass over a batch, persistence);
the binary task is :mod:`olearn.linear._binary`, regression
:mod:`olearn.linear._regressor`, and the dual form with a Mercer kernel
:mod:`olearn.linear._kernelized`. ``partial_fit``, ``learn_one`` and
:func:`olearn.run` all call the same compiled code, so the three agree by
construction.

Importance weights reach the kernels as one float64 weight per row (the
hooks ``_pass(arrays, targets, record, weights=None)`` and
``_learn_target(indices, data, target, weight=1.0)``; an unweighted call
passes neither). Averaging (``average``) keeps the running sum of the
iterates next to the weights, as :mod:`olearn._kernels._binary_linear` derives.
"""

import copy

import numpy as np

from .._averaging import average_start, interleaved, zero_records
from ..exceptions import PartialUpdateError
from .._kernels import _codes, _compiled
from .._kernels._codes import A_SIGMA, A_START, N_AVERAGE
from .._lazy import LazyModule
from .._learner import OnlineLearner
from .._params import BOOLEAN, Interval, NoneOr
from .._state_schema import COUNT, NONNEGATIVE, POSITIVE, Array, Count, StateSchema
from .._validation import seen_columns, unchecked_csr
from .._weights import UNWEIGHTED

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
        self._refuse_another_average()
        codes, params = self._kernel_config()
        code_arr = np.zeros(_codes.N_CODES, dtype=np.int64)
        param_arr = np.zeros(_codes.N_PARAMS)
        for name, value in codes.items():
            code_arr[getattr(_codes, name)] = value
        for name, value in params.items():
            param_arr[getattr(_codes, name)] = value
        param_arr[_codes.P_BIAS] = 1.0 if self.fit_intercept else 0.0
        return code_arr, param_arr

    def _refuse_another_average(self):
        """Refuse an ``average`` other than the one the model learned with: the running average cannot be
        started or moved midway."""
        if self._is_started() and self._learned_average_start() != average_start(getattr(self, "average", False)):
            raise ValueError(
                f"{type(self).__name__}: parameter average={self.average!r} differs from the model learned so far "
                f"(learned with average={self._learned_average_start()}, 0 meaning none); the running average "
                "cannot be started or moved midway: call fit to start over with it"
            )

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
            _compiled.averaged_scores(arrays.indptr, arrays.indices, arrays.data, self._w, self._state, self._avg,
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
            kernel = _compiled.checking_averaged_pass if arrays.unchecked else _compiled.averaged_linear_pass
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
            for name in self._copied_in_place():
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

    # -- one example ------------------------------------------------------------

    def learn_one(self, x, y, sample_weight=None):
        """Learn one example ``x`` (dict, 1-d array or sparse row) with its label or target ``y`` and weight; returns
        self.

        A dict's keys are column indices (integers) or feature names; see
        :mod:`olearn._features` for names, categories and ``n_bits``.
        """
        if self._config_cache is None:
            self._config_arrays()  # a changed hyperparameter is refused before the example is read
        indices, data, n_features, new = self._learning_row(x)
        self._learn_row(indices, data, n_features, y, sample_weight, new)
        return self

    def predict_learn_one(self, x, y, sample_weight=None):
        """Predict ``x``, then learn it with its label or target ``y`` (and optional weight); return the prediction.

        One step of progressive validation, with the example converted once:
        the same as ``predict_one(x)`` followed by ``learn_one(x, y)``, but
        cheaper, except that the prediction comes from the current weights
        even when the learner averages (as :func:`olearn.run`'s). A classifier
        predicts None before any class is known.
        """
        if self._config_cache is None:
            self._config_arrays()
        indices, data, n_features, new = self._learning_row(x)
        return self._learn_row(indices, data, n_features, y, sample_weight, new)

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
            return _compiled.held_out_averaged_pass(*rows, self._w, self._state, self._avg, self._avg_state, params,
                                                    codes, *outputs)
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
