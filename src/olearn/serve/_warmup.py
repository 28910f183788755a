"""Warming a served learner's kernels before the service opens its port.

The first call of a numba kernel in a process compiles it, or loads it from
numba's cache: seconds, up to tens of seconds for some learners. Made by the
first request, on the event loop, that call would hold up every request
behind it (``/health`` too). :func:`warm_up` makes the calls requests make
(a prediction with its score, a prediction then an update, and a batch of
each: one matrix predicted, one pass learned) on a throwaway copy of the
learner, through the served model's own methods, and the compiled reading
of batch bodies (:func:`~olearn.serve._packed_batch.warm_up`), so that they
are compiled before any request arrives; the served learner is not touched.
"""

import copy

from .._labels import plain_label
from . import _packed_batch
from ._model import _REFUSED, ServedModel
from ._requests import Examples, RequestError


def _labels(estimator):
    """Labels to try, in turn: a class the learner knows (or 1), alone or as a multilabel set."""
    classes = getattr(estimator, "classes_", None)
    label = 1 if classes is None or not len(classes) else plain_label(classes[0])
    return [label, [label]]


def warm_up(estimator):
    """Run the predictions and updates of requests, one example and a batch, on a copy of ``estimator`` (left
    as it is)."""
    _packed_batch.warm_up()
    x = {0: 1.0}
    for label in _labels(estimator):
        probe = ServedModel(copy.deepcopy(estimator))
        try:
            probe.predict(Examples([x], [x], None, None, False))
            probe.apply("predict_learn", Examples([x], [x], [label], None, False))
            probe.predict(Examples([x], [x], None, None, False))
            probe.predict(Examples([x, x], [x, x], None, None, True))
            probe.apply("learn", Examples([x, x], [x, x], [label, label], None, True))
        except (RequestError, *_REFUSED):
            continue
        return
