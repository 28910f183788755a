"""Progressive validation: predict each example, then learn it, in stream order."""

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._calibration import probabilities
from .._estimator import locking_its_estimator
from .._kernels import _codes
from .._learner import OnlineLearner
from .._rates import RunRates
from .._validation import check_targets, check_y


@dataclass(frozen=True)
class RunResult(RunRates):
    """What happened on each round of :func:`run`, before each update.

    Per-round arrays are empty when the run was made with ``record=False``;
    the totals are always there.

    Attributes
    ----------
    predictions : ndarray
        Predicted class of each round (made before learning that round; a
        binary learner knows both classes of ``y`` from the first round, where
        ``learn_one`` knows only those seen so far: docs/streams.md); for a
        regressor, the predicted value (the same as ``scores``); for
        :class:`~olearn.PAUniclass`, +1 where the vector fell inside the ball and
        -1 outside; for :class:`~olearn.PAMultilabel`, an (n, k) boolean indicator
        of the labels predicted relevant; for the multiclass learners the labels
        (in the labels' dtype), the lowest-sorting class ``classes_[0]`` on a
        round where no class was known yet (a stream's first), as a binary
        learner shows ``classes_[0]`` for a zero score: such a round names no
        class and counts as a mistake.
    scores : ndarray
        Decision value w.x of each round; for the uniclass learner the signed
        margin radius - ||y - w||, for the multilabel learner the ranking
        margin (lowest relevant minus highest irrelevant score; ``inf`` on a row
        with nothing to rank); for the multiclass learners shape (n, k), one
        column per class of ``classes_`` (-inf for a class not yet known).
    losses : ndarray
        The learner's loss on each round (the hinge loss for the Perceptron
        and the PA family, the chosen loss for OGD, the epsilon-insensitive
        loss for :class:`~olearn.PARegressor`).
    taus : ndarray
        Step size tau of each round (0 where the learner did not move).
    cumulative_mistakes : ndarray of int
        Mistakes made up to and including each round. A round is a mistake
        when ``y * score <= 0``: a zero score names no class and counts as a
        mistake, although ``predictions`` then shows ``classes_[0]``, the
        tie-break of ``predict`` (scikit-learn's). Regressors make no
        mistakes: all zeros, and ``n_mistakes`` is 0.
    n_rounds, n_mistakes, n_updates : int
    cumulative_loss : float
        Sum of the losses.
    support_sizes : ndarray of int
        Size of the support set after each round's update, for a learner in
        dual form (a ``kernel`` set); never above its ``budget``. Empty for
        learners without a support set.
    probabilities : ndarray
        For a binary learner with probabilities (``OGDClassifier(loss="logistic")``,
        or ``calibration="platt"``), the probability of each class of each
        round before its update, shape (n, len(``classes_``)) as
        ``predict_proba``: with a calibration, its map as it was before the
        round. Empty for other learners.
    metrics : tuple of olearn.metrics metrics
        The metrics given to :func:`run`, updated in place with every round:
        ``metrics[j].get()`` is the final value of metric j.
    checkpoints : ndarray of int
        The round counts at which the metrics were read (see :func:`run`'s
        ``checkpoints``); the last is ``n_rounds``.
    history : ndarray, shape (len(checkpoints), len(metrics))
        ``history[i, j]``: metric j over the rounds up to ``checkpoints[i]``
        (for a :class:`~olearn.metrics.Rolling` metric, over its window then).

    The metrics see the rounds as ``mistakes`` counts them: a round counted as
    a mistake whose shown prediction is nevertheless the true class (a zero
    score, a tie between the true class and another, a first round with no
    class known) reaches the label metrics as the prediction None, which
    names no class and is wrong. So :class:`~olearn.metrics.Accuracy` from
    :func:`run` is ``1 - mistake_rate`` (up to rounding), while
    ``accuracy_score(y, predictions)`` would count those ties as right.
    """

    n_rounds: int
    n_mistakes: int
    n_updates: int
    cumulative_loss: float
    predictions: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)
    losses: np.ndarray = field(repr=False)
    taus: np.ndarray = field(repr=False)
    cumulative_mistakes: np.ndarray = field(repr=False)
    support_sizes: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, dtype=np.int64))
    probabilities: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))
    metrics: tuple = ()
    checkpoints: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, dtype=np.int64))
    history: np.ndarray = field(repr=False, default_factory=lambda: np.empty((0, 0)))

    @property
    def metric_values(self):
        """The final value of each metric, as a dict {metric name: value}."""
        return {metric.name: metric.get() for metric in self.metrics}

    @property
    def cumulative_losses(self):
        """Loss summed up to and including each round."""
        return np.cumsum(self.losses)


@locking_its_estimator
def run(estimator, X, y=None, record=True, sample_weight=None, metrics=None, checkpoints=None):
    """Progressive validation with compiled code: predict each row, then learn it.

    The estimator learns in place: afterwards it is exactly as if
    ``estimator.partial_fit(X, y)`` had been called (the same kernel runs), and
    the result holds what happened on each round before each update.

    Parameters
    ----------
    estimator : olearn estimator or olearn pipeline
        Fresh or already trained; it continues from its current state. A
        :class:`olearn.compose.Pipeline` runs in the honest order: each row
        is transformed with the statistics of the rows before it, predicted,
        learned, and only then added to the statistics.
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,), optional
        The labels or targets. Only learners of unlabelled streams (uniclass
        prediction, whose examples are the rows of X themselves) go without.
    record : bool, default=True
        Keep the per-round arrays. ``False`` keeps only the totals, for
        streams too long to record round by round.
    sample_weight : float or array-like of shape (n_samples,), optional
        Importance weight of each example (finite, >= 0), combined with the
        estimator's ``class_weight`` if it has one; its meaning for each step
        rule is stated in the estimator's docstring. The predictions and the
        recorded losses are those of the unweighted rounds.
    metrics : list of olearn.metrics metrics, optional
        Metrics to fill from the rounds' predictions (each metric's
        ``consumes`` says which: the labels of a classifier, the values of a
        regressor, the scores or the probabilities of ``pos_label`` of a binary
        classifier), updated in place, each round with weight 1 (the
        ``sample_weight`` of learning does not weigh the metrics, as it does
        not weigh the mistakes). They are computed after the compiled pass
        from its per-round outputs, with array operations (ROC AUC: one
        compiled pass over a Fenwick tree), so the learner ends exactly as
        without them. With ``record=False`` the per-round outputs are still
        made for them, then dropped from the result.
    checkpoints : int or sequence of int, optional
        When to read the metrics into ``history``: an int k reads them every k
        rounds and after the last (River's ``step``); a sequence gives the
        round counts, increasing, from 1 to the number of rows. Default: after
        the last round only.

    Returns
    -------
    RunResult

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier, run
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> res = run(PAClassifier(variant="pa"), X, [1, -1, 1, -1])
    >>> res.n_mistakes, res.cumulative_mistakes.tolist(), res.taus.tolist()
    (2, [1, 2, 2, 2], [1.0, 1.0, 0.0, 0.0])
    """
    _check_learner(estimator)
    metrics = _check_metrics(estimator, metrics, y)
    ends = _checkpoint_rounds(checkpoints, _n_rows(X))
    # a learner with a support set appends the support-set size of each round
    weights = estimator._row_weights(X, y, sample_weight)
    extra = {} if weights is None else {"sample_weight": weights}
    log_odds = None
    if _calibrated(estimator):
        # the calibrated log-odds of each row before its update: what its probability was
        log_odds = extra["log_odds"] = np.empty(_n_rows(X))
    outputs = estimator._progressive(X, y, record=record or bool(metrics), **extra)
    predictions, scores, losses, taus, mistakes, totals, *sizes = outputs
    log_odds = scores if log_odds is None else log_odds
    history = _metric_history(estimator, metrics, y, predictions, scores, mistakes, ends, log_odds)
    proba = np.empty((0, 0))
    if record and len(scores) and estimator._task == "binary" and hasattr(estimator, "predict_proba"):
        proba = probabilities(log_odds, estimator.classes_.size)
    if not record:
        predictions, scores, losses, taus, mistakes = (a[:0] for a in (predictions, scores, losses, taus, mistakes))
        sizes = [size[:0] for size in sizes]
    return RunResult(
        n_rounds=int(totals[_codes.T_ROUNDS]),
        n_mistakes=int(totals[_codes.T_MISTAKES]),
        n_updates=int(totals[_codes.T_UPDATES]),
        cumulative_loss=float(totals[_codes.T_LOSS]),
        predictions=predictions,
        scores=scores,
        losses=losses,
        taus=taus,
        cumulative_mistakes=np.cumsum(mistakes, dtype=np.int64),
        support_sizes=sizes[0] if sizes else np.empty(0, dtype=np.int64),
        probabilities=proba,
        metrics=tuple(metrics),
        checkpoints=ends,
        history=history,
    )


def _calibrated(estimator):
    """Whether the learner (of a pipeline, its last step) maps its scores to probabilities by a calibration."""
    steps = getattr(estimator, "steps", None)
    learner = steps[-1][1] if steps else estimator
    calibrating = getattr(learner, "_calibrating", None)
    return calibrating is not None and calibrating()


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _checkpoint_rounds(checkpoints, n_rows):
    """The round counts at which the metrics are read, checked before anything is learned."""
    if checkpoints is None:
        return np.array([n_rows] if n_rows else [], dtype=np.int64)
    if isinstance(checkpoints, numbers.Integral) and not isinstance(checkpoints, bool):
        if checkpoints < 1:
            raise ValueError(f"run: checkpoints must be an int >= 1 or a sequence of round counts; got {checkpoints}")
        ends = np.arange(int(checkpoints), n_rows + 1, int(checkpoints), dtype=np.int64)
        return ends if ends.size and ends[-1] == n_rows or not n_rows else np.append(ends, n_rows)
    values = np.asarray(checkpoints)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ValueError("run: checkpoints must be an int >= 1 or a sequence of round counts (ints); "
                         f"got {checkpoints!r:.100}")
    if values.size and (values[0] < 1 or values[-1] > n_rows or np.any(np.diff(values) <= 0)):
        raise ValueError(f"run: checkpoints must be increasing round counts from 1 to the {n_rows} rows; "
                         f"got {checkpoints!r:.100}")
    return values.astype(np.int64)


def _check_metrics(estimator, metrics, y):
    """The metrics as a list, each of a kind the learner's predictions can feed; checked before anything is learned."""
    if metrics is None:
        return []
    # olearn.metrics loads on first use, as the other subpackages (olearn/__init__.py)
    from ..metrics import Metric, Rolling
    from ..metrics._base import LABELS, PROBABILITIES, SCORES, VALUES

    if isinstance(metrics, Metric) or not isinstance(metrics, (list, tuple)):
        raise TypeError(f"run: metrics must be a list of olearn.metrics metrics; got {metrics!r:.100}")
    task = estimator._task
    name = type(estimator).__name__
    for metric in metrics:
        if not isinstance(metric, Metric):
            raise TypeError(f"run: metrics must be olearn.metrics metrics; got {metric!r:.100}")
        wanted = metric.consumes
        inner = metric.metric if isinstance(metric, Rolling) else metric
        if wanted == LABELS and task in ("binary", "multiclass"):
            if getattr(inner, "average", None) == "binary":
                _check_pos_label(estimator, inner, y)
        elif wanted == VALUES and task == "regression":
            pass
        elif wanted in (SCORES, PROBABILITIES) and task == "binary":
            if wanted == PROBABILITIES and not hasattr(estimator, "predict_proba"):
                # a learner with a conditional predict_proba says why it has none here
                why = getattr(type(estimator), "_why_no_probabilities", None)
                reason = why(estimator) if why else f"{name} has no predict_proba"
                raise ValueError(f"run: {metric.name} reads probabilities, which {name} does not give: {reason}")
            _check_pos_label(estimator, inner, y)
        else:
            what = {LABELS: "the labels of a classifier", VALUES: "the values of a regressor",
                    SCORES: "the scores of a binary classifier",
                    PROBABILITIES: "the probabilities of a binary classifier"}
            raise ValueError(f"run: {metric.name} reads {what[wanted]}, which {name} (a {task} learner) does not give")
    if len({id(metric) for metric in metrics}) < len(metrics):
        raise ValueError("run: the same metric object is given twice; it would see every round twice")
    return list(metrics)


def _check_pos_label(estimator, metric, y):
    """ValueError unless the metric's pos_label is one of the learner's classes (those known and those of y)."""
    known = set(np.unique(check_y(y, len(y))).tolist()) if y is not None and len(y) else set()
    known.update(getattr(estimator, "classes_", np.empty(0)).tolist())
    if metric.pos_label not in known:
        shown = sorted(known, key=repr)
        raise ValueError(f"run: {metric.name}'s pos_label {metric.pos_label!r} is not one of the classes {shown}")


def _metric_history(estimator, metrics, y, predictions, scores, mistakes, ends, log_odds):
    """Fill the metrics from the pass's per-round outputs; return their values at the checkpoints.

    ``log_odds``: the log-odds of ``classes_[1]`` of each round (a calibrated
    learner's; the scores of the logistic learner).

    Shape (len(ends), len(metrics)).
    """
    history = np.empty((len(ends), len(metrics)))
    if not metrics or not len(ends):
        return history
    from ..metrics import Rolling
    from ..metrics._base import LABELS, SCORES, VALUES

    fed = {}
    for j, metric in enumerate(metrics):
        wanted = metric.consumes
        inner = metric.metric if isinstance(metric, Rolling) else metric
        if wanted == LABELS:
            if LABELS not in fed:
                labels = check_y(y, len(predictions))
                # a mistake that shows the true class (a zero score, a tie) named no class: None, wrong for every metric
                tie = mistakes & np.equal(predictions, labels)
                shown = predictions
                if tie.any():
                    shown = predictions.astype(object)
                    shown[tie] = None
                fed[LABELS] = labels, shown
            truth, pred = fed[LABELS]
        elif wanted == VALUES:
            truth, pred = check_targets(y, len(scores)), scores
        else:
            truth = check_y(y, len(scores))
            classes = estimator.classes_
            # a positive score names classes_[1]
            positive = classes.size == 1 or classes[-1] == inner.pos_label
            if wanted == SCORES:
                pred = scores if positive else -scores
            else:
                proba = probabilities(log_odds, classes.size)
                pred = proba[:, -1] if positive else proba[:, 0]
        history[:, j] = metric._values_at(truth, pred, ends)
    return history


def _check_learner(estimator):
    """TypeError, naming what was given, unless ``estimator`` is an olearn learner or pipeline that :func:`run` can drive.

    An olearn pipeline (:class:`olearn.compose.Pipeline`) transforms each row
    with the statistics of the rows before it, so it runs; another library's
    pipeline is refused, for its transformers are fitted on whole batches.
    """
    if isinstance(estimator, OnlineLearner):
        return
    from ..compose import Pipeline  # here, so that running a learner does not load the pipelines and transformers

    if isinstance(estimator, Pipeline):
        return
    name = type(estimator).__name__
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        inner = ", ".join(type(step).__name__ for _, step in steps)
        raise TypeError(
            f"olearn.run takes an olearn learner, not a {name} ({inner}). Progressive validation predicts each row "
            "before learning it; a transformer fitted on the whole batch (a scaler, say) has already seen every "
            "later row, so its output would leak the future into the scores and the mistakes. Transform the "
            "stream online instead, with an olearn pipeline (olearn.preprocessing.StandardScaler() | the learner), "
            "which scales each row with the statistics of the rows before it, or fit the transformer on a prefix of "
            "the stream and run the learner alone on the rest, transformed"
        )
    raise TypeError(
        f"olearn.run takes an olearn learner (one of olearn.all_estimators()), not a {name}: {estimator!r:.200}"
    )
