"""Independent references for the projections and for projected OGD, in plain NumPy/SciPy.

* ``simplex_by_sorting``: the sort-based rule written with cumulative sums;
* ``simplex_by_bisection``: bisection on the threshold theta of max(v - theta, 0);
* ``simplex_by_scipy``: the quadratic program solved by scipy.optimize (small cases);
* ``ogd``: Zinkevich's greedy projection with delayed gradients, one round at a time
  (the OCO notes, Sec. 4.3: w^{t+1} = Proj(w^t - eta_t grad c^{t - tau}(w^{t - tau}))).
"""

import numpy as np
from scipy.optimize import minimize


def simplex_by_sorting(v, z=1.0):
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    j = np.arange(1, v.size + 1)
    rho = j[u - (css - z) / j > 0][-1]
    theta = (css[rho - 1] - z) / rho
    return np.maximum(v - theta, 0.0)


def simplex_by_bisection(v, z=1.0, iterations=200):
    low, high = v.min() - z / v.size - 1.0, v.max()
    for _ in range(iterations):
        mid = 0.5 * (low + high)
        if np.maximum(v - mid, 0.0).sum() > z:
            low = mid
        else:
            high = mid
    return np.maximum(v - 0.5 * (low + high), 0.0)


def simplex_by_scipy(v, z=1.0):
    n = v.size
    result = minimize(
        lambda x: 0.5 * np.sum((x - v) ** 2),
        np.full(n, z / n),
        jac=lambda x: x - v,
        method="SLSQP",
        bounds=[(0.0, None)] * n,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - z, "jac": lambda x: np.ones(n)}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return result.x


def l1_ball_by_scipy(v, radius):
    """min ||x - v||^2 / 2 s.t. ||x||_1 <= r, as a QP in (x+, x-) >= 0."""
    n = v.size
    start = np.zeros(2 * n)
    result = minimize(
        lambda w: 0.5 * np.sum((w[:n] - w[n:] - v) ** 2),
        start,
        jac=lambda w: np.concatenate([w[:n] - w[n:] - v, -(w[:n] - w[n:] - v)]),
        method="SLSQP",
        bounds=[(0.0, None)] * (2 * n),
        constraints=[{"type": "ineq", "fun": lambda w: radius - w.sum(), "jac": lambda w: -np.ones(2 * n)}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return result.x[:n] - result.x[n:]


def ogd(gradient_at, n_rounds, project, start, rate, delay=0, rate_of="current"):
    """Greedy projection with delay: x_{t+1} = project(x_t - rate(r) g_s), s = t - delay.

    r = t (``rate_of="current"``, the notes' Sec. 4.3) or r = s (``"gradient"``).
    ``gradient_at(t, x)`` is the (sub)gradient of round t (0-based) at the point
    played; no move while s < 1. Returns the points played, one row per round.
    """
    x = start.copy()
    points, received = [], []
    for t in range(1, n_rounds + 1):
        points.append(x.copy())
        received.append(gradient_at(t - 1, x.copy()))
        s = t - delay
        if s >= 1:
            x = project(x - rate(t if rate_of == "current" else s) * received[s - 1])
    return np.array(points)
