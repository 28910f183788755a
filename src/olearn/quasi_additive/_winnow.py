"""Winnow as a quasi-additive learner (Shalev-Shwartz & Singer 2006, Sec. 4, Example 2)."""

from .._kernels import _quasi_additive as qa
from .._params import BOOLEAN, POSITIVE_FINITE
from ._base import QuasiAdditiveClassifier


class Winnow(QuasiAdditiveClassifier):
    r"""Winnow: multiplicative updates on a simplex, the plain or the balanced form.

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006, Sec. 4, Example 2: the conservative dual update (Eq. 16) with F
    the relative entropy to the uniform distribution on a simplex. On a
    mistake (:math:`y_t\, w_t \cdot x_t \le 0`) :math:`\theta_{t+1} = \theta_t + C\, y_t x_t`.

    * ``balanced=False`` is Eq. (25)-(26) exactly: n positive weights on the
      n-simplex, :math:`F(w) = \sum_i w_i \log(n w_i)`,
      :math:`G(\theta) = \log \sum_i e^{\theta_i}` and

      .. math:: w_{t+1,k} = \frac{e^{\theta_{t+1,k}}}{\sum_i e^{\theta_{t+1,i}}}
          = \frac{1}{Z_t} e^{C y_t x_{t,k}} w_{t,k}.

      Its weights are positive, so it can only learn targets whose
      competitor u lies on the simplex (to learn a negative weight, feed the
      feature negated too).
    * ``balanced=True`` (the default) runs the same algorithm on the lifted
      instance :math:`(x, -x)`: 2n positive weights :math:`(w^+, w^-)` on the
      2n-simplex, predicting with :math:`w = w^+ - w^-`, so

      .. math:: w_{t+1,i} = \frac{e^{\theta_{t+1,i}} - e^{-\theta_{t+1,i}}}
                             {\sum_j \big(e^{\theta_{t+1,j}} + e^{-\theta_{t+1,j}}\big)}.

      This is the Balanced Winnow of Grove, Littlestone & Schuurmans that the
      paper names in Example 2's title; it competes with every u of
      :math:`\|u\|_1 \le 1`, signs included, which is why it is the default.

    Both normalizers are evaluated as a log-sum-exp (shifted by the largest
    :math:`\theta`), so no stream, however long or adversarial, overflows
    them. Mistake bounds: :func:`olearn.bounds.winnow_mistake_bound` (Thm. 1
    with either F) and :func:`olearn.bounds.winnow_gamma_bound` (the text's
    C = gamma form).

    The uniform prior counts the features seen so far (or ``n_features``), and
    the intercept's constant feature when ``fit_intercept=True``: a feature
    seen for the first time enters with :math:`\theta_i = 0` and takes its
    share of the mass. Rows with :math:`\|x\|_2^2` beyond the floating-point
    range are refused (FloatingPointError): the mistake bounds are stated in
    :math:`R_\infty = \max_t \|x_t\|_\infty`, which would be infinite.

    Labels: the balanced form is odd in the labels (learning on -y gives -w).
    The plain form is not (its weights are positive), so a stream that shows
    one class before the other is learned with that class encoded +1 until
    the second class arrives; if the second sorts after it, theta is negated
    (the dual variables are kept) and w recomputed. Pass ``classes`` to
    ``partial_fit`` to fix the encoding from the first round.

    Parameters
    ----------
    C : float, default=1.0
        The step of theta on a mistake (Winnow's learning rate), finite and > 0.
    balanced : bool, default=True
        The 2n lift (True) or Eq. (25)-(26) on the n-simplex (False).
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
    >>> plain = Winnow(balanced=False, n_features=3).partial_fit([[1.0, 0.0, 0.0]], [-1], classes=[-1, 1])
    >>> plain.coef_.round(4)                    # theta = (-1, 0, 0): (e^-1, 1, 1) / (e^-1 + 2)
    array([[0.1554, 0.4223, 0.4223]])
    """

    _constraints = {"C": POSITIVE_FINITE, "balanced": BOOLEAN}

    def __init__(self, C=1.0, balanced=True, fit_intercept=False, n_features=None):
        self.C = C
        self.balanced = balanced
        self.fit_intercept = fit_intercept
        self.n_features = n_features

    def _kernel_config(self):
        link = qa.LINK_ENTROPY if self.balanced else qa.LINK_SIMPLEX
        codes = {"Q_LINK": link, "Q_UPDATE": qa.UPDATE_CONSERVATIVE}
        return codes, {"Q_C": self.C}

    def _flip(self):
        if self.balanced:
            super()._flip()
            return
        # the simplex link is not odd: keep the dual variables, negate theta, map it again
        self._theta = -self._theta
        self._refresh_weights(*self._config_arrays())
