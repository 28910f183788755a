r"""The learners each distributed mode supports, and how models are mixed.

A model travels as the learner's persistence state (``_get_state`` /
``_set_state``, the arrays a saved model holds), so that mixing sees plain
arrays: the weights with the intercept last and, for AROW, the covariance (a full one as its
square root).

Mixing rules (:func:`mix_states`), for mixing weights :math:`\mu_i \ge 0`
summing to 1:

* linear learners (Perceptron, PA, PA-I, PA-II, OGD, online SVM): the
  weights are averaged, :math:`w = \sum_i \mu_i w_i` (McDonald, Hall & Mann
  2010); the round counter of the mixture is the largest of the shards'
  (each shard's learner counts its own rounds, as in parallel SGD), which
  only OGD's learning-rate schedule reads;
* AROW: the Gaussian :math:`\mathcal N(w, \Sigma)` that minimises
  :math:`\sum_i \mu_i\, \mathrm{KL}(\mathcal N(w, \Sigma) \,\|\, \mathcal N(w_i, \Sigma_i))`:
  the precisions are averaged, :math:`\Sigma^{-1} = \sum_i \mu_i \Sigma_i^{-1}`,
  and the means are averaged in the precision's weights,
  :math:`w = \Sigma \sum_i \mu_i \Sigma_i^{-1} w_i` (entry by entry for a
  diagonal covariance). A feature a shard never saw has mean 0 and
  variance 1 there, as in a fresh learner.

The mixture of a single model is that model, bit for bit.
"""

import numpy as np

from .._kernels import _codes

DELAYED_LEARNERS = ("Perceptron", "PAClassifier", "OGDClassifier", "OnlineSVM")
MIXING_LEARNERS = (*DELAYED_LEARNERS, "AROW")


def _kind(est):
    from ..linear._base import BinaryLinearClassifier
    from ..second_order import AROW

    if isinstance(est, AROW):
        return "arow"
    if isinstance(est, BinaryLinearClassifier):
        return "linear"
    return None


def check_supported(est, mode):
    """Refuse a learner the mode has no rule for, naming those it has."""
    supported = DELAYED_LEARNERS if mode == "delayed updates" else MIXING_LEARNERS
    kind = _kind(est)
    if kind is None or (mode == "delayed updates" and kind != "linear"):
        raise ValueError(
            f"{mode} supports {', '.join(supported)}; not {type(est).__name__}"
        )
    if getattr(est, "kernel", None) is not None:
        # a dual model is a set of support vectors, not a weight vector to average or to move by a step
        raise ValueError(f"{mode} mixes and moves primal weight vectors; {type(est).__name__} with "
                         f"kernel={est.kernel!r} learns in dual form (support vectors): use kernel=None, or learn "
                         "it without Dask")
    if getattr(est, "average", False):
        # neither rule keeps the running sum of the iterates that an averaged learner predicts with
        raise ValueError(f"{mode} does not keep the average of an averaged learner; use {type(est).__name__} "
                         f"with average=False (got average={est.average!r})")
    if getattr(est, "calibration", None) is not None:
        # each shard's calibration is fitted to its own model's scores, not to the mixture's
        raise ValueError(f"{mode} does not mix calibrations; use {type(est).__name__} with calibration=None "
                         f"(got calibration={est.calibration!r})")
    return kind


def start_with_classes(est, classes):
    """Start ``est`` (if needed) knowing both classes, so that every shard encodes the labels alike."""
    if est._is_started() and est.classes_.size == 2:
        if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), est.classes_):
            raise ValueError(f"classes={list(classes)} differs from the classes {list(est.classes_)} already learned")
        return
    classes = (-1, 1) if classes is None else classes
    est.partial_fit(np.empty((0, 0)), np.empty(0), classes=classes)


def _padded(vector, n, fill):
    """A weight (or variance) vector of n features plus the intercept last."""
    out = np.full(n + 1, fill)
    out[: vector.size - 1] = vector[:-1]
    out[n] = vector[-1]
    return out


def _padded_matrix(matrix, n):
    out = np.eye(n + 1)
    keep = np.append(np.arange(matrix.shape[0] - 1), n)
    out[np.ix_(keep, keep)] = matrix
    return out


def mix_states(kind, states, mu):
    """One (arrays, scalars) state from the shards' states, mixed with the weights ``mu``.

    Shards with mu_i = 0 are left out, so that the mixture is exactly the one
    of the other shards; ``mu`` must have a positive entry.
    """
    states, mu = zip(*[(state, m) for state, m in zip(states, mu) if m > 0])
    if len(states) == 1:
        return states[0]
    n = max(scalars["n_features_in"] for _, scalars in states)
    first_arrays = states[0][0]
    if kind == "linear":
        w = sum(m * _padded(a["weights"] * a["state"][_codes.S_SCALE], n, 0.0) for m, (a, _) in zip(mu, states))
        rounds = max(a["state"][_codes.S_T] for a, _ in states)
        state = np.array([rounds, 1.0, float(w @ w)])
        return {"weights": w, "state": state, "classes": first_arrays["classes"]}, {"n_features_in": n}
    rounds = max(a["state"][0] for a, _ in states)
    if "covariance" in first_arrays:
        precisions = [1.0 / _padded(a["covariance"], n, 1.0) for a, _ in states]
        precision = sum(m * p for m, p in zip(mu, precisions))
        weighted = sum(m * p * _padded(a["weights"], n, 0.0) for m, p, (a, _) in zip(mu, precisions, states))
        covariance = {"covariance": 1.0 / precision}
        w = covariance["covariance"] * weighted
    else:
        # a full covariance travels as its square root S (Sigma = S S^T): Sigma^-1 = S^-T S^-1
        inverses = [np.linalg.inv(_padded_matrix(a["covariance_root"], n)) for a, _ in states]
        precision = sum(m * (inverse.T @ inverse) for m, inverse in zip(mu, inverses))
        weighted = sum(m * (inverse.T @ (inverse @ _padded(a["weights"], n, 0.0)))
                       for m, inverse, (a, _) in zip(mu, inverses, states))
        # the mixture's Sigma = precision^-1 = L^-T L^-1 (L the precision's Cholesky factor): its root is L^-T
        covariance = {"covariance_root": np.linalg.inv(np.linalg.cholesky(precision)).T}
        w = np.linalg.solve(precision, weighted)
    arrays = {"weights": w, **covariance, "state": np.array([rounds]), "classes": first_arrays["classes"]}
    return arrays, {"n_features_in": n}


def mixing_weights(weighting, updates, rounds):
    """mu_i of one epoch from each shard's updates and rounds (examples learned).

    A shard that learned no example in the epoch holds no information (its
    model is the one it started from), so it gets mu_i = 0 under every
    weighting: mixing with an empty shard is mixing without it. Among the
    other shards: uniform, proportional to the examples (``"examples"``), or
    to the updates (``"updates"``; uniform if none updated). All zeros when
    every shard was empty.
    """
    updates = np.asarray(updates, dtype=np.float64)
    rounds = np.asarray(rounds, dtype=np.float64)
    learned = rounds > 0
    if weighting == "examples":
        counts = rounds
    elif weighting == "updates" and updates[learned].sum() > 0:
        counts = np.where(learned, updates, 0.0)
    else:
        counts = learned.astype(np.float64)
    total = counts.sum()
    return counts / total if total > 0 else np.zeros(updates.size)
