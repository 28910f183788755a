"""The p-norm algorithms: conservative (Gentile 2003) and aggressive (Orabona & Crammer 2010, Sec. 4.1)."""

import math

from .._docstrings import shared_entries
from .._kernels import _quasi_additive as qa
from .._params import BOOLEAN, POSITIVE_FINITE, Interval
from ._base import QuasiAdditiveClassifier
from ..linear._binary import PlattCalibrated


@shared_entries
class PNorm(PlattCalibrated, QuasiAdditiveClassifier):
    r"""The p-norm algorithm, and its aggressive version.

    **Convention:** ``p >= 2`` is the norm of theta and of the instances
    (Gentile's convention), q = p/(p-1) in (1, 2] the norm of the weights.
    Both variants keep :math:`\theta = \sum_t \eta_t y_t x_t` and predict with
    a multiple of

    .. math:: g_i(\theta) = \frac{\mathrm{sign}(\theta_i)\,|\theta_i|^{p-1}}{\|\theta\|_p^{p-2}}
        = \nabla_i \tfrac12\|\theta\|_p^2 ,

    evaluated as :math:`\theta_i (|\theta_i| / \|\theta\|_p)^{p-2}` with the
    norm scaled by :math:`\max_j|\theta_j|`, so no power overflows. p = 2 is
    the Perceptron.

    * ``aggressive=False``: Shalev-Shwartz & Singer, *Online Learning meets
      Optimization in the Dual*, COLT 2006, Sec. 4, Eq. (16), with
      :math:`F(w) = \tfrac12\|w\|_q^2`: :math:`w = g(\theta)`, and on a mistake
      (:math:`y_t\, w_t\cdot x_t \le 0`) :math:`\theta_{t+1} = \theta_t + C y_t x_t`.
      The link is homogeneous (:math:`g(c\theta) = c\,g(\theta)`), so C never
      changes a prediction. ``R`` is not used.
    * ``aggressive=True``: Orabona & Crammer, *New Adaptive Algorithms for
      Online Classification*, NIPS 2010, Sec. 4.1: their Fig. 1 with the
      potential :math:`f(u) = \|u\|_q^2 / (2(q-1))` (1-strongly convex w.r.t.
      :math:`\|\cdot\|_q`), so :math:`w = \nabla f^*(\theta) = (q-1)\,g(\theta)
      = g(\theta)/(p-1)`, and on a round with hinge loss
      :math:`1 - y_t\, w_t\cdot x_t > 0`, :math:`\theta_{t+1} = \theta_t + \eta_t y_t x_t` with

      .. math:: \eta_t = \begin{cases} 1 & y_t\, w_t\cdot x_t \le 0 \text{ (mistake)} \\
          \min\Big\{\Big[\dfrac{R^2/2 - y_t\, w_t\cdot x_t}{\|x_t\|_p^2}\Big]_+,\ 1\Big\}
          & 0 < y_t\, w_t\cdot x_t < 1 \text{ (margin error).} \end{cases}

      Sec. 4.1 allows any margin-error step in
      :math:`[0, \min\{(R^2 - 2y_t\, w_t\cdot x_t)/\|x_t\|_p^2, 1\}]` (each keeps
      the term D of Eq. (4) non-positive); the one above minimizes D, the
      choice the text makes explicit for p = 2, where with :math:`R = \sqrt2`
      it is PA-I's step with C = 1. Eq. (4) bounds the mistakes when
      :math:`\|x_t\|_p \le R` on the mistake rounds
      (:func:`olearn.bounds.aggressive_pnorm_bound`). ``C`` is not used
      (the text's step on a mistake is 1). The aggressive dual updates of
      Shalev-Shwartz & Singer in the p-norm geometry are
      ``DualAscent(regularizer="pnorm", update="aggressive")`` (Eq. (28),
      :math:`\alpha_t = \min\{\ell_t, C\}`) and ``update="last-k", k=1`` (the
      round's variable maximized exactly).

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    papers). An example of weight c: the conservative algorithm's dual
    variable lives in :math:`[0, cC]` (Shalev-Shwartz & Singer, Sec. 3, with
    the primal's loss of that example times c) and Eq. (16) takes its top,
    :math:`\theta_{t+1} = \theta_t + cC\, y_t x_t` on a mistake; the aggressive
    algorithm's loss :math:`c\,\ell_t` has the gradient :math:`-c\, y_t x_t` in
    Fig. 1, so :math:`\theta_{t+1} = \theta_t + c\,\eta_t y_t x_t` with
    :math:`\eta_t` as above (``olearn.run`` records :math:`c\,\eta_t`). c = 0
    leaves the model unchanged (only the round counter moves).

    Parameters
    ----------
    p : float, default=2.0
        The norm of theta, >= 2 (Gentile suggests 2 ln d for sparse targets).
    aggressive : bool, default=False
    C : float, default=1.0
        The step on a mistake of the conservative algorithm; finite and > 0.
    R : float, default=sqrt(2)
        The aggressive algorithm's R > 0 (Orabona & Crammer's bound on
        :math:`\|x_t\|_p`); a larger R takes larger steps on margin errors.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
        The weights averaged are :math:`w = g(\theta)`, not :math:`\theta`.
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
    >>> from olearn.quasi_additive import PNorm
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> PNorm(p=2.0).partial_fit(X, [1, -1]).coef_      # the Perceptron: theta = w = (1, -2)
    array([[ 1., -2.]])
    >>> PNorm(p=3.0).partial_fit(X, [1, -1]).coef_      # w_i = theta_i |theta_i| / ||theta||_3
    array([[ 0.48074986, -1.92299943]])
    >>> PNorm(p=2.0, aggressive=True).partial_fit([[3.0, 0.0]], [1]).coef_   # a mistake: eta = 1
    array([[3., 0.]])
    """

    _weight_and_copies = (
        "a weight c widens one round's dual box to [0, cC], while c copies are c rounds, each at the margin "
        "the last one left"
    )

    _constraints = {"p": Interval(2, None), "aggressive": BOOLEAN, "C": POSITIVE_FINITE, "R": POSITIVE_FINITE}

    def __init__(self, p=2.0, aggressive=False, C=1.0, R=math.sqrt(2.0), fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.p = p
        self.aggressive = aggressive
        self.C = C
        self.R = R
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

    def _kernel_config(self):
        update = qa.UPDATE_PNORM_R if self.aggressive else qa.UPDATE_CONSERVATIVE
        codes = {"Q_LINK": qa.LINK_PNORM, "Q_UPDATE": update}
        return codes, {"Q_C": self.C, "Q_P": float(self.p), "Q_R": float(self.R)}

    @staticmethod
    def _link_of(codes, params):
        """The aggressive algorithm's potential scales the link by 1/(p - 1)."""
        return QuasiAdditiveClassifier._link_of(codes, params) + (codes[qa.Q_UPDATE] == qa.UPDATE_PNORM_R,)

    def _relink(self, theta, w, state, codes, params):
        if codes[qa.Q_UPDATE] != qa.UPDATE_PNORM_R:
            super()._relink(theta, w, state, codes, params)
            return
        qa.pnorm_r_link(theta, w, params[qa.Q_P], params[qa.Q_BIAS])
