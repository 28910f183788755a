"""The common checks of the uniclass family: scikit-learn conventions, persistence, bad input."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone

import olearn
from olearn.exceptions import NotFittedError
from olearn.uniclass import PAUniclass

SETTINGS = [
    {},
    {"variant": "pa", "epsilon": 0.0},
    {"variant": "pa1", "C": 0.05, "epsilon": 0.5},
    {"variant": "pa2", "C": 0.5, "learn_radius": True, "B": 3.0},
    {"variant": "pa", "learn_radius": True, "B": 0.5, "n_features": 4},
]


@pytest.fixture(params=SETTINGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def params(request):
    return request.param


def _Y(n=40, d=4, seed=0):
    rng = np.random.default_rng(seed)
    Y = rng.normal(1.0, 2.0, size=(n, d))
    Y[rng.random((n, d)) < 0.3] = 0.0
    return Y


def _same(a, b):
    assert_array_equal(a.center_, b.center_)
    assert a.radius_ == b.radius_


def test_constructor_stores_arguments_and_computes_nothing(params):
    est = PAUniclass(**params)
    assert {k: est.get_params()[k] for k in params} == params
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(est))
    assert PAUniclass(C="not a number").C == "not a number"


def test_clone_and_get_set_params(params):
    est = PAUniclass(**params).partial_fit(_Y())
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.center_
    _same(twin.partial_fit(_Y()), est)
    fresh = PAUniclass()
    assert fresh.set_params(**est.get_params()) is fresh and fresh.get_params() == est.get_params()
    with pytest.raises(ValueError, match="invalid parameter 'radius'"):
        fresh.set_params(radius=1.0)


def test_set_params_takes_effect_mid_stream():
    Y = _Y()
    est = PAUniclass(variant="pa1", C=0.1).partial_fit(Y[:20])
    twin = pickle.loads(pickle.dumps(est))
    est.set_params(C=5.0)
    est.partial_fit(Y[20:])
    twin.partial_fit(Y[20:])
    assert not np.array_equal(est.center_, twin.center_)


def _continues_identically(a, b, Y):
    _same(a, b)
    assert_array_equal(a.decision_function(Y), b.decision_function(Y))
    ra, rb = olearn.run(a, Y), olearn.run(b, Y)
    assert_array_equal(ra.taus, rb.taus)
    _same(a, b)
    a.learn_one({0: 9.0})
    b.learn_one({0: 9.0})
    _same(a, b)


def test_pickle_round_trip(params):
    Y = _Y()
    est = PAUniclass(**params).partial_fit(Y[:20])
    _continues_identically(est, pickle.loads(pickle.dumps(est)), Y[20:])
    assert pickle.loads(pickle.dumps(PAUniclass(**params))).get_params() == PAUniclass(**params).get_params()


def test_save_load_round_trip(params, tmp_path):
    Y = _Y()
    est = PAUniclass(**params).partial_fit(Y[:20])
    loaded = olearn.load(est.save(tmp_path / "ball.olearn"))
    assert type(loaded) is PAUniclass and loaded.get_params() == est.get_params()
    assert loaded.n_features_in_ == est.n_features_in_
    _continues_identically(est, loaded, Y[20:])
    with pytest.raises(NotFittedError):
        PAUniclass().save(tmp_path / "nothing.olearn")


def test_dense_and_sparse_learn_identically(params):
    Y = _Y(seed=2)
    dense = PAUniclass(**params).partial_fit(Y)
    for layout in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        _same(PAUniclass(**params).partial_fit(layout(Y)), dense)
        assert_array_equal(dense.decision_function(layout(Y)), dense.decision_function(Y))


def test_before_learning():
    est = PAUniclass()
    assert est.predict_one() is None
    for call in (lambda: est.center_, lambda: est.radius_, lambda: est.predict(np.ones((1, 2))),
                 lambda: est.decision_function(np.ones((1, 2)))):
        with pytest.raises(NotFittedError, match="PAUniclass"):
            call()
    empty = olearn.run(est, np.empty((0, 3)))
    assert empty.n_rounds == 0 and est.predict_one() is None


def test_predict_one_returns_a_copy_of_the_center():
    est = PAUniclass(variant="pa", epsilon=0.0).learn_one(np.array([1.0, 2.0]))
    center = est.predict_one()
    center[0] = 100.0
    assert_array_equal(est.predict_one(), [1.0, 2.0])
    assert_array_equal(est.predict(np.array([[1.0, 2.0], [1.0, 2.1]])), [1, -1])


# -- bad input ------------------------------------------------------------------------


def test_run_refuses_labels():
    with pytest.raises(ValueError, match=r"unlabelled.*without y"):
        olearn.run(PAUniclass(), _Y(), np.ones(40))
    # fit and partial_fit ignore a y, as scikit-learn's outlier detectors do (a pipeline passes one)
    # (the same seed gives both fits the same shuffled passes)
    assert_array_equal(PAUniclass(random_state=0).fit(_Y(), np.ones(40)).center_,
                       PAUniclass(random_state=0).fit(_Y()).center_)
    assert_array_equal(PAUniclass().partial_fit(_Y(), np.ones(40)).center_, PAUniclass().partial_fit(_Y()).center_)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("layout", [np.asarray, sp.csr_matrix])
def test_nonfinite_vectors_are_named(bad, layout):
    Y = np.ones((5, 3))
    Y[3, 2] = bad
    for call in (lambda e: e.fit(layout(Y)), lambda e: olearn.run(e, layout(Y))):
        est = PAUniclass()
        with pytest.raises(ValueError, match=r"row 3.*column 2"):
            call(est)
        with pytest.raises(NotFittedError):
            est.center_
    for row in ({0: 1.0, 2: bad}, np.array([1.0, 0.0, bad])):
        with pytest.raises(ValueError, match="feature 2"):
            PAUniclass().learn_one(row)


def test_wrong_dimension_mid_stream_is_refused_and_changes_nothing():
    est = PAUniclass().partial_fit(_Y(d=4))
    center = est.center_
    with pytest.raises(ValueError, match=r"X has 5 features, but PAUniclass is expecting 4"):
        est.partial_fit(np.ones((2, 5)))
    with pytest.raises(ValueError, match=r"5 coordinates.*have 4 \(set by the first vector\)"):
        est.partial_fit(sp.csr_matrix(np.ones((2, 5))))
    with pytest.raises(ValueError, match=r"3 coordinates.*have 4"):
        est.learn_one(np.ones(3))
    with pytest.raises(ValueError, match=r"3 coordinates"):
        est.learn_one(sp.csr_matrix(np.ones((1, 3))))
    with pytest.raises(ValueError, match=r"index 6.*have 4"):
        est.learn_one({6: 1.0})
    with pytest.raises(ValueError, match=r"X has 5 features, but PAUniclass is expecting 4"):
        est.decision_function(np.ones((1, 5)))
    with pytest.raises(ValueError, match=r"5 columns.*4 coordinates"):
        est.decision_function(sp.csr_matrix(np.ones((1, 5))))
    assert_array_equal(est.center_, center)
    est.learn_one({1: 2.0})  # a dict within the dimension is fine
    with pytest.raises(ValueError, match=r"3 coordinates.*\(set by n_features\)"):
        PAUniclass(n_features=4).learn_one(np.ones(3))


def test_a_vector_without_coordinates_cannot_start_a_stream():
    for call in (lambda e: e.learn_one({}), lambda e: e.fit(np.empty((3, 0)))):
        est = PAUniclass()
        with pytest.raises(ValueError, match=r"n_features|0 feature\(s\)"):
            call(est)
        assert est.predict_one() is None
    est = PAUniclass(n_features=2).learn_one({})  # the zero vector of a known dimension
    assert est.center_.tolist() == [0.0, 0.0]


def test_a_failed_first_call_leaves_the_estimator_unfitted():
    est = PAUniclass(n_features=2)
    with pytest.raises(ValueError, match="coordinates"):
        est.fit(np.ones((3, 5)))
    with pytest.raises(NotFittedError):
        est.center_
    assert est.predict_one() is None
    est.fit(np.ones((3, 2)))
    assert est.n_features_in_ == 2


@pytest.mark.parametrize("Y", [np.ones(3), np.ones((2, 2, 2))], ids=["1d", "3d"])
def test_Y_must_be_2d(Y):
    with pytest.raises(ValueError, match="2-d"):
        PAUniclass().fit(Y)


INVALID = {
    "variant": ["PA", "pa3", None],
    "C": [0, -1.0, float("nan"), "1", None, True],
    "epsilon": [-0.1, float("nan"), float("inf"), "0.1", None],
    "learn_radius": ["yes", 1, 0, None],
    "B": [0.0, -1.0, float("inf"), float("nan"), None],
    "n_features": [0, 2.5, "3", True],
}


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_hyperparameters_name_the_parameter(name):
    for value in INVALID[name]:
        for call in (lambda e: e.fit(np.ones((2, 3))), lambda e: e.learn_one(np.ones(3))):
            est = PAUniclass(**{name: value})
            with pytest.raises(ValueError, match=rf"\b{name}="):
                call(est)
            assert est.predict_one() is None
        est = PAUniclass().partial_fit(np.ones((2, 3)))
        est.set_params(**{name: value})
        with pytest.raises(ValueError, match=rf"\b{name}="):
            est.partial_fit(np.ones((2, 3)))


def test_overflow_is_refused_and_keeps_the_model():
    est = PAUniclass(variant="pa").partial_fit(np.array([[1.0, 1.0]]))
    center = est.center_
    with pytest.raises(FloatingPointError, match="row 1"):
        est.partial_fit(np.array([[2.0, 2.0], [1e200, 1e200], [0.0, 0.0]]))
    assert np.isfinite(est.center_).all() and not np.array_equal(est.center_, center)
    kept = est.center_
    with pytest.raises(FloatingPointError, match="unchanged"):
        est.learn_one(np.array([-1e300, 1e300]))
    assert_array_equal(est.center_, kept)
