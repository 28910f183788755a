"""Passive-Aggressive binary classification (Crammer et al. 2006)."""

import math

from .._averaging import AVERAGE
from .._docstrings import shared_entries
from .._kernels import _codes
from .._params import Interval, Options
from .._weights import CLASS_WEIGHT
from ..kernel import KERNEL_CONSTRAINTS
from ._binary import BinaryLinearClassifier, PlattCalibrated
from ._kernelized import KernelizableLearner

_STEP_RULES = {"pa": _codes.STEP_PA, "pa1": _codes.STEP_PA1, "pa2": _codes.STEP_PA2}


@shared_entries
class PAClassifier(PlattCalibrated, BinaryLinearClassifier, KernelizableLearner):
    r"""Passive-Aggressive classifier: PA, PA-I and PA-II.

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Fig. 1. On round t, with the hinge loss
    :math:`\ell_t = \max(0, 1 - y_t\, w_t \cdot x_t)`,

    .. math:: w_{t+1} = w_t + \tau_t\, y_t x_t, \qquad
        \tau_t = \frac{\ell_t}{\|x_t\|^2} \;\text{(PA, Eq. 3)}, \quad
        \min\Big\{C, \frac{\ell_t}{\|x_t\|^2}\Big\} \;\text{(PA-I, Eq. 8)}, \quad
        \frac{\ell_t}{\|x_t\|^2 + \frac{1}{2C}} \;\text{(PA-II, Eq. 8)}.

    PA makes the loss on the current example exactly 0; PA-I and PA-II trade
    that for robustness to noise, and PA-I with ``C = inf`` is PA.

    A zero vector :math:`x_t = 0` (with no intercept) leaves every w with the
    same loss; PA and PA-I then take :math:`\tau_t = 0` instead of dividing by 0.
    With ``fit_intercept=True`` the constant feature adds 1 to
    :math:`\|x_t\|^2`, as the augmented-feature reading of the paper requires.

    **Kernels** (Sec. 3 of the paper). With ``kernel`` set, the learner keeps
    :math:`f_t(x) = \sum_i \alpha_i K(x_i, x)` over a support set: the
    update adds :math:`x_t` with :math:`\alpha = \tau_t y_t` and :math:`\tau_t`
    uses :math:`K(x_t, x_t)` in place of :math:`\|x_t\|^2`. ``kernel="linear"``
    is the primal learner exactly; ``budget`` bounds the support set (Sec. 11:
    kernels make memory grow). See :class:`~olearn.linear._kernelized.KernelizableLearner`
    and docs/kernels.md.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). A weight :math:`s \ge 0` multiplies the round's loss in the
    problems of Eqs. (6) and (7), so ``C`` becomes :math:`sC` in Eq. (8): PA-I
    :math:`\tau = \min\{sC, \ell/\|x\|^2\}`, and an integer weight equals
    the example repeated that many times; PA-II
    :math:`\tau = \ell / (\|x\|^2 + \frac{1}{2sC})`. PA's hard constraint
    cannot be weighted, so any :math:`s > 0` is the plain PA step. A weight of
    0 leaves the weights as they are; the round still counts (the round
    counter and the average advance), as in scikit-learn's SGD. The same rule
    holds with a kernel.

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
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
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>
    calibration : None or "platt", default=None
        ``"platt"`` learns class probabilities online (``predict_proba``,
        ``predict_log_proba``, ``predict_proba_one``): Platt's map
        sigma(a f(x) + b) of the score, fitted by an online Newton step on
        the score of each example before the learner takes it, and saved with
        the model (:mod:`olearn._calibration`, docs/probabilities.md). Not
        with ``average``. None: scores only, no ``predict_proba``.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> clf = PAClassifier(variant="pa").partial_fit(X, [1, -1])
    >>> clf.coef_            # tau_1 = 1/4, then tau_2 = 1/1
    array([[ 0.5, -1. ]])
    >>> clf.decision_function(X)   # PA leaves zero hinge loss on each example
    array([ 1., -1.])

    With a kernel: K(x, x') = (x.x')^2, so tau_1 = 1 / K(x_1, x_1) = 1/16.

    >>> kpa = PAClassifier(variant="pa", kernel="poly", degree=2).partial_fit(X, [1, -1])
    >>> kpa.dual_coef_, kpa.n_support_
    (array([[ 0.0625, -1.    ]]), 2)
    >>> kpa.decision_function(X)
    array([ 1., -1.])
    """

    _weight_and_copies = (
        "PA-I's integer weight w (C becomes wC) equals w copies of the row only when they come one after "
        "another, PA-II's weighted step is a closed form that no repetition gives, and PA takes its plain "
        "step for any w > 0"
    )

    _constraints = {
        "variant": Options("pa", "pa1", "pa2"),
        "C": Interval(0, None, closed="neither"),
        **KERNEL_CONSTRAINTS,
        "average": AVERAGE,
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, variant="pa1", C=1.0, fit_intercept=False, n_features=None, kernel=None, degree=3,
                 gamma=1.0, coef0=0.0, budget=None, budget_policy="oldest", random_state=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.variant = variant
        self.C = C
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
        self.class_weight = class_weight
        self.n_bits = n_bits
        self.calibration = calibration

    def _kernel_config(self):
        return {"K_STEP": _STEP_RULES[self.variant]}, {"P_C": self.C if self.variant != "pa" else math.inf}
