"""The regression bounds of Crammer et al. (2006), Sec. 5 (Thm. 2-5 through Lemma 6).

Their values are checked against hand computations on tiny streams; then PARegressor's
runs on random and adversarial streams are set against them for many u.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olearn import PARegressor, run
from olearn.bounds import (
    regression_pa1_bound,
    regression_pa2_loss_bound,
    regression_pa_separable_bound,
    regression_pa_unit_norm_bound,
)

SLACK = 1 + 1e-9


# -- values, by hand ----------------------------------------------------------------


def test_values_on_a_two_round_stream_by_hand():
    """x = (3, 4), (0, 1); y = 5, -2; u = (1, -1), epsilon = 0.5.

    u.x = -1, -1: |-1 - 5| - 0.5 = 5.5 and |-1 + 2| - 0.5 = 0.5, so sum l* = 6,
    sum l*^2 = 30.5; ||u||^2 = 2; R^2 = 25.
    """
    X, y, u = [[3.0, 4.0], [0.0, 1.0]], [5.0, -2.0], [1.0, -1.0]
    # Thm. 4: max(25, 1/C) (2 + 2 C 6); C = 0.01 -> max(25, 100) = 100, 100 * (2 + 0.12) = 212
    assert regression_pa1_bound(X, y, u, 0.5, C=0.01) == pytest.approx(212.0)
    # C = 1 -> 25 * (2 + 12) = 350
    assert regression_pa1_bound(X, y, u, 0.5, C=1.0) == pytest.approx(350.0)
    # Thm. 5: (25 + 1/(2C)) (2 + 2 C 30.5); C = 0.5 -> 26 * 32.5 = 845
    assert regression_pa2_loss_bound(X, y, u, 0.5, C=0.5) == pytest.approx(845.0)
    # Thm. 2 needs l* = 0 everywhere: u = (1, 0.5) predicts 5 and 0.5, off by 0 and 2.5
    assert regression_pa_separable_bound(X, y, [1.0, 0.5], 0.5) == math.inf
    # the realizable u: b = -2 from row 2, 3a + 4b = 5 -> a = 13/3; ||u||^2 = 169/9 + 4
    assert regression_pa_separable_bound(X, y, [13 / 3, -2.0], 0.0) == pytest.approx((169 / 9 + 4) * 25)
    # with the intercept: R^2 = 26, u has a bias entry
    assert regression_pa2_loss_bound(X, y, [1.0, -1.0, 0.0], 0.5, C=0.5, fit_intercept=True) == pytest.approx(
        27.0 * 32.5)


def test_unit_norm_value_by_hand():
    """x = e1, e2 (unit norm); y = 3, 0; u = (1, 0), epsilon = 1: l* = (1, 0); (1 + 2 * 1)^2 = 9."""
    assert regression_pa_unit_norm_bound([[1.0, 0.0], [0.0, 1.0]], [3.0, 0.0], [1.0, 0.0], 1.0) == 9.0
    with pytest.raises(ValueError, match=r"row 1 has \|\|x_t\|\| = 2"):
        regression_pa_unit_norm_bound([[1.0, 0.0], [0.0, 2.0]], [3.0, 0.0], [1.0, 0.0], 1.0)


def test_pa_regression_run_by_hand_against_the_separable_bound():
    """PA on x = (1, 0), (1, 1), y = 2, 3, epsilon = 0: w1 = 0, l1 = 2, tau = 2, w2 = (2, 0);
    w2.x2 = 2, l2 = 1, tau = 1/2, w3 = (2.5, 0.5). Sum l^2 = 5 <= ||u||^2 R^2 = 5 * 2 = 10 for u = (2, 1)."""
    X, y = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([2.0, 3.0])
    est = PARegressor(variant="pa", epsilon=0.0)
    res = run(est, X, y)
    np.testing.assert_allclose(res.losses, [2.0, 1.0])
    np.testing.assert_allclose(est.coef_, [2.5, 0.5])
    assert np.sum(res.losses**2) == pytest.approx(5.0)
    assert regression_pa_separable_bound(X, y, [2.0, 1.0], 0.0) == pytest.approx(10.0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"epsilon": -0.1}, "epsilon must be a finite number >= 0"),
        ({"epsilon": math.inf}, "epsilon must be a finite number >= 0"),
        ({"u": [1.0]}, "u has 1 entries; expected 2"),
        ({"y": [1.0, math.nan]}, "y has nan at row 1"),
        ({"y": [1.0]}, "y"),
        ({"C": 0.0}, "C must be a number > 0"),
    ],
)
def test_bad_inputs_are_named(kwargs, message):
    args = {"X": [[1.0, 0.0], [0.0, 1.0]], "y": [1.0, 2.0], "u": [1.0, 1.0], "epsilon": 0.1, "C": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        regression_pa1_bound(**args)


# -- the bounds hold for PARegressor ----------------------------------------------------


def _check_all(X, y, epsilon, C, us, fit_intercept=False, unit_norm=False):
    kw = {"fit_intercept": fit_intercept}
    pa = run(PARegressor(variant="pa", epsilon=epsilon, **kw), X, y)
    pa1 = run(PARegressor(variant="pa1", C=C, epsilon=epsilon, **kw), X, y)
    pa2 = run(PARegressor(variant="pa2", C=C, epsilon=epsilon, **kw), X, y)
    for u in us:
        assert np.sum(pa.losses**2) <= regression_pa_separable_bound(X, y, u, epsilon, **kw) * SLACK
        if unit_norm:
            assert np.sum(pa.losses**2) <= regression_pa_unit_norm_bound(X, y, u, epsilon, **kw) * SLACK
        assert np.sum(pa1.losses >= 1.0) <= regression_pa1_bound(X, y, u, epsilon, C, **kw) * SLACK
        assert np.sum(pa2.losses**2) <= regression_pa2_loss_bound(X, y, u, epsilon, C, **kw) * SLACK


def _competitors(X, y, rng, fit_intercept=False):
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    least_squares = np.linalg.lstsq(Z, y, rcond=None)[0]
    return [least_squares, 0.5 * least_squares, np.zeros(Z.shape[1]), rng.normal(size=Z.shape[1])]


@settings(max_examples=30, deadline=None, database=None)
@given(seed=st.integers(0, 10_000), epsilon=st.sampled_from([0.0, 0.1, 1.0]),
       C=st.sampled_from([0.01, 0.3, 1.0, 100.0]), noise=st.sampled_from([0.0, 0.5, 3.0]),
       fit_intercept=st.booleans())
def test_bounds_hold_on_random_streams(seed, epsilon, C, noise, fit_intercept):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4)) * rng.uniform(0.2, 3.0)
    target = rng.normal(size=4)
    y = X @ target + noise * rng.standard_normal(60)
    us = _competitors(X, y, rng, fit_intercept)
    if noise == 0.0 and not fit_intercept:
        us.append(target)  # realizable: Thm. 2's bound is finite for this u
    _check_all(X, y, epsilon, C, us, fit_intercept)


@settings(max_examples=20, deadline=None, database=None)
@given(seed=st.integers(0, 10_000), epsilon=st.sampled_from([0.0, 0.2]), C=st.sampled_from([0.05, 1.0, 20.0]))
def test_bounds_hold_on_unit_norm_streams(seed, epsilon, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = X @ rng.normal(size=3) * 2 + rng.standard_normal(50)
    _check_all(X, y, epsilon, C, _competitors(X, y, rng), unit_norm=True)


@pytest.mark.parametrize("variant, C", [("pa", 1.0), ("pa1", 0.5), ("pa2", 0.5), ("pa2", 10.0)])
def test_bounds_hold_against_an_adaptive_adversary(variant, C):
    """Each round the adversary sees w_t, picks x_t along the direction where w_t is most wrong about the
    realizable target u (or orthogonal to w_t when that is zero) and sets y_t = u.x_t, plus a lie on every
    fifth round."""
    rng = np.random.default_rng(3)
    u = np.array([2.0, -1.0, 0.5])
    est = PARegressor(variant=variant, C=C, epsilon=0.1)
    X, y = [], []
    w = np.zeros(3)
    for t in range(80):
        direction = u - w if np.linalg.norm(u - w) > 1e-9 else rng.normal(size=3)
        x = direction / np.linalg.norm(direction) + 0.3 * rng.normal(size=3)
        target = float(u @ x) + (4.0 if t % 5 == 4 else 0.0)
        est.learn_one(x, target)
        w = est.coef_
        X.append(x)
        y.append(target)
    X, y = np.array(X), np.array(y)
    _check_all(X, y, 0.1, C, [u, 0.9 * u, np.zeros(3)])


def test_all_zero_instances_with_C_inf_give_the_limit_not_nan():
    """x_t = 0: no update, l_t = l*_t = |y_t| - epsilon = 1.9, 2.9 (R = 0). With C = inf the products
    max{R^2, 1/C} * 2C sum l* and (R^2 + 1/2C) * 2C sum l*^2 are 0 * inf; their limits as C grows are
    2 sum l* = 9.6 (Thm. 4) and sum l*^2 = 12.02 (Thm. 5), both above what PA-I / PA-II measure."""
    X, y, u = np.zeros((2, 2)), np.array([2.0, 3.0]), [0.5, -1.0]
    assert regression_pa1_bound(X, y, u, 0.1, C=math.inf) == pytest.approx(9.6)
    assert regression_pa2_loss_bound(X, y, u, 0.1, C=math.inf) == pytest.approx(1.9**2 + 2.9**2)
    pa1 = run(PARegressor(variant="pa1", C=math.inf, epsilon=0.1), X, y)
    pa2 = run(PARegressor(variant="pa2", C=math.inf, epsilon=0.1), X, y)
    assert np.sum(pa1.losses >= 1.0) == 2 <= 9.6
    assert np.sum(pa2.losses**2) == pytest.approx(1.9**2 + 2.9**2)
