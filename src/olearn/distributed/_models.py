r"""The learners each distributed mode supports, and how models are mixed.

A model travels as the learner's persistence state (``_get_state`` /
``_set_state``, the arrays a saved model holds), so that mixing sees plain
arrays: the weights with the intercept last and, for AROW, the covariance (a full one as its
square root).

Mixing rules (:func:`mix_states`), for mixing weights :math:`\mu_i \ge 0`
summing to 1:

* linear learners (Perceptron, PA, PA-I, PA-II, OGD, online SVM, PA
  regression): the weights are averaged, :math:`w = \sum_i \mu_i w_i` (McDonald, Hall & Mann
  2010); the round counter of the mixture is the largest of the shards'
  (each shard's learner counts its own rounds, as in parallel SGD), which
  only OGD's learning-rate schedule reads;
* multiclass learners (multiclass Perceptron, MIRA, PA multiclass and
  cost-sensitive): each class's weight vector (its prototype) is averaged,
  the classes being fixed before the first epoch, so that they hold the same
  column in every shard;
* AROW, NAROW, CW and the Second-Order Perceptron (their model is a Gaussian over weight vectors;
  the Second-Order Perceptron's :math:`w = A^{-1} v`, :math:`\Sigma = a A^{-1}`, so that the rule
  below averages its sums :math:`A` and :math:`v` of Cesa-Bianchi, Conconi & Gentile 2005, Fig. 2:
  the mixture is the learner whose mistakes are the shards', shard i's counted with weight mu_i,
  as an importance weight counts them): the Gaussian :math:`\mathcal N(w, \Sigma)` that minimises
  :math:`\sum_i \mu_i\, \mathrm{KL}(\mathcal N(w, \Sigma) \,\|\, \mathcal N(w_i, \Sigma_i))`:
  the precisions are averaged, :math:`\Sigma^{-1} = \sum_i \mu_i \Sigma_i^{-1}`,
  and the means are averaged in the precision's weights,
  :math:`w = \Sigma \sum_i \mu_i \Sigma_i^{-1} w_i` (entry by entry for a
  diagonal covariance). A feature a shard never saw has mean 0 and
  variance 1 there, as in a fresh learner;
* AdaGrad (Duchi, Hazan & Singer 2011, diagonal): the accumulated squared
  gradients are averaged, :math:`G = \sum_i \mu_i G_i` (each shard's
  gradients counted with weight mu_i, as for the Second-Order Perceptron's
  sums), and each weight is averaged in its shards' accumulators' weights,
  :math:`w_j = \sum_i \mu_i G_{ij} w_{ij} / G_j` (plainly where
  :math:`G_j = 0`): the non-uniform averaging of adaptive-gradient models by
  their squared-gradient sums (Agarwal, Chapelle, Dudik & Langford, JMLR
  2014, Sec. 3), by which a shard that moved a weight further counts more
  for it, as in the Gaussian rule. A feature a shard never saw has G = 0;
* PASequence (McDonald, Hall & Mann's own setting, the structured
  perceptron): its one weight vector over label-dependent features, the
  emission weights (a column per tag) and the transition weights (a row and
  a column per tag, the start's row last), is averaged tag by tag. A tag
  holds the same place in every shard's mixture: the mixture's tags are the
  union of the shards' (sorted, as ``classes_``), and a tag a shard never
  saw has weight 0 there, as in a learner that has not met it;
* PAMultilabel: each label's weight vector is averaged, label by label over
  the union of the shards' labels (in order of first appearance, shard after
  shard), a label a shard never met weighing 0 there;
* quasi-additive learners (Winnow, PNorm): their dual vector theta is
  averaged, and the weights that predict are its link, :math:`w = g(\theta)`
  with :math:`\theta = \sum_i \mu_i \theta_i` (Grove, Littlestone &
  Schuurmans 2001: theta is the sum of the updates, what the shards' passes
  add, while :math:`g` is not linear: averaging w would give a model whose
  theta is no mixture). The sum of the dual variables mixes as theta does
  (theta is linear in them), and the dual objective is that of the mixed
  dual variables, :math:`D = \gamma \sum \alpha - F^*(\theta)`;
* PAUniclass: the center and the gap B - a of the lifted coordinate are
  averaged, i.e. the lifted center :math:`\bar w = (w, a)` of Sec. 6 (a convex
  combination of lifted centers is one: a stays in (0, B]).

The mixture of a single model is that model, bit for bit.
"""

import sys

import numpy as np

from .._kernels import _codes
from .._labels import plain_label
from ._averages import layout, mix_averaged

DELAYED_LEARNERS = ("Perceptron", "PAClassifier", "OGDClassifier", "OnlineSVM")
MIXING_LEARNERS = (*DELAYED_LEARNERS, "AROW", "NAROW", "CW", "PARegressor", "MulticlassPerceptron", "MIRA",
                   "PAMulticlass", "PACostSensitive", "PASequence", "PAMultilabel", "PAUniclass", "Winnow", "PNorm",
                   "SecondOrderPerceptron", "AdaGrad")


def kind_of(est):
    """How ``est``'s state mixes: "linear" (one weight vector), "gaussian" (a mean and a covariance),
    "multiclass" (one weight vector per class), "sequence" (emission and transition weights per tag),
    "multilabel" (one weight vector per label), "uniclass" (a center), "quasi_additive" (theta and
    w = g(theta)), "adagrad" (weights and their accumulated squared gradients), or None."""
    if isinstance(est, _defined("sequence._pa", "PASequence")):
        return "sequence"
    if isinstance(est, _defined("multilabel._pa", "PAMultilabel")):
        return "multilabel"
    if isinstance(est, _defined("uniclass._pa", "PAUniclass")):
        return "uniclass"
    if isinstance(est, _defined("quasi_additive._base", "QuasiAdditiveClassifier")):
        return "quasi_additive"
    if isinstance(est, _defined("second_order._adagrad", "AdaGrad")):
        return "adagrad"
    if isinstance(est, (*_defined("second_order._arow", "AROW"), *_defined("second_order._narow", "NAROW"),
                        *_defined("second_order._cw", "CW"), *_defined("second_order._sop", "SecondOrderPerceptron"))):
        return "gaussian"
    if isinstance(est, (*_defined("linear._binary", "BinaryLinearClassifier"),
                        *_defined("linear._regressor", "PARegressor"))):
        return "linear"
    if isinstance(est, _defined("multiclass._base", "MulticlassLearner")) and type(est).__name__ in MIXING_LEARNERS:
        return "multiclass"
    return None


def _defined(module, name):
    """``(the class name of olearn's module,)`` if that module was imported, else ``()``: an estimator of a class
    exists only once the module defining it was imported, and importing the others would start numba (a second
    of a command line's run)."""
    found = sys.modules.get(f"{__package__.rpartition('.')[0]}.{module}")
    return () if found is None else (getattr(found, name),)


def check_supported(est, mode):
    """Refuse a learner the mode has no rule for, naming those it has."""
    supported = DELAYED_LEARNERS if mode == "delayed updates" else MIXING_LEARNERS
    if type(est).__name__ == "DualAscent" and mode == "parameter mixing":
        # its dual variables are those of one stream's examples (a window of them stored), and dual_objective_
        # certifies that stream's rounds: the shards' rounds make no one stream
        raise ValueError(f"{mode}: DualAscent certifies the rounds of one stream (dual_objective_, the stored "
                         "examples' dual variables), and the shards make no one stream; use PNorm or Winnow, "
                         "whose theta mixes, or learn it without Dask")
    kind = kind_of(est)
    if kind is None or type(est).__name__ not in supported:
        raise ValueError(
            f"{mode} supports {', '.join(supported)}; not {type(est).__name__}"
        )
    if getattr(est, "kernel", None) is not None:
        # a dual model is a set of support vectors, not a weight vector to average or to move by a step
        raise ValueError(f"{mode} mixes and moves primal weight vectors; {type(est).__name__} with "
                         f"kernel={est.kernel!r} learns in dual form (support vectors): use kernel=None, or learn "
                         "it without Dask")
    if getattr(est, "feature_map", None) is not None:
        raise ValueError(f"{mode} mixes one weight vector per class; {type(est).__name__} with a feature_map keeps "
                         "one joint vector: use feature_map=None, or learn it without Dask")
    if mode == "delayed updates" and getattr(est, "average", False):
        # the coordinator moves the weights as the kernel does, but keeps no running sum of its iterates
        raise ValueError(f"{mode} do not keep the average of an averaged learner; use {type(est).__name__} "
                         f"with average=False (got average={est.average!r}), or parameter mixing")
    if getattr(est, "calibration", None) is not None:
        # each shard's calibration is fitted to its own model's scores, not to the mixture's
        raise ValueError(f"{mode} does not mix calibrations; use {type(est).__name__} with calibration=None "
                         f"(got calibration={est.calibration!r})")
    return kind


def start_with_classes(est, classes):
    """Start ``est`` (if needed) knowing every class, so that every shard encodes the labels alike.

    A binary learner's default is the classes it knows already, else (-1, 1);
    a multiclass learner needs ``classes`` unless it knows its classes (each
    class's weight vector has a slot, which must be the same in every shard);
    a regressor and a uniclass learner have no classes; a sequence or
    multilabel learner meets its labels as they come (the mixing aligns them
    by name), or declares them itself (``PASequence(classes=[...])``, a first
    ``partial_fit(X, y, classes=[...])``).
    """
    if kind_of(est) in ("sequence", "multilabel", "uniclass"):
        if kind_of(est) == "uniclass" and classes is not None:
            raise ValueError(f"{type(est).__name__} learns a stream of vectors: it has no classes "
                             f"(got classes={_shown(classes)})")
        if classes is not None:
            declare = (f"{type(est).__name__}(classes=[...])" if kind_of(est) == "sequence"
                       else "a first partial_fit(X, y, classes=[...])")
            raise ValueError(f"{type(est).__name__} takes its labels as they come, aligned by name when the "
                             f"shards' models are mixed; to declare them, use {declare} "
                             f"(got classes={_shown(classes)})")
        return

    if isinstance(est, _defined("linear._regressor", "PARegressor")):
        if classes is not None:
            raise ValueError(f"{type(est).__name__} is a regressor: it has no classes (got classes={_shown(classes)})")
        if not est._is_started():
            est.partial_fit(np.empty((0, 0)), np.empty(0))
        return
    binary = kind_of(est) != "multiclass"
    if est._is_started() and (est.classes_.size == 2 or not binary) and est.classes_.size:
        if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), est.classes_):
            raise ValueError(f"classes={_shown(classes)} differs from the classes {_shown(est.classes_)} "
                             "already learned")
        return
    if classes is None:
        if not binary:
            raise ValueError(f"{type(est).__name__} learns on shards from its classes given up front: pass "
                             "classes=[...] (every shard must give each class the same weight vector)")
        classes = (-1, 1)
    est.partial_fit(np.empty((0, 0)), np.empty(0), classes=classes)


def _shown(labels):
    """Labels as a message shows them: ``[-1.0, 1.0]``, not the reprs of NumPy scalars (``np.float64(-1.0)``)."""
    return [plain_label(label) for label in labels]


def _padded(vector, n, fill):
    """A weight (or variance) vector of n features plus the intercept last (a matrix: one such row per feature)."""
    out = np.full((n + 1, *vector.shape[1:]), fill)
    out[: vector.shape[0] - 1] = vector[:-1]
    out[n] = vector[-1]
    return out


def _padded_matrix(matrix, n):
    out = np.eye(n + 1)
    keep = np.append(np.arange(matrix.shape[0] - 1), n)
    out[np.ix_(keep, keep)] = matrix
    return out


def mix_states(kind, states, mu, average_from=0, link=None):
    """One (arrays, scalars) state from the shards' states, mixed with the weights ``mu``.

    Shards with mu_i = 0 are left out, so that the mixture is exactly the one
    of the other shards; ``mu`` must have a positive entry. The states of an
    averaged learner (``average_from``: its first averaged round) mix their
    averages as their weights (:mod:`._averages`). ``link(theta, w, state)``
    writes a quasi-additive learner's w = g(theta) and its dual objective.
    """
    states, mu = zip(*[(state, m) for state, m in zip(states, mu) if m > 0])
    if len(states) == 1:
        return states[0]
    if layout(states[0][0]) is not None:
        # a quasi-additive learner averages w = g(theta): the averages mix as vectors, not through theta
        averages = _mixed_vectors if kind == "quasi_additive" else None
        return mix_averaged(lambda plain, weights: _mixed(kind, plain, weights, link), states, mu, average_from,
                            averages)
    return _mixed(kind, states, mu, link)


def _mixed_vectors(states, mu):
    """The plain average of the states' weight vectors (features padded with zeros, the intercept's entry last)."""
    n = max(scalars["n_features_in"] for _, scalars in states)
    return {"weights": sum(m * _padded(a["weights"], n, 0.0) for m, (a, _) in zip(mu, states))}, {"n_features_in": n}


def _mixed(kind, states, mu, link=None):
    """:func:`mix_states` of states without an average, all with mu_i > 0."""
    if kind == "adagrad":
        n = max(scalars["n_features_in"] for _, scalars in states)
        accumulators = [_padded(a["covariance"], n, 0.0) for a, _ in states]  # AdaGrad keeps G there
        weights = [_padded(a["weights"], n, 0.0) for a, _ in states]
        G = sum(m * g for m, g in zip(mu, accumulators))
        weighted = sum(m * g * w for m, g, w in zip(mu, accumulators, weights))
        plain = sum(m * w for m, w in zip(mu, weights))
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(G > 0, weighted / G, plain)
        state = np.array([max(a["state"][0] for a, _ in states)])
        return ({"weights": w, "covariance": G, "state": state, "classes": states[0][0]["classes"]},
                {"n_features_in": n})
    if kind == "quasi_additive":
        from .._kernels import _quasi_additive as qa  # numba's module: imported by its learners only

        n = max(scalars["n_features_in"] for _, scalars in states)
        theta = sum(m * _padded(a["theta"], n, 0.0) for m, (a, _) in zip(mu, states))
        state = np.zeros_like(states[0][0]["state"])
        state[qa.S_T] = max(a["state"][qa.S_T] for a, _ in states)
        state[qa.S_SUM_ALPHA] = sum(m * a["state"][qa.S_SUM_ALPHA] for m, (a, _) in zip(mu, states))
        w = np.zeros(n + 1)
        link(theta, w, state)
        return {"theta": theta, "weights": w, "state": state, "classes": states[0][0]["classes"]}, {"n_features_in": n}
    if kind == "sequence":
        return _mixed_sequences(states, mu)
    if kind == "multilabel":
        return _mixed_multilabel(states, mu)
    if kind == "uniclass":
        sizes = {a["center"].size for a, _ in states}
        if len(sizes) > 1:
            raise ValueError(f"the shards stream vectors of different dimensions ({', '.join(map(str, sorted(sizes)))})"
                             "; every vector of a uniclass stream has the same dimension")
        return {"center": sum(m * a["center"] for m, (a, _) in zip(mu, states)),
                "radius_gap": sum(m * a["radius_gap"] for m, (a, _) in zip(mu, states))}, states[0][1]
    n = max(scalars["n_features_in"] for _, scalars in states)
    first_arrays = states[0][0]
    if kind == "linear":
        w = sum(m * _padded(a["weights"] * a["state"][_codes.S_SCALE], n, 0.0) for m, (a, _) in zip(mu, states))
        rounds = max(a["state"][_codes.S_T] for a, _ in states)
        state = np.array([rounds, 1.0, float(w @ w)])
        labels = {"classes": first_arrays["classes"]} if "classes" in first_arrays else {}  # a regressor has none
        return {"weights": w, "state": state, **labels}, {"n_features_in": n}
    if kind == "multiclass":
        # the classes were declared before the first epoch, so every shard keeps them in the same columns
        w = sum(m * _padded(a["weights"], n, 0.0) for m, (a, _) in zip(mu, states))
        return {"labels": first_arrays["labels"], "weights": w}, {"n_features_in": n}
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


def _mixed_sequences(states, mu):
    """The tag-by-tag average of PASequence states, over the union of their tags.

    In an array of weights every axis but an emission's first (the features,
    the intercept's row last) runs over the tags: k entries, or k + 1 with
    the start's entry last. Each shard's weights are laid into the union's
    places (zero where a shard lacks a tag or a feature), then averaged.
    """
    tags = states[0][0]["classes"]
    for arrays, _ in states[1:]:
        tags = np.union1d(tags, arrays["classes"])
    n = max(scalars["n_features_in"] for _, scalars in states)
    mixed = {}
    for name in states[0][0]:
        if name == "classes":
            continue
        total = 0.0
        for m, (arrays, scalars) in zip(mu, states):
            places = np.searchsorted(tags, arrays["classes"])
            axes = [np.append(places, tags.size) if size > places.size else places
                    for size in arrays[name].shape]
            shape = [tags.size + (size > places.size) for size in arrays[name].shape]
            if "emission" in name:
                rows = scalars["n_features_in"]
                axes[0], shape[0] = np.append(np.arange(rows), n), n + 1
            laid = np.zeros(shape)
            laid[np.ix_(*axes)] = arrays[name]
            total = total + m * laid
        mixed[name] = total
    mixed["classes"] = tags
    return mixed, {"n_features_in": n}


def _mixed_multilabel(states, mu):
    """The label-by-label average of PAMultilabel states (a row of weights per label, the intercept's column
    last), over the union of their labels in order of first appearance."""
    from .._kernels import _multilabel
    from ..multilabel._labels import label_array

    labels = list(dict.fromkeys(label for arrays, _ in states for label in arrays["labels"].tolist()))
    place = {label: i for i, label in enumerate(labels)}
    n = max(scalars["n_features_in"] for _, scalars in states)
    weights = 0.0
    for m, (arrays, _) in zip(mu, states):
        laid = np.zeros((len(labels), n + 1))
        laid[[place[label] for label in arrays["labels"].tolist()]] = _padded(arrays["weights"].T, n, 0.0).T
        weights = weights + m * laid
    state = states[0][0]["state"].copy()
    state[_multilabel.M_ACTIVE] = len(labels)  # the labels in the ranking: every label known
    return {"weights": weights, "labels": label_array(labels), "state": state}, {"n_features_in": n}
