"""Progressive validation of a served learner, since its state began: each round's prediction made before learning.

The rounds are those of ``/predict_learn`` and of feedback by id (``/learn``
with ``{"id": ..., "y": ...}``), each predicted on the model of the moment,
just before it learns the example: the progressive validation that
:func:`olearn.run` reports, computed by the same :mod:`olearn.metrics`
(:class:`~olearn.metrics.Accuracy` of a classifier, a multilabel prediction
counting when its label set is exact and a prediction of nothing, before
anything is learned, wrong; :class:`~olearn.metrics.MAE` of a regressor,
which predicts 0 before anything is learned). Every round weighs 1. The state is kept with the
service's state (the log's checkpoints, the versions), so that a restart
or a rollback carries on from the same numbers.
"""

from ..metrics import MAE, Accuracy


class Progress:
    """The progressive metric of a service: ``observe`` each round, ``summary`` for the routes."""

    def __init__(self, regression, state=None):
        self.regression = regression
        self.metric = MAE() if regression else Accuracy()
        if state is not None:
            self.metric._state = list(state["state"])
            self.metric._n = state["n"]

    @property
    def name(self):
        return "mae" if self.regression else "accuracy"

    def observe(self, predicted, y):
        """One round: the prediction made before learning ``y``."""
        if self.regression:
            self.metric.update(float(y), float(predicted))
        elif isinstance(y, list):
            self.metric.update(frozenset(y), None if predicted is None else frozenset(predicted))
        else:
            self.metric.update(y, predicted)

    def state(self):
        """The metric's running sums, as JSON."""
        return {"state": list(self.metric._state), "n": self.metric._n}

    def summary(self):
        """``{"metric": "accuracy" or "mae", "value": ..., "rounds": n}`` (value None before any round)."""
        rounds = self.metric._n
        return {"metric": self.name, "value": self.metric.get() if rounds else None, "rounds": rounds}
