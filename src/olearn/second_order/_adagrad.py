r"""Diagonal AdaGrad on the hinge loss (Duchi, Hazan & Singer 2011)."""

import math

import numpy as np

from .._docstrings import shared_entries
from .._kernels._second_order_codes import RULE_ADAGRAD
from .._params import POSITIVE_FINITE, Interval
from ._base import SecondOrderClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class AdaGrad(PlattCalibrated, SecondOrderClassifier):
    r"""Diagonal AdaGrad on the hinge loss, the two-parameter learner (eta, delta).

    Duchi, Hazan & Singer, *Adaptive Subgradient Methods for Online Learning
    and Stochastic Optimization*, JMLR 12 (2011), Fig. 1 (diagonal, composite
    mirror descent with no regularizer). On round t, with the hinge loss
    :math:`\ell_t = \max(0, 1 - y_t w_t \cdot x_t)` and its subgradient
    :math:`g_t = -y_t x_t` when :math:`\ell_t > 0` (else :math:`g_t = 0`),

    .. math:: G_{t,i} = \sum_{s \le t} g_{s,i}^2, \qquad
        H_t = \delta I + \mathrm{diag}(G_t)^{1/2}, \qquad
        w_{t+1} = w_t - \eta H_t^{-1} g_t,

    i.e. :math:`w_{t+1,i} = w_{t,i} + \eta\, y_t x_{t,i} / (\delta + \sqrt{G_{t,i}})`.
    :math:`G_t` includes the current gradient, as in the paper.

    ``delta`` is the paper's :math:`\delta \ge 0`, **added to the square
    root** of the accumulated squared gradients (a regularizer of the
    proximal term, :math:`\psi_t(w) = \frac12 w^\top H_t w`), not an initial
    value of the accumulator: the accumulator starts at :math:`G_0 = 0`.
    With ``delta=0`` a coordinate's first step is :math:`\eta\,
    \mathrm{sign}(y_t x_{t,i})`. Orabona & Crammer (NIPS 2010, Sec. 4.3)
    compare it with diagonal AROW, whose precision grows by
    :math:`x_{t,i}^2/r` instead of its square root.

    ``accumulator_`` is :math:`G` and ``covariance_`` is the diagonal of
    :math:`H^{-1}`, :math:`1/(\delta + \sqrt{G_i})` (the per-coordinate scale
    of the step, the role :math:`\Sigma` plays in AROW; :math:`1/\delta` for a
    feature never updated). O(nnz(x)) per round; ``olearn.run`` records
    :math:`\eta` as tau on the rounds with an update.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). An example of weight c has the loss :math:`c\,\ell_t` and the
    subgradient :math:`c\, g_t`: :math:`G_{t,i} = G_{t-1,i} + c^2 x_{t,i}^2` and
    :math:`w_{t+1,i} = w_{t,i} + \eta\, c\, y_t x_{t,i} / (\delta + \sqrt{G_{t,i}})`;
    ``olearn.run`` records :math:`\eta c` as tau. c = 0 leaves the model
    unchanged (only the round counter moves).

    Parameters
    ----------
    eta : float, default=1.0
        The learning rate :math:`\eta > 0`.
    delta : float, default=1.0
        :math:`\delta \ge 0`, added to :math:`\sqrt{G_{t,i}}`.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>
    calibration : None or "platt", default=None
        As in :class:`~olearn.PAClassifier`: class probabilities learned online
        from the scores (beyond the source texts); not with ``average``.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.second_order import AdaGrad
    >>> clf = AdaGrad(eta=1.0, delta=1.0).partial_fit(np.array([[2.0, 0.0], [2.0, 1.0]]), [1, -1])
    >>> clf.coef_.round(4)   # round 1: w_1 = 2/(1 + 2); round 2: w_1 -= 2/(1 + sqrt(8)), w_2 = -1/(1 + 1)
    array([[ 0.1443, -0.5   ]])
    >>> clf.accumulator_
    array([8., 1.])
    """

    _weight_and_copies = (
        "a weight c is one step of c times the subgradient, adding c^2 x^2 to G, while c copies add x^2 c "
        "times, each at the margin and step size the last one left"
    )

    _constraints = {"eta": POSITIVE_FINITE, "delta": Interval(0, math.inf, closed="left")}
    # G_0 = 0
    _initial_variance = 0.0

    def __init__(self, eta=1.0, delta=1.0, fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.eta = eta
        self.delta = delta
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.class_weight = class_weight
        self.n_bits = n_bits
        self.calibration = calibration

    def _full(self):
        return False

    def _rule(self):
        return RULE_ADAGRAD, self.eta, self.delta

    @property
    def accumulator_(self):
        """G: the sum of the squared hinge-loss subgradients of each feature, shape (n_features,)."""
        self._check_started()
        return self._cov[: self.n_features_in_].copy()

    @property
    def covariance_(self):
        """The diagonal of H^{-1} = (delta I + diag(G)^{1/2})^{-1}, shape (n_features,)."""
        with np.errstate(divide="ignore"):
            return 1.0 / (self.delta + np.sqrt(self.accumulator_))
