"""The shared machinery of the quasi-additive learners (Winnow, p-norm, dual ascent).

A quasi-additive learner keeps a dual vector theta and predicts with
``w = g(theta)`` (:mod:`olearn._kernels._quasi_additive`). The class here holds
the hyperparameters, theta, w and the labels; subclasses name a geometry, an
update and their hyperparameters. ``partial_fit``, ``learn_one`` and
:func:`olearn.run` call the same compiled code.

The label handling and the streaming methods are those of
:class:`olearn.linear._binary.BinaryClassifierMixin`, shared with the presets of
the Euclidean linear kernel.

Averaging (``average``, beyond the texts) averages ``w = g(theta)``, the
vector that predicts (see :mod:`olearn._kernels._quasi_additive`); a change of
w between rounds (a new feature entering the entropic prior, a changed link)
enters the average as a change made before the next round.
"""


import numpy as np

from .._averaging import AVERAGE, RunningSumAverage, average_start, forget_average, interleaved
from ..exceptions import FeatureLimitError, PartialUpdateError
from .._kernels import _codes
from .._kernels import _quasi_additive as qa
from .._labels import BinaryLabels
from .._state_schema import COUNT, NONNEGATIVE, Array, Count, StateSchema, averaged_schema
from .._validation import CSRArrays, seen_columns, seen_row
from .._weights import CLASS_WEIGHT, UNWEIGHTED
from ..linear._base import LinearLearner
from ..linear._binary import BinaryClassifierMixin


class QuasiAdditiveClassifier(RunningSumAverage, BinaryClassifierMixin, LinearLearner):
    """Base class: subclasses define ``_constraints`` and ``_kernel_config()``.

    ``_kernel_config()`` returns (codes, params): two dicts keyed by the names
    of the layouts of :mod:`olearn._kernels._quasi_additive` (``Q_LINK``,
    ``Q_C``, ...). The learned state is ``_theta`` and ``_w`` (length
    n_features + 1; the last entry is the intercept's), the kernel's ``_state``
    and the labels; with ``average`` set, also the average's running sum
    ``_avg_sum`` (laid out as ``_w``) and ``_avg_count`` = [rounds averaged,
    first averaged round]. The dimension grows exactly to the largest feature index
    seen (or is ``n_features``): the entropic geometry's uniform prior depends
    on it.
    """

    _learned = ("_theta", "_w", "_state", "n_features_in_", "_labels", "classes_", "_link", "_avg_sum", "_avg_count",
                "_calibration")
    # files written before the family learned calibrated probabilities lack the hyperparameter
    _params_added_later = frozenset({"calibration"})
    # the arrays a pass writes in place: saved before a chunk with held-out rows (see _held_out_pass)
    _written_by_pass = ("_theta", "_w", "_state", "_avg_sum", "_avg_count")
    # the arrays are exactly as wide as the model (see _grow), and the entropic prior and w depend on the width:
    # a batch stopped by an overflow after new columns learns the rows it kept again
    _cuts_columns = False

    # -- hyperparameters ------------------------------------------------------

    def _all_constraints(self):
        return {**super()._all_constraints(), "average": AVERAGE, "class_weight": CLASS_WEIGHT}

    def _build_config(self):
        """(codes, params) of the kernel; a started model's w follows a changed link at once; a changed
        average is refused."""
        self._refuse_another_average()
        codes, params = self._kernel_config()
        code_arr = np.zeros(qa.N_QCODES, dtype=np.int64)
        param_arr = np.zeros(qa.N_QPARAMS)
        param_arr[qa.Q_GAMMA] = 1.0
        param_arr[qa.Q_P] = 2.0
        for name, value in codes.items():
            code_arr[getattr(qa, name)] = value
        for name, value in params.items():
            param_arr[getattr(qa, name)] = value
        param_arr[qa.Q_BIAS] = 1.0 if self.fit_intercept else 0.0
        param_arr[qa.Q_AVERAGE] = average_start(self.average)
        if self._is_started() and self._link_of(code_arr, param_arr) != getattr(self, "_link", None):
            self._refresh_weights(code_arr, param_arr)
        return code_arr, param_arr

    @staticmethod
    def _link_of(codes, params):
        """What w = g(theta) depends on besides theta: the link, p and the intercept's constant."""
        return codes[qa.Q_LINK], params[qa.Q_P], params[qa.Q_BIAS]

    def _refresh_weights(self, codes, params):
        """w = g(theta) (and ||theta||^2) again: a changed geometry or intercept changes the link.

        The change of w enters the average as a change before the next round.
        """
        old = self._w.copy()
        forget_average(self)
        self._link = self._link_of(codes, params)
        self._relink(self._theta, self._w, self._state, codes, params)
        if self._averaging():
            average_jump(self._w, old, self._state, self._avg_sum, self._avg_count, params)

    def _relink(self, theta, w, state, codes, params):
        """w = g(theta) of this learner's link, in place."""
        relink(theta, w, state, codes, params)

    # -- learned state --------------------------------------------------------

    def _start(self):
        self._labels = BinaryLabels(type(self).__name__)
        self._theta = np.zeros(1)
        self._w = np.zeros(1)
        self._state = np.zeros(qa.N_QSTATE)
        start = average_start(self.average)
        if start:
            # the running sum U of the average, laid out as w, and [k, the first averaged round]
            self._avg_sum = np.zeros(1)
            self._avg_count = np.array([0.0, start])
            self._interleave()
        self.n_features_in_ = 0
        if self.n_features is not None:
            self._grow(self.n_features, "n_features")

    def _state_bytes(self, n_features):
        # theta and w = g(theta), and the average's running sum
        return (24 if average_start(self.average) else 16) * (n_features + 1)

    def _grow(self, n_features, where):
        """Make room for feature indices below ``n_features`` (exactly: no spare capacity)."""
        self._check_feature_limit(n_features, where)
        if n_features <= self.n_features_in_:
            return
        self._theta = widened(self._theta, n_features)
        # w keeps its old values until relinked: the average takes the change (see _refresh_weights)
        self._w = widened(self._w, n_features)
        if self._averaging():
            self._avg_sum = widened(self._avg_sum, n_features)
            self._interleave()
        # a new array, so that a refused call can put the old one back (see _first_call_atomic)
        self._state = self._state.copy()
        self.n_features_in_ = int(n_features)
        # new features enter the entropy's normalizer, so every weight changes
        self._refresh_weights(*self._config_arrays())

    def _observe_labels(self, y, classes=None):
        flip = self._labels.declare(classes) if classes is not None else False
        flip = self._labels.observe(y) or flip
        if flip:
            self._flip()
        self.classes_ = self._labels.classes

    def _flip(self):
        """The model learned with the other class encoded +1: every link here is odd."""
        self._theta = -self._theta
        self._w = -self._w
        if self._averaging():
            self._avg_sum = -self._avg_sum
            self._interleave()

    def _interleave(self):
        """Lay w and the average's running sum U side by side, the two views of one array of records (w_j, U_j)
        (:func:`~olearn._averaging.interleaved`): an averaged score reads both from one cache line."""
        self._w, self._avg_sum = interleaved(self._w, self._avg_sum)

    def __setstate__(self, state):
        # pickle and deepcopy copy the two views of the records apart: laid side by side again
        super().__setstate__(state)
        if "_avg_sum" in state:
            self._interleave()

    @property
    def _dimension_dependent(self):
        """True when the learned model depends on how many features have been seen.

        The entropic prior is uniform over the coordinates: a new feature
        rescales every weight. The conservative update is blind to that scale
        (only signs of scores matter), the others are not, and neither is an
        average, which sums the rescaled iterates.
        """
        return self._update_depends_on_dimension or (self._entropic() and average_start(self.average) > 0)

    def _entropic(self):
        codes, _ = self._config_arrays()
        return codes[qa.Q_LINK] == qa.LINK_ENTROPY

    @property
    def _update_depends_on_dimension(self):
        """True for the entropic prior with an update other than the conservative one (the text's n is fixed)."""
        codes, _ = self._config_arrays()
        return self._entropic() and codes[qa.Q_UPDATE] != qa.UPDATE_CONSERVATIVE

    def _check_feature_limit(self, n_features, where):
        """Also refuse to grow the entropic prior's dimension n once learning has started, where the update
        depends on it.

        Shalev-Shwartz & Singer (2006) fix n (Eq. (25), the uniform vector
        (1/n, ..., 1/n), and Eq. (28)); a new coordinate enters the normalizer
        of g and rescales every weight, which changes the aggressive and window
        updates. Without ``n_features`` the n is the width of the first data
        (the columns of an array, or one past the largest index of the first
        example), and a later example past it is refused: set ``n_features``.
        """
        super()._check_feature_limit(n_features, where)
        if self.n_features is None and 0 < self.n_features_in_ < n_features and self._update_depends_on_dimension:
            raise FeatureLimitError(
                f"{where}: feature index {n_features - 1} is past the {self.n_features_in_} features this "
                f"{type(self).__name__} started with; with the entropic regularizer and this update the dimension n "
                "of the prior enters every weight (Shalev-Shwartz & Singer 2006, Eq. (25) and (28), with n fixed), "
                "so it cannot grow: set n_features (olearn run --n-features) to the number of features of the data"
            )

    @property
    def coef_(self):
        """Weights w = g(theta) (their average with ``average`` on), shape (1, n_features)."""
        self._check_started()
        return self._predicting_weights()[: self.n_features_in_].reshape(1, -1).copy()

    @property
    def intercept_(self):
        """Intercept, shape (1,); 0 unless ``fit_intercept=True``."""
        self._check_started()
        return np.array([self._predicting_weights()[-1] if self.fit_intercept else 0.0])

    @property
    def theta_(self):
        """The dual vector theta = sum_i alpha_i y_i x_i (the intercept's entry last)."""
        self._check_started()
        return np.append(self._theta[: self.n_features_in_], self._theta[-1])

    # -- learning -------------------------------------------------------------

    def _overflow(self, where, rows_kept=None):
        """The error for an overflow ``where``; a :class:`PartialUpdateError` when a batch kept ``rows_kept`` rows."""
        message = (f"{type(self).__name__}: the norm of the example, the score or the update overflowed {where}; "
                   "the model keeps the updates before it. Scale the features or lower C.")
        return FloatingPointError(message) if rows_kept is None else PartialUpdateError(message, rows_kept)

    def _pass(self, arrays, targets, record, weights=None):
        """Run the kernel over the rows of ``arrays`` (``weights``: None or the checked per-row weights);
        return (scores, losses, taus, totals)."""
        codes, params = self._config_arrays()
        n = arrays.n_rows if record else 0
        scores, losses, taus = np.empty(n), np.empty(n), np.empty(n)
        totals = np.zeros(_codes.N_TOTALS)
        weights = UNWEIGHTED if weights is None else weights
        stopped = self._run_kernel(arrays, targets, weights, codes, params, scores, losses, taus, totals)
        if stopped >= 0:
            raise self._overflow(f"at row {stopped}", rows_kept=stopped)
        return scores, losses, taus, totals

    def _run_kernel(self, arrays, targets, weights, codes, params, scores, losses, taus, totals):
        return qa.quasi_additive_pass(
            arrays.indptr, arrays.indices, arrays.data, targets, weights, self._theta, self._w, self._state,
            *self._averaging_arrays(), params, codes, scores, losses, taus, np.empty(0), totals,
        )

    # -- a chunk of a multi-pass run with held-out rows -------------------------

    def _takes_held_out(self):
        """Averaging or not (:meth:`_held_out_kernel` scores a held-out row by w = g(theta), or its average)."""
        return True

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """:func:`~olearn._kernels._quasi_additive.quasi_additive_pass` of checked ``arrays`` with the held-out
        mask; returns -1 or the row where it stopped."""
        codes, params = self._config_arrays()
        scores, losses, taus, totals = outputs
        return qa.quasi_additive_pass(arrays.indptr, arrays.indices, arrays.data, targets, weights, self._theta,
                                      self._w, self._state, *self._averaging_arrays(), params, codes, scores, losses,
                                      taus, np.empty(0), totals, held)

    def _learn_target(self, indices, data, target, weight=1.0):
        """Learn one example already converted, of importance ``weight``; return its score before the update."""
        arrays = _one_row(indices, data)
        scores = np.empty(1)
        totals = np.zeros(_codes.N_TOTALS)
        codes, params = self._config_arrays()
        weights = UNWEIGHTED if weight == 1.0 else np.array([weight])
        stopped = self._run_kernel(arrays, np.array([target]), weights, codes, params, scores, np.empty(1), np.empty(1),
                                   totals)
        if stopped >= 0:
            raise self._overflow("on this example")
        return scores[0]

    # -- prediction -----------------------------------------------------------

    def _scores(self, X):
        self._check_started()
        _, params = self._config_arrays()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        arrays = seen_columns(arrays, self._w.size - 1)
        if self._averages_entries(arrays.indices.size):
            return self._averaged_scores(arrays.indptr, arrays.indices, arrays.data, params[qa.Q_BIAS])
        out = np.empty(arrays.n_rows)
        qa.quasi_additive_scores(arrays.indptr, arrays.indices, arrays.data, params[qa.Q_BIAS],
                                 self._predicting_weights(), out)
        return out

    def _score_row(self, indices, data, n_features):
        _, params = self._config_arrays()
        if not self._is_started():
            return None
        self._check_width(n_features, "x")
        indices, data = seen_row(indices, data, self._w.size - 1)
        if self._averages_entries(indices.size):
            return self._averaged_scores(np.array([0, indices.size]), indices, data, params[qa.Q_BIAS])[0]
        return qa.score_row(indices, data, 0, indices.size, params[qa.Q_BIAS], self._predicting_weights())

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: theta, w = g(theta), the kernel's state vector, the classes and, with ``average``
        set, the average's running sum and its count and first round (which must match the hyperparameter)."""
        entries = {qa.S_T: COUNT, qa.S_SUM_ALPHA: NONNEGATIVE, qa.S_SQNORM: NONNEGATIVE}
        schema = StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={
                "theta": Array("float64", ("n_features_in+1",)),
                "weights": Array("float64", ("n_features_in+1",)),
                "state": Array("float64", (qa.N_QSTATE,), entries=entries),
            },
            limits=self._width_limits(),
        )
        return averaged_schema(self._with_classes(schema), average_start(self.average))

    def _get_state(self):
        self._check_started()
        arrays = {"theta": self._theta, "weights": self._w, "state": self._state, "classes": self._labels.classes}
        if self._averaging():
            arrays["average_sum"] = self._avg_sum
            arrays["average_count"] = self._avg_count
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        self._start()
        # configured before the arrays arrive, so that they are taken as saved, not re-derived
        self._config_arrays()
        self._theta = np.array(arrays["theta"], dtype=np.float64)
        if self._averaging():
            # read straight into the records of w and U side by side (the layout of _interleave): one copy of each
            self._w, self._avg_sum = interleaved(arrays["weights"], arrays["average_sum"])
            self._avg_count = np.array(arrays["average_count"], dtype=np.float64)
        else:
            self._w = np.array(arrays["weights"], dtype=np.float64)
        self._state = np.array(arrays["state"], dtype=np.float64)
        self.n_features_in_ = int(state["n_features_in"])
        self._labels.set_classes(arrays["classes"])
        self.classes_ = self._labels.classes


def average_jump(w, old, state, avg, avg_count, params):
    """A change of w from ``old`` made between rounds enters the average as a change before the next round."""
    avg += qa.averaged_rank(state, avg, avg_count, params) * (w - old)


def relink(theta, w, state, codes, params):
    """w = g(theta) and the state's ||theta||^2, in place."""
    bias = params[qa.Q_BIAS]
    qa.link(theta, w, codes[qa.Q_LINK], params[qa.Q_P], bias)
    n = qa.n_coordinates(theta, bias)
    state[qa.S_SQNORM] = float(theta[:n] @ theta[:n])


def widened(theta, n_features):
    """A feature vector (theta, w, the average's sum) with zeros for the new features up to ``n_features``;
    the intercept's entry stays last."""
    d = theta.size - 1
    out = np.zeros(n_features + 1)
    out[:d] = theta[:d]
    out[n_features] = theta[d]
    return out


def _one_row(indices, data):
    """One converted example as a one-row CSR batch for the kernels."""
    indptr = np.array([0, indices.size], dtype=np.int64)
    return CSRArrays(indptr, np.ascontiguousarray(indices, dtype=np.int32),
                     np.ascontiguousarray(data, dtype=np.float64), 1, 0)
