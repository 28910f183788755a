"""PA regression transcribed from the paper, in plain NumPy.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Sec. 5. Written from the math alone (not from
olearn's kernels): dense vectors, one round per loop iteration.

    l_t     = max(0, |y_t - w_t.x_t| - epsilon)
    tau_t   = l_t / ||x_t||^2                 (PA)
              min(C, l_t / ||x_t||^2)         (PA-I)
              l_t / (||x_t||^2 + 1 / (2C))    (PA-II)
    w_{t+1} = w_t + sign(y_t - w_t.x_t) tau_t x_t

x_t = 0 leaves every w with the same loss: tau_t = 0 there (no division by 0).
With ``fit_intercept=True`` x is augmented with a constant feature 1, which
counts in ||x||^2; the last weight is the intercept.
"""

from dataclasses import dataclass

import numpy as np

from .binary import pa_step


@dataclass
class RegressionTrace:
    coef: np.ndarray  # final weights, shape (d,)
    intercept: float  # 0.0 without fit_intercept
    predictions: np.ndarray  # w_t . x_t before each update
    losses: np.ndarray  # epsilon-insensitive loss before each update
    taus: np.ndarray  # tau_t >= 0 of each round


def pa_regression(X, y, variant="pa", C=1.0, epsilon=0.1, fit_intercept=False):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    d = X.shape[1]
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    w = np.zeros(X.shape[1])
    predictions, losses, taus = [], [], []
    for x_t, y_t in zip(X, y):
        y_hat = w @ x_t
        loss = max(0.0, abs(y_t - y_hat) - epsilon)
        sq = x_t @ x_t
        tau = pa_step(variant, loss, sq, C)
        w = w + np.sign(y_t - y_hat) * tau * x_t
        predictions.append(y_hat)
        losses.append(loss)
        taus.append(tau)
    return RegressionTrace(
        coef=w[:d].copy(),
        intercept=float(w[d]) if fit_intercept else 0.0,
        predictions=np.array(predictions),
        losses=np.array(losses),
        taus=np.array(taus),
    )
