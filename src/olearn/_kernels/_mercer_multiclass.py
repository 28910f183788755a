"""Compiled multiclass learners in a reproducing-kernel Hilbert space (the dual, multi-prototype form).

Crammer et al. (2006), Sec. 3: every learner of :mod:`._multiclass` needs only
inner products, so with a Mercer kernel ``K`` the prototype of class a is
``w_a = sum_i alpha[i, a] phi(x_i)`` over one support set shared by all classes
(the support set of :mod:`._mercer`, whose coefficient matrix has one column per
class slot), and the score of class a is ``s_a = sum_i alpha[i, a] K'(x_i, x)``
with ``K' = K + bias^2`` (the intercept is a constant feature inside the
kernel's feature map). A round chooses its coefficients ``c_a`` exactly as the
primal engine does (the same ``choose_coefficients``, the same ``pa_step``) with
``||x||^2`` replaced by ``K'(x, x)``: PA's ``||z||^2 = 2 K'(x, x)`` and MIRA's
``A = K'(x, x)``; an importance weight enters the coefficients as there. If
any ``c_a`` is non-zero, x joins the support set (after the budget's eviction,
if it is full) with the coefficient row ``c``.

Scores use :mod:`._mercer`'s scatter / gather evaluation, except that a support
vector stored as one contiguous run of features (a row of dense input, kept
with its zeros) is read through slices by :func:`run_dot`, which the compiler
vectorises.
"""

import math

from ._jit import njit
from ._mercer import (
    clear_row,
    gather_dot,
    scatter_row,
    support_kernel,
    self_kernel,
    support_insert,
    unpack_mercer,
)
from ._multiclass import (
    choose_coefficients,
    predict_and_join,
    unpack_config,
)
from ._multiclass_codes import OK, OVERFLOW, RULE_MIRA, RULE_PA
from ._steps import weighted_pa_step
from ._totals import add_totals


@njit(cache=True, fastmath={"reassoc", "contract"})
def run_dot(sv_data, lo, hi, work, start):
    """x_i . x for a support vector stored as one run of features from ``start`` (a dense row).

    Read through slices, whose indices the compiler knows to be non-negative,
    the loop vectorises; indexed with ``k + shift`` it keeps a negative-index
    check per element and runs about ten times slower.
    """
    a = sv_data[lo:hi]
    b = work[start: start + hi - lo]
    dot = 0.0
    for k in range(a.size):
        dot += a[k] * b[k]
    return dot


@njit(cache=True)
def class_scores(indices, data, lo, hi, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, mercer, work,
                 out):
    """``out[a] = sum_i sv_coef[i, a] K'(x_i, x)`` for the slots a < out.size; returns ||x||^2.

    One kernel evaluation per support vector, shared by every class.
    """
    for a in range(out.size):
        out[a] = 0.0
    sqnorm = scatter_row(indices, data, lo, hi, work)
    for i in range(sv_count[0]):
        start, stop = sv_indptr[i], sv_indptr[i + 1]
        if stop > start and sv_indices[stop - 1] - sv_indices[start] == stop - 1 - start:
            dot = run_dot(sv_data, start, stop, work, sv_indices[start])
        else:
            dot = gather_dot(sv_indices, sv_data, start, stop, work)
        value = support_kernel(dot, i, sv_indptr, sv_indices, sv_sqnorm, sv_data, indices, data, lo, hi, sqnorm, mercer,
                               work)
        for a in range(out.size):
            out[a] += sv_coef[i, a] * value
    clear_row(indices, lo, hi, work)
    return sqnorm


@njit(cache=True)
def learn_with_scores(scores, kxx, sqnorm, indices, data, lo, hi, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm,
                      sv_coef, sv_count, rng, n_active, ranks, margins, params, codes, mercer, coef, work):
    """Learn one row of importance ``weight`` whose class scores (slots < ``n_active[0]``) and ``K'(x, x)`` are known.

    Returns (prediction slot, loss, tau, mistake, moved, status). On OVERFLOW (a
    non-finite ``K'(x, x)``, score or coefficient) nothing changes.
    """
    rule, rival, step, split, C, beta, _ = unpack_config(params, codes)
    n = n_active[0]
    probe = kxx * 0.0
    for a in range(n):
        probe += scores[a] * 0.0
    if probe != 0.0:
        return -1, 0.0, 0.0, True, False, OVERFLOW
    pred, wrong, n = predict_and_join(scores, n, y, ranks)
    mistake = pred < 0 or (wrong >= 0 and scores[wrong] >= scores[y])
    loss, tau, r = choose_coefficients(rule, rival, split, beta, scores, n, y, pred, wrong, ranks, margins,
                                       kxx if rule == RULE_MIRA else 0.0, weight, work, coef)
    if rule == RULE_PA and r >= 0:
        tau = weighted_pa_step(step, loss, 2.0 * kxx, C, weight)
        coef[y] = tau
        coef[r] = -tau
    moved = False
    for a in range(n):
        if coef[a] != 0.0:
            moved = True
            probe += coef[a] * 0.0
    if probe != 0.0:
        return pred, loss, tau, mistake, False, OVERFLOW
    if moved:
        _, _, _, _, _, budget, policy = mercer
        new = support_insert(indices, data, lo, hi, sqnorm, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                             sv_count, rng, budget, policy)
        for a in range(n):
            sv_coef[new, a] = coef[a]
    n_active[0] = n
    return pred, loss, tau, mistake, moved, OK


@njit(cache=True)
def dual_learn_row(indices, data, lo, hi, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng,
                   n_active, ranks, margins, params, codes, mercer, work_x, scores, coef, work):
    """Score one CSR row with one kernel evaluation per support vector, then learn it."""
    sqnorm = class_scores(indices, data, lo, hi, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count,
                          mercer, work_x, scores[: n_active[0]])
    return learn_with_scores(scores, self_kernel(sqnorm, mercer), sqnorm, indices, data, lo, hi, y, weight, sv_indptr,
                             sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng, n_active, ranks, margins,
                             params, codes, mercer, coef, work)


@njit(cache=True)
def dual_pass(indptr, indices, data, first, last, y, weights, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
              sv_count, rng, n_active, ranks, margins, params, codes, mcodes, mparams, work_x, scores, coef, work,
              out_scores, preds, losses, taus, mistakes, supports, totals):
    """Progressive validation over rows ``first .. last - 1`` of a CSR matrix with label slots ``y``.

    ``weights``: the importance weight of each row (indexed like ``y``), or empty for weight 1.

    Per-round outputs are written at index i when ``preds`` has one slot per row
    (``out_scores``: the class scores before the update, -inf for a class not yet
    known; ``supports``: the size of the support set after the round). Returns
    -1, or the row at which learning stopped because the numbers overflowed.
    """
    record = preds.size > 0
    weighted = weights.size > 0
    mercer = unpack_mercer(mcodes, mparams)
    n_mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    done = 0
    for i in range(first, last):
        known = n_active[0]
        pred, loss, tau, mistake, moved, status = dual_learn_row(
            indices, data, indptr[i], indptr[i + 1], y[i], weights[i] if weighted else 1.0, sv_indptr, sv_indices,
            sv_data, sv_sqnorm, sv_coef, sv_count, rng, n_active, ranks, margins, params, codes, mercer, work_x, scores,
            coef, work)
        if status != OK:
            stopped = i
            break
        done += 1
        if record:
            for a in range(out_scores.shape[1]):
                out_scores[i, a] = scores[a] if a < known else -math.inf
            preds[i] = pred
            losses[i] = loss
            taus[i] = tau
            mistakes[i] = mistake
            supports[i] = sv_count[0]
        n_mistakes += mistake
        cumulative_loss += loss
        updates += moved
    add_totals(totals, n_mistakes, cumulative_loss, updates, done)
    return stopped


@njit(cache=True)
def dual_learn_one(indices, data, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng,
                   n_active, ranks, margins, params, codes, mcodes, mparams, work_x, scores, coef, work):
    """``dual_learn_row`` for one example in its own arrays."""
    return dual_learn_row(indices, data, 0, indices.size, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm,
                          sv_coef, sv_count, rng, n_active, ranks, margins, params, codes,
                          unpack_mercer(mcodes, mparams), work_x, scores, coef, work)


@njit(cache=True)
def learn_with_scores_one(scores, kxx, sqnorm, indices, data, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm,
                          sv_coef, sv_count, rng, n_active, ranks, margins, params, codes, mcodes, mparams, coef, work):
    """``learn_with_scores`` for an example scored outside compiled code (a Python kernel)."""
    return learn_with_scores(scores, kxx, sqnorm, indices, data, 0, indices.size, y, weight, sv_indptr, sv_indices,
                             sv_data, sv_sqnorm, sv_coef, sv_count, rng, n_active, ranks, margins, params, codes,
                             unpack_mercer(mcodes, mparams), coef, work)


@njit(cache=True)
def dual_decision(indptr, indices, data, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, mcodes, mparams,
                  work_x, out):
    """Class scores ``out[i, a]`` of every row for the first ``out.shape[1]`` slots, without learning."""
    mercer = unpack_mercer(mcodes, mparams)
    for i in range(indptr.size - 1):
        class_scores(indices, data, indptr[i], indptr[i + 1], sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                     sv_count, mercer, work_x, out[i])
