"""The loss :func:`olearn.run` reports for a round, measured on a model that does not learn (``olearn run -t``).

``olearn.run`` records a round's loss before the round's update: a function
of the model's scores on the row and of its label, which a frozen model
gives for every row at once. Each function here is the loss of one task's
kernels (Crammer et al. 2006, "Online Passive-Aggressive Algorithms"):

* binary: the loss of the learner's ``loss`` hyperparameter at the margin
  m = y w.x (y = +1 for ``classes_[-1]``, else -1), as its kernel computes it
  (:func:`olearn._kernels._binary_linear.margin_losses`): the hinge
  max(0, 1 - m) of Eq. (1) (every binary learner without that
  hyperparameter reports it too), log(1 + exp(-m)) or (1 - m)^2 / 2; CW's
  violation of its confidence constraint max(0, phi sqrt(x' Sigma x) - m)
  (Crammer, Dredze & Pereira 2008), a feature the model has not seen having
  the initial variance it joins with; NAROW's and Fig. 1 AROW's hinge
  max(0, 1 - y x' A_t^{-1} theta) (Orabona & Crammer 2010, Fig. 1) at the
  margin taken with the row already in the precision A_t = A_{t-1} + c x x' / r_t
  (its diagonal for a diagonal model), c the row's importance weight;
* regression: the epsilon-insensitive max(0, |y - w.x| - epsilon), Eq. (18);
* uniclass: max(0, ||x - w|| - radius), Eq. (21), i.e. max(0, -margin) of
  the signed margin radius - ||x - w|| that ``Task.frozen`` gives;
* multiclass: max(0, 1 - (w_y.x - max_{r != y} w_r.x)), Eq. (33) with the
  single relevant label y, a label the model does not know scoring 0 (it
  joins with a zero prototype);
* cost-sensitive: w_r.x - w_y.x + sqrt(rho(y, r)) for the predicted label r,
  Eq. (45) (prediction-based update), or its largest value over the labels
  r != y, Eq. (50) and (52) (max-loss update), and 0 when it is not positive;
* multilabel: max(0, 1 - (min relevant score - max irrelevant score)), Eq. (33).

Rounds are unweighted, as run records them (but for NAROW's and Fig. 1
AROW's margin). An averaging learner's loss is that of its last weights, not
of the averaged ones that predict: the scores do not give it, and it is ``nan``.
"""

import numpy as np

from ._scaling import learner_of


def _averages(learner):
    return bool(learner.get_params().get("average", False))


def binary_losses(model, X, scores, y, weight=None):
    """The loss of each row of X of a binary ``model`` whose scores are ``scores``, labels ``y``, importance
    weights ``weight`` (None: all 1)."""
    learner = learner_of(model)
    if _averages(learner):
        return np.full(scores.shape, np.nan)
    signs = np.where(np.asarray(y) == learner.classes_[-1], 1.0, -1.0)
    confidence = _second_order_losses(model, learner, X, y, scores, signs, weight)
    if confidence is not None:
        return confidence
    margins = signs * scores
    from .._kernels import _compiled  # here: the commands that do not test a binary model never load the kernels

    losses = np.empty(margins.shape)
    _compiled.margin_losses(_loss_code(learner), np.ascontiguousarray(margins, dtype=np.float64), losses)
    return losses


def _second_order_losses(model, learner, X, y, scores, signs, weight):
    """CW's, NAROW's and Fig. 1 AROW's losses, chosen by the rule code of a second-order learner's kernel (its
    ``_rule()``); None for the other learners, whose loss is their kernel's loss of the margin."""
    if not hasattr(learner, "_rule"):
        return None
    from .._kernels import _second_order as so  # here: only a second-order model loads its kernels

    rule = learner._rule()[0]
    if rule not in (so.RULE_CW, so.RULE_NAROW, so.RULE_FIG1_AROW):
        return None
    rows = _rows(learner, X if learner is model else model._transformed(X)[1])
    if rule != so.RULE_CW:
        weights = learner._row_weights(X, y, weight)
        return np.maximum(1.0 - signs * _fig1_margins(learner, rows, scores, 1.0 if weights is None else weights), 0.0)
    phi = learner._config_arrays()[1][so.Q_HYPER]
    return np.maximum(phi * np.sqrt(_variances(learner, rows)) - signs * scores, 0.0)


def _loss_code(learner):
    """The ``_codes`` loss of a binary linear learner's kernel; the hinge for the others."""
    from .._kernels import _codes
    from ..linear._binary import BinaryLinearClassifier  # here: only a binary run loads the linear learners

    if isinstance(learner, BinaryLinearClassifier):
        return learner._config_arrays()[0][_codes.K_LOSS]
    return _codes.LOSS_HINGE


def _rows(learner, X):
    """X as a scipy CSR matrix, at least as wide as a second-order learner's features."""
    import scipy.sparse

    arrays = learner._check_X(X)
    return scipy.sparse.csr_matrix((arrays.data, arrays.indices, arrays.indptr),
                                   shape=(arrays.n_rows, max(arrays.n_features, learner._w.size - 1)))


def _variances(learner, rows):
    """x' Sigma x of each row x of ``rows`` (its intercept's feature included) under a second-order learner's
    covariance; a feature it has not seen has the initial variance it joins with."""
    cov = learner._cov  # the diagonal's vector or the root S of Sigma = S S', the intercept last
    seen = cov.shape[0] - 1
    bias = 1.0 if learner.fit_intercept else 0.0
    unseen = np.asarray(rows[:, seen:].multiply(rows[:, seen:]).sum(axis=1)).ravel() * learner._initial_variance
    if cov.ndim == 1:
        return rows[:, :seen].multiply(rows[:, :seen]) @ cov[:seen] + cov[seen] * bias * bias + unseen
    projected = rows[:, :seen] @ cov[:seen] + bias * cov[seen]  # x' S
    return np.einsum("ij,ij->i", projected, projected) + unseen


def _fig1_margins(learner, rows, scores, weights):
    """x' A_t^{-1} theta of each row: the margin of Orabona & Crammer's Fig. 1 with the row in A_t.

    With chi = x' A_{t-1}^{-1} x and gamma = c / r_t (1 / r_t from
    :func:`olearn._kernels._second_order.fig1_precision_step`), Sherman-Morrison gives w.x / (1 + gamma chi);
    with a diagonal A_t, coordinate by coordinate, sum_i x_i w_i / (1 + gamma s_i x_i^2).
    """
    from .._kernels._second_order import RULE_FIG1_AROW

    rule, hyper, _ = learner._rule()
    chi = _variances(learner, rows)
    if rule == RULE_FIG1_AROW:
        step = np.full(chi.shape, 1.0 / hyper)
    else:  # NAROW's 1 / r_t = b - 1 / chi when b chi > 1, else 0
        grows = hyper * chi > 1.0
        step = np.where(grows, hyper - 1.0 / np.where(grows, chi, 1.0), 0.0)
    gamma = weights * step
    if learner._cov.ndim == 2:
        return scores / (1.0 + gamma * chi)
    seen = learner._w.size - 1
    bias = 1.0 if learner.fit_intercept else 0.0
    entries = rows[:, :seen].tocoo()
    w, s = learner._w, learner._cov
    terms = entries.data * w[entries.col] / (1.0 + gamma[entries.row] * s[entries.col] * entries.data ** 2)
    return (np.bincount(entries.row, weights=terms, minlength=rows.shape[0])
            + bias * w[seen] / (1.0 + gamma * s[seen] * bias * bias))


def regression_losses(model, predictions, y):
    """max(0, |y - prediction| - epsilon) of each row (nan for an averaging regressor)."""
    learner = learner_of(model)
    if _averages(learner):
        return np.full(predictions.shape, np.nan)
    return np.maximum(np.abs(np.asarray(y, dtype=np.float64) - predictions) - learner.epsilon, 0.0)


def uniclass_losses(model, margins):
    """max(0, -margin) of each row, the margin radius - ||x - w||."""
    if _averages(learner_of(model)):
        return np.full(margins.shape, np.nan)
    return np.maximum(-margins, 0.0)


def multilabel_losses(model, margins):
    """max(0, 1 - margin) of each row, the margin min relevant - max irrelevant score (inf: nothing to rank)."""
    if _averages(learner_of(model)):
        return np.full(margins.shape, np.nan)
    return np.maximum(1.0 - margins, 0.0)


def multiclass_losses(model, scores, y):
    """The loss of each row of a multiclass (or cost-sensitive) ``model``, ``scores`` over its sorted classes."""
    learner = learner_of(model)
    n, k = scores.shape
    if _averages(learner):
        return np.full(n, np.nan)
    classes = np.asarray(learner.classes_)
    y = np.asarray(y)
    at = np.searchsorted(classes, y).clip(max=max(k - 1, 0))
    known = (classes[at] == y) if k else np.zeros(n, dtype=bool)
    rows = np.arange(n)
    own = np.where(known, scores[rows, at] if k else 0.0, 0.0)
    # the score of each class as a rival of the label: its own column, -inf for the label's own
    rivals = np.where(known[:, None] & (np.arange(k) == at[:, None]), -np.inf, scores)
    params = learner.get_params()
    if "cost" not in params:  # the highest-scoring wrong label is the rival
        top = rivals.max(axis=1, initial=-np.inf)
        return np.where(np.isfinite(top), np.maximum(1.0 - (own - top), 0.0), 0.0)
    cost = params["cost"]
    margins = 1.0 if cost is None else np.sqrt(np.asarray(cost, dtype=np.float64))[at]
    gaps = margins - (own[:, None] - rivals)
    if params["update"] == "prediction":
        gaps = np.where(np.argmax(scores, axis=1)[:, None] == np.arange(k), gaps, -np.inf)
    return np.maximum(gaps.max(axis=1, initial=0.0), 0.0)
