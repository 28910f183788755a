"""Identities between the second-order learners and with the PA family, and the papers' invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from oracles import second_order as oracle

import olearn
from olearn.linear import PAClassifier
from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron


def _one_nonzero_stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = rng.normal(0.0, 2.0, n)
    return X, np.where(rng.random(n) < 0.5, 1, -1)


@pytest.mark.parametrize(("cls", "params"), [(AROW, {"r": 0.7}), (NAROW, {"b": 1.3}), (CW, {"eta": 0.8})])
def test_diagonal_equals_full_on_rows_with_one_nonzero(cls, params):
    """With one non-zero per row, Sigma stays diagonal: both covariances make the same updates."""
    X, y = _one_nonzero_stream(200, 5, seed=3)
    full = cls(covariance="full", **params)
    diag = cls(covariance="diag", **params)
    res_full, res_diag = olearn.run(full, X, y), olearn.run(diag, X, y)
    assert_allclose(res_diag.scores, res_full.scores, rtol=1e-10, atol=1e-14)
    if cls is NAROW:
        # the diagonal NAROW records the text's eta_t = 1, the full one the coefficient of y Sigma x
        assert_array_equal(res_diag.taus != 0, res_full.taus != 0)
    else:
        # CW's alpha cancels to ~1e-13 where its constraint is just met: compare at the scale of the steps
        assert_allclose(res_diag.taus, res_full.taus, rtol=1e-10, atol=1e-10)
    assert_allclose(diag.coef_, full.coef_, rtol=1e-10, atol=1e-14)
    assert_allclose(diag.covariance_, np.diag(full.covariance_), rtol=1e-10)
    assert_array_equal(np.diag(np.diag(full.covariance_)), full.covariance_)


@pytest.mark.parametrize("covariance", ["full", "diag"])
@pytest.mark.parametrize("r", [0.05, 1.0, 8.0])
def test_arow_first_update_is_pa2_with_one_over_2C_equal_r(r, covariance):
    x, label = np.array([[0.5, -1.0, 2.0]]), [-1]
    arow = AROW(r=r, covariance=covariance).partial_fit(x, label)
    pa2 = PAClassifier(variant="pa2", C=1.0 / (2.0 * r)).partial_fit(x, label)
    assert_allclose(arow.coef_, pa2.coef_, rtol=1e-14)
    assert_allclose(olearn.run(AROW(r=r, covariance=covariance), x, label).taus,
                    olearn.run(PAClassifier(variant="pa2", C=1.0 / (2.0 * r)), x, label).taus, rtol=1e-14)


def _adversarial_stream(est, n, d, seed):
    """Labels chosen against ``est``'s own prediction, so that every round is a mistake."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    y = np.empty(n, dtype=int)
    for t, x in enumerate(X):
        score = est.decision_function(x[None])[0] if t else 0.0
        y[t] = -1 if score > 0 else 1
        est.partial_fit(x[None], [y[t]], classes=[-1, 1])
    return X, y


def test_sop_is_arow_with_r_equal_a_when_every_round_is_a_mistake():
    """SOP(a) makes AROW(r = a)'s update on its mistakes; on a stream of mistakes only, the two coincide."""
    sop = SecondOrderPerceptron(a=0.3)
    X, y = _adversarial_stream(sop, 40, 4, seed=5)
    arow = AROW(r=0.3)
    res = olearn.run(arow, X, y)
    assert res.n_mistakes == 40
    assert_allclose(arow.coef_, sop.coef_, rtol=1e-9)
    assert_allclose(arow.covariance_, sop.covariance_, rtol=1e-9, atol=1e-15)


def test_narow_round_with_r_equal_1_by_hand():
    """b = 2 and chi = 1 give r_1 = 1: the paper and the AROW-style rendering both set w = y x / 2."""
    x = np.array([[0.6, 0.8]])
    est = NAROW(b=2.0).partial_fit(x, [-1], classes=[-1, 1])
    assert_allclose(est.coef_, [[-0.3, -0.4]], rtol=1e-15)
    assert_allclose(est.covariance_, np.eye(2) - np.outer(x, x) / 2.0, rtol=1e-15)
    w, S = oracle.narow_arow_style(x, [-1], b=2.0)
    assert_allclose(est.coef_.ravel(), w, rtol=1e-15)
    assert_allclose(est.covariance_, S, rtol=1e-15)


def test_narow_takes_a_step_where_the_rendering_does_not():
    """chi <= 1/b: r = inf. The paper keeps A and adds y x to theta (w += y Sigma x); the rendering stays still."""
    x = np.array([[0.3, 0.4]])  # chi = 0.25 < 1/b = 1
    est = NAROW(b=1.0).partial_fit(x, [1])
    assert_allclose(est.coef_, x, rtol=1e-15)
    assert_array_equal(est.covariance_, np.eye(2))
    w, _ = oracle.narow_arow_style(x, [1], b=1.0)
    assert_array_equal(w, [0.0, 0.0])


def test_narow_differs_from_the_rendering_on_a_stream(make_stream):
    X, y = make_stream(100, 4, seed=1)
    est = NAROW(b=1.0).partial_fit(X, y)
    w, _ = oracle.narow_arow_style(X, y, b=1.0)
    assert not np.allclose(est.coef_.ravel(), w)
    # and it is the paper's algorithm
    assert_allclose(est.coef_.ravel(), oracle.narow(X, y, b=1.0).coef, rtol=1e-9)


def test_adagrad_first_step_is_eta_y_x_over_delta_plus_abs_x():
    x = np.array([[2.0, -0.5, 0.0]])
    est = AdaGrad(eta=0.5, delta=0.25).partial_fit(x, [1])
    assert_allclose(est.coef_, [[0.5 * 2.0 / 2.25, 0.5 * -0.5 / 0.75, 0.0]], rtol=1e-15)
    assert_allclose(est.covariance_, [1 / 2.25, 1 / 0.75, 4.0])


def test_cw_meets_its_confidence_constraint_with_equality(make_stream):
    """After an exact CW update (full), y mu.x = phi sqrt(x^T Sigma x) on the example just learned."""
    from statistics import NormalDist

    X, y = make_stream(40, 5, seed=8)
    phi = NormalDist().inv_cdf(0.85)
    est = CW(eta=0.85, covariance="full")
    checked = 0
    for x, label in zip(X, y):
        before = est.coef_.copy() if hasattr(est, "classes_") else None
        est.learn_one(x, label)
        if before is not None and not np.array_equal(before, est.coef_):
            margin = label * float(est.coef_.ravel() @ x)
            assert_allclose(margin, phi * np.sqrt(x @ est.covariance_ @ x), rtol=1e-8)
            checked += 1
    assert checked > 5


# -- invariants: Sigma stays symmetric positive definite -----------------------

FULL = [AROW(r=0.1), NAROW(b=3.0), NAROW(b=0.2), SecondOrderPerceptron(a=0.05)]


def _assert_spd(S):
    assert_array_equal(S, S.T)  # exactly: the update rounds (i, j) and (j, i) alike
    np.linalg.cholesky(S)
    assert np.all(np.linalg.eigvalsh(S) <= 1.0 + 1e-12)  # it only shrinks from Sigma_1 = I


@pytest.mark.parametrize("est", FULL, ids=repr)
def test_covariance_stays_spd_on_a_long_stream(est, make_stream):
    X, y = make_stream(3000, 6, density=0.7, seed=11, noise=0.2)
    X[1500:, 0] *= 30.0  # a scale change half way
    olearn.run(est, X, y, record=False)
    _assert_spd(est.covariance_)


def test_cw_covariance_stays_spd_on_a_separable_stream(make_stream):
    """CW is built for (nearly) separable data; on noisy streams its variances collapse (see its docstring)."""
    est = CW(eta=0.95, covariance="full")
    X, y = make_stream(3000, 6, density=0.7, seed=11, noise=0.0)
    olearn.run(est, X, y, record=False)
    _assert_spd(est.covariance_)


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 4)),
             elements=st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)),
    seed=st.integers(0, 2**16),
    which=st.integers(0, len(FULL) - 1),
)
def test_covariance_stays_spd_on_any_stream(X, seed, which):
    y = np.where(np.random.default_rng(seed).random(X.shape[0]) < 0.5, -1, 1)
    est = FULL[which].__class__(**FULL[which].get_params())
    est.partial_fit(X, y, classes=[-1, 1])
    _assert_spd(est.covariance_)
    assert np.isfinite(est.coef_).all()


# Entries are 0 or at least 1e-100 in size: CW refuses, with a FloatingPointError,
# a row whose x' Sigma x underflows (see CW's docstring).
_ENTRIES = st.one_of(st.just(0.0), st.floats(1e-100, 1e3), st.floats(-1e3, -1e-100))


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 5)), elements=_ENTRIES),
    seed=st.integers(0, 2**16),
)
def test_diagonal_variances_stay_positive(X, seed):
    y = np.where(np.random.default_rng(seed).random(X.shape[0]) < 0.5, -1, 1)
    for est in (AROW(r=0.1, covariance="diag"), NAROW(b=2.0, covariance="diag"), CW(eta=0.95)):
        est.partial_fit(X, y, classes=[-1, 1])
        assert np.all(est.covariance_ > 0.0) and np.all(est.covariance_ <= 1.0)


def test_cw_refuses_a_row_whose_confidence_underflows():
    """x' Sigma x = 2e-320 is subnormal: the exact step's precision increase ~ 1/V overflows."""
    est = CW(eta=0.95, covariance="diag")
    with pytest.raises(FloatingPointError, match="overflowed at row 0; the model is unchanged"):
        est.partial_fit(np.array([[1.4e-160]]), [1], classes=[-1, 1])
    # refused at its first row, the fresh learner is left unfitted, as before the call
    assert not hasattr(est, "classes_")
    est.partial_fit(np.array([[1.0]]), [1], classes=[-1, 1])
    assert np.all(est.covariance_ < 1.0)
