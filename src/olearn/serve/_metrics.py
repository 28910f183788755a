"""The service's Prometheus metrics (:mod:`prometheus_client`, imported when a :class:`Metrics` is made, in a
registry of the service's own).

Requests by route and status, their latency, the examples learned, the
groups of the write-ahead log, and progressive validation over a rolling
window of rounds (``/predict_learn``, feedback by id and the labelled lines
of VW's daemon protocol): the accuracy of a classifier (a multilabel
prediction counts when its label set is exact) or the mean absolute error of
a regressor, each prediction made before its example was learned; the same
since the state began (:mod:`._progress`, kept with the state); and the
predictions waiting for feedback, with the bytes of their features. Every
help text is listed in docs/serve.md (tested).
"""

import math
import time
from bisect import bisect_left
from collections import deque
from itertools import accumulate

_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class Metrics:
    """The counters, histograms and gauges of one service."""

    def __init__(self, regression=False, window=1000):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.requests = RequestCounts(registry)
        self.learned = Counter("olearn_examples_learned", "Examples learned since the service started "
                               "(acknowledged: in the log)",
                               registry=registry)
        self.updates = Gauge("olearn_model_updates", "Examples learned since the state began: the seq of the last "
                             "update (a rollback does not lower it)",
                             registry=registry)
        self.groups = Histogram("olearn_log_group_updates", "Records (updates, and predictions kept for feedback) "
                                "made durable by one write and fsync of the log",
                                buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000), registry=registry)
        self.snapshot_failures = Counter("olearn_snapshot_failures", "Snapshots that could not be written "
                                         "(the log keeps the updates; the snapshot is tried again)",
                                         registry=registry)
        self.snapshot_updates = Gauge("olearn_snapshot_updates", "The seq of the last snapshot written",
                                      registry=registry)
        self.regression = regression
        name, text = (("olearn_progressive_mae", "Mean absolute error") if regression else
                      ("olearn_progressive_accuracy", "Accuracy"))
        self.progressive = Gauge(name, f"{text} of the predictions made before learning, over the last {window} "
                                 "rounds (/predict_learn, feedback by id, labelled VW lines)", registry=registry)
        self.progressive_rounds = Gauge("olearn_progressive_rounds",
                                        "Rounds in the progressive validation window", registry=registry)
        self._window = deque(maxlen=window)
        self.progressive.set_function(self._progressive_value)
        self.progressive_rounds.set_function(lambda: len(self._window))

    def watch(self, model):
        """Read the served ``model``'s progressive metric since its state began and its waiting predictions."""
        from prometheus_client import Gauge

        registry = self.registry
        name = "mae" if self.regression else "accuracy"
        shown = "MAE" if self.regression else "accuracy"
        Gauge(f"olearn_progressive_{name}_since_start", f"Progressive {shown} of every round the model served "
              "has learned since the state began (a rollback returns to its version's)", registry=registry
              ).set_function(lambda: _or_nan(model.progress.summary()["value"]))
        Gauge("olearn_progressive_rounds_since_start", "Progressive rounds the model served has learned since the "
              "state began (a rollback returns to its version's)", registry=registry).set_function(
            lambda: model.progress.summary()["rounds"])
        Gauge("olearn_feedback_pending", "Predictions waiting for their feedback",
              registry=registry).set_function(lambda: len(model.pending))
        Gauge("olearn_feedback_pending_bytes", "Bytes of the features of the predictions waiting for feedback "
              "(as JSON)", registry=registry).set_function(lambda: model.pending.bytes)

    def _progressive_value(self):
        return math.fsum(self._window) / len(self._window) if self._window else math.nan

    def observe_round(self, predicted, y):
        """One round of progressive validation: the prediction made before learning ``y``."""
        if self.regression:
            if predicted is None:
                return
            self._window.append(abs(float(predicted) - float(y)))
        elif isinstance(y, list):
            self._window.append(float(predicted is not None and set(predicted) == set(y)))
        else:
            self._window.append(float(predicted == y))

    def render(self):
        from prometheus_client import generate_latest

        return generate_latest(self.registry)


def _or_nan(value):
    return math.nan if value is None else value


class RequestCounts:
    """``olearn_requests`` (by route and status) and ``olearn_request_seconds`` (by route), kept as plain numbers and
    read by ``registry`` as a collector of its own (:meth:`collect`), with the samples prometheus_client's Counter
    and Histogram expose (their ``_created`` included). Those take a lock per value and walk the buckets in
    Python, about 2 us a request; :meth:`observe` is a few dict and list updates. Counted on the event loop's
    thread, which also reads them (``GET /metrics``)."""

    def __init__(self, registry):
        self._counts = {}  # (route, status) -> [requests, the time the first was counted]
        self._latency = {}  # route -> [requests per bucket (one per bound, then +Inf), the sum of seconds, created]
        registry.register(self)

    def observe(self, route, status, seconds):
        """Count a request of ``route`` answered with ``status`` (a str) in ``seconds``."""
        counted = self._counts.get((route, status))
        if counted is None:
            counted = self._counts[route, status] = [0, time.time()]
        counted[0] += 1
        timed = self._latency.get(route)
        if timed is None:
            timed = self._latency[route] = [[0] * (len(_LATENCY_BUCKETS) + 1), 0.0, time.time()]
        timed[0][bisect_left(_LATENCY_BUCKETS, seconds)] += 1  # the first bound at or above: Prometheus's "le"
        timed[1] += seconds

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
        from prometheus_client.utils import floatToGoString

        requests = CounterMetricFamily("olearn_requests", "Requests answered by the routes of the API (the probes and "
                                       "the page aside), by route and status", labels=("route", "status"))
        for (route, status), (count, created) in self._counts.items():
            requests.add_metric((route, status), count, created=created)
        latency = HistogramMetricFamily("olearn_request_seconds", "Seconds to answer a request of the API, by route",
                                        labels=("route",))
        bounds = [*map(floatToGoString, _LATENCY_BUCKETS), "+Inf"]
        for route, (buckets, seconds, created) in self._latency.items():
            latency.add_metric((route,), [*zip(bounds, accumulate(buckets))], seconds)
            latency.add_sample("olearn_request_seconds_created", {"route": route}, created)
        return [requests, latency]
