"""Passive-Aggressive binary classification (Crammer et al. 2006)."""

import math

from .._kernels import _codes
from .._params import Interval, Options
from ._base import BinaryLinearClassifier

_STEP_RULES = {"pa": _codes.STEP_PA, "pa1": _codes.STEP_PA1, "pa2": _codes.STEP_PA2}


class PAClassifier(BinaryLinearClassifier):
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

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> clf = PAClassifier(variant="pa").fit(X, [1, -1])
    >>> clf.coef_            # tau_1 = 1/4, then tau_2 = 1/1
    array([[ 0.5, -1. ]])
    >>> clf.decision_function(X)   # PA leaves zero hinge loss on each example
    array([ 1., -1.])
    """

    _constraints = {"variant": Options("pa", "pa1", "pa2"), "C": Interval(0, None, closed="neither")}

    def __init__(self, variant="pa1", C=1.0, fit_intercept=False, n_features=None):
        self.variant = variant
        self.C = C
        self.fit_intercept = fit_intercept
        self.n_features = n_features

    def _kernel_config(self):
        return {"K_STEP": _STEP_RULES[self.variant]}, {"P_C": self.C if self.variant != "pa" else math.inf}
