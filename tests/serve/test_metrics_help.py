"""Every help text of ``GET /metrics`` is the one docs/serve.md lists for the metric, and every metric listed
there is exposed (by a classifier's service or a regressor's)."""

import pathlib
import re

import olearn
from serve_helpers import require_serve_extra
from olearn.serve._metrics import Metrics
from olearn.serve._model import ServedModel

require_serve_extra()

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "serve.md"


def _documented():
    """{metric: (type, help)} of the table of the Metrics section of docs/serve.md."""
    section = DOCS.read_text(encoding="utf-8").split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(olearn_\w+)` \| (\w+) \| (.+) \|$", section, re.MULTILINE)
    assert rows, "docs/serve.md has no table of metrics"
    return {name: (kind, text) for name, kind, text in rows}


def _exposed(estimator):
    """{metric: (type, help)} of the Prometheus text of a service of ``estimator`` (its window as served)."""
    metrics = Metrics(regression=getattr(estimator, "_estimator_type", None) == "regressor", window=1000)
    metrics.watch(ServedModel(estimator))
    metrics.requests.observe("/learn", "200", 0.001)
    text = metrics.render().decode()
    helps = dict(re.findall(r"^# HELP (\S+) (.*)$", text, re.MULTILINE))
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE))
    return {name: (types[name], helps[name]) for name in helps if not name.endswith("_created")}


def test_every_metric_help_text_is_the_documented_one():
    documented = _documented()
    classifier, regressor = _exposed(olearn.PAClassifier()), _exposed(olearn.PARegressor())
    for exposed in (classifier, regressor):
        for name, described in exposed.items():
            assert documented.get(name) == described, name
    assert set(documented) == set(classifier) | set(regressor)
    # the progressive metric is that of every kind of round, not of /predict_learn alone
    assert "feedback by id" in classifier["olearn_progressive_accuracy"][1]
    assert "/predict_learn's predictions" not in " ".join(text for _, text in documented.values())
