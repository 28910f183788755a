"""Rosenblatt's Perceptron."""

from .._averaging import AVERAGE
from .._docstrings import shared_entries
from .._kernels import _codes
from .._params import POSITIVE
from .._weights import CLASS_WEIGHT
from ..kernel import KERNEL_CONSTRAINTS
from ._binary import BinaryLinearClassifier, PlattCalibrated
from ._kernelized import KernelizableLearner


@shared_entries
class Perceptron(PlattCalibrated, BinaryLinearClassifier, KernelizableLearner):
    r"""The Perceptron (Rosenblatt 1958).

    On round t, predict :math:`\hat y_t = \mathrm{sign}(w_t \cdot x_t)`; if
    :math:`y_t\, w_t \cdot x_t \le 0` update

    .. math:: w_{t+1} = w_t + \eta\, y_t x_t ,

    otherwise keep :math:`w_t`. This is the UCL slides' Perceptron and Example 1
    of Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*
    (the conservative dual update with :math:`F = \tfrac12\|w\|^2`). A zero
    margin counts as a mistake, so the first example always updates. With
    :math:`w_1 = 0`, ``eta`` only rescales w and never changes a prediction.

    On a sequence with :math:`\|x_t\| \le R` that some unit vector separates with
    margin :math:`\gamma`, it updates at most :math:`(R/\gamma)^2` times (Novikoff
    1962); see :func:`olearn.bounds.novikoff_bound`, and
    :func:`olearn.bounds.perceptron_bound` for the inseparable case.

    With ``kernel`` set it is the kernel Perceptron (Aizerman, Braverman &
    Rozonoer 1964; Freund & Schapire 1999): on a mistake :math:`x_t` joins the
    support set with :math:`\alpha = \eta y_t`, and
    :math:`f_t(x) = \sum_i \alpha_i K(x_i, x)`. With ``budget`` and
    ``budget_policy="random"`` it is the randomized budget Perceptron of
    Cavallanti, Cesa-Bianchi & Gentile (Machine Learning 69, 2007); with
    ``"oldest"``, the removal step of the Forgetron (Dekel, Shalev-Shwartz &
    Singer, SIAM J. Comput. 37, 2008) without its shrinking step.

    **Importance weights** (``sample_weight``, ``class_weight``; not in the
    sources). A weight :math:`s \ge 0` scales the step: on a mistake
    :math:`w_{t+1} = w_t + s\,\eta\, y_t x_t`, with a kernel
    :math:`\alpha = s\,\eta\, y_t`. A weight of 0 leaves the weights as they
    are; the round still counts (the round counter and the average advance).
    Since a Perceptron step depends on the margin only through its sign, an
    integer weight is not the example repeated (the repeat may be classified
    right after one step).

    Parameters
    ----------
    eta : float, default=1.0
        Step size, > 0.
    fit_intercept : bool, default=False
        Learn a bias as the weight of a constant feature 1.
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error. By default
        the dimension grows with the largest index seen.
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
    >>> from olearn import Perceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> y = np.array([1, -1, 1])
    >>> Perceptron().partial_fit(X, y).coef_     # every margin was 0: three updates
    array([[2., 0.]])

    The kernel Perceptron with a budget of two support vectors:

    >>> kp = Perceptron(kernel="rbf", gamma=0.5, budget=2).partial_fit(X, y)
    >>> kp.n_support_, kp.dual_coef_
    (2, array([[-1.,  1.]]))
    """

    _weight_and_copies = (
        "a weight w scales the Perceptron's step, while w copies stop moving once one of them is classified "
        "right"
    )

    _constraints = {"eta": POSITIVE, **KERNEL_CONSTRAINTS, "average": AVERAGE, "class_weight": CLASS_WEIGHT}

    def __init__(self, eta=1.0, fit_intercept=False, n_features=None, kernel=None, degree=3, gamma=1.0, coef0=0.0,
                 budget=None, budget_policy="oldest", random_state=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.eta = eta
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
        return {"K_STEP": _codes.STEP_PERCEPTRON}, {"P_ETA": self.eta}
