"""Winnow and the p-norm algorithms against the NumPy oracles, identities and invariants."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles import quasi_additive as oracle

import olearn
from olearn.dual import DualAscent
from olearn.quasi_additive import PNorm, Winnow

LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix, "csc": sp.csc_matrix}


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _trace_weights(trace):
    return np.append(trace.coef, trace.intercept)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("C", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_winnow_matches_oracle(layout, C, fit_intercept, make_stream):
    X, y = make_stream(80, 6, density=0.5, seed=3)
    X[:, -1] += 0.3  # every feature from the first row: the prior counts the same n as the oracle's
    est = Winnow(C=C, fit_intercept=fit_intercept)
    res = olearn.run(est, LAYOUTS[layout](X), y)
    trace = oracle.winnow(X, y, C, fit_intercept)
    assert_allclose(_weights(est), _trace_weights(trace), rtol=1e-10, atol=1e-13)
    assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-13)
    assert_allclose(res.taus, trace.taus)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("p", [2.0, 3.0, 2 * np.log(12)])
def test_pnorm_matches_oracle(layout, p, make_stream):
    X, y = make_stream(80, 12, density=0.4, seed=5)
    for fit_intercept, C in [(False, 1.0), (True, 0.4)]:
        est = PNorm(p=p, C=C, fit_intercept=fit_intercept)
        res = olearn.run(est, LAYOUTS[layout](X), y)
        trace = oracle.pnorm(X, y, p, C, fit_intercept=fit_intercept)
        assert_allclose(_weights(est), _trace_weights(trace), rtol=1e-10, atol=1e-13)
        assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-13)
        assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("p", [2.0, 3.0, 2 * np.log(12)])
def test_aggressive_pnorm_matches_the_orabona_crammer_oracle(layout, p, make_stream):
    """001 Sec. 4.1 transcribed in NumPy: eta = 1 on mistakes, the minimizer of D on margin errors."""
    X, y = make_stream(80, 12, density=0.4, seed=5)
    for fit_intercept, R in [(False, np.sqrt(2.0)), (True, 0.8), (False, 3.0)]:
        est = PNorm(p=p, aggressive=True, R=R, fit_intercept=fit_intercept)
        res = olearn.run(est, LAYOUTS[layout](X), y)
        trace = oracle.aggressive_pnorm(X, y, p, R, fit_intercept=fit_intercept)
        assert_allclose(_weights(est), _trace_weights(trace), rtol=1e-10, atol=1e-13)
        assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-13)
        assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-15)


def test_aggressive_pnorm_takes_a_unit_step_on_a_mistake():
    """001 Sec. 4.1, p = 2: w_1 = 0, so x = (3, 0) is a mistake, eta = 1 and w = theta = (3, 0)."""
    est = PNorm(p=2.0, aggressive=True).partial_fit([[3.0, 0.0]], [1])
    assert_array_equal(est.coef_, [[3.0, 0.0]])


def test_aggressive_pnorm_margin_error_step_by_hand():
    """p = 3: w = theta_i |theta_i| / (2 ||theta||_3) after a mistake on x1 = (1, 0): w = (1/2, 0).

    Then x2 = (1, 1), y = +1: margin 1/2, ||x2||_3^2 = 2^(2/3), eta = (R^2/2 - 1/2) / 2^(2/3).
    """
    R = 1.5
    est = PNorm(p=3.0, aggressive=True, R=R)
    res = olearn.run(est, np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1, 1]))
    eta = (R**2 / 2 - 0.5) / 2 ** (2 / 3)
    assert_allclose(res.taus, [1.0, eta], rtol=1e-14)
    theta = np.array([1.0 + eta, eta])
    assert_allclose(est.coef_.ravel(), theta * np.abs(theta) / (2 * np.linalg.norm(theta, 3)), rtol=1e-14)


def test_aggressive_pnorm_updates_on_margin_errors(make_stream):
    X, y = make_stream(60, 5, noise=0.0, seed=1)
    res = olearn.run(PNorm(p=3.0, aggressive=True), X, y)
    margins = y * res.scores
    margin_errors = (margins > 0) & (margins < 1)
    assert margin_errors.any()
    assert (res.taus[margin_errors] > 0).all()
    assert (res.taus[margins <= 0] == 1.0).all()
    assert (res.taus[margins >= 1] == 0).all()
    assert (res.taus <= 1.0).all()


def test_aggressive_pnorm_with_p_2_and_r_sqrt2_is_pa1_on_unit_rows(make_stream):
    """001 Sec. 4.1: p = 2, R = sqrt(2) is PA-I's step with C = 1; with ||x|| <= 1 also on mistakes."""
    X, y = make_stream(90, 6, seed=3)
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    a = olearn.run(PNorm(p=2.0, aggressive=True, R=np.sqrt(2.0)), X, y)
    b = olearn.run(olearn.PAClassifier(variant="pa1", C=1.0), X, y)
    assert_allclose(a.taus, b.taus, rtol=1e-12, atol=1e-15)
    assert_array_equal(a.predictions, b.predictions)


# -- identities -------------------------------------------------------------------------


@pytest.mark.parametrize("C", [0.1, 1.0, 3.0])
def test_pnorm_with_p_2_is_the_perceptron(C, make_stream):
    X, y = make_stream(90, 7, density=0.6, seed=8)
    for fit_intercept in (False, True):
        pnorm = PNorm(p=2.0, C=C, fit_intercept=fit_intercept)
        perceptron = olearn.Perceptron(eta=C, fit_intercept=fit_intercept)
        a, b = olearn.run(pnorm, X, y), olearn.run(perceptron, X, y)
        assert_array_equal(a.predictions, b.predictions)
        assert_allclose(_weights(pnorm), _weights(perceptron), rtol=1e-12)


def test_conservative_pnorm_predictions_do_not_depend_on_C(make_stream):
    X, y = make_stream(90, 7, seed=2)
    runs = [olearn.run(PNorm(p=4.0, C=C), X, y) for C in (0.01, 1.0, 50.0)]
    for res in runs[1:]:
        assert_array_equal(res.predictions, runs[0].predictions)


@pytest.mark.parametrize("estimator, twin", [
    (Winnow(C=0.7), DualAscent(regularizer="entropy", update="conservative", C=0.7)),
    (PNorm(p=3.0, C=0.5), DualAscent(regularizer="pnorm", p=3.0, update="conservative", C=0.5)),
], ids=["winnow", "pnorm"])
def test_presets_are_dual_ascent(estimator, twin, make_stream):
    X, y = make_stream(70, 6, seed=4)
    a, b = olearn.run(estimator, X, y), olearn.run(twin, X, y)
    assert_array_equal(a.predictions, b.predictions)
    assert_allclose(_weights(estimator), _weights(twin), rtol=1e-12)


# -- Winnow's invariants and numerical safety ---------------------------------------------


def _lift(theta):
    """The 2n simplex weights (w+, w-) of Balanced Winnow from theta, computed from scratch."""
    both = np.concatenate([theta, -theta])
    e = np.exp(both - both.max())
    return e / e.sum()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), C=st.floats(0.01, 20.0), scale=st.floats(0.1, 30.0))
def test_winnow_weights_stay_on_the_simplex(seed, C, scale):
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((40, 5))
    y = np.where(rng.random(40) < 0.5, -1, 1)
    y[:2] = [1, -1]
    est = Winnow(C=C)
    for x, label in zip(X, y):
        est.learn_one(x, label)
        lift = _lift(est.theta_[:-1])
        assert (lift >= 0).all()
        assert abs(lift.sum() - 1.0) < 1e-12
        assert_allclose(est.coef_.ravel(), lift[:5] - lift[5:], atol=1e-14)
        assert np.abs(est.coef_).sum() <= 1.0 + 1e-12


def test_winnow_survives_a_long_adversarial_stream():
    """The adversary always names the class Winnow did not predict; theta grows far past exp's range."""
    rng = np.random.default_rng(0)
    est = Winnow(C=25.0, n_features=8)
    n = 20_000
    X = rng.choice([-40.0, 40.0], size=(n, 8)) * (rng.random((n, 8)) < 0.5)
    X[:, 0] = 40.0
    for x in X[:2000]:
        score = est.decision_function(x[None])[0] if hasattr(est, "classes_") else 0.0
        est.learn_one(x, -1 if score > 0 else 1)
    res = olearn.run(est, X[2000:], np.where(rng.random(n - 2000) < 0.5, -1, 1))
    assert np.abs(est.theta_).max() > 1000  # exp(theta) overflows past 710
    assert np.isfinite(est.coef_).all() and np.isfinite(res.scores).all()
    assert np.abs(est.coef_).sum() <= 1.0 + 1e-12
    lift = _lift(est.theta_[:-1])
    assert_allclose(est.coef_.ravel(), lift[:8] - lift[8:], atol=1e-14)


def test_a_row_beyond_the_float_range_is_refused_and_leaves_the_model():
    est = Winnow().partial_fit(np.eye(3), [1, -1, 1])
    before = _weights(est)
    with pytest.raises(FloatingPointError, match="row 1"):
        est.partial_fit(np.array([[1.0, 0.0, 0.0], [1e200, 0.0, 1e200]]), [-1, -1])
    with pytest.raises(FloatingPointError, match="this example"):
        est.learn_one(np.array([1e200, 0.0, 0.0]), 1)
    assert np.isfinite(_weights(est)).all()
    assert not np.array_equal(_weights(est), before)  # row 0 of the batch (a mistake) was learned
    est.learn_one(np.array([0.0, 1.0, 0.0]), -1)


def test_pnorm_large_theta_does_not_overflow_its_powers():
    est = PNorm(p=40.0, C=1e120)
    est.fit(np.array([[1.0, 0.5], [-0.3, 1.0], [1.0, 1.0]]), [1, -1, -1])
    assert np.isfinite(est.coef_).all() and np.abs(est.coef_).max() > 1e100
    assert_allclose(est.coef_.ravel(), oracle.pnorm_link(est.theta_[:-1] / 1e120, 40.0) * 1e120, rtol=1e-10)


def test_winnow_prior_counts_the_dimension():
    """Documented: a feature seen later takes its share of the uniform prior (weights shrink, signs stay)."""
    small = Winnow().partial_fit(np.array([[1.0, 0.0]]), [1])
    big = Winnow(n_features=5).partial_fit(np.array([[1.0, 0.0]]), [1])
    assert small.coef_[0, 0] > big.coef_[0, 0] > 0
    assert_allclose(big.coef_[0, 0], np.sinh(1) / (np.cosh(1) + 4))


@pytest.mark.parametrize("value", [0.0, -1.0, float("inf"), float("nan"), True, "1"])
def test_aggressive_pnorm_refuses_a_bad_r(value):
    with pytest.raises(ValueError, match=r"\bR="):
        PNorm(aggressive=True, R=value).fit(np.eye(2), [0, 1])


def test_switching_to_the_aggressive_potential_rescales_the_weights():
    """001's f = ||u||_q^2 / (2(q-1)) gives w = g(theta) / (p - 1): a started model follows at once."""
    est = PNorm(p=3.0).partial_fit(np.array([[1.0, 0.5], [0.2, -1.0]]), [1, -1])
    conservative = est.coef_.copy()
    est.set_params(aggressive=True)
    est.decision_function(np.eye(2))
    assert_allclose(est.coef_, conservative / 2.0, rtol=1e-14)
    assert_allclose(est.coef_.ravel(), oracle.pnorm_link(est.theta_[:-1], 3.0) / 2.0, rtol=1e-14)
