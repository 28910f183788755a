"""Online dual ascent transcribed from the paper, in plain NumPy and SciPy.

Shalev-Shwartz & Singer, "Online Learning meets Optimization in the Dual",
COLT 2006. For the examples so far,

    D(alpha) = gamma sum_i alpha_i - F*(sum_i alpha_i y_i x_i),  0 <= alpha_i <= C,

and the learner predicts with w = grad F*(theta), theta = sum_i alpha_i y_i x_i.
F* is written here from its definition: 1/2 ||theta||^2 (l2);
log of the mean of exp over the 2n coordinates (theta, -theta) (entropy);
1/2 ||theta||_p^2 (pnorm). The gradients are taken by hand.

Updates of round t (l = [gamma - y w.x]_+, s = ||x||_*^2 / sigma):
conservative, Eq. (16): alpha_t = C if y w.x <= 0; aggressive, Eq. (28):
alpha_t = min(l, C); last-k, Eq. (31): maximize D over the last k
variables; all: maximize D over every variable so far. The sub-problems are
solved with SciPy's L-BFGS-B (a solver independent of olearn's coordinate
ascent), so agreement is up to that solver's accuracy.

Importance weights (``sample_weight``, c_i >= 0; beyond the paper): the primal
loss of example i is multiplied by c_i, so its box is 0 <= alpha_i <= c_i C.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp


@dataclass
class Trace:
    coef: np.ndarray
    intercept: float
    scores: np.ndarray
    taus: np.ndarray  # alpha_t after round t
    duals: np.ndarray  # D(alpha) after each round
    alpha: np.ndarray  # every dual variable at the end


def conjugate(theta, regularizer, p):
    """F*(theta) and grad F*(theta)."""
    if regularizer == "l2":
        return 0.5 * theta @ theta, theta
    if regularizer == "entropy":
        both = np.concatenate([theta, -theta])
        value = logsumexp(both) - np.log(both.size)
        soft = np.exp(both - logsumexp(both))
        return value, soft[: theta.size] - soft[theta.size :]
    norm = np.linalg.norm(theta, p)
    if norm == 0:
        return 0.0, np.zeros_like(theta)
    return 0.5 * norm**2, np.sign(theta) * np.abs(theta) ** (p - 1) / norm ** (p - 2)


def dual_sqnorm(x, regularizer, p):
    if regularizer == "l2":
        return x @ x
    if regularizer == "entropy":
        return np.max(np.abs(x)) ** 2
    return (p - 1) * np.linalg.norm(x, p) ** 2


def _maximize(Z, y, alpha, window, regularizer, p, boxes, gamma):
    """alpha with the variables in ``window`` set to the maximizers of D (alpha_i in [0, boxes_i]), the others fixed."""
    fixed = alpha.copy()
    fixed[window] = 0.0
    base = Z.T @ (fixed * y)
    Zw, yw = Z[window], y[window]
    out = alpha.copy()
    # D grows as gamma a_i along a zero row's coordinate (it moves no weight): its maximizer is the box's top
    out[window] = [boxes[i] for i in window]
    if not np.any(Zw):
        return out

    def negative(a):
        value, grad = conjugate(base + Zw.T @ (a * yw), regularizer, p)
        return value - gamma * a.sum(), (Zw @ grad) * yw - gamma

    found = minimize(negative, alpha[window], jac=True, method="L-BFGS-B", bounds=[(0.0, boxes[i]) for i in window],
                     options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000})
    out[window] = np.where(np.any(Zw != 0, axis=1), found.x, out[window])
    return out


def dual_ascent(X, y, regularizer="l2", p=2.0, update="conservative", C=1.0, gamma=1.0, k=1, fit_intercept=False,
                sample_weight=None):
    X = np.asarray(X, dtype=float)
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    y = np.asarray(y, dtype=float)
    boxes = C * (np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float))
    alpha = np.zeros(len(y))
    scores, taus, duals = [], [], []
    for t in range(len(y)):
        theta = Z[:t].T @ (alpha[:t] * y[:t])
        w = conjugate(theta, regularizer, p)[1]
        score = w @ Z[t]
        scores.append(score)
        if update == "conservative":
            alpha[t] = boxes[t] if y[t] * score <= 0 else 0.0
        elif update == "aggressive":
            alpha[t] = min(max(0.0, gamma - y[t] * score), boxes[t])
        else:
            window = list(range(0 if update == "all" else max(0, t - k + 1), t + 1))
            alpha[: t + 1] = _maximize(Z[: t + 1], y[: t + 1], alpha[: t + 1], window, regularizer, p, boxes, gamma)
        taus.append(alpha[t])
        theta = Z[: t + 1].T @ (alpha[: t + 1] * y[: t + 1])
        duals.append(gamma * alpha[: t + 1].sum() - conjugate(theta, regularizer, p)[0])
    theta = Z.T @ (alpha * y)
    w = conjugate(theta, regularizer, p)[1]
    coef, intercept = (w[:-1], float(w[-1])) if fit_intercept else (w, 0.0)
    return Trace(coef, intercept, np.array(scores), np.array(taus), np.array(duals), alpha)
