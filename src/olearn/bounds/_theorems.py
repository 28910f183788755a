r"""The mistake and loss bounds of the Perceptron and Passive-Aggressive papers.

Each public function evaluates one theorem on a stream ``(X, y)`` for a
competitor ``u``. Every bound holds for *every* u, so a caller may pick u
after seeing the data (:func:`olearn.bounds.bound_report` does). Notation:

* :math:`R = \max_t \|x_t\|`,
* the margin of u on round t, :math:`m_t = y_t\, u \cdot x_t`,
* the hinge loss of u, :math:`\ell^*_t = \max(0, 1 - m_t)`.

With ``fit_intercept=True`` the learners append a constant feature 1 to each
x, so the theorems apply to the augmented :math:`x_t` (its norm includes the
1) and u then has one more entry, the competitor's bias.

Labels are any two classes, mapped as the estimators map them: sorted, the
second one is +1. A stream that shows one class only is accepted when its
labels are -1 or +1, taken literally: every bound here is unchanged when all
labels and u flip sign together, and so is every learner's sequence of
margins, so the choice of sign cannot matter.

Extreme scales: R^2, ||u||^2 and the margins are computed on the rows and u
scaled exactly by powers of two, and the products of a bound exactly (rounded
once), so that rows of 1e-170 with a u of 1e170 give the same bound as rows
of 1 with a u of 1, not 0 * inf = nan; a bound beyond the doubles is ``inf``.
"""

import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from .._validation import check_X, check_y


def stream_rows(X, fit_intercept):
    """``(Z, squared norms)``: the checked rows of X as CSR, with a constant 1 column if ``fit_intercept``."""
    arrays = check_X(X)
    if arrays.n_rows == 0:
        raise ValueError("X has no rows; a bound needs at least one round")
    Z = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=(arrays.n_rows, arrays.n_features))
    if fit_intercept:
        Z = sp.hstack([Z, np.ones((arrays.n_rows, 1))], format="csr")
    return Z, np.asarray(Z.multiply(Z).sum(axis=1)).ravel()


class _Stream:
    """A validated stream: CSR rows (augmented if asked), labels in {-1, +1}."""

    __slots__ = ("Z", "y", "sqnorms")

    def __init__(self, X, y, fit_intercept):
        self.Z, self.sqnorms = stream_rows(X, fit_intercept)
        self.y = encode_labels(y, self.Z.shape[0])

    @property
    def radius_sq(self):
        """R^2 = max_t ||x_t||^2."""
        return float(self.sqnorms.max())

    def exact_radius_sq(self):
        """R^2 as a Fraction, exact where the float R^2 under- or overflows (rows of 1e-170 square to 0)."""
        return exact_radius_sq(self.Z)

    def margins(self, u):
        """y_t u.x_t for every round (:func:`row_products`)."""
        return self.y * row_products(self.Z, u)


def exact_radius_sq(Z):
    """max_t ||x_t||^2 of the rows Z (CSR or dense) as a Fraction: from the rows scaled exactly by a power of two."""
    if sp.issparse(Z):
        e = _exponent(Z.data)
        scaled = Z.copy()
        scaled.data = np.ldexp(scaled.data, -e)
        largest = scaled.multiply(scaled).sum(axis=1).max()
    else:
        e = _exponent(Z)
        largest = (np.ldexp(Z, -e) ** 2).sum(axis=1).max()
    return Fraction(float(largest)) * Fraction(4) ** e


def row_products(Z, u):
    """u.x_t for every CSR row of Z; a row whose float sum is not finite is summed exactly (inf - inf is no nan).

    The float products are those of ``Z @ u``; only a row where a product or a partial sum overflows is redone on
    Fractions and rounded once (+-inf only where the value itself is beyond the doubles).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        products = Z @ u
    for t in np.flatnonzero(~np.isfinite(products)):
        lo, hi = Z.indptr[t], Z.indptr[t + 1]
        products[t] = exact_dot(Z.data[lo:hi], u[Z.indices[lo:hi]])
    return products


def exact_dot(a, b):
    """a.b summed on Fractions and rounded once (+-inf beyond the doubles)."""
    return to_float(sum(Fraction(float(x)) * Fraction(float(v)) for x, v in zip(a, b)))


def _exponent(a):
    """The power of two e with the largest magnitude of ``a`` in [2^(e-1), 2^e) (0 if ``a`` is empty or all zero)."""
    return math.frexp(float(np.abs(a).max(initial=0.0)))[1]


def exact_sq_norm(a):
    """||a||^2 as a Fraction: a scaled exactly by a power of two to entries below 1, squared, then scaled back.

    The squares are summed as the float code sums them: ``a @ a`` for a vector, ``(a**2).sum()`` for a matrix.
    """
    e = _exponent(a)
    scaled = np.ldexp(np.asarray(a, dtype=np.float64), -e)
    return Fraction(float(scaled @ scaled if scaled.ndim == 1 else (scaled**2).sum())) * Fraction(4) ** e


def sqrt_fraction(value):
    """The square root of a non-negative Fraction as a float, whatever its size (inf beyond the doubles).

    The value is scaled exactly by a power of four to about 1 before it is rounded to a float.
    """
    if value == 0:
        return 0.0
    k = (value.numerator.bit_length() - value.denominator.bit_length()) // 2
    try:
        return math.ldexp(math.sqrt(float(value / Fraction(4) ** k)), k)
    except OverflowError:
        return math.inf


def _infinite(value):
    """``value`` is a float inf (a Fraction never is; math.isinf would round it to a float, which may overflow)."""
    return isinstance(value, float) and math.isinf(value)


def to_float(value):
    """A Fraction as the nearest double, +-inf when its magnitude exceeds them all."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def encode_labels(y, n_rows):
    """Labels as float64 -1/+1: two classes sorted (the second is +1), or literal -1/+1."""
    y = check_y(y, n_rows)
    classes = np.unique(y)
    if classes.size == 2:
        return np.where(y == classes[1], 1.0, -1.0)
    if classes.size == 1 and y.dtype.kind in "biuf" and classes[0] in (-1, 1):
        return y.astype(np.float64)
    if classes.size == 1:
        raise ValueError(
            f"y has a single class {classes.tolist()[0]!r}; a one-class stream must be labelled -1 or +1 "
            "(otherwise its sign is ambiguous)"
        )
    shown = ", ".join(repr(c) for c in classes[:5].tolist()) + (", ..." if classes.size > 5 else "")
    raise ValueError(f"the bounds are for binary streams; y has {classes.size} classes: {shown}")


def check_u(u, stream, fit_intercept):
    """u as a finite float64 vector with one entry per (augmented) feature."""
    u = np.asarray(u, dtype=np.float64)
    expected = stream.Z.shape[1]
    if u.ndim != 1:
        raise ValueError(f"u must be a 1-d vector; got shape {u.shape}")
    if u.size != expected:
        extra = " (X's features plus 1 for the intercept, as fit_intercept=True)" if fit_intercept else ""
        raise ValueError(f"u has {u.size} entries; expected {expected}{extra}")
    if not np.isfinite(u).all():
        k = int(np.flatnonzero(~np.isfinite(u))[0])
        raise ValueError(f"u[{k}] is {u[k]}; expected finite values")
    return u


def _check_C(C):
    if isinstance(C, bool) or not isinstance(C, (int, float, np.integer, np.floating)) or not C > 0:
        raise ValueError(f"C must be a number > 0 (inf allowed); got {C!r}")
    return float(C)


def _times(C, loss):
    """C * loss with 0 * inf = 0: a competitor with no loss pays nothing, whatever C."""
    return 0.0 if loss == 0.0 else C * loss


# -- the bounds as functions of (R, ||u||, margins), shared with the report ----


# Arguments: r2 = R^2, u2 = ||u||^2 (squares, so that no square root is taken
# and squared again), margins = y_t u.x_t. Those returning a pair give
# (bound, the competitor's loss that enters it).


def _novikoff(r2, u2, margins):
    low = float(margins.min())
    if u2 <= 0.0 or low <= 0.0:
        return math.inf
    # R^2 ||u||^2 / gamma^2 on mantissas and exponents apart: gamma^2 or R^2 ||u||^2 may underflow (gamma
    # 1e-164 squares to 0) or overflow where the bound itself is a plain number (it is >= 1: gamma <= R ||u||)
    (m_r, e_r), (m_u, e_u), (m_low, e_low) = math.frexp(r2), math.frexp(u2), math.frexp(low)
    try:
        return math.ldexp(m_r * m_u / (m_low * m_low), e_r + e_u - 2 * e_low)
    except OverflowError:
        return math.inf


def thm2_minimum(loss, b2):
    r""":math:`\min_{C \in (0, 2)} (b^2/2 + C L) / (C - C^2/2) = L + \tfrac12 b^2 (1 + \sqrt{1 + 4L/b^2})`.

    Shalev-Shwartz & Singer 2006, Eq. (24) and its minimiser Eq. (33)-(34),
    :math:`C = 2/(\sqrt{1 + 4L/b^2} + 1)`; written with
    :math:`\sqrt{b^4 + 4Lb^2} = b\sqrt{b^2 + 4L}` so that neither a zero
    :math:`b^2` (the value is then L) nor a huge one divides or overflows.
    """
    return loss + 0.5 * (b2 + math.sqrt(b2) * math.sqrt(b2 + 4.0 * loss))


def r2_u2(r2, u2):
    """R^2 ||u||^2 rounded once from its exact product (either factor may be a Fraction); ``inf`` beyond the doubles."""
    if _infinite(r2) or _infinite(u2):
        return math.inf if r2 > 0.0 and u2 > 0.0 else 0.0
    return to_float(Fraction(r2) * Fraction(u2))


def _ss_perceptron(r2, u2, margins, mask):
    loss = float(np.maximum(0.0, 1.0 - margins[mask]).sum())
    return thm2_minimum(loss, r2_u2(r2, u2)), loss


def _pa_separable(r2, u2, margins):
    if margins.min() < 1.0:
        return math.inf
    return r2_u2(r2, u2)


def _pa_unit_norm(u2, margins):
    sq_loss = float((np.maximum(0.0, 1.0 - margins) ** 2).sum())
    return (math.sqrt(u2) + 2.0 * math.sqrt(sq_loss)) ** 2, sq_loss


def pa1_value(r2, u2, loss, C, scale=1.0):
    """Thm. 4's max{R^2, s/C}(||u||^2 + 2C L), multiplied out so that R = 0 with C = inf gives the limit 2sL.

    ``scale`` is s: 1, or sqrt(rho_max) for the cost-sensitive PA-I (Sec. 8). R^2 and ||u||^2 may be Fractions
    (:meth:`_Stream.exact_radius_sq`, :func:`exact_sq_norm`). The value is computed exactly and rounded once, so
    that no intermediate product under- or overflows (R^2 of rows of 1e-170 times ||u||^2 of a u of 1e170 is a
    plain number, though the float R^2 is 0 and the float ||u||^2 inf); ``inf`` only beyond the doubles.
    """
    if math.isinf(loss) or _infinite(u2):
        return math.inf
    r2, u2, loss, scale = Fraction(r2), Fraction(u2), Fraction(loss), Fraction(scale)
    if math.isinf(C):  # the limit: R^2 ||u||^2 + 2 max{R^2 C, s} L, with inf * 0 = 0
        return to_float(r2 * u2) if loss == 0 else (math.inf if r2 > 0 else to_float(2 * scale * loss))
    C = Fraction(C)
    return to_float(max(r2, scale / C) * u2 + 2 * max(r2 * C, scale) * loss)


def pa2_value(r2, u2, sq_loss, C):
    """Thm. 5's (R^2 + 1/2C)(||u||^2 + 2C L2), multiplied out so that R = 0 with C = inf gives the limit L2.

    Exact and rounded once, as :func:`pa1_value`.
    """
    if math.isinf(sq_loss) or _infinite(u2):
        return math.inf
    r2, u2, sq_loss = Fraction(r2), Fraction(u2), Fraction(sq_loss)
    if math.isinf(C):  # the limit: R^2 ||u||^2 + (2 R^2 C + 1) L2, with inf * 0 = 0
        return to_float(r2 * u2) if sq_loss == 0 else (math.inf if r2 > 0 else to_float(sq_loss))
    C = Fraction(C)
    return to_float((r2 + 1 / (2 * C)) * u2 + (2 * r2 * C + 1) * sq_loss)


def _pa1(r2, u2, margins, C):
    loss = float(np.maximum(0.0, 1.0 - margins).sum())
    return pa1_value(r2, u2, loss, C), loss


def _pa2(r2, u2, margins, C):
    sq_loss = float((np.maximum(0.0, 1.0 - margins) ** 2).sum())
    return pa2_value(r2, u2, sq_loss, C), sq_loss


def _check_unit_norm(stream, tol):
    deviation = np.abs(np.sqrt(stream.sqnorms) - 1.0)
    worst = int(np.argmax(deviation))
    if deviation[worst] > tol:
        return (
            f"Thm. 3 assumes ||x_t|| = 1 on every round; row {worst} has ||x_t|| = "
            f"{math.sqrt(stream.sqnorms[worst]):.6g} (tolerance {tol:g})"
        )
    return None


# -- public functions ----------------------------------------------------------


def novikoff_bound(X, y, u, fit_intercept=False):
    r"""Novikoff's Perceptron convergence bound :math:`(R/\gamma)^2`.

    Novikoff, *On convergence proofs on perceptrons*, 1962 (the UCL slides'
    Perceptron bound): if some u separates the stream with margin

    .. math:: \gamma = \min_t \frac{y_t\, u \cdot x_t}{\|u\|} > 0
        \quad\text{and}\quad \|x_t\| \le R,

    the Perceptron (started at w = 0, any step size) makes at most
    :math:`(R/\gamma)^2` mistakes; a mistake is a round with
    :math:`y_t\, w_t \cdot x_t \le 0`, on which it updates. The bound does not
    depend on the scale of u.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    fit_intercept : bool, default=False
        Apply the theorem to x augmented with a constant 1 (as the learner does).

    Returns
    -------
    float
        :math:`(R/\gamma)^2`, or ``inf`` when u does not separate the stream
        (:math:`\gamma \le 0`, including u = 0).

    Examples
    --------
    >>> from olearn.bounds import novikoff_bound
    >>> X = [[3.0, 4.0], [-1.0, 0.0]]
    >>> novikoff_bound(X, [1, -1], u=[1.0, 0.0])     # R = 5, gamma = 1
    25.0
    >>> novikoff_bound(X, [1, -1], u=[0.0, 1.0])     # u.x_2 = 0: no margin
    inf
    """
    stream = _Stream(X, y, fit_intercept)
    u = _unit_scaled(check_u(u, stream, fit_intercept))
    # the bound depends on the scale of neither u nor the rows: both are scaled by powers of two (exactly) to a
    # largest entry in [0.5, 1), so that R^2, ||u||^2 and the margins are plain numbers even where their own would
    # under- or overflow (R^2 of rows of 1e-170 is 0 in floating point, which would bound the mistakes by 0)
    stream.Z.data = _unit_scaled(stream.Z.data)
    stream.sqnorms = np.asarray(stream.Z.multiply(stream.Z).sum(axis=1)).ravel()
    return _novikoff(stream.radius_sq, float(u @ u), stream.margins(u))


def _unit_scaled(a):
    """``a`` times the power of two that brings its largest magnitude into [0.5, 1) (``a`` if all zero)."""
    largest = float(np.abs(a).max(initial=0.0))
    return np.ldexp(a, -math.frexp(largest)[1]) if largest > 0.0 else a


def perceptron_bound(X, y, u, mistakes=None, fit_intercept=False):
    r"""The Perceptron's mistake bound for inseparable streams (Thm. 2 of Shalev-Shwartz & Singer).

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006, Thm. 2: if :math:`\|x_t\| \le 1` on every round, then for every u

    .. math:: M \le L + \tfrac12\|u\|^2\Big(1 + \sqrt{1 + 4L/\|u\|^2}\Big),
        \qquad L = \sum_{t=1}^m \max(0,\ 1 - y_t\, u \cdot x_t),

    the minimum over C of Eq. (24) (appendix A, Eq. 33-34). For a stream
    with :math:`R = \max_t \|x_t\| \ne 1` the theorem is applied to
    :math:`x_t/R` and :math:`R u`: the Perceptron's predictions and the hinge
    losses do not change, so :math:`\|u\|^2` becomes :math:`R^2\|u\|^2`
    (with R = 1 this is the text's formula). With L = 0 it is Novikoff's
    :math:`R^2\|u\|^2`; with u = 0 it is L = m.

    L sums over every round, as the theorem states. ``mistakes`` restricts it
    to the rounds on which the Perceptron erred (:math:`y_t\, w_t \cdot x_t
    \le 0`; for a run of :class:`olearn.Perceptron`, ``result.taus > 0``): a
    conservative learner behaves on them as on the whole stream, so Thm. 2
    applied to that subsequence holds too, with a smaller L.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    mistakes : array-like of bool, shape (n_samples,), optional
        Sum L over these rounds only (the Perceptron's mistakes).
    fit_intercept : bool, default=False

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds import perceptron_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]]
    >>> y = [1, 1, -1, -1]
    >>> # u = (1, 0): margins 1, 0, -1, 1 -> L = 0 + 1 + 2 + 0 = 3; R^2 ||u||^2 = 2
    >>> perceptron_bound(X, y, [1.0, 0.0])   # 3 + (2 + sqrt(4 + 24)) / 2
    6.645751311064591
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    mask = check_mask(mistakes, stream.y.size)
    return _ss_perceptron(stream.exact_radius_sq(), exact_sq_norm(u), stream.margins(u), mask)[0]


def check_mask(mistakes, n_rows):
    """A boolean mask of rounds (all rounds when None)."""
    if mistakes is None:
        return np.ones(n_rows, dtype=bool)
    mask = np.asarray(mistakes)
    if mask.shape != (n_rows,):
        raise ValueError(f"mistakes must be a 1-d mask with one entry per row ({n_rows}); got shape {mask.shape}")
    if mask.dtype != bool:
        if mask.dtype.kind not in "biu" or not np.isin(mask, (0, 1)).all():
            raise ValueError("mistakes must be a boolean mask (True on the rounds where the Perceptron updated)")
        mask = mask.astype(bool)
    return mask


def pa_separable_bound(X, y, u, fit_intercept=False):
    r"""Passive-Aggressive (PA), separable case: cumulative squared loss.

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Thm. 2: if :math:`\|x_t\| \le R` and u has
    zero hinge loss on every round (:math:`y_t\, u \cdot x_t \ge 1`), then PA
    suffers

    .. math:: \sum_t \ell_t^2 \le \|u\|^2 R^2,

    where :math:`\ell_t = \max(0, 1 - y_t\, w_t \cdot x_t)` is PA's loss before
    its update. Since :math:`\ell_t \ge 1` on a mistake, this also bounds PA's
    mistakes. To apply it to a u that separates with a smaller margin, rescale
    u so that :math:`\min_t y_t\, u \cdot x_t = 1`: the bound is then
    Novikoff's :math:`(R/\gamma)^2`.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    fit_intercept : bool, default=False

    Returns
    -------
    float
        :math:`\|u\|^2R^2`, or ``inf`` when some :math:`y_t\, u\cdot x_t < 1`
        (the theorem says nothing for such a u).

    Examples
    --------
    >>> from olearn.bounds import pa_separable_bound
    >>> X = [[2.0, 0.0], [0.0, -1.0]]
    >>> pa_separable_bound(X, [1, -1], u=[1.0, 1.0])    # ||u||^2 = 2, R^2 = 4
    8.0
    >>> pa_separable_bound(X, [1, -1], u=[0.5, 1.0])    # margin 1 on both rows
    5.0
    >>> pa_separable_bound(X, [1, -1], u=[0.4, 1.0])    # margin 0.8 < 1
    inf
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    return _pa_separable(stream.exact_radius_sq(), exact_sq_norm(u), stream.margins(u))


def pa_unit_norm_bound(X, y, u, fit_intercept=False, tol=1e-9):
    r"""Passive-Aggressive (PA), inseparable case with unit-norm instances.

    Crammer et al., *Online Passive-Aggressive Algorithms*, JMLR 7 (2006),
    Thm. 3: if :math:`\|x_t\| = 1` on every round, then for every u

    .. math:: \sum_t \ell_t^2 \le \Big(\|u\| + 2\sqrt{\textstyle\sum_t (\ell^*_t)^2}\Big)^2,

    with :math:`\ell_t` PA's loss before its update and
    :math:`\ell^*_t = \max(0, 1 - y_t\, u \cdot x_t)`. The proof uses
    :math:`\tau_t = \ell_t` (that is, :math:`\|x_t\|^2 = 1`) and does not carry
    over to :math:`\|x_t\| \le 1`, so the assumption is checked, not assumed.
    With ``fit_intercept=True`` the augmented :math:`\|x_t\|^2 = \|x_t\|^2 + 1`
    is 1 only for x = 0, so the theorem then rarely applies.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    fit_intercept : bool, default=False
    tol : float, default=1e-9
        Largest accepted :math:`|\,\|x_t\| - 1|`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If some :math:`\|x_t\|` is not 1 within ``tol``; the message names the row.

    Examples
    --------
    >>> from olearn.bounds import pa_unit_norm_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    >>> # u = (2, 0): margins 2, 0, -1.2 -> losses 0, 1, 2.2; sum of squares 5.84
    >>> round(pa_unit_norm_bound(X, [1, 1, -1], u=[2.0, 0.0]), 6)     # (2 + 2 sqrt(5.84))^2
    46.692874
    >>> pa_unit_norm_bound([[2.0, 0.0]], [1], u=[1.0, 0.0])
    Traceback (most recent call last):
    ...
    ValueError: Thm. 3 assumes ||x_t|| = 1 on every round; row 0 has ||x_t|| = 2 (tolerance 1e-09)
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    problem = _check_unit_norm(stream, tol)
    if problem:
        raise ValueError(problem)
    return _pa_unit_norm(float(u @ u), stream.margins(u))[0]


def pa1_mistake_bound(X, y, u, C, fit_intercept=False):
    r"""PA-I: number of prediction mistakes.

    Crammer et al., *Online Passive-Aggressive Algorithms*, JMLR 7 (2006),
    Thm. 4: if :math:`\|x_t\| \le R`, then for every u the number of
    mistakes of PA-I with aggressiveness C is at most

    .. math:: M \le \max\{R^2, 1/C\}\,\Big(\|u\|^2 + 2C\sum_t \ell^*_t\Big),
        \qquad \ell^*_t = \max(0, 1 - y_t\, u \cdot x_t).

    The proof bounds the rounds with :math:`\ell_t \ge 1`
    (:math:`y_t\, w_t \cdot x_t \le 0`), which include every mistake. With
    ``C = inf`` (PA) the bound is :math:`R^2\|u\|^2` if u has no loss and
    ``inf`` otherwise (taking :math:`\infty \cdot 0 = 0`).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    C : float
        PA-I's aggressiveness, > 0.
    fit_intercept : bool, default=False

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds import pa1_mistake_bound
    >>> X = [[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]]
    >>> # u = (1, 0): losses 0, 1, 2 -> sum 3; R^2 = 4; C = 0.5: 4 * (1 + 2 * 0.5 * 3)
    >>> pa1_mistake_bound(X, [1, 1, -1], u=[1.0, 0.0], C=0.5)
    16.0
    """
    C = _check_C(C)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    return _pa1(stream.exact_radius_sq(), exact_sq_norm(u), stream.margins(u), C)[0]


def pa2_loss_bound(X, y, u, C, fit_intercept=False):
    r"""PA-II: cumulative squared loss.

    Crammer et al., *Online Passive-Aggressive Algorithms*, JMLR 7 (2006),
    Thm. 5: if :math:`\|x_t\| \le R`, then for every u

    .. math:: \sum_t \ell_t^2 \le \Big(R^2 + \frac{1}{2C}\Big)
        \Big(\|u\|^2 + 2C\sum_t (\ell^*_t)^2\Big),

    with :math:`\ell_t` PA-II's hinge loss before its update and
    :math:`\ell^*_t = \max(0, 1 - y_t\, u \cdot x_t)`. Again
    :math:`\infty \cdot 0 = 0` for ``C = inf``.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    u : array-like, shape (n_features,), or (n_features + 1,) with ``fit_intercept``
    C : float
        PA-II's aggressiveness, > 0.
    fit_intercept : bool, default=False

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds import pa2_loss_bound
    >>> X = [[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]]
    >>> # u = (1, 0): losses 0, 1, 2 -> squares sum to 5; (4 + 1) * (1 + 2 * 0.5 * 5)
    >>> pa2_loss_bound(X, [1, 1, -1], u=[1.0, 0.0], C=0.5)
    30.0
    """
    C = _check_C(C)
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    return _pa2(stream.exact_radius_sq(), exact_sq_norm(u), stream.margins(u), C)[0]
