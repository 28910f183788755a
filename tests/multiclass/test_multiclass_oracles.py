"""Every multiclass kernel against the NumPy transcriptions of tests/oracles/multiclass.py.

Multi-prototype on dense, CSR and CSC input; single prototype through a feature
map whose class vectors overlap (so ||z||^2 is not 2||x||^2); streams where
classes appear mid-stream and where scores tie.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import multiclass as oracle

import olearn
import olearn.multiclass as mc

COST_TABLE = {"a": 0.0, "b": 1.0, "c": 3.0, "d": 4.5}


def asymmetric_cost(true, pred):
    """A cost that is not symmetric and not 0/1: rho(y, y') = (1 + |t(y) - t(y')|)^2 - 1 - [y < y']."""
    if true == pred:
        return 0.0
    return (1.0 + abs(COST_TABLE[true] - COST_TABLE[pred])) ** 2 - 1.0 + (0.5 if true < pred else 0.0)


CASES = [
    ("PAMulticlass", {"variant": "pa"}),
    ("PAMulticlass", {"variant": "pa1", "C": 0.3, "fit_intercept": True}),
    ("PAMulticlass", {"variant": "pa2", "C": 0.5}),
    ("PACostSensitive", {"variant": "pa1", "C": 2.0, "cost": asymmetric_cost, "update": "prediction"}),
    ("PACostSensitive", {"variant": "pa", "cost": asymmetric_cost, "update": "max-loss", "fit_intercept": True}),
    ("PACostSensitive", {"variant": "pa2", "C": 0.1, "update": "max-loss"}),
    ("PACostSensitive", {"variant": "pa1", "C": 0.5, "update": "prediction"}),
    ("MulticlassPerceptron", {"update": "uniform"}),
    ("MulticlassPerceptron", {"update": "max", "fit_intercept": True}),
    ("MulticlassPerceptron", {"update": "proportional"}),
    ("MIRA", {"beta": 1.0}),
    ("MIRA", {"beta": 0.3, "fit_intercept": True}),
    ("MIRA", {"beta": 4.0}),
]


def _case_id(name, params):
    shown = ",".join(f"{key}={getattr(value, '__name__', value)}" for key, value in params.items())
    return f"{name}-{shown}"


IDS = [_case_id(name, params) for name, params in CASES]


def stream(n=70, d=5, k=4, seed=0, density=1.0, integers=False):
    """Rows from k random prototypes (10% label noise); labels 'a'..'d' that appear at different times."""
    rng = np.random.default_rng(seed)
    if integers:
        X = rng.integers(-1, 2, (n, d)).astype(float)  # small integers: many exact ties
    else:
        X = rng.standard_normal((n, d)) / np.sqrt(d)
    if density < 1.0:
        X *= rng.random((n, d)) < density
    y = np.argmax(X @ rng.standard_normal((k, d)).T, axis=1)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, k, flip.sum())
    return X, np.array(["d", "b", "a", "c"])[y]


def layout(X, kind):
    return {"dense": X, "csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X)}[kind]


def shown(est, predictions):
    """The predictions as run shows them: a round with no class known yet (None in the transcription) as classes_[0]."""
    return [est.classes_[0] if p is None else p for p in predictions]


def assert_matches(est, res, trace):
    assert list(res.predictions) == shown(est, trace.predictions)
    assert_array_equal(res.cumulative_mistakes, np.cumsum(trace.mistakes))
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-12)
    assert list(est.classes_) == trace.classes
    assert_allclose(est.coef_, trace.coef, rtol=1e-10, atol=1e-12)
    assert_allclose(est.intercept_, trace.intercept, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "csr", "csc"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_multi_prototype_matches_oracle(name, params, kind):
    X, y = stream(seed=1, density=0.7)
    est = getattr(mc, name)(**params)
    res = olearn.run(est, layout(X, kind), y)
    trace = oracle.multi_prototype(X, y, oracle.for_estimator(name, params), params.get("fit_intercept", False))
    assert_matches(est, res, trace)
    assert res.n_updates > 0 and res.n_mistakes > 0


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_ties_and_declared_classes_match_oracle(name, params):
    """Integer features make exact ties; declared classes exist (and can be predicted) from row 0."""
    X, y = stream(n=50, d=3, seed=2, integers=True)
    est = getattr(mc, name)(**params)
    est.partial_fit(X[:0], y[:0], classes=["c", "a"])
    res = olearn.run(est, X, y)
    trace = oracle.multi_prototype(X, y, oracle.for_estimator(name, params), params.get("fit_intercept", False),
                                   classes=["c", "a"])
    assert_matches(est, res, trace)


# -- single prototype with a feature map ---------------------------------------------------

CLASS_WEIGHTS = {"a": [1.0, 0.5, 0.0, 2.0, 1.0], "b": [0.0, 1.0, 1.0, 1.0, -1.0],
                 "c": [2.0, 0.0, 1.0, 0.5, 0.0], "d": [1.0, 1.0, 1.0, 1.0, 1.0]}


def dense_weighted(x, label):
    """A label-dependent reweighting of x plus a shared copy: class vectors overlap."""
    return np.concatenate([x * np.array(CLASS_WEIGHTS[label]), 0.5 * x])


def weighted_map(x, label):
    return dense_weighted(x.toarray().ravel(), label)


MAP_CASES = [(name, params) for name, params in CASES if name != "MIRA"]


@pytest.mark.parametrize("kind", ["dense", "csr", "csc"])
@pytest.mark.parametrize(("name", "params"), MAP_CASES, ids=[i for i, c in zip(IDS, CASES) if c[0] != "MIRA"])
def test_feature_map_matches_oracle(name, params, kind):
    X, y = stream(n=40, seed=3, density=0.8)
    est = getattr(mc, name)(**params, feature_map=weighted_map)
    res = olearn.run(est, layout(X, kind), y)
    trace = oracle.single_prototype(X, y, oracle.for_estimator(name, params), dense_weighted, 10,
                                    params.get("fit_intercept", False))
    assert_matches(est, res, trace)
    assert est.coef_.shape == (10,)


def test_mira_with_a_block_map_matches_oracle():
    X, y = stream(n=40, seed=4)
    phi = oracle.block_phi("abcd", 5)
    est = mc.MIRA(beta=0.7, fit_intercept=True, feature_map=mc.BlockFeatureMap(list("abcd"), 5))
    res = olearn.run(est, X, y)
    trace = oracle.single_prototype(X, y, oracle.mira_update(0.7), phi, 20, fit_intercept=True)
    assert_matches(est, res, trace)


def test_mira_refuses_a_map_whose_class_vectors_overlap():
    X, y = stream(n=10, seed=5)
    est = mc.MIRA(feature_map=weighted_map, max_iter=1, shuffle=False)
    with pytest.raises(ValueError, match=r"orthogonal.*row 1"):
        est.fit(X, y)
    assert len(est.classes_) == 1  # row 0 (one class, nothing to solve) was learned


# -- one kernel for learn_one, partial_fit and run -------------------------------------------


@pytest.mark.parametrize("use_map", [False, True], ids=["prototypes", "feature-map"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_learn_one_equals_partial_fit_equals_run(name, params, use_map):
    X, y = stream(n=40, seed=6, density=0.6)
    extra = {"feature_map": mc.BlockFeatureMap(list("abcd"), 5)} if use_map else {}
    by_run = getattr(mc, name)(**params, **extra)
    res = olearn.run(by_run, X, y)
    batched = getattr(mc, name)(**params, **extra).partial_fit(X[:15], y[:15]).partial_fit(X[15:], y[15:])
    streamed = getattr(mc, name)(**params, **extra)
    predicted = []
    for i, (row, label) in enumerate(zip(X, y)):
        x = {j: v for j, v in enumerate(row) if v != 0} if i % 2 else row
        predicted.append(streamed.predict_learn_one(x, label))
    assert predicted[0] is None  # predict_learn_one names no class before any is known; run shows classes_[0]
    assert shown(by_run, predicted) == list(res.predictions)
    for est in (batched, streamed):
        assert_array_equal(est.coef_, by_run.coef_)
        assert_array_equal(est.intercept_, by_run.intercept_)
        assert_array_equal(est.classes_, by_run.classes_)
    assert_array_equal(by_run.predict(X), [by_run.predict_one(row) for row in X])


def test_cost_matrix_equals_the_same_cost_as_a_callable():
    X, y = stream(n=60, seed=7)
    classes = ["a", "b", "c", "d"]
    matrix = [[asymmetric_cost(t, p) for p in classes] for t in classes]
    for update in ("prediction", "max-loss"):
        with_matrix = mc.PACostSensitive(cost=matrix, update=update).partial_fit(X, y, classes=["d", "c", "b", "a"])
        with_callable = mc.PACostSensitive(cost=asymmetric_cost, update=update)
        with_callable.partial_fit(X[:0], y[:0], classes=classes).partial_fit(X, y)
        assert_array_equal(with_matrix.coef_, with_callable.coef_)
