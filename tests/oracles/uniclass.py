"""PA uniclass prediction transcribed from the paper, in plain NumPy.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Sec. 6. Written from the math alone (not from
olearn's kernels): dense vectors, one round per loop iteration.

    l_t     = max(0, ||w_t - y_t|| - epsilon)                      (Eq. 21)
    tau_t   = l_t (PA), min(C, l_t) (PA-I), l_t / (1 + 1/(2C)) (PA-II)
    w_{t+1} = w_t + tau_t (y_t - w_t) / ||y_t - w_t||

Radius learning: the same algorithm, literally run on the lifted vectors
(y_t, 0) in n + 1 dimensions with radius B, from the lifted start (0, ..., 0, B);
the radius of round t is sqrt(B^2 - a_t^2), a_t the last coordinate.
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class UniclassTrace:
    center: np.ndarray  # final center, shape (d,)
    radius: float  # final radius
    centers: np.ndarray  # center before each round, shape (n, d)
    radii: np.ndarray  # radius before each round
    margins: np.ndarray  # radius - ||y_t - w_t|| before each update
    losses: np.ndarray  # loss of each round (the lifted loss when the radius is learned)
    taus: np.ndarray


def step(variant, loss, C):
    """tau of PA / PA-I / PA-II for a unit virtual instance."""
    if variant == "pa":
        return loss
    if variant == "pa1":
        return min(C, loss)
    if variant == "pa2":
        return loss / (1.0 + 1.0 / (2.0 * C))
    raise ValueError(variant)


def _fixed_radius(Y, w, variant, C, epsilon, weights=None):
    """``weights`` (olearn's importance weights, beyond the paper): C becomes weights[t] * C, weight 0 no step."""
    centers, losses, taus = [], [], []
    weights = np.ones(len(Y)) if weights is None else np.asarray(weights, dtype=np.float64)
    for y, weight in zip(Y, weights):
        centers.append(w.copy())
        distance = np.linalg.norm(y - w)
        loss = max(0.0, distance - epsilon)
        tau = step(variant, loss, weight * C) if weight > 0 else 0.0
        if loss > 0:
            w = w + tau * (y - w) / distance
        losses.append(loss)
        taus.append(tau)
    return w, np.array(centers).reshape(len(Y), -1), np.array(losses), np.array(taus)


def pa_uniclass(Y, variant="pa", C=1.0, epsilon=0.1, weights=None):
    Y = np.asarray(Y, dtype=np.float64)
    w, centers, losses, taus = _fixed_radius(Y, np.zeros(Y.shape[1]), variant, C, epsilon, weights)
    distances = np.linalg.norm(Y - centers, axis=1)
    return UniclassTrace(w, epsilon, centers, np.full(len(Y), epsilon), epsilon - distances, losses, taus)


def pa_uniclass_learned_radius(Y, variant="pa", C=1.0, B=1.0, weights=None):
    Y = np.asarray(Y, dtype=np.float64)
    lifted = np.hstack([Y, np.zeros((Y.shape[0], 1))])
    start = np.zeros(Y.shape[1] + 1)
    start[-1] = B
    w, centers, losses, taus = _fixed_radius(lifted, start, variant, C, B, weights)
    radii = np.sqrt(B**2 - centers[:, -1] ** 2)
    distances = np.linalg.norm(Y - centers[:, :-1], axis=1)
    return UniclassTrace(w[:-1], float(np.sqrt(B**2 - w[-1] ** 2)), centers[:, :-1], radii, radii - distances,
                         losses, taus)


def pa_uniclass_learned_radius_exact(Y, variant="pa", C=1.0, B=1.0, digits=60):
    """The lifted algorithm above in ``digits``-digit arithmetic (mpmath), for a B far above the data.

    Sec. 6 wants B "far greater than any conceivable value of epsilon"; in double
    precision the lifted coordinate a_t = B (1 - tiny) then loses the radius
    sqrt(B^2 - a_t^2) to cancellation, so this transcription keeps every digit.
    Returns (centers before each round (n, d), radii before each round (n,),
    lifted losses (n,)) as float64 arrays.
    """
    import mpmath

    with mpmath.workdps(digits):
        B = mpmath.mpf(B)
        C = mpmath.mpf(C)
        d = len(Y[0])
        w = [mpmath.mpf(0)] * d + [B]  # the lifted start (0, ..., 0, B): epsilon_1 = 0
        centers, radii, losses = [], [], []
        for row in Y:
            lifted = [mpmath.mpf(float(v)) for v in row] + [mpmath.mpf(0)]
            centers.append([float(v) for v in w[:-1]])
            radii.append(float(mpmath.sqrt(B**2 - w[-1] ** 2)))
            distance = mpmath.sqrt(sum((p - q) ** 2 for p, q in zip(lifted, w)))
            loss = max(mpmath.mpf(0), distance - B)
            tau = {"pa": loss, "pa1": min(C, loss), "pa2": loss / (1 + 1 / (2 * C))}[variant]
            if loss > 0:
                w = [q + tau * (p - q) / distance for p, q in zip(lifted, w)]
            losses.append(float(loss))
    return np.array(centers), np.array(radii), np.array(losses)
