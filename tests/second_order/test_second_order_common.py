"""The family's common checks: scikit-learn contract, persistence, bad input, hyperparameters, overflow.

(Once the classes are exported from ``olearn`` the registry-driven tests/test_common.py
runs its checks on them too; these cover what is particular to a mean plus a covariance.)
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone

import olearn
from olearn.exceptions import NotFittedError
from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron

ESTIMATORS = [
    AROW(), AROW(covariance="diag", fit_intercept=True), NAROW(b=2.0), NAROW(covariance="diag"),
    SecondOrderPerceptron(fit_intercept=True), CW(), CW(covariance="full", eta=0.7), AdaGrad(delta=0.5),
]

INVALID = {
    "r": [0.0, -1.0, float("nan"), float("inf"), "1", None],
    "b": [0.0, -2.0, float("nan"), float("inf"), None],
    "a": [0, -0.1, float("inf"), "a"],
    "eta": {"CW": [0.5, 1.0, 0.2, True, None], "AdaGrad": [0.0, -1.0, float("inf"), None]},
    "delta": [-0.1, float("nan"), float("inf"), None],
    "covariance": ["Full", "diagonal", None],
}


def _fresh(est, **changes):
    return type(est)(**{**est.get_params(), **changes})


def _state(est):
    cov = est.accumulator_ if isinstance(est, AdaGrad) else est.covariance_
    return np.append(est.coef_.ravel(), est.intercept_), cov


def _same(a, b):
    for x, y in zip(_state(a), _state(b)):
        assert_array_equal(x, y)


@pytest.fixture(params=ESTIMATORS, ids=repr)
def est(request):
    return _fresh(request.param)


def test_clone_and_params(est, make_stream):
    X, y = make_stream(50, 5, seed=1)
    est.partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        _ = twin.covariance_
    _same(twin.partial_fit(X, y), est)


@pytest.mark.parametrize("how", ["pickle", "save"])
def test_round_trips_keep_learning_identically(est, how, make_stream, tmp_path):
    X, y = make_stream(80, 5, density=0.6, seed=2)
    labels = np.where(y > 0, "spam", "ham")
    est.partial_fit(X[:40], labels[:40])
    copy = pickle.loads(pickle.dumps(est)) if how == "pickle" else olearn.load(est.save(tmp_path / "m.olearn"))
    _same(copy, est)
    for model in (est, copy):
        model.partial_fit(X[40:], labels[40:])
        model.learn_one({0: 1.0, 8: -0.5}, "spam")  # an unseen feature grows mean and covariance alike
    _same(copy, est)
    assert est.covariance_.shape[0] == 9


def test_failed_first_call_leaves_it_unfitted(est):
    with pytest.raises(ValueError, match="third class"):
        est.fit(np.eye(3), ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        _ = est.covariance_
    est.fit(np.eye(3), ["a", "b", "a"])


def test_nonfinite_input_is_named(est):
    X = np.ones((4, 3))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"row 2.*column 1"):
        est.fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="feature 4"):
        est.learn_one({0: 1.0, 4: np.inf}, 1)


def test_invalid_hyperparameters_are_named(est):
    for name in est.get_params():
        values = INVALID.get(name, [])
        values = values.get(type(est).__name__, []) if isinstance(values, dict) else values
        for value in values:
            with pytest.raises(ValueError, match=rf"\b{name}="):
                _fresh(est, **{name: value}).learn_one({0: 1.0}, 1)


def test_covariance_cannot_change_mid_stream(make_stream):
    X, y = make_stream(20, 3, seed=0)
    est = AROW().partial_fit(X, y)
    est.set_params(covariance="diag")
    with pytest.raises(ValueError, match="covariance='diag' differs"):
        est.partial_fit(X, y)
    assert est.set_params(covariance="diag").fit(X, y).covariance_.shape == (3,)


def test_overflow_is_refused_and_the_model_stays_finite(est):
    X = np.array([[1.0, 0.0], [1e200, 1e200]])
    with pytest.raises(FloatingPointError, match="row 1"):
        est.partial_fit(X, [1, -1])
    before = [s.copy() for s in _state(est)]
    with pytest.raises(FloatingPointError):
        est.learn_one(X[1], -1)
    for a, b in zip(before, _state(est)):
        assert_array_equal(a, b)
        assert np.isfinite(a).all()


def test_a_flip_of_the_encoding_negates_the_mean_and_keeps_the_covariance(est, make_stream):
    X, y = make_stream(40, 4, seed=3)
    y[:6] = 1
    late = _fresh(est).partial_fit(X[:6], np.where(y[:6] > 0, "a", "b")).partial_fit(X[6:], np.where(y[6:] > 0, "a", "b"))
    known = _fresh(est).partial_fit(X, np.where(y > 0, "a", "b"), classes=["a", "b"])
    np.testing.assert_allclose(late.coef_, known.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_state(late)[1], _state(known)[1], rtol=1e-12)
