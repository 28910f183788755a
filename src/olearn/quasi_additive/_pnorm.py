"""The p-norm algorithms: conservative (Gentile 2003) and aggressive (Orabona & Crammer 2010)."""

from .._kernels import _quasi_additive as qa
from .._params import BOOLEAN, POSITIVE_FINITE, Interval
from ._base import QuasiAdditiveClassifier


class PNorm(QuasiAdditiveClassifier):
    r"""The p-norm algorithm, and its aggressive version.

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006, Sec. 4: the quasi-additive update with
    :math:`F(w) = \tfrac12\|w\|_q^2`, :math:`1/p + 1/q = 1`. **Convention:**
    ``p >= 2`` is the norm of theta and of the instances (Gentile's
    convention), q = p/(p-1) in (1, 2] the norm of the weights; the link is

    .. math:: w_i = g_i(\theta) = \frac{\mathrm{sign}(\theta_i)\,|\theta_i|^{p-1}}{\|\theta\|_p^{p-2}}
        = \nabla_i \tfrac12\|\theta\|_p^2 ,

    evaluated as :math:`\theta_i (|\theta_i| / \|\theta\|_p)^{p-2}` with the
    norm scaled by :math:`\max_j|\theta_j|`, so no power overflows. F is
    :math:`1/(p-1)`-strongly convex w.r.t. :math:`\|\cdot\|_q`, whose dual norm
    is :math:`\|\cdot\|_p`. p = 2 is the Perceptron.

    * ``aggressive=False`` (Eq. 16): on a mistake (:math:`y_t\, w_t\cdot x_t \le 0`)
      :math:`\theta_{t+1} = \theta_t + C y_t x_t`. The link is homogeneous
      (:math:`g(c\theta) = c\,g(\theta)`), so C never changes a prediction.
    * ``aggressive=True``: Orabona & Crammer, *New Adaptive Algorithms for Online
      Classification*, NIPS 2010, Sec. 4.1: update also on margin errors,
      on every round with :math:`\ell_t = 1 - y_t\, w_t\cdot x_t > 0`, with

      .. math:: \theta_{t+1} = \theta_t + \eta_t y_t x_t, \qquad
          \eta_t = \min\Big\{C,\ \frac{\ell_t}{(p-1)\,\|x_t\|_p^2}\Big\},

      the step that maximizes the lower bound
      :math:`\eta\ell_t - \eta^2 (p-1)\|x_t\|_p^2/2` on the progress of the
      round (the dual increase of Shalev-Shwartz & Singer's Eq. 28 in this
      geometry), capped at C (the paper's cap is 1 = the default C). The
      paper states the rule for its own normalization of the regularizer;
      here it is written for :math:`F = \tfrac12\|w\|_q^2` as above, which
      makes it the dual-ascent update ``DualAscent(regularizer="pnorm",
      update="aggressive")``.

    Parameters
    ----------
    p : float, default=2.0
        The norm of theta, >= 2 (Gentile suggests 2 ln d for sparse targets).
    aggressive : bool, default=False
    C : float, default=1.0
        The step on a mistake (conservative) or the cap of eta_t (aggressive);
        finite and > 0.
    fit_intercept : bool, default=False
    n_features : int or None, default=None

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.quasi_additive import PNorm
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> PNorm(p=2.0).fit(X, [1, -1]).coef_      # the Perceptron: theta = w = (1, -2)
    array([[ 1., -2.]])
    >>> PNorm(p=3.0).fit(X, [1, -1]).coef_      # w_i = theta_i |theta_i| / ||theta||_3
    array([[ 0.48074986, -1.92299943]])
    """

    _constraints = {"p": Interval(2, None), "aggressive": BOOLEAN, "C": POSITIVE_FINITE}

    def __init__(self, p=2.0, aggressive=False, C=1.0, fit_intercept=False, n_features=None):
        self.p = p
        self.aggressive = aggressive
        self.C = C
        self.fit_intercept = fit_intercept
        self.n_features = n_features

    def _kernel_config(self):
        update = qa.UPDATE_AGGRESSIVE if self.aggressive else qa.UPDATE_CONSERVATIVE
        codes = {"Q_LINK": qa.LINK_PNORM, "Q_UPDATE": update}
        return codes, {"Q_C": self.C, "Q_P": float(self.p)}
