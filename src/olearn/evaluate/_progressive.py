"""Progressive validation: predict each example, then learn it, in stream order."""

from dataclasses import dataclass, field

import numpy as np

from .._kernels import _codes
from .._learner import OnlineLearner


@dataclass(frozen=True)
class RunResult:
    """What happened on each round of :func:`run`, before each update.

    Per-round arrays are empty when the run was made with ``record=False``;
    the totals are always there.

    Attributes
    ----------
    predictions : ndarray
        Predicted class of each round (made before learning that round); for a
        regressor, the predicted value (the same as ``scores``); for
        :class:`~olearn.PAUniclass`, +1 where the vector fell inside the ball and
        -1 outside; for :class:`~olearn.PAMultilabel`, an (n, k) boolean indicator
        of the labels predicted relevant; for the multiclass learners an object
        array of labels, None on a first round where no class was known yet.
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

    @property
    def mistake_rate(self):
        """Mistakes per round (0 for an empty run)."""
        return self.n_mistakes / self.n_rounds if self.n_rounds else 0.0

    @property
    def average_loss(self):
        """Cumulative loss per round (0 for an empty run)."""
        return self.cumulative_loss / self.n_rounds if self.n_rounds else 0.0

    @property
    def cumulative_losses(self):
        """Loss summed up to and including each round."""
        return np.cumsum(self.losses)


def run(estimator, X, y=None, record=True, sample_weight=None):
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
    # a learner with a support set appends the support-set size of each round
    weights = estimator._row_weights(X, y, sample_weight)
    extra = {} if weights is None else {"sample_weight": weights}
    predictions, scores, losses, taus, mistakes, totals, *sizes = estimator._progressive(X, y, record=record, **extra)
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
    )


def _check_learner(estimator):
    """TypeError, naming what was given, unless ``estimator`` is an olearn learner or pipeline that :func:`run` can drive.

    An olearn pipeline (:class:`olearn.compose.Pipeline`) transforms each row
    with the statistics of the rows before it, so it runs; another library's
    pipeline is refused, for its transformers are fitted on whole batches.
    """
    from ..compose import Pipeline

    if isinstance(estimator, (OnlineLearner, Pipeline)):
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
