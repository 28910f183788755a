r"""Compiled passive-aggressive uniclass prediction (Crammer et al. 2006, Sec. 6).

There is no input x: the learner keeps a center w and a radius, and each round
brings a vector y. The loss is the distance from y to the ball,
``max(0, ||y - w|| - radius)``, the virtual instance is the unit vector
``z = (y - w) / ||y - w||`` (so ``s = ||z||^2 = 1``), and the shared PA step rule
gives tau. With the radius learned, the center lives in n + 1 dimensions: its
last coordinate ``a`` sets the radius ``sqrt(B^2 - a^2)``, and each y is lifted
to ``(y, 0)``; the fixed-radius update in the lifted space with radius B is the
whole algorithm (Sec. 6, Eq. (32); see :class:`olearn.uniclass.PAUniclass`).

The state keeps the gap ``g = B - a`` rather than ``a``: Sec. 6 wants B far
above any radius, so ``a`` sits within a hair of B and ``B - a``, ``B^2 - a^2``
and ``||(y - w, a)|| - B`` would each lose all their digits to cancellation.
In terms of g, ``B^2 - a^2 = g (2B - g)``, the lifted loss is
``(||y - w||^2 - g (2B - g)) / (||(y - w, a)|| + B)`` and the update
``a <- a (1 - c)`` is ``g <- g + c (B - g)``, all free of cancellation.

The residual ``y - w`` is written into a scratch vector once per round, so that
both the distance and the update use the same, exactly rounded, differences.

Each vector may carry an importance weight (``weights``, empty for none): C
becomes weight * C (:func:`._steps.weighted_pa_step`).
"""

import math

import numpy as np

from ._jit import njit
from ._steps import weighted_pa_step
from ._totals import add_totals

# Layout of the float64 `params` array.
U_C = 0
U_EPSILON = 1  # radius of the ball when it is not learned
U_BOUND = 2  # B: an upper bound on the radius when it is learned
N_UNICLASS_PARAMS = 3

# Layout of the int64 `codes` array.
U_STEP = 0  # STEP_PA, STEP_PA1 or STEP_PA2 of ._codes
U_LEARN_RADIUS = 1  # 1: learn the radius by the lift to n + 1 dimensions
N_UNICLASS_CODES = 2

# Layout of the float64 `state` array (besides the center).
U_GAP = 0  # B - a, a the lifted coordinate; radius^2 = g (2B - g). Starts at 0 (a = B, radius 0).
N_UNICLASS_STATE = 1

# the ``held`` of a pass that holds no row out (see :func:`held_out_uniclass_pass`)
_NONE_HELD = np.zeros(0, dtype=np.bool_)


@njit(cache=True)
def uniclass_radius(state, params, codes):
    """The radius of the current ball."""
    if codes[U_LEARN_RADIUS] != 0:
        gap = state[U_GAP]
        return math.sqrt(gap * (2.0 * params[U_BOUND] - gap))
    return params[U_EPSILON]


@njit(cache=True, inline="always")
def uniclass_round(indices, data, lo, hi, weight, w, state, rule, learn_radius, C, epsilon, bound, residual):
    """Predict then learn one vector y = data[lo:hi] of importance ``weight``; returns (margin, loss, tau, ok).

    ``margin`` is radius - ||y - w|| (negative outside the ball). ``ok`` is
    False when ||y - w||^2 is not finite; the model is then left untouched.
    """
    d = w.size
    for j in range(d):
        residual[j] = -w[j]
    for k in range(lo, hi):
        residual[indices[k]] += data[k]
    dist2 = 0.0
    for j in range(d):
        dist2 += residual[j] * residual[j]
    if not math.isfinite(dist2):
        return 0.0, 0.0, 0.0, False
    dist = math.sqrt(dist2)
    gap = state[U_GAP]
    a = bound - gap
    if learn_radius:
        radius2 = gap * (2.0 * bound - gap)
        radius = math.sqrt(radius2)
        norm = math.sqrt(dist2 + a * a)
        # norm - B without cancellation: (norm^2 - B^2) / (norm + B), norm^2 - B^2 = dist^2 - radius^2
        loss = max(0.0, (dist2 - radius2) / (norm + bound))
    else:
        radius = epsilon
        norm = dist
        loss = max(0.0, dist - epsilon)
    tau = weighted_pa_step(rule, loss, 1.0, C, weight)
    if tau > 0.0:
        # tau < norm (the loss is below the distance), so the center moves
        # along a segment towards y and stays finite
        c = tau / norm
        for j in range(d):
            w[j] += c * residual[j]
        if learn_radius:
            # a (1 - c) >= 0: the gap never passes B, whatever the rounding
            state[U_GAP] = min(gap + c * a, bound)
    return radius - dist, loss, tau, True


@njit(cache=True)
def uniclass_pass(indptr, indices, data, weights, w, state, params, codes, residual, margins, losses, taus, totals):
    """Progressive validation over the rows of a CSR matrix of vectors y, in order.

    ``weights`` holds the importance weight of each row (empty: all 1). ``residual`` is scratch of the center's size. A round is a mistake when y
    falls outside the ball (its loss is > 0). Per-round margins, losses and
    taus are written when the output arrays have one slot per row. Returns -1,
    or the index of the row at which learning stopped because ||y - w||^2
    overflowed.
    """
    return uniclass_rows(indptr, indices, data, weights, w, state, params, codes, residual, margins, losses, taus,
                         totals, _NONE_HELD)


@njit(cache=True)
def held_out_uniclass_pass(indptr, indices, data, weights, held, w, state, params, codes, residual, margins, losses,
                           taus, totals):
    """:func:`uniclass_pass` where the rows with ``held[i]`` are held out: measured, never learned.

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk. A held-out row's margin is
    ``decision_function``'s on the ball of its moment (:func:`uniclass_margins`
    with :func:`uniclass_radius`), recorded with loss and tau 0; it is no round
    of the totals and moves nothing. The other rows are learned exactly as by
    :func:`uniclass_pass` on them alone. Every row is recorded.
    """
    return uniclass_rows(indptr, indices, data, weights, w, state, params, codes, residual, margins, losses, taus,
                         totals, held)


@njit(cache=True, inline="always")
def uniclass_rows(indptr, indices, data, weights, w, state, params, codes, residual, margins, losses, taus, totals,
                  held):
    """The loop of the passes; ``held`` as in :func:`held_out_uniclass_pass` (empty: no row is held out)."""
    record = margins.size > 0
    holding = held.size > 0
    weighted = weights.size > 0
    rule = codes[U_STEP]
    learn_radius = codes[U_LEARN_RADIUS] != 0
    C = params[U_C]
    epsilon = params[U_EPSILON]
    bound = params[U_BOUND]
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_held = 0
    for i in range(n):
        if holding and held[i]:
            n_held += 1
            uniclass_margins(indptr[i:i + 2], indices, data, w, uniclass_radius(state, params, codes), residual,
                             margins[i:i + 1])
            losses[i] = 0.0
            taus[i] = 0.0
            continue
        margin, loss, tau, ok = uniclass_round(
            indices, data, indptr[i], indptr[i + 1], weights[i] if weighted else 1.0, w, state, rule, learn_radius, C,
            epsilon, bound, residual,
        )
        if not ok:
            stopped = i
            n = i
            break
        if record:
            margins[i] = margin
            losses[i] = loss
            taus[i] = tau
        if loss > 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True)
def uniclass_margins(indptr, indices, data, w, radius, residual, out):
    """radius - ||y - w|| for every row y of a CSR matrix."""
    d = w.size
    for i in range(indptr.size - 1):
        for j in range(d):
            residual[j] = -w[j]
        for k in range(indptr[i], indptr[i + 1]):
            residual[indices[k]] += data[k]
        dist2 = 0.0
        for j in range(d):
            dist2 += residual[j] * residual[j]
        out[i] = radius - math.sqrt(dist2)
