"""The papers' invariants and identities, as property tests.

* PA (Crammer et al. 2006, Eq. 3): after an update the hinge loss on that example is 0.
* PA-I: tau <= C always; PA-I with a huge C is PA; PA-II: tau = l / (||x||^2 + 1/(2C)).
* Projected OGD (Zinkevich 2003): every iterate, intercept included, is in the ball.
* Conservative OGD on the hinge with a constant rate is the Perceptron (UCL slides).
* OnlineSVM is OGD on the hinge loss over a ball with an intercept (OCO notes Sec. 4.2).
* Novikoff (1962): on a sequence separable with margin gamma and ||x|| <= R the
  Perceptron makes at most (R/gamma)^2 updates.
* x = 0: PA and PA-I take tau = 0 (documented), never NaN.
* The logistic loss is finite for huge margins.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from oracles import binary as oracle
from scipy.special import expit

import olearn

FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def streams(draw, max_rows=25, max_dim=6, min_norm=1e-3):
    """A short stream: rows with entries in [-10, 10] (none nearly zero as a whole) and labels in {-1, +1}."""
    n = draw(st.integers(1, max_rows))
    d = draw(st.integers(1, max_dim))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-10, 10, allow_subnormal=False)))
    norms = np.linalg.norm(X, axis=1)
    X[norms < min_norm, 0] = 1.0  # the zero vector has its own test
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    return X, y


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _declared(est, d):
    """``est`` told up front that the classes are -1 and +1 (a stream may draw one class only).

    Until both classes are known, the one class seen is encoded +1 (olearn._labels);
    declaring them keeps y_t w.x_t the paper's margin on every round.
    """
    return est.partial_fit(np.zeros((0, d)), np.array([], dtype=int), classes=[-1, 1])


# -- Passive-Aggressive -------------------------------------------------------


@FEW
@given(data=streams(), fit_intercept=st.booleans())
def test_pa_update_leaves_zero_loss_on_the_example(data, fit_intercept):
    X, y = data
    est = _declared(olearn.PAClassifier(variant="pa", fit_intercept=fit_intercept), X.shape[1])
    for x, label in zip(X, y):
        est.learn_one(x, label)
        margin = label * est.decision_function(x.reshape(1, -1))[0]
        # exact math gives margin = 1; rounding is relative to the size of the terms of w.x
        size = np.linalg.norm(_weights(est)) * math.sqrt(x @ x + fit_intercept)
        assert max(0.0, 1.0 - margin) <= 1e-12 * max(1.0, size)


@FEW
@given(data=streams(), C=st.floats(1e-4, 1e3), fit_intercept=st.booleans())
def test_pa1_tau_is_at_most_C(data, C, fit_intercept):
    X, y = data
    res = olearn.run(olearn.PAClassifier(variant="pa1", C=C, fit_intercept=fit_intercept), X, y)
    assert np.all(res.taus <= C)
    assert np.all(res.taus >= 0.0)
    # and it is the PA step l/||x||^2 whenever that is below C
    sq = (X**2).sum(axis=1) + (1.0 if fit_intercept else 0.0)
    expected = np.minimum(C, res.losses / sq)
    assert_allclose(res.taus, expected, rtol=1e-12)


@FEW
@given(data=streams(), fit_intercept=st.booleans())
def test_pa1_with_huge_C_is_pa(data, fit_intercept):
    X, y = data
    pa = olearn.PAClassifier(variant="pa", fit_intercept=fit_intercept)
    pa1 = olearn.PAClassifier(variant="pa1", C=1e12, fit_intercept=fit_intercept)
    res_pa, res_pa1 = olearn.run(pa, X, y), olearn.run(pa1, X, y)
    assume(np.all(res_pa.taus < 1e12))  # the identity needs l/||x||^2 <= C on every round
    assert_allclose(res_pa1.taus, res_pa.taus, rtol=1e-12)
    assert_allclose(_weights(pa1), _weights(pa), rtol=1e-12, atol=1e-12)


@FEW
@given(data=streams(), C=st.floats(1e-4, 1e3), fit_intercept=st.booleans())
def test_pa2_tau_formula(data, C, fit_intercept):
    X, y = data
    est = _declared(olearn.PAClassifier(variant="pa2", C=C, fit_intercept=fit_intercept), X.shape[1])
    res = olearn.run(est, X, y)
    sq = (X**2).sum(axis=1) + (1.0 if fit_intercept else 0.0)
    assert_allclose(res.taus, res.losses / (sq + 1.0 / (2.0 * C)), rtol=1e-12)
    # the losses are the hinge losses of the recorded scores
    assert_allclose(res.losses, np.maximum(0.0, 1.0 - y * res.scores), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("variant", ["pa", "pa1"])
def test_zero_vector_gives_tau_zero(variant):
    X = np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])
    y = np.array([1, -1, 1])
    est = olearn.PAClassifier(variant=variant, C=0.5)
    res = olearn.run(est, X, y)
    assert np.isfinite(res.taus).all() and np.isfinite(res.losses).all()
    assert res.taus[0] == 0.0 and res.taus[2] == 0.0
    assert res.losses[0] == 1.0  # w.0 = 0: hinge loss 1, but no w can lower it
    # round 2 by hand: l = 1, ||x||^2 = 5, tau = 1/5 (PA) or min(0.5, 1/5) (PA-I)
    assert_allclose(est.coef_, [[-0.2, -0.4]])
    # learn_one with an empty dict, a zero array and a zero sparse row
    for row in ({}, np.zeros(2), sp.csr_matrix((1, 2))):
        est.learn_one(row, 1)
        assert_allclose(est.coef_, [[-0.2, -0.4]])


def test_zero_vector_pa2_and_intercept_by_hand():
    # PA-II on x = 0: tau = 1 / (0 + 1/(2C)) = 2C, but w moves by tau * 0 = 0
    res = olearn.run(est := olearn.PAClassifier(variant="pa2", C=0.25), np.zeros((1, 2)), [1])
    assert_allclose(res.taus, [0.5])
    assert_allclose(est.coef_, [[0.0, 0.0]])
    # with an intercept ||(0, 1)||^2 = 1: PA's tau = 1 and the bias becomes 1
    res = olearn.run(est := olearn.PAClassifier(variant="pa", fit_intercept=True), np.zeros((1, 2)), [1])
    assert_allclose(res.taus, [1.0])
    assert_allclose(est.intercept_, [1.0])


# -- projected OGD ------------------------------------------------------------


@FEW
@given(
    data=streams(max_rows=30),
    radius=st.floats(0.01, 5.0),
    eta=st.floats(0.01, 10.0),
    loss=st.sampled_from(["hinge", "logistic", "squared"]),
    schedule=st.sampled_from(["constant", "sqrt", "inverse"]),
    fit_intercept=st.booleans(),
)
def test_ogd_iterates_stay_in_the_ball(data, radius, eta, loss, schedule, fit_intercept):
    X, y = data
    est = olearn.OGDClassifier(loss=loss, eta=eta, schedule=schedule, radius=radius, fit_intercept=fit_intercept)
    for x, label in zip(X, y):
        est.learn_one(x, label)
        assert np.linalg.norm(_weights(est)) <= radius * (1 + 1e-9)


@FEW
@given(data=streams(max_rows=30), radius=st.floats(0.01, 5.0), eta=st.floats(0.01, 10.0))
def test_online_svm_iterates_stay_in_the_ball(data, radius, eta):
    X, y = data
    est = olearn.OnlineSVM(radius=radius, eta=eta)
    for x, label in zip(X, y):
        est.learn_one(x, label)
        assert np.linalg.norm(_weights(est)) <= radius * (1 + 1e-9)


def test_ogd_projection_by_hand():
    # x = (3, 4), y = +1, eta = 1: w = (3, 4) has norm 5, projected onto radius 1: (0.6, 0.8)
    est = olearn.OGDClassifier(eta=1.0, schedule="constant", radius=1.0).partial_fit([[3.0, 4.0]], [1])
    assert_allclose(est.coef_, [[0.6, 0.8]])
    # with the intercept the constant feature joins the norm: (3, 4, 1) / sqrt(26)
    est = olearn.OGDClassifier(eta=1.0, schedule="constant", radius=1.0, fit_intercept=True).partial_fit([[3.0, 4.0]], [1])
    assert_allclose(_weights(est), np.array([3.0, 4.0, 1.0]) / math.sqrt(26.0))


def test_ogd_projection_over_a_long_stream():
    """Thousands of projections in a row, each shrinking w ~1e4-fold, stay exact (against the oracle)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 4))
    y = np.where(rng.random(3000) < 0.5, 1, -1)
    est = olearn.OGDClassifier(eta=5.0, schedule="constant", radius=1e-3, fit_intercept=True)
    res = olearn.run(est, X, y)
    trace = oracle.ogd(X, y, loss="hinge", eta=5.0, schedule="constant", radius=1e-3, fit_intercept=True)
    assert np.linalg.norm(_weights(est)) <= 1e-3 * (1 + 1e-9)
    assert_allclose(_weights(est), np.append(trace.coef, trace.intercept), rtol=1e-9, atol=1e-15)
    assert_allclose(res.scores, trace.scores, rtol=1e-9, atol=1e-15)


@FEW
@given(data=streams(), eta=st.floats(0.01, 10.0), fit_intercept=st.booleans())
def test_conservative_hinge_constant_ogd_is_the_perceptron(data, eta, fit_intercept):
    X, y = data
    ogd = olearn.OGDClassifier(
        loss="hinge", schedule="constant", eta=eta, conservative=True, fit_intercept=fit_intercept
    )
    perceptron = olearn.Perceptron(eta=eta, fit_intercept=fit_intercept)
    a, b = olearn.run(ogd, X, y), olearn.run(perceptron, X, y)
    assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)
    assert_array_equal(a.cumulative_mistakes, b.cumulative_mistakes)
    assert_allclose(_weights(ogd), _weights(perceptron), rtol=1e-12, atol=1e-12)


@FEW
@given(
    data=streams(),
    radius=st.floats(0.01, 20.0),
    eta=st.floats(0.01, 10.0),
    schedule=st.sampled_from(["constant", "sqrt", "inverse"]),
)
def test_online_svm_is_projected_hinge_ogd_with_intercept(data, radius, eta, schedule):
    X, y = data
    svm = olearn.OnlineSVM(radius=radius, eta=eta, schedule=schedule)
    ogd = olearn.OGDClassifier(loss="hinge", radius=radius, eta=eta, schedule=schedule, fit_intercept=True)
    a, b = olearn.run(svm, X, y), olearn.run(ogd, X, y)
    assert_allclose(a.scores, b.scores, rtol=1e-12, atol=1e-12)
    assert_allclose(_weights(svm), _weights(ogd), rtol=1e-12, atol=1e-12)


# -- the Perceptron's mistake bound ---------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(2, 20),
    gamma=st.floats(0.02, 0.5),
    n=st.integers(50, 600),
    eta=st.floats(0.1, 10.0),
)
def test_perceptron_mistake_bound_on_separable_streams(seed, d, gamma, n, eta):
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    # points in the unit ball with |u.x| >= gamma, labelled by u
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X *= rng.uniform(0.2, 1.0, size=(n, 1))
    proj = X @ u
    sign = np.where(proj >= 0, 1.0, -1.0)
    too_close = np.abs(proj) < gamma
    X[too_close] += np.outer(sign[too_close] * gamma - proj[too_close], u)  # push out to margin gamma
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    proj = X @ u
    gamma_seen = np.abs(proj).min()  # the margin u actually achieves (> 0 by construction)
    assert gamma_seen > 0
    R = np.linalg.norm(X, axis=1).max()
    y = np.where(proj > 0, 1, -1)
    est = olearn.Perceptron(eta=eta)
    res = olearn.run(est, X, y)
    assert res.n_updates <= (R / gamma_seen) ** 2
    # a second pass over the same stream adds no more than the bound allows in total
    res2 = olearn.run(est, X, y)
    assert res.n_updates + res2.n_updates <= (R / gamma_seen) ** 2


def test_perceptron_bound_is_reached_on_an_adversarial_stream():
    """Orthonormal points with alternating labels: every round updates, d = (R/gamma)^2 of them.

    u = sum_i y_i e_i / sqrt(d) separates them with margin 1/sqrt(d) and R = 1.
    """
    d = 16
    X = np.eye(d)
    y = np.where(np.arange(d) % 2 == 0, 1, -1)
    res = olearn.run(olearn.Perceptron(), X, y)
    assert res.n_updates == d
    # every score is 0, and a zero score is a mistake whatever the label
    assert res.n_mistakes == d


# -- numerical robustness -------------------------------------------------------


@pytest.mark.parametrize("margin", [1e6, -1e6, 800.0, -800.0, 40.0, -40.0, 0.0])
def test_logistic_loss_is_stable_for_huge_margins(margin):
    """Learn w = (margin) on x = (1) through a first PA step, then score it under OGD-logistic.

    Closed forms: l(m) = log(1 + e^{-m}), so l(1e6) = 0 (to double precision),
    l(-1e6) = 1e6, l(800) = e^{-800} ~ 0, l(-800) = 800, l(0) = log 2;
    the step tau = eta / (1 + e^{m}).
    """
    est = olearn.OGDClassifier(loss="logistic", schedule="constant", eta=1.0)
    # first round: m = 0, slope 1/2, tau = 1/2, w = y x / 2; pick x so that w.x2 = margin afterwards
    olearn.run(est, np.array([[2.0]]), np.array([1]))  # w = (1.0)
    assert_allclose(est.coef_, [[1.0]])
    res = olearn.run(est, np.array([[margin]]), np.array([1]))
    assert np.isfinite(res.losses).all() and np.isfinite(res.taus).all()
    expected_loss = max(-margin, 0.0) + math.log1p(math.exp(-abs(margin)))
    assert_allclose(res.losses, [expected_loss], rtol=1e-12)
    assert_allclose(res.taus, [expit(-margin)], rtol=1e-12, atol=0.0)
    assert np.isfinite(est.coef_).all()
