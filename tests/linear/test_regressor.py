"""PARegressor (Crammer et al. 2006, Sec. 5) against the paper, scikit-learn and River.

* Oracle: ``oracles.regression.pa_regression``, a NumPy transcription of Sec. 5.
* scikit-learn (1.8+): ``SGDRegressor(loss="epsilon_insensitive", epsilon=eps,
  penalty=None, learning_rate="pa1"|"pa2", eta0=C)`` is the paper's PA-I/PA-II
  (its PA-II uses l, not l^2, in the numerator, as the paper does);
  ``PassiveAggressiveRegressor`` is a deprecated wrapper of it. One in-order pass
  is ``partial_fit`` with ``shuffle=False``; ``fit_intercept=False`` because
  scikit-learn's intercept is not an augmented feature (it does not count in ||x||^2).
* River: ``linear_model.PARegressor(C, mode=0|1|2, eps=epsilon, learn_intercept=False)``
  computes the paper's update (checked in river/linear_model/pa.py: loss
  ``EpsilonInsensitiveHinge``, step ``tau * sign(y - y_pred)``, PA-II
  ``l / (||x||^2 + 1/(2C))``). Its intercept, like scikit-learn's, does not
  count in ||x||^2, so it is compared without one.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles.regression import pa_regression

import olearn

RTOL = 1e-10


def _regression_stream(n, d, density=1.0, seed=0, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if density < 1.0:
        X *= rng.random((n, d)) < density
    X /= np.sqrt(d * density)
    u = rng.standard_normal(d)
    y = X @ u + 0.7 + noise * rng.standard_normal(n)
    return X, y


def _close(a, b):
    b = np.asarray(b, dtype=float)
    assert_allclose(a, b, rtol=RTOL, atol=1e-13 * max(1.0, float(np.max(np.abs(b), initial=0.0))))


# -- the paper's update, transcribed -----------------------------------------------


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.5])
@pytest.mark.parametrize("variant,C", [("pa", 1.0), ("pa1", 0.05), ("pa1", 2.0), ("pa2", 0.1), ("pa2", 10.0)])
def test_matches_the_paper(variant, C, epsilon, fit_intercept, layout):
    X, y = _regression_stream(120, 7, density=0.5, seed=41)
    X[9] = 0.0  # a zero row: tau = 0 for PA and PA-I, a finite step for PA-II with an intercept
    data = sp.csr_matrix(X) if layout == "csr" else X
    trace = pa_regression(X, y, variant=variant, C=C, epsilon=epsilon, fit_intercept=fit_intercept)
    est = olearn.PARegressor(variant=variant, C=C, epsilon=epsilon, fit_intercept=fit_intercept)
    res = olearn.run(est, data, y)
    _close(est.coef_, trace.coef)
    _close(est.intercept_, [trace.intercept])
    _close(res.predictions, trace.predictions)
    _close(res.scores, trace.predictions)
    _close(res.losses, trace.losses)
    _close(res.taus, trace.taus)
    assert res.cumulative_loss == pytest.approx(trace.losses.sum(), rel=1e-10)
    assert res.n_updates == int(np.count_nonzero(trace.taus))
    assert res.n_mistakes == 0 and not res.cumulative_mistakes.any()
    _close(est.predict(data), X @ trace.coef + trace.intercept)
    fitted = olearn.PARegressor(variant=variant, C=C, epsilon=epsilon, fit_intercept=fit_intercept, max_iter=1,
                                 shuffle=False).fit(data, y)
    assert_array_equal(fitted.coef_, est.coef_)


def test_worked_example_by_hand():
    """PA, epsilon = 0.1, on x1 = (2, 0), y1 = 1 then x2 = (0, 1), y2 = -1.

    Round 1: w.x = 0, l = 0.9, ||x||^2 = 4, tau = 0.225, w = (0.45, 0).
    Round 2: w.x = 0, l = 0.9, ||x||^2 = 1, tau = 0.9, direction -1, w = (0.45, -0.9).
    """
    X = np.array([[2.0, 0.0], [0.0, 1.0]])
    res = olearn.run(est := olearn.PARegressor(variant="pa", epsilon=0.1), X, [1.0, -1.0])
    assert_allclose(res.taus, [0.225, 0.9])
    assert_allclose(res.losses, [0.9, 0.9])
    assert_allclose(est.coef_, [0.45, -0.9])
    assert est.coef_.shape == (2,) and est.intercept_.shape == (1,)


# -- invariants ---------------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_pa_leaves_zero_loss_on_the_example(epsilon, fit_intercept):
    X, y = _regression_stream(200, 5, seed=42, noise=1.0)
    est = olearn.PARegressor(variant="pa", epsilon=epsilon, fit_intercept=fit_intercept)
    for x, target in zip(X, y):
        est.learn_one(x, target)
        residual = target - est.predict_one(x)
        # the prediction lands exactly on the edge of the tube, or stays inside it
        assert abs(residual) <= epsilon + 1e-12 * max(1.0, abs(target))


def test_pa_with_zero_epsilon_interpolates_each_example():
    X, y = _regression_stream(100, 6, seed=43)
    est = olearn.PARegressor(variant="pa", epsilon=0.0)
    for x, target in zip(X, y):
        est.learn_one(x, target)
        assert est.predict_one(x) == pytest.approx(target, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("C", [0.01, 0.3])
def test_pa1_tau_at_most_C_and_pa2_below_pa(C):
    X, y = _regression_stream(300, 5, seed=44, noise=2.0)
    pa1 = olearn.run(olearn.PARegressor(variant="pa1", C=C), X, y)
    assert pa1.taus.max() <= C
    assert (pa1.taus == C).any()  # the clip is reached on this noisy stream
    assert (pa1.taus >= 0).all()
    # PA-II's tau is below PA's on the same loss and norm: l/(s + 1/2C) < l/s
    pa2 = olearn.run(olearn.PARegressor(variant="pa2", C=C), X, y)
    sq = (X**2).sum(axis=1)
    assert (pa2.taus <= pa2.losses / sq + 1e-15).all()


def test_pa1_with_infinite_C_is_pa():
    X, y = _regression_stream(80, 4, seed=45)
    a = olearn.PARegressor(variant="pa1", C=float("inf")).partial_fit(X, y)
    b = olearn.PARegressor(variant="pa", C=0.001).partial_fit(X, y)  # C is ignored by "pa"
    assert_array_equal(a.coef_, b.coef_)


def test_inside_the_tube_nothing_moves():
    est = olearn.PARegressor(variant="pa", epsilon=0.5).fit(np.array([[1.0, 0.0]]), [2.0])
    before = est.coef_.copy()
    res = olearn.run(est, np.array([[1.0, 0.0], [1.0, 0.0]]), [1.9, 1.1])  # |residual| <= 0.5
    assert_array_equal(res.taus, [0.0, 0.0])
    assert_array_equal(res.losses, [0.0, 0.0])
    assert_array_equal(est.coef_, before)


# -- scikit-learn and River -----------------------------------------------------------


def _sgd_pa(variant, C, epsilon):
    from sklearn.linear_model import SGDRegressor

    return SGDRegressor(
        loss="epsilon_insensitive", epsilon=epsilon, penalty=None, alpha=0.0,
        learning_rate=variant, eta0=C, fit_intercept=False, shuffle=False, average=False,
    )


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("epsilon", [0.0, 0.1])
@pytest.mark.parametrize("C", [0.01, 0.3, 5.0])
@pytest.mark.parametrize("variant", ["pa1", "pa2"])
def test_sklearn_sgd_regressor_pa(variant, C, epsilon, layout):
    X, y = _regression_stream(150, 9, density=0.4, seed=46)
    X[5] = 0.0
    data = sp.csr_matrix(X) if layout == "csr" else X
    ref = _sgd_pa(variant, C, epsilon).partial_fit(data, y)
    est = olearn.PARegressor(variant=variant, C=C, epsilon=epsilon).partial_fit(data, y)
    _close(est.coef_, ref.coef_)
    _close(est.predict(data), ref.predict(data))


@pytest.mark.parametrize("variant", ["pa1", "pa2"])
def test_sklearn_deprecated_passive_aggressive_regressor(variant):
    linear_model = pytest.importorskip("sklearn.linear_model")
    if not hasattr(linear_model, "PassiveAggressiveRegressor"):
        pytest.skip("PassiveAggressiveRegressor was removed from this scikit-learn")
    X, y = _regression_stream(100, 6, seed=47)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        # "squared_epsilon_insensitive" selects PA-II's step; the loss in tau stays l (not l^2)
        ref = linear_model.PassiveAggressiveRegressor(
            C=0.4, epsilon=0.2, loss="epsilon_insensitive" if variant == "pa1" else "squared_epsilon_insensitive",
            fit_intercept=False, shuffle=False, average=False,
        ).partial_fit(X, y)
    est = olearn.PARegressor(variant=variant, C=0.4, epsilon=0.2).partial_fit(X, y)
    _close(est.coef_, ref.coef_)


def _river_run(ref, est, X, y):
    predictions = []
    for x, target in zip(X, y):
        row = {int(j): float(x[j]) for j in np.flatnonzero(x)}
        predictions.append(ref.predict_one(row))
        ref.learn_one(row, float(target))
        est.learn_one(row, target)
    return np.array([ref.weights.get(j, 0.0) for j in range(X.shape[1])]), predictions


@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.4])
@pytest.mark.parametrize("C", [0.05, 1.0, 8.0])
@pytest.mark.parametrize("mode,variant", [(0, "pa"), (1, "pa1"), (2, "pa2")])
def test_river_pa_regressor_update_rule(mode, variant, C, epsilon):
    """River's tau rules and direction sign(y - y_pred), with the paper's loss.

    River's ``EpsilonInsensitiveHinge`` first maps y -> 2y - 1 (a classifier's
    {0, 1} -> {-1, +1}), so River's PARegressor computes its loss against 2y - 1
    while it moves towards y: not the paper's algorithm unless y = 1 (checked
    below). Here its loss is replaced by the paper's max(0, |y - y_pred| - eps).
    """
    linear_model = pytest.importorskip("river.linear_model")
    X, y = _regression_stream(150, 8, density=0.5, seed=48)
    ref = linear_model.PARegressor(C=C, mode=mode, eps=epsilon, learn_intercept=False)
    ref.loss = lambda y_true, y_pred: max(abs(y_true - y_pred) - epsilon, 0.0)
    est = olearn.PARegressor(variant=variant, C=C, epsilon=epsilon)
    river_w, predictions = _river_run(ref, est, X, y)
    _close(est.coef_, river_w)
    res = olearn.run(olearn.PARegressor(variant=variant, C=C, epsilon=epsilon), X, y)
    _close(res.predictions, predictions)


@pytest.mark.parametrize("mode,variant", [(0, "pa"), (1, "pa1"), (2, "pa2")])
def test_river_pa_regressor_unmodified_where_it_agrees_with_the_paper(mode, variant):
    """With every target equal to 1, 2y - 1 = y and River's own loss is the paper's."""
    linear_model = pytest.importorskip("river.linear_model")
    X, _ = _regression_stream(100, 6, density=0.6, seed=51)
    y = np.ones(X.shape[0])
    ref = linear_model.PARegressor(C=0.3, mode=mode, eps=0.1, learn_intercept=False)
    est = olearn.PARegressor(variant=variant, C=0.3, epsilon=0.1)
    river_w, _ = _river_run(ref, est, X, y)
    assert np.abs(river_w).max() > 0
    _close(est.coef_, river_w)


# -- estimator behaviour ------------------------------------------------------------


def test_score_is_r2_and_regressor_to_sklearn():
    from sklearn.base import is_regressor
    from sklearn.metrics import r2_score
    from sklearn.utils import get_tags

    X, y = _regression_stream(300, 5, seed=49, noise=0.1)
    est = olearn.PARegressor(variant="pa2", C=0.5, fit_intercept=True).fit(X, y)
    assert is_regressor(est)
    assert get_tags(est).input_tags.sparse and get_tags(est).target_tags.required
    assert est.score(X, y) == pytest.approx(r2_score(y, est.predict(X)), rel=1e-12)
    weights = np.linspace(0.5, 2.0, y.size)
    assert est.score(X, y, sample_weight=weights) == pytest.approx(
        r2_score(y, est.predict(X), sample_weight=weights), rel=1e-12
    )
    assert est.score(X, y) > 0.5


def test_grid_search_over_epsilon_and_C():
    from sklearn.model_selection import GridSearchCV

    X, y = _regression_stream(200, 5, seed=50)
    grid = GridSearchCV(olearn.PARegressor(), {"C": [0.01, 1.0], "epsilon": [0.0, 0.3]}, cv=3).fit(X, y)
    assert set(grid.best_params_) == {"C", "epsilon"}


def test_predict_one_before_learning_is_zero():
    est = olearn.PARegressor()
    assert est.predict_one({0: 1.0}) == 0.0
    assert est.predict_learn_one({0: 2.0}, 1.0) == 0.0
    # PA-I, C = 1: l = 0.9, ||x||^2 = 4, tau = 0.225, w = 0.225 * 2 = 0.45
    assert_allclose(est.coef_, [0.45])
    assert est.predict_one({0: 2.0}) == pytest.approx(0.9)


def test_non_numeric_targets_are_refused():
    with pytest.raises(ValueError, match="real numbers"):
        olearn.PARegressor().fit(np.eye(2), ["a", "b"])
    with pytest.raises(ValueError, match="'a'"):
        olearn.PARegressor().learn_one({0: 1.0}, "a")


def test_invalid_epsilon_is_refused():
    for bad in (-0.1, float("nan"), float("inf"), "0.1", None):
        with pytest.raises(ValueError, match=r"\bepsilon="):
            olearn.PARegressor(epsilon=bad).fit(np.eye(2), [0.0, 1.0])
