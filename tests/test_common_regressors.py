"""Checks every regressor of ``olearn.all_estimators(task="regression")`` must pass.

Driven by the registry (``regressor_case`` / ``regressor_class`` in conftest.py):
scikit-learn's clone and get/set_params, pickle and save/load round trips that
keep learning identically, dense == sparse, learn_one == partial_fit == run, and
clear errors for bad input.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_regressor

import olearn
from olearn.exceptions import NotFittedError


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _data(n=60, d=6, seed=12, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density) / np.sqrt(d * density)
    y = X @ rng.standard_normal(d) + 0.5 + 0.2 * rng.standard_normal(n)
    return X, y


def _close(a, b):
    assert_allclose(a, b, rtol=1e-10, atol=1e-13)


def test_registered_regressors_are_regressors(regressor_class):
    assert is_regressor(regressor_class())
    assert getattr(olearn, regressor_class.__name__) is regressor_class


def test_clone(regressor_case):
    X, y = _data()
    est = regressor_case.make().partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.predict(X)
    twin.partial_fit(X, y)
    assert_array_equal(_weights(twin), _weights(est))


def test_get_set_params_round_trip(regressor_case):
    params = regressor_case.make().get_params()
    fresh = regressor_case.cls()
    assert fresh.set_params(**params) is fresh and fresh.get_params() == params


def _continues_identically(a, b, X, y):
    assert_array_equal(a.predict(X), b.predict(X))
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.predictions, rb.predictions)
    assert_array_equal(ra.taus, rb.taus)
    a.learn_one(X[0], y[0])
    b.learn_one(X[0], y[0])
    new_feature = {0: 0.5, X.shape[1] + 2: -1.5}
    a.learn_one(new_feature, 3.0)
    b.learn_one(new_feature, 3.0)
    assert_array_equal(_weights(a), _weights(b))


def test_pickle_round_trip(regressor_case):
    X, y = _data()
    est = regressor_case.make().partial_fit(X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(est))
    assert copy.get_params() == est.get_params()
    _continues_identically(est, copy, X[30:], y[30:])


def test_save_load_round_trip(regressor_case, tmp_path):
    X, y = _data()
    est = regressor_case.make().partial_fit(X[:30], y[:30])
    loaded = olearn.load(est.save(tmp_path / "model.olearn"))
    assert type(loaded) is type(est)
    assert loaded.get_params() == est.get_params()
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.intercept_, est.intercept_)
    assert loaded.n_features_in_ == est.n_features_in_
    assert not hasattr(loaded, "classes_")
    _continues_identically(est, loaded, X[30:], y[30:])


def test_save_before_fit_is_not_fitted(regressor_case, tmp_path):
    with pytest.raises(NotFittedError):
        regressor_case.make().save(tmp_path / "m.npz")


def test_predict_before_fit_raises_not_fitted(regressor_class):
    est = regressor_class()
    for call in (lambda: est.predict(np.ones((2, 3))), lambda: est.coef_, lambda: est.intercept_):
        with pytest.raises(NotFittedError, match=regressor_class.__name__):
            call()


@pytest.mark.parametrize("layout", ["csr", "csc", "coo"])
def test_dense_equals_sparse(regressor_case, layout):
    X, y = _data(90, 7, seed=11, density=0.4)
    data = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}[layout](X)
    dense, sparse = regressor_case.make(), regressor_case.make()
    rd, rs = olearn.run(dense, X, y), olearn.run(sparse, data, y)
    _close(_weights(sparse), _weights(dense))
    _close(rs.predictions, rd.predictions)
    _close(rs.taus, rd.taus)
    _close(sparse.predict(data), dense.predict(X))


ROW_KINDS = {
    "dict": lambda x: {int(j): float(x[j]) for j in np.flatnonzero(x)},
    "array": lambda x: x,
    "csr_row": lambda x: sp.csr_matrix(x.reshape(1, -1)),
}


@pytest.mark.parametrize("kind", list(ROW_KINDS))
def test_learn_one_equals_partial_fit_equals_run(regressor_case, kind):
    X, y = _data(60, 6, seed=21, density=0.5)
    X[:, -1] += 0.5
    by_run = regressor_case.make()
    res = olearn.run(by_run, X, y)
    by_fit = regressor_case.make().partial_fit(X, y)
    one, combined = regressor_case.make(), regressor_case.make()
    predictions, combined_predictions = [], []
    for x, target in zip(X, y):
        row = ROW_KINDS[kind](x)
        predictions.append(one.predict_one(row))
        one.learn_one(row, target)
        combined_predictions.append(combined.predict_learn_one(row, target))
    _close(_weights(one), _weights(by_fit))
    _close(_weights(by_run), _weights(by_fit))
    assert_array_equal(_weights(combined), _weights(one))
    # with an average, predict_one uses it and run the current weights (documented); predict_learn_one as run
    if not regressor_case.params.get("average"):
        _close(predictions, res.predictions)
    _close(combined_predictions, res.predictions)
    assert res.n_mistakes == 0


def test_run_record_false_keeps_the_totals(regressor_case):
    X, y = _data(70, 5, seed=2)
    full = olearn.run(regressor_case.make(), X, y)
    short = olearn.run(regressor_case.make(), X, y, record=False)
    assert (short.n_rounds, short.n_updates, short.n_mistakes) == (full.n_rounds, full.n_updates, 0)
    assert short.cumulative_loss == pytest.approx(full.cumulative_loss, rel=1e-12)
    assert short.predictions.size == 0


def test_set_params_takes_effect_mid_stream(regressor_case):
    X, y = _data()
    est = regressor_case.make().partial_fit(X[:30], y[:30])
    twin = pickle.loads(pickle.dumps(est))
    est.set_params(fit_intercept=not est.fit_intercept)
    est.partial_fit(X[30:], y[30:])
    twin.partial_fit(X[30:], y[30:])
    assert not np.array_equal(_weights(est), _weights(twin))


# -- bad input ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_nonfinite_X_names_row_and_column(regressor_class, bad, layout):
    X = np.ones((5, 4))
    X[3, 2] = bad
    data = sp.csr_matrix(X) if layout == "csr" else X
    y = [0.0, 1.0, 0.5, 1.0, 0.0]
    for call in (lambda e: e.fit(data, y), lambda e: olearn.run(e, data, y)):
        est = regressor_class()
        with pytest.raises(ValueError, match=r"row 3.*column 2"):
            call(est)
        with pytest.raises(NotFittedError):
            est.coef_
    fitted = regressor_class().fit(np.ones((2, 4)), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"row 3.*column 2"):
        fitted.predict(data)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_row_in_learn_one_names_the_feature(regressor_class, bad):
    for row in ({0: 1.0, 5: bad}, np.array([1.0, 0, 0, 0, 0, bad])):
        with pytest.raises(ValueError, match=r"feature 5"):
            regressor_class().learn_one(row, 1.0)
        with pytest.raises(ValueError, match=r"feature 5"):
            regressor_class().predict_one(row)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_target_names_the_row(regressor_class, bad):
    with pytest.raises(ValueError, match=r"row 1"):
        regressor_class().fit(np.eye(3), [0.0, bad, 1.0])
    est = regressor_class().fit(np.eye(3), [0.0, 2.0, 1.0])
    before = _weights(est)
    with pytest.raises(ValueError, match=r"row 2"):
        olearn.run(est, np.eye(3), [0.0, 1.0, bad])
    with pytest.raises(ValueError, match=r"nan|inf"):
        est.learn_one({0: 1.0}, bad)
    assert_array_equal(_weights(est), before)


def test_wrong_y_length(regressor_class):
    with pytest.raises(ValueError, match=r"3 rows.*2 targets"):
        regressor_class().fit(np.eye(3), [0.0, 1.0])


def test_feature_index_past_n_features(regressor_class):
    est = regressor_class(n_features=5)
    with pytest.raises(ValueError, match=r"feature index 7\b.*n_features=5"):
        est.learn_one({0: 1.0, 7: 2.0}, 1.0)
    with pytest.raises(NotFittedError):
        est.coef_
    with pytest.raises(ValueError, match=r"feature index 5\b.*n_features=5"):
        est.fit(np.ones((2, 6)), [0.0, 1.0])
    est.fit(np.ones((2, 5)), [0.0, 1.0])
    assert est.coef_.shape == (5,)


def test_invalid_hyperparameters_name_the_parameter(regressor_class):
    invalid = {"C": [0, -0.5, float("nan"), "big", None], "epsilon": [-1.0, float("nan"), "x", None],
               "variant": ["PA", "pa3", None], "fit_intercept": ["yes", 1, None], "n_features": [0, 2.5, True]}
    for name in regressor_class().get_params():
        for value in invalid.get(name, ["__not a valid value__"]):
            with pytest.raises(ValueError, match=rf"\b{name}="):
                regressor_class(**{name: value}).fit(np.eye(2), [0.0, 1.0])
            with pytest.raises(ValueError, match=rf"\b{name}="):
                regressor_class(**{name: value}).learn_one({0: 1.0}, 1.0)


def test_overflow_raises_and_keeps_a_finite_model(regressor_case):
    X = np.array([[1.0, 0.0], [1e200, 1e200]])
    est = regressor_case.make()
    with pytest.raises(FloatingPointError, match=r"row 1"):
        est.partial_fit(X, [1.0, -1.0])
    assert np.isfinite(_weights(est)).all()
    est.partial_fit(X[:1], [1.0])
    assert np.isfinite(_weights(est)).all()
