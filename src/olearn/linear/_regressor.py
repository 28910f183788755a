"""Passive-Aggressive regression (Crammer et al. 2006, Sec. 5)."""

import math

import numpy as np

from .._averaging import AVERAGE
from .._docstrings import shared_entries
from .._estimator import RegressorEstimator
from .._held_out import held_out_chunk
from .._kernels import _codes
from .._kernels._binary_linear import averaged_row_score, learn_one_row, learn_one_row_averaged, row_score
from .._learner import ManyRows
from .._params import Interval, Options
from .._validation import check_targets
from ..kernel import KERNEL_CONSTRAINTS
from ._kernelized import KernelizableLearner
from ._pa import _STEP_RULES


def _check_target(y):
    """One regression target as a finite float; ValueError otherwise."""
    try:
        value = float(y)
    except (TypeError, ValueError):
        raise ValueError(f"y is {y!r}; expected a real number (regression target)") from None
    if isinstance(y, (str, bytes)) or not math.isfinite(value):
        raise ValueError(f"y is {y!r}; expected a finite real number (regression target)")
    return value


@shared_entries
class PARegressor(ManyRows, KernelizableLearner, RegressorEstimator):
    r"""Passive-Aggressive regressor: PA, PA-I and PA-II with the epsilon-insensitive loss.

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Sec. 5. On round t, with the loss
    :math:`\ell_t = \max(0, |y_t - w_t \cdot x_t| - \epsilon)`,

    .. math:: w_{t+1} = w_t + \operatorname{sign}(y_t - w_t \cdot x_t)\, \tau_t x_t,

    where :math:`\tau_t` is given by the same rules as in classification
    (:class:`PAClassifier`): :math:`\ell_t / \|x_t\|^2` (PA),
    :math:`\min\{C, \ell_t / \|x_t\|^2\}` (PA-I),
    :math:`\ell_t / (\|x_t\|^2 + \frac{1}{2C})` (PA-II). Only the task differs:
    the virtual instance is :math:`z_t = \operatorname{sign}(y_t - w_t \cdot x_t)\, x_t`.
    PA moves the prediction exactly onto the edge of the epsilon-tube around
    :math:`y_t`.

    As in :class:`PAClassifier`, :math:`x_t = 0` (with no intercept) gives
    :math:`\tau_t = 0`, and with ``fit_intercept=True`` the constant feature adds
    1 to :math:`\|x_t\|^2`.

    :func:`olearn.run` on a regressor records ``predictions`` equal to ``scores``
    (the predictions :math:`w_t \cdot x_t` before each update), ``losses`` the
    epsilon-insensitive losses and ``taus`` the step sizes; mistakes have no
    meaning for regression, so ``n_mistakes`` is 0 and ``cumulative_mistakes``
    all zeros.

    With ``kernel`` set (Sec. 3), :math:`f_t(x) = \sum_i \alpha_i K(x_i, x)`:
    the update adds :math:`x_t` with
    :math:`\alpha = \operatorname{sign}(y_t - f_t(x_t))\, \tau_t`, and
    :math:`\tau_t` uses :math:`K(x_t, x_t)` in place of :math:`\|x_t\|^2`.

    **Importance weights** (``sample_weight``; beyond the paper). A weight
    :math:`s \ge 0` multiplies the round's loss in the PA problems (Eqs. (6)
    and (7) with Sec. 5's loss), so ``C`` becomes :math:`sC` in Eq. (8): PA-I
    :math:`\tau = \min\{sC, \ell/\|x\|^2\}` (an integer weight equals the
    example repeated that many times) and PA-II
    :math:`\tau = \ell / (\|x\|^2 + \frac{1}{2sC})`; PA's hard constraint
    cannot be weighted, so any :math:`s > 0` is the plain PA step. A weight of
    0 leaves the weights as they are; the round still counts (the round counter
    and the average advance), as in scikit-learn's SGD.

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
    epsilon : float, default=0.1
        Insensitivity: errors up to ``epsilon`` cost nothing, >= 0.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error.
    kernel : None, {"linear", "poly", "rbf"} or callable, default=None
        None learns the weights w (the primal learner). Otherwise the learner
        works in dual form with the kernel K: ``"linear"`` x.x',
        ``"poly"`` (gamma x.x' + coef0)^degree, ``"rbf"``
        exp(-gamma ||x - x'||^2), all compiled; or a callable ``k(A, B)``
        taking two dense float64 arrays of shapes (n_a, d) and (n_b, d) and
        returning the (n_a, n_b) array of K(a_i, b_j), which runs through a
        much slower Python path (one call per round; a model with a callable
        kernel pickles if the callable does, but cannot be saved).
    degree : int, default=3
        Degree of ``"poly"``, >= 1.
    gamma : float, default=1.0
        Scale of ``"poly"`` and ``"rbf"``, > 0 (scale the features so that
        gamma ||x||^2 is about 1).
    coef0 : float, default=0.0
        Constant of ``"poly"`` (0: a homogeneous polynomial).
    budget : int or None, default=None
        The largest number of support vectors kept (None: no limit).
    budget_policy : {"oldest", "random", "smallest"}, default="oldest"
        Which support vector leaves when adding one would exceed ``budget``:
        the oldest (the Forgetron's removal, without its shrinking of the
        coefficients), one drawn uniformly (the randomized budget Perceptron),
        or the one with the smallest ``|alpha_i|`` (the oldest of ties). The
        vector being added is never the one removed.
    random_state : int or None, default=None
        Seed of the ``"random"`` budget policy and of the order of ``fit``'s
        passes (None: fresh entropy), in [0, 2**64).
    max_iter, tol, n_iter_no_change, shuffle
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True.
    average : bool or int, default=False
        <shared entry: average>
        Not available with a kernel.
    n_bits : int or None, default=None
        <shared entry: n_bits>

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PARegressor
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> reg = PARegressor(variant="pa", epsilon=0.1).partial_fit(X, [1.0, -1.0])
    >>> reg.coef_            # tau_1 = 0.9/4, then tau_2 = 0.9/1, direction -1
    array([ 0.45, -0.9 ])
    >>> reg.predict(X)       # PA leaves each prediction epsilon away from its target
    array([ 0.9, -0.9])

    With an RBF kernel, K(x, x) = 1, so tau_1 = 0.9 / 1:

    >>> kreg = PARegressor(variant="pa", epsilon=0.1, kernel="rbf").partial_fit(X, [1.0, -1.0])
    >>> kreg.dual_coef_.round(4)
    array([[ 0.9   , -0.9061]])
    """

    _weight_and_copies = (
        "PA-I's integer weight w (C becomes wC) equals w copies of the row only when they come one after "
        "another, PA-II's weighted step is a closed form that no repetition gives, and PA takes its plain "
        "step for any w > 0"
    )

    _task = "regression"
    _constraints = {
        "variant": Options("pa", "pa1", "pa2"),
        "C": Interval(0, None, closed="neither"),
        "epsilon": Interval(0, math.inf, closed="left"),
        **KERNEL_CONSTRAINTS,
        "average": AVERAGE,
    }

    def __init__(self, variant="pa1", C=1.0, epsilon=0.1, fit_intercept=False, n_features=None, kernel=None,
                 degree=3, gamma=1.0, coef0=0.0, budget=None, budget_policy="oldest", random_state=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, average=False, n_bits=None):
        self.variant = variant
        self.C = C
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.budget = budget
        self.budget_policy = budget_policy
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.average = average
        self.n_bits = n_bits

    def _kernel_config(self):
        codes = {"K_STEP": _STEP_RULES[self.variant], "K_LOSS": _codes.LOSS_EPSILON_INSENSITIVE}
        params = {"P_C": self.C if self.variant != "pa" else math.inf, "P_EPSILON": self.epsilon}
        return codes, params

    @property
    def coef_(self):
        """Weights, shape (n_features,) as in scikit-learn's linear regressors."""
        return super().coef_.ravel()

    # -- learning -------------------------------------------------------------

    def _learn_arrays(self, arrays, y, record, sample_weight=None):
        """Predict then learn every row of ``arrays`` in order; return (predictions, scores, losses, taus, mistakes,
        totals).

        ``predictions`` are the scores (of the current weights) and ``mistakes``
        all False: see the class docstring. With a kernel, the support-set size
        after each round follows. ``sample_weight`` is None or the checked
        weight of each row.
        """
        targets = check_targets(y, arrays.n_rows)
        if arrays.n_rows == 0:
            empty = np.empty(0)
            return empty, empty, empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)
        with self._first_call_atomic(arrays):
            self._grow(arrays.n_features, "X")
        scores, losses, taus, totals, *sizes = self._pass(arrays, targets, record, sample_weight)
        return scores, scores, losses, taus, np.zeros(scores.size, dtype=bool), totals, *sizes

    def _fit_labels(self, y, n_rows):
        return check_targets(y, n_rows)

    @shared_entries
    def partial_fit(self, X, y, sample_weight=None):
        """Learn from the rows of X in order (one online pass); returns self.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)
        y : array-like of real numbers, shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), optional
            <shared entry: sample_weight>
        """
        self._progressive(X, y, record=False, sample_weight=self._row_weights(X, y, sample_weight))
        return self

    def _learn_row(self, indices, data, n_features, y, sample_weight=None, new=None):
        """Learn one converted example; return the prediction made before learning.

        ``new`` lists the feature names the example adds (see :mod:`olearn._features`), or is None.
        """
        # settings built and unchanged, no weight, a finite float target, no new feature or column and no
        # kernel: learning is one call, which leaves the model as it was and answers NaN on an overflow
        # (then the general path below, which meets it again, says so)
        cache = self._config_cache
        if (cache is not None and not cache[1] and sample_weight is None and new is None and type(y) is float
                and math.isfinite(y)):
            try:
                w, n_seen = self._w, self.n_features_in_
            except AttributeError:  # not started, or learning with a kernel
                n_seen = -1
            if n_features <= n_seen:
                codes, params = cache[0]
                avg = self.__dict__.get("_avg")
                if avg is None:
                    score = learn_one_row(indices, data, y, 1.0, w, self._state, params, codes)
                else:
                    score = learn_one_row_averaged(indices, data, y, 1.0, w, self._state, avg, self._avg_state,
                                                   params, codes)
                if score == score:
                    return score
        self._config_arrays()
        weight = self._weight_one(y, sample_weight)
        target = _check_target(y)
        if self._is_started() and n_features <= self.n_features_in_ and new is None:
            return float(self._learn_target(indices, data, target, weight))
        # growing or naming a feature, the learner must be put back if the example is then refused (an overflow)
        with self._first_call_atomic(new=new):
            self._grow(n_features, "x")
            return float(self._learn_target(indices, data, target, weight))

    def _predict_row(self, indices, data, n_features):
        """The prediction w.x of one converted example (0.0 before any example)."""
        # as in the binary learners: one compiled call in the common case
        cache = self._config_cache
        if cache is not None and not cache[1]:
            try:
                w, n_seen = self._w, self.n_features_in_
            except AttributeError:  # not started, or learning with a kernel
                n_seen = -1
            if n_features <= n_seen:
                avg = self.__dict__.get("_avg")
                if avg is None:
                    return row_score(indices, data, w, self._state, cache[0][1])
                return averaged_row_score(indices, data, w, self._state, avg, self._avg_state, cache[0][1])
        score = self._score_row(indices, data, n_features)
        return 0.0 if score is None else float(score)

    # -- a chunk of a multi-pass run with held-out rows -------------------------

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the rows of X not ``held`` in order, and predict the held-out ones with the weights of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:meth:`_held_out_kernel`): the learned rows end as
        ``partial_fit`` of them alone would, and a held-out row is predicted as
        :meth:`predict` would predict it then (the averaged weights with
        ``average``). Returns ``(predictions, scores, losses, taus, mistakes,
        totals)`` of every row in order, as :meth:`_learn_arrays` (a
        held-out row's loss and tau are 0) with the totals of the learned rows
        only; or None, the learner untouched, with a kernel or where the chunk
        is refused (the caller then learns it by the general path, which says
        why).
        """
        if self.kernel is not None:
            return None
        return held_out_chunk(self, self._written_by_pass, (),
                              lambda: self._held_out_targets(X, y, sample_weight),
                              lambda checked: self._held_out_rows(*checked, held))

    def _held_out_targets(self, X, y, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, targets and weights read, and
        the learner grown to its columns; returns ``(arrays, targets, weights)``."""
        self._config_arrays()
        weights = self._row_weights(X, y, sample_weight)
        arrays = self._check_X(X, learning=True)
        targets = check_targets(y, arrays.n_rows)
        with self._first_call_atomic(arrays):
            self._grow(arrays.n_features, "X")
        return arrays, targets, weights

    def _held_out_rows(self, arrays, targets, weights, held):
        """The masked pass over checked rows: the outputs of :meth:`_held_out_pass`, or None where an overflow
        stopped it."""
        outputs = self._masked_outputs(arrays, targets, weights, held)
        if outputs is None:
            return None
        scores, losses, taus, totals = outputs
        return scores, scores, losses, taus, np.zeros(arrays.n_rows, dtype=bool), totals

    # -- prediction -----------------------------------------------------------

    def predict(self, X):
        """Predictions w.x (+ intercept) of every row of X."""
        return self._scores(X)

    def predict_one(self, x):
        """Prediction w.x of one example (dict, 1-d array or sparse row); 0.0 before any example, as w = 0."""
        if self._config_cache is None:
            self._config_arrays()
        return self._predict_row(*self._row(x))
