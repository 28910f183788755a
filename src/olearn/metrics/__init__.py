"""Streaming metrics: each is updated one round at a time, can take a round back, and reads its value at any time.

Every metric has ``update(y_true, y_pred, sample_weight=1.0)``, ``revert`` (with
the same arguments, to take a round back), ``get()``, ``bigger_is_better`` and
``consumes``: what ``y_pred`` is, ``"labels"`` (a predicted class; None names
none and is wrong), ``"values"`` (a regressor's prediction), ``"scores"`` (a
real score of the positive class) or ``"probabilities"`` (the probability of
the positive class, or a dict ``{class: probability}``). :func:`olearn.run`
reads ``consumes`` to feed each metric from its compiled pass
(``run(est, X, y, metrics=[...])``). Each metric equals scikit-learn's on the
same rounds; the undefined cases are stated in each class. See docs/metrics.md.

>>> from olearn.metrics import F1, Rolling
>>> f1 = F1(average="macro")
>>> for y, p in [("a", "a"), ("b", "a"), ("b", "b")]:
...     f1 = f1.update(y, p)
>>> round(f1.get(), 4)
0.6667
"""

from ._base import Metric
from ._classification import F1, ROCAUC, Accuracy, LogLoss, Precision, Recall
from ._regression import MAE, R2, RMSE
from ._rolling import Rolling

__all__ = ["Accuracy", "F1", "LogLoss", "MAE", "Metric", "Precision", "R2", "RMSE", "ROCAUC", "Recall", "Rolling"]
