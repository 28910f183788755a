r"""The loss bounds of Passive-Aggressive regression.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Sec. 5. Lemma 6 is Lemma 1 for the
epsilon-insensitive loss (Eq. (18))

.. math:: \ell_t = \max(0, |w_t \cdot x_t - y_t| - \epsilon), \qquad
    \ell^*_t = \max(0, |u \cdot x_t - y_t| - \epsilon),

and the text concludes that "regression versions of Thm. 2 through Thm. 5
follow as immediate corollaries": each theorem's proof uses only Lemma 1, the
step size :math:`\tau_t` and :math:`\|x_t\| \le R`, all unchanged. Notation as
in :mod:`olearn.bounds._theorems`: :math:`R = \max_t \|x_t\|`, with the
constant feature 1 included when ``fit_intercept=True`` (u then has one more
entry, the competitor's bias).

Thm. 4 bounds classification *mistakes* through :math:`\ell_t \ge 1` on a
mistake, its proof's only use of a mistake. Regression has no mistakes; the
corollary, read literally, bounds the number of rounds with
:math:`\ell_t \ge 1`, that is :math:`|w_t \cdot x_t - y_t| \ge 1 + \epsilon`
(see :func:`regression_pa1_bound`).

At extreme scales (rows of 1e-170 with a u of 1e170) R^2, ||u||^2 and the
predictions are computed as in :mod:`olearn.bounds._theorems`, exactly up to
one rounding: a bound is ``inf`` only beyond the doubles, never nan.
"""

import math

import numpy as np

from .._validation import check_targets
from ._theorems import (
    _check_C,
    _check_unit_norm,
    check_u,
    exact_radius_sq,
    exact_sq_norm,
    pa1_value,
    pa2_value,
    r2_u2,
    row_products,
    stream_rows,
    to_float,
)


class _RegressionStream:
    """A validated regression stream: CSR rows (augmented if asked) and real targets."""

    __slots__ = ("Z", "y", "sqnorms")

    def __init__(self, X, y, fit_intercept):
        self.Z, self.sqnorms = stream_rows(X, fit_intercept)
        self.y = check_targets(y, self.Z.shape[0])

    def losses(self, u, epsilon):
        """The competitor's epsilon-insensitive losses l*_t (Eq. (18))."""
        return np.maximum(0.0, np.abs(row_products(self.Z, u) - self.y) - epsilon)


def _check_epsilon(epsilon):
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.integer, np.floating)) or not (
        0.0 <= epsilon < math.inf
    ):
        raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}")
    return float(epsilon)


def _prepare(X, y, u, epsilon, fit_intercept):
    stream = _RegressionStream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    return stream, exact_sq_norm(u), stream.losses(u, _check_epsilon(epsilon))


def regression_pa_separable_bound(X, y, u, epsilon, fit_intercept=False):
    r"""PA regression, realizable case: cumulative squared epsilon-insensitive loss.

    Sec. 5, the regression version of Thm. 2 (via Lemma 6): if
    :math:`\|x_t\| \le R` and u predicts every target within epsilon
    (:math:`\ell^*_t = 0`), then PA regression suffers

    .. math:: \sum_t \ell_t^2 \le \|u\|^2 R^2.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
        Real targets.
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    epsilon : float
        The learner's insensitivity, >= 0.
    fit_intercept : bool, default=False

    Returns
    -------
    float
        :math:`\|u\|^2R^2`, or ``inf`` when some :math:`|u \cdot x_t - y_t| > \epsilon`.

    Examples
    --------
    >>> from olearn.bounds import regression_pa_separable_bound
    >>> X, y = [[2.0, 0.0], [0.0, 1.0]], [2.0, -1.0]
    >>> regression_pa_separable_bound(X, y, u=[1.0, -1.0], epsilon=0.1)   # ||u||^2 = 2, R^2 = 4
    8.0
    >>> regression_pa_separable_bound(X, y, u=[1.0, 0.0], epsilon=0.1)    # |0 - (-1)| > 0.1
    inf
    """
    stream, u2, losses = _prepare(X, y, u, epsilon, fit_intercept)
    return math.inf if losses.max() > 0.0 else r2_u2(exact_radius_sq(stream.Z), u2)


def regression_pa_unit_norm_bound(X, y, u, epsilon, fit_intercept=False, tol=1e-9):
    r"""PA regression with unit-norm instances: cumulative squared epsilon-insensitive loss.

    Sec. 5, the regression version of Thm. 3 (via Lemma 6): if
    :math:`\|x_t\| = 1` on every round, then for every u

    .. math:: \sum_t \ell_t^2 \le \Big(\|u\| + 2\sqrt{\textstyle\sum_t (\ell^*_t)^2}\Big)^2.

    Parameters
    ----------
    X, y, u, epsilon, fit_intercept
        As in :func:`regression_pa_separable_bound`.
    tol : float, default=1e-9
        How far :math:`\|x_t\|` may be from 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If some row's norm (the constant 1 included) is not 1 within ``tol``.

    Examples
    --------
    >>> from olearn.bounds import regression_pa_unit_norm_bound
    >>> X, y = [[1.0, 0.0], [0.0, 1.0]], [3.0, 0.0]
    >>> regression_pa_unit_norm_bound(X, y, u=[1.0, 0.0], epsilon=1.0)   # l* = (1, 0)
    9.0
    """
    stream, u2, losses = _prepare(X, y, u, epsilon, fit_intercept)
    problem = _check_unit_norm(stream, tol)
    if problem is not None:
        raise ValueError(problem)
    return (math.sqrt(to_float(u2)) + 2.0 * math.sqrt(float((losses**2).sum()))) ** 2


def regression_pa1_bound(X, y, u, epsilon, C, fit_intercept=False):
    r"""PA-I regression: the number of rounds whose loss is at least 1.

    Sec. 5, the regression version of Thm. 4 (via Lemma 6). Thm. 4's proof
    uses a mistake only through :math:`\ell_t \ge 1`; for regression it bounds
    the rounds with :math:`\ell_t \ge 1`, i.e.
    :math:`|w_t \cdot x_t - y_t| \ge 1 + \epsilon`:

    .. math:: \#\{t : \ell_t \ge 1\} \le \max\{R^2, 1/C\}
        \Big(\|u\|^2 + 2C \textstyle\sum_t \ell^*_t\Big).

    Parameters
    ----------
    X, y, u, epsilon, fit_intercept
        As in :func:`regression_pa_separable_bound`.
    C : float
        PA-I's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds import regression_pa1_bound
    >>> X, y = [[2.0, 0.0], [0.0, 1.0]], [2.0, -1.5]
    >>> regression_pa1_bound(X, y, u=[1.0, -1.0], epsilon=0.1, C=0.5)   # 4 (2 + 2 * 0.5 * 0.4)
    9.6
    """
    stream, u2, losses = _prepare(X, y, u, epsilon, fit_intercept)
    C = _check_C(C)
    r2 = exact_radius_sq(stream.Z)
    return pa1_value(r2, u2, float(losses.sum()), C)


def regression_pa2_loss_bound(X, y, u, epsilon, C, fit_intercept=False):
    r"""PA-II regression: cumulative squared epsilon-insensitive loss.

    Sec. 5, the regression version of Thm. 5 (via Lemma 6): for every u,

    .. math:: \sum_t \ell_t^2 \le \Big(R^2 + \frac{1}{2C}\Big)
        \Big(\|u\|^2 + 2C \textstyle\sum_t (\ell^*_t)^2\Big).

    Parameters
    ----------
    X, y, u, epsilon, fit_intercept
        As in :func:`regression_pa_separable_bound`.
    C : float
        PA-II's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds import regression_pa2_loss_bound
    >>> X, y = [[2.0, 0.0], [0.0, 1.0]], [2.0, -1.5]
    >>> regression_pa2_loss_bound(X, y, u=[1.0, -1.0], epsilon=0.1, C=0.5)   # 5 (2 + 2 * 0.5 * 0.16)
    10.8
    """
    stream, u2, losses = _prepare(X, y, u, epsilon, fit_intercept)
    C = _check_C(C)
    r2 = exact_radius_sq(stream.Z)
    return pa2_value(r2, u2, float((losses**2).sum()), C)
