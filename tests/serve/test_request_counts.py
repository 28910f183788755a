"""The requests' counts and latencies of ``GET /metrics`` are what prometheus_client's own Counter and Histogram
expose for the same requests: the same samples, labels and values (the creation times aside)."""

import random

from serve_helpers import require_serve_extra

require_serve_extra()

from prometheus_client import CollectorRegistry, Counter, Histogram  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from olearn.serve._metrics import _LATENCY_BUCKETS, Metrics  # noqa: E402


def _samples(text, names):
    """{(sample, labels): value} of the families ``names`` in the Prometheus ``text``, with their HELP and TYPE."""
    found = {}
    for family in text_string_to_metric_families(text):
        if family.name in names:
            found[("help", family.name)] = (family.type, family.documentation)
            for sample in family.samples:
                value = sample.value if not sample.name.endswith("_created") else "a time"
                found[(sample.name, tuple(sorted(sample.labels.items())))] = value
    return found


def test_the_counts_and_latencies_are_those_of_prometheus_clients_counter_and_histogram():
    from prometheus_client import generate_latest

    metrics = Metrics()
    registry = CollectorRegistry()
    requests = Counter("olearn_requests", "Requests answered by the routes of the API (the probes and the page "
                       "aside), by route and status", ("route", "status"), registry=registry)
    latency = Histogram("olearn_request_seconds", "Seconds to answer a request of the API, by route", ("route",),
                        buckets=_LATENCY_BUCKETS, registry=registry)
    rng = random.Random(0)
    # latencies on the bounds themselves, between them, and past the last one
    seconds = [*_LATENCY_BUCKETS, 0.0, 7.5, *(10 ** rng.uniform(-5, 1) for _ in range(300))]
    for k, taken in enumerate(seconds):
        route, status = rng.choice(["/learn", "/predict", "/health"]), rng.choice(["200", "401", "422"])
        metrics.requests.observe(route, status, taken)
        requests.labels(route, status).inc()
        latency.labels(route).observe(taken)
    names = {"olearn_requests", "olearn_request_seconds"}
    ours = _samples(metrics.render().decode(), names)
    theirs = _samples(generate_latest(registry).decode(), names)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == value if not isinstance(value, float) else abs(ours[key] - value) <= 1e-9 * abs(value), key
    assert ours[("olearn_request_seconds_count", (("route", "/learn"),))] > 50


def test_no_request_yet_exposes_the_two_families_without_samples():
    text = Metrics().render().decode()
    assert "# TYPE olearn_requests_total counter" in text and "# TYPE olearn_request_seconds histogram" in text
    assert "olearn_requests_total{" not in text and "olearn_request_seconds_count{" not in text
