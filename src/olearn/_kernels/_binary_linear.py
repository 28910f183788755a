"""One compiled engine for the binary linear learners and linear regression.

Every learner here is the move ``w <- w + tau * z`` (DESIGN.md). The task gives
the virtual instance and the margin: binary classification ``z = y x`` and
``m = y w.x``; regression (``LOSS_EPSILON_INSENSITIVE``, y a real target)
``z = sign(y - w.x) x`` and ``m = epsilon - |y - w.x|``. The loss code gives ``l``
from ``m``, the step-rule code turns ``l`` and ``s = ||x||^2`` into ``tau``
(shared by both tasks), and an optional projection onto an L2 ball keeps
the iterate feasible. The weights are stored as ``scale * w`` so that the
projection costs O(1) instead of O(d); the constant feature of the intercept is
the last entry of ``w`` with value ``params[P_BIAS]``.

Importance weights. A pass takes one weight per row (an empty array: every
row weighs 1, the plain path); a weight scales the round's step as the step
rule says (:func:`weighted_step_size`).

Averaging (``average`` of scikit-learn's SGD; not in the source papers). With
the stored vector ``v`` and its scale ``s`` (``w_t = s_t v_t`` after round t),
the sum of the iterates from the start round ``a`` on,
``S_N = sum_{t=a..N} s_t v_t``, is kept lazily in O(nnz) per round. Write
``v_t = v_{t-1} + c_t x_t`` (``c_t = a_t / s_{t-1}``, the step in stored
units) and ``sigma_N = sum_{t=a..N} s_t``. Then

    S_N = sum_t s_t (v_{a-1} + sum_{k<=t} c_k x_k)
        = sigma_N v_{a-1} + sum_{k=a..N} c_k x_k (sigma_N - sigma_{k-1})
        = sigma_N v_N - u_N,      u_N = sum_{k=a..N} sigma_{k-1} c_k x_k,

so a round adds ``sigma_{k-1} c_k x_k`` to ``u`` (the non-zeros of x_k only)
and ``s_k`` to ``sigma``; a projection changes ``s`` alone and costs nothing
more. The average is ``(sigma_N v_N - u_N) / (N - a + 1)``. ``sigma v`` and
``u`` cancel to ``S``, so the scale is folded into ``v`` (O(d), rare) once it
drops below ``_AVERAGE_MIN_SCALE`` rather than ``_MIN_SCALE``, which keeps
the relative rounding error of the average near ``1e5`` machine epsilons.
The fold after round t sets ``u <- u - sigma_{t-1} v_t``, ``sigma <- 0``,
``v <- s_t v_t = w_t`` and ``s <- 1``; the round then adds ``s = 1`` to sigma,
so that ``sigma v - u = w_t + sigma_{t-1} v_t - u_t = S_t`` and the identity
holds again from there on (it only needs sigma and u to start from any pair
that represents the sum so far).

The plain stream (no averaging) runs a compiled pass of its own that never
passes the running sum along (the pass's averaging arguments left out): in
numba every array handed to a function costs reference counting per row,
which the plain PA-I pass would feel; and a learner without averaging never
compiles the averaged loop.
"""

import math

import numpy as np

from ._codes import (
    A_SIGMA,
    A_START,
    K_CONSERVATIVE,
    K_LOSS,
    K_SCHEDULE,
    K_STEP,
    LOSS_EPSILON_INSENSITIVE,
    LOSS_HINGE,
    LOSS_LOGISTIC,
    P_BIAS,
    P_C,
    P_EPSILON,
    P_ETA,
    P_RADIUS,
    S_SCALE,
    S_SQNORM,
    S_T,
    SCHEDULE_CONSTANT,
    SCHEDULE_SQRT,
    STEP_OGD,
    STEP_PERCEPTRON,
)
from ._dicts import VALUES, read_values
from ._jit import njit
from ._rows import canonical_row, csr_ends
from ._steps import pa_step, weighted_pa_step
from ._totals import add_totals

# Below this the stored weights are folded into the scale, so that w / scale
# never overflows however many projections a long stream makes.
_MIN_SCALE = 1e-100
# With averaging the fold comes much earlier: the average is sigma v - u, a difference
# of terms up to 1 / scale times larger than itself (see the module docstring).
_AVERAGE_MIN_SCALE = 1e-5

# The ``avg_state`` array of an averaged learner: slots A_SIGMA and A_START of _codes.


# Unsigned offsets for the row loops (see :func:`round_step`): in numba an unsigned
# integer meeting a signed one becomes a float, so every offset is a uint64.
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_U4 = np.uint64(4)
_DOWN4 = ~np.uint64(3)  # clears the two low bits: rounds down to a multiple of 4


@njit(cache=True)
def learning_rate(schedule, eta, t):
    """eta_t for round t >= 1 (Zinkevich 2003 uses eta / sqrt(t))."""
    if schedule == SCHEDULE_CONSTANT:
        return eta
    if schedule == SCHEDULE_SQRT:
        return eta / math.sqrt(t)
    return eta / t


@njit(cache=True, _nrt=False)
def loss_and_slope(loss, margin):
    """The loss at margin m and its slope -dl/dm (a subgradient for the hinges)."""
    if loss == LOSS_HINGE:
        if margin < 1.0:
            return 1.0 - margin, 1.0
        return 0.0, 0.0
    if loss == LOSS_EPSILON_INSENSITIVE:
        if margin < 0.0:
            return -margin, 1.0
        return 0.0, 0.0
    if loss == LOSS_LOGISTIC:
        # log(1 + exp(-m)) written so that neither branch can overflow
        if margin > 0.0:
            e = math.exp(-margin)
            return math.log1p(e), e / (1.0 + e)
        e = math.exp(margin)
        return -margin + math.log1p(e), 1.0 / (1.0 + e)
    r = 1.0 - margin
    return 0.5 * r * r, r


@njit(cache=True, _nrt=False)
def margin_losses(loss, margins, out):
    """``out[i]``: the loss ``loss`` (a ``_codes`` loss) at the margin ``margins[i]``, as a round reports it
    (:func:`loss_and_slope`); a frozen model's losses of many rows at once (``olearn run -t``)."""
    for i in range(margins.size):
        out[i] = loss_and_slope(loss, margins[i])[0]


@njit(cache=True, _nrt=False)
def step_size(loss, slope, sqnorm, margin, t, config):
    """tau of one round from the loss, ||x||^2 and the margin."""
    rule, _, schedule, conservative, eta, C, _, _, _ = config
    if rule == STEP_PERCEPTRON:
        return eta if margin <= 0.0 else 0.0
    if rule == STEP_OGD:
        if conservative and margin > 0.0:
            return 0.0
        return learning_rate(schedule, eta, t) * slope
    return pa_step(rule, loss, sqnorm, C)


@njit(cache=True, _nrt=False)
def weighted_step_size(loss, slope, sqnorm, margin, t, config, weight):
    """tau of one round of an example of importance weight ``weight >= 0``.

    The weight multiplies the round's loss: the Perceptron's step becomes
    ``weight * eta`` on a mistake and OGD's ``weight * eta_t * (-l'(m))`` (the
    gradient of ``weight * l``); PA, PA-I and PA-II follow
    :func:`._steps.weighted_pa_step` (``C`` becomes ``weight * C``). A weight of 1
    is the unweighted step, bit for bit; the plain stream calls
    :func:`step_size` itself (the weight's arithmetic, even by 1, costs the
    compiled pass several per cent).
    """
    rule = config[0]
    if rule == STEP_PERCEPTRON or rule == STEP_OGD:
        return weight * step_size(loss, slope, sqnorm, margin, t, config)
    return weighted_pa_step(rule, loss, sqnorm, config[5], weight)


@njit(cache=True, inline="always")
def unpack_config(params, codes):
    """The hyperparameters as one tuple of scalars.

    Passing scalars rather than the arrays into the per-row code lets the
    compiler keep them in registers: it cannot prove that the weight updates
    leave the ``params`` and ``codes`` arrays alone.
    """
    return (
        codes[K_STEP],
        codes[K_LOSS],
        codes[K_SCHEDULE],
        codes[K_CONSERVATIVE] != 0,
        params[P_ETA],
        params[P_C],
        params[P_RADIUS],
        params[P_BIAS],
        params[P_EPSILON],
    )


@njit(cache=True)
def score_row(indices, data, lo, hi, w, state, params):
    """w.x for the CSR row data[lo:hi], the intercept included."""
    d = w.size - 1
    dot = w[d] * params[P_BIAS]
    for k in range(lo, hi):
        dot += w[indices[k]] * data[k]
    return state[S_SCALE] * dot


@njit(cache=True, _nrt=False)
def row_score(indices, data, w, state, params):
    """w.x of one example held in its own arrays; a feature past the weights (never learned) counts 0.

    The same sum as :func:`score_row` over the features that have a weight,
    in the same order, so that ``predict_one`` is one compiled call.
    """
    d = w.size - 1
    dot = w[d] * params[P_BIAS]
    for k in range(indices.size):
        j = indices[k]
        if j < d:
            dot += w[j] * data[k]
    return state[S_SCALE] * dot


@njit(cache=True, inline="always")
def round_step(indices, data, lo, hi, y, weight, w, state, config):
    """Score one example of importance weight ``weight`` and size its step; returns (score, loss, tau, a, ||x||^2, ok).

    ``y`` is the label in {-1, +1}, or the real target for the regression loss;
    the update is ``w <- w + a x`` with ``a = tau * direction``. ``ok`` is False
    when the score or ||x||^2 is not finite.

    The row is read at unsigned offsets (a uint64 ``k``, and the column
    ``indices[k]`` widened to uint64): numba takes a negative signed index as
    counting from the end, which costs three more instructions per access.
    Every array is checked where it enters olearn (offsets non-decreasing from
    0, columns in ``[0, w.size - 1)``), so no offset here is negative. The
    loop takes four entries per turn, each sum still added one entry after the
    other (the plain loop's rounding, bit for bit): left to LLVM, the unsigned
    loop is unrolled eightfold with a loop over the remaining entries, which
    made the pass over 60-entry rows slower than the signed loop. The loop is
    written here rather than in a function of its own: LLVM did not inline
    such a function into the pass, and numba's ``inline="always"`` would add
    a level of nesting to compile (see :func:`binary_linear_pass`).
    """
    d = w.size - 1
    bias = config[7]
    scale = state[S_SCALE]
    dot = w[d] * bias
    sqnorm_x = bias * bias
    start = np.uint64(lo)
    stop = np.uint64(hi)
    k = start
    end = start + ((stop - start) & _DOWN4)
    while k < end:
        v0 = data[k]
        v1 = data[k + _U1]
        v2 = data[k + _U2]
        v3 = data[k + _U3]
        dot += w[np.uint64(indices[k])] * v0
        dot += w[np.uint64(indices[k + _U1])] * v1
        dot += w[np.uint64(indices[k + _U2])] * v2
        dot += w[np.uint64(indices[k + _U3])] * v3
        sqnorm_x += v0 * v0
        sqnorm_x += v1 * v1
        sqnorm_x += v2 * v2
        sqnorm_x += v3 * v3
        k += _U4
    while k < stop:
        v = data[k]
        dot += w[np.uint64(indices[k])] * v
        sqnorm_x += v * v
        k += _U1
    score = scale * dot
    if not math.isfinite(score) or not math.isfinite(sqnorm_x):
        return score, 0.0, 0.0, 0.0, sqnorm_x, False
    if config[1] == LOSS_EPSILON_INSENSITIVE:
        residual = y - score
        direction = 1.0 if residual >= 0.0 else -1.0
        margin = config[8] - abs(residual)
    else:
        direction = y
        margin = y * score
    t = state[S_T] + 1.0
    loss, slope = loss_and_slope(config[1], margin)
    if weight == 1.0:
        tau = step_size(loss, slope, sqnorm_x, margin, t, config)
    else:
        tau = weighted_step_size(loss, slope, sqnorm_x, margin, t, config, weight)
    return score, loss, tau, tau * direction, sqnorm_x, True


@njit(cache=True, inline="always")
def learn_row(indices, data, lo, hi, y, weight, w, state, config):
    """Predict then learn one example of importance weight ``weight``; returns (score, loss, tau, ok).

    ``ok`` is False when the score or the updated weights would not be finite;
    the model is then left exactly as it was before this row.
    """
    score, loss, tau, a, sqnorm_x, ok = round_step(indices, data, lo, hi, y, weight, w, state, config)
    if ok:
        ok = move_weights(indices, data, lo, hi, a, tau, score, sqnorm_x, w, state, config, _MIN_SCALE)
    return score, loss, tau, ok


@njit(cache=True, inline="always")
def learn_row_averaged(indices, data, lo, hi, y, weight, w, state, avg, sigma, start, config):
    """:func:`learn_row` adding the new iterate to the running sum ``avg``; returns (score, loss, tau, ok, sigma).

    ``sigma`` and ``start`` are the entries of ``avg_state`` (module docstring),
    carried in registers by the pass; the returned sigma is the new one.

    The sum's terms cannot overflow while ||w||^2 stays finite: the fold keeps
    the scale above ``_AVERAGE_MIN_SCALE``, so ``|v| <= ||w|| / 1e-5`` and
    ``sigma`` is at most the number of rounds.
    """
    score, loss, tau, a, sqnorm_x, ok = round_step(indices, data, lo, hi, y, weight, w, state, config)
    if not ok:
        return score, loss, tau, False, sigma
    scale = state[S_SCALE]
    sqnorm_w, ok = next_sqnorm(a, score, sqnorm_x, state)
    if not ok:
        return score, loss, tau, False, sigma
    state[S_T] += 1.0
    if tau != 0.0:
        d = w.size - 1
        c = a / scale
        cu = sigma * c
        # one loop for both: avg[j] sits on another cache line than w[j], and the
        # two streams of misses overlap (unsigned offsets, as in round_step)
        for k in range(np.uint64(lo), np.uint64(hi)):
            j = np.uint64(indices[k])
            v = data[k]
            w[j] += c * v
            avg[j] += cu * v
        w[d] += c * config[7]
        avg[d] += cu * config[7]
        project(sqnorm_w, w, state, config, 0.0)
        scale = state[S_SCALE]
        if scale < _AVERAGE_MIN_SCALE:
            # u <- u - sigma_{t-1} v_t and sigma <- 0: with s_t = 1 added below, sigma v - u is again the sum
            for i in range(w.size):
                avg[i] -= sigma * w[i]
            sigma = 0.0
            w *= scale
            scale = 1.0
            state[S_SCALE] = 1.0
    if state[S_T] >= start:
        sigma += scale
    return score, loss, tau, True, sigma


@njit(cache=True, _nrt=False, inline="always")
def next_sqnorm(a, score, sqnorm_x, state):
    """||w + a x||^2 from ||w||^2, w.x and ||x||^2, and whether the step w <- w + a x stays finite.

    The step in stored units is ``a / scale``; while the scale is 1 (no
    projection has shrunk w) that is ``a`` itself, and the division is skipped.
    """
    sqnorm_w = state[S_SQNORM] + 2.0 * a * score + a * a * sqnorm_x
    scale = state[S_SCALE]
    return sqnorm_w, math.isfinite(sqnorm_w) and math.isfinite(a if scale == 1.0 else a / scale)


@njit(cache=True, _nrt=False)
def project(sqnorm_w, w, state, config, min_scale):
    """Project w (squared norm ``sqnorm_w``) onto the L2 ball of radius ``config[6]`` (0: none), by its scale.

    A scale below ``min_scale`` is folded into the stored weights (0: never).
    """
    sqnorm_w = max(sqnorm_w, 0.0)
    radius = config[6]
    if radius > 0.0 and sqnorm_w > radius * radius:
        scale = state[S_SCALE] * radius / math.sqrt(sqnorm_w)
        sqnorm_w = radius * radius
        if scale < min_scale:
            w *= scale
            scale = 1.0
        state[S_SCALE] = scale
    state[S_SQNORM] = sqnorm_w


@njit(cache=True, inline="always")
def move_weights(indices, data, lo, hi, a, tau, score, sqnorm_x, w, state, config, min_scale):
    """End round t = state[S_T] + 1 with w <- w + a x (x = data[lo:hi]), then project onto the ball.

    ``score`` is w.x on the current weights and ``sqnorm_x`` is ||x||^2 (the
    intercept's constant included); they keep ||w||^2 up to date in O(nnz).
    Returns False, with the model left exactly as it was, when the update
    would not be finite.
    """
    sqnorm_w, ok = next_sqnorm(a, score, sqnorm_x, state)
    if not ok:
        return False
    state[S_T] += 1.0
    if tau != 0.0:
        d = w.size - 1
        scale = state[S_SCALE]
        # a / 1 is a: no division while no projection has shrunk w (a division per row is ~2% of the PA-I pass)
        c = a if scale == 1.0 else a / scale
        # unsigned offsets, as in round_step
        for k in range(np.uint64(lo), np.uint64(hi)):
            w[np.uint64(indices[k])] += c * data[k]
        w[d] += c * config[7]
        project(sqnorm_w, w, state, config, min_scale)
    return True


@njit(cache=True)
def apply_step(indices, data, a, tau, sqnorm_x, w, state, params, codes):
    """``move_weights`` for a step computed elsewhere (a delayed update measured on a stale copy of w).

    The step's size comes from the round's loss on the stale weights; keeping
    ||w||^2 exact needs w.x on the current ones, which this computes. The
    learner is not averaged.
    """
    score = score_row(indices, data, 0, indices.size, w, state, params)
    return move_weights(indices, data, 0, indices.size, a, tau, score, sqnorm_x, w, state,
                        unpack_config(params, codes), _MIN_SCALE)


# Compiled without numba's reference counting (``_nrt=False``): the passes allocate
# nothing and keep no array past their return, so the counts are not needed, and
# with them every row paid about a dozen calls to increment and decrement the
# counts of the arrays handed to the row functions (~10% of the pass).
@njit(cache=True, _nrt=False)
def binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus, totals,
                       avg=None, avg_state=None, width=None, held=None):
    """Progressive validation over the rows of a CSR matrix, in order.

    Each row is first scored, then learned. A round is a mistake when
    ``y * score <= 0``: a zero score names no class, so it counts as a mistake
    whatever the label (the rounds the mistake bounds count, and a rule that
    does not depend on which class is encoded +1). With the regression loss
    ``y`` holds real targets and no round counts as a mistake. ``weights``
    holds one importance weight per row, or nothing (every row weighs 1). The
    totals count the rounds unweighted. Per-round scores, losses and taus are
    written when the output arrays have one slot per row; pass empty arrays to
    keep only the ``totals`` (mistakes, cumulative loss, updates, rounds).
    Returns -1, or the index of the row at which learning stopped because the
    numbers overflowed. ``avg`` and ``avg_state``: see :func:`averaged_linear_pass`;
    ``width``: see :func:`checking_linear_pass` (then a row that fails its
    checks stops the pass too); ``held``: see :func:`held_out_linear_pass`.

    Left out (None), they make the plain pass: numba prunes the branches that
    test ``avg is None`` (and ``width is None``) before it compiles anything
    of them, so that the plain pass never compiles the averaged round or the
    checks. What numba inlines itself
    (``inline="always"``) is kept to the row functions that LLVM would leave
    as calls (``round_step``, ``move_weights``, ``learn_row_averaged``).
    numba's inlining deep-copies the inlined code block by block, each block
    with the whole scope of the function's variables, at a cost that grows
    with each level of nesting: inlining the small helpers too (loss, step
    size, projection) made the first pass of a fresh install compile about
    eight times longer, and this loop inlined into a pass of its own, with
    ``learn_row`` inlined in it, took the plain pass's compile from about
    1.6 s to 2.8 s of CPU. The helpers are compiled apart, and LLVM inlines
    them: the pass's machine code calls no olearn function. Two leaves that
    call nothing, ``unpack_config`` and ``next_sqnorm``, are inlined by numba:
    copying them costs less than a compile of their own (~0.07 s each).
    """
    config = unpack_config(params, codes)
    record = scores.size > 0
    weighted = weights.size > 0
    classify = config[1] != LOSS_EPSILON_INSENSITIVE
    mistakes = 0.0
    cumulative_loss = 0.0
    updates = 0.0
    stopped = -1
    n = indptr.size - 1
    n_held = 0
    sigma = 0.0
    start = 0.0
    if avg_state is not None:
        sigma = avg_state[A_SIGMA]
        start = avg_state[A_START]
    if width is not None:
        if not csr_ends(indptr, indices.size, data.size):
            n = 0
            stopped = 0
        bound = min(np.uint64(width), np.uint64(w.size - 1))
    for i in range(n):
        if width is not None:
            if not canonical_row(indptr, indices, i, bound):
                stopped = i
                n = i
                break
        if held is not None and held[i]:
            # a held-out row is scored as decision_function scores it (the averaged weights, when averaging),
            # and nothing more
            n_held += 1
            if record:
                if avg_state is not None:
                    avg_state[A_SIGMA] = sigma
                    scores[i] = averaged_score_row(indices, data, indptr[i], indptr[i + 1], w, state, avg,
                                                   avg_state, params)
                else:
                    scores[i] = score_row(indices, data, indptr[i], indptr[i + 1], w, state, params)
                losses[i] = 0.0
                taus[i] = 0.0
            continue
        weight = weights[i] if weighted else 1.0
        if avg is not None:
            score, loss, tau, ok, sigma = learn_row_averaged(indices, data, indptr[i], indptr[i + 1], y[i], weight,
                                                             w, state, avg, sigma, start, config)
        else:
            # learn_row's two calls, written out: one level of numba's inlining less to compile
            lo = indptr[i]
            hi = indptr[i + 1]
            score, loss, tau, a, sqnorm_x, ok = round_step(indices, data, lo, hi, y[i], weight, w, state, config)
            if ok:
                ok = move_weights(indices, data, lo, hi, a, tau, score, sqnorm_x, w, state, config, _MIN_SCALE)
        if not ok:
            stopped = i
            n = i
            break
        if record:
            scores[i] = score
            losses[i] = loss
            taus[i] = tau
        if classify and y[i] * score <= 0.0:
            mistakes += 1.0
        cumulative_loss += loss
        if tau != 0.0:
            updates += 1.0
    if avg_state is not None:
        avg_state[A_SIGMA] = sigma
    add_totals(totals, mistakes, cumulative_loss, updates, n - n_held)
    return stopped


@njit(cache=True, _nrt=False)
def averaged_linear_pass(indptr, indices, data, y, weights, w, state, avg, avg_state, params, codes, scores, losses,
                         taus, totals):
    """:func:`binary_linear_pass` adding each iterate to the running sum ``avg`` (``avg_state``: module docstring).

    A compiled signature of its own, so that a learner without averaging
    never compiles this loop. The recorded scores are those of the current
    weights, never of the average.
    """
    return binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus,
                              totals, avg, avg_state)


@njit(cache=True, _nrt=False)
def checking_linear_pass(indptr, indices, data, width, y, weights, w, state, params, codes, scores, losses, taus,
                         totals):
    """:func:`binary_linear_pass` over CSR arrays it checks itself, each row just before it reads it.

    The arrays are a user's CSR matrix as given, unchecked
    (:func:`olearn._validation.unchecked_csr`); ``width`` (a uint64) is its
    number of columns. ``indptr`` must start at 0 and end at the number of
    entries, the same for ``indices`` and ``data`` (else no row is learned and
    0 is returned); then each row must pass :func:`._rows.canonical_row` with
    the columns below ``width`` and the weights' size, and its values must be
    finite. The pass stops at the first row that does not, and returns it, as
    it returns the row of an overflow: a non-finite value makes ||x||^2 not
    finite, which stops the row before it moves the weights. The caller cannot
    tell the two apart, and does not need to: it puts the learner back as it
    was before the pass and checks the batch with ``check_X``.

    Checked so, rather than by a separate pass over the arrays, the checks
    cost next to nothing: a row's entries are read into the cache once, and
    the learning loop that follows finds them there.
    """
    return binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus,
                              totals, None, None, width)


@njit(cache=True, _nrt=False)
def held_out_linear_pass(indptr, indices, data, y, weights, held, w, state, params, codes, scores, losses, taus,
                         totals):
    """:func:`binary_linear_pass` where the rows with ``held[i]`` are held out: scored, never learned.

    Vowpal Wabbit's hold-out of a multi-pass run (``olearn run --passes N``)
    in one compiled pass over a chunk: a held-out row's score is
    :func:`score_row`'s on the weights of its moment (that of
    ``decision_function``), recorded with loss and tau 0 when the pass
    records; it is no round of the totals, it does not count in the rounds
    ``t`` of a step schedule, and it moves nothing. The other rows are learned
    exactly as by :func:`binary_linear_pass` on them alone. The rows must be
    checked (no ``width``) and the learner plain (no averaging: see
    :func:`held_out_averaged_pass`).
    """
    return binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus,
                              totals, None, None, None, held)


@njit(cache=True, _nrt=False)
def held_out_averaged_pass(indptr, indices, data, y, weights, held, w, state, avg, avg_state, params, codes, scores,
                           losses, taus, totals):
    """:func:`held_out_linear_pass` of an averaging learner (:func:`averaged_linear_pass`): a held-out row is
    scored by the averaged weights of its moment (:func:`averaged_score_row`, as ``decision_function``), and
    adds no iterate to the running sum."""
    return binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus,
                              totals, avg, avg_state, None, held)


@njit(cache=True, _nrt=False)
def checking_averaged_pass(indptr, indices, data, width, y, weights, w, state, avg, avg_state, params, codes, scores,
                           losses, taus, totals):
    """:func:`checking_linear_pass` adding each iterate to the running sum ``avg`` (:func:`averaged_linear_pass`)."""
    return binary_linear_pass(indptr, indices, data, y, weights, w, state, params, codes, scores, losses, taus,
                              totals, avg, avg_state, width)


@njit(cache=True, _nrt=False)
def learn_one_row(indices, data, y, weight, w, state, params, codes):
    """Learn a single example held in its own arrays; returns its score before the update.

    The score is NaN when the example is refused: the score or the updated
    weights would not be finite, and the model is left exactly as it was.
    One compiled call is the whole of ``learn_one``'s work on the model.
    """
    score, _, _, ok = learn_row(indices, data, 0, indices.size, y, weight, w, state, unpack_config(params, codes))
    return score if ok else math.nan


@njit(cache=True, _nrt=False)
def learn_one_row_averaged(indices, data, y, weight, w, state, avg, avg_state, params, codes):
    """:func:`learn_one_row` adding the new iterate to the running sum ``avg`` (``average``)."""
    score, _, _, ok, sigma = learn_row_averaged(indices, data, 0, indices.size, y, weight, w, state, avg,
                                                avg_state[A_SIGMA], avg_state[A_START], unpack_config(params, codes))
    if not ok:
        return math.nan
    avg_state[A_SIGMA] = sigma
    return score


@njit(cache=True, _nrt=False)
def dict_learn_one(dict_address, key_addresses, scratch, indices, data, y, w, state, params, codes):
    """:func:`learn_one_row` of a dict whose keys repeat the last converted row's, read in the same call.

    The values are read into ``data`` by :func:`olearn._kernels._dicts.read_values`
    (the columns ``indices`` are the converted row's); then the example
    (weight 1) is learned exactly as :func:`learn_one_row` learns it. NaN when
    the dict's keys are not those, a value is not a finite number, or the
    example is refused (the model is then unchanged): the caller converts
    and learns the dict on the general path, which says why.
    """
    if read_values(dict_address, key_addresses, data, scratch) != VALUES:
        return math.nan
    score, _, _, ok = learn_row(indices, data, 0, indices.size, y, 1.0, w, state, unpack_config(params, codes))
    return score if ok else math.nan


@njit(cache=True, _nrt=False)
def dict_row_score(dict_address, key_addresses, scratch, indices, data, w, state, params):
    """:func:`row_score` of a dict read as :func:`dict_learn_one` reads it; NaN when it cannot be read so."""
    if read_values(dict_address, key_addresses, data, scratch) != VALUES:
        return math.nan
    return row_score(indices, data, w, state, params)


@njit(cache=True)
def binary_linear_scores(indptr, indices, data, w, state, params, out):
    """Decision values w.x of every row of a CSR matrix."""
    for i in range(indptr.size - 1):
        out[i] = score_row(indices, data, indptr[i], indptr[i + 1], w, state, params)


@njit(cache=True, inline="always")
def averaged_weight(w, avg, j, sigma, rounds):
    """Weight j of the average, ``(sigma v_j - u_j) / (N - a + 1)``: the element-wise operations with which
    ``coef_`` and ``intercept_`` compute the whole averaged vector, so its bits."""
    return (sigma * w[j] - avg[j]) / rounds


@njit(cache=True)
def averaged_score_row(indices, data, lo, hi, w, state, avg, avg_state, params):
    """The averaged weights' w.x for the CSR row data[lo:hi], in a pass: the score of :func:`averaged_scores`.

    Before round ``a`` no iterate is averaged yet and the current weights score,
    as in scikit-learn.
    """
    n = state[S_T]
    start = avg_state[A_START]
    if n < start:
        return score_row(indices, data, lo, hi, w, state, params)
    d = w.size - 1
    sigma = avg_state[A_SIGMA]
    rounds = n - start + 1.0
    dot = 0.0
    for k in range(lo, hi):
        dot += averaged_weight(w, avg, indices[k], sigma, rounds) * data[k]
    return dot + averaged_weight(w, avg, d, sigma, rounds) * params[P_BIAS]


@njit(cache=True)
def averaged_row_score(indices, data, w, state, avg, avg_state, params):
    """The averaged weights' w.x for one example held in its own arrays: the score of :func:`averaged_scores`.

    Before round ``a`` no iterate is averaged yet and the current weights score,
    as in scikit-learn. A feature past the weights (never learned) counts 0:
    the sum skips it, as ``seen_columns`` drops it from a batch, so that a row
    scores the same bits alone and in a batch.
    """
    n = state[S_T]
    start = avg_state[A_START]
    if n < start:
        return row_score(indices, data, w, state, params)
    d = w.size - 1
    sigma = avg_state[A_SIGMA]
    rounds = n - start + 1.0
    dot = 0.0
    for k in range(indices.size):
        j = indices[k]
        if j < d:
            dot += averaged_weight(w, avg, j, sigma, rounds) * data[k]
    return dot + averaged_weight(w, avg, d, sigma, rounds) * params[P_BIAS]


@njit(cache=True)
def averaged_scores(indptr, indices, data, w, state, avg, avg_state, params, out):
    """Decision values of the averaged weights of every row of a CSR matrix: ``X @ coef_ + intercept_``, bit for bit.

    Once averaging has begun (``N >= a``; before, the current weights score:
    :func:`binary_linear_scores`). Each weight a row reads is averaged as it
    is read (:func:`averaged_weight`, the operations of the whole average),
    and the products are summed in the order of scipy's CSR product, from 0,
    the intercept's term added last: the scores of the materialised average
    for O(nnz) work, with no copy of the weights. ``w`` and ``avg`` are the two
    views of the learner's records ``(v_j, u_j)``
    (:func:`olearn._averaging.interleaved`): ``v_j`` and ``u_j`` are read from
    one cache line, so a row costs about what its plain score does.
    """
    d = w.size - 1
    sigma = avg_state[A_SIGMA]
    rounds = state[S_T] - avg_state[A_START] + 1.0
    intercept = averaged_weight(w, avg, d, sigma, rounds) * params[P_BIAS]
    for i in range(indptr.size - 1):
        dot = 0.0
        # unsigned offsets, as in round_step
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            dot += averaged_weight(w, avg, np.uint64(indices[k]), sigma, rounds) * data[k]
        out[i] = dot + intercept
