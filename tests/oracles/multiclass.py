"""Multiclass learners transcribed from the papers' pseudo-code, in plain NumPy.

Written from the math alone (not from olearn's kernels): dense vectors, a dict of
prototypes keyed by label, one round per loop iteration. Conventions olearn
documents, and that these oracles follow:

* a class joins when first seen, with a zero prototype, after that round's
  prediction (``classes`` declares classes that exist from the start);
* ties go to the label that sorts first (``max`` over the sorted labels);
* a round is a mistake when no class was known, or when some other class scores
  at least as high as the true one;
* with ``fit_intercept`` every class vector gets a constant feature 1 of its own
  (x -> (x, 1) in the class's block), which adds 2 to ||Phi(x, y) - Phi(x, r)||^2.

Sources
-------
* PA, PA-I, PA-II, multi- and single-prototype: Crammer, Dekel, Keshet,
  Shalev-Shwartz & Singer, "Online Passive-Aggressive Algorithms", JMLR 7 (2006),
  Sec. 7: l = max(0, 1 - (w.Phi(x,y) - w.Phi(x,r))), r the top wrong label,
  w += tau (Phi(x,y) - Phi(x,r)), tau from Eq. 3 / Eq. 8 on ||Phi(x,y) - Phi(x,r)||^2.
* Cost-sensitive: ibid. Sec. 8, Fig. 2: margin sqrt(rho); prediction-based rival =
  the prediction, loss s_pred - s_y + sqrt(rho(y, pred)); max-loss rival = argmax_r
  s_r - s_y + sqrt(rho(y, r)).
* Multiclass Perceptrons and MIRA: Crammer & Singer, "Ultraconservative Online
  Algorithms for Multiclass Problems", JMLR 3 (2003). MIRA's quadratic program
  min 1/2 ||x||^2 sum tau_a^2 + sum tau_a (s_a - beta [a = y]), tau_a <= [a = y],
  sum tau_a = 0, is solved here by trying every set of active constraints (not
  by the paper's sorting algorithm, which olearn uses).

Beyond the texts, olearn's importance weights and averaging, transcribed from
the rules its docstrings state: an example of weight v runs PA-I/PA-II with C
replaced by v C (PA unchanged for v > 0), the Perceptron with its coefficients
times v, MIRA with the bound tau_y <= v; weight 0 moves nothing. ``average=a``
(True = 1) predicts, after t >= a rounds, with the mean of the weights after
rounds a .. t, kept here naively: the whole model is added to a sum every round.
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .binary import pa_step


@dataclass
class Trace:
    """The final model and what happened on each round (before each update)."""

    classes: list  # sorted labels
    coef: np.ndarray  # (k, d) prototypes in sorted order, or (D,) with a feature map
    intercept: np.ndarray  # (k,)
    predictions: list  # label or None
    scores: np.ndarray  # (n, k): class scores before the update, -inf for a class not known yet
    losses: np.ndarray
    taus: np.ndarray
    mistakes: np.ndarray
    # with ``average`` on: (coef, intercept) of the averaged model, as ``coef`` and ``intercept``
    averaged: tuple = None


def best(scores):
    """The top-scoring label; ties go to the label that sorts first."""
    return max(sorted(scores), key=lambda label: scores[label])


def hinge(scores, y):
    others = [scores[a] for a in scores if a != y]
    return max(0.0, 1.0 - (scores[y] - max(others))) if others else 0.0


# -- update rules: each returns (loss, tau, {label: coefficient of Phi(x, label)}) ------------


def pa_update(variant="pa1", C=1.0, rival="max_wrong", cost=None):
    def margin(y, r):
        return 1.0 if cost is None else math.sqrt(cost(y, r))

    def update(scores, y, pred, pair_sq, common_sq, weight=1.0):
        others = {a: s for a, s in scores.items() if a != y}
        if not others:
            return 0.0, 0.0, {}
        if rival == "max_wrong":
            r = best(others)
        elif rival == "predicted":
            if pred is None or pred == y:
                return 0.0, 0.0, {}
            r = pred
        else:
            values = {a: scores[a] - scores[y] + margin(y, a) for a in others}
            r = best(values)
        loss = max(0.0, margin(y, r) - (scores[y] - scores[r]))
        if loss == 0 or weight == 0:
            return loss, 0.0, {}
        tau = pa_step(variant, loss, pair_sq(y, r), C * weight)
        return loss, tau, {y: tau, r: -tau}

    return update


def perceptron_update(split):
    def update(scores, y, pred, pair_sq, common_sq, weight=1.0):
        errors = [a for a in sorted(scores) if a != y and scores[a] >= scores[y]]
        loss = hinge(scores, y)
        if not errors or weight == 0:
            return loss, 0.0, {}
        coefs = {y: 1.0}
        gaps = {a: scores[a] - scores[y] for a in errors}
        if split == "max":
            coefs[best({a: scores[a] for a in errors})] = -1.0
        elif split == "proportional" and sum(gaps.values()) > 0:
            for a in errors:
                coefs[a] = -gaps[a] / sum(gaps.values())
        else:
            for a in errors:
                coefs[a] = -1.0 / len(errors)
        return loss, weight, {a: weight * c for a, c in coefs.items()}

    return update


def mira_qp(scores, y, A, beta, bound_y=1.0):
    """argmin 1/2 A sum tau^2 + sum B tau s.t. tau_a <= bound_y [a = y], sum tau = 0, by active sets."""
    labels = sorted(scores)
    bound = {a: bound_y if a == y else 0.0 for a in labels}
    B = {a: scores[a] - (beta if a == y else 0.0) for a in labels}
    best_tau, best_value = None, math.inf
    for size in range(len(labels)):
        for active in itertools.combinations(labels, size):
            free = [a for a in labels if a not in active]
            tau = {a: bound[a] for a in active}
            # minimise over the free ones with sum(tau) = 0: tau_a = -(B_a + lam) / A
            lam = (-sum(B[a] for a in free) + A * sum(tau.values())) / len(free)
            for a in free:
                tau[a] = -(B[a] + lam) / A
            if any(tau[a] > bound[a] + 1e-12 for a in labels):
                continue
            value = 0.5 * A * sum(t * t for t in tau.values()) + sum(B[a] * tau[a] for a in labels)
            if value < best_value:
                best_tau, best_value = tau, value
    return best_tau


def mira_update(beta):
    def update(scores, y, pred, pair_sq, common_sq, weight=1.0):
        loss = hinge(scores, y)
        if common_sq <= 0 or weight == 0:
            return loss, 0.0, {}
        tau = mira_qp(scores, y, common_sq, beta, weight)
        return loss, tau[y], {a: t for a, t in tau.items() if t != 0.0}

    return update


# -- the two geometries ----------------------------------------------------------------------


def _finish(classes, coef, intercept, predictions, score_rows, losses, taus, mistakes):
    classes = sorted(classes)
    scores = np.array([[row.get(c, -np.inf) for c in classes] for row in score_rows]).reshape(len(score_rows), len(classes))
    return Trace(classes, coef, intercept, predictions, scores, np.array(losses), np.array(taus), np.array(mistakes))


def _weights_of(y, weights):
    return np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)


def multi_prototype(X, y, update, fit_intercept=False, classes=(), weights=None, average=0):
    """One prototype per class: Phi(x, a) puts (x[, 1]) in block a."""
    X = np.asarray(X, dtype=np.float64)
    width = X.shape[1] + (1 if fit_intercept else 0)
    W = {c: np.zeros(width) for c in classes}
    total = {}  # the sum of every class's prototype after each averaged round
    predictions, score_rows, losses, taus, mistakes = [], [], [], [], []
    for t, (x, label, weight) in enumerate(zip(X, y, _weights_of(y, weights)), start=1):
        x = np.append(x, 1.0) if fit_intercept else x
        scores = {c: float(W[c] @ x) for c in W}
        score_rows.append(dict(scores))
        pred = best(scores) if scores else None
        if label not in W:
            W[label] = np.zeros(width)
            scores[label] = 0.0
        mistakes.append(pred is None or any(scores[c] >= scores[label] for c in scores if c != label))
        sq = float(x @ x)
        loss, tau, coefs = update(scores, label, pred, lambda a, b, sq=sq: 2.0 * sq, sq, weight)
        for c, a in coefs.items():
            W[c] = W[c] + a * x
        if average and t >= average:
            for c in W:
                total[c] = total.get(c, 0.0) + W[c]
        predictions.append(pred)
        losses.append(loss)
        taus.append(tau)
    order = sorted(W)

    def split(prototypes):
        M = np.array([prototypes[c] for c in order]).reshape(len(order), width)
        return M[:, : X.shape[1]], (M[:, -1] if fit_intercept else np.zeros(len(order)))

    trace = _finish(W, *split(W), predictions, score_rows, losses, taus, mistakes)
    if average and len(X) >= average:
        n_averaged = len(X) - average + 1
        trace.averaged = split({c: total.get(c, np.zeros(width)) / n_averaged for c in W})
    return trace


def single_prototype(X, y, update, phi, dimension, fit_intercept=False, classes=(), weights=None, average=0):
    """One vector w; class a scores w . phi(x, a) (+ its own intercept b_a)."""
    X = np.asarray(X, dtype=np.float64)
    w = np.zeros(dimension)
    b = {c: 0.0 for c in classes}
    bias = 1.0 if fit_intercept else 0.0
    total_w, total_b = np.zeros(dimension), {}
    predictions, score_rows, losses, taus, mistakes = [], [], [], [], []
    for t, (x, label, weight) in enumerate(zip(X, y, _weights_of(y, weights)), start=1):
        scores = {c: float(w @ phi(x, c)) + b[c] * bias for c in b}
        score_rows.append(dict(scores))
        pred = best(scores) if scores else None
        if label not in b:
            b[label] = 0.0
            scores[label] = 0.0
        mistakes.append(pred is None or any(scores[c] >= scores[label] for c in scores if c != label))

        def pair_sq(a, r, x=x):
            z = phi(x, a) - phi(x, r)
            return float(z @ z) + 2.0 * bias * bias

        common = float(phi(x, label) @ phi(x, label)) + bias * bias
        loss, tau, coefs = update(scores, label, pred, pair_sq, common, weight)
        for c, a in coefs.items():
            w = w + a * phi(x, c)
            b[c] += a * bias
        if average and t >= average:
            total_w = total_w + w
            for c in b:
                total_b[c] = total_b.get(c, 0.0) + b[c]
        predictions.append(pred)
        losses.append(loss)
        taus.append(tau)
    intercept = np.array([b[c] * bias for c in sorted(b)])
    trace = _finish(b, w, intercept, predictions, score_rows, losses, taus, mistakes)
    if average and len(X) >= average:
        n_averaged = len(X) - average + 1
        trace.averaged = (total_w / n_averaged, np.array([total_b.get(c, 0.0) * bias / n_averaged for c in sorted(b)]))
    return trace


def block_phi(classes, d):
    """The block map: x in block (position of the label among the sorted classes)."""
    position = {c: i for i, c in enumerate(sorted(classes))}

    def phi(x, label):
        v = np.zeros(len(position) * d)
        v[position[label] * d: (position[label] + 1) * d] = x
        return v

    return phi


def for_estimator(name, params):
    """The oracle update rule of an olearn multiclass estimator with these hyperparameters."""
    p = dict(params)
    if name == "PAMulticlass":
        return pa_update(p.get("variant", "pa1"), p.get("C", 1.0))
    if name == "PACostSensitive":
        cost = p.get("cost")
        if cost is not None and not callable(cost):
            raise KeyError("a cost matrix needs the class order; pass a callable to the oracle")
        rival = "predicted" if p.get("update", "prediction") == "prediction" else "max_loss"
        return pa_update(p.get("variant", "pa1"), p.get("C", 1.0), rival, cost)
    if name == "MulticlassPerceptron":
        return perceptron_update(p.get("update", "max"))
    if name == "MIRA":
        return mira_update(p.get("beta", 1.0))
    raise KeyError(name)


# -- the kernel (dual) form ------------------------------------------------------------------


def linear_kernel(u, v):
    return float(u @ v)


def poly_kernel(degree, gamma=1.0, coef0=0.0):
    return lambda u, v: float((gamma * (u @ v) + coef0) ** degree)


def rbf_kernel(gamma):
    return lambda u, v: float(np.exp(-gamma * ((u - v) @ (u - v))))


def kernel_multi_prototype(X, y, update, kernel, fit_intercept=False, classes=(), budget=None, policy="oldest",
                           weights=None):
    """The multi-prototype learners in dual form (Crammer et al. 2006, Sec. 3).

    w_a = sum_i alpha_i[a] phi(x_i), with the intercept as a constant feature 1
    inside phi, so K'(u, v) = K(u, v) + 1 when ``fit_intercept``. ||x||^2 becomes
    K'(x, x); a round that moves any prototype adds x to the support set with the
    round's coefficients. With a budget, a full set first drops its oldest
    vector (``policy="oldest"``) or the one with the smallest sum_a alpha_i[a]^2
    (``"smallest"``, the oldest among equals).

    Returns (trace, support): the trace's ``coef`` is the dual coefficients,
    shape (k, |S|) over the sorted classes, and ``support`` the support vectors
    (|S|, d), oldest first.
    """
    X = np.asarray(X, dtype=np.float64)
    offset = 1.0 if fit_intercept else 0.0

    def k(u, v):
        return kernel(u, v) + offset

    known = list(classes)
    support = []  # [x_i, {label: alpha_i[label]}], oldest first
    predictions, score_rows, losses, taus, mistakes = [], [], [], [], []
    for x, label, weight in zip(X, y, _weights_of(y, weights)):
        scores = {c: 0.0 for c in known}
        for s, alpha in support:
            value = k(s, x)
            for c in known:
                scores[c] += alpha.get(c, 0.0) * value
        score_rows.append(dict(scores))
        pred = best(scores) if scores else None
        if label not in scores:
            known.append(label)
            scores[label] = 0.0
        mistakes.append(pred is None or any(scores[c] >= scores[label] for c in scores if c != label))
        sq = k(x, x)
        loss, tau, coefs = update(scores, label, pred, lambda a, b, sq=sq: 2.0 * sq, sq, weight)
        coefs = {c: a for c, a in coefs.items() if a != 0.0}
        if coefs:
            if budget is not None and len(support) == budget:
                if policy == "oldest":
                    victim = 0
                else:
                    sizes = [sum(a * a for a in alpha.values()) for _, alpha in support]
                    victim = sizes.index(min(sizes))
                del support[victim]
            support.append([x, coefs])
        predictions.append(pred)
        losses.append(loss)
        taus.append(tau)
    order = sorted(known)
    dual = np.array([[alpha.get(c, 0.0) for _, alpha in support] for c in order]).reshape(len(order), len(support))
    vectors = np.array([s for s, _ in support]).reshape(len(support), X.shape[1])
    trace = _finish(known, dual, np.zeros(len(order)), predictions, score_rows, losses, taus, mistakes)
    return trace, vectors
