"""Compiled Euclidean projections and rounds of projected online gradient descent.

Projections write into a preallocated ``out`` (which may be the input itself) and
use a caller-provided ``scratch`` array of the same length for sorting, so that
the per-round loop of OGD allocates nothing. The feasible set is chosen by an
integer code, the learning-rate schedule by the codes of :mod:`._codes`.
"""

import math

from ._binary_linear import learning_rate
from ._jit import njit

# Feasible sets of projected OGD (the ``domain`` argument).
DOMAIN_L2_BALL = 0  # {x : ||x||_2 <= radius}
DOMAIN_SIMPLEX = 1  # {x : x >= 0, sum x = radius}
DOMAIN_BOX = 2  # {x : low <= x <= high}
DOMAIN_L1_BALL = 3  # {x : ||x||_1 <= radius}

# Which round's learning rate a delayed gradient is applied with.
RATE_CURRENT = 0  # eta_t on round t, the OCO notes' Sec. 4.3 and Slow Learners are Fast
RATE_GRADIENT = 1  # eta_{t - delay}, the rate of the gradient's own round

# Layout of the float64 ``state`` array of OGD.
S_ROUNDS = 0  # gradients received so far
N_STATE = 1


@njit(cache=True)
def project_l2_ball_into(v, radius, out):
    """out = v * min(1, radius / ||v||), with the norm computed without overflow."""
    top = 0.0
    for i in range(v.size):
        top = max(top, abs(v[i]))
    if top == 0.0:
        out[:] = v
        return
    acc = 0.0
    for i in range(v.size):
        r = v[i] / top
        acc += r * r
    norm = top * math.sqrt(acc)
    if norm <= radius:
        out[:] = v
        return
    for i in range(v.size):
        out[i] = (v[i] / norm) * radius


@njit(cache=True)
def simplex_threshold(u_sorted, z):
    """theta of the simplex projection, from the entries sorted in ascending order.

    rho is the largest j with u_(j) - (sum of the j largest - z) / j > 0, counting
    from the largest entry; theta = (sum of the rho largest - z) / rho.
    """
    n = u_sorted.size
    acc = 0.0
    theta = 0.0
    for j in range(1, n + 1):
        u = u_sorted[n - j]
        acc += u
        candidate = (acc - z) / j
        if u - candidate > 0.0:
            theta = candidate
        else:
            break
    return theta


@njit(cache=True)
def project_simplex_into(v, z, scratch, out):
    """out = max(v - theta, 0) with theta chosen so that sum(out) = z (Held et al. 1974).

    The projection commutes with shifting v by a constant, so v is shifted by
    its largest entry first: the threshold is then found among numbers of the
    size of z, not of v (with v = (1e150, 0) and z = 1 the unshifted rule
    loses z entirely: 1e150 - 1 == 1e150).
    """
    top = v[0]
    for i in range(1, v.size):
        top = max(top, v[i])
    for i in range(v.size):
        scratch[i] = v[i] - top
    scratch.sort()
    theta = simplex_threshold(scratch, z)
    for i in range(v.size):
        out[i] = max((v[i] - top) - theta, 0.0)


@njit(cache=True)
def project_box_into(v, low, high, out):
    """out = min(max(v, low), high), entry by entry."""
    for i in range(v.size):
        out[i] = min(max(v[i], low[i]), high[i])


@njit(cache=True)
def project_l1_ball_into(v, radius, scratch, out):
    """v itself if ||v||_1 <= radius, else sign(v) * (simplex projection of |v| with z = radius)."""
    norm = 0.0
    top = 0.0
    for i in range(v.size):
        norm += abs(v[i])
        top = max(top, abs(v[i]))
    if norm <= radius:
        out[:] = v
        return
    # shifted by max |v_i| as in project_simplex_into, so that radius is not lost to rounding
    for i in range(v.size):
        scratch[i] = abs(v[i]) - top
    scratch.sort()
    theta = simplex_threshold(scratch, radius)
    for i in range(v.size):
        a = (abs(v[i]) - top) - theta
        out[i] = 0.0 if a <= 0.0 else (a if v[i] > 0.0 else -a)


@njit(cache=True)
def project_into(v, domain, radius, low, high, scratch, out):
    """Euclidean projection of v onto the feasible set named by ``domain``."""
    if domain == DOMAIN_L2_BALL:
        project_l2_ball_into(v, radius, out)
    elif domain == DOMAIN_SIMPLEX:
        project_simplex_into(v, radius, scratch, out)
    elif domain == DOMAIN_BOX:
        project_box_into(v, low, high, out)
    else:
        project_l1_ball_into(v, radius, scratch, out)


@njit(cache=True)
def ogd_round(g, x, pending, state, low, high, domain, radius, schedule, eta, delay, delayed_rate, step, scratch):
    """Receive the (sub)gradient g_t taken at x_t; apply the one of round t - delay.

    x <- Proj(x - eta_r g_s) with s = t - delay and eta_r from the schedule,
    r = t (``RATE_CURRENT``, the OCO notes' Sec. 4.3) or r = s
    (``RATE_GRADIENT``) (Zinkevich 2003; Langford, Smola & Zinkevich 2009 for
    delay > 0). The
    gradients waiting to be applied live in the ring buffer ``pending``
    (delay rows): round t's gradient goes into row (t - 1) % delay, which holds
    exactly the gradient of round t - delay, so that row is read first.
    Returns the learning rate applied (0 while the first gradients wait).
    """
    t = int(state[S_ROUNDS]) + 1
    state[S_ROUNDS] = t
    if delay == 0:
        rate = learning_rate(schedule, eta, t)
        for i in range(x.size):
            step[i] = x[i] - rate * g[i]
        project_into(step, domain, radius, low, high, scratch, x)
        return rate
    slot = (t - 1) % delay
    rate = 0.0
    if t > delay:
        rate = learning_rate(schedule, eta, t if delayed_rate == RATE_CURRENT else t - delay)
        for i in range(x.size):
            step[i] = x[i] - rate * pending[slot, i]
        project_into(step, domain, radius, low, high, scratch, x)
    pending[slot, :] = g
    return rate


@njit(cache=True)
def ogd_linear_pass(gradients, x, pending, state, low, high, domain, radius, schedule, eta, delay, delayed_rate,
                    step, scratch, points, losses):
    """Projected OGD on the linear losses f_t(x) = g_t . x, one row of ``gradients`` per round.

    Writes each round's loss g_t . x_t and, when ``points`` has one row per
    round, the point x_t played (before the round's update).
    """
    record = points.shape[0] > 0
    for t in range(gradients.shape[0]):
        g = gradients[t]
        if record:
            points[t, :] = x
        value = 0.0
        for i in range(x.size):
            value += g[i] * x[i]
        losses[t] = value
        ogd_round(g, x, pending, state, low, high, domain, radius, schedule, eta, delay, delayed_rate, step, scratch)
