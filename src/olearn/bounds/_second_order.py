r"""Mistake bounds of the second-order learners: AROW, NAROW and the Second-Order Perceptron.

Orabona & Crammer, *New Adaptive Algorithms for Online Classification*,
NIPS 2010, bound all three with one argument on the potential
:math:`D_t = \theta_{t+1}^\top A_t^{-1} \theta_{t+1}`, where
:math:`\theta = \sum_{t \in S} y_t x_t` sums the update rounds S and
:math:`A_t` is the learner's precision matrix. For every competitor u,

.. math:: |S| - \sum_{t\in S}\ell^*_t \le u \cdot \theta_{T+1}
    \le \sqrt{u^\top A_T u}\,\sqrt{D_T},
    \qquad \ell^*_t = \max(0, 1 - y_t\, u\cdot x_t),

and each learner bounds :math:`D_T` by its own terms. Writing
:math:`S = M \cup U` (mistakes M, margin errors U that are not mistakes),
each bound below reads :math:`M \le \dots`. The bounds depend on the run
(which rounds updated), so they take the run's per-round ``updated`` and
``mistaken`` flags, e.g. ``res.taus != 0`` and
``np.diff(res.cumulative_mistakes, prepend=0) > 0`` of :func:`olearn.run`.
They are for the full-covariance learners, evaluated with dense d x d
matrices. :func:`arow_mistake_bound`, :func:`sop_mistake_bound` and
:func:`orabona2010_arow_bound` compute :math:`u^\top X_S u` as
:math:`\sum_S (u\cdot x_t)^2` (exactly) and scale the rows and r by powers
of two, so that x of 1e-170 with u of 1e170 (and r scaled along) give the
bound of x of 1, not inf or nan; the NAROW and diagonal bounds assume rows,
u and b of ordinary size.

>>> import numpy as np
>>> import olearn
>>> from olearn.second_order import AROW
>>> from olearn.bounds._second_order import arow_mistake_bound
>>> X, y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1, -1, 1])
>>> res = olearn.run(AROW(r=1.0), X, y)
>>> mistaken = np.diff(res.cumulative_mistakes, prepend=0) > 0
>>> res.n_mistakes <= arow_mistake_bound(X, y, [1.0, -1.0], 1.0, res.taus != 0, mistaken)
True
"""

import math
from fractions import Fraction

import numpy as np

from ._theorems import _Stream, _exponent, check_u, exact_dot, exact_sq_norm, sqrt_fraction


def _flags(flags, n_rows, name):
    flags = np.asarray(flags, dtype=bool)
    if flags.shape != (n_rows,):
        raise ValueError(f"{name} must have one flag per row of X ({n_rows}); got shape {flags.shape}")
    return flags


def _prepare(X, y, u, fit_intercept, flags):
    stream = _Stream(X, y, fit_intercept)
    n = stream.Z.shape[0]
    u = check_u(u, stream, fit_intercept)
    flags = [_flags(f, n, name) for name, f in flags.items()]
    Z = stream.Z.toarray()
    hinge = np.maximum(0.0, 1.0 - stream.margins(u))
    return Z, u, hinge, flags, stream.y


def _logdet_identity_plus(X_S, scale):
    return np.linalg.slogdet(np.eye(X_S.shape[0]) + X_S / scale)[1]


def _first_order_terms(Z_S, u, r):
    """(r ||u||^2 + u^T X_S u as a Fraction, ln det(I + X_S / r)) for the rows Z_S, X_S = Z_S^T Z_S.

    The rows and r are scaled exactly by powers of two (x by 2^-e, r by 4^-e, which leaves X_S / r as it is), so
    that X_S neither under- nor overflows where the bound is a plain number (rows of 1e-170 with a u of 1e170 and
    r of 1e-340 give the bound of rows of 1); :func:`_quadratic` for the first term.
    """
    e = _exponent(Z_S)
    scaled = np.ldexp(Z_S, -e)
    with np.errstate(over="ignore"):
        logdet = _logdet_identity_plus(scaled.T @ scaled, np.ldexp(r, -2 * e))
    return _quadratic(Z_S, u, r), logdet


def _quadratic(Z_S, u, r):
    """r ||u||^2 + sum_t (u.x_t)^2 over the rows Z_S, as an exact Fraction (inf where a u.x_t is beyond the doubles).

    The sum of the (u.x_t)^2 is u^T X_S u without X_S, whose entries may overflow where the (u.x_t)^2 do not.
    """
    if not 0 < r < math.inf:
        raise ValueError(f"the covariance scale must be a finite number > 0; got {r!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        products = Z_S @ u
    for t in np.flatnonzero(~np.isfinite(products)):  # overflowed: summed exactly (no inf - inf = nan)
        products[t] = exact_dot(Z_S[t], u)
    if not np.isfinite(products).all():
        return math.inf
    return Fraction(r) * exact_sq_norm(u) + exact_sq_norm(products)


def _root(quadratic, factor):
    """sqrt(quadratic * factor) for a Fraction quadratic (inf beyond the doubles), factor clipped at 0."""
    if quadratic == math.inf or factor == math.inf:
        return math.inf
    return sqrt_fraction(quadratic * Fraction(max(float(factor), 0.0)))


def arow_mistake_bound(X, y, u, r, updated, mistaken, fit_intercept=False):
    r"""AROW with a full covariance: mistakes M against every u.

    With :math:`X_S = \sum_{t \in S} x_t x_t^\top` over the update rounds and
    :math:`U = |S| - M`,

    .. math:: M \le \sum_{t\in S}\ell^*_t
        + \sqrt{\big(r\|u\|^2 + u^\top X_S u\big)\big(\ln\det(I + X_S/r) + U\big)} - U.

    A bound of this shape is Crammer, Kulesza & Dredze (NIPS 2009), Thm. 2;
    the version here, with the final :math:`-U`, is proven in the framework
    of Orabona & Crammer (2010). Proof:
    AROW is :math:`A_0 = rI`, :math:`A_t = A_{t-1} + x_t x_t^\top` and
    :math:`\theta \mathrel{+}= y_t x_t` on updates, with margin
    :math:`m_t = x_t^\top A_{t-1}^{-1}\theta_t`; then
    :math:`D_t - D_{t-1} = (c_t + 2y_t m_t - m_t^2)/(1 + c_t)`,
    :math:`c_t = x_t^\top A_{t-1}^{-1} x_t`, which is at most
    :math:`x_t^\top A_t^{-1} x_t` on a mistake and at most that plus 1 on a
    margin error, and :math:`\sum_S x_t^\top A_t^{-1} x_t \le \ln\det(I + X_S/r)`.
    """
    Z, u, hinge, (updated, mistaken), _ = _prepare(X, y, u, fit_intercept, {"updated": updated, "mistaken": mistaken})
    n_margin_errors = int(np.sum(updated & ~mistaken))
    quadratic, logdet = _first_order_terms(Z[updated], u, r)
    return float(hinge[updated].sum() + _root(quadratic, logdet + n_margin_errors) - n_margin_errors)


def sop_mistake_bound(X, y, u, a, mistaken, fit_intercept=False):
    r"""The Second-Order Perceptron: mistakes M against every u.

    Cesa-Bianchi, Conconi & Gentile (2005), Thm. 1 with margin 1: with
    :math:`X_M = \sum_{t \in M} x_t x_t^\top`,

    .. math:: M \le \sum_{t\in M}\ell^*_t
        + \sqrt{\big(a\|u\|^2 + u^\top X_M u\big)\,\ln\det(I + X_M/a)}.
    """
    Z, u, hinge, (mistaken,), _ = _prepare(X, y, u, fit_intercept, {"mistaken": mistaken})
    quadratic, logdet = _first_order_terms(Z[mistaken], u, a)
    return float(hinge[mistaken].sum() + _root(quadratic, logdet))


def narow_mistake_bound(X, y, u, b, updated, mistaken, fit_intercept=False):
    r"""NAROW (the paper's Fig. 1, full covariance): mistakes M against every u.

    The bound replays the precision matrices of the run: :math:`A_0 = I`,
    :math:`\chi_t = x_t^\top A_{t-1}^{-1} x_t`,
    :math:`1/r_t = \max(0, b - 1/\chi_t)` and, on the update rounds,
    :math:`A_t = A_{t-1} + x_t x_t^\top / r_t`. With
    :math:`\tilde\chi_t = x_t^\top A_t^{-1} x_t = \chi_t / (1 + \chi_t/r_t)`,

    .. math:: M \le \sum_{t\in S}\ell^*_t
        + \sqrt{u^\top A_T u\,\Big(\sum_{t\in S}\tilde\chi_t + 2U\Big)} - U.

    Proof: :math:`D_t \le D_{t-1} + 2y_t\tilde m_t + \tilde\chi_t`, where the
    paper's margin :math:`\tilde m_t = x_t^\top A_t^{-1}\theta_t` is
    :math:`\le 0` on a mistake and below 1 on a margin error.
    """
    Z, u, hinge, (updated, mistaken), _ = _prepare(X, y, u, fit_intercept, {"updated": updated, "mistaken": mistaken})
    A, shrunk, _ = narow_replay(Z[updated], b)
    n_margin_errors = int(np.sum(updated & ~mistaken))
    return float(hinge[updated].sum() + np.sqrt(float(u @ A @ u) * (shrunk + 2 * n_margin_errors)) - n_margin_errors)


def narow_replay(Z_S, b):
    """NAROW's precision matrices over the update rows Z_S (dense): (A_T, sum of chi~_t, 1/r_t of each row)."""
    A = np.eye(Z_S.shape[1])
    shrunk, inverse_rs = 0.0, []
    for x in Z_S:
        chi = float(x @ np.linalg.solve(A, x))
        inverse_r = max(0.0, b - 1.0 / chi) if chi > 0 else 0.0
        shrunk += chi / (1.0 + chi * inverse_r)
        A = A + inverse_r * np.outer(x, x)
        inverse_rs.append(inverse_r)
    return A, shrunk, np.array(inverse_rs)


# -- the bounds as Orabona & Crammer (NIPS 2010) write them ------------------------
#
# Each bounds M + U, the number of update rounds of the text's Fig. 1 algorithm
# with eta_t = 1 (theta <- theta + y_t x_t on a round with hinge loss at the
# margin y_t w_t.x_t, w_t = grad f_t^*(theta_t)), with L = sum over the update
# rounds of the competitor's hinge loss. The precision matrix changes only on
# update rounds (Sec. 4.2: the conservative version, on mistakes only, is SOP).


def _replay(Z, y, updated, inverse_r):
    """(chi_t, m_t, A_T) over the update rounds: A_0 = I, chi = x^T A^{-1} x, m = y x^T A^{-1} theta.

    ``inverse_r(chi)`` is 1/r_t (0 for r_t = +inf); A += x x^T / r_t, theta += y x.
    """
    A = np.eye(Z.shape[1])
    theta = np.zeros(Z.shape[1])
    chis, ms = [], []
    for x, label in zip(Z[updated], y[updated]):
        chi = float(x @ np.linalg.solve(A, x))
        ms.append(float(label * (x @ np.linalg.solve(A, theta))))
        chis.append(chi)
        A = A + inverse_r(chi) * np.outer(x, x)
        theta = theta + label * x
    return np.array(chis), np.array(ms), A


def orabona2010_arow_bound(X, y, u, r, updated, fit_intercept=False):
    r"""Orabona & Crammer (2010), Sec. 4.2: M + U of Fig. 1 with :math:`f_t(x) = \tfrac12 x^\top A_t x`.

    :math:`A_0 = I`, :math:`A_t = A_{t-1} + x_t x_t^\top / r` on the update
    rounds, :math:`\chi_t = x_t^\top A_{t-1}^{-1} x_t`,
    :math:`m_t = y_t x_t^\top A_{t-1}^{-1}\theta_t`:

    .. math:: M + U \le L + \sqrt{r\|u\|^2 + \sum_{t\in M\cup U}(u^\top x_t)^2}\;
        \sqrt{\log\det(A_T) + \sum_{t\in M\cup U}\frac{m_t(2r - m_t)}{r(r+\chi_t)}} .

    The text's aggressive algorithm is the "variant of AROW" that predicts
    with :math:`w_t = A_t^{-1}\theta_t` (:math:`y_t\, w_t\cdot x_t = m_t r/(r+\chi_t)`)
    and updates when that is below 1; its conservative version (U empty,
    updates on mistakes) is the Second-Order Perceptron with a = r, which the
    bound then covers. olearn's :class:`~olearn.second_order.AROW` is the
    AROW paper's learner; :func:`arow_mistake_bound` is its bound.
    """
    Z, u, hinge, (updated,), labels = _prepare(X, y, u, fit_intercept, {"updated": updated})
    quadratic = _quadratic(Z[updated], u, r)
    # replayed on rows scaled by 2^-e with r by 4^-e: A_T is the same, chi and m scale by 4^-e, the sum's terms not
    e = _exponent(Z)
    r = math.ldexp(r, -2 * e)
    chis, ms, A = _replay(np.ldexp(Z, -e), labels, updated, lambda chi: 1.0 / r)
    inside = np.linalg.slogdet(A)[1] + float(np.sum(ms * (2 * r - ms) / (r * (r + chis))))
    return float(hinge[updated].sum() + _root(quadratic, inside))


def orabona2010_diagonal_arow_bound(X, y, u, r, updated, mistaken, fit_intercept=False):
    r"""Orabona & Crammer (2010), Sec. 4.3: M + U of Fig. 1 with :math:`f_t(x) = \tfrac12 x^\top D_t x`, :math:`D_t = \mathrm{diag}(A_t)`.

    With the sums over the update rounds :math:`M\cup U`,

    .. math:: M + U \le L + \sqrt{\|u\|^2 + \frac1r\sum_{i=1}^d u_i^2\sum_{t\in M\cup U}x_{t,i}^2}\;
        \sqrt{r\sum_{i=1}^d\log\Big(\frac{\sum_{t\in M\cup U}x_{t,i}^2}{r} + 1\Big) + 2U} .

    (The text's footnote: the constant 2 of U was not optimized.) The 2U
    bounds :math:`\sum 2y_t\, w_t\cdot x_t` with :math:`w_t = D_t^{-1}\theta_t`
    of this algorithm: at most 0 on the rounds flagged ``mistaken``, below 2
    on the other update rounds. Replayed on the flagged update rounds, a
    round that breaks this (flags of another learner, e.g.
    ``AROW(covariance="diag")``, which updates elsewhere) is refused with a
    ValueError naming it.
    """
    Z, u, hinge, (updated, mistaken), labels = _prepare(X, y, u, fit_intercept,
                                                        {"updated": updated, "mistaken": mistaken})
    D, theta = np.ones(Z.shape[1]), np.zeros(Z.shape[1])
    for t in np.flatnonzero(updated):
        D = D + Z[t] ** 2 / r
        margin = float(labels[t] * (Z[t] @ (theta / D)))
        # the flags come from a run that decided at the same margin: a rounding's worth of slack
        slack = 1e-9 * (1.0 + float(np.abs(Z[t]) @ np.abs(theta / D)))
        if margin > (0.0 if mistaken[t] else 1.0) + slack:
            kind = "mistake" if mistaken[t] else "margin error"
            raise ValueError(f"row {t} is flagged as a {kind} but the text's diagonal AROW (Sec. 4.3), replayed on "
                             f"the flagged update rounds, has margin y w.x = {margin!r} there; the bound needs "
                             f"{'<= 0' if mistaken[t] else '< 1'}")
        theta = theta + labels[t] * Z[t]
    squares = np.sum(Z[updated] ** 2, axis=0)
    n_margin_errors = int(np.sum(updated & ~mistaken))
    quadratic = float(u @ u) + float(np.sum(u**2 * squares)) / r
    inside = r * float(np.sum(np.log(squares / r + 1.0))) + 2 * n_margin_errors
    return float(hinge[updated].sum() + np.sqrt(quadratic * inside))


def orabona2010_narow_bound(X, y, u, b, updated, fit_intercept=False):
    r"""Orabona & Crammer (2010), Sec. 5: M + U of NAROW (full matrix).

    :math:`r_t = \chi_t/(b\chi_t - 1)` when :math:`b\chi_t > 1`, else
    :math:`+\infty`; :math:`A_T = I + \sum_{t\in M\cup U} x_t x_t^\top / r_t`;
    :math:`R = \max_{t\in M\cup U}\|x_t\|`:

    .. math:: M + U \le L + \|u\| R\,\sqrt{\Big(\frac{1}{bR^2} + \log\det(A_T)\Big)
        \sum_{t\in M\cup U}\Big(\min(1, b\chi_t) + \frac{b\,m_t(2r_t - m_t)}{r_t + \chi_t}\Big)},

    with :math:`b\,m_t(2r_t - m_t)/(r_t+\chi_t) = 2bm_t` when :math:`r_t = +\infty`.
    **Sign:** the text prints :math:`-\,b\,m_t(2r_t - m_t)/(r_t + \chi_t)`;
    Corollary 2 gives +, as in the same term of Sec. 4.2
    (:math:`2y_t\, w_t\cdot x_t - m_t^2/(r_t+\chi_t) = m_t(2r_t - m_t)/(r_t+\chi_t)`),
    and with + the sum is :math:`2b f_T^*(\theta_{T+1}) \ge 0` as the
    derivation needs. The bound is used with +.
    """
    Z, u, hinge, (updated,), labels = _prepare(X, y, u, fit_intercept, {"updated": updated})

    def inverse_r(chi):
        return b - 1.0 / chi if b * chi > 1.0 else 0.0

    chis, ms, A = _replay(Z, labels, updated, inverse_r)
    gammas = np.array([inverse_r(chi) for chi in chis])
    # m (2r - m) / (r + chi) with gamma = 1/r: m (2 - gamma m) / (1 + gamma chi), 2m at gamma = 0
    terms = np.minimum(1.0, b * chis) + b * ms * (2.0 - gammas * ms) / (1.0 + gammas * chis)
    radius_sq = float(np.max(np.sum(Z[updated] ** 2, axis=1), initial=0.0))
    if radius_sq == 0.0:
        return float(hinge[updated].sum())
    inside = (1.0 / (b * radius_sq) + np.linalg.slogdet(A)[1]) * float(np.sum(terms))
    return float(hinge[updated].sum() + np.sqrt(float(u @ u) * radius_sq * max(inside, 0.0)))


def diagonal_narow_bound(X, y, u, b, updated, fit_intercept=False):
    r"""The diagonal NAROW (``NAROW(covariance="diag")``): M + U against every u.

    olearn's own bound for a learner the text does not state: Corollary 2 of
    Orabona & Crammer (2010) for their Fig. 1 with
    :math:`f_t(x) = \tfrac12 x^\top D_t x`, where on the update rounds
    :math:`D_t = D_{t-1} + \mathrm{diag}(x_t^2)/r_t`, :math:`D_0 = I`, and
    :math:`r_t` is NAROW's rule with :math:`\chi_t = x_t^\top D_{t-1}^{-1}x_t`.
    Its second bound with :math:`\eta_t = 1` reads
    :math:`M + U \le L + \sqrt{u^\top D_T u}\,\sqrt{\sum_{t\in M\cup U}
    (x_t^\top D_t^{-1}x_t + 2y_t\, w_t\cdot x_t) + 2B}`, and the sum under the
    second root telescopes to :math:`2f_T^*(\theta_{T+1})`:

    .. math:: M + U \le L + \sqrt{u^\top D_T u}\;\sqrt{\theta_{T+1}^\top D_T^{-1}\theta_{T+1}},
        \qquad \theta_{T+1} = \sum_{t\in M\cup U} y_t x_t .
    """
    Z, u, hinge, (updated,), labels = _prepare(X, y, u, fit_intercept, {"updated": updated})
    D = np.ones(Z.shape[1])
    for x in Z[updated]:
        chi = float(np.sum(x * x / D))
        D = D + (b - 1.0 / chi if b * chi > 1.0 else 0.0) * x * x
    theta = labels[updated] @ Z[updated]
    return float(hinge[updated].sum() + np.sqrt(float(u**2 @ D) * float(theta**2 @ (1.0 / D))))
