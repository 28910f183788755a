"""Balanced Winnow as a quasi-additive learner (Shalev-Shwartz & Singer 2006, Sec. 4)."""

from .._kernels import _quasi_additive as qa
from .._params import POSITIVE_FINITE
from ._base import QuasiAdditiveClassifier


class Winnow(QuasiAdditiveClassifier):
    r"""Balanced Winnow: multiplicative updates on the simplex of 2n weights.

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006, Sec. 4 (Eq. 25-26): the conservative dual update with F the
    relative entropy to the uniform distribution over the 2n "balanced"
    coordinates :math:`\bar w = (w^+, w^-)` of the simplex, predicting with
    :math:`w = w^+ - w^-`. On a mistake (:math:`y_t\, w_t \cdot x_t \le 0`)

    .. math:: \theta_{t+1} = \theta_t + C\, y_t x_t, \qquad
        w_{t+1,i} = \frac{e^{\theta_{t+1,i}} - e^{-\theta_{t+1,i}}}
                         {\sum_j \big(e^{\theta_{t+1,j}} + e^{-\theta_{t+1,j}}\big)},

    i.e. :math:`w^\pm_i \propto w^\pm_i e^{\pm C y_t x_{t,i}}`, the
    multiplicative update. The normalizer is evaluated as a log-sum-exp
    (shifted by :math:`\max_j |\theta_j|`), so that no stream, however long or
    adversarial, overflows it; :math:`\|w\|_1 \le 1` always.

    The uniform prior counts the features seen so far (or ``n_features``), and
    the intercept's constant feature when ``fit_intercept=True``: a feature
    seen for the first time enters with :math:`\theta_i = 0` and takes its
    share of the mass, so learning depends on the dimension. Rows with
    :math:`\|x\|_2^2` beyond the floating-point range are refused
    (FloatingPointError): the mistake bound (:func:`olearn.bounds.winnow_mistake_bound`)
    is stated in :math:`R_\infty = \max_t \|x_t\|_\infty`, which would be infinite.

    Parameters
    ----------
    C : float, default=1.0
        The step of theta on a mistake (Winnow's learning rate), finite and > 0.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension (and the prior); a larger feature index is then an error.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.quasi_additive import Winnow
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> clf = Winnow(C=1.0).fit(X, [1, -1])     # two mistakes: theta = (1, -1)
    >>> clf.coef_                               # +-sinh(1) / (2 cosh(1)) = +-tanh(1)/2
    array([[ 0.38079708, -0.38079708]])
    """

    _constraints = {"C": POSITIVE_FINITE}

    def __init__(self, C=1.0, fit_intercept=False, n_features=None):
        self.C = C
        self.fit_intercept = fit_intercept
        self.n_features = n_features

    def _kernel_config(self):
        codes = {"Q_LINK": qa.LINK_ENTROPY, "Q_UPDATE": qa.UPDATE_CONSERVATIVE}
        return codes, {"Q_C": self.C}
