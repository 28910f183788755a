r"""The rows of :func:`olearn.bounds.bound_report` for Winnow and DualAscent.

Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
COLT 2006: Example 2 (Winnow, the entropic instance of Thm. 1), Example 3
(the p-norm instance), Thm. 3 and Eq. (30) (the aggressive dual update), as
:mod:`olearn.bounds._dual` states them for a competitor u. Each bound holds
for every admissible u (and, where the learner does not depend on it, every
margin :math:`\gamma`), so the report takes the smallest value found over a
few candidates: the unit directions of the classification report
(LinearSVC solutions and the mean of :math:`y_t x_t`), scaled along a grid;
for the entropic regularizers scaled into :math:`\|u\|_1 \le 1` (Balanced
Winnow's 2n-simplex, or mixed with the uniform point of the n-simplex for
the plain form).

The entropic F counts the learner's coordinates: Winnow's mistakes do not
depend on their number (the normaliser is positive), but the aggressive
entropic step does, so an aggressive entropic DualAscent with a fixed
``n_features`` beyond X's columns is refused (ValueError); features first
seen late are fine, since adding a coordinate with :math:`\theta_i = 0` only
raises the dual.
"""

import math
from dataclasses import replace

import numpy as np

from ..dual import DualAscent
from ..quasi_additive import Winnow
from ._dual import (
    _check_thm3,
    _max_abs_rows,
    _winnow_prior,
    aggressive_dual_loss_bound,
    aggressive_dual_mistake_bound,
    mitigating_function,
    pnorm_mistake_bound,
    regularizer_value,
    winnow_gamma_bound,
    winnow_mistake_bound,
)
from ._report_competitors import _directions, scales_spanning
from ._report_rows import MISTAKES, _report, _row
from ._report_run import _unweighted_stream
from ._theorems import thm2_minimum

WINNOW = "Shalev-Shwartz & Singer 2006, Example 2 (Winnow, Thm. 1, best gamma)"
WINNOW_GAMMA = "Shalev-Shwartz & Singer 2006, Example 2 (Winnow, C = gamma)"
DUAL_LOSS = "Shalev-Shwartz & Singer 2006, Thm. 3 (aggressive dual update)"
DUAL_MISTAKES = "Shalev-Shwartz & Singer 2006, Eq. (30) (aggressive dual update)"
DUAL_ENTROPY = "Shalev-Shwartz & Singer 2006, Example 2 (conservative dual update, entropy, best gamma)"
DUAL_PNORM = "Shalev-Shwartz & Singer 2006, Example 3 (conservative dual update, best C)"
MITIGATED_LOSS = "sum of mu(hinge losses)"

# the scales of a unit (l1) direction inside the l1 ball, and of a unit (l2) direction in the unbounded geometries
_L1_SCALES = np.geomspace(1e-3, 1.0, 40)


def winnow_report(estimator, X, y, result, u):
    """Winnow's rows: Example 2's bound (Thm. 1, minimised over gamma) and its C = gamma form."""
    stream, given = _unweighted_stream(estimator, X, y, result, u)
    rows, skipped = [], []
    balanced, C = bool(estimator.balanced), float(estimator.C)
    candidates = _given(stream, given) if given is not None else _simplex_candidates(stream, balanced)
    _add_entropic(rows, skipped, WINNOW, stream, candidates, given, C, balanced, result.n_mistakes,
                  lambda v, gamma: winnow_mistake_bound(X, y, v, C, gamma, None, estimator.fit_intercept, balanced))
    rows_inf = _max_abs_rows(stream)
    if rows_inf.size and rows_inf.max() > 1.0:
        worst = int(np.argmax(rows_inf))
        skipped.append((WINNOW_GAMMA, f"it assumes ||x_t||_inf <= 1; row {worst} has {rows_inf[worst]:.6g}"))
        return _report(estimator, result, rows, skipped)
    # F(u) is replaced by its largest value ln N: the best u has the smallest hinge loss at margin C
    log_n = _winnow_prior(np.zeros(stream.Z.shape[1]), balanced)[1]

    def gamma_form(v, margins):
        if math.isinf(_winnow_prior(v, balanced)[0]):
            return math.inf, 0.0
        loss = float(np.maximum(0.0, C - margins).sum())
        return 2.0 * (log_n / C / C + loss / C), loss  # C**2 would underflow to 0 (see winnow_gamma_bound)

    v = _smallest(candidates, lambda v, m: gamma_form(v, m)[0])
    if v is None:
        skipped.append((WINNOW_GAMMA, _outside_domain(balanced, given)))
    else:
        bound = winnow_gamma_bound(X, y, v, C, None, estimator.fit_intercept, balanced)
        rows.append(_row(WINNOW_GAMMA, MISTAKES, result.n_mistakes, bound, v, gamma_form(v, stream.margins(v))[1]))
    return _report(estimator, result, rows, skipped)


def dual_ascent_report(estimator, X, y, result, u):
    """DualAscent's rows: Thm. 3 and Eq. (30) for the aggressive updates, Thm. 1's instances for the conservative."""
    stream, given = _unweighted_stream(estimator, X, y, result, u)
    rows, skipped = [], []
    regularizer, C, gamma = estimator.regularizer, float(estimator.C), float(estimator.gamma)
    p = 2.0 if regularizer == "l2" else float(estimator.p)
    fit_intercept = estimator.fit_intercept
    directions = None if given is not None else _directions(stream)
    if estimator.update == "conservative":
        if regularizer == "entropy":
            # the learner is Balanced Winnow with step C; its learner-given gamma does not enter the update
            candidates = _given(stream, given) if given is not None else _simplex_candidates(stream, True, directions)
            _add_entropic(rows, skipped, DUAL_ENTROPY, stream, candidates, given, C, True, result.n_mistakes,
                          lambda v, g: winnow_mistake_bound(X, y, v, C, g, None, fit_intercept, True))
            return _report(estimator, result, rows, skipped)
        # w = grad F*(theta) is homogeneous in theta: the mistakes do not depend on C, the bound is its minimum
        q = p / (p - 1.0)
        r_p2 = float(np.asarray(abs(stream.Z).power(p).sum(axis=1)).max()) ** (2.0 / p)

        def example3(v, margins):
            loss = float(np.maximum(0.0, 1.0 - margins).sum())
            return thm2_minimum(loss, (p - 1.0) * r_p2 * float(np.linalg.norm(v, q)) ** 2), loss

        v = given if given is not None else _smallest(_rays(stream, directions), lambda v, m: example3(v, m)[0])
        bound = pnorm_mistake_bound(X, y, v, p, None, fit_intercept)
        rows.append(_row(DUAL_PNORM, MISTAKES, result.n_mistakes, bound, v, example3(v, stream.margins(v))[1]))
        return _report(estimator, result, rows, skipped)
    columns = stream.Z.shape[1] - int(bool(fit_intercept))
    if regularizer == "entropy" and estimator.n_features is not None and estimator.n_features > columns:
        # the aggressive step depends on the normaliser over every coordinate, so the prior must be the learner's
        raise ValueError(
            f"{estimator!r} normalises its weights over its n_features={estimator.n_features} coordinates, which "
            f"Thm. 3's entropy counts; X has {columns} columns: pass X with {estimator.n_features} columns"
        )
    try:
        _check_thm3(stream, regularizer, p)
    except ValueError as problem:
        skipped.extend((theorem, str(problem)) for theorem in (DUAL_LOSS, DUAL_MISTAKES))
        return _report(estimator, result, rows, skipped)

    def thm3(v, margins):
        # F(u)/C + sum_t [gamma - y_t u.x_t]_+; Eq. (30) is C times it over C mu(gamma): the same best u
        loss = float(np.maximum(0.0, gamma - margins).sum())
        return regularizer_value(v, regularizer, p) / C + loss, loss

    if given is not None:
        v = given
    elif regularizer == "entropy":
        v = _smallest(_simplex_candidates(stream, True, directions), lambda v, m: thm3(v, m)[0])
    else:
        v = _smallest(_rays(stream, directions), lambda v, m: thm3(v, m)[0])
    if v is None or math.isinf(thm3(v, stream.margins(v))[0]):
        skipped.extend((theorem, _outside_domain(True, given)) for theorem in (DUAL_LOSS, DUAL_MISTAKES))
        return _report(estimator, result, rows, skipped)
    settings = {"regularizer": regularizer, "p": p, "gamma": gamma, "fit_intercept": fit_intercept}
    loss = thm3(v, stream.margins(v))[1]
    rows.append(_row(DUAL_LOSS, MITIGATED_LOSS, float(np.sum(mitigating_function(result.losses, C))),
                     aggressive_dual_loss_bound(X, y, v, C, **settings), v, loss))
    rows.append(_row(DUAL_MISTAKES, MISTAKES, result.n_mistakes,
                     aggressive_dual_mistake_bound(X, y, v, C, **settings), v, loss))
    return _report(estimator, result, rows, skipped)


def _add_entropic(rows, skipped, theorem, stream, candidates, given, C, balanced, measured, library_bound):
    """A row of Thm. 1 with Winnow's F: the candidate and margin gamma with the smallest bound.

    The bound :math:`(F(u) + C\\sum_{t}[\\gamma - y_t u\\cdot x_t]_+)/(C(\\gamma - CR_\\infty^2/2))`
    (the sum over every round, the text's form) is monotone in gamma
    between the margins of u, so its minimum over
    :math:`\\gamma > CR_\\infty^2/2` is at one of them (or beyond them all,
    where it tends to the number of rounds).
    """
    r_inf2 = float(abs(stream.Z).max()) ** 2 if stream.Z.nnz else 0.0
    floor = 0.5 * C * r_inf2
    best = (math.inf, None, None)
    for v, margins in candidates:
        prior = _winnow_prior(v, balanced)[0]
        if math.isinf(prior):
            continue
        margins = np.sort(margins)
        gammas = np.unique(np.append(margins[margins > floor], 2.0 * floor if floor > 0 else 1.0))
        below = np.searchsorted(margins, gammas, side="right")
        losses = below * gammas - np.append(0.0, np.cumsum(margins))[below]
        values = (prior + C * losses) / (C * (gammas - floor))
        i = int(np.argmin(values))
        if values[i] < best[0]:
            best = (float(values[i]), v, float(gammas[i]))
    _, v, gamma = best
    if v is None:
        skipped.append((theorem, _outside_domain(balanced, given)))
        return
    loss = float(np.maximum(0.0, gamma - stream.margins(v)).sum())
    row = _row(theorem, MISTAKES, measured, library_bound(v, gamma), v, loss)
    rows.append(replace(row, gamma=gamma))


# The candidates are pairs (u, margins y_t u.x_t): the margins of a scaled or mixed direction are those of
# the direction scaled or mixed alike, so each direction's are computed once.


def _given(stream, u):
    return [(u, stream.margins(u))]


def _simplex_candidates(stream, balanced, directions=None):
    """Candidates in Winnow's domain: l1-unit directions scaled into the l1 ball (balanced), or their positive
    parts, normalised, mixed with the uniform point of the n-simplex (plain)."""
    if directions is None:
        directions = _directions(stream)
    n = stream.Z.shape[1]
    uniform = np.full(n, 1.0 / n)
    at_uniform = stream.margins(uniform)
    candidates = []
    for v in directions:
        if balanced:
            v = v / np.abs(v).sum()
            margins = stream.margins(v)
            candidates.extend((s * v, s * margins) for s in _L1_SCALES)
        elif (v > 0).any():
            top = np.maximum(v, 0.0) / np.maximum(v, 0.0).sum()
            margins = stream.margins(top)
            candidates.extend((s * top + (1.0 - s) * uniform, s * margins + (1.0 - s) * at_uniform)
                              for s in np.linspace(0.0, 1.0, 41))
    return candidates or [(uniform, at_uniform)]


def _rays(stream, directions):
    """Each unit direction on a log grid of scales spanning its margins (u = 0 first)."""
    candidates = [(np.zeros(stream.Z.shape[1]), np.zeros(stream.y.size))]
    for v in directions:
        margins = stream.margins(v)
        size = np.abs(margins)
        if (size > 0).any():
            candidates.extend((s * v, s * margins) for s in scales_spanning(size))
    return candidates


def _smallest(candidates, value_of):
    """The u of the candidate (u, margins) with the smallest finite value_of(u, margins), or None."""
    values = [value_of(v, margins) for v, margins in candidates]
    i = int(np.argmin(values))
    return None if math.isinf(values[i]) else candidates[i][0]


def _outside_domain(balanced, given):
    domain = "||u||_1 <= 1" if balanced else "u on the n-simplex (u >= 0, sum 1)"
    if given is None:
        return f"no candidate competitor has {domain}"
    return f"it needs {domain}; the given u is outside"


DUAL_REPORTS = {Winnow: winnow_report, DualAscent: dual_ascent_report}
