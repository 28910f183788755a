r"""The UCL slides' regret bound of online gradient descent with the hinge loss."""

import math
from fractions import Fraction
from numbers import Real

from ._theorems import _Stream, sqrt_fraction, to_float


def ogd_hinge_regret_bound(X, y, U, eta=None, fit_intercept=False):
    r"""Regret of OGD with the hinge loss against every u with :math:`\|u\| \le U`.

    The UCL slides, "Regret Bound for OGD" (Theorem, based on Zinkevich
    2003): OGD started at :math:`w_1 = 0` with the constant step
    :math:`w_{t+1} = w_t + \eta\, \mathbf 1\{y_t\, w_t\cdot x_t < 1\}\, y_t x_t`
    (:class:`olearn.OGDClassifier` with ``loss="hinge"``,
    ``schedule="constant"``, no radius) satisfies, for every u with
    :math:`\|u\| \le U`,

    .. math:: \sum_{t=1}^m L_{hi}(y_t, w_t\cdot x_t) - L_{hi}(y_t, u\cdot x_t)
        \le \frac{U^2}{2\eta} + \frac{\eta}{2} m R^2, \qquad R = \max_t \|x_t\|,

    the last line but one of the slides' proof, which at the step the
    theorem assumes, :math:`\eta = U/(R\sqrt m)` (``eta=None``), is Eq. (6):
    :math:`\sqrt{U^2R^2m}`. Both are computed exactly and rounded once, so
    that rows of 1e-170 with U = 1e170 give the plain value, not 0 * inf.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n_features)
    y : array-like, shape (m,)
    U : float
        The norm bound of the competitors, > 0.
    eta : float or None, default=None
        The constant step of the run; None means the theorem's
        :math:`U/(R\sqrt m)`.
    fit_intercept : bool, default=False
        Apply the theorem to x augmented with a constant 1 (as the learner does).

    Examples
    --------
    >>> ogd_hinge_regret_bound([[3.0, 4.0], [0.0, 1.0]], [1, -1], U=2.0)   # sqrt(4 * 25 * 2)
    14.142135623730951
    >>> ogd_hinge_regret_bound([[3.0, 4.0], [0.0, 1.0]], [1, -1], U=2.0, eta=0.1)   # 4 / 0.2 + 0.05 * 2 * 25
    22.5
    """
    if isinstance(U, bool) or not isinstance(U, Real) or not (U > 0 and math.isfinite(U)):
        raise ValueError(f"U must be a finite number > 0; got {U!r}")
    stream = _Stream(X, y, fit_intercept)
    # exact on Fractions, rounded once: R^2 of rows of 1e-170 is 0 as a float, U^2 of 1e170 inf
    m, r2, U = stream.y.size, stream.exact_radius_sq(), Fraction(U)
    if eta is None:
        return sqrt_fraction(U * U * r2 * m)
    if isinstance(eta, bool) or not isinstance(eta, Real) or not (eta > 0 and math.isfinite(eta)):
        raise ValueError(f"eta must be a finite number > 0 or None; got {eta!r}")
    eta = Fraction(eta)
    return to_float(U * U / (2 * eta) + eta * m * r2 / 2)
