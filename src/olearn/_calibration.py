r"""Online Platt scaling: class probabilities for a margin classifier, learned from its progressive scores.

Platt, *Probabilistic Outputs for Support Vector Machines and Comparisons to
Regularized Likelihood Methods* (1999), maps a classifier's score ``s`` to
:math:`P(y = +1 \mid s) = \sigma(a s + b)`, a one-dimensional logistic
regression on the score, fitted on examples the classifier has not learned
from. Online, every example is such an example before the learner takes it:
the calibrator learns from the score each row had *before* the learner's
update (the progressive score), so the probability given for a row never
depends on its own label, as a held-out fit's would not.

The fit is an online Newton step on the log loss, with :math:`z = (s, 1)`,
:math:`\theta = (a, b)` and the prior :math:`\theta_0 = (1, 0)` (the logistic
link of the raw score) of precision :math:`H_0 = \lambda I`,
:math:`\lambda` = :data:`PRIOR_PRECISION`. For a row of score ``s``, target
:math:`y \in \{-1, +1\}` and importance weight ``w``:

.. math::
    p = \sigma(\theta^\top z), \quad
    H \leftarrow H + w\, p (1 - p)\, z z^\top, \quad
    \theta \leftarrow \theta - H^{-1}\, w\, (p - [y = +1])\, z.

:math:`H` is the prior's precision plus the observed Fisher information, so
the step is that of the recursive (Kalman-filter) form of the maximum a
posteriori logistic regression: on a stationary stream it tracks Platt's batch
fit, at O(1) per row. The state is the vector ``(a, b, H_ss, H_s1, H_11)``;
:math:`H` stays symmetric positive definite (the prior plus positive
semi-definite terms).

A calibrator does not change the learner, so updating it from the scores a
pass recorded, after the pass, is the same sequence of updates as within it;
the steps run compiled (numba), a few nanoseconds a row.
"""

import functools
import math

import numpy as np

from ._params import NoneOr, Options

# the hyperparameter ``calibration`` of a margin classifier: None (scores only) or "platt"
CALIBRATION = NoneOr(Options("platt"))

# lambda of the prior N((1, 0), I / lambda): as strong as a few examples at p = 1/2
PRIOR_PRECISION = 1.0
# indices of the state vector
A, B, H_SS, H_S1, H_11 = range(5)
N_STATE = 5


def prior():
    """The calibrator before any example: sigma(s), with the prior's precision."""
    return np.array([1.0, 0.0, PRIOR_PRECISION, 0.0, PRIOR_PRECISION])


def _update(state, scores, targets, weights, log_odds, held):
    """The Newton steps of the module docstring over the rows in order, in place.

    ``log_odds`` (empty: not recorded) receives ``a s + b`` of each row before its step; a row with ``held[i]``
    (empty: none) takes no step: its log-odds are those of the calibration of its moment.
    """
    a, b, hss, hs1, h11 = state[0], state[1], state[2], state[3], state[4]
    for i in range(scores.size):
        s = scores[i]
        m = a * s + b
        if log_odds.size:
            log_odds[i] = m
        if held.size and held[i]:
            continue
        w = 1.0 if weights.size == 0 else weights[i]
        # p = sigma(m) and p (1 - p), without overflow
        e = np.exp(-abs(m))
        p = 1.0 / (1.0 + e) if m >= 0.0 else e / (1.0 + e)
        curvature = w * p * (1.0 - p)
        nss, ns1, n11 = hss + curvature * s * s, hs1 + curvature * s, h11 + curvature
        residual = w * (p - (1.0 if targets[i] > 0.0 else 0.0))
        gs, g1 = residual * s, residual
        det = nss * n11 - ns1 * ns1
        na = a - (n11 * gs - ns1 * g1) / det
        nb = b - (nss * g1 - ns1 * gs) / det
        # a score too large for the step's numbers (|s| near 1e154) leaves the calibration as it was
        if det > 0.0 and math.isfinite(det) and math.isfinite(nss) and math.isfinite(na) and math.isfinite(nb):
            a, b, hss, hs1, h11 = na, nb, nss, ns1, n11
    state[0], state[1], state[2], state[3], state[4] = a, b, hss, hs1, h11


@functools.cache
def _compiled_update():
    """:func:`_update` compiled by numba, on first use only: a learner without calibration never imports numba."""
    from numba import njit

    return njit(cache=True)(_update)


def updated(state, scores, targets, weights=None, log_odds=None, held=None):
    """A new state: ``state`` after the rows of ``scores`` (before each update) and ``targets`` (+-1), in order.

    ``weights``: the importance weight of each row, or None (all 1);
    ``log_odds``: None, or an array that receives the calibrated log-odds of
    each row before its step (the progressive ones). A row whose step would
    not be finite (a score near the square root of the float range) is
    skipped, so that the calibration never fails once the learner has learned.
    ``held``: None, or a boolean per row, True for a held-out row of a
    multi-pass run (``olearn run --passes N``): its log-odds are recorded with
    the calibration of its moment, as ``predict_proba`` would give them then,
    and it teaches the calibration nothing (its target is not read).
    """
    new = np.array(state, dtype=np.float64)
    _compiled_update()(new, np.asarray(scores, dtype=np.float64), np.asarray(targets, dtype=np.float64),
                       np.empty(0) if weights is None else np.asarray(weights, dtype=np.float64),
                       np.empty(0) if log_odds is None else log_odds,
                       np.empty(0, dtype=np.bool_) if held is None else held)
    return new


def flipped(state):
    """The state for the other class on the +1 side: the score changes sign, ``a s + b`` too, so b and H_s1 do."""
    new = np.array(state, dtype=np.float64)
    new[B] = -new[B]
    new[H_S1] = -new[H_S1]
    return new


def calibrated_scores(state, scores):
    """``a s + b``: the log-odds of the class on the +1 side."""
    return state[A] * scores + state[B]


def probabilities(log_odds, n_classes):
    """The rows (sigma(-f), sigma(f)) of the log-odds f of the +1 side, or ones while only one class is known."""
    if n_classes == 1:
        return np.ones((log_odds.size, 1))
    # with e = exp(-|f|) <= 1 nothing overflows: the larger probability is 1/(1 + e), the smaller e/(1 + e)
    e = np.exp(-np.abs(log_odds))
    larger, smaller = 1.0 / (1.0 + e), e / (1.0 + e)
    positive = log_odds > 0.0
    return np.column_stack([np.where(positive, smaller, larger), np.where(positive, larger, smaller)])


def log_probabilities(log_odds, n_classes):
    """The logarithm of :func:`probabilities`: ``-log(1 + exp(-+f))``, finite however large ``|f|`` is."""
    if n_classes == 1:
        return np.zeros((log_odds.size, 1))
    return 0.0 - np.column_stack([np.logaddexp(0.0, log_odds), np.logaddexp(0.0, -log_odds)])


def state_problem(arrays, dims):
    """None if the saved ``calibration`` array is a calibrator's state, else what is wrong with it."""
    state = arrays["calibration"]
    if not state[H_SS] * state[H_11] - state[H_S1] ** 2 > 0.0:
        return "array 'calibration' has a matrix H that is not positive definite"
    return None
