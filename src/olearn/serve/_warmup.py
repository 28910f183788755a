"""Warming a served learner's kernels before the service opens its port.

The first call of a numba kernel in a process compiles it, or loads it from
numba's cache: seconds, up to tens of seconds for some learners. Made by the
first request, on the event loop, that call would hold up every request
behind it (``/health`` too). :func:`warm_up` makes the calls a request makes
(a prediction, a prediction then an update, the scores) on a throwaway copy
of the learner, so that they are compiled before any request arrives; the
served learner is not touched.
"""

import copy

from .._labels import plain_label
from ._model import _REFUSED


def _labels(estimator):
    """Labels to try, in turn: a class the learner knows (or 1), alone or as a multilabel set."""
    classes = getattr(estimator, "classes_", None)
    label = 1 if classes is None or not len(classes) else plain_label(classes[0])
    return [label, [label]]


def warm_up(estimator):
    """Run a prediction, an update and the scores of one example on a copy of ``estimator`` (left as it is)."""
    x = {0: 1.0}
    for label in _labels(estimator):
        probe = copy.deepcopy(estimator)
        try:
            probe.predict_one(x)
            probe.predict_learn_one(x, label)
            probe.predict_one(x)
            (getattr(probe, "decision_function", None) or probe.predict)([x])
        except _REFUSED:
            continue
        return
