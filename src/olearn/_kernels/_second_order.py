r"""Compiled second-order binary learners with a full covariance matrix.

AROW, NAROW, the Second-Order Perceptron and CW all keep a mean ``w`` and a
covariance ``Sigma`` (the inverse of a precision matrix ``A``) and make the
same move on a round with margin ``m = w.x`` and ``chi = x^T Sigma x``:

.. math:: w \leftarrow w + c\, \Sigma x, \qquad
    \Sigma^{-1} \leftarrow \Sigma^{-1} + \gamma\, x x^T
    \;\Longleftrightarrow\;
    \Sigma \leftarrow \Sigma - \frac{\gamma}{1 + \gamma \chi}\, (\Sigma x)(\Sigma x)^T.

The learner's rule (:func:`second_order_step`) turns ``(y, m, chi)`` into the
mean coefficient ``c`` and the precision increment ``gamma``; this module
applies them in O(d^2) per round.

The covariance is kept as a square root ``S`` with ``Sigma = S S^T`` (Potter's
square-root form of the rank-one update, as in Bierman, *Factorization Methods
for Discrete Sequential Estimation*, 1977). With ``p = S^T x`` (so
``chi = |p|^2`` and ``Sigma x = S p``),

.. math:: S \leftarrow S - g\, (S p)\, p^T, \qquad
    g = \frac{\gamma}{\rho (1 + \rho)}, \quad \rho = \sqrt{1 + \gamma \chi},

since :math:`(I - g p p^T)^2 = I - \frac{\gamma}{1 + \gamma\chi} p p^T`: in exact
arithmetic ``S S^T`` moves exactly as ``Sigma`` above. Subtracting the rank-one
term from ``Sigma`` itself loses the variance along ``x`` when ``chi`` is much
larger than ``1 / gamma`` (a feature of about 1e8 made a variance of -1,062
after the first row, and every later ``chi`` wrong); ``S S^T`` is positive
semi-definite whatever the rounding, ``chi`` is a sum of squares, and the
factor's condition number is the square root of the covariance's, so the small
variances keep their relative accuracy. The intercept is the last coordinate (constant feature ``bias``), as in
the binary linear kernel. :mod:`._diagonal` is the diagonal twin.

Importance weights: the passes take one weight per row (an empty array is the
unweighted stream). A weight c enters the rule (:func:`second_order_step`): the
example counts c times in the sums of the precision and of the mean's dual
vector (AROW, SOP, NAROW: the precision grows by ``c gamma``), its gradient is
scaled by c (AdaGrad), or it is imposed whenever ``c > 0`` (CW). ``c = 0``
leaves the model unchanged and only the round counter moves.

Averaging: with a non-empty ``avg`` the passes keep, besides ``w``, the sum
``U = sum_s (j_s - 1) dw_s`` over the changes ``dw_s`` of ``w`` made on the
averaged rounds (``j_s`` the rank of round s among them; the rounds from
``params[Q_AVERAGE]`` on, counted by ``state[Z_T]``) and their number
``avg_count[0] = k``. Then ``sum_{averaged t} w_t = k w - U``, so the average is
``w - U / k`` (:func:`averaged`), and keeping U costs what the change of w
costs: O(nnz(x)) on the diagonal, O(d) beside the O(d^2) of a full update.
"""

import math

from ._codes import STEP_PA2
from ._jit import njit
from ._lazy_average import averaged_vector_score_row
from ._second_order_codes import (  # noqa: F401 - the codes, also read here by the learners' callers
    K_RULE,
    N_CODES,
    N_PARAMS,
    N_STATE,
    Q_AVERAGE,
    Q_BIAS,
    Q_DELTA,
    Q_HYPER,
    RULE_ADAGRAD,
    RULE_AROW,
    RULE_CW,
    RULE_FIG1_AROW,
    RULE_NAROW,
    RULE_SOP,
    Z_T,
)
from ._steps import pa_step
from ._totals import add_totals


@njit(cache=True, inline="always")
def _cw_step(y, margin, chi, phi):
    """CW's (loss, c, gamma, alpha): Crammer, Dredze & Pereira (2008), the closed form of the exact update.

    With M = y m, V = chi, psi = 1 + phi^2/2, xi = 1 + phi^2:
    alpha = max(0, (-M psi + sqrt(M^2 phi^4/4 + V phi^2 xi)) / (V xi)),
    sqrt(u) = (-alpha V phi + sqrt(alpha^2 V^2 phi^2 + 4V)) / 2, and the
    precision grows by gamma = alpha phi / sqrt(u) (the paper's
    beta = alpha phi / (sqrt(u) + V alpha phi) = gamma / (1 + gamma V)).
    The loss is the violation of the confidence constraint, max(0, phi sqrt(V) - M).
    """
    if chi <= 0.0:
        return 0.0, 0.0, 0.0, 0.0
    M = y * margin
    loss = max(0.0, phi * math.sqrt(chi) - M)
    phi2 = phi * phi
    psi = 1.0 + 0.5 * phi2
    xi = 1.0 + phi2
    alpha = (-M * psi + math.sqrt(0.25 * M * M * phi2 * phi2 + chi * phi2 * xi)) / (chi * xi)
    if alpha <= 0.0:
        return loss, 0.0, 0.0, 0.0
    a = alpha * chi * phi
    # (-a + sqrt(a^2 + 4V)) / 2 without the cancellation of a large a
    root_u = 2.0 * chi / (a + math.sqrt(a * a + 4.0 * chi))
    if root_u == 0.0:
        # |M| so large that M^2 overflowed (a tampered or extreme model): an infinite step, which
        # the callers' finiteness checks refuse, leaving the model unchanged
        return loss, math.inf * y, math.inf, alpha
    return loss, alpha * y, alpha * phi / root_u, alpha


@njit(cache=True, inline="always")
def fig1_precision_step(rule, chi, hyper):
    """gamma_t = 1 / r_t of Orabona & Crammer's Fig. 1 learners: A_t = A_{t-1} + x_t x_t^T / r_t.

    NAROW (Sec. 5): r_t = chi / (b chi - 1) when b chi > 1, else r_t = inf
    (gamma 0); the AROW of Sec. 4.2 and 4.3: the fixed r, gamma = 1 / r.
    """
    if rule == RULE_FIG1_AROW:
        return 1.0 / hyper
    return hyper - 1.0 / chi if hyper * chi > 1.0 else 0.0


@njit(cache=True, inline="always")
def second_order_step(rule, y, margin, chi, hyper, weight):
    """(loss, c, gamma, tau) of a round of an example of weight ``weight``: w += c Sigma x, Sigma^{-1} += gamma x x^T.

    ``tau`` is what :func:`olearn.run` records as the round's step: AROW's and
    SOP's alpha (PA-II's tau), NAROW's and Fig. 1's AROW's ``y c``, CW's alpha. The weight c
    enters as the estimators' docstrings state: AROW and SOP take ``r / c``
    (``a / c``) for r; NAROW adds ``c y x`` to theta and ``c x x^T / r_t`` to
    the precision; CW makes its plain update whenever ``c > 0``. ``c = 0``
    changes nothing (c and gamma are 0), nor does, for AROW and SOP, a c so
    small that ``c / (2r)`` underflows to 0.
    """
    if rule == RULE_NAROW or rule == RULE_FIG1_AROW:
        gamma = fig1_precision_step(rule, chi, hyper)
        # the margin of the round is taken with x_t already in A_t, counted weight times
        shrink = 1.0 + weight * gamma * chi
        loss = max(0.0, 1.0 - y * margin / shrink)
        if loss <= 0.0 or weight == 0.0:
            return loss, 0.0, 0.0, 0.0
        c = weight * (y - gamma * margin) / shrink
        return loss, c, weight * gamma, y * c
    if rule == RULE_CW:
        loss, c, gamma, alpha = _cw_step(y, margin, chi, hyper)
        if weight == 0.0:
            return loss, 0.0, 0.0, 0.0
        return loss, c, gamma, alpha
    loss = max(0.0, 1.0 - y * margin)
    # PA-II's tau l / (chi + 1/(2C)) with 1/(2C) = r / weight; a weight so small that C underflows to 0 moves nothing
    C = 0.5 * weight / hyper
    if not C > 0.0 or (rule == RULE_SOP and y * margin > 0.0):
        return loss, 0.0, 0.0, 0.0
    tau = pa_step(STEP_PA2, loss, chi, C)
    if tau == 0.0:
        return loss, 0.0, 0.0, 0.0
    return loss, tau * y, weight / hyper, tau


@njit(cache=True)
def mean_score_row(indices, data, lo, hi, w, bias):
    """w.x for the CSR row data[lo:hi], the intercept included."""
    d = w.size - 1
    dot = w[d] * bias
    for k in range(lo, hi):
        dot += w[indices[k]] * data[k]
    return dot


@njit(cache=True, inline="always")
def predicting_score_row(indices, data, lo, hi, w, avg, avg_count, bias):
    """The score ``decision_function`` gives the CSR row data[lo:hi] now: with a running sum U of the average in
    ``avg`` (empty: no averaging) and [k, first] in ``avg_count``, wbar . x once a round is averaged (k > 0; the
    operations of :func:`._lazy_average.averaged_vector_scores`), else :func:`mean_score_row`'s w.x (also the
    quasi-additive learners' ``score_row``, the same operations)."""
    if avg.size > 0 and avg_count[0] > 0.0:
        return averaged_vector_score_row(indices, data, lo, hi, w, avg, avg_count[0], bias)
    return mean_score_row(indices, data, lo, hi, w, bias)


@njit(cache=True)
def mean_scores(indptr, indices, data, w, params, out):
    """Decision values w.x of every row of a CSR matrix."""
    bias = params[Q_BIAS]
    for i in range(indptr.size - 1):
        out[i] = mean_score_row(indices, data, indptr[i], indptr[i + 1], w, bias)


@njit(cache=True, inline="always")
def row_dot(matrix, i, vector):
    """matrix[i] . vector, summed in four interleaved partial sums (independent additions pipeline: the update's
    S p costs about what a plain pass over S costs, not one addition's latency per entry)."""
    n = vector.size
    s0 = s1 = s2 = s3 = 0.0
    j = 0
    while j + 4 <= n:
        s0 += matrix[i, j] * vector[j]
        s1 += matrix[i, j + 1] * vector[j + 1]
        s2 += matrix[i, j + 2] * vector[j + 2]
        s3 += matrix[i, j + 3] * vector[j + 3]
        j += 4
    while j < n:
        s0 += matrix[i, j] * vector[j]
        j += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, inline="always")
def full_round(indices, data, lo, hi, y, weight, w, root, avg, jm1, scratch, rule, hyper, bias):
    """Predict then learn one example of importance ``weight``; returns (score, loss, tau, ok).

    ``root`` is the covariance's square root S (``Sigma = S S^T``) and
    ``scratch`` a (2, w.size) array (``p = S^T x`` and ``u = S p = Sigma x``).
    ``ok`` is False when the score, chi or the updated mean or root would not
    be finite; the model is then left exactly as it was. ``jm1`` is the
    round's rank among the averaged rounds minus 1 (0 when the round is not
    averaged): the change of w enters ``avg`` times it.
    """
    d = w.size - 1
    p = scratch[0]
    u = scratch[1]
    margin = mean_score_row(indices, data, lo, hi, w, bias)
    # p = S^T x, as a sum of rows of S (contiguous reads)
    for j in range(d + 1):
        p[j] = root[d, j] * bias
    for k in range(lo, hi):
        v = data[k]
        row = indices[k]
        for j in range(d + 1):
            p[j] += root[row, j] * v
    chi = 0.0
    for j in range(d + 1):
        chi += p[j] * p[j]
    if not (math.isfinite(margin) and math.isfinite(chi)):
        return margin, 0.0, 0.0, False
    loss, c, gamma, tau = second_order_step(rule, y, margin, chi, hyper, weight)
    if c == 0.0 and gamma == 0.0:
        return margin, loss, tau, True
    rho = math.sqrt(1.0 + gamma * chi)
    g = gamma / (rho * (1.0 + rho))
    largest_u = 0.0
    largest_p = 0.0
    for i in range(d + 1):
        dot = row_dot(root, i, p)
        u[i] = dot
        largest_u = max(largest_u, abs(dot))
        largest_p = max(largest_p, abs(p[i]))
        if not math.isfinite(w[i] + c * dot):
            return margin, loss, tau, False
    if jm1 != 0.0:
        for j in range(d + 1):
            if not math.isfinite(avg[j] + jm1 * c * u[j]):
                return margin, loss, tau, False
    if not (math.isfinite(rho) and math.isfinite(largest_u * largest_p * g)):
        return margin, loss, tau, False
    if jm1 != 0.0:
        # the running sum of the average moves with w (U += (j - 1) dw), O(d) beside the O(d^2) below
        for j in range(d + 1):
            avg[j] += jm1 * c * u[j]
    for j in range(d + 1):
        w[j] += c * u[j]
    if g != 0.0:
        for i in range(d + 1):
            gi = g * u[i]
            for j in range(d + 1):
                root[i, j] -= gi * p[j]
    return margin, loss, tau, True


@njit(cache=True, inline="always")
def averaged_rank(state, avg, avg_count, first):
    """j - 1 for the coming round when it is averaged (its rank j among the averaged rounds), else 0.

    ``first`` is the first averaged round (1-based, counted by ``state[Z_T]``);
    an empty ``avg`` means no averaging.
    """
    if avg.size == 0 or state[Z_T] + 1.0 < first:
        return 0.0
    return avg_count[0]


@njit(cache=True, inline="always")
def count_averaged(state, avg, avg_count, first):
    """Count the round just learned (``state[Z_T]`` already moved) among the averaged ones if it is."""
    if avg.size > 0 and state[Z_T] >= first:
        avg_count[0] += 1.0


@njit(cache=True)
def averaged(w, avg, avg_count, out):
    """The average of w over the averaged rounds, w - U / k, into ``out``; w itself before any averaged round."""
    k = avg_count[0]
    for j in range(w.size):
        out[j] = w[j] - avg[j] / k if k > 0.0 else w[j]


@njit(cache=True)
def full_pass(indptr, indices, data, y, weights, w, root, state, avg, avg_count, params, codes, scratch,
              scores, losses, taus, totals, held=None):
    """Progressive validation over the rows of a CSR matrix with a full covariance.

    ``weights`` holds one importance weight per row, or nothing (every row
    weighs 1); ``avg`` and ``avg_count`` the running sum and the count of the
    average (``avg`` empty: no averaging). ``root`` is the covariance's square
    root and ``scratch`` a (2, w.size) array (:func:`full_round`). Per-round outputs are written when they have one slot per row (empty
    arrays keep only ``totals``). Returns -1, or the index of the row at which
    learning stopped on an overflow.

    ``held``: a boolean per row, the held-out rows of a multi-pass run
    (``olearn run --passes N``): such a row is scored by the mean w as
    ``decision_function`` scores it then (:func:`predicting_score_row`: the
    averaged mean once a round is averaged), recorded with loss and tau 0,
    and is no round (not counted, no update, no tick of the average).
    """
    record = scores.size > 0
    weighted = weights.size > 0
    rule = codes[K_RULE]
    hyper = params[Q_HYPER]
    bias = params[Q_BIAS]
    first = params[Q_AVERAGE]
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_held = 0
    for i in range(n):
        if held is not None and held[i]:
            n_held += 1
            if record:
                scores[i] = predicting_score_row(indices, data, indptr[i], indptr[i + 1], w, avg, avg_count, bias)
                losses[i] = 0.0
                taus[i] = 0.0
            continue
        weight = weights[i] if weighted else 1.0
        jm1 = averaged_rank(state, avg, avg_count, first)
        score, loss, tau, ok = full_round(indices, data, indptr[i], indptr[i + 1], y[i], weight, w, root, avg, jm1,
                                          scratch, rule, hyper, bias)
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


@njit(cache=True)
def full_learn_one(indices, data, y, weight, w, root, state, avg, avg_count, params, codes, scratch):
    """``full_round`` for a single example held in its own arrays; returns (score, ok)."""
    first = params[Q_AVERAGE]
    jm1 = averaged_rank(state, avg, avg_count, first)
    score, _, _, ok = full_round(
        indices, data, 0, indices.size, y, weight, w, root, avg, jm1, scratch, codes[K_RULE], params[Q_HYPER],
        params[Q_BIAS]
    )
    if ok:
        state[Z_T] += 1.0
        count_averaged(state, avg, avg_count, first)
    return score, ok
