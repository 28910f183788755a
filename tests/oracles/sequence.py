"""PA sequence labelling transcribed plainly, with exhaustive search instead of Viterbi.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006):

* Sec. 9, Eq. 59: Phi(X, y) = sum_t x_t (x) e_{y_t} + sum_t e_{y_{t-1}} (x) e_{y_t}
  (here with a start state y_{-1} = start), and olearn's two features of the same
  form: a constant 1 appended to every x_t (``fit_intercept``, a per-label bias)
  and e_{y_T} of the last label (``end_transition``, the transition into an end
  state); both on by default, as in PASequence, both off for the text's bare Phi;
* Sec. 8: for a rival labelling r, l = w.Phi(X, r) - w.Phi(X, y) + sqrt(rho(y, r)),
  z = Phi(X, y) - Phi(X, r), w <- w + tau z, tau = l/||z||^2 (PA),
  min(C, l/||z||^2) (PA-I), l/(||z||^2 + 1/(2C)) (PA-II); the rival is the
  prediction (prediction-based) or the labelling of largest loss (max-loss).

Everything is dense and explicit: Phi is built as a vector, every argmax
enumerates all labellings (itertools.product, so keep sequences short and
labels few), ties go to the first labelling in lexicographic order of the
label indices. Labels are indices into the sorted list of all labels;
a label takes part in the prediction of sequence i only if it occurred in an
earlier sequence, and in the max-loss search once it occurred in sequence i.

Layout of w: the emission block, shape (k, d + 1) flattened by rows (the last
column weighs a constant feature that is 1 with fit_intercept and 0
without), then the transition block, shape (k + 1, k) flattened by rows (row k
is the start state), then the end block, k entries (the last label's feature
is 1 with end_transition and 0 without).

``weights`` (olearn's importance weights, beyond the paper): sequence i is
learned with C replaced by weights[i] * C, and weight 0 makes no update.
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .binary import pa_step


def phi(X, labels, k, fit_intercept, end_transition):
    """The feature vector Phi(X, labels) of Eq. 59."""
    X = np.asarray(X, dtype=np.float64)
    T, d = X.shape
    emission = np.zeros((k, d + 1))
    transition = np.zeros((k + 1, k))
    previous = k
    for t in range(T):
        x = np.append(X[t], 1.0 if fit_intercept else 0.0)
        emission[labels[t]] += x
        transition[previous, labels[t]] += 1.0
        previous = labels[t]
    end = np.zeros(k)
    if T and end_transition:
        end[labels[T - 1]] = 1.0
    return np.concatenate([emission.ravel(), transition.ravel(), end])


def chain_score(em, transition, labels, end=None):
    """sum_t em[t, y_t] + transition[y_{t-1}, y_t] + end[y_{T-1}], with y_{-1} the last row of ``transition``
    (no end term when ``end`` is None)."""
    total = 0.0
    previous = transition.shape[0] - 1
    for t, label in enumerate(labels):
        total += transition[previous, label] + em[t][label]
        previous = label
    if end is not None and len(labels):
        total += end[labels[-1]]
    return total


def brute_force_argmax(value, length, candidates):
    """The labelling over ``candidates`` of largest ``value(labelling)``; ties to the lexicographically first."""
    best, best_value = None, None
    for labelling in itertools.product(sorted(candidates), repeat=length):
        v = value(labelling)
        if best is None or v > best_value:
            best, best_value = labelling, v
    return best


def hamming(a, b):
    return sum(1 for u, v in zip(a, b) if u != v)


@dataclass
class Trace:
    """The final model and each round's outputs (before each update)."""

    coef: np.ndarray  # emission weights, shape (k, d)
    intercept: np.ndarray  # shape (k,)
    transition: np.ndarray  # shape (k + 1, k), last row from the start
    end_transition: np.ndarray  # shape (k,), zeros without end_transition
    predictions: list  # tuples of label indices, or None when no label was known yet
    scores: np.ndarray  # w.Phi(X, prediction), NaN without a prediction
    losses: np.ndarray
    taus: np.ndarray
    rivals: list


def pa_sequence(X_seqs, y_seqs, classes, variant="pa1", C=1.0, update="prediction", rho=None,
                fit_intercept=True, end_transition=True, d=None, weights=None):
    """Learn the sequences in order; ``y_seqs`` hold labels of ``classes`` (sorted), ``rho(y, r)`` on label values.

    ``rho`` defaults to the Hamming distance.
    """
    classes = list(classes)
    k = len(classes)
    d = d if d is not None else max(np.shape(X)[1] for X in X_seqs if len(X))
    if rho is None:
        rho = hamming
    w = np.zeros(k * (d + 1) + (k + 1) * k + k)
    known = set()
    predictions, scores, losses, taus, rivals = [], [], [], [], []
    weights = np.ones(len(y_seqs)) if weights is None else np.asarray(weights, dtype=np.float64)
    for X, labels, weight in zip(X_seqs, y_seqs, weights):
        X = np.zeros((0, d)) if len(X) == 0 else np.asarray(X, dtype=np.float64)
        X = np.hstack([X, np.zeros((X.shape[0], d - X.shape[1]))])
        y = tuple(classes.index(label) for label in labels)
        T = len(y)
        if T == 0:
            predictions.append(())
            scores.append(0.0)
            losses.append(0.0)
            taus.append(0.0)
            rivals.append(())
            continue

        def score(labelling, X=X, w=w):
            return float(w @ phi(X, labelling, k, fit_intercept, end_transition))

        def margin(labelling, y=y):
            if labelling == y:
                return 0.0
            return math.sqrt(rho(np.array([classes[j] for j in y]), np.array([classes[j] for j in labelling])))

        prediction = brute_force_argmax(score, T, known) if known else None
        known |= set(y)
        if update == "max-loss":
            rival = brute_force_argmax(lambda r: score(r) + margin(r), T, known)
        elif prediction is not None:
            rival = prediction
        else:
            rival = brute_force_argmax(score, T, known)
        loss = max(0.0, score(rival) - score(y) + margin(rival))
        z = phi(X, y, k, fit_intercept, end_transition) - phi(X, rival, k, fit_intercept, end_transition)
        tau = pa_step(variant, loss, float(z @ z), weight * C) if weight > 0 else 0.0
        predictions.append(prediction)
        scores.append(score(prediction) if prediction is not None else math.nan)
        losses.append(loss)
        taus.append(tau)
        rivals.append(rival)
        w = w + tau * z
    emission = w[: k * (d + 1)].reshape(k, d + 1)
    return Trace(
        coef=emission[:, :d],
        intercept=emission[:, d] if fit_intercept else np.zeros(k),
        transition=w[k * (d + 1) : k * (d + 1) + (k + 1) * k].reshape(k + 1, k),
        end_transition=w[k * (d + 1) + (k + 1) * k :],
        predictions=predictions,
        scores=np.array(scores),
        losses=np.array(losses),
        taus=np.array(taus),
        rivals=rivals,
    )


def loss_against(coef, intercept, transition, X, y, rival, margin, fit_intercept, end=None):
    """w.Phi(X, rival) - w.Phi(X, y) + margin for weights given as the estimator exposes them (label indices;
    ``end`` the end-transition weights, None without)."""
    X = np.asarray(X, dtype=np.float64)
    em = X @ coef.T + (intercept if fit_intercept else 0.0)
    return chain_score(em, transition, rival, end) - chain_score(em, transition, y, end) + margin
