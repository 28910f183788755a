"""Binary linear learners transcribed from the papers' pseudo-code, in plain NumPy.

Written from the math alone (not from olearn's kernels), as slowly and plainly as
possible: dense vectors, one round per loop iteration, the formula of the paper
on each line. Every function takes a dense ``X`` of shape (n, d) and labels
``y`` in {-1, +1}, starts from ``w_1 = 0`` and returns a :class:`Trace`.

With ``fit_intercept=True`` every x is augmented with a constant feature 1
(x -> (x, 1)); the last weight is the intercept and the constant feature counts
in ||x||^2 and, for the projected methods, in ||w||.

Sources
-------
* Perceptron: Rosenblatt (1958); UCL online-learning slides. Predict
  sign(w.x); on a mistake y w.x <= 0, w <- w + eta y x.
* PA, PA-I, PA-II: Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online
  Passive-Aggressive Algorithms", JMLR 7 (2006), Figure 1:
  l_t = max(0, 1 - y_t w_t.x_t), w_{t+1} = w_t + tau_t y_t x_t with
  tau = l/||x||^2 (PA), min(C, l/||x||^2) (PA-I), l/(||x||^2 + 1/(2C)) (PA-II).
* OGD: Zinkevich, "Online Convex Programming and Generalized Infinitesimal
  Gradient Ascent", ICML 2003 (greedy projection):
  w_{t+1} = Proj_{||w|| <= R}(w_t - eta_t grad_w l(y_t w_t.x_t)).
"""

from dataclasses import dataclass

import numpy as np
from scipy.special import expit


@dataclass
class Trace:
    """The final model and what happened on each round (before each update)."""

    coef: np.ndarray  # final weights, shape (d,)
    intercept: float  # final intercept (0.0 without fit_intercept)
    scores: np.ndarray  # w_t . x_t on each round, before the update
    losses: np.ndarray  # the learner's loss on each round, before the update
    taus: np.ndarray  # tau_t of each round: w_{t+1} = w_t + tau_t y_t x_t (before any projection)
    mistakes: np.ndarray  # bool: y_t * score_t <= 0 (sign(0) names no class: a mistake)


def _rows(X, fit_intercept):
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def _trace(w, d, fit_intercept, scores, losses, taus, y):
    scores = np.array(scores, dtype=np.float64)
    return Trace(
        coef=w[:d].copy(),
        intercept=float(w[d]) if fit_intercept else 0.0,
        scores=scores,
        losses=np.array(losses, dtype=np.float64),
        taus=np.array(taus, dtype=np.float64),
        mistakes=np.asarray(y, dtype=np.float64) * scores <= 0,
    )


def hinge(margin):
    """max(0, 1 - m)."""
    return max(0.0, 1.0 - margin)


def pa_step(variant, loss, sq, C):
    """tau of PA, PA-I and PA-II (Crammer et al. 2006, Figure 1): l / sq, min(C, l / sq) and l / (sq + 1 / (2C)),
    sq = ||x||^2; tau = 0 for PA and PA-I on sq = 0."""
    if variant == "pa":
        return loss / sq if sq > 0 else 0.0
    if variant == "pa1":
        return min(C, loss / sq) if sq > 0 else 0.0
    if variant == "pa2":
        return loss / (sq + 1.0 / (2.0 * C))
    raise ValueError(variant)


def perceptron(X, y, eta=1.0, fit_intercept=False):
    """Rosenblatt's Perceptron with step eta; the recorded loss is the hinge loss."""
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    w = np.zeros(Z.shape[1])
    scores, losses, taus = [], [], []
    for x, label in zip(Z, y):
        score = float(np.dot(w, x))
        margin = label * score
        tau = eta if margin <= 0 else 0.0  # a mistake (a zero margin counts as one)
        w = w + tau * label * x
        scores.append(score)
        losses.append(hinge(margin))
        taus.append(tau)
    return _trace(w, d, fit_intercept, scores, losses, taus, y)


def passive_aggressive(X, y, variant="pa", C=1.0, fit_intercept=False, sample_weight=None):
    """PA / PA-I / PA-II of Crammer et al. (2006), Figure 1.

    A zero vector x = 0 (possible only without intercept) makes l/||x||^2 a
    division by zero for PA and PA-I; olearn documents tau = 0 there (every w has
    the same loss on x = 0), and so does this oracle. PA-II needs no special case.
    An example of importance weight s (beyond the paper) has sC for C, and s = 0
    no update.
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    w = np.zeros(Z.shape[1])
    weights = np.ones(len(Z)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    scores, losses, taus = [], [], []
    for x, label, s in zip(Z, y, weights):
        score = float(np.dot(w, x))
        loss = hinge(label * score)
        sq = float(np.dot(x, x))
        tau = pa_step(variant, loss, sq, s * C) if s > 0 else 0.0
        w = w + tau * label * x
        scores.append(score)
        losses.append(loss)
        taus.append(tau)
    return _trace(w, d, fit_intercept, scores, losses, taus, y)


def learning_rate(schedule, eta, t):
    """eta_t on round t = 1, 2, ..."""
    if schedule == "constant":
        return eta
    if schedule == "sqrt":
        return eta / np.sqrt(t)
    if schedule == "inverse":
        return eta / t
    raise ValueError(schedule)


def margin_loss(loss, m):
    """(l(m), dl/dm) of the margin losses; the hinge's subgradient at m = 1 is taken as 0."""
    if loss == "hinge":
        return (1.0 - m, -1.0) if m < 1 else (0.0, 0.0)
    if loss == "logistic":
        # log(1 + e^{-m}) and its derivative -1/(1 + e^{m}), both without overflow
        return float(np.logaddexp(0.0, -m)), -float(expit(-m))
    if loss == "squared":
        return 0.5 * (1.0 - m) ** 2, -(1.0 - m)
    raise ValueError(loss)


def project_ball(w, radius):
    """Euclidean projection onto {w : ||w|| <= radius} (radius None: no constraint)."""
    if radius is None:
        return w
    norm = np.linalg.norm(w)
    return w * (radius / norm) if norm > radius else w


def ogd(
    X,
    y,
    loss="hinge",
    eta=1.0,
    schedule="sqrt",
    radius=None,
    conservative=False,
    fit_intercept=False,
):
    """Zinkevich's projected online gradient descent on a margin loss.

    grad_w l(y w.x) = l'(m) y x, so the step is w <- Proj(w - eta_t l'(m) y x),
    i.e. tau_t = -eta_t l'(m_t). ``conservative``: no step unless the round is a
    mistake (m <= 0). The round counter t counts every round (olearn's documented
    convention: "t counts every round seen").
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    w = np.zeros(Z.shape[1])
    scores, losses, taus = [], [], []
    for t, (x, label) in enumerate(zip(Z, y), start=1):
        score = float(np.dot(w, x))
        m = label * score
        value, derivative = margin_loss(loss, m)
        if conservative and m > 0:
            tau = 0.0
        else:
            tau = -learning_rate(schedule, eta, t) * derivative
        w = project_ball(w + tau * label * x, radius)
        scores.append(score)
        losses.append(value)
        taus.append(tau)
    return _trace(w, d, fit_intercept, scores, losses, taus, y)


def for_estimator(name, params, X, y):
    """The oracle trace of the olearn estimator class ``name`` with hyperparameters ``params``.

    Maps olearn's hyperparameter names onto the papers' (OnlineSVM is projected
    OGD on the hinge loss, OCO notes Sec. 4.2). Raises KeyError for an estimator
    that has no oracle here yet.
    """
    p = dict(params)
    fit_intercept = p.get("fit_intercept", False)
    if name == "Perceptron":
        return perceptron(X, y, eta=p["eta"], fit_intercept=fit_intercept)
    if name == "PAClassifier":
        return passive_aggressive(X, y, variant=p["variant"], C=p["C"], fit_intercept=fit_intercept)
    if name == "OGDClassifier":
        return ogd(
            X, y, loss=p["loss"], eta=p["eta"], schedule=p["schedule"], radius=p["radius"],
            conservative=p["conservative"], fit_intercept=fit_intercept,
        )
    if name == "OnlineSVM":
        return ogd(
            X, y, loss="hinge", eta=p["eta"], schedule=p["schedule"], radius=p["radius"],
            conservative=False, fit_intercept=fit_intercept,
        )
    raise KeyError(f"no oracle for {name}")
