"""The quasi-additive family: theta <- theta + alpha y x, w = grad F*(theta).

Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*
(COLT 2006), Sec. 4: an online learner keeps the dual vector
``theta = sum_i alpha_i y_i x_i`` and predicts with ``w = g(theta) = grad F*(theta)``
for a strongly convex regularizer F. Three geometries (link codes):

* ``LINK_L2``: F(w) = ||w||^2 / 2, g(theta) = theta (the Perceptron's geometry).
* ``LINK_ENTROPY``: F is the relative entropy to the uniform distribution over
  the 2n "balanced" coordinates (w+, w-), w = w+ - w- (Balanced Winnow);
  F*(theta) = log((1/2n) sum_i (e^theta_i + e^-theta_i)) and
  g_i(theta) = sinh(theta_i) / sum_j cosh(theta_j), evaluated as a log-sum-exp
  so that no theta, however large, overflows.
* ``LINK_SIMPLEX``: F is the relative entropy to the uniform distribution on the
  n-simplex of positive weights (Eq. 25, Winnow as the paper states it);
  F*(theta) = log((1/n) sum_i e^theta_i) (Eq. 26, shifted so that F*(0) = 0) and
  g_k(theta) = e^theta_k / sum_i e^theta_i, again as a log-sum-exp.
* ``LINK_PNORM``: F(w) = ||w||_q^2 / 2 with 1/p + 1/q = 1 (p >= 2 is the norm of
  theta and of the instances, Gentile's convention), F*(theta) = ||theta||_p^2 / 2
  and g_i(theta) = sign(theta_i) |theta_i|^(p-1) / ||theta||_p^(p-2).

F is sigma-strongly convex w.r.t. a norm whose dual norm measures x: sigma = 1
with ||x||_2 (L2), sigma = 1 with ||x||_inf (entropy, simplex), sigma = 1/(p-1) with
||x||_p (p-norm). ``dual_sqnorm`` returns ``||x||_*^2 / sigma``, the ``s`` of the
aggressive step ``alpha = min(C, loss / s)`` (the shared PA-I rule).

The weights ``w`` are stored next to ``theta`` (length d + 1, the last entry is
the intercept's, the weight of a constant feature of value ``params[Q_BIAS]``;
with no intercept that coordinate is not one of the entropy's 2n).

Importance weights (beyond the texts): a pass takes one weight c >= 0 per row
(an empty array: every row weighs 1). In the dual view of Shalev-Shwartz &
Singer the primal ``F(w) + C sum_i c_i [gamma - y_i w.x_i]_+`` has the boxes
``0 <= alpha_i <= c_i C``: the conservative update sets ``alpha_t = c_t C`` on a
mistake (Eq. 16 at the top of the example's box), the aggressive one
``alpha_t = min(loss_t, c_t C)`` (Eq. 28). Orabona & Crammer's aggressive
p-norm step, on the loss ``c_t l_t`` of gradient ``-c_t y_t x_t``, moves theta
by ``c_t eta_t y_t x_t``. ``c = 0`` moves nothing; the round still counts.

Averaging (beyond the texts): what is averaged is ``w = g(theta)``, the vector
that predicts. As in :mod:`._second_order`, a non-empty ``avg`` holds
``U = sum_s (j_s - 1) dw_s`` over the changes of w on the averaged rounds (the
rounds from ``params[Q_AVERAGE]`` on; ``j_s`` the rank among them) and
``avg_count[0] = k`` their number, so that the average is ``w - U / k``. The
Euclidean link changes w on the row's coordinates only, and U with them
(O(nnz)); the other links change every coordinate, and U costs one more O(d)
pass beside the link's. The Euclidean change a x is bounded with ||theta||^2,
which stays finite, so its U cannot overflow; a dense link recomputes w from
theta, and a model file may hold larger weights than theta gives, so there U
is checked before it moves (:func:`dense_sum_stays_finite`).
"""

import math

from ._jit import njit
from ._second_order import predicting_score_row
from ._totals import add_totals

# geometries
LINK_L2 = 0
LINK_ENTROPY = 1
LINK_PNORM = 2
LINK_SIMPLEX = 3
# the link of UPDATE_PNORM_R, g(theta) / (p - 1) with g LINK_PNORM's (Orabona & Crammer's potential); move_dense only
LINK_PNORM_R = 4

# per-round update rules of the quasi-additive pass
UPDATE_CONSERVATIVE = 0  # alpha_t = C on a mistake (y w.x <= 0), Eq. (16)
# (1 was PA-I's min(C, loss_t / s_t), now DualAscent's "last-k" with k = 1; 2 and 3 are the
# window updates of olearn._kernels._dual)
UPDATE_CAPPED_LOSS = 4  # alpha_t = min(loss_t, C), Shalev-Shwartz & Singer Eq. (28)
UPDATE_PNORM_R = 5  # Orabona & Crammer 2010, Sec. 4.1: its own p-norm potential and eta_t (pnorm_r_row)

# layout of the float64 ``params`` array
Q_C = 0
Q_GAMMA = 1  # the margin of the hinge loss [gamma - y w.x]_+
Q_P = 2  # the exponent of LINK_PNORM
Q_BIAS = 3  # value of the constant feature of the intercept (0 = none)
Q_TOL = 4  # KKT tolerance of the dual solver (olearn._kernels._dual)
Q_R = 5  # the R of UPDATE_PNORM_R
Q_AVERAGE = 6  # the first averaged round; used only when an ``avg`` array is passed
N_QPARAMS = 7

# layout of the int64 ``codes`` array
Q_LINK = 0
Q_UPDATE = 1
Q_K = 2  # size of the window of the last-k dual update (olearn._kernels._dual)
N_QCODES = 3

# layout of the float64 ``state`` array
S_T = 0  # rounds seen
S_SUM_ALPHA = 1  # sum_i alpha_i
S_DUAL = 2  # D(alpha) = gamma sum_i alpha_i - F*(theta); ``gamma`` as set on each round
S_SQNORM = 3  # ||theta||_2^2, kept up to date for LINK_L2
N_QSTATE = 4


@njit(cache=True)
def n_coordinates(theta, bias):
    """The coordinates of theta that count: the features, and the intercept if there is one."""
    return theta.size if bias != 0.0 else theta.size - 1


@njit(cache=True)
def max_abs(theta, n):
    m = 0.0
    for j in range(n):
        m = max(m, abs(theta[j]))
    return m


@njit(cache=True)
def pnorm_of(theta, n, p):
    """||theta[:n]||_p, scaled by the largest entry so that no power overflows."""
    m = max_abs(theta, n)
    if m == 0.0:
        return 0.0
    total = 0.0
    for j in range(n):
        total += (abs(theta[j]) / m) ** p
    return m * total ** (1.0 / p)


@njit(cache=True)
def entropy_log_normalizer(theta, n):
    """(m, log Z) with sum_j 2 cosh(theta_j) = e^m Z, m = max_j |theta_j|, for j < n."""
    m = max_abs(theta, n)
    z = 0.0
    for j in range(n):
        z += math.exp(theta[j] - m) + math.exp(-theta[j] - m)
    return m, math.log(z)


@njit(cache=True)
def simplex_log_normalizer(theta, n):
    """(m, log Z) with sum_j e^theta_j = e^m Z, m = max_j theta_j, for j < n."""
    m = theta[0]
    for j in range(1, n):
        m = max(m, theta[j])
    z = 0.0
    for j in range(n):
        z += math.exp(theta[j] - m)
    return m, math.log(z)


@njit(cache=True)
def link(theta, w, link_code, p, bias):
    """w = g(theta) = grad F*(theta), written into ``w``."""
    n = n_coordinates(theta, bias)
    if n < w.size:
        w[w.size - 1] = 0.0
    if n == 0:
        return
    if link_code == LINK_L2:
        for j in range(n):
            w[j] = theta[j]
    elif link_code == LINK_ENTROPY:
        m, log_z = entropy_log_normalizer(theta, n)
        for j in range(n):
            # (e^theta - e^-theta) / sum 2 cosh, both scaled by e^-m
            w[j] = (math.exp(theta[j] - m - log_z) - math.exp(-theta[j] - m - log_z))
    elif link_code == LINK_SIMPLEX:
        m, log_z = simplex_log_normalizer(theta, n)
        for j in range(n):
            w[j] = math.exp(theta[j] - m - log_z)
    else:
        norm = pnorm_of(theta, n, p)
        for j in range(n):
            w[j] = 0.0 if norm == 0.0 else theta[j] * (abs(theta[j]) / norm) ** (p - 2.0)


@njit(cache=True)
def conjugate(theta, link_code, p, bias):
    """F*(theta) of the geometry; F*(0) = 0 for every geometry."""
    n = n_coordinates(theta, bias)
    if link_code == LINK_L2:
        total = 0.0
        for j in range(n):
            total += theta[j] * theta[j]
        return 0.5 * total
    if link_code == LINK_ENTROPY:
        if n == 0:
            return 0.0
        m, log_z = entropy_log_normalizer(theta, n)
        return m + log_z - math.log(2.0 * n)
    if link_code == LINK_SIMPLEX:
        if n == 0:
            return 0.0
        m, log_z = simplex_log_normalizer(theta, n)
        return m + log_z - math.log(n)
    norm = pnorm_of(theta, n, p)
    return 0.5 * norm * norm


@njit(cache=True)
def dual_sqnorm(indices, data, lo, hi, bias, link_code, p):
    """||x||_*^2 / sigma: ||x||_2^2, ||x||_inf^2, or (p - 1) ||x||_p^2 (the intercept included)."""
    if link_code == LINK_L2:
        s = bias * bias
        for k in range(lo, hi):
            s += data[k] * data[k]
        return s
    m = abs(bias)
    for k in range(lo, hi):
        m = max(m, abs(data[k]))
    if link_code == LINK_ENTROPY or link_code == LINK_SIMPLEX or m == 0.0:
        return m * m
    total = (abs(bias) / m) ** p
    for k in range(lo, hi):
        total += (abs(data[k]) / m) ** p
    norm = m * total ** (1.0 / p)
    return (p - 1.0) * norm * norm


@njit(cache=True)
def euclidean_sqnorm(data, lo, hi, bias):
    s = bias * bias
    for k in range(lo, hi):
        s += data[k] * data[k]
    return s


@njit(cache=True)
def score_row(indices, data, lo, hi, bias, w):
    """w.x for the CSR row data[lo:hi], the intercept included."""
    d = w.size - 1
    dot = w[d] * bias
    for k in range(lo, hi):
        dot += w[indices[k]] * data[k]
    return dot


@njit(cache=True)
def add_row(indices, data, lo, hi, bias, a, theta):
    """theta <- theta + a x."""
    d = theta.size - 1
    for k in range(lo, hi):
        theta[indices[k]] += a * data[k]
    theta[d] += a * bias


@njit(cache=True)
def update_is_finite(indices, data, lo, hi, bias, a, theta):
    """True when theta + a x has finite entries (checked before theta is touched)."""
    if not math.isfinite(a):
        return False
    d = theta.size - 1
    for k in range(lo, hi):
        if not math.isfinite(theta[indices[k]] + a * data[k]):
            return False
    return math.isfinite(theta[d] + a * bias)


@njit(cache=True)
def conjugate_stays_finite(indices, data, lo, hi, bias, a, theta, link_code, p, intercept):
    """True when F*(theta + a x) is finite (checked before theta is touched).

    The entropies' F* are log-sum-exps, finite for every finite theta; the
    p-norm's ||theta||_p^2 / 2 is bounded through max_j |theta_j| n^(1/p).
    """
    if link_code == LINK_ENTROPY or link_code == LINK_SIMPLEX:
        return True
    n = n_coordinates(theta, intercept)
    m = max_abs(theta, n)
    d = theta.size - 1
    for k in range(lo, hi):
        m = max(m, abs(theta[indices[k]] + a * data[k]))
    if n > d:
        m = max(m, abs(theta[d] + a * bias))
    bound = m * n ** (1.0 / p)
    return math.isfinite(0.5 * bound * bound)


@njit(cache=True)
def commit(indices, data, lo, hi, bias, a, dot, sqnorm_x, theta, w, state, link_code, p, intercept, avg, jm1):
    """theta <- theta + a x and w <- g(theta); returns False (nothing changed) on overflow.

    ``bias`` is the value of this row's constant feature, ``intercept`` the
    current one (nonzero: the intercept coordinate counts in the link).
    ``dot`` is theta.x, used by LINK_L2 to keep ||theta||^2 in O(nnz).
    With ``jm1 != 0`` (the round's rank among the averaged rounds, minus 1)
    the running sum ``avg`` of the average takes ``jm1`` times the change of w.
    """
    if not update_is_finite(indices, data, lo, hi, bias, a, theta):
        return False
    if link_code == LINK_L2:
        sqnorm = state[S_SQNORM] + 2.0 * a * dot + a * a * sqnorm_x
        if not math.isfinite(sqnorm):
            return False
        add_row(indices, data, lo, hi, bias, a, theta)
        add_row(indices, data, lo, hi, bias, a, w)
        if jm1 != 0.0:
            add_row(indices, data, lo, hi, bias, jm1 * a, avg)
        state[S_SQNORM] = max(sqnorm, 0.0)
        return True
    if not conjugate_stays_finite(indices, data, lo, hi, bias, a, theta, link_code, p, intercept):
        return False
    if jm1 != 0.0 and not dense_sum_stays_finite(indices, data, lo, hi, bias, a, theta, w, avg, jm1, link_code, p,
                                                 intercept):
        return False
    add_row(indices, data, lo, hi, bias, a, theta)
    move_dense(theta, w, link_code, p, intercept, avg, jm1)
    return True


@njit(cache=True)
def dense_sum_stays_finite(indices, data, lo, hi, bias, a, theta, w, avg, jm1, link_code, p, intercept):
    """True when the average's running sum stays finite as w moves to g(theta + a x) (checked before).

    The entropies' weights are at most 1 in absolute value; the p-norm's at
    most ||theta||_p <= max_j |theta_j| n^(1/p) (001's link divides them by p - 1 >= 1).
    """
    bound = 1.0
    if link_code != LINK_ENTROPY and link_code != LINK_SIMPLEX:
        n = n_coordinates(theta, intercept)
        m = max_abs(theta, n)
        d = theta.size - 1
        for k in range(lo, hi):
            m = max(m, abs(theta[indices[k]] + a * data[k]))
        if n > d:
            m = max(m, abs(theta[d] + a * bias))
        bound = m * n ** (1.0 / p)
    largest = 0.0
    for j in range(w.size):
        largest = max(largest, abs(avg[j]) + jm1 * abs(w[j]))
    return math.isfinite(largest + jm1 * bound)


@njit(cache=True)
def move_dense(theta, w, link_code, p, intercept, avg, jm1):
    """w <- g(theta) for a link that changes every coordinate, and the average's running sum with it."""
    if jm1 != 0.0:
        for j in range(w.size):
            avg[j] -= jm1 * w[j]
    if link_code == LINK_PNORM_R:
        pnorm_r_link(theta, w, p, intercept)
    else:
        link(theta, w, link_code, p, intercept)
    if jm1 != 0.0:
        for j in range(w.size):
            avg[j] += jm1 * w[j]


@njit(cache=True, inline="always")
def averaged_rank(state, avg, avg_count, params):
    """j - 1 for the coming round when it is averaged (j its rank among the averaged rounds), else 0."""
    if avg.size == 0 or state[S_T] + 1.0 < params[Q_AVERAGE]:
        return 0.0
    return avg_count[0]


@njit(cache=True, inline="always")
def count_averaged(state, avg, avg_count, params):
    """Count the round just learned (``state[S_T]`` already moved) among the averaged ones if it is."""
    if avg.size > 0 and state[S_T] >= params[Q_AVERAGE]:
        avg_count[0] += 1.0


@njit(cache=True)
def refresh_dual(theta, state, link_code, p, bias, gamma):
    """D(alpha) = gamma sum alpha - F*(theta), into the state."""
    if link_code == LINK_L2:
        state[S_DUAL] = gamma * state[S_SUM_ALPHA] - 0.5 * state[S_SQNORM]
    else:
        state[S_DUAL] = gamma * state[S_SUM_ALPHA] - conjugate(theta, link_code, p, bias)


@njit(cache=True)
def learn_row(indices, data, lo, hi, y, weight, theta, w, state, avg, avg_count, params, codes):
    """Predict then learn one example of importance ``weight``; returns (score, loss, alpha, ok).

    ``ok`` is False when the row's norm, the score or the update overflows; the
    model is then left exactly as it was. ``avg`` and ``avg_count`` are the
    average's state (``avg`` empty: no averaging).
    """
    jm1 = averaged_rank(state, avg, avg_count, params)
    if codes[Q_UPDATE] == UPDATE_PNORM_R:
        score, loss, eta, ok = pnorm_r_row(indices, data, lo, hi, y, weight, theta, w, state, params, avg, jm1)
        if ok:
            count_averaged(state, avg, avg_count, params)
        return score, loss, eta, ok
    # the example's box [0, c C]
    C = weight * params[Q_C]
    gamma = params[Q_GAMMA]
    p = params[Q_P]
    bias = params[Q_BIAS]
    link_code = codes[Q_LINK]
    score = score_row(indices, data, lo, hi, bias, w)
    sqnorm_x = euclidean_sqnorm(data, lo, hi, bias)
    if not (math.isfinite(score) and math.isfinite(sqnorm_x)):
        return score, 0.0, 0.0, False
    margin = y * score
    loss = max(0.0, gamma - margin)
    if codes[Q_UPDATE] == UPDATE_CONSERVATIVE:
        alpha = C if margin <= 0.0 else 0.0
    else:
        alpha = min(loss, C)
    moved = alpha == 0.0 or commit(indices, data, lo, hi, bias, alpha * y, score, sqnorm_x, theta, w, state,
                                   link_code, p, bias, avg, jm1)
    if not moved:
        return score, loss, alpha, False
    state[S_T] += 1.0
    count_averaged(state, avg, avg_count, params)
    state[S_SUM_ALPHA] += alpha
    refresh_dual(theta, state, link_code, p, bias, gamma)
    return score, loss, alpha, True


@njit(cache=True)
def pnorm_r_link(theta, w, p, bias):
    """w = grad f*(theta) for 001's f(u) = ||u||_q^2 / (2(q - 1)): g(theta) / (p - 1), g the p-norm link."""
    link(theta, w, LINK_PNORM, p, bias)
    scale = 1.0 / (p - 1.0)
    for j in range(n_coordinates(theta, bias)):
        w[j] *= scale


@njit(cache=True)
def pnorm_r_step(margin, sqnorm_p, R):
    """eta_t of Orabona & Crammer (2010), Sec. 4.1.

    1 on a mistake (margin <= 0); on a margin error (0 < margin < 1) the
    minimizer of the round's term of D in Eq. (4) under eta <= 1,
    (R^2/2 - margin) / ||x||_p^2, clipped to [0, 1]; 0 otherwise.
    """
    if margin <= 0.0:
        return 1.0
    if margin >= 1.0 or sqnorm_p == 0.0:
        return 0.0
    return min(1.0, max(0.0, (0.5 * R * R - margin) / sqnorm_p))


@njit(cache=True)
def pnorm_r_row(indices, data, lo, hi, y, weight, theta, w, state, params, avg, jm1):
    """``learn_row`` of the aggressive p-norm algorithm of Orabona & Crammer (2010), Sec. 4.1.

    Fig. 1 with f(u) = ||u||_q^2 / (2(q - 1)) (1-strongly convex w.r.t.
    ||.||_q): w = g(theta) / (p - 1), theta <- theta + c eta_t y x with
    ``pnorm_r_step`` and c the example's weight; the recorded step is
    ``c eta_t``, and ``state[S_DUAL]`` is sum c eta - f*(theta).
    """
    p = params[Q_P]
    bias = params[Q_BIAS]
    score = score_row(indices, data, lo, hi, bias, w)
    # dual_sqnorm is (p - 1) ||x||_p^2, the squared dual norm over 000's sigma
    sqnorm_p = dual_sqnorm(indices, data, lo, hi, bias, LINK_PNORM, p) / (p - 1.0)
    if not (math.isfinite(score) and math.isfinite(sqnorm_p)):
        return score, 0.0, 0.0, False
    margin = y * score
    loss = max(0.0, 1.0 - margin)
    eta = weight * pnorm_r_step(margin, sqnorm_p, params[Q_R])
    if eta != 0.0:
        a = eta * y
        if not (update_is_finite(indices, data, lo, hi, bias, a, theta)
                and conjugate_stays_finite(indices, data, lo, hi, bias, a, theta, LINK_PNORM, p, bias)):
            return score, loss, eta, False
        if jm1 != 0.0 and not dense_sum_stays_finite(indices, data, lo, hi, bias, a, theta, w, avg, jm1, LINK_PNORM,
                                                     p, bias):
            return score, loss, eta, False
        add_row(indices, data, lo, hi, bias, a, theta)
        move_dense(theta, w, LINK_PNORM_R, p, bias, avg, jm1)
    state[S_T] += 1.0
    state[S_SUM_ALPHA] += eta
    state[S_DUAL] = state[S_SUM_ALPHA] - conjugate(theta, LINK_PNORM, p, bias) / (p - 1.0)
    return score, loss, eta, True


@njit(cache=True)
def quasi_additive_pass(indptr, indices, data, y, weights, theta, w, state, avg, avg_count, params, codes, scores,
                        losses, taus, duals, totals, held=None):
    """Progressive validation over the rows of a CSR matrix, in order.

    ``weights`` holds one importance weight per row, or nothing (every row
    weighs 1); ``avg`` and ``avg_count`` the average's state, or nothing. A
    round is a mistake when ``y * score <= 0``. Per-round scores, losses (the
    hinge loss at margin gamma) and alphas are written when those arrays
    have one slot per row, and D(alpha) after each round when ``duals`` has;
    pass empty arrays to keep only the totals. Returns -1, or the index of the
    row at which learning stopped because the numbers overflowed.

    ``held``: a boolean per row, the held-out rows of a multi-pass run
    (``olearn run --passes N``): such a row is scored by w as
    ``decision_function`` scores it then (:func:`quasi_additive_scores`, or
    the average w - U / k once a round is averaged:
    :func:`._second_order.predicting_score_row`), recorded with loss and
    alpha 0, and is no round (not counted, no update, no tick of the round
    counter or of the average).
    """
    record = scores.size > 0
    keep_duals = duals.size > 0
    n = indptr.size - 1
    stopped = -1
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    weighted = weights.size > 0
    n_held = 0
    for i in range(n):
        if held is not None and held[i]:
            n_held += 1
            if record:
                scores[i] = predicting_score_row(indices, data, indptr[i], indptr[i + 1], w, avg, avg_count,
                                                 params[Q_BIAS])
                losses[i] = 0.0
                taus[i] = 0.0
            if keep_duals:
                duals[i] = state[S_DUAL]
            continue
        weight = weights[i] if weighted else 1.0
        score, loss, alpha, ok = learn_row(indices, data, indptr[i], indptr[i + 1], y[i], weight, theta, w, state,
                                           avg, avg_count, params, codes)
        if not ok:
            stopped = i
            n = i
            break
        if record:
            scores[i] = score
            losses[i] = loss
            taus[i] = alpha
        if keep_duals:
            duals[i] = state[S_DUAL]
        if y[i] * score <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if alpha != 0.0:
            updates += 1.0
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True)
def quasi_additive_scores(indptr, indices, data, bias, w, out):
    """Decision values w.x of every row of a CSR matrix."""
    for i in range(indptr.size - 1):
        out[i] = score_row(indices, data, indptr[i], indptr[i + 1], bias, w)
