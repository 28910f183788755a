r"""Compiled passive-aggressive label ranking with sets of relevant labels.

Crammer et al. 2006, Sec. 7, with one prototype per label (the multi-vector
construction of Phi). On a round with relevant labels Y, every label scores
``w_r . x``; the margin is the lowest relevant score minus the highest
irrelevant one, the loss ``max(0, 1 - margin)``, and the virtual instance
``z = Phi(x, r*) - Phi(x, s*)`` of the worst pair adds tau x to w_{r*} and
subtracts it from w_{s*}, with ``s = ||z||^2 = 2 ||x||^2`` given to the shared
PA step rule. A row whose relevant set is empty or holds every label has
nothing to rank: its margin is +inf (min over no label is +inf, max over no
label is -inf), so its loss is 0.

The weights are a (k, d + 1) matrix; column d is the intercept, the weight of
a constant feature of value ``bias`` (0 without intercept). Labels of each row
travel like a CSR row: ``labels[label_ptr[i]:label_ptr[i + 1]]`` are the
relevant label indices of row i. Labels are indexed in order of first
appearance, and only the first ``state[M_ACTIVE]`` of them take part in a
round: a label joins the ranking on the first row that names it, so that a
batch is learned exactly as its rows would be one at a time.
"""

import math

from numba import njit

from ._steps import pa_step
from ._totals import add_totals

# Layout of the float64 `params` array.
M_C = 0
M_BIAS = 1  # value of the constant feature of the intercept (0 = none)
N_MULTILABEL_PARAMS = 2

# Layout of the int64 `codes` array.
M_STEP = 0  # STEP_PA, STEP_PA1 or STEP_PA2 of ._codes
N_MULTILABEL_CODES = 1

# Layout of the int64 `state` array.
M_ACTIVE = 0  # number of labels in the ranking so far
N_MULTILABEL_STATE = 1


@njit(cache=True, inline="always")
def label_scores(indices, data, lo, hi, W, n_labels, bias, scores):
    """scores[r] = w_r . x for the labels r < n_labels; features past W's width weigh 0."""
    d = W.shape[1] - 1
    for r in range(n_labels):
        s = W[r, d] * bias
        for k in range(lo, hi):
            j = indices[k]
            if j < d:
                s += W[r, j] * data[k]
        scores[r] = s


@njit(cache=True, inline="always")
def ranking_pair(scores, labels, llo, lhi, n_labels, relevant):
    """(r*, s*, lowest, highest): the relevant label scored lowest and the irrelevant one scored highest.

    Sec. 7's pair of the round among the first ``n_labels`` labels; ``labels[llo:lhi]``
    are the relevant ones. r* or s* is -1 when there is no such label.
    ``relevant`` is int8 scratch of zeros, left as zeros.
    """
    for m in range(llo, lhi):
        relevant[labels[m]] = 1
    lowest = math.inf
    highest = -math.inf
    r_star = -1
    s_star = -1
    for r in range(n_labels):
        s = scores[r]
        if relevant[r]:
            if s < lowest:
                lowest = s
                r_star = r
        elif s > highest:
            highest = s
            s_star = r
    for m in range(llo, lhi):
        relevant[labels[m]] = 0
    return r_star, s_star, lowest, highest


@njit(cache=True, inline="always")
def multilabel_round(indices, data, lo, hi, labels, llo, lhi, W, n_labels, rule, C, bias, relevant, scores):
    """Predict then learn one example among the first ``n_labels`` labels; returns (margin, loss, tau, ok).

    ``relevant`` is int8 scratch of k zeros (left as zeros), ``scores`` float
    scratch of size k. ``ok`` is False when a score or an updated weight would
    not be finite; the model is then left as it was.
    """
    d = W.shape[1] - 1
    label_scores(indices, data, lo, hi, W, n_labels, bias, scores)
    sqnorm = bias * bias
    for k in range(lo, hi):
        sqnorm += data[k] * data[k]
    finite = math.isfinite(sqnorm)
    for r in range(n_labels):
        if not math.isfinite(scores[r]):
            finite = False
    r_star, s_star, lowest, highest = ranking_pair(scores, labels, llo, lhi, n_labels, relevant)
    if not finite:
        return 0.0, 0.0, 0.0, False
    if r_star < 0 or s_star < 0:
        return math.inf, 0.0, 0.0, True
    margin = lowest - highest
    loss = max(0.0, 1.0 - margin)
    tau = pa_step(rule, loss, 2.0 * sqnorm, C)
    if tau == 0.0 or sqnorm == 0.0:
        return margin, loss, tau, True
    for k in range(lo, hi):
        step = tau * data[k]
        j = indices[k]
        if not (math.isfinite(W[r_star, j] + step) and math.isfinite(W[s_star, j] - step)):
            return margin, loss, tau, False
    step = tau * bias
    if not (math.isfinite(W[r_star, d] + step) and math.isfinite(W[s_star, d] - step)):
        return margin, loss, tau, False
    for k in range(lo, hi):
        step = tau * data[k]
        W[r_star, indices[k]] += step
        W[s_star, indices[k]] -= step
    W[r_star, d] += tau * bias
    W[s_star, d] -= tau * bias
    return margin, loss, tau, True


@njit(cache=True)
def multilabel_pass(
    indptr, indices, data, label_ptr, labels, W, state, params, codes,
    relevant, scores, margins, losses, taus, round_scores, totals,
):
    """Progressive validation over the rows of a CSR matrix, in order.

    A round is a mistake when its margin is <= 0: some relevant label scores no
    higher than some irrelevant one, so the ranking is wrong (a tie counts).
    Per-round margins, losses, taus and label scores (labels not yet in the
    ranking score 0) are written when the output arrays have one slot per row.
    Returns -1, or the index of the row at which learning stopped because the
    numbers overflowed.
    """
    record = margins.size > 0
    rule = codes[M_STEP]
    C = params[M_C]
    bias = params[M_BIAS]
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_labels = state[M_ACTIVE]
    for i in range(n):
        active = n_labels
        for m in range(label_ptr[i], label_ptr[i + 1]):
            if labels[m] >= active:
                active = labels[m] + 1
        margin, loss, tau, ok = multilabel_round(
            indices, data, indptr[i], indptr[i + 1], labels, label_ptr[i], label_ptr[i + 1],
            W, active, rule, C, bias, relevant, scores,
        )
        if not ok:
            stopped = i
            n = i
            break
        n_labels = active
        if record:
            margins[i] = margin
            losses[i] = loss
            taus[i] = tau
            for r in range(n_labels):
                round_scores[i, r] = scores[r]
        if margin <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    state[M_ACTIVE] = n_labels
    add_totals(totals, mistakes, cumulative_loss, updates, n)
    return stopped


@njit(cache=True)
def multilabel_scores(indptr, indices, data, W, bias, out):
    """out[i, r] = w_r . x_i for every row of a CSR matrix and every label."""
    for i in range(indptr.size - 1):
        label_scores(indices, data, indptr[i], indptr[i + 1], W, W.shape[0], bias, out[i])


@njit(cache=True)
def multilabel_map_round(pointers, bidx, bdat, labels, llo, lhi, w, wb, n_labels, rule, C, bias, relevant, scores,
                         zidx, zval, work):
    """One round through a joint feature map Phi(x, r) (Sec. 7, single-prototype); returns (margin, loss, tau, ok).

    ``bidx[pointers[r]:pointers[r + 1]]`` / ``bdat[...]`` hold Phi(x, r) of label
    r < ``n_labels`` as a sparse vector; ``w`` is the one weight vector and
    ``wb[r]`` the weight of label r's intercept feature of value ``bias``.
    The virtual instance is z = Phi(x, r*) - Phi(x, s*) (plus the intercept
    difference), ``||z||^2`` is measured once the two sparse vectors are added
    up in ``work`` (dense scratch of w's size, left as zeros), and ``zidx`` /
    ``zval`` (scratch of bdat's size) keep z for the update. ``relevant`` and
    ``scores`` are as in :func:`multilabel_round`.
    """
    finite = True
    for r in range(n_labels):
        s = wb[r] * bias
        for m in range(pointers[r], pointers[r + 1]):
            s += w[bidx[m]] * bdat[m]
        if not math.isfinite(s):
            finite = False
        scores[r] = s
    r_star, s_star, lowest, highest = ranking_pair(scores, labels, llo, lhi, n_labels, relevant)
    if not finite:
        return 0.0, 0.0, 0.0, False
    if r_star < 0 or s_star < 0:
        return math.inf, 0.0, 0.0, True
    margin = lowest - highest
    loss = max(0.0, 1.0 - margin)
    for m in range(pointers[r_star], pointers[r_star + 1]):
        work[bidx[m]] += bdat[m]
    for m in range(pointers[s_star], pointers[s_star + 1]):
        work[bidx[m]] -= bdat[m]
    # collect z once per index (a repeated index finds work already cleared) and clear work
    count = 0
    sqnorm = 2.0 * bias * bias
    for half in range(2):
        a = r_star if half == 0 else s_star
        for m in range(pointers[a], pointers[a + 1]):
            j = bidx[m]
            if work[j] != 0.0:
                sqnorm += work[j] * work[j]
                zidx[count] = j
                zval[count] = work[j]
                count += 1
                work[j] = 0.0
    if not math.isfinite(sqnorm):
        return margin, loss, 0.0, False
    tau = pa_step(rule, loss, sqnorm, C)
    if tau == 0.0 or sqnorm == 0.0:
        return margin, loss, tau, True
    for c in range(count):
        if not math.isfinite(w[zidx[c]] + tau * zval[c]):
            return margin, loss, tau, False
    step = tau * bias
    if not (math.isfinite(wb[r_star] + step) and math.isfinite(wb[s_star] - step)):
        return margin, loss, tau, False
    for c in range(count):
        w[zidx[c]] += tau * zval[c]
    wb[r_star] += step
    wb[s_star] -= step
    return margin, loss, tau, True
