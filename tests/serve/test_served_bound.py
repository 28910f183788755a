"""``GET /bound``: the papers' bounds of a served learner beside the mistakes it made on the examples it learned,
as ``olearn run --bound`` states them for those examples; none for a learner without theorems or whose rounds are
not all known; a rollback returns to the version's rounds."""

import asyncio

import numpy as np

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.bounds import bound_report  # noqa: E402
from olearn.preprocessing import StandardScaler  # noqa: E402
from olearn.serve._bound import Bounds  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402

NOVIKOFF = "Novikoff 1962 (Perceptron, separable)"
SHALEV_SHWARTZ_SINGER = "Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)"


def _stream(n, seed):
    """``n`` rows of two features ("a", "b"), labelled by a separating direction."""
    X = np.random.default_rng(seed).normal(size=(n, 2))
    return X, np.where(X[:, 0] - 0.5 * X[:, 1] > 0, 1, -1)


def _perceptron_mistakes(X, y):
    """The Perceptron (Rosenblatt; w = 0, no bias): the rounds with y w.x <= 0, each followed by w += y x."""
    w, mistakes = np.zeros(X.shape[1]), 0
    for x, label in zip(X, y):
        if label * (w @ x) <= 0:
            mistakes += 1
            w += label * x
    return mistakes


def _learn(model, X, y, op="predict_learn", weights=None):
    for i in range(len(y)):
        document = {"x": {"a": float(X[i, 0]), "b": float(X[i, 1])}, "y": int(y[i])}
        if weights is not None:
            document["sample_weight"] = weights[i]
        model.apply(op, read_labelled(document, Limits()))


def _answer(model):
    return asyncio.run(Bounds(model).answer())


def test_the_bound_is_that_of_olearn_run_on_the_examples_learned_beside_their_mistakes():
    X, y = _stream(60, 3)
    model = ServedModel(olearn.Perceptron())
    _learn(model, X[:30], y[:30])
    batch = {"x": [{"a": float(a), "b": float(b)} for a, b in X[30:]], "y": [int(v) for v in y[30:]]}
    model.apply("learn", read_labelled(batch, Limits()))  # a batch learned in one pass counts its rounds too
    answer = _answer(model)
    assert answer["bounded"] and answer["rounds"] == answer["seen"] == 60 and answer["updates"] == 60
    rows = {row["theorem"]: row for row in answer["rows"]}
    assert set(rows) == {NOVIKOFF, SHALEV_SHWARTZ_SINGER}
    mistakes = _perceptron_mistakes(X, y)
    assert mistakes > 0
    # the same rows as bound_report on the matrix of the examples, built here column by column
    report = bound_report(olearn.Perceptron(), X, y, olearn.run(olearn.Perceptron(), X, y))
    for row in report.rows:
        assert rows[row.theorem]["measured"] == mistakes == row.measured
        assert rows[row.theorem]["bound"] == row.bound >= mistakes and rows[row.theorem]["holds"]


def test_a_rollback_returns_to_the_bound_of_the_version(tmp_path):
    X, y = _stream(50, 4)
    store = Store(tmp_path / "state")
    model = store.open(lambda: olearn.Perceptron(), pending=Pending(), say=lambda text: None)
    _learn(model, X[:20], y[:20])
    store.take_version(model, True)
    _learn(model, X[20:], -y[20:])  # a poisoned stream
    bounds = Bounds(model)
    assert asyncio.run(bounds.answer())["rounds"] == 50
    model.roll_back(*store.versions.load(1))
    # at once, although the last bound was just computed: the model is another one
    assert asyncio.run(bounds.answer())["rounds"] == 20
    _learn(model, X[20:25], y[20:25])  # learning goes on from the version's rounds
    answer = _answer(model)
    store.close()
    kept = np.r_[np.arange(20), np.arange(20, 25)]
    assert answer["rounds"] == 25 and answer["updates"] == 55
    assert {row["measured"] for row in answer["rows"]} == {_perceptron_mistakes(X[kept], y[kept])}


def test_no_bound_without_theorems_or_without_every_round():
    X, y = _stream(10, 5)
    for estimator in (olearn.AdaGrad(), StandardScaler() | olearn.Perceptron()):
        model = ServedModel(estimator)
        _learn(model, X, y)
        answer = _answer(model)
        assert answer["bounded"] is False and answer["rows"] == []
        assert "has no theorem" in answer["reason"]
    learned = olearn.Perceptron().partial_fit([{"a": 1.0}], [1], classes=[-1, 1])  # a model file's learner
    model = ServedModel(learned)
    _learn(model, X, y)
    answer = _answer(model)
    assert answer["bounded"] is False and "had learned before the service started" in answer["reason"]
    weighted = ServedModel(olearn.Perceptron())
    _learn(weighted, X, y, weights=[1.0] * 9 + [2.0])
    answer = _answer(weighted)
    assert answer["bounded"] and answer["rows"] == [] and "unweighted rounds" in answer["reason"]
