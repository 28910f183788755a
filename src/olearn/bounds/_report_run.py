"""The run a report is about: checked to be what a fresh copy of its learner does on the stream, and the learner
checked to be one the theorems are about."""

import numpy as np

from ..evaluate import run
from ._theorems import _Stream, check_u


def _check_result(estimator, X, y, result, n_rows, classes=None):
    from sklearn.base import clone

    if not all(hasattr(result, name) for name in ("n_rounds", "losses", "scores", "n_mistakes")):
        raise TypeError(f"result must be the RunResult of olearn.run(estimator, X, y); got {type(result).__name__}")
    if result.n_rounds != n_rows:
        raise ValueError(f"result covers {result.n_rounds} rounds but X has {n_rows} rows")
    if result.losses.size != n_rows:
        raise ValueError("result has no per-round arrays; run olearn.run(estimator, X, y) with record=True")
    fresh = clone(estimator)
    if classes is not None:
        # declared before the first round, as the run under test did
        fresh.partial_fit(np.empty((0, 0)), [], classes=classes)
    replay = run(fresh, X, y)
    if not (np.array_equal(replay.losses, result.losses) and np.array_equal(replay.scores, result.scores)):
        raise ValueError(
            "result is not what a fresh copy of this estimator does on (X, y); the theorems are about a run "
            "that starts from w = 0, so pass the result of olearn.run(fresh_estimator, X, y) with the same "
            "hyperparameters and rows in the same order"
        )


def check_linear(estimator):
    """Refuse a kernel learner (it competes in its feature space) or a budget (it forgets support vectors)."""
    if estimator.kernel not in (None, "linear") or estimator.budget is not None:
        raise ValueError(
            f"bound_report's theorems are about the linear learner (against a linear u in input space); "
            f"{estimator!r} is not one: its kernel or budget is outside every theorem it knows"
        )


def _unweighted_stream(estimator, X, y, result, u):
    """The stream of a binary learner's unweighted run, checked against ``result``, and the competitor u
    given (checked) or None."""
    if estimator.class_weight is not None:
        raise ValueError(f"bound_report's theorems are about unweighted rounds; {estimator!r} has a class_weight")
    fit_intercept = bool(estimator.fit_intercept)
    stream = _Stream(X, y, fit_intercept)
    _check_result(estimator, X, y, result, stream.y.size)
    return stream, None if u is None else check_u(u, stream, fit_intercept)
