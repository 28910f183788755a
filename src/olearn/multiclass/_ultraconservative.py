"""The ultraconservative multiclass learners of Crammer & Singer (2003): Perceptron variants and MIRA."""

from .._docstrings import shared_entries
from .._kernels import _multiclass_codes as K
from .._params import Interval, Options
from ._base import MulticlassLearner

_SPLITS = {"uniform": K.SPLIT_UNIFORM, "max": K.SPLIT_MAX, "proportional": K.SPLIT_PROPORTIONAL}


@shared_entries
class MulticlassPerceptron(MulticlassLearner):
    r"""The family of multiclass Perceptrons of Crammer & Singer (2003), Sec. 3-4.

    Crammer & Singer, *Ultraconservative Online Algorithms for Multiclass Problems*,
    JMLR 3 (2003). With scores :math:`s_a = w_a \cdot x_t`, the error set is
    :math:`E_t = \{a \ne y_t : s_a \ge s_{y_t}\}`. If it is empty nothing moves;
    otherwise

    .. math:: w_{y_t} \mathrel{+}= x_t, \qquad w_a \mathrel{-}= c_a x_t \;(a \in E_t),
        \qquad \sum_{a \in E_t} c_a = 1,

    with ``update="uniform"``: :math:`c_a = 1/|E_t|`; ``"max"``: all on the top
    scorer of :math:`E_t`; ``"proportional"``: :math:`c_a \propto s_a - s_{y_t}`.
    Only prototypes that scored at least as high as the true one move
    (*ultraconservative*). An error set whose scores all equal :math:`s_{y_t}`
    (for instance every round while w = 0) makes the proportional split 0/0; it is
    then uniform. Ties in ``predict`` and in "max" go to the class that sorts first.

    The recorded loss (:func:`olearn.run`) is the multiclass hinge loss
    :math:`\max(0, 1 - (s_{y_t} - \max_{a \ne y_t} s_a))` and tau is 1 on an update;
    the unit step loses nothing: scaling every step scales w and changes no prediction.
    With ``feature_map`` the same coefficients multiply :math:`\Phi(x_t, a)`.

    Importance weights (beyond the paper): an example of weight v makes the step
    v times as large, :math:`w_{y_t} \mathrel{+}= v x_t`,
    :math:`w_a \mathrel{-}= v c_a x_t`, and tau is v; v = 0 moves nothing. An
    integer v is not in general the example repeated v times: a repeat moves only
    while the example is still misranked, and its error set may have shrunk.
    ``average`` is as in :class:`~olearn.multiclass.PAMulticlass`.

    Parameters
    ----------
    update : {"uniform", "max", "proportional"}, default="max"
    fit_intercept : bool, default=False
    n_features : int or None, default=None
    feature_map : callable or None, default=None
    kernel, degree, gamma, coef0, budget, budget_policy, random_state
        The dual form, as in :class:`~olearn.multiclass.PAMulticlass`: an
        update adds :math:`x_t` to the support set with the coefficients above
        (Crammer & Singer's kernel Perceptron).
    max_iter, tol, n_iter_no_change, shuffle
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True.
    average : bool or int, default=False
        <shared entry: average>
        Not with a kernel, and cannot change once learning has started.
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.multiclass import MulticlassPerceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> clf = MulticlassPerceptron(update="uniform").partial_fit(X, [0, 1, 2])
    >>> clf.coef_    # row 1: E = {0} (a tie); row 2: scores (-1, 1, 0), E = {1}
    array([[ 0., -1.],
           [-1.,  0.],
           [ 1.,  1.]])
    """

    _weight_and_copies = (
        "a weight v makes one step v times as large, while a copy moves only while the row is still "
        "misranked, its error set shrinking"
    )

    _constraints = {"update": Options("uniform", "max", "proportional")}

    def __init__(self, update="max", fit_intercept=False, n_features=None, feature_map=None,
                 kernel=None, degree=3, gamma=1.0, coef0=0.0, budget=None, budget_policy="oldest",
                 random_state=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, average=False,
                 class_weight=None, n_bits=None):
        self.update = update
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.feature_map = feature_map
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

    def _kernel_config(self):
        return {"MK_RULE": K.RULE_PERCEPTRON, "MK_SPLIT": _SPLITS[self.update]}, {}


@shared_entries
class MIRA(MulticlassLearner):
    r"""MIRA, the Margin Infused Relaxed Algorithm of Crammer & Singer (2003), Sec. 6.

    On every round the coefficients :math:`\tau_a` of the update
    :math:`w_a \mathrel{+}= \tau_a x_t` solve the quadratic program

    .. math:: \min_\tau \; \tfrac12 \sum_a \|w_a + \tau_a x_t\|^2 - \beta\,\tau_{y_t}
        \quad\text{s.t.}\quad \tau_a \le [a = y_t], \quad \sum_a \tau_a = 0,

    i.e. :math:`\min \tfrac12 A \sum_a \tau_a^2 + \sum_a B_a \tau_a` with
    :math:`A = \|x_t\|^2` and :math:`B_a = s_a - \beta [a = y_t]`. It is solved
    exactly by the paper's sorting algorithm: with
    :math:`D_a = B_a / A + [a = y_t]` sorted in decreasing order,
    :math:`\theta = (\sum_{i \le j} D_{(i)} - 1)/j` for the largest j with
    :math:`D_{(j)} > \theta_j`, and :math:`\tau_a = \min(\theta, D_a) - B_a / A`.

    ``beta`` > 0 is the reward for moving towards the true class: with
    :math:`\beta = 0` the program's solution at w = 0 is :math:`\tau = 0`, and
    nothing would ever be learned. The program is the one of Crammer & Singer's
    multiclass SVM for one example; the reading of the paper's :math:`\beta` as the
    weight of the linear term is the choice made here.
    :math:`\tau_{y_t} \le 1` always, and :math:`\tau_a \le 0` for every other class.
    With two classes the program has the closed form
    :math:`\tau_{y_t} = \min\{1, \max(0, \beta - (s_{y_t} - s_r))/(2A)\}`: PA-I with
    margin :math:`\beta` and C = 1, so ``MIRA(beta=1)`` on two classes is
    ``PAMulticlass(variant="pa1", C=1)`` (tested).

    With ``feature_map`` the same program is solved when the class vectors
    :math:`\Phi(x_t, a)` are orthogonal with a common norm (then :math:`A` is that
    norm squared), as for :class:`~olearn.multiclass.BlockFeatureMap`; other maps are
    refused with a ValueError naming the row. The recorded loss is the multiclass
    hinge loss and tau is :math:`\tau_{y_t}`.

    Importance weights (beyond the paper): an example of weight v turns the bound
    :math:`\tau_{y_t} \le 1` into :math:`\tau_{y_t} \le v`, the part C plays in
    PA-I: on two classes weighted ``MIRA(beta=1)`` is PA-I with C = v (tested).
    With :math:`\tau = v\tau'` the program in :math:`\tau'` is the unit-bound one
    with A replaced by vA, so the same sorting solves it (a v so small that
    dividing by vA would overflow takes the program's limit as vA -> 0:
    :math:`\tau'_{y_t} = 1` and -1 shared by the top-scoring rivals, when they
    violate the margin); v = 0 moves nothing.
    ``average`` is as in :class:`~olearn.multiclass.PAMulticlass`.

    Parameters
    ----------
    beta : float, default=1.0
        > 0.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
    feature_map : callable or None, default=None
    kernel, degree, gamma, coef0, budget, budget_policy, random_state
        The dual form, as in :class:`~olearn.multiclass.PAMulticlass`: A is
        :math:`K'(x_t, x_t)`, and a round that moves adds :math:`x_t` to the
        support set with the coefficients :math:`\tau_a`.
    max_iter, tol, n_iter_no_change, shuffle
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True.
    average : bool or int, default=False
        <shared entry: average>
        Not with a kernel, and cannot change once learning has started.
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.multiclass import MIRA
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> clf = MIRA(beta=1.0).partial_fit(X, ["a", "b", "b"])
    >>> clf.coef_       # row 1: tau_b = 1/2, tau_a = -1/2; row 2: the margin is already beta, no move
    array([[ 0. , -0.5],
           [ 0. ,  0.5]])
    """

    _weight_and_copies = (
        "a weight v bounds one round's tau by v, while v copies each solve the program at the scores the last "
        "one left"
    )

    _constraints = {"beta": Interval(0, None, closed="neither")}

    def __init__(self, beta=1.0, fit_intercept=False, n_features=None, feature_map=None,
                 kernel=None, degree=3, gamma=1.0, coef0=0.0, budget=None, budget_policy="oldest",
                 random_state=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, average=False,
                 class_weight=None, n_bits=None):
        self.beta = beta
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.feature_map = feature_map
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

    def _kernel_config(self):
        return {"MK_RULE": K.RULE_MIRA}, {"MP_BETA": self.beta}
