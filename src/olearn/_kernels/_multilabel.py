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

Importance weights (one per row, or an empty array for none) scale C
(:func:`._steps.weighted_pa_step`). Averaging keeps the correction ``U`` of
:mod:`._lazy_average` next to the weights (same shape; unused, and may be
empty, when the ``averaging`` array says there is none): an update of round
age ``s - a`` adds ``(s - a) tau z`` to it.
"""

import math

import numpy as np

from ._jit import njit
from ._lazy_average import A_ROUNDS, A_START, round_age
from ._steps import weighted_pa_step
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

# the ``held`` of a pass that holds no row out (see :func:`held_out_multilabel_pass`)
_NONE_HELD = np.zeros(0, dtype=np.bool_)


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
def multilabel_round(indices, data, lo, hi, labels, llo, lhi, weight, W, U, age, n_labels, rule, C, bias, relevant,
                     scores):
    """Predict then learn one example of importance ``weight`` among the first ``n_labels`` labels.

    Returns (margin, loss, tau, ok). ``age`` > 0 adds ``age * tau z`` to the
    averaging correction ``U``. ``relevant`` is int8 scratch of k zeros (left
    as zeros), ``scores`` float scratch of size k. ``ok`` is False when a score
    or an updated weight would not be finite; the model is then left as it was.
    """
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
    tau = weighted_pa_step(rule, loss, 2.0 * sqnorm, C, weight)
    if tau == 0.0 or sqnorm == 0.0:
        return margin, loss, tau, True
    if not (_pair_stays_finite(indices, data, lo, hi, W, r_star, s_star, tau, bias)
            and (age == 0.0 or _pair_stays_finite(indices, data, lo, hi, U, r_star, s_star, age * tau, bias))):
        return margin, loss, tau, False
    _move_pair(indices, data, lo, hi, W, r_star, s_star, tau, bias)
    if age > 0.0:
        _move_pair(indices, data, lo, hi, U, r_star, s_star, age * tau, bias)
    return margin, loss, tau, True


@njit(cache=True, inline="always")
def _pair_stays_finite(indices, data, lo, hi, W, r, s, tau, bias):
    """Whether adding tau (x, bias) to row r of W and subtracting it from row s keeps them finite."""
    d = W.shape[1] - 1
    for k in range(lo, hi):
        step = tau * data[k]
        j = indices[k]
        if not (math.isfinite(W[r, j] + step) and math.isfinite(W[s, j] - step)):
            return False
    step = tau * bias
    return math.isfinite(W[r, d] + step) and math.isfinite(W[s, d] - step)


@njit(cache=True, inline="always")
def _move_pair(indices, data, lo, hi, W, r, s, tau, bias):
    """W_r += tau (x, bias), W_s -= tau (x, bias)."""
    d = W.shape[1] - 1
    for k in range(lo, hi):
        step = tau * data[k]
        W[r, indices[k]] += step
        W[s, indices[k]] -= step
    W[r, d] += tau * bias
    W[s, d] -= tau * bias


@njit(cache=True)
def multilabel_pass(
    indptr, indices, data, label_ptr, labels, weights, W, state, U, averaging, params, codes,
    relevant, scores, margins, losses, taus, round_scores, totals,
):
    """Progressive validation over the rows of a CSR matrix, in order.

    ``weights`` holds the importance weight of each row (empty: all 1);
    ``averaging`` advances by the rows learned.

    A round is a mistake when its margin is <= 0: some relevant label scores no
    higher than some irrelevant one, so the ranking is wrong (a tie counts).
    Per-round margins, losses, taus and label scores (labels not yet in the
    ranking score 0) are written when the output arrays have one slot per row.
    Returns -1, or the index of the row at which learning stopped because the
    numbers overflowed.
    """
    return multilabel_rows(indptr, indices, data, label_ptr, labels, weights, W, state, U, averaging, params, codes,
                           relevant, scores, margins, losses, taus, round_scores, totals, _NONE_HELD)


@njit(cache=True)
def held_out_multilabel_pass(
    indptr, indices, data, label_ptr, labels, weights, held, W, state, U, averaging, params, codes,
    relevant, scores, margins, losses, taus, round_scores, totals,
):
    """:func:`multilabel_pass` where the rows with ``held[i]`` are held out: scored, never learned.

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk. A held-out row's label scores are
    ``decision_function``'s for the labels in the ranking at its moment, with
    the weights of that moment (:func:`held_out_label_scores`), recorded in
    ``round_scores`` (-inf for the labels not known then) with margin, loss
    and tau 0 (the caller ranks them); its labels are not read, it is no round of the totals
    or of the averaging, and it moves nothing. The other rows are learned
    exactly as by :func:`multilabel_pass` on them alone. Every row is recorded.
    """
    return multilabel_rows(indptr, indices, data, label_ptr, labels, weights, W, state, U, averaging, params, codes,
                           relevant, scores, margins, losses, taus, round_scores, totals, held)


@njit(cache=True, inline="always")
def held_out_label_scores(indices, data, lo, hi, W, U, rounds, start, n_labels, bias, out):
    """out[r] = w_r . x for the labels r < n_labels, as ``decision_function`` scores the CSR row data[lo:hi]
    after ``rounds`` rounds: once averaging has started (``start`` = a > 0 and rounds >= a) with the mean
    ``W - U / (rounds - a + 1)``, each weight averaged as
    :func:`~olearn._kernels._lazy_average.averaged_label_scores` averages it; before, with W (:func:`label_scores`)."""
    if start > 0 and rounds >= start:
        n = float(rounds - start + 1)
        d = W.shape[1] - 1
        for r in range(n_labels):
            s = (W[r, d] - U[r, d] / n) * bias
            for k in range(lo, hi):
                j = indices[k]
                if j < d:
                    s += (W[r, j] - U[r, j] / n) * data[k]
            out[r] = s
    else:
        label_scores(indices, data, lo, hi, W, n_labels, bias, out)


@njit(cache=True, inline="always")
def multilabel_rows(
    indptr, indices, data, label_ptr, labels, weights, W, state, U, averaging, params, codes,
    relevant, scores, margins, losses, taus, round_scores, totals, held,
):
    """The loop of the passes; ``held`` as in :func:`held_out_multilabel_pass` (empty: no row is held out)."""
    record = margins.size > 0
    holding = held.size > 0
    weighted = weights.size > 0
    rule = codes[M_STEP]
    C = params[M_C]
    bias = params[M_BIAS]
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_labels = state[M_ACTIVE]
    n_held = 0
    for i in range(n):
        if holding and held[i]:
            n_held += 1
            held_out_label_scores(indices, data, indptr[i], indptr[i + 1], W, U, averaging[A_ROUNDS] + i - n_held + 1,
                                  averaging[A_START], n_labels, bias, scores)
            for r in range(round_scores.shape[1]):
                round_scores[i, r] = scores[r] if r < n_labels else -math.inf
            margins[i] = 0.0
            losses[i] = 0.0
            taus[i] = 0.0
            continue
        active = n_labels
        for m in range(label_ptr[i], label_ptr[i + 1]):
            if labels[m] >= active:
                active = labels[m] + 1
        margin, loss, tau, ok = multilabel_round(
            indices, data, indptr[i], indptr[i + 1], labels, label_ptr[i], label_ptr[i + 1],
            weights[i] if weighted else 1.0, W, U, round_age(averaging, i - n_held), active, rule, C, bias, relevant,
            scores,
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
    averaging[A_ROUNDS] += n - n_held
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True)
def multilabel_scores(indptr, indices, data, W, bias, out):
    """out[i, r] = w_r . x_i for every row of a CSR matrix and every label."""
    for i in range(indptr.size - 1):
        label_scores(indices, data, indptr[i], indptr[i + 1], W, W.shape[0], bias, out[i])


@njit(cache=True)
def multilabel_map_round(pointers, bidx, bdat, labels, llo, lhi, weight, w, wb, uw, uwb, age, n_labels, rule, C, bias,
                         relevant, scores, zidx, zval, work):
    """One round through a joint feature map Phi(x, r) (Sec. 7, single-prototype); returns (margin, loss, tau, ok).

    ``bidx[pointers[r]:pointers[r + 1]]`` / ``bdat[...]`` hold Phi(x, r) of label
    r < ``n_labels`` as a sparse vector; ``w`` is the one weight vector and
    ``wb[r]`` the weight of label r's intercept feature of value ``bias``.
    The virtual instance is z = Phi(x, r*) - Phi(x, s*) (plus the intercept
    difference), ``||z||^2`` is measured once the two sparse vectors are added
    up in ``work`` (dense scratch of w's size, left as zeros), and ``zidx`` /
    ``zval`` (scratch of bdat's size) keep z for the update. ``weight``,
    ``age``, ``relevant`` and ``scores`` are as in :func:`multilabel_round`;
    ``uw`` and ``uwb`` are the averaging corrections of ``w`` and ``wb``.
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
    tau = weighted_pa_step(rule, loss, sqnorm, C, weight)
    if tau == 0.0 or sqnorm == 0.0:
        return margin, loss, tau, True
    if not (_map_stays_finite(w, wb, zidx, zval, count, r_star, s_star, tau, bias)
            and (age == 0.0 or _map_stays_finite(uw, uwb, zidx, zval, count, r_star, s_star, age * tau, bias))):
        return margin, loss, tau, False
    _map_move(w, wb, zidx, zval, count, r_star, s_star, tau, bias)
    if age > 0.0:
        _map_move(uw, uwb, zidx, zval, count, r_star, s_star, age * tau, bias)
    return margin, loss, tau, True


@njit(cache=True, inline="always")
def _map_stays_finite(w, wb, zidx, zval, count, r, s, tau, bias):
    for c in range(count):
        if not math.isfinite(w[zidx[c]] + tau * zval[c]):
            return False
    step = tau * bias
    return math.isfinite(wb[r] + step) and math.isfinite(wb[s] - step)


@njit(cache=True, inline="always")
def _map_move(w, wb, zidx, zval, count, r, s, tau, bias):
    """w += tau z, and the intercept weights of labels r and s move by +-tau * bias."""
    for c in range(count):
        w[zidx[c]] += tau * zval[c]
    wb[r] += tau * bias
    wb[s] -= tau * bias
