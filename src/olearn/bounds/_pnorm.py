r"""The mistake bound of Orabona & Crammer's aggressive p-norm algorithm (NIPS 2010, Eq. (4)).

>>> import numpy as np
>>> import olearn
>>> from olearn.quasi_additive import PNorm
>>> X, y = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]), np.array([1, 1, -1])
>>> res = olearn.run(PNorm(p=2.0, aggressive=True, R=1.0), X, y)
>>> res.n_mistakes <= aggressive_pnorm_bound(X, y, [2.0, -2.0], 2.0, 1.0, res.taus, res.scores)
True
"""

import math
from fractions import Fraction

import numpy as np

from ._dual import exact_p_norm_sq
from ._theorems import _Stream, _exponent, check_u, sqrt_fraction, to_float


def _per_round(values, n_rows, name):
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (n_rows,):
        raise ValueError(f"{name} must have one value per row of X ({n_rows}); got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError(f"{name}[{int(np.flatnonzero(~np.isfinite(values))[0])}] is not finite")
    return values


def aggressive_pnorm_bound(X, y, u, p, R, taus, scores, fit_intercept=False):
    r"""Orabona & Crammer (2010), Eq. (4): the mistakes M of ``PNorm(p, aggressive=True, R)``.

    With q = p/(p-1), the run's steps :math:`\eta_t` (``res.taus``) and
    margins :math:`y_t\, w_t\cdot x_t` (from ``res.scores``), the mistake
    rounds M (:math:`y_t\, w_t\cdot x_t \le 0`, :math:`\eta_t = 1`) and the
    margin-error rounds U (the other rounds with :math:`\eta_t > 0`),

    .. math:: M \le L + \frac{\|u\|_q^2 R^2}{2(q-1)}
        + \frac{\|u\|_q}{\sqrt{q-1}}\,R\,\sqrt{\frac{\|u\|_q^2R^2}{4(q-1)} + L + D}
        - \sum_{t\in U}\eta_t ,

    .. math:: L = \sum_{t\in M\cup U}\eta_t\,\ell_t(u), \qquad
        D = \sum_{t\in U}\Big(\frac{\eta_t^2\|x_t\|_p^2 + 2\eta_t y_t\, w_t\cdot x_t}{R^2} - \eta_t\Big),

    :math:`\ell_t(u) = \max(0, 1 - y_t\, u\cdot x_t)`. It holds for every u and
    every choice of the margin-error steps :math:`\eta_t \ge 0`, when
    :math:`\eta_t = 1` on every round with :math:`y_t\, w_t\cdot x_t \le 0`
    (the text's step on a mistake) and :math:`\|x_t\|_p \le R` on those
    rounds (all checked: a ValueError names the first row that breaks it;
    the steps of another learner, e.g. the dual-ascent p-norm's
    :math:`\min\{C, \cdot\}`, are refused). The square root's argument is
    then non-negative (it is, up to rounding: it is clipped at 0). The
    value is computed as :math:`L + A/2 + \sqrt{A^2/4 + A(L - E) + \|u\|_q^2 S/(q-1)} - E`
    with :math:`A = \|u\|_q^2R^2/(q-1)`, :math:`E = \sum_{t\in U}\eta_t` and
    :math:`S = R^2(D + E)` (R^2 cancels), exactly and rounded once: rows, R
    and u of 1e-170 or 1e170 give the bound's value, ``inf`` only beyond the
    doubles.
    """
    stream = _Stream(X, y, fit_intercept)
    u = check_u(u, stream, fit_intercept)
    n = stream.y.size
    taus = _per_round(taus, n, "taus")
    margins = stream.y * _per_round(scores, n, "scores")
    if not (isinstance(R, (int, float, np.integer, np.floating)) and not isinstance(R, bool) and 0 < R < math.inf):
        raise ValueError(f"R must be a finite number > 0; got {R!r}")
    if (taus < 0).any():
        t = int(np.flatnonzero(taus < 0)[0])
        raise ValueError(f"taus[{t}] = {float(taus[t])!r} is negative; Eq. (4) is for steps eta_t >= 0")
    wrong_step = (margins <= 0) & (taus != 1.0)
    if wrong_step.any():
        t = int(np.flatnonzero(wrong_step)[0])
        raise ValueError(f"row {t} is a mistake with eta = {float(taus[t])!r}; Eq. (4) is for the text's eta_t = 1 "
                         "on every round with y w.x <= 0 (PNorm(aggressive=True)'s steps)")
    q = p / (p - 1.0)
    # the rows scaled exactly by a power of two, so that their norms neither under- nor overflow
    e = _exponent(stream.Z.data)
    Z = np.ldexp(stream.Z.toarray(), -e)
    scaled_sqnorm_p = np.linalg.norm(Z, ord=p, axis=1) ** 2  # ||x_t||_p^2 / 4^e
    updated = taus > 0
    mistakes = updated & (margins <= 0)
    margin_errors = updated & ~mistakes
    with np.errstate(over="ignore"):
        scaled_R = np.ldexp(float(R), -e)
        too_long = mistakes & (scaled_sqnorm_p > scaled_R * scaled_R * (1 + 1e-12))
    if too_long.any():
        t = int(np.flatnonzero(too_long)[0])
        raise ValueError(f"row {t} is a mistake with ||x||_p = {math.ldexp(math.sqrt(scaled_sqnorm_p[t]), e)!r} > "
                         f"R = {R!r}; Eq. (4) needs ||x_t||_p <= R on the mistake rounds")
    hinge = np.maximum(0.0, 1.0 - stream.margins(u))
    L = float(np.sum(taus[updated] * hinge[updated]))
    eta = taus[margin_errors]
    E = float(eta.sum())
    if math.isinf(L):  # some u.x_t beyond the doubles on the wrong side: its hinge loss, and the bound, are inf
        return math.inf
    # A = ||u||_q^2 R^2 / (q-1), and sqrt(A) sqrt(A/4 + L + D) = sqrt(A^2/4 + A (L - E) + ||u||_q^2 S / (q-1)),
    # S = sum_U (eta^2 ||x_t||_p^2 + 2 eta y w.x): R^2 cancels out of D, and on Fractions nothing under- or
    # overflows (||u||_q^2 of a u of 1e170, R^2 of 1e-170, S / R^2 ...); rounded once, inf beyond the doubles
    u_q2 = exact_p_norm_sq(u, q)
    A = u_q2 * Fraction(R) ** 2 / Fraction(q - 1.0)
    S = (Fraction(float(np.sum(eta**2 * scaled_sqnorm_p[margin_errors]))) * Fraction(4) ** e
         + 2 * Fraction(float(np.sum(eta * margins[margin_errors]))))
    root = sqrt_fraction(max(Fraction(0), A * A / 4 + A * (Fraction(L) - Fraction(E)) + u_q2 * S / Fraction(q - 1.0)))
    if math.isinf(root):
        return math.inf
    return to_float(Fraction(L) + A / 2 + Fraction(root) - Fraction(E))

