"""Pipelines (olearn.compose.Pipeline, ``|``): the honest progressive order, one conversion, batches, run."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn import PAClassifier, PARegressor
from olearn.compose import Pipeline
from olearn.preprocessing import FeatureHasher, MaxAbsScaler, OneHotEncoder, StandardScaler


def _stream(n, d, seed, density=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 1.0, size=(n, d)) * rng.uniform(0.5, 50.0, size=d) + rng.uniform(-20, 20, size=d)
    X *= rng.random((n, d)) < density
    w = rng.normal(size=d)
    y = np.where((X - X.mean(axis=0)) / X.std(axis=0) @ w > 0, "yes", "no")
    rows = [{f"x{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]
    return X, y, rows


def _scaled_by_the_past(X):
    """A NumPy transcription of the honest order: row i scaled by the mean and std of rows 0..i-1 (0 where std is 0)."""
    out = np.zeros_like(X)
    for i in range(X.shape[0]):
        if i == 0:
            continue
        mean, std = X[:i].mean(axis=0), X[:i].std(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[i] = np.where(std > 0, (X[i] - mean) / std, 0.0)
    return out


def _snapshot(pipe):
    """The learned state of a pipeline and of its steps, attribute by attribute."""
    state = {}
    for owner, obj in [("pipeline", pipe)] + list(pipe.steps):
        for key, value in obj.__getstate__().items():
            if key not in ("steps", "_plan_cache", "_config_cache"):
                state[owner, key] = pickle.dumps(value)
    return state


def test_learn_one_transforms_with_the_statistics_before_the_example():
    X, y, _ = _stream(60, 4, seed=1)
    pipe = StandardScaler() | PAClassifier(C=0.5)
    plain = PAClassifier(C=0.5)
    Z = _scaled_by_the_past(X)
    for x, z, label in zip(X, Z, y):
        row = {j: float(v) for j, v in enumerate(x)}
        assert pipe.predict_learn_one(row, label) == plain.predict_learn_one(z, label)
    assert_allclose(pipe[-1].coef_, plain.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(pipe["standardscaler"].mean_, X.mean(axis=0), rtol=1e-12)


def test_predictions_equal_rivers_scaler_and_pa_run_in_the_same_order():
    pytest.importorskip("river")
    import river.linear_model
    import river.preprocessing

    X, y, rows = _stream(80, 5, seed=2)
    pipe = StandardScaler() | PAClassifier(variant="pa1", C=0.3)
    scaler, pa = river.preprocessing.StandardScaler(), river.linear_model.PAClassifier(C=0.3, mode=1,
                                                                                         learn_intercept=False)
    start = max(list(y).index("yes"), list(y).index("no")) + 1  # both classes known from here
    for i, (x, label) in enumerate(zip(rows, y == "yes")):
        ours = pipe.predict_learn_one(x, bool(label))
        # River's parts in olearn's order: transform, predict, learn, then update the scaler
        z = scaler.transform_one(x)
        theirs = pa.predict_one(z)
        pa.learn_one(z, bool(label))
        scaler.learn_one(x)
        if i >= start:
            assert ours == theirs
    fm = pipe.feature_map_
    assert_allclose([pa.weights.get(name, 0.0) for name in fm.vocabulary()], pipe[-1].coef_.ravel(), rtol=1e-9)


@pytest.mark.parametrize("density", [1.0, 0.4])
def test_run_equals_predict_learn_one_row_by_row_and_partial_fit(density):
    X, y, rows = _stream(120, 6, seed=3, density=density)
    make = lambda: MaxAbsScaler() | StandardScaler(with_mean=density == 1.0) | PAClassifier(variant="pa2")
    by_row = make()
    predicted = [by_row.predict_learn_one(x, label) for x, label in zip(rows, y)]
    ran = make()
    res = olearn.run(ran, rows, y)
    assert res.n_rounds == 120
    # from the round after both classes have been seen (before, a lone class is a learner's own convention)
    start = max(list(y).index("yes"), list(y).index("no")) + 1
    assert_array_equal(res.predictions[start:], np.array(predicted[start:], dtype=object))
    batch = make().partial_fit(rows[:50], y[:50]).partial_fit(rows[50:], y[50:])
    for other in (ran, batch):
        assert_allclose(other[-1].coef_, by_row[-1].coef_, rtol=1e-9, atol=1e-12)
        assert_allclose(other[1].var_, by_row[1].var_, rtol=1e-12)
        assert other.feature_map_ == by_row.feature_map_


def test_arrays_sparse_rows_and_dataframes():
    pd = pytest.importorskip("pandas")
    X, y, _ = _stream(40, 3, seed=4)
    dense = StandardScaler() | PARegressor()
    for x, target in zip(X, X[:, 0] * 2.0):
        dense.learn_one(x, target)
    by_dict = StandardScaler() | PARegressor()
    for x, target in zip(X, X[:, 0] * 2.0):
        by_dict.learn_one({j: v for j, v in enumerate(x)}, target)
    assert_allclose(dense[-1].coef_, by_dict[-1].coef_, rtol=1e-12)
    sparse = StandardScaler() | PARegressor()
    sparse.partial_fit(sp.csr_matrix(X), X[:, 0] * 2.0)
    assert_allclose(sparse[-1].coef_, by_dict[-1].coef_, rtol=1e-9)
    frame = pd.DataFrame(X, columns=["a", "b", "c"], index=range(7, 47))
    named = (StandardScaler() | PARegressor()).learn_many(frame, X[:, 0] * 2.0)
    assert list(named.feature_map_.vocabulary()) == ["a", "b", "c"]
    assert_allclose(named[-1].coef_, by_dict[-1].coef_, rtol=1e-9)
    predicted = named.predict_many(frame)
    assert list(predicted.index) == list(frame.index)
    assert_allclose(predicted.to_numpy(), [named.predict_one(dict(zip("abc", x))) for x in X], rtol=1e-12)
    assert_allclose(dense.predict(X), [dense.predict_one(x) for x in X], rtol=1e-12)


def test_names_never_learned_count_zero_and_hashing_and_one_hot_steps():
    pipe = OneHotEncoder(features=["zip"]) | StandardScaler(with_mean=False) | PAClassifier()
    pipe.learn_one({"zip": 75001, "city": "Paris", "age": 30.0}, True)
    pipe.learn_one({"zip": 13001, "city": "Rome", "age": 50.0}, False)
    assert list(pipe.feature_map_.vocabulary()) == ["zip=75001", "city=Paris", "age", "zip=13001", "city=Rome"]
    # an unknown name adds nothing to the prediction, and is not learned by predicting
    assert pipe.predict_one({"age": 40.0, "colour": 3.0}) == pipe.predict_one({"age": 40.0})
    assert pipe.feature_map_.size == 5
    hashed = FeatureHasher(n_bits=8) | PAClassifier()
    hashed.learn_one({"age": 30.0, "city": "Paris"}, True)
    expected = FeatureHasher(n_bits=8).transform_one({"age": 30.0, "city": "Paris"})
    assert sorted(np.flatnonzero(hashed[-1].coef_.ravel()).tolist()) == sorted(expected)
    assert (StandardScaler() | PAClassifier()).set_params(n_bits=8).learn_one({"a": 1.0}, True).feature_map_.hashing


def test_steps_are_checked():
    with pytest.raises(TypeError, match="a learner can only be the last step"):
        Pipeline(PAClassifier(), StandardScaler()).learn_one({"a": 1.0}, True)
    with pytest.raises(TypeError, match="unsupported operand"):
        PAClassifier() | StandardScaler()
    with pytest.raises(ValueError, match="acts on the names .* comes after 'standardscaler'"):
        (StandardScaler() | FeatureHasher() | PAClassifier()).learn_one({"a": 1.0}, True)
    with pytest.raises(ValueError, match="n_bits=4 too; say it once"):
        Pipeline(FeatureHasher(), PAClassifier(), n_bits=4).learn_one({"a": 1.0}, True)
    with pytest.raises(ValueError, match="parameter n_bits=0 is invalid"):
        Pipeline(PAClassifier(), n_bits=0).learn_one({"a": 1.0}, True)
    fitted = StandardScaler().learn_one({"a": 1.0})
    with pytest.raises(ValueError, match="has learned outside this pipeline"):
        (fitted | PAClassifier()).learn_one({"a": 1.0}, True)


def test_a_refused_example_leaves_the_pipeline_as_it_was():
    pipe = StandardScaler() | PAClassifier()
    pipe.learn_one({"a": 1.0, "b": 2.0}, "x").learn_one({"a": 3.0, "b": 1.0}, "y")
    before = _snapshot(pipe)
    with pytest.raises(ValueError, match="third class"):
        pipe.learn_one({"a": 1.0, "new": 5.0}, "z")
    with pytest.raises(ValueError, match="feature 'b' has value nan"):
        pipe.learn_one({"a": 1.0, "b": float("nan")}, "x")
    with pytest.raises(ValueError, match="row 1"):
        pipe.partial_fit([{"a": 1.0, "c": 1.0}, {"a": float("inf")}], ["x", "y"])
    with pytest.raises(ValueError, match="third class"):
        olearn.run(pipe, [{"a": 1.0, "d": 1.0}, {"a": 2.0}], ["x", "w"])
    assert _snapshot(pipe) == before
    fresh = StandardScaler() | PAClassifier()
    with pytest.raises(ValueError):
        fresh.learn_one({"a": float("nan")}, "x")
    assert not hasattr(fresh, "feature_map_") and not hasattr(fresh[0], "mean_")


@pytest.mark.parametrize("bad, message", [
    (np.ones((2, 2)), "an example must be a dict, a 1-d array or a sparse row; got an array of shape (2, 2)"),
    (np.array([1.0, np.nan]), "feature 1 has value nan; expected a finite number"),
    (["a", "b"], "an example must be a dict, a 1-d array or a sparse row of numbers: could not convert string"),
])
def test_an_array_example_is_refused_as_a_learner_refuses_it(bad, message):
    for model in (PAClassifier(), StandardScaler() | PAClassifier()):
        with pytest.raises(ValueError) as refused:
            model.learn_one(bad, "x")
        assert str(refused.value).startswith(message)
        assert not hasattr(model, "feature_map_") and not hasattr(model, "coef_")


def test_params_clone_pickle_and_repr():
    from sklearn.base import clone

    pipe = Pipeline(StandardScaler(), ("scale2", StandardScaler(with_mean=False)), PAClassifier(C=0.5))
    assert repr(pipe) == "Pipeline(StandardScaler(), ('scale2', StandardScaler(with_mean=False)), PAClassifier(C=0.5))"
    params = pipe.get_params()
    assert params["paclassifier__C"] == 0.5 and params["scale2__with_mean"] is False and params["n_bits"] is None
    pipe.set_params(paclassifier__C=2.0, standardscaler__with_std=False)
    assert pipe[-1].C == 2.0 and pipe[0].with_std is False
    pipe.set_params(paclassifier=PAClassifier(C=3.0))
    assert pipe["paclassifier"].C == 3.0
    with pytest.raises(ValueError, match="invalid parameter 'nope'"):
        pipe.set_params(nope=1)
    X, y, rows = _stream(30, 3, seed=5)
    olearn.run(pipe, rows, y)
    copy = pickle.loads(pickle.dumps(pipe))
    assert copy[0].feature_map_ is copy.feature_map_
    assert [copy.predict_one(x) for x in rows] == [pipe.predict_one(x) for x in rows]
    fresh = clone(pipe)
    assert fresh.get_params(deep=False).keys() == pipe.get_params(deep=False).keys()
    assert not hasattr(fresh, "feature_map_") and fresh[-1].C == 3.0 and fresh[-1] is not pipe[-1]
    names = [name for name, _ in Pipeline(StandardScaler(), StandardScaler(), PAClassifier()).steps]
    assert names == ["standardscaler-1", "standardscaler-2", "paclassifier"]
    assert pipe._estimator_type == "classifier" and (StandardScaler() | MaxAbsScaler())._estimator_type == "transformer"


def test_transform_one_and_a_pipeline_of_transformers():
    pipe = MaxAbsScaler() | StandardScaler(with_mean=False)
    for x in [{"a": 2.0, "b": -4.0}, {"a": -1.0}, {"a": 4.0, "b": 2.0}]:
        pipe.learn_one(x)
    # the second scaler learned what the first gave, each with its statistics before the example
    assert_allclose(pipe[0].max_abs_, [4.0, 4.0])
    assert_allclose(pipe[1].var_, np.var([[0.0, 0.0], [-0.5, 0.0], [2.0, 0.5]], axis=0))
    assert pipe.transform_one({"a": 2.0, "c": 1.0}) == {"a": pytest.approx(0.5 / np.std([0, -0.5, 2.0])), "c": 0.0}
    with pytest.raises(TypeError, match="predicts nothing"):
        pipe.predict_one({"a": 1.0})


def test_learn_one_after_predict_one_learns_the_example_as_it_is_then():
    # learn_one may reuse predict_one's conversion of the same dict: only while nothing it depends on changed
    # (plain never predicts first, so it converts every example afresh)
    X, y, rows = _stream(40, 4, seed=6)
    pipe, plain = StandardScaler() | PAClassifier(), StandardScaler() | PAClassifier()
    for i, (x, label) in enumerate(zip(rows, y)):
        x = dict(x)
        pipe.predict_one(x)
        if i % 3 == 1:
            x["x0"] = x["x0"] + 1.0  # the dict changed after predicting
        if i % 5 == 2:
            pipe.set_params(standardscaler__with_mean=not pipe[0].with_mean)
            plain.set_params(standardscaler__with_mean=pipe[0].with_mean)
        pipe.learn_one(x, label)
        plain.learn_one(x, label)
    assert_allclose(pipe[-1].coef_, plain[-1].coef_, rtol=1e-12)
    assert_allclose(pipe[0].var_, plain[0].var_, rtol=1e-12)
    # statistics learned in between (the shared scaler taught directly) are not those of the prediction
    x = dict(rows[0])
    wrong = "no" if pipe.predict_one(x) == "yes" else "yes"  # a mistake: the update depends on the scaled x
    for model in (pipe, plain):
        model[0].learn_one(rows[1])
    before = pipe[-1].coef_.copy()
    pipe.learn_one(x, wrong)
    plain.learn_one(x, wrong)
    assert not np.allclose(pipe[-1].coef_, before)
    assert_allclose(pipe[-1].coef_, plain[-1].coef_, rtol=1e-12)


def test_run_fills_metrics_from_a_pipeline_as_from_its_rounds():
    from olearn.metrics import Accuracy

    X, y, rows = _stream(60, 3, seed=7)
    pipe = StandardScaler() | PAClassifier()
    res = olearn.run(pipe, rows, y, metrics=[Accuracy()])
    assert res.metrics[0].get() == pytest.approx(1.0 - res.mistake_rate)
    by_row = StandardScaler() | PAClassifier()
    predicted = np.array([by_row.predict_learn_one(x, label) for x, label in zip(rows, y)], dtype=object)
    start = max(list(y).index("yes"), list(y).index("no")) + 1
    assert_array_equal(res.predictions[start:], predicted[start:])


@pytest.mark.parametrize("name,cls", olearn.all_estimators(task=["binary", "multiclass", "regression"]))
def test_every_learner_of_rows_in_a_pipeline_learns_alike_by_row_by_batch_and_by_run(name, cls):
    rng = np.random.default_rng(8)
    X = rng.normal(2.0, 3.0, size=(40, 4))
    if cls._task == "regression":
        y = X @ rng.normal(size=4)
    else:
        k = 2 if cls._task == "binary" else 3
        y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(4, k)), axis=1)]
    rows = [{f"x{j}": float(v) for j, v in enumerate(row)} for row in X]
    make = lambda: StandardScaler() | cls()
    by_row = make()
    for x, target in zip(rows, y):
        by_row.learn_one(x, target)
    ran, batch = make(), make()
    olearn.run(ran, rows, y)
    batch.partial_fit(rows, y)
    for other in (ran, batch):
        scores = "predict" if cls._task == "regression" else "decision_function"
        assert hasattr(by_row, "decision_function") == (scores == "decision_function")
        assert_allclose(getattr(other, scores)(rows), getattr(by_row, scores)(rows), rtol=1e-9, atol=1e-12)
        assert list(other.predict(rows)) == list(by_row.predict(rows))
        assert [other.predict_one(x) for x in rows[:5]] == list(by_row.predict(rows[:5]))


def test_weights_and_record_false_reach_the_learner():
    X, y, rows = _stream(30, 3, seed=9)
    weights = np.random.default_rng(9).uniform(0.0, 3.0, size=30)
    by_row = StandardScaler() | PAClassifier(C=0.2)
    for x, label, w in zip(rows, y, weights):
        by_row.learn_one(x, label, sample_weight=w)
    ran = StandardScaler() | PAClassifier(C=0.2)
    res = olearn.run(ran, rows, y, sample_weight=weights, record=False)
    assert res.n_rounds == 30 and res.predictions.size == 0
    batch = (StandardScaler() | PAClassifier(C=0.2)).partial_fit(rows, y, sample_weight=weights)
    unweighted = (StandardScaler() | PAClassifier(C=0.2)).partial_fit(rows, y)
    for other in (ran, batch):
        assert_allclose(other[-1].coef_, by_row[-1].coef_, rtol=1e-9)
    assert not np.allclose(unweighted[-1].coef_, by_row[-1].coef_)


def test_a_pipeline_of_transformers_learns_batches_as_rows():
    X, _, rows = _stream(25, 3, seed=10, density=0.6)
    by_row, batch = MaxAbsScaler() | StandardScaler(), MaxAbsScaler() | StandardScaler()
    for x in rows:
        by_row.learn_one(x)
    batch.partial_fit(rows[:10]).partial_fit(rows[10:])
    assert_allclose(batch[1].var_, by_row[1].var_, rtol=1e-12)
    assert_allclose(batch[0].max_abs_, by_row[0].max_abs_)
    out = batch.transform(rows[:5])
    assert sp.issparse(out)
    names = list(batch.feature_map_.vocabulary())
    for i, x in enumerate(rows[:5]):
        expected = by_row.transform_one(x)
        got = {names[j]: v for j, v in zip(out[i].indices, out[i].data)}
        assert got == pytest.approx(expected)
