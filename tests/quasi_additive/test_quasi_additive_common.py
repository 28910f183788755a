"""The family's common checks: Winnow, PNorm and DualAscent in every update and geometry.

The registry-driven checks of tests/test_common.py cover the defaults once the
classes are exported; these run the non-default branches (window updates,
geometries, intercept) through the same contract.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.base import clone

import olearn
from olearn.dual import DualAscent
from olearn.exceptions import NotFittedError
from olearn.quasi_additive import PNorm, Winnow

CASES = [
    Winnow(), Winnow(C=0.2, fit_intercept=True), Winnow(balanced=False, C=0.5),
    PNorm(), PNorm(p=4.0, aggressive=True, R=0.9, fit_intercept=True),
    # the entropic prior's n is fixed where the update depends on it (Eq. (25), (28)): room for feature 7 below
    DualAscent(), DualAscent(regularizer="entropy", update="aggressive", C=0.5, n_features=8),
    DualAscent(regularizer="pnorm", p=3.0, update="last-k", k=3, fit_intercept=True),
    DualAscent(regularizer="entropy", update="all", C=0.3, gamma=0.5, n_features=8),
    DualAscent(regularizer="l2", update="all", C=2.0, kkt_tol=1e-6, fit_intercept=True),
]


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _data(seed=0, n=40, d=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7) / np.sqrt(d)
    X[:, -1] += 0.3
    y = np.where(X @ rng.standard_normal(d) > 0, "spam", "ham")
    y[:2] = ["spam", "ham"]
    return X, y


@pytest.fixture(params=CASES, ids=repr)
def est(request):
    return clone(request.param)


def test_clone_and_params_round_trip(est):
    X, y = _data()
    est.partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        _ = twin.coef_
    assert_array_equal(_weights(twin.partial_fit(X, y)), _weights(est))
    fresh = type(est)().set_params(**est.get_params())
    assert fresh.get_params() == est.get_params()


@pytest.mark.parametrize("how", ["pickle", "save"])
def test_round_trips_keep_learning_identically(est, how, tmp_path):
    X, y = _data(1)
    est.partial_fit(X[:20], y[:20])
    copy = pickle.loads(pickle.dumps(est)) if how == "pickle" else olearn.load(est.save(tmp_path / "m.npz"))
    for a in (est, copy):
        a.partial_fit(X[20:], y[20:])
        a.learn_one({0: 0.5, 7: -1.0}, "ham")
    assert_array_equal(_weights(copy), _weights(est))
    assert_array_equal(copy.theta_, est.theta_)
    if isinstance(est, DualAscent):
        assert_array_equal(copy.dual_objective_, est.dual_objective_)
        assert_array_equal(copy.alpha_, est.alpha_)


def test_dense_equals_sparse(est):
    X, y = _data(2)
    ref = clone(est).partial_fit(X, y)
    for layout in (sp.csr_matrix, sp.csc_matrix):
        assert_array_equal(_weights(clone(est).partial_fit(layout(X), y)), _weights(ref))


def test_bad_input_is_named(est):
    X, y = _data(3)
    X[4, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 4.*column 2"):
        clone(est).fit(X, y)
    with pytest.raises(ValueError, match="feature 3"):
        clone(est).learn_one({3: np.inf}, "ham")
    with pytest.raises(ValueError, match="third class"):
        clone(est).fit(np.eye(3), ["a", "b", "c"])


def test_failed_first_call_leaves_it_unfitted(est):
    with pytest.raises(ValueError, match="third class"):
        est.fit(np.eye(3), ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        _ = est.coef_
    with pytest.raises(NotFittedError):
        _ = est.theta_
    assert est.predict_one({0: 1.0}) is None


INVALID = {
    "C": [0.0, -1.0, float("inf"), float("nan"), True, "1"],
    "p": [1.5, 1, float("nan"), "2"],
    "aggressive": [1, "yes", None],
    "balanced": [1, "no", None],
    "regularizer": ["L2", "kl", None],
    "update": ["last_k", "every", None],
    "gamma": [0.0, -1.0, "1"],
    "k": [0, 1.5, True, "2"],
    "kkt_tol": [0.0, -1e-9, None],
    "tol": [-1e-9, float("nan"), "0"],
    "max_iter": [0, 1.5, None],
}


@pytest.mark.parametrize("cls", [Winnow, PNorm, DualAscent])
def test_invalid_hyperparameters_name_the_parameter(cls):
    for name, values in INVALID.items():
        if name not in cls().get_params():
            continue
        for value in values:
            with pytest.raises(ValueError, match=rf"\b{name}="):
                cls(**{name: value}).fit(np.eye(2), [0, 1])


def test_the_dimension_dependence_is_declared():
    assert not Winnow()._dimension_dependent
    assert not Winnow(balanced=False)._dimension_dependent
    assert not DualAscent(regularizer="entropy")._dimension_dependent
    assert DualAscent(regularizer="entropy", update="aggressive")._dimension_dependent
    assert not DualAscent(regularizer="pnorm", update="all")._dimension_dependent


def test_a_changed_geometry_applies_from_the_next_example():
    X, y = _data(4)
    est = DualAscent(regularizer="l2", update="aggressive").partial_fit(X[:20], y[:20])
    theta = est.theta_
    est.set_params(regularizer="pnorm", p=3.0)
    est.decision_function(X[:1])  # the first call after set_params reconfigures
    w = est.coef_.ravel()
    norm = np.linalg.norm(theta, 3)
    np.testing.assert_allclose(w, (np.sign(theta) * np.abs(theta) ** 2 / norm)[:-1], rtol=1e-12)
