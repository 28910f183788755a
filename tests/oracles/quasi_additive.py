"""The quasi-additive learners transcribed from the papers, in plain NumPy.

Written from the math alone, as plainly as possible: dense vectors, one round
per loop iteration. Every function takes a dense ``X`` (n, d), labels ``y`` in
{-1, +1}, starts from theta = 0 and returns a :class:`Trace`. With
``fit_intercept=True`` every x is augmented with a constant 1 (x -> (x, 1)).

Sources
-------
* Balanced Winnow: Shalev-Shwartz & Singer, "Online Learning meets Optimization
  in the Dual", COLT 2006, Sec. 4: the 2n weights (w+, w-) live on the simplex,
  start uniform, and on a mistake (y w.x <= 0) are multiplied,
  w+_i <- w+_i exp(C y x_i), w-_i <- w-_i exp(-C y x_i), then renormalized;
  the prediction uses w = w+ - w-.
* Winnow on the n-simplex: same paper, Example 2, Eq. (25)-(26): n positive
  weights, uniform at first, on a mistake w_k <- w_k exp(C y x_k) / Z.
* p-norm: same paper, Sec. 4, and Gentile 2003: theta <- theta + C y x on a
  mistake, w_i = sign(theta_i) |theta_i|^(p-1) / ||theta||_p^(p-2).
* Aggressive p-norm: Orabona & Crammer, "New Adaptive Algorithms for Online
  Classification", NIPS 2010, Sec. 4.1: Fig. 1 with f(u) = ||u||_q^2 / (2(q-1)),
  so w = grad f*(theta) = (q - 1) grad (||theta||_p^2 / 2); eta = 1 on a
  mistake (y w.x <= 0) and, on a margin error (0 < y w.x < 1), the minimizer
  of D, eta = min((R^2/2 - y w.x) / ||x||_p^2, 1), not below 0.

Importance weights (``sample_weight``, c >= 0 per row; beyond the papers): the
conservative step on a mistake is c C (the top of the example's dual box
[0, c C]); the aggressive p-norm step is c eta (the gradient of c times the loss).
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class Trace:
    coef: np.ndarray  # final weights, shape (d,)
    intercept: float
    scores: np.ndarray  # w_t . x_t before each update
    taus: np.ndarray  # the step of each round (0 when no update)
    weights: list  # w_t after each round (with the intercept last when fit_intercept)


def _augment(X, fit_intercept):
    X = np.asarray(X, dtype=float)
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def _row_weights(sample_weight, n):
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)


def _finish(w, fit_intercept, scores, taus, weights):
    if fit_intercept:
        return Trace(w[:-1].copy(), float(w[-1]), np.array(scores), np.array(taus), weights)
    return Trace(w.copy(), 0.0, np.array(scores), np.array(taus), weights)


def winnow(X, y, C, fit_intercept=False, sample_weight=None):
    """Balanced Winnow with explicit multiplicative weights (fine for short, tame streams)."""
    Z = _augment(X, fit_intercept)
    n = Z.shape[1]
    plus = np.full(n, 1.0 / (2 * n))
    minus = np.full(n, 1.0 / (2 * n))
    scores, taus, weights = [], [], []
    for x, label, c in zip(Z, y, _row_weights(sample_weight, len(Z))):
        w = plus - minus
        score = w @ x
        scores.append(score)
        if label * score <= 0:
            plus = plus * np.exp(c * C * label * x)
            minus = minus * np.exp(-c * C * label * x)
            total = plus.sum() + minus.sum()
            plus, minus = plus / total, minus / total
            taus.append(c * C)
        else:
            taus.append(0.0)
        weights.append(plus - minus)
    return _finish(plus - minus, fit_intercept, scores, taus, weights)


def winnow_simplex(X, y, C, fit_intercept=False, sample_weight=None):
    """Winnow of Eq. (25)-(26): multiplicative weights on the n-simplex."""
    Z = _augment(X, fit_intercept)
    w = np.full(Z.shape[1], 1.0 / Z.shape[1])
    scores, taus, weights = [], [], []
    for x, label, c in zip(Z, y, _row_weights(sample_weight, len(Z))):
        score = w @ x
        scores.append(score)
        if label * score <= 0:
            w = w * np.exp(c * C * label * x)
            w = w / w.sum()
            taus.append(c * C)
        else:
            taus.append(0.0)
        weights.append(w.copy())
    return _finish(w, fit_intercept, scores, taus, weights)


def pnorm_link(theta, p):
    norm = np.linalg.norm(theta, p)
    if norm == 0:
        return np.zeros_like(theta)
    return np.sign(theta) * np.abs(theta) ** (p - 1) / norm ** (p - 2)


def pnorm(X, y, p, C, fit_intercept=False, sample_weight=None):
    """The (conservative) p-norm algorithm."""
    Z = _augment(X, fit_intercept)
    theta = np.zeros(Z.shape[1])
    scores, taus, weights = [], [], []
    for x, label, c in zip(Z, y, _row_weights(sample_weight, len(Z))):
        w = pnorm_link(theta, p)
        score = w @ x
        scores.append(score)
        eta = c * C if label * score <= 0 else 0.0
        theta = theta + eta * label * x
        taus.append(eta)
        weights.append(pnorm_link(theta, p))
    return _finish(pnorm_link(theta, p), fit_intercept, scores, taus, weights)


def aggressive_pnorm(X, y, p, R, fit_intercept=False, sample_weight=None):
    """Orabona & Crammer's aggressive p-norm algorithm (Sec. 4.1), in its own normalization."""
    Z = _augment(X, fit_intercept)
    q = p / (p - 1)
    theta = np.zeros(Z.shape[1])
    scores, taus, weights = [], [], []
    for x, label, c in zip(Z, y, _row_weights(sample_weight, len(Z))):
        w = (q - 1) * pnorm_link(theta, p)
        margin = label * (w @ x)
        scores.append(w @ x)
        if margin <= 0:
            eta = 1.0
        elif margin < 1:
            eta = max(0.0, min((R**2 / 2 - margin) / np.linalg.norm(x, p) ** 2, 1.0))
        else:
            eta = 0.0
        theta = theta + c * eta * label * x
        taus.append(c * eta)
        weights.append((q - 1) * pnorm_link(theta, p))
    return _finish((q - 1) * pnorm_link(theta, p), fit_intercept, scores, taus, weights)
