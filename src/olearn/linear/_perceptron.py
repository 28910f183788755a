"""Rosenblatt's Perceptron."""

from .._kernels import _codes
from .._params import POSITIVE
from ._base import BinaryLinearClassifier


class Perceptron(BinaryLinearClassifier):
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

    Parameters
    ----------
    eta : float, default=1.0
        Step size, > 0.
    fit_intercept : bool, default=False
        Learn a bias as the weight of a constant feature 1.
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error. By default
        the dimension grows with the largest index seen.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import Perceptron
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> y = np.array([1, -1, 1])
    >>> Perceptron().fit(X, y).coef_     # every margin was 0: three updates
    array([[2., 0.]])
    """

    _constraints = {"eta": POSITIVE}

    def __init__(self, eta=1.0, fit_intercept=False, n_features=None):
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.n_features = n_features

    def _kernel_config(self):
        return {"K_STEP": _codes.STEP_PERCEPTRON}, {"P_ETA": self.eta}
