"""Compiled rounds of prediction with expert advice (exponential weights, log domain).

Every learner of :mod:`olearn.experts` keeps one log-weight per expert and makes
the same move after each round: ``log w_i <- log w_i - rate * loss_i``. Only the
prediction and the loss differ:

* voting (Halving, Weighted Majority): binary advice, the weighted majority vote
  (ties go to 1), 0/1 losses, ``rate = ln(1/beta)`` (infinite for Halving, whose
  wrong experts drop out); the log-weights are recomputed from the mistake
  counts, ``-rate * (M_i - min M)``, so that equal counts tie exactly;
* randomized voting: predict 1 with probability equal to the weight on 1;
* weighted average: advice in [0, 1], the weighted mean of the advice, a loss code;
* allocation (Hedge, Fixed Share): a loss vector, the learner's loss is the
  weighted mean of it (or the loss of one sampled expert), an optional share step.

The log-weights are shifted after every round so that their maximum is 0: the
weights ``exp(log w)`` then lie in [0, 1] with at least one equal to 1, so their
sum neither overflows nor underflows however long the stream is.

Kernels take arrays and scalars in the order data -> labels -> state ->
hyperparameters -> outputs, and write their per-round results into preallocated outputs.
"""

import math

import numpy as np

from ._jit import njit

# How the advice learners predict (the ``vote`` argument of advice_pass).
VOTE_MAJORITY = 0  # deterministic weighted majority; Halving when rate = inf
VOTE_RANDOMIZED = 1  # predict 1 with probability W(advice 1) / W
VOTE_AVERAGE = 2  # weighted average of advice in [0, 1]

# Losses of the weighted average (the ``loss`` argument of advice_pass).
LOSS_ENTROPIC = 0  # y ln(y/p) + (1-y) ln((1-y)/(1-p)), 0 ln 0 = 0
LOSS_SQUARE = 1  # (y - p)^2
LOSS_ABSOLUTE = 2  # |y - p|

# Layout of the float64 ``state`` array.
S_ROUNDS = 0  # rounds learned so far
S_LOSS = 1  # cumulative expected loss of the learner
S_REALIZED = 2  # cumulative realised loss (mistakes of the voting learners)
N_STATE = 3


@njit(cache=True)
def normalize_log_weights(log_w):
    """Shift log-weights so that their maximum is 0; False if every weight is 0."""
    top = -math.inf
    for i in range(log_w.size):
        if log_w[i] > top:
            top = log_w[i]
    if top == -math.inf:
        return False
    for i in range(log_w.size):
        log_w[i] -= top
    return True


@njit(cache=True)
def average_loss(loss, y, p):
    """Loss of prediction p in [0, 1] on outcome y in [0, 1]."""
    if loss == LOSS_SQUARE:
        return (y - p) * (y - p)
    if loss == LOSS_ABSOLUTE:
        return abs(y - p)
    value = 0.0
    if y > 0.0:
        value += y * (math.log(y) - math.log(p)) if p > 0.0 else math.inf
    if y < 1.0:
        value += (1.0 - y) * (math.log1p(-y) - math.log1p(-p)) if p < 1.0 else math.inf
    return value


@njit(cache=True)
def advice_prediction(advice, log_w, vote, u):
    """(prediction, probability of predicting 1 or the mean) of one round of advice.

    ``u`` in [0, 1) is the uniform draw of the randomized vote (ignored otherwise).
    """
    total = 0.0
    mass = 0.0
    low = math.inf
    high = -math.inf
    for i in range(advice.size):
        w = math.exp(log_w[i])
        total += w
        mass += w * advice[i]
        if w > 0.0:
            low = min(low, advice[i])
            high = max(high, advice[i])
    share = mass / total
    if vote == VOTE_AVERAGE:
        # rounding must not push the mean outside the advice it averages
        share = min(max(share, low), high)
        return share, share
    if vote == VOTE_RANDOMIZED:
        return (1.0 if u < share else 0.0), share
    return (1.0 if share >= 0.5 else 0.0), share


@njit(cache=True)
def advice_round(advice, y, u, log_w, expert_losses, state, rate, vote, loss, work):
    """Predict then learn one round of advice; returns (ok, prediction, loss, expected loss).

    On failure (no expert keeps a positive weight) nothing is changed.
    """
    prediction, share = advice_prediction(advice, log_w, vote, u)
    if vote == VOTE_AVERAGE:
        realized = average_loss(loss, y, prediction)
        expected = realized
        for i in range(advice.size):
            work[i] = average_loss(loss, y, advice[i])
    else:
        realized = 1.0 if prediction != y else 0.0
        expected = (1.0 - share if y == 1.0 else share) if vote == VOTE_RANDOMIZED else realized
        for i in range(advice.size):
            work[i] = 1.0 if advice[i] != y else 0.0
    survivor = False
    for i in range(advice.size):
        if log_w[i] > -math.inf and (work[i] == 0.0 or (rate < math.inf and work[i] < math.inf)):
            survivor = True
    if not survivor:
        return False, prediction, realized, expected
    if vote == VOTE_AVERAGE:
        for i in range(advice.size):
            log_w[i] -= rate * work[i]
            expert_losses[i] += work[i]
        normalize_log_weights(log_w)
    else:
        # beta^M_i straight from the mistake counts, so that experts with as many
        # mistakes tie exactly (incremental updates would differ in the last bit);
        # the fewest mistakes get log-weight 0, and inf * 0 never arises for Halving.
        for i in range(advice.size):
            expert_losses[i] += work[i]
        fewest = np.min(expert_losses)
        for i in range(advice.size):
            extra = expert_losses[i] - fewest
            log_w[i] = 0.0 if extra == 0.0 else -rate * extra
    state[S_ROUNDS] += 1.0
    state[S_LOSS] += expected
    state[S_REALIZED] += realized
    return True, prediction, realized, expected


@njit(cache=True)
def advice_pass(advice, y, uniforms, log_w, expert_losses, state, rate, vote, loss, work,
                predictions, losses, expected_losses, best_losses):
    """Progressive validation over the rows of an advice matrix (m, n).

    Writes, per row, the prediction, the realised and expected loss of the learner
    and the smallest cumulative loss of any expert after the row. Returns -1, or
    the row at which no expert would keep a positive weight (that row is not learned).
    """
    for t in range(advice.shape[0]):
        ok, prediction, realized, expected = advice_round(
            advice[t], y[t], uniforms[t], log_w, expert_losses, state, rate, vote, loss, work
        )
        if not ok:
            return t
        predictions[t] = prediction
        losses[t] = realized
        expected_losses[t] = expected
        best_losses[t] = np.min(expert_losses)
    return -1


@njit(cache=True)
def allocation_weights(log_w, out):
    """The allocation exp(log w) / sum exp(log w)."""
    total = 0.0
    for i in range(log_w.size):
        out[i] = math.exp(log_w[i])
        total += out[i]
    for i in range(log_w.size):
        out[i] /= total


@njit(cache=True)
def choose_expert(weights, u):
    """The expert drawn by the uniform u from normalised weights (inverse CDF).

    The last expert with a positive weight catches a u that rounding leaves
    above the final cumulative sum.
    """
    chosen = -1
    acc = 0.0
    for i in range(weights.size):
        if weights[i] > 0.0:
            chosen = i
            acc += weights[i]
            if u < acc:
                break
    return chosen


@njit(cache=True)
def doubling_eta(n, t):
    """eta of round t under the doubling trick: sqrt(2 ln n / 2^r) in the epoch [2^r, 2^(r+1))."""
    start = 1
    while 2 * start <= t:
        start *= 2
    return math.sqrt(2.0 * math.log(n) / start)


@njit(cache=True)
def allocation_round(loss_vector, u, log_w, expert_losses, state, low, scale, eta, alpha, doubling, randomized, work):
    """One round of Hedge (with the share step of Fixed Share when alpha > 0).

    Losses are mapped to [0, 1] by ``(l - low) / scale`` for the update; the
    reported losses stay in the caller's units. Under the doubling trick the
    rate is that of the round's epoch, and the weights are reset to uniform
    when the next round opens an epoch (is a power of two).
    Returns (chosen expert or -1, realised loss, expected loss, eta used).
    """
    n = log_w.size
    t = int(state[S_ROUNDS]) + 1
    rate = doubling_eta(n, t) if doubling else eta
    allocation_weights(log_w, work)
    expected = 0.0
    for i in range(n):
        expected += work[i] * loss_vector[i]
    chosen = -1
    realized = expected
    if randomized:
        chosen = choose_expert(work, u)
        realized = loss_vector[chosen]
    for i in range(n):
        log_w[i] -= rate * (loss_vector[i] - low) / scale
        expert_losses[i] += loss_vector[i]
    normalize_log_weights(log_w)
    if alpha > 0.0 and n > 1:
        # Herbster & Warmuth (1998): each expert keeps 1 - alpha of its weight
        # and the pool alpha * W is shared equally among the other n - 1.
        allocation_weights(log_w, work)
        for i in range(n):
            log_w[i] = math.log((1.0 - alpha) * work[i] + alpha * (1.0 - work[i]) / (n - 1))
        normalize_log_weights(log_w)
    if doubling and ((t + 1) & t) == 0:
        log_w[:] = 0.0
    state[S_ROUNDS] = t
    state[S_LOSS] += expected
    state[S_REALIZED] += realized
    return chosen, realized, expected, rate


@njit(cache=True)
def allocation_pass(loss_matrix, uniforms, log_w, expert_losses, state, low, scale, eta, alpha, doubling, randomized,
                    work, choices, losses, expected_losses, best_losses, etas):
    """Hedge / Fixed Share over the rows of a loss matrix (m, n); per-row outputs as in advice_pass."""
    for t in range(loss_matrix.shape[0]):
        chosen, realized, expected, rate = allocation_round(
            loss_matrix[t], uniforms[t], log_w, expert_losses, state, low, scale, eta, alpha, doubling, randomized, work
        )
        choices[t] = chosen
        losses[t] = realized
        expected_losses[t] = expected
        best_losses[t] = np.min(expert_losses)
        etas[t] = rate
