r"""Compiled second-order binary learners with a diagonal covariance, and AdaGrad.

The diagonal twin of :mod:`._second_order`: ``Sigma = diag(s)``, so a round
costs O(nnz(x)) and the move is

.. math:: w \leftarrow w + c\, \Sigma x, \qquad
    s_i^{-1} \leftarrow s_i^{-1} + \gamma\, x_i^2,

the diagonal of the precision update (Orabona & Crammer 2010, Sec. 4.3),
with ``c`` and ``gamma`` from the same :func:`._second_order.second_order_step`.
NAROW and the AROW of Orabona & Crammer's Sec. 4.3 are the exception: their
rank-one mean step holds only for a full matrix, so their diagonal round
(:func:`_fig1_diagonal`) is Orabona & Crammer's Fig. 1 with the potential
``x^T D_t x / 2``, ``D_t = diag(A_t)``, written per coordinate.
CW keeps instead the diagonal of the full covariance update,
``s_i <- s_i - gamma / (1 + gamma chi) s_i^2 x_i^2``: its gamma grows as the
variance shrinks, and the diagonal of the precision update, which shrinks
every coordinate of x as much as the full update shrinks the direction x,
then drives the variances to 0 (and gamma past overflow) within tens of
noisy rounds. The two diagonals agree on rows with one non-zero.

AdaGrad (``RULE_ADAGRAD``; Duchi, Hazan & Singer 2011, the diagonal
composite mirror descent without a regulariser) keeps instead the
accumulated squared gradients ``G`` in ``s``: on a round with hinge loss,
``G_i += x_i^2`` and ``w_i += eta y x_i / (delta + sqrt(G_i))``; an example of
importance c has the gradient ``-c y x``.

Importance weights and the average are those of :mod:`._second_order`; the
running sum of the average moves with the coordinates of w that the round
changes, so an averaged round stays O(nnz(x)) (the lazy trick).
"""

import math

import numpy as np

from ._jit import njit
from ._rows import csr_ends, row_bounds
from ._second_order import (
    K_RULE,
    Q_BIAS,
    Q_DELTA,
    Q_AVERAGE,
    Q_HYPER,
    RULE_ADAGRAD,
    RULE_CW,
    RULE_FIG1_AROW,
    RULE_NAROW,
    Z_T,
    averaged_rank,
    count_averaged,
    fig1_precision_step,
    predicting_score_row,
    second_order_step,
)
from ._second_order_codes import ADAGRAD_CHUNK
from ._totals import add_totals

# A multiple of the vector width: the steps are computed on whole vectors (harmless padding), no scalar tail
_LANES = 8


@njit(cache=True, inline="always")
def _entry(indices, data, k, hi, d, bias):
    """(index, value) of entry k of a row whose entries end at hi; k == hi is the constant feature."""
    if k < hi:
        return np.int64(indices[k]), data[k]
    return np.int64(d), bias


@njit(cache=True, inline="always")
def _checked_column(indices, k, above, bound, d):
    """Entry k's column of a row checked as it is read: (its weight's index, whether the row is still in order,
    one past the column).

    The row is in order when each column is at least one past the one before
    (``above``, 0 at the row's start) and below ``bound``: strictly increasing
    and below the width, as :func:`._rows.canonical_row` checks. Each index is
    read as a uint64 (a negative one reads as 2**63 or more). The weight's
    index is the column clamped to ``d`` (the intercept's slot), so that an
    entry not yet known to be in range is read in bounds; a row out of order
    stops before it moves anything, so what was read there never counts.
    """
    column = np.uint64(indices[k])
    return min(column, np.uint64(d)), (above <= column) & (column < bound), column + np.uint64(1)


@njit(cache=True)
def _sum_stays_finite(indices, data, lo, hi, d, bias, avg, jm1, change):
    """True when U_i + (j - 1) dw_i stays finite on the row's coordinates for every |dw_i| <= ``change``."""
    largest = 0.0
    for k in range(lo, hi + 1):
        i, _ = _entry(indices, data, k, hi, d, bias)
        largest = max(largest, abs(avg[i]))
    return math.isfinite(largest + jm1 * change)


@njit(cache=True, inline="always")
def _fig1_diagonal(indices, data, lo, hi, y, weight, w, s, avg, jm1, rule, hyper, bias, margin, chi, sqnorm,
                   largest_w, largest_s):
    """Orabona & Crammer 2010's Fig. 1 with D_t = diag(A_t): NAROW (Sec. 5) or the AROW of Sec. 4.3 (``rule``).

    With chi = x^T D_{t-1}^{-1} x and gamma = c/r_t for an example of weight c
    (r_t from :func:`._second_order.fig1_precision_step`; 0 when r_t is infinite), D_t = D_{t-1} + gamma diag(x^2); the round's
    margin is x^T D_t^{-1} theta_t; on a hinge loss theta += c y x and
    w = D_t^{-1} theta, coordinate by coordinate
    w_i <- (w_i + c y s_i x_i) / (1 + gamma s_i x_i^2),
    s_i <- s_i / (1 + gamma s_i x_i^2). tau is c (the text's eta_t = 1 times c).
    """
    d = w.size - 1
    gamma = weight * fig1_precision_step(rule, chi, hyper)
    paper_margin = 0.0
    for k in range(lo, hi + 1):
        i, v = _entry(indices, data, k, hi, d, bias)
        paper_margin += v * w[i] / (1.0 + gamma * s[i] * v * v)
    loss = max(0.0, 1.0 - y * paper_margin)
    if not loss > 0.0 or weight == 0.0:
        return margin, loss, 0.0, math.isfinite(paper_margin)
    # |w_i + c y s_i x_i| <= max |w| + c max s ||x||, and gamma s_i x_i^2 <= gamma chi
    if not (math.isfinite(largest_w + weight * largest_s * math.sqrt(sqnorm)) and math.isfinite(gamma * chi)):
        return margin, loss, weight, False
    # |dw_i| <= |w_i| + |w_i + c y s_i x_i|
    if jm1 != 0.0 and not _sum_stays_finite(indices, data, lo, hi, d, bias, avg, jm1,
                                            2.0 * largest_w + weight * largest_s * math.sqrt(sqnorm)):
        return margin, loss, weight, False
    step = weight * y
    for k in range(lo, hi + 1):
        i, v = _entry(indices, data, k, hi, d, bias)
        shrink = 1.0 + gamma * s[i] * v * v
        moved = (w[i] + step * s[i] * v) / shrink
        if jm1 != 0.0:
            avg[i] += jm1 * (moved - w[i])
        w[i] = moved
        s[i] /= shrink
    return margin, loss, weight, True


# Not inlined, and with NumPy's error model: Python's raises on a division by zero, a test
# and a branch per division that keep the loop of the steps from being vectorised. The steps
# of explicit zeros, which may divide 0 by 0 when delta = 0, are computed but never used;
# any other division has a positive denominator (delta > 0, or ``_accumulators_grow``).
@njit(cache=True, error_model="numpy", _nrt=False)
def _adagrad_chunk(indices, data, a, weight_sq, delta, w, s, avg, jm1, work):
    """AdaGrad's move on at most ``ADAGRAD_CHUNK`` entries of a row (views of its arrays).

    Three loops: the new accumulators ``G_i = s_i + c^2 x_i^2`` gathered into
    ``work``, the steps ``eta c y x_i / (delta + sqrt(G_i))`` computed on
    contiguous memory (a loop the compiler vectorises, so the square roots and
    divisions run several at a time), then both written back. A row's indices
    are distinct (the kernels' canonical form), so no entry reads what another
    one writes and the result is the one of a single loop, bit for bit.
    Explicit zeros of the row move nothing (their G and w stay as they are).
    The running sum of the average moves with w when ``jm1`` is not 0.
    """
    n = data.size
    padded = (n + _LANES - 1) // _LANES * _LANES
    G = work[:padded]
    steps = work[ADAGRAD_CHUNK:ADAGRAD_CHUNK + padded]
    for k in range(n):
        v = data[k]
        G[k] = s[np.uint32(indices[k])] + weight_sq * v * v
        steps[k] = a * v
    for k in range(n, padded):
        G[k] = 1.0
        steps[k] = 0.0
    for k in range(padded):
        steps[k] /= delta + math.sqrt(G[k])
    for k in range(n):
        if data[k] != 0.0:
            i = np.uint32(indices[k])
            s[i] = G[k]
            if jm1 != 0.0:
                avg[i] += jm1 * steps[k]
            w[i] += steps[k]


@njit(cache=True, inline="always")
def _adagrad_moves(indices, data, lo, hi, d, bias, a, weight_sq, delta, w, s, avg, jm1, work):
    """AdaGrad's move on the row's coordinates, chunk by chunk, then the intercept's.

    Each coordinate: G_i += c^2 x_i^2, w_i += eta c y x_i / (delta + sqrt(G_i)).
    """
    for start in range(lo, hi, ADAGRAD_CHUNK):
        stop = min(start + ADAGRAD_CHUNK, hi)
        _adagrad_chunk(indices[start:stop], data[start:stop], a, weight_sq, delta, w, s, avg, jm1, work)
    if bias != 0.0:
        g = s[d] + weight_sq * bias * bias
        s[d] = g
        step = a * bias / (delta + math.sqrt(g))
        if jm1 != 0.0:
            avg[d] += jm1 * step
        w[d] += step


@njit(cache=True, inline="always")
def _accumulators_grow(indices, data, lo, hi, d, bias, weight_sq, s):
    """Whether every coordinate the row moves has G_i > 0 after the round (with delta = 0 the step divides by
    sqrt(G_i), and c^2 x_i^2 can underflow to 0 for a tiny, nonzero x_i)."""
    for k in range(lo, hi):
        v = data[k]
        if v != 0.0 and s[indices[k]] + weight_sq * v * v == 0.0:
            return False
    return bias == 0.0 or s[d] + weight_sq * bias * bias != 0.0


@njit(cache=True, inline="always")
def _adagrad_round(indices, data, lo, hi, y, weight, w, s, avg, jm1, eta, delta, bias, work, bound=None):
    """:func:`diagonal_round` for AdaGrad (Duchi, Hazan & Singer 2011, Fig. 1, diagonal, hinge loss).

    Its own loops: the score's needs neither chi nor the rule's branches, and
    the update (:func:`_adagrad_moves`) computes its square roots and
    divisions a vector at a time.
    """
    d = w.size - 1
    margin = w[d] * bias
    sqnorm = bias * bias
    largest_w = abs(w[d])
    largest_s = s[d]
    # views of the row read at unsigned indices (checked non-negative where they enter):
    # no negative-index wrap-around per entry
    row_indices = indices[lo:hi]
    row_data = data[lo:hi]
    ordered = True
    above = np.uint64(0)
    for k in range(row_data.size):
        if bound is not None:
            i, in_order, above = _checked_column(row_indices, k, above, bound, d)
            ordered &= in_order
        else:
            i = np.uint32(row_indices[k])
        v = row_data[k]
        margin += w[i] * v
        sqnorm += v * v
        largest_w = max(largest_w, abs(w[i]))
        largest_s = max(largest_s, s[i])
    if not (ordered and math.isfinite(margin) and math.isfinite(sqnorm)):
        return margin, 0.0, 0.0, False
    loss = max(0.0, 1.0 - y * margin)
    if loss <= 0.0 or weight == 0.0:
        return margin, loss, 0.0, True
    # the gradient is -c y x; each coordinate moves by at most eta (|c x_i| / sqrt(G_i) <= 1, G_i holding c^2 x_i^2)
    if not (math.isfinite(largest_s + weight * weight * sqnorm) and math.isfinite(largest_w + eta)):
        return margin, loss, eta * weight, False
    if jm1 != 0.0 and not _sum_stays_finite(indices, data, lo, hi, d, bias, avg, jm1, eta):
        return margin, loss, eta * weight, False
    a = eta * weight * y
    weight_sq = weight * weight
    if delta == 0.0 and not _accumulators_grow(indices, data, lo, hi, d, bias, weight_sq, s):
        return margin, loss, eta * weight, False
    _adagrad_moves(indices, data, lo, hi, d, bias, a, weight_sq, delta, w, s, avg, jm1, work)
    return margin, loss, eta * weight, True


@njit(cache=True, inline="always")
def diagonal_round(indices, data, lo, hi, y, weight, w, s, avg, jm1, rule, hyper, delta, bias, work, bound=None):
    """Predict then learn one example of importance ``weight``; returns (score, loss, tau, ok).

    ``ok`` is False when the score, chi or the updated model could overflow;
    the model is then left exactly as it was. One pass gathers the score and
    the bounds of the check (largest |w_i| and s_i of the row, ||x||^2), a
    second one updates. ``jm1`` is as in :func:`._second_order.full_round`.
    ``bound`` (a uint64; None for rows already checked): the first pass also
    checks the row's columns (:func:`_checked_column`), and a row out of order
    returns ``ok`` False before anything moves.
    """
    if rule == RULE_ADAGRAD:
        return _adagrad_round(indices, data, lo, hi, y, weight, w, s, avg, jm1, hyper, delta, bias, work, bound)
    d = w.size - 1
    margin = w[d] * bias
    chi = s[d] * bias * bias
    sqnorm = bias * bias
    largest_w = abs(w[d])
    largest_s = s[d]
    ordered = True
    above = np.uint64(0)
    for k in range(lo, hi):
        if bound is not None:
            i, in_order, above = _checked_column(indices, k, above, bound, d)
            ordered &= in_order
        else:
            i = np.uint32(indices[k])
        v = data[k]
        margin += w[i] * v
        chi += s[i] * v * v
        sqnorm += v * v
        largest_w = max(largest_w, abs(w[i]))
        largest_s = max(largest_s, s[i])
    if not (ordered and math.isfinite(margin) and math.isfinite(sqnorm)):
        return margin, 0.0, 0.0, False
    if not math.isfinite(chi):
        return margin, 0.0, 0.0, False
    if rule == RULE_NAROW or rule == RULE_FIG1_AROW:
        return _fig1_diagonal(indices, data, lo, hi, y, weight, w, s, avg, jm1, rule, hyper, bias, margin, chi,
                              sqnorm, largest_w, largest_s)
    loss, c, gamma, tau = second_order_step(rule, y, margin, chi, hyper, weight)
    if c == 0.0 and gamma == 0.0:
        return margin, loss, tau, True
    # |c s_i x_i| <= |c| max s_i ||x||, and gamma s_i x_i^2 <= gamma chi
    if not (math.isfinite(largest_w + abs(c) * largest_s * math.sqrt(sqnorm)) and math.isfinite(gamma * chi)):
        return margin, loss, tau, False
    if jm1 != 0.0 and not _sum_stays_finite(indices, data, lo, hi, d, bias, avg, jm1,
                                            abs(c) * largest_s * math.sqrt(sqnorm)):
        return margin, loss, tau, False
    if jm1 != 0.0:
        # the running sum of the average moves with w (U_i += (j - 1) dw_i), on the row's coordinates only
        for k in range(lo, hi + 1):
            i, v = _entry(indices, data, k, hi, d, bias)
            avg[i] += jm1 * c * s[i] * v
    if rule == RULE_CW:
        shrink = gamma / (1.0 + gamma * chi)
        for k in range(lo, hi + 1):
            i, v = _entry(indices, data, k, hi, d, bias)
            w[i] += c * s[i] * v
            s[i] -= shrink * s[i] * s[i] * v * v
    else:
        for k in range(lo, hi + 1):
            i, v = _entry(indices, data, k, hi, d, bias)
            w[i] += c * s[i] * v
            s[i] /= 1.0 + gamma * s[i] * v * v
    return margin, loss, tau, True


# Compiled without numba's reference counting, as ``_binary_linear.binary_linear_pass``
# (its comment says why): the pass allocates nothing and keeps no array.
@njit(cache=True, _nrt=False)
def diagonal_pass(indptr, indices, data, y, weights, w, s, state, avg, avg_count, params, codes, work,
                  scores, losses, taus, totals, width=None, held=None):
    """Progressive validation over the rows of a CSR matrix with a diagonal covariance.

    ``weights``, ``avg`` and ``avg_count`` are as in
    :func:`._second_order.full_pass`. Per-round outputs are written when they
    have one slot per row (empty arrays keep only ``totals``). Returns -1, or
    the index of the row at which learning stopped on an overflow.
    ``width``: see :func:`checking_diagonal_pass` (then a row that fails its
    checks stops the pass too, as an overflow does: the rounds' ``bound`` is
    the width, at most the weights' size); left out (None), numba prunes the
    checks before it compiles them, as in
    :func:`._binary_linear.binary_linear_pass`; ``held``: see
    :func:`held_out_diagonal_pass`.
    """
    record = scores.size > 0
    weighted = weights.size > 0
    rule = codes[K_RULE]
    hyper = params[Q_HYPER]
    delta = params[Q_DELTA]
    bias = params[Q_BIAS]
    first = params[Q_AVERAGE]
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    if width is not None:
        if not csr_ends(indptr, indices.size, data.size):
            n = 0
            stopped = 0
        bound = min(np.uint64(width), np.uint64(w.size - 1))
    n_held = 0
    for i in range(n):
        if held is not None and held[i]:
            # a held-out row is scored as decision_function scores it, and nothing more
            n_held += 1
            if record:
                scores[i] = predicting_score_row(indices, data, indptr[i], indptr[i + 1], w, avg, avg_count, bias)
                losses[i] = 0.0
                taus[i] = 0.0
            continue
        weight = weights[i] if weighted else 1.0
        jm1 = averaged_rank(state, avg, avg_count, first)
        if width is not None:
            if not row_bounds(indptr, i, indices.size):
                stopped = i
                n = i
                break
            score, loss, tau, ok = diagonal_round(
                indices, data, indptr[i], indptr[i + 1], y[i], weight, w, s, avg, jm1, rule, hyper, delta, bias, work,
                bound
            )
        else:
            score, loss, tau, ok = diagonal_round(
                indices, data, indptr[i], indptr[i + 1], y[i], weight, w, s, avg, jm1, rule, hyper, delta, bias, work
            )
        if not ok:
            stopped = i
            n = i
            break
        state[Z_T] += 1.0
        count_averaged(state, avg, avg_count, first)
        if record:
            scores[i] = score
            losses[i] = loss
            taus[i] = tau
        if y[i] * score <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True, _nrt=False)
def held_out_diagonal_pass(indptr, indices, data, y, weights, held, w, s, state, avg, avg_count, params, codes, work,
                           scores, losses, taus, totals):
    """:func:`diagonal_pass` where the rows with ``held[i]`` are held out: scored, never learned.

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk: a held-out row's score is
    :func:`._second_order.mean_score_row`'s on the mean of its moment (that of
    ``decision_function``), recorded with loss and tau 0 when the pass
    records; it is no round of the totals or of the round counter, and it
    moves nothing. With averaging the score is the averaged mean's
    (:func:`._second_order.predicting_score_row`), and the row is no tick of
    the average. The other rows are learned exactly as by
    :func:`diagonal_pass` on them alone. The rows must be checked (no
    ``width``).
    """
    return diagonal_pass(indptr, indices, data, y, weights, w, s, state, avg, avg_count, params, codes, work, scores,
                         losses, taus, totals, None, held)


@njit(cache=True, _nrt=False)
def checking_diagonal_pass(indptr, indices, data, width, y, weights, w, s, state, avg, avg_count, params, codes, work,
                           scores, losses, taus, totals):
    """:func:`diagonal_pass` over CSR arrays it checks itself, each row just before it reads it.

    The checks and what a stop means are those of
    :func:`._binary_linear.checking_linear_pass`: ``width`` (a uint64) is the
    matrix's number of columns; bad ends of ``indptr`` (:func:`._rows.csr_ends`),
    a row whose bounds are not :func:`._rows.row_bounds`, or whose columns do
    not strictly increase below the width and the weights' size, stops the
    pass, and a non-finite value stops its row through the score or ||x||^2
    before the model moves, as an overflow does. The returned row does not
    tell the two apart: the caller puts the learner back and checks the batch
    with ``check_X``.

    The columns are checked in the loop of the score, as it reads them
    (:func:`_checked_column`), not by :func:`._rows.canonical_row` before it:
    in this pass, whose rounds leave the processor no idle slots for it, a
    loop of its own over the row's indices cost 7-12 ms over the 12 million
    entries of the reference stream, more than ``check_X``'s separate read
    (~5 ms); in the score's loop 1-6 ms.
    """
    return diagonal_pass(indptr, indices, data, y, weights, w, s, state, avg, avg_count, params, codes, work,
                         scores, losses, taus, totals, width)


@njit(cache=True)
def diagonal_learn_one(indices, data, y, weight, w, s, state, avg, avg_count, params, codes, work):
    """``diagonal_round`` for a single example held in its own arrays; returns (score, ok)."""
    first = params[Q_AVERAGE]
    jm1 = averaged_rank(state, avg, avg_count, first)
    score, _, _, ok = diagonal_round(
        indices, data, 0, indices.size, y, weight, w, s, avg, jm1, codes[K_RULE], params[Q_HYPER],
        params[Q_DELTA], params[Q_BIAS], work
    )
    if ok:
        state[Z_T] += 1.0
        count_averaged(state, avg, avg_count, first)
    return score, ok
