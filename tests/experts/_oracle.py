"""NumPy transcriptions of the experts algorithms, written from the slides' and papers' pseudo-code.

Plain weights (not log-weights), one round at a time, renormalised after each
round so that short test sequences never underflow. No code is shared with
olearn: these are the oracles the compiled kernels are checked against.
"""

import math

import numpy as np


def weighted_majority(advice, y, beta):
    """Littlestone & Warmuth's WM: predict 1 iff W(1) >= W/2; wrong experts times beta.

    The weights are computed as beta ** (mistakes so far), so that experts with
    as many mistakes tie exactly. Returns (predictions, final normalised
    weights). beta = 0 is Halving.
    """
    m, n = advice.shape
    mistakes = np.zeros(n)
    predictions = np.empty(m)
    for t in range(m):
        w = beta**mistakes
        predictions[t] = 1.0 if w[advice[t] == 1].sum() >= w.sum() / 2 else 0.0
        mistakes += advice[t] != y[t]
    w = beta**mistakes
    return predictions, w / w.sum()


def randomized_weighted_majority(advice, y, beta, uniforms):
    """RWM with the given uniforms: predict 1 iff u_t < W(1)/W. Returns (predictions, P(mistake))."""
    m, n = advice.shape
    mistakes = np.zeros(n)
    predictions, mistake_probability = np.empty(m), np.empty(m)
    for t in range(m):
        w = beta**mistakes
        q = w[advice[t] == 1].sum() / w.sum()
        predictions[t] = 1.0 if uniforms[t] < q else 0.0
        mistake_probability[t] = q if y[t] == 0 else 1 - q
        mistakes += advice[t] != y[t]
    return predictions, mistake_probability


def entropic_loss(y, p):
    total = 0.0
    if y > 0:
        total += y * math.log(y / p) if p > 0 else math.inf
    if y < 1:
        total += (1 - y) * math.log((1 - y) / (1 - p)) if p < 1 else math.inf
    return total


LOSSES = {
    "entropic": entropic_loss,
    "square": lambda y, p: (y - p) ** 2,
    "absolute": lambda y, p: abs(y - p),
}


def weighted_average(advice, y, eta, loss):
    """The slides' weighted average algorithm. Returns (predictions, learner losses, final weights)."""
    m, n = advice.shape
    f = LOSSES[loss]
    v = np.full(n, 1.0 / n)
    predictions, losses = np.empty(m), np.empty(m)
    for t in range(m):
        predictions[t] = v @ advice[t]
        losses[t] = f(y[t], predictions[t])
        v = v * np.exp(-eta * np.array([f(y[t], x) for x in advice[t]]))
        v = v / v.sum()
    return predictions, losses, v


def hedge(losses, eta_of_round, restart_at=()):
    """Hedge (HA-1): allocation p_t, loss p_t . l_t, p <- p * exp(-eta_t l_t).

    ``eta_of_round(t)`` gives the rate of the 1-based round t; the weights
    restart from uniform at the rounds in ``restart_at`` (the doubling trick).
    Returns (allocations per round, learner losses, final allocation).
    """
    m, n = losses.shape
    p = np.full(n, 1.0 / n)
    allocations, paid = np.empty((m, n)), np.empty(m)
    for t in range(1, m + 1):
        if t in restart_at:
            p = np.full(n, 1.0 / n)
        allocations[t - 1] = p
        paid[t - 1] = p @ losses[t - 1]
        p = p * np.exp(-eta_of_round(t) * losses[t - 1])
        p = p / p.sum()
    return allocations, paid, p


def fixed_share(losses, eta, alpha):
    """Herbster & Warmuth's Fixed Share: loss update, then share alpha among the other n - 1."""
    m, n = losses.shape
    p = np.full(n, 1.0 / n)
    paid = np.empty(m)
    for t in range(m):
        paid[t] = p @ losses[t]
        v = p * np.exp(-eta * losses[t])
        v = v / v.sum()
        pool = alpha * v
        p = (1 - alpha) * v + (pool.sum() - pool) / (n - 1)
    return paid, p
