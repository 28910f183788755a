"""Checks every multiclass estimator of olearn.multiclass must pass (the family's common tests)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone, is_classifier
from test_multiclass_oracles import stream

import olearn
import olearn.multiclass as mc
from olearn.exceptions import NotFittedError

CLASSES = [mc.PAMulticlass, mc.PACostSensitive, mc.MulticlassPerceptron, mc.MIRA]
SETTINGS = [
    (mc.PAMulticlass, {}),
    (mc.PAMulticlass, {"variant": "pa2", "C": 0.3, "fit_intercept": True}),
    (mc.PACostSensitive, {"update": "max-loss", "cost": [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]]}),
    (mc.PACostSensitive, {"variant": "pa", "fit_intercept": True}),
    (mc.MulticlassPerceptron, {"update": "proportional"}),
    (mc.MulticlassPerceptron, {"update": "uniform", "n_features": 9}),
    (mc.MIRA, {"beta": 0.5, "fit_intercept": True}),
]
IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(SETTINGS)]
by_class = pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
by_setting = pytest.mark.parametrize(("cls", "params"), SETTINGS, ids=IDS)


def data(labels=("w", "x", "y", "z"), n=60, seed=12):
    X, y = stream(n=n, seed=seed, density=0.6)
    return X, np.array(labels)[np.searchsorted(["a", "b", "c", "d"], y)]


def prime(est, X, y):
    """Declare the classes first (a cost matrix needs them), then learn."""
    return est.partial_fit(X[:0], y[:0], classes=np.unique(y)).partial_fit(X, y)


def weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


@by_class
def test_task_and_type(cls):
    assert cls._task == "multiclass" and is_classifier(cls())


@by_setting
def test_clone_and_params(cls, params):
    X, y = data()
    est = prime(cls(**params), X, y)
    twin = clone(est)
    assert twin.get_params().keys() == est.get_params().keys()
    with pytest.raises(NotFittedError):
        twin.decision_function(X)
    prime(twin, X, y)
    assert_array_equal(weights(twin), weights(est))
    fresh = cls()
    assert fresh.set_params(**params) is fresh
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(cls(**params)))


def continues_identically(a, b, X, y):
    assert_array_equal(a.predict(X), b.predict(X))
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert_array_equal(a.classes_, b.classes_)
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.taus, rb.taus)
    a.learn_one({0: 0.5, X.shape[1] + 2: -1.5}, y[0])
    b.learn_one({0: 0.5, X.shape[1] + 2: -1.5}, y[0])
    assert_array_equal(weights(a), weights(b))


@pytest.mark.parametrize("labels", [("w", "x", "y", "z"), (3, -1, 7, 0)], ids=["strings", "ints"])
@by_setting
def test_pickle_round_trip(cls, params, labels):
    X, y = data(labels)
    est = prime(cls(**params), X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(est))
    continues_identically(est, copy, X[30:], y[30:])


@pytest.mark.parametrize("labels", [("w", "x", "y", "z"), (3, -1, 7, 0), (-1.0, 0.0, 2.0, 3.0)],
                         ids=["strings", "ints", "floats"])
@by_setting
def test_save_load_round_trip(cls, params, labels, tmp_path):
    X, y = data(labels)
    est = prime(cls(**params), X[:30], y[:30])
    loaded = olearn.load(est.save(tmp_path / "m.olearn"))
    assert type(loaded) is cls and loaded.get_params() == est.get_params()
    assert loaded.classes_.dtype == est.classes_.dtype
    assert_array_equal(loaded.coef_, est.coef_)
    assert loaded.n_features_in_ == est.n_features_in_
    continues_identically(est, loaded, X[30:], y[30:])


def test_a_model_with_a_feature_map_is_pickled_not_saved(tmp_path):
    X, y = data()
    est = mc.PAMulticlass(feature_map=mc.BlockFeatureMap(["w", "x", "y", "z"], 5)).partial_fit(X, y)
    with pytest.raises(ValueError, match="pickle"):
        est.save(tmp_path / "m.olearn")
    assert list(tmp_path.iterdir()) == []
    copy = pickle.loads(pickle.dumps(est))
    assert_array_equal(olearn.run(copy, X[:10], y[:10]).taus, olearn.run(est, X[:10], y[:10]).taus)
    assert_array_equal(copy.coef_, est.coef_)


@by_setting
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_dense_equals_sparse(cls, params, fmt):
    X, y = data()
    dense = prime(cls(**params), X, y)
    sparse = cls(**params).partial_fit(sp.csr_matrix(X).asformat(fmt), y, classes=np.unique(y))
    assert_array_equal(weights(dense), weights(sparse))
    assert_array_equal(dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X).asformat(fmt)))


@by_class
def test_before_learning(cls):
    est = cls()
    assert est.predict_one({0: 1.0}) is None
    with pytest.raises(ValueError, match="nan"):
        est.predict_one({0: float("nan")})
    for call in (lambda: est.predict(np.eye(2)), lambda: est.decision_function(np.eye(2)), lambda: est.coef_):
        with pytest.raises(NotFittedError, match=cls.__name__):
            call()
    assert olearn.run(cls(), np.empty((0, 3)), []).n_rounds == 0


@by_setting
def test_new_class_mid_stream_grows_a_prototype(cls, params):
    if "cost" in params:
        pytest.skip("a cost matrix fixes the classes")
    X, y = data()
    est = cls(**params).partial_fit(X[:20], np.where(y[:20] == "z", "y", y[:20]))
    assert "z" not in est.classes_
    est.learn_one(X[20], "z")
    assert list(est.classes_) == ["w", "x", "y", "z"]
    assert est.decision_function(X).shape == (60, 4)
    assert est.predict_one(X[0]) in est.classes_


def test_a_cost_matrix_needs_every_class_before_learning():
    matrix = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    est = mc.PACostSensitive(cost=matrix)
    with pytest.raises(ValueError, match="all 3 classes"):
        est.fit(np.eye(2), ["a", "b"])
    with pytest.raises(NotFittedError):
        _ = est.coef_
    with pytest.raises(ValueError, match="all 3 classes"):
        est.learn_one({0: 1.0}, "a")
    est.partial_fit(np.eye(2), ["a", "b"], classes=["c", "b", "a"])
    with pytest.raises(ValueError, match=r"'d' at row 1"):
        est.partial_fit(np.eye(2), ["a", "d"])
    assert list(est.classes_) == ["a", "b", "c"]
    est.fit(np.eye(3), ["a", "b", "c"])  # a first batch that shows every class is enough


@by_class
def test_bad_input_is_named(cls):
    X = np.ones((5, 4))
    X[3, 2] = np.nan
    for data_ in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match=r"row 3.*column 2"):
            cls().fit(data_, [0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"row 1"):
        cls().fit(np.eye(3), [0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="nan"):
        cls().learn_one({0: 1.0}, float("nan"))
    with pytest.raises(ValueError, match=r"3 rows.*2 labels"):
        cls().fit(np.eye(3), [0, 1])
    with pytest.raises(ValueError, match="2-d"):
        cls().fit(np.ones(3), [0, 1, 0])
    with pytest.raises(ValueError, match="feature 5"):
        cls().learn_one({0: 1.0, 5: np.inf}, 1)
    with pytest.raises(ValueError, match=r"label ('a'|1) at row 1 is a (string|number), but the label at row 0, (1|'a'), "
                                         r"is a (number|string); give the classes one type"):
        cls().fit(np.eye(2), np.array(["a", 1], dtype=object))


@by_class
def test_n_features_limit(cls):
    est = cls(n_features=5)
    with pytest.raises(ValueError, match=r"feature index 7\b.*n_features=5"):
        est.learn_one({0: 1.0, 7: 2.0}, 1)
    with pytest.raises(NotFittedError):
        _ = est.coef_
    est.fit(np.ones((2, 5)), [0, 1])
    assert est.coef_.shape == (2, 5)
    with pytest.raises(ValueError, match="n_features=5"):
        est.predict(np.ones((2, 6)))


INVALID = {
    "variant": ["PA", "pa3", None], "C": [0, -1.0, float("nan"), "big", None, True],
    "fit_intercept": ["yes", 1, None], "n_features": [0, 2.5, True], "feature_map": ["phi", 3],
    "update": ["all", None, 1], "beta": [0.0, -1.0, float("nan"), None],
    "cost": [[[0, 1], [1, 1]], [[0, -1], [1, 0]], [[0, 1, 2], [1, 0, 1]], [[0.0, np.inf], [1.0, 0.0]], "abs", [[0]]],
    "kernel": ["RBF", "sigmoid", 3, dict], "degree": [0, 2.0, None], "gamma": [0.0, -1.0, float("inf"), None],
    "coef0": [float("nan"), float("inf"), None], "budget": [0, 2.5, True], "budget_policy": ["newest", None],
    "random_state": [-1, 0.5, "seed"], "average": [-1, 2.5, "yes", None, 2**60],
    "class_weight": ["auto", {0: -1.0}, {0: float("nan")}, {0: "2"}, 3],
    "max_iter": [0, 1.5, None], "tol": [-1e-3, float("nan"), "0"],
    "n_iter_no_change": [0, 2.0, None], "shuffle": [1, "yes", None], "n_bits": [0, 32, 2.5, "8", True],
}


@by_class
def test_invalid_hyperparameters_name_the_parameter(cls):
    for name in cls().get_params():
        for value in INVALID[name]:
            with pytest.raises(ValueError, match=rf"\b{name}="):
                cls(**{name: value}).fit(np.eye(2), [0, 1])
            with pytest.raises(ValueError, match=rf"\b{name}="):
                cls(**{name: value}).learn_one({0: 1.0}, 1)
            est = cls().partial_fit(np.eye(2), [0, 1])
            est.set_params(**{name: value})
            with pytest.raises(ValueError, match=rf"\b{name}="):
                est.partial_fit(np.eye(2), [0, 1])


@by_class
def test_a_failed_first_call_leaves_it_unfitted(cls):
    est = cls(n_features=2)
    with pytest.raises(ValueError):
        est.fit(np.eye(3), ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        est.decision_function(np.eye(2))
    est.fit(np.eye(2), ["a", "b"])
    assert list(est.classes_) == ["a", "b"]


def test_changing_the_feature_map_after_learning_is_refused():
    X, y = data()
    est = mc.PAMulticlass().partial_fit(X, y)
    est.set_params(feature_map=mc.BlockFeatureMap(["w", "x", "y", "z"], 5))
    with pytest.raises(ValueError, match="feature_map was changed"):
        est.partial_fit(X, y)
    est.fit(X, y)  # fit starts over
    assert est.coef_.shape == (20,)


def test_a_bad_cost_callable_is_named():
    with pytest.raises(ValueError, match=r"cost\('a', 'a'\) = 1.0"):
        mc.PACostSensitive(cost=lambda t, p: 1.0).partial_fit(np.eye(2), ["a", "b"])
    with pytest.raises(ValueError, match="-2"):
        mc.PACostSensitive(cost=lambda t, p: -2.0 * (t != p)).partial_fit(np.eye(2), ["a", "b"])


def test_a_bad_feature_map_output_is_named():
    est = mc.PAMulticlass(feature_map=lambda x, label: np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match=r"feature_map\(x, 'a'\).*nan"):
        est.learn_one({0: 1.0}, "a")
