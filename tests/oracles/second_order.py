"""Second-order binary learners transcribed from the papers' pseudo-code, in plain NumPy.

Written from the math alone (not from olearn's kernels): dense vectors and
matrices, one round per loop iteration, matrix inverses where the paper writes
them. Every function takes a dense ``X`` of shape (n, d), labels ``y`` in
{-1, +1}, and returns a :class:`Trace`. With ``fit_intercept=True`` every x is
augmented with a constant feature 1, which has its own mean and variance.

Sources
-------
* AROW: Crammer, Kulesza & Dredze, NIPS 2009, Fig. 1. Diagonal: Orabona &
  Crammer, NIPS 2010, Sec. 4.3: Sigma^{-1} += diag(x x^T) / r.
* NAROW: Orabona & Crammer, NIPS 2010, Fig. 1, in the paper's own terms
  (theta, A, w = A^{-1} theta), and the AROW-style rendering found in the
  usual toolboxes, for the relation between the two.
* Second-Order Perceptron: Cesa-Bianchi, Conconi & Gentile, SIAM J. Comput.
  2005, Fig. 2: predict sign(x^T (a I + sum_M x x^T + x_t x_t^T)^{-1} v).
* CW: Crammer, Dredze & Pereira, "Exact Convex Confidence-Weighted
  Learning", NIPS 2008 (closed-form alpha, u, beta); phi = Phi^{-1}(eta) from
  scipy.stats.norm. Diagonal: the diagonal of the full Sigma update.
* AdaGrad: Duchi, Hazan & Singer, JMLR 2011, diagonal, hinge loss:
  G += g^2, w -= eta g / (delta + sqrt(G)).

Importance weights (``sample_weight``, one c >= 0 per row; beyond the papers)
follow the rules stated in the estimators' docstrings, written here in the
papers' own variables: AROW's objective with its example terms times c (r/c);
NAROW's and SOP's sums with the example counted c times; AdaGrad's gradient
times c; CW's update whenever c > 0.
"""

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


@dataclass
class Trace:
    """The final model and what happened on each round (before each update)."""

    coef: np.ndarray  # final mean, shape (d,)
    intercept: float
    covariance: np.ndarray  # final covariance of the features: (d, d), or (d,) when diagonal
    scores: np.ndarray  # w_t . x_t on each round
    losses: np.ndarray
    taus: np.ndarray
    mistakes: np.ndarray  # y_t * score_t <= 0


def _weights(sample_weight, n):
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)


def _rows(X, fit_intercept):
    X = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X


def _trace(w, S, d, fit_intercept, scores, losses, taus, y):
    scores = np.array(scores, dtype=np.float64)
    covariance = S[:d, :d] if S.ndim == 2 else S[:d]
    return Trace(
        coef=w[:d].copy(),
        intercept=float(w[d]) if fit_intercept else 0.0,
        covariance=covariance.copy(),
        scores=scores,
        losses=np.array(losses, dtype=np.float64),
        taus=np.array(taus, dtype=np.float64),
        mistakes=np.asarray(y, dtype=np.float64) * scores <= 0,
    )


def arow(X, y, r=1.0, diag=False, fit_intercept=False, sample_weight=None):
    """AROW, Fig. 1: on hinge loss, alpha = l beta, beta = 1/(x^T S x + r), w += alpha y S x, S -= beta S x x^T S.

    An example of weight c takes r/c for r (c = 0: no update).
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    w = np.zeros(Z.shape[1])
    S = np.ones(Z.shape[1]) if diag else np.eye(Z.shape[1])
    scores, losses, taus = [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        Sx = S * x if diag else S @ x
        m = float(w @ x)
        chi = float(x @ Sx)
        loss = max(0.0, 1.0 - label * m)
        alpha = 0.0
        if loss > 0 and c > 0:
            r_c = r / c
            beta = 1.0 / (chi + r_c)
            alpha = loss * beta
            w = w + alpha * label * Sx
            if diag:
                S = 1.0 / (1.0 / S + x * x / r_c)
            else:
                S = S - beta * np.outer(Sx, Sx)
        scores.append(m)
        losses.append(loss)
        taus.append(alpha)
    return _trace(w, S, d, fit_intercept, scores, losses, taus, y)


def narow(X, y, b=1.0, fit_intercept=False, sample_weight=None):
    """NAROW, Fig. 1, in the paper's variables: theta, A (A_0 = I), w = A^{-1} theta.

    r_t = chi/(b chi - 1) if chi > 1/b, else infinite (A unchanged);
    predict with A_t = A_{t-1} + x x^T / r_t; on a hinge loss at that margin
    keep A_t and set theta += y x, else A_t = A_{t-1}.

    The recorded score is w_t . x_t with w_t = A_{t-1}^{-1} theta_t, the loss
    is the hinge loss at the paper's margin, and tau the coefficient of
    y Sigma x in the resulting change of w. An example of weight c is counted c
    times: A_t = A_{t-1} + c x x^T / r_t and theta += c y x.
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    n = Z.shape[1]
    theta = np.zeros(n)
    A = np.eye(n)
    scores, losses, taus = [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        A_inv = np.linalg.inv(A)
        w = A_inv @ theta
        chi = float(x @ A_inv @ x)
        A_next = A + c * np.outer(x, x) * (b - 1.0 / chi) if b * chi > 1 else A
        paper_margin = float(x @ np.linalg.solve(A_next, theta))
        loss = max(0.0, 1.0 - label * paper_margin)
        tau = 0.0
        if loss > 0 and c > 0:
            A = A_next
            theta = theta + c * label * x
            change = np.linalg.solve(A, theta) - w
            Sx = A_inv @ x
            # x = 0: nothing moves, and the step of an infinite r_t is c y Sigma x, tau = c
            tau = label * float(change @ Sx) / float(Sx @ Sx) if Sx @ Sx > 0 else c
        scores.append(float(w @ x))
        losses.append(loss)
        taus.append(tau)
    return _trace(np.linalg.solve(A, theta), np.linalg.inv(A), d, fit_intercept, scores, losses, taus, y)


def narow_diag(X, y, b=1.0, fit_intercept=False, sample_weight=None):
    """NAROW, Fig. 1 with f_t(x) = x^T D_t x / 2, D_t = diag(A_t) (as Sec. 4.3 does for AROW), in the paper's variables.

    theta, D (a vector, D_0 = 1), w = theta / D; chi = sum x^2 / D_{t-1};
    r_t = chi/(b chi - 1) if chi > 1/b, else infinite; predict with
    D_t = D_{t-1} + x^2 / r_t; on a hinge loss at that margin keep D_t and set
    theta += y x (eta_t = 1, recorded as tau), else D_t = D_{t-1}. An example
    of weight c: D_t = D_{t-1} + c x^2 / r_t, theta += c y x, tau = c.
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    theta = np.zeros(Z.shape[1])
    D = np.ones(Z.shape[1])
    scores, losses, taus = [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        chi = float(np.sum(x * x / D))
        D_next = D + c * x * x * (b - 1.0 / chi) if b * chi > 1 else D
        paper_margin = float(x @ (theta / D_next))
        loss = max(0.0, 1.0 - label * paper_margin)
        scores.append(float(x @ (theta / D)))
        losses.append(loss)
        taus.append(c if loss > 0 else 0.0)
        if loss > 0:
            D = D_next
            theta = theta + c * label * x
    return _trace(theta / D, 1.0 / D, d, fit_intercept, scores, losses, taus, y)


def fig1_arow(X, y, r=1.0, diag=False, fit_intercept=False, sample_weight=None):
    """Orabona & Crammer (2010), Fig. 1 with f_t(x) = x^T A_t x / 2 (Sec. 4.2) or x^T diag(A_t) x / 2 (Sec. 4.3).

    theta_1 = 0, A_0 = I; on round t, A_t = A_{t-1} + x x^T / r (its diagonal
    when ``diag``), w_t = A_t^{-1} theta_t = grad f_t^*(theta_t); on a hinge
    loss max(0, 1 - y w_t.x) > 0 keep A_t and set theta += y x (eta_t = 1),
    else A_t = A_{t-1}. An example of weight c counts c times: A_t = A_{t-1}
    + c x x^T / r, theta += c y x.

    Recorded as olearn records it: the score x^T A_{t-1}^{-1} theta_t (the
    stored mean), the loss at the text's w_t, and tau the coefficient of
    y Sigma x in the change of the stored mean (c with ``diag``, the text's
    eta_t = 1 times c). ``text_mistakes`` (an attribute of the returned
    Trace) flags y w_t.x <= 0 with the text's w_t.
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    n = Z.shape[1]
    theta = np.zeros(n)
    A = np.eye(n)
    scores, losses, taus, text_mistakes = [], [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        step = c * np.outer(x, x) / r
        A_next = A + (np.diag(np.diag(step)) if diag else step)
        w_text = np.linalg.solve(A_next, theta)
        stored = np.linalg.solve(A, theta)
        loss = max(0.0, 1.0 - label * float(w_text @ x))
        tau = 0.0
        if loss > 0 and c > 0:
            Sx = np.linalg.solve(A, x)
            A = A_next
            theta = theta + c * label * x
            change = np.linalg.solve(A, theta) - stored
            if diag:
                tau = c
            else:
                tau = label * float(change @ Sx) / float(Sx @ Sx) if Sx @ Sx > 0 else c
        scores.append(float(stored @ x))
        losses.append(loss)
        taus.append(tau)
        text_mistakes.append(label * float(w_text @ x) <= 0)
    covariance = np.linalg.inv(A)
    trace = _trace(np.linalg.solve(A, theta), np.diag(covariance) if diag else covariance, d, fit_intercept, scores,
                   losses, taus, y)
    trace.text_mistakes = np.array(text_mistakes)
    return trace


def narow_arow_style(X, y, b=1.0):
    """The rendering of NAROW distributed in toolboxes: AROW with r = r_t, no update when r_t is infinite."""
    Z = _rows(X, False)
    w = np.zeros(Z.shape[1])
    S = np.eye(Z.shape[1])
    for x, label in zip(Z, y):
        m = float(w @ x)
        loss = max(0.0, 1.0 - label * m)
        Sx = S @ x
        chi = float(x @ Sx)
        if loss > 0 and b * chi > 1:
            r = chi / (b * chi - 1.0)
            beta = 1.0 / (chi + r)
            w = w + loss * beta * label * Sx
            S = S - beta * np.outer(Sx, Sx)
    return w, S


def second_order_perceptron(X, y, a=1.0, fit_intercept=False, sample_weight=None):
    """SOP, Fig. 2. Returns the trace (scores are w_t . x_t with w_t = A_t^{-1} v_t) and the paper's own scores.

    A mistaken example of weight c is counted c times: A += c x x^T, v += c y x.
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    n = Z.shape[1]
    A = a * np.eye(n)  # a I + sum over mistakes of x x^T
    v = np.zeros(n)
    scores, paper_scores, losses, taus = [], [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        paper = float(x @ np.linalg.solve(A + np.outer(x, x), v))
        w = np.linalg.solve(A, v)
        m = float(w @ x)
        tau = 0.0
        if label * paper <= 0 and c > 0:  # a mistake (a zero score names no class)
            tau = (1.0 - label * m) / (float(x @ np.linalg.solve(A, x)) * a + a / c)
            A = A + c * np.outer(x, x)
            v = v + c * label * x
        scores.append(m)
        paper_scores.append(paper)
        losses.append(max(0.0, 1.0 - label * m))
        taus.append(tau)
    trace = _trace(np.linalg.solve(A, v), a * np.linalg.inv(A), d, fit_intercept, scores, losses, taus, y)
    return trace, np.array(paper_scores)


def cw(X, y, eta=0.9, diag=False, fit_intercept=False, sample_weight=None):
    """Exact convex CW: alpha, u, beta in closed form; mu += alpha y S x, S -= beta S x x^T S (weight 0: no update)."""
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    phi = norm.ppf(eta)
    psi = 1.0 + phi**2 / 2.0
    xi = 1.0 + phi**2
    mu = np.zeros(Z.shape[1])
    S = np.ones(Z.shape[1]) if diag else np.eye(Z.shape[1])
    scores, losses, taus = [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        Sx = S * x if diag else S @ x
        m = float(mu @ x)
        M = label * m
        V = float(x @ Sx)
        alpha = 0.0
        loss = max(0.0, phi * np.sqrt(V) - M)
        if V > 0 and c > 0:
            alpha = max(0.0, (-M * psi + np.sqrt(M**2 * phi**4 / 4.0 + V * phi**2 * xi)) / (V * xi))
        if alpha > 0:
            u = 0.25 * (-alpha * V * phi + np.sqrt(alpha**2 * V**2 * phi**2 + 4.0 * V)) ** 2
            beta = alpha * phi / (np.sqrt(u) + V * alpha * phi)
            mu = mu + alpha * label * Sx
            S = S - beta * (Sx * Sx if diag else np.outer(Sx, Sx))
        scores.append(m)
        losses.append(loss)
        taus.append(alpha)
    return _trace(mu, S, d, fit_intercept, scores, losses, taus, y)


def adagrad(X, y, eta=1.0, delta=1.0, fit_intercept=False, sample_weight=None):
    """Diagonal AdaGrad on the hinge loss; returns the trace with covariance = the accumulator G.

    An example of weight c has the gradient c g (tau = eta c).
    """
    Z = _rows(X, fit_intercept)
    d = np.shape(X)[1]
    w = np.zeros(Z.shape[1])
    G = np.zeros(Z.shape[1])
    scores, losses, taus = [], [], []
    for x, label, c in zip(Z, y, _weights(sample_weight, len(Z))):
        m = float(w @ x)
        loss = max(0.0, 1.0 - label * m)
        tau = 0.0
        if loss > 0 and c > 0:
            g = -c * label * x
            G = G + g * g
            H = delta + np.sqrt(G)
            step = np.divide(g, H, out=np.zeros_like(g), where=g != 0)
            w = w - eta * step
            tau = eta * c
        scores.append(m)
        losses.append(loss)
        taus.append(tau)
    return _trace(w, G, d, fit_intercept, scores, losses, taus, y)


def for_estimator(name, params, X, y, sample_weight=None):
    """The oracle trace of an olearn second-order estimator ``name`` with hyperparameters ``params``."""
    p = dict(params)
    common = {"fit_intercept": p.get("fit_intercept", False), "sample_weight": sample_weight}
    diag = p.get("covariance") == "diag"
    if name == "AROW":
        return arow(X, y, r=p["r"], diag=diag, **common)
    if name == "NAROW":
        return (narow_diag if diag else narow)(X, y, b=p["b"], **common)
    if name == "Fig1AROW":
        return fig1_arow(X, y, r=p["r"], diag=diag, **common)
    if name == "SecondOrderPerceptron":
        return second_order_perceptron(X, y, a=p["a"], **common)[0]
    if name == "CW":
        return cw(X, y, eta=p["eta"], diag=diag, **common)
    if name == "AdaGrad":
        return adagrad(X, y, eta=p["eta"], delta=p["delta"], **common)
    raise KeyError(f"no oracle for {name}")


def fig1_update_rounds(X, y, r, diag=False):
    """Orabona & Crammer (2010), Fig. 1 with f_t(x) = x^T A_t x / 2 (Sec. 4.2) or x^T diag(A_t) x / 2 (Sec. 4.3).

    A_0 = I; predict with w_t = A_t^{-1} theta_t, A_t = A_{t-1} + x x^T / r
    (its diagonal when ``diag``); on a hinge loss at that margin keep A_t and
    set theta += y x (eta_t = 1), else A_t = A_{t-1}. Returns the boolean
    arrays (updated, mistaken), mistaken meaning y_t w_t . x_t <= 0.
    """
    Z = _rows(X, False)
    theta = np.zeros(Z.shape[1])
    A = np.eye(Z.shape[1])
    updated, mistaken = [], []
    for x, label in zip(Z, y):
        step = np.outer(x, x) / r
        A_next = A + (np.diag(np.diag(step)) if diag else step)
        margin = label * float(x @ np.linalg.solve(A_next, theta))
        updated.append(margin < 1)
        mistaken.append(margin <= 0)
        if margin < 1:
            A = A_next
            theta = theta + label * x
    return np.array(updated), np.array(mistaken)
