"""Dual ascent on several dual variables: the last-k update and the Online-SVM.

Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*
(COLT 2006), Eq. (31): on round t the learner maximizes the dual

    D(alpha) = gamma sum_i alpha_i - F*(sum_i alpha_i y_i x_i),  0 <= alpha_i <= C,

over the variables of a set I_t of examples, the others held fixed: the last k
examples (``UPDATE_LAST_K``; k = 1 is PA-I in the Euclidean geometry) or all of
them (``UPDATE_ALL``, I_t = [t], the Online-SVM). The sub-problem is solved by
cyclic coordinate ascent with an exact one-dimensional maximization per
coordinate (closed form for L2 through the shared PA-I step, bisection on the
derivative of the concave 1-d problem otherwise) until every KKT violation is
at most ``tol`` (or ``MAX_SWEEPS`` sweeps). Each coordinate step maximizes D
along its coordinate, so D never decreases.

The examples travel as one CSR store: the rows kept from earlier rounds
followed by the new batch, each with its own intercept value ``row_bias``, its
importance weight ``row_weight`` and its dual variable ``alpha``. A zero
instance (x = 0, no intercept) moves no weight whatever its alpha; D grows as
gamma alpha along its coordinate, so Eq. (31) sets its alpha to the top of its
box, C (c C with an importance weight c), as the batch optimum does.

Importance weights (beyond the text): the primal ``F(w) + C sum_i c_i loss_i``
has the dual boxes ``0 <= alpha_i <= c_i C``, so a row of weight c is solved in
its own box, and a row of weight 0 keeps alpha = 0. An example of integer
weight c and c copies of it have the same dual optimum (only the sum of the
copies' variables enters theta and D, and it ranges over [0, c C]).
"""

import math

from ._codes import STEP_PA1
from ._jit import njit
from ._quasi_additive import (
    LINK_L2,
    Q_BIAS,
    Q_C,
    Q_GAMMA,
    Q_K,
    Q_LINK,
    Q_P,
    Q_TOL,
    Q_UPDATE,
    S_DUAL,
    S_SUM_ALPHA,
    S_T,
    averaged_rank,
    commit,
    count_averaged,
    dual_sqnorm,
    euclidean_sqnorm,
    link,
    refresh_dual,
    score_row,
)
from ._second_order import predicting_score_row
from ._steps import pa_step
from ._totals import add_totals

UPDATE_LAST_K = 2  # I_t = the last k examples, Eq. (31)
UPDATE_ALL = 3  # I_t = [t]: the Online-SVM

# Cap on the sweeps of coordinate ascent within one round; D still never decreases.
MAX_SWEEPS = 1000
# Bisection steps of a 1-d maximization: C / 2^100 is below any useful precision.
BISECTION_STEPS = 100


@njit(cache=True)
def slope_along(indices, data, lo, hi, bias, y, shift, theta, work, work_w, link_code, p, gamma, intercept):
    """d/da of gamma a - F*(theta + a y x) at a = shift (relative to the current theta).

    Equal to gamma - y x.g(theta + shift y x); ``work`` holds a copy of theta on
    entry and is restored on exit; ``work_w`` receives the weights.
    """
    d = theta.size - 1
    for k in range(lo, hi):
        work[indices[k]] = theta[indices[k]] + shift * y * data[k]
    work[d] = theta[d] + shift * y * bias
    link(work, work_w, link_code, p, intercept)
    slope = gamma - y * score_row(indices, data, lo, hi, bias, work_w)
    for k in range(lo, hi):
        work[indices[k]] = theta[indices[k]]
    work[d] = theta[d]
    return slope


@njit(cache=True)
def best_alpha(indices, data, lo, hi, bias, y, alpha, C, theta, w, work, work_w, params, link_code):
    """argmax over a in [0, C] of gamma a - F*(theta + (a - alpha) y x): the exact 1-d step (C: the row's box)."""
    gamma = params[Q_GAMMA]
    p = params[Q_P]
    if link_code == LINK_L2:
        # gamma - y theta_0.x with theta_0 = theta - alpha y x, the loss of the coordinate's own problem
        s = euclidean_sqnorm(data, lo, hi, bias)
        loss = gamma - y * score_row(indices, data, lo, hi, bias, w) + alpha * s
        return pa_step(STEP_PA1, loss, s, C)
    intercept = params[Q_BIAS]
    if slope_along(indices, data, lo, hi, bias, y, -alpha, theta, work, work_w, link_code, p, gamma, intercept) <= 0.0:
        return 0.0
    if slope_along(indices, data, lo, hi, bias, y, C - alpha, theta, work, work_w, link_code, p, gamma, intercept) >= 0.0:
        return C
    low, high = 0.0, C
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (low + high)
        if mid <= low or mid >= high:
            break
        if slope_along(indices, data, lo, hi, bias, y, mid - alpha, theta, work, work_w, link_code, p, gamma,
                       intercept) > 0.0:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


@njit(cache=True)
def kkt_violation(indices, data, lo, hi, bias, y, alpha, w, C, gamma):
    """How far alpha is from optimal along its coordinate: the projected gradient of D."""
    g = gamma - y * score_row(indices, data, lo, hi, bias, w)
    if alpha <= 0.0:
        return max(g, 0.0)
    if alpha >= C:
        return max(-g, 0.0)
    return abs(g)


@njit(cache=True)
def solve_window(indptr, indices, data, row_bias, row_weight, y, first, last, theta, w, state, alpha, work, work_w,
                 params, codes):
    """Coordinate ascent on the dual variables of rows first..last, each in its box [0, c_i C]; False on overflow."""
    gamma = params[Q_GAMMA]
    tol = params[Q_TOL]
    p = params[Q_P]
    link_code = codes[Q_LINK]
    for _ in range(MAX_SWEEPS):
        worst = 0.0
        for i in range(first, last + 1):
            lo, hi, bias = indptr[i], indptr[i + 1], row_bias[i]
            C = row_weight[i] * params[Q_C]
            if C == 0.0:
                continue
            if dual_sqnorm(indices, data, lo, hi, bias, link_code, p) == 0.0:
                # D = gamma alpha_i + const along a zero row's coordinate: its maximum is the box's top
                state[S_SUM_ALPHA] += C - alpha[i]
                alpha[i] = C
                continue
            violation = kkt_violation(indices, data, lo, hi, bias, y[i], alpha[i], w, C, gamma)
            worst = max(worst, violation)
            if violation <= tol:
                continue
            for j in range(theta.size):
                work[j] = theta[j]
            new = best_alpha(indices, data, lo, hi, bias, y[i], alpha[i], C, theta, w, work, work_w, params, link_code)
            delta = new - alpha[i]
            if delta == 0.0:
                continue
            dot = score_row(indices, data, lo, hi, bias, w)
            sqnorm_x = euclidean_sqnorm(data, lo, hi, bias)
            # the average's running sum follows the whole round (see dual_pass), not each step
            if not commit(indices, data, lo, hi, bias, delta * y[i], dot, sqnorm_x, theta, w, state, link_code, p,
                          params[Q_BIAS], work[:0], 0.0):
                return False
            alpha[i] = new
            state[S_SUM_ALPHA] += delta
        if worst <= tol:
            break
    return True


@njit(cache=True)
def _sum_stays_finite(w, backup, n_theta, avg, jm1):
    """True when the average's running sum stays finite with the round's change of w (w before it in backup)."""
    for j in range(n_theta):
        if not math.isfinite(avg[j] + jm1 * (w[j] - backup[n_theta + j])):
            return False
    return True


@njit(cache=True)
def dual_round(indptr, indices, data, row_bias, row_weight, y, i, theta, w, state, alpha, avg, avg_count, params, codes,
               work, work_w, backup):
    """Round i of :func:`dual_pass`: predict the store's row i, then maximize D over the window (the last k rows, or
    all rows 0..i). Returns (ok, score): not ok when the numbers overflowed, the round then leaving no trace."""
    link_code = codes[Q_LINK]
    p = params[Q_P]
    n_theta = theta.size
    n_state = state.size
    lo, hi, bias = indptr[i], indptr[i + 1], row_bias[i]
    score = score_row(indices, data, lo, hi, bias, w)
    sqnorm_x = euclidean_sqnorm(data, lo, hi, bias)
    s = dual_sqnorm(indices, data, lo, hi, bias, link_code, p)
    if not (math.isfinite(score) and math.isfinite(sqnorm_x) and math.isfinite(s)):
        return False, score
    window = 0 if codes[Q_UPDATE] == UPDATE_ALL else max(0, i - codes[Q_K] + 1)
    for j in range(n_theta):
        backup[j] = theta[j]
        backup[n_theta + j] = w[j]
    for j in range(n_state):
        backup[2 * n_theta + j] = state[j]
    for j in range(window, i + 1):
        backup[2 * n_theta + n_state + j] = alpha[j]
    alpha[i] = 0.0
    jm1 = averaged_rank(state, avg, avg_count, params)
    if not (solve_window(indptr, indices, data, row_bias, row_weight, y, window, i, theta, w, state, alpha, work,
                         work_w, params, codes)
            and (jm1 == 0.0 or _sum_stays_finite(w, backup, n_theta, avg, jm1))):
        for j in range(n_theta):
            theta[j] = backup[j]
            w[j] = backup[n_theta + j]
        for j in range(n_state):
            state[j] = backup[2 * n_theta + j]
        for j in range(window, i + 1):
            alpha[j] = backup[2 * n_theta + n_state + j]
        return False, score
    if jm1 != 0.0:
        for j in range(n_theta):
            avg[j] += jm1 * (w[j] - backup[n_theta + j])
    state[S_T] += 1.0
    count_averaged(state, avg, avg_count, params)
    refresh_dual(theta, state, link_code, p, params[Q_BIAS], params[Q_GAMMA])
    return True, score


@njit(cache=True)
def dual_pass(indptr, indices, data, row_bias, row_weight, y, first, theta, w, state, alpha, avg, avg_count,
              params, codes, work, work_w, backup, scores, losses, taus, duals, totals, held=None, held_indptr=None,
              held_indices=None, held_data=None):
    """Progressive validation over the store's rows ``first..``, each followed by a dual solve.

    Rows before ``first`` were learned in earlier calls. On round i the
    learner predicts row i, then maximizes D over the window
    (:func:`dual_round`). ``taus`` records alpha_i after the round, ``duals``
    D(alpha) after it. ``avg``/``avg_count`` are the average's state (``avg``
    empty: no averaging); the round's change of w, kept in ``backup``, enters
    it once the round succeeded. ``work``, ``work_w`` (length of theta) and ``backup``
    (length 2 len(theta) + len(state) + len(alpha)) are scratch space. Returns
    -1, or the row at which learning stopped because the numbers overflowed
    (that row then left no trace).

    ``held``: a boolean per row of a chunk of a multi-pass run (``olearn run
    --passes N``) whose rows are the CSR arrays ``held_indptr``,
    ``held_indices``, ``held_data``, and whose learned rows (not ``held``)
    are the store's rows ``first..``, in order. The outputs then have one slot
    per row of the chunk: a held-out row is scored as ``decision_function``
    scores it then (:func:`._second_order.predicting_score_row`, the average
    once a round is averaged), recorded with loss and alpha 0 and D(alpha)
    as it stands, and is no round (not counted, not stored, no solve, no tick
    of the round counter or of the average); the returned row is the chunk's.
    """
    record = scores.size > 0
    keep_duals = duals.size > 0
    gamma = params[Q_GAMMA]
    n = indptr.size - 1 - first if held is None else held.size
    stopped = -1
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    done = 0
    i = first
    for r in range(n):
        if held is not None and held[r]:
            if record:
                scores[r] = predicting_score_row(held_indices, held_data, held_indptr[r], held_indptr[r + 1], w, avg,
                                                 avg_count, params[Q_BIAS])
                losses[r] = 0.0
                taus[r] = 0.0
            if keep_duals:
                duals[r] = state[S_DUAL]
            continue
        ok, score = dual_round(indptr, indices, data, row_bias, row_weight, y, i, theta, w, state, alpha, avg,
                               avg_count, params, codes, work, work_w, backup)
        if not ok:
            stopped = r
            break
        loss = max(0.0, gamma - y[i] * score)
        if record:
            scores[r] = score
            losses[r] = loss
            taus[r] = alpha[i]
        if keep_duals:
            duals[r] = state[S_DUAL]
        if y[i] * score <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if alpha[i] != 0.0:
            updates += 1.0
        done += 1
        i += 1
    add_totals(totals, mistakes, cumulative_loss, updates, done)
    return stopped
