"""olearn.river: olearn learners and pipelines as River estimators, judged by River's own checks and evaluation.

The references are River's: ``river.checks.check_estimator`` (its conventions),
``river.evaluate`` (its progressive validation, which calls ``predict_one`` then
``learn_one``) and ``river.datasets.Phishing`` (bundled with River, no download),
against olearn's compiled progressive validation ``olearn.run``.

River's own ``river.compose.Pipeline`` updates an unsupervised transformer with
an example *before* transforming it for its learner (``learn_one`` then
``transform_one``), where olearn's pipeline transforms with the statistics of
the examples before it (docs/river.md). So ``StandardScaler() | to_river(learner)``
in River is a different stream from olearn's pipeline; the equality tests below
adapt olearn's pipeline as a whole.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import olearn
from olearn.preprocessing import StandardScaler

river = pytest.importorskip("river")

from river import checks, datasets, evaluate, metrics  # noqa: E402

from olearn.river import OlearnClassifier, OlearnRegressor, to_river  # noqa: E402

REFUSED = {"PAMultilabel": "multi-label", "PAUniclass": "no x", "PASequence": "sequences"}
ADAPTED = [name for name, _ in olearn.all_estimators() if name not in REFUSED]


def _check(model):
    """River's check_estimator on ``model``, none of its checks skipped; the number of checks run."""
    assert model._unit_test_skips() == set()
    checks.check_estimator(model)
    return sum(1 for _ in checks.yield_checks(model))


@pytest.mark.parametrize("name", ADAPTED)
def test_river_checks_pass_for_every_adaptable_learner(name):
    model = to_river(dict(olearn.all_estimators())[name]())
    assert isinstance(model, OlearnRegressor if name == "PARegressor" else OlearnClassifier)
    # the multiclass learners also meet River's multiclass dataset (ImageSegments); the classifiers' checks
    # include River's mini-batch ones (learn_many, predict_many, predict_proba_many against the _one methods)
    assert _check(model) == {"PARegressor": 27, "MIRA": 62, "MulticlassPerceptron": 62, "PACostSensitive": 62,
                             "PAMulticlass": 62}.get(name, 48)


@pytest.mark.parametrize("make", [
    lambda: to_river(StandardScaler() | olearn.PAClassifier()),
    lambda: to_river(StandardScaler() | olearn.PAMulticlass()),
    lambda: to_river(StandardScaler() | olearn.PARegressor(variant="pa1")),
    # River's binary check wants probabilities over {False, True} from the first call: declared classes
    lambda: to_river(olearn.OGDClassifier(loss="logistic"), classes=[False, True]),
    lambda: to_river(StandardScaler() | olearn.OGDClassifier(loss="logistic"), classes=[False, True]),
], ids=["pipeline", "pipeline-multiclass", "pipeline-regressor", "logistic", "pipeline-logistic"])
def test_river_checks_pass_for_pipelines_and_probabilities(make):
    assert _check(make()) > 0


def test_probabilities_only_where_the_learner_has_them():
    x = {"a": 1.0, "b": -0.5}
    logistic = to_river(olearn.OGDClassifier(loss="logistic"))
    assert logistic.predict_proba_one(x) == {}  # no class known: River's empty answer
    logistic.learn_one(x, "yes")
    logistic.learn_one({"a": -1.0}, "no")
    proba = logistic.predict_proba_one(x)
    score = logistic.estimator.decision_function(np.array([[1.0, -0.5]]))[0]
    assert proba["yes"] == pytest.approx(1.0 / (1.0 + np.exp(-score)))
    assert proba["no"] == pytest.approx(1.0 - proba["yes"])
    assert to_river(olearn.OGDClassifier(loss="logistic"), classes=["no", "yes"]).predict_proba_one(x) == {
        "no": 0.5, "yes": 0.5}
    for model in (to_river(olearn.PAClassifier()), to_river(olearn.OGDClassifier()),
                  to_river(StandardScaler() | olearn.PAMulticlass())):
        model.learn_one(x, "yes")
        with pytest.raises(NotImplementedError, match="predicts classes, not probabilities"):
            model.predict_proba_one(x)
        assert model.predict_one(x) == "yes"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_river_cannot_carry_is_refused_with_the_reason(name):
    with pytest.raises(TypeError, match=f"cannot adapt {name} exactly: .*{REFUSED[name]}"):
        to_river(dict(olearn.all_estimators())[name]())


@pytest.mark.parametrize("thing, message", [
    (StandardScaler(), "StandardScaler is not one"),
    (olearn.compose.Pipeline(StandardScaler()), "ends with a transformer"),
    ("PAClassifier", "not a str"),
], ids=["transformer", "transformer-pipeline", "str"])
def test_what_is_not_a_learner_of_examples_is_refused(thing, message):
    with pytest.raises(TypeError, match=message):
        to_river(thing)


def test_wrong_adapter_classes_and_class_counts_are_refused():
    from sklearn.linear_model import Perceptron

    with pytest.raises(TypeError, match="olearn learner or pipeline, not a Perceptron"):
        to_river(Perceptron())
    with pytest.raises(TypeError, match="PARegressor is a regressor, which takes no classes"):
        to_river(olearn.PARegressor(), classes=[0, 1])
    with pytest.raises(TypeError, match="OlearnRegressor adapts a regressor; PAClassifier is a classifier"):
        OlearnRegressor(olearn.PAClassifier())
    with pytest.raises(ValueError, match="must name exactly 2"):
        to_river(olearn.PAClassifier(), classes=["a", "b", "c"])


def test_a_learned_estimator_keeps_its_model_and_its_classes_are_checked():
    est = olearn.PAClassifier()
    olearn.run(est, [{"f": 1.0, "g": 2.0}, {"f": -1.0}], ["a", "b"])
    coef = est.coef_.copy()
    model = to_river(est, classes=["a", "b"])
    assert model.estimator is est
    np.testing.assert_array_equal(est.coef_, coef)
    with pytest.raises(ValueError, match="differs from the classes"):
        to_river(est, classes=["a", "c"])


def test_clone_is_an_unfitted_clone_of_the_estimator_and_include_attributes_keeps_the_model():
    model = to_river(olearn.PAClassifier(variant="pa1", C=0.5), classes=["a", "b"])
    model.learn_one({"f": 1.0}, "b")
    fresh = model.clone()
    assert fresh.estimator is not model.estimator and repr(fresh.estimator) == repr(model.estimator)
    assert fresh.classes == ["a", "b"] and fresh.estimator.classes_.tolist() == ["a", "b"]
    assert fresh.estimator.coef_.size == 0  # the classes declared, nothing learned
    other = model.clone({"estimator": olearn.Perceptron()})
    assert isinstance(other.estimator, olearn.Perceptron)
    kept = model.clone(include_attributes=True)
    assert kept.estimator is not model.estimator
    np.testing.assert_array_equal(kept.estimator.coef_, model.estimator.coef_)


def _river_predictions(model, dataset):
    """The prediction River's progressive validation makes on each round (None included)."""
    states = evaluate.iter_progressive_val_score(dataset, model, metrics.Accuracy(), step=1, yield_predictions=True)
    return [state["Prediction"] for state in states]


def _synthetic(n=400, seed=3, present=0.8):
    """A stream of dicts whose features come and go (each there with chance ``present``), two classes named by
    strings, and a noisy linear rule."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=6)
    rows, labels = [], []
    for _ in range(n):
        values = rng.normal(size=6) * [1.0, 10.0, 0.1, 1.0, 3.0, 1.0]
        keep = rng.random(6) < present
        rows.append({f"f{j}": float(values[j]) for j in range(6) if keep[j]})
        labels.append("spam" if values @ w + 0.3 * rng.normal() > 0 else "ham")
    return rows, labels


STREAMS = {
    "phishing": lambda: tuple(map(list, zip(*datasets.Phishing()))),
    "synthetic": _synthetic,
}
LEARNERS = {
    "pa1": lambda: olearn.PAClassifier(variant="pa1"),
    "arow": lambda: olearn.AROW(),
    "pipeline": lambda: StandardScaler() | olearn.PAClassifier(variant="pa1"),
}


@pytest.mark.parametrize("stream", sorted(STREAMS))
@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_progressive_val_score_sees_runs_predictions_from_the_first_round_with_declared_classes(stream, learner):
    X, y = STREAMS[stream]()
    expected = olearn.run(LEARNERS[learner](), X, y)
    classes = sorted(set(y))
    model = to_river(LEARNERS[learner](), classes=classes)
    seen = _river_predictions(model, zip(X, y))
    assert seen == expected.predictions.tolist()
    accuracy = metrics.Accuracy()
    evaluate.progressive_val_score(zip(X, y), to_river(LEARNERS[learner](), classes=classes), accuracy)
    # River's Accuracy counts the predicted labels; run's n_mistakes also counts a zero score as a mistake
    assert accuracy.get() == pytest.approx(np.mean(expected.predictions == np.array(y)), abs=1e-12)


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_without_declared_classes_river_and_run_agree_from_the_round_after_the_second_class(stream):
    X, y = STREAMS[stream]()
    expected = olearn.run(LEARNERS["pipeline"](), X, y).predictions.tolist()
    seen = _river_predictions(to_river(LEARNERS["pipeline"]()), zip(X, y))
    second = next(t for t in range(len(y)) if y[t] != y[0])
    assert seen[0] is None and set(seen[1:second + 1]) == {y[0]}
    assert seen[second + 1:] == expected[second + 1:]


def test_multiclass_streams_match_run_after_its_first_round():
    """A multiclass learner lets a class join when first seen, in run as in learn_one.

    run shows ``classes_[0]`` on the first round, where no class is known
    (docs/multiclass.md) and River sees None.
    """
    rows, _ = _synthetic(300, seed=5)
    labels = np.random.default_rng(0).choice(["a", "b", "c"], size=len(rows)).tolist()
    for learner in (olearn.PAMulticlass, lambda: StandardScaler() | olearn.MulticlassPerceptron()):
        expected = olearn.run(learner(), rows, labels).predictions.tolist()
        seen = _river_predictions(to_river(learner()), zip(rows, labels))
        assert seen[0] is None and seen[1:] == expected[1:]


def test_a_cost_matrix_learner_streams_as_run_with_its_classes_declared():
    rows, _ = _synthetic(300, seed=6)
    labels = np.random.default_rng(2).choice([0, 1, 2], size=len(rows)).tolist()
    cost = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    declared = olearn.PACostSensitive(cost=cost).partial_fit(np.empty((0, 0)), [], classes=[0, 1, 2])
    expected = olearn.run(declared, rows, labels).predictions.tolist()
    model = to_river(olearn.PACostSensitive(cost=cost), classes=[0, 1, 2])
    assert _river_predictions(model, zip(rows, labels)) == expected


def test_regression_stream_matches_run():
    rows, _ = _synthetic(300, seed=5)
    rng = np.random.default_rng(0)
    targets = [sum(x.values()) + 0.1 * rng.normal() for x in rows]
    expected = olearn.run(StandardScaler() | olearn.PARegressor(variant="pa2"), rows, targets).predictions
    model = to_river(StandardScaler() | olearn.PARegressor(variant="pa2"))
    states = evaluate.iter_progressive_val_score(zip(rows, targets), model, metrics.MAE(), step=1,
                                                 yield_predictions=True)
    np.testing.assert_allclose([s["Prediction"] for s in states], expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("learner", ["pipeline", "logistic"])
def test_mini_batches_learn_as_run_and_predict_as_the_learned_model(learner):
    import pandas as pd

    make = {"pipeline": LEARNERS["pipeline"],
            "logistic": lambda: olearn.OGDClassifier(loss="logistic", eta=0.5, fit_intercept=True)}[learner]
    # every feature in every row: a DataFrame would hold NaN for an absent one, which olearn refuses
    X, y = _synthetic(300, seed=11, present=1.0)
    learned = make()
    olearn.run(learned, X[:250], y[:250])
    model = to_river(make(), classes=["ham", "spam"])
    for start, stop in zip(range(0, 250, 50), range(50, 251, 50)):
        batch = pd.DataFrame(X[start:stop])
        assert model.learn_many(batch, pd.Series(y[start:stop])) is None
    held_out = pd.DataFrame(X[250:])
    assert model.predict_many(held_out).tolist() == learned.predict(X[250:]).tolist()
    if learner == "logistic":
        scores = learned.decision_function(X[250:])
        proba = model.predict_proba_many(held_out)
        assert list(proba.columns) == ["ham", "spam"]
        np.testing.assert_allclose(proba["spam"], 1.0 / (1.0 + np.exp(-scores)), rtol=1e-12)
    else:
        with pytest.raises(NotImplementedError, match="not probabilities"):
            model.predict_proba_many(held_out)


def test_river_weights_are_sample_weights():
    X, y = _synthetic(200, seed=7)
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    expected = olearn.run(olearn.PAClassifier(variant="pa1"), X, y, sample_weight=w).predictions.tolist()
    stream = ((x, label, {"w": float(weight)}) for x, label, weight in zip(X, y, w))
    assert _river_predictions(to_river(olearn.PAClassifier(variant="pa1"), classes=["ham", "spam"]), stream) == expected


def test_rivers_own_pipeline_takes_the_adapter():
    from river import preprocessing

    model = preprocessing.StandardScaler() | to_river(olearn.PAClassifier(variant="pa1"))
    accuracy = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    assert accuracy.get() > 0.8
    assert model["OlearnClassifier"].estimator.coef_.shape == (1, 9)


def test_olearn_does_not_import_river_and_olearn_river_names_the_extra_without_it():
    code = textwrap.dedent("""
        import sys
        import olearn
        assert "river" not in sys.modules, "import olearn imported River"

        class NoRiver:
            def find_spec(self, name, path=None, target=None):
                if name == "river" or name.startswith("river."):
                    raise ImportError(f"No module named {name!r}")

        sys.meta_path.insert(0, NoRiver())
        olearn.PAClassifier().learn_one({"a": 1.0}, True)
        try:
            import olearn.river
        except ImportError as error:
            print(error)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'olearn.river needs River, an optional dependency: pip install "olearn[river]"'
