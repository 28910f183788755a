"""The binary linear learners and PA regression in dual form, with a Mercer kernel.

The same move as :mod:`._binary_linear`, ``f <- f + tau z``, with
``z = y K(x, .)`` (binary) or ``z = sign(y - f(x)) K(x, .)`` (regression) in the
kernel's feature space: the update appends ``x`` to the support set with the
coefficient ``alpha = tau y`` (or ``tau sign(y - f(x))``). The step rule is
the linear kernels' own (:func:`._binary_linear.weighted_step_size`, hence the
shared :func:`._steps.weighted_pa_step`) with ``s = ||z||^2 = K(x, x) + offset``
(Crammer et al. 2006, Sec. 3), and an example's importance weight enters it
as in the primal learner. Scores and the support set come from
:mod:`._mercer`.

A kernel given as a Python callable cannot enter these loops; its caller
computes the Gram row ``K(x_i, x) + offset`` of each round and calls
:func:`dual_learn_values`, which shares :func:`dual_update` with the compiled
kernels, so both paths learn alike.
"""

import math

import numpy as np

from ._binary_linear import loss_and_slope, unpack_config, weighted_step_size
from ._codes import (
    LOSS_EPSILON_INSENSITIVE,
    M_BUDGET,
    M_OFFSET,
    M_POLICY,
    S_T,
)
from ._jit import njit
from ._mercer import (
    self_kernel,
    support_insert,
    support_scores,
    unpack_mercer,
)
from ._totals import add_totals


@njit(cache=True)
def dual_update(indices, data, lo, hi, sqnorm, s, y, weight, score, sv_indptr, sv_indices, sv_data, sv_sqnorm,
                sv_coef, sv_count, rng, state, config, budget, policy):
    """Learn one row of importance weight ``weight`` from its score f(x) and ``s = K(x, x) + offset``.

    Returns (loss, tau, ok).

    ``sqnorm`` is ``||x||^2``, kept with the row if it joins the support set.
    ``ok`` is False when the score, ``s`` or the new coefficient is not
    finite; the model is then left as it was.
    """
    if not math.isfinite(score) or not math.isfinite(s):
        return 0.0, 0.0, False
    if config[1] == LOSS_EPSILON_INSENSITIVE:
        residual = y - score
        direction = 1.0 if residual >= 0.0 else -1.0
        margin = config[8] - abs(residual)
    else:
        direction = y
        margin = y * score
    t = state[S_T] + 1.0
    loss, slope = loss_and_slope(config[1], margin)
    tau = weighted_step_size(loss, slope, s, margin, t, config, weight)
    alpha = tau * direction
    if not math.isfinite(alpha):
        return loss, tau, False
    state[S_T] = t
    if tau != 0.0:
        slot = support_insert(indices, data, lo, hi, sqnorm, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                              sv_count, rng, budget, policy)
        sv_coef[slot, 0] = alpha
    return loss, tau, True


@njit(cache=True)
def dual_learn_row(indices, data, lo, hi, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count,
                   rng, state, config, mercer, work, out):
    """Score then learn the row data[lo:hi]; return (score, loss, tau, ok). ``out`` is a scratch of one slot."""
    sqnorm = support_scores(indices, data, lo, hi, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count,
                            mercer, work, out)
    score = out[0]
    loss, tau, ok = dual_update(indices, data, lo, hi, sqnorm, self_kernel(sqnorm, mercer), y, weight, score,
                                sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng, state, config,
                                mercer[5], mercer[6])
    return score, loss, tau, ok


@njit(cache=True)
def dual_pass(indptr, indices, data, y, weights, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng,
              state, params, codes, mcodes, mparams, work, scores, losses, taus, sizes, totals):
    """Progressive validation over the rows of a CSR matrix, as :func:`._binary_linear.binary_linear_pass`.

    ``weights`` holds one importance weight per row, or nothing (every row
    weighs 1). Also records the support-set size after each round in
    ``sizes`` (when the per-round outputs have one slot per row). Returns -1,
    or the index of the row at which learning stopped because the numbers
    overflowed.
    """
    return held_out_dual_pass(indptr, indices, data, y, weights, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                              sv_count, rng, state, params, codes, mcodes, mparams, work, scores, losses, taus, sizes,
                              totals, None)


@njit(cache=True)
def held_out_dual_pass(indptr, indices, data, y, weights, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                       sv_count, rng, state, params, codes, mcodes, mparams, work, scores, losses, taus, sizes, totals,
                       held):
    """:func:`dual_pass` where the rows with ``held[i]`` are held out (``held`` None: none is).

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk: a held-out row is scored by the
    support set of its moment as :func:`dual_scores` scores it, recorded with
    loss and tau 0 (and the support set's size), and is no round (not
    counted, no support vector, no tick of the round counter, no draw of a
    random budget policy).
    """
    record = scores.size > 0
    weighted = weights.size > 0
    config = unpack_config(params, codes)
    mercer = unpack_mercer(mcodes, mparams)
    classify = config[1] != LOSS_EPSILON_INSENSITIVE
    out = np.empty(1)
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
                support_scores(indices, data, indptr[i], indptr[i + 1], sv_indptr, sv_indices, sv_data, sv_sqnorm,
                               sv_coef, sv_count, mercer, work, out)
                scores[i] = out[0]
                losses[i] = 0.0
                taus[i] = 0.0
                sizes[i] = sv_count[0]
            continue
        weight = weights[i] if weighted else 1.0
        score, loss, tau, ok = dual_learn_row(indices, data, indptr[i], indptr[i + 1], y[i], weight, sv_indptr,
                                              sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng, state, config,
                                              mercer, work, out)
        if not ok:
            stopped = i
            n = i
            break
        if record:
            scores[i] = score
            losses[i] = loss
            taus[i] = tau
            sizes[i] = sv_count[0]
        if classify and y[i] * score <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True)
def dual_learn_one(indices, data, y, weight, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng,
                   state, params, codes, mcodes, mparams, work):
    """Predict then learn one example held in its own arrays; returns (score, ok)."""
    score, _, _, ok = dual_learn_row(indices, data, 0, indices.size, y, weight, sv_indptr, sv_indices, sv_data,
                                     sv_sqnorm, sv_coef, sv_count, rng, state, unpack_config(params, codes),
                                     unpack_mercer(mcodes, mparams), work, np.empty(1))
    return score, ok


@njit(cache=True)
def dual_learn_values(indices, data, y, weight, values, self_value, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                      sv_count, rng, state, params, codes, mcodes, mparams):
    """Learn one example of importance weight ``weight`` from kernel values computed outside.

    Returns (score, loss, tau, ok).

    ``values[i] = K(x_i, x)`` for the live support vectors and
    ``self_value = K(x, x)``: the path of a kernel given as a Python callable.
    """
    offset = mparams[M_OFFSET]
    score = 0.0
    for i in range(sv_count[0]):
        score += sv_coef[i, 0] * (values[i] + offset)
    sqnorm = 0.0
    for k in range(indices.size):
        sqnorm += data[k] * data[k]
    loss, tau, ok = dual_update(indices, data, 0, indices.size, sqnorm, self_value + offset, y, weight, score,
                                sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, rng, state,
                                unpack_config(params, codes), mcodes[M_BUDGET], mcodes[M_POLICY])
    return score, loss, tau, ok


@njit(cache=True)
def dual_scores(indptr, indices, data, sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef, sv_count, mcodes, mparams,
                work, out):
    """f(x) of every row of a CSR matrix."""
    mercer = unpack_mercer(mcodes, mparams)
    slot = np.empty(1)
    for i in range(indptr.size - 1):
        support_scores(indices, data, indptr[i], indptr[i + 1], sv_indptr, sv_indices, sv_data, sv_sqnorm, sv_coef,
                       sv_count, mercer, work, slot)
        out[i] = slot[0]
