"""The shared machinery of the second-order binary learners.

A learner here keeps a mean ``w`` (its ``coef_``) and a covariance, full or
diagonal, and names one rule of :mod:`olearn._kernels._second_order`; the
compiled passes of that module (full) and of :mod:`olearn._kernels._diagonal`
do the rest. ``partial_fit``, ``learn_one`` and :func:`olearn.run` call the same
kernel, so the three agree by construction. The diagonal passes and the mean's
scores are reached through :mod:`olearn._kernels._compiled` (compiled at install:
``olearn run --algo arow`` starts no numba); the other kernels' modules are held
as :class:`~olearn._lazy.LazyModule`, so that numba starts only when one of them
is called.

The label handling (any two classes, one class before the other, negating
the mean when the encoding flips) is that of
:class:`~olearn.linear._binary.BinaryClassifierMixin`: every learner here is odd
in the labels with an even covariance update, so negating ``w`` alone is exact.

Averaging (``average``) and importance weights (``sample_weight``,
``class_weight``) go beyond the source texts; the kernels' module docstrings
give the bookkeeping and each learner's docstring the meaning of a weight.
"""


import numpy as np

from .._averaging import AVERAGE, RunningSumAverage, average_start, interleaved
from ..exceptions import PartialUpdateError
from .._kernels import _codes, _compiled
from .._kernels import _second_order_codes as _so
from .._kernels._second_order_codes import ADAGRAD_CHUNK
from .._labels import BinaryLabels
from .._lazy import LazyModule
from .._params import Options
from .._state_schema import (
    COUNT,
    NONNEGATIVE,
    POSITIVE,
    Array,
    Count,
    StateSchema,
    averaged_schema,
    one_of,
    square_root_of_a_covariance,
    symmetric_positive_definite,
)
from .._validation import seen_columns, seen_row
from .._weights import CLASS_WEIGHT, UNWEIGHTED
from ..linear._base import LinearLearner, _RowNotLearned, grown_intercept_last, negated
from ..linear._binary import BinaryClassifierMixin

# the kernels not compiled at install: imported at their first call (see the module docstring)
_full = LazyModule("olearn._kernels._second_order")
_diagonal = LazyModule("olearn._kernels._diagonal")

COVARIANCES = Options("full", "diag")
# the constraints every learner here adds to its own
AVERAGING_CONSTRAINTS = {"average": AVERAGE, "class_weight": CLASS_WEIGHT}


def grown_pairs(ws, capacity, new_capacity, variance):
    """``_ws`` (rows of (mean, variance) or, averaging, (mean, variance, running sum)) resized for
    ``new_capacity`` features, as :func:`~olearn.linear._base.grown_intercept_last` resizes a vector: the
    intercept's row stays last, and a new feature's row is (0, ``variance``) (and 0)."""
    # zeros, not empty then filled: a fresh block of zeros is mapped as it is first touched (AdaGrad's
    # accumulators start at 0, so its new rows are never written here)
    grown = np.zeros((new_capacity + 1, ws.shape[1]))
    grown[:capacity] = ws[:capacity]
    if variance != 0.0:
        grown[capacity:new_capacity, 1] = variance
    grown[new_capacity] = ws[capacity]
    return grown


def square_of_root(rows):
    """S S^T for the rows ``rows`` of a square root S (the covariance of those features), exactly symmetric."""
    square = rows @ rows.T
    return 0.5 * (square + square.T)


def root_of_covariance(covariance):
    """A square root S of a covariance (S S^T = ``covariance``): its Cholesky factor, or, for a matrix that
    rounding left slightly indefinite (which files written before the square root may hold, and the load
    checks accept), Q diag(sqrt(max(lambda, 0))) from its eigen-decomposition."""
    try:
        return np.linalg.cholesky(covariance)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(covariance)
        return vectors * np.sqrt(np.maximum(values, 0.0))


class SecondOrderClassifier(RunningSumAverage, BinaryClassifierMixin, LinearLearner):
    """Base class: subclasses define ``_constraints`` and ``_rule()``.

    ``_rule()`` returns (rule code, hyperparameter, delta) for the kernel.
    The learned state is the mean ``_w`` (its last entry is the intercept),
    the covariance ``_cov`` (its last row and column belong to the intercept's
    constant feature; a vector for a diagonal covariance) and ``_state``;
    with ``average`` set, also the average's running sum ``_avg_sum`` (laid
    out as ``_w``) and ``_avg_count`` = [rounds averaged, first averaged round].
    The running sum is kept beside the mean, one record per coordinate: with a
    full covariance ``_w`` and ``_avg_sum`` are the two views of one array of
    records (:func:`~olearn._averaging.interleaved`), with a diagonal one the
    third column of ``_ws`` (below), so that an averaged score reads a
    coordinate's mean and running sum from one cache line.

    A full covariance is kept as a square root: ``_cov`` is S with
    ``Sigma = S S^T`` (the update of :mod:`olearn._kernels._second_order`), and
    ``covariance_`` computes S S^T. Saved models hold S (``covariance_root``);
    files written before hold Sigma (``covariance``) and load with its Cholesky
    factor as S.

    A diagonal covariance is kept with the mean in one array ``_ws`` of shape
    (capacity + 1, 2), or (capacity + 1, 3) with the average's running sum:
    ``_w``, ``_cov`` (and ``_avg_sum``) are then its columns (views).
    A round reads and writes both entries of each coordinate it touches, so
    side by side they are one cache line, not two (AdaGrad's checking pass
    over the reference stream, alone, alternating in one process: 60-65 ms
    instead of 66-74). The saved state keeps the two arrays apart, as before.
    Only ``_ws`` is stored (a copy or a pickle keeps no view), and it is
    replaced, not written into, when it grows or the mean changes sign, as
    ``_w`` is elsewhere.
    """

    _learned = (*LinearLearner._learned, "_cov", "_ws", "_labels", "classes_", "_avg_sum", "_avg_count",
                "_calibration")
    # files written before the family learned calibrated probabilities lack the hyperparameter
    _params_added_later = frozenset({"calibration"})
    _written_by_pass = ("_w", "_cov", "_ws", "_state", "_avg_sum", "_avg_count")
    # the variance of a feature before it is seen: Sigma_1 = I
    _initial_variance = 1.0

    def _all_constraints(self):
        return {**super()._all_constraints(), **AVERAGING_CONSTRAINTS}

    def _full(self):
        """True for a full covariance matrix, False for a diagonal one."""
        return self.covariance == "full"

    # -- hyperparameters ------------------------------------------------------

    def _build_config(self):
        """(codes, params) of the kernel; a covariance kind or an average other than the one learned is refused."""
        if self._is_started() and (self._cov.ndim == 2) != self._full():
            raise ValueError(
                f"{type(self).__name__}: parameter covariance={self.covariance!r} differs from the "
                "covariance learned so far; call fit to start over with it"
            )
        self._refuse_another_average()
        rule, hyper, delta = self._rule()
        codes = np.zeros(_so.N_CODES, dtype=np.int64)
        codes[_so.K_RULE] = rule
        params = np.zeros(_so.N_PARAMS)
        params[_so.Q_HYPER] = hyper
        params[_so.Q_DELTA] = delta
        params[_so.Q_BIAS] = 1.0 if self.fit_intercept else 0.0
        params[_so.Q_AVERAGE] = average_start(self.average)
        return codes, params

    # -- learned state --------------------------------------------------------

    _w = property(
        lambda self: self._stored("_w", 0),
        lambda self, value: self._store("_w", value),
        doc="The mean (a column of ``_ws`` with a diagonal covariance).",
    )
    _cov = property(
        lambda self: self._stored("_cov", 1),
        lambda self, value: self._store("_cov", value),
        doc="The covariance, or the diagonal one's vector (a column of ``_ws``).",
    )
    _avg_sum = property(
        lambda self: self._stored("_avg_sum", 2),
        lambda self, value: self._store("_avg_sum", value),
        doc="The average's running sum U (the third column of ``_ws`` with a diagonal covariance).",
    )

    def _stored(self, name, column):
        state = self.__dict__
        # the mean and the variances are always columns of _ws, the running sum only when averaging
        if "_ws" in state and (column < 2 or column < state["_ws"].shape[1]):
            return state["_ws"][:, column]
        if name in state:
            return state[name]
        raise AttributeError(name)

    def _store(self, name, value):
        if "_ws" in self.__dict__:
            raise AttributeError(f"{name} is a column of _ws with a diagonal covariance: replace _ws")
        self.__dict__[name] = value

    def _start(self):
        self._labels = BinaryLabels(type(self).__name__)
        start = average_start(self.average)
        if self._full():
            self._w = np.zeros(1)
            self._cov = np.full((1, 1), np.sqrt(self._initial_variance))
        else:
            # the running sum U of the average in a third column
            self._ws = np.array([[0.0, self._initial_variance, 0.0] if start else [0.0, self._initial_variance]])
        self._state = np.zeros(_so.N_STATE)
        if start:
            # the running sum U of the average, laid out as w, and [k, the first averaged round]
            self._avg_count = np.array([0.0, start])
            if self._full():
                self._avg_sum = np.zeros(1)
                self._interleave()
        self.n_features_in_ = 0
        if self.n_features is not None:
            self._grow(self.n_features, "n_features")

    def _state_bytes(self, n_features):
        """The mean and the covariance: 8 (d + 1)^2 bytes for a full one, 8 (d + 1) for a diagonal one; and
        8 (d + 1) for the average's running sum."""
        d = n_features + 1
        return 8 * d * (2 if average_start(self.average) else 1) + (8 * d * d if self._full() else 8 * d)

    def _grow(self, n_features, where):
        """Make room for feature indices below ``n_features``.

        A diagonal covariance grows with the mean, by doubling. A full one
        grows to exactly ``n_features``: copying it costs O(d^2), as much as
        one update, and a larger capacity would make every update pay for it.
        """
        self._check_feature_limit(n_features, where)
        capacity = self._w.size - 1
        if n_features > capacity:
            if self._full():
                new_capacity = n_features
            else:
                new_capacity = n_features if capacity == 0 else max(n_features, 2 * capacity)
            if self._full():
                self._w = grown_intercept_last(self._w, capacity, new_capacity)
                self._cov = grown_intercept_last(self._cov, capacity, new_capacity, np.sqrt(self._initial_variance))
                if self._averaging():
                    self._avg_sum = grown_intercept_last(self._avg_sum, capacity, new_capacity)
                    self._interleave()
            else:
                self._ws = grown_pairs(self._ws, capacity, new_capacity, self._initial_variance)
        if n_features > self.n_features_in_:
            self.n_features_in_ = int(n_features)

    def _negate(self):
        """The model learned with the other class encoded +1: the mean changes sign, the covariance (even in
        the labels) does not. New arrays, not written into (see ``_first_call_atomic``)."""
        # every iterate changes sign, so does the running sum
        if self._full():
            self._w = negated(self._w)
            if self._averaging():
                self._avg_sum = negated(self._avg_sum)
                self._interleave()
        else:
            self._ws = self._ws * np.array([-1.0, 1.0, -1.0][: self._ws.shape[1]]) + 0.0  # as negated: no -0.0

    def _interleave(self):
        """Lay a full covariance's mean and the average's running sum side by side, the two views of one array
        of records (:func:`~olearn._averaging.interleaved`)."""
        self._w, self._avg_sum = interleaved(self._w, self._avg_sum)

    def _average_key(self):
        # a diagonal covariance's running sum is a column of _ws, a new view at each read: _ws keys the average
        state = self.__dict__
        return state["_ws"] if "_ws" in state else self._avg_sum

    def __setstate__(self, state):
        # learners pickled before the running sum joined the mean kept it apart; pickle and deepcopy copy the
        # two views of the records apart: laid side by side again
        if "_avg_sum" in state and "_ws" in state:
            state = dict(state)
            state["_ws"] = np.column_stack((state["_ws"], state.pop("_avg_sum")))
        super().__setstate__(state)
        if "_avg_sum" in state:
            self._interleave()

    @property
    def coef_(self):
        """The mean vector (averaged with ``average``), shape (1, n_features) as scikit-learn's binary linear models."""
        self._check_started()
        return self._predicting_weights()[: self.n_features_in_].reshape(1, -1).copy()

    @property
    def intercept_(self):
        """Intercept, shape (1,); 0 unless ``fit_intercept=True``."""
        self._check_started()
        return np.array([self._predicting_weights()[-1] if self.fit_intercept else 0.0])

    @property
    def covariance_(self):
        """The learned covariance of the features: shape (n_features, n_features), or (n_features,) when diagonal.

        The intercept's row and column (``fit_intercept=True``) are left out, as
        ``coef_`` leaves out the intercept.
        """
        self._check_started()
        n = self.n_features_in_
        if self._cov.ndim == 1:
            return self._cov[:n].copy()
        return square_of_root(self._cov[:n])

    # -- prediction -----------------------------------------------------------

    def _scores(self, X):
        """The mean's scores w.x (w averaged with ``average`` on): a feature never learned has mean 0 and
        contributes 0 (its variance plays no part)."""
        self._check_started()
        _, params = self._config_arrays()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        arrays = seen_columns(arrays, self._w.size - 1)
        if self._averages_entries(arrays.indices.size):
            return self._averaged_scores(arrays.indptr, arrays.indices, arrays.data, params[_so.Q_BIAS])
        out = np.empty(arrays.n_rows)
        _compiled.mean_scores(arrays.indptr, arrays.indices, arrays.data, self._predicting_weights(), params, out)
        return out

    def _score_row(self, indices, data, n_features):
        _, params = self._config_arrays()
        if not self._is_started():
            return None
        self._check_width(n_features, "x")
        indices, data = seen_row(indices, data, self._w.size - 1)
        if self._averages_entries(indices.size):
            return self._averaged_scores(np.array([0, indices.size]), indices, data, params[_so.Q_BIAS])[0]
        return _full.mean_score_row(indices, data, 0, indices.size, self._predicting_weights(), params[_so.Q_BIAS])

    # -- learning -------------------------------------------------------------

    def _pass_checks_rows(self):
        """The diagonal pass checks rows (:meth:`LinearLearner._pass_checks_rows`); the full one does not."""
        return type(self)._pass is SecondOrderClassifier._pass and not self._full()

    def _pass(self, arrays, targets, record, weights=None):
        """The kernel's pass; ``weights`` is None or the checked per-row weights. Scores use the current w.

        Unchecked arrays (a diagonal covariance only) go to the pass that
        checks each row before reading it, as in :meth:`LinearLearner._pass`.
        """
        codes, params = self._config_arrays()
        n = arrays.n_rows if record else 0
        scores, losses, taus = np.empty(n), np.empty(n), np.empty(n)
        totals = np.zeros(_codes.N_TOTALS)
        weights = UNWEIGHTED if weights is None else weights
        rows = (arrays.indptr, arrays.indices, arrays.data)
        if arrays.unchecked:
            rows += (np.uint64(arrays.n_features),)
        data = (*rows, targets, weights, self._w, self._cov, self._state, *self._averaging_arrays(), params, codes)
        if self._full():
            stopped = _full.full_pass(*data, np.empty((2, self._w.size)), scores, losses, taus, totals)
        else:
            kernel = _compiled.checking_diagonal_pass if arrays.unchecked else _compiled.diagonal_pass
            stopped = kernel(*data, np.empty(2 * ADAGRAD_CHUNK), scores, losses, taus, totals)
        if stopped >= 0 and arrays.unchecked:
            raise _RowNotLearned(stopped)
        if stopped >= 0:
            kept = "the model is unchanged" if stopped == 0 else f"the model keeps the updates of rows 0..{stopped - 1}"
            raise PartialUpdateError(
                f"{type(self).__name__}: the score or the update overflowed at row {stopped}; {kept}. Scale the features.",
                rows_kept=stopped,
            )
        return scores, losses, taus, totals

    def _takes_held_out(self):
        """Every learner of the family takes held-out rows as a mask (averaging or not)."""
        return True

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """:func:`~olearn._kernels._diagonal.held_out_diagonal_pass` of checked ``arrays`` (a full covariance:
        :func:`~olearn._kernels._second_order.full_pass` with the mask); returns -1 or the row where it stopped."""
        codes, params = self._config_arrays()
        if self._full():
            scores, losses, taus, totals = outputs
            return _full.full_pass(arrays.indptr, arrays.indices, arrays.data, targets, weights, self._w, self._cov,
                                   self._state, *self._averaging_arrays(), params, codes, np.empty((2, self._w.size)),
                                   scores, losses, taus, totals, held)
        return _compiled.held_out_diagonal_pass(arrays.indptr, arrays.indices, arrays.data, targets, weights, held,
                                                self._w, self._cov, self._state, *self._averaging_arrays(), params,
                                                codes, np.empty(2 * ADAGRAD_CHUNK), *outputs)

    def _learn_target(self, indices, data, target, weight=1.0):
        codes, params = self._config_arrays()
        model = (indices, data, target, weight, self._w, self._cov, self._state, *self._averaging_arrays(), params,
                 codes)
        if self._full():
            score, ok = _full.full_learn_one(*model, np.empty((2, self._w.size)))
        else:
            score, ok = _diagonal.diagonal_learn_one(*model, np.empty(2 * ADAGRAD_CHUNK))
        if not ok:
            raise FloatingPointError(
                f"{type(self).__name__}: the score or the update overflowed on this example; the model is "
                "unchanged. Scale the features."
            )
        return score

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: the mean, the covariance (the square root S of a full one, whose S S^T must
        have finite positive variances, or in older files the symmetric positive definite matrix itself;
        or a vector of variances), the kernel's round counter, the classes and, with ``average`` set, the
        average's running sum and its count and first round (which must match the hyperparameter)."""
        shape = ("n_features_in+1",) * (2 if self._full() else 1)
        if self._full():
            covariance = {"covariance_root": Array("float64", shape), "covariance": Array("float64", shape)}
            optional = tuple(covariance)
            relations = [one_of(*covariance), square_root_of_a_covariance("covariance_root"),
                         symmetric_positive_definite("covariance")]
        else:
            # AdaGrad keeps accumulated squared gradients (0 before a feature is seen), the others variances
            variances = POSITIVE if self._initial_variance > 0 else NONNEGATIVE
            covariance, optional, relations = {"covariance": Array("float64", shape, values=variances)}, (), []
        schema = StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={
                "weights": Array("float64", ("n_features_in+1",)),
                **covariance,
                "state": Array("float64", (_so.N_STATE,), entries={_so.Z_T: COUNT}),
            },
            relations=relations,
            limits=self._width_limits(),
            optional=optional,
        )
        return averaged_schema(self._with_classes(schema), average_start(self.average))

    def _get_state(self):
        self._check_started()
        n = self.n_features_in_
        keep = np.append(np.arange(n), self._w.size - 1)
        arrays = {"weights": self._w[keep], "state": self._state, "classes": self._labels.classes}
        if self._full():
            arrays["covariance_root"] = self._cov[np.ix_(keep, keep)]
        else:
            arrays["covariance"] = self._cov[keep]
        if self._averaging():
            arrays["average_sum"] = self._avg_sum[keep]
            arrays["average_count"] = self._avg_count
        return arrays, {"n_features_in": n}

    def _set_state(self, arrays, state):
        self._start()
        weights = np.array(arrays["weights"], dtype=np.float64)
        if "covariance_root" in arrays:
            self._w, self._cov = weights, np.array(arrays["covariance_root"], dtype=np.float64)
        elif self._full():
            self._w, self._cov = weights, root_of_covariance(np.array(arrays["covariance"], dtype=np.float64))
        else:
            columns = (weights, np.array(arrays["covariance"], dtype=np.float64))
            if self._averaging():
                columns += (np.array(arrays["average_sum"], dtype=np.float64),)
            self._ws = np.stack(columns, axis=1)
        self._state = np.array(arrays["state"], dtype=np.float64)
        self.n_features_in_ = int(state["n_features_in"])
        self._labels.set_classes(arrays["classes"])
        self.classes_ = self._labels.classes
        if self._averaging():
            self._avg_count = np.array(arrays["average_count"], dtype=np.float64)
            if self._full():
                self._avg_sum = np.array(arrays["average_sum"], dtype=np.float64)
                self._interleave()
