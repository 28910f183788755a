"""The dual never decreases, never exceeds the primal; Thm. 1's certificate; the mistake bounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import olearn
from olearn.bounds import perceptron_bound
from olearn.bounds._dual import (
    aggressive_pnorm_mistake_bound,
    batch_optimum,
    conjugate_value,
    dual_certificate,
    dual_objective,
    entropy_regularizer,
    pnorm_mistake_bound,
    primal_objective,
    regularizer_value,
    winnow_mistake_bound,
)
from olearn.dual import DualAscent
from olearn.quasi_additive import PNorm, Winnow

REGULARIZERS = ["l2", "entropy", "pnorm"]


def _stream(seed, n, d, noise=0.1, scale=1.0):
    rng = np.random.default_rng(seed)
    X = scale * rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < noise] *= -1
    y[:2] = [1, -1]
    return X, y


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), regularizer=st.sampled_from(REGULARIZERS),
       update=st.sampled_from(["aggressive", "last-k", "all"]), C=st.floats(0.05, 5.0),
       gamma=st.floats(0.1, 2.0), k=st.integers(1, 4))
def test_dual_never_decreases_and_never_exceeds_the_primal(seed, regularizer, update, C, gamma, k):
    X, y = _stream(seed, 25, 4, scale=2.0)
    if update == "aggressive":
        # Eq. (28) is an ascent under Thm. 3's condition <x, H x> <= 1, i.e. s_t <= 1
        X = X / np.sqrt(_dual_sqnorms(X, regularizer, 3.0).max())
    est = DualAscent(regularizer=regularizer, p=3.0, update=update, C=C, gamma=gamma, k=k).partial_fit(X, y)
    duals = est.dual_objective_
    assert duals[0] >= -1e-12
    assert (np.diff(duals) >= -1e-10 * max(1.0, abs(duals).max())).all()
    problem = {"regularizer": regularizer, "p": 3.0, "C": C, "gamma": gamma}
    rng = np.random.default_rng(seed)
    candidates = [est.coef_.ravel(), np.zeros(4), rng.standard_normal(4)]
    if regularizer == "entropy":
        candidates[2] /= np.abs(candidates[2]).sum() * 1.5  # inside the l1 ball, where F is finite
    for w in candidates:
        assert duals[-1] <= primal_objective(X, y, w, **problem) + 1e-9


def _dual_sqnorms(X, regularizer, p):
    """s_t = ||x_t||_*^2 / sigma of each row, written from 000 Sec. 4 (Examples 1-3)."""
    if regularizer == "l2":
        return (X**2).sum(1)
    if regularizer == "entropy":
        return np.abs(X).max(1) ** 2
    return (p - 1) * np.linalg.norm(X, p, axis=1) ** 2


@pytest.mark.parametrize("regularizer", REGULARIZERS)
def test_conservative_is_an_ascent_when_C_is_small_enough(regularizer):
    """The increase of a mistake is at least gamma C - C^2 s / 2 >= 0 for C <= 2 gamma / s_max."""
    X, y = _stream(1, 60, 5)
    s_max = {"l2": (X**2).sum(1).max(), "entropy": (np.abs(X).max(1) ** 2).max(),
             "pnorm": 2 * (np.linalg.norm(X, 3, axis=1) ** 2).max()}[regularizer]
    est = DualAscent(regularizer=regularizer, p=3.0, C=2.0 / s_max).partial_fit(X, y)
    assert (np.diff(est.dual_objective_, prepend=0.0) >= -1e-12).all()


def test_conservative_with_a_large_C_can_decrease_the_dual():
    """Documented: Eq. (16) is an ascent only for small C; the record shows what happened."""
    est = DualAscent(C=10.0).partial_fit(np.eye(2), [1, -1])
    assert_allclose(est.dual_objective_, [10 - 50, 20 - 100])


# -- the batch optimum and the certificate --------------------------------------------------


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_batch_optimum_is_optimal(regularizer, fit_intercept):
    X, y = _stream(3, 40, 4, noise=0.15)
    C, gamma = 0.7, 0.9
    opt = batch_optimum(X, y, regularizer=regularizer, p=3.0, C=C, gamma=gamma, fit_intercept=fit_intercept)
    assert 0.0 <= opt.gap < 1e-6 * max(1.0, opt.primal)
    assert ((opt.alpha >= 0) & (opt.alpha <= C)).all()
    assert_allclose(dual_objective(X, y, opt.alpha, regularizer, 3.0, gamma, fit_intercept), opt.dual, rtol=1e-12)
    # no random perturbation of w does better (within the l1 ball for the entropy)
    rng = np.random.default_rng(0)
    for _ in range(50):
        w = opt.w + 0.05 * rng.standard_normal(opt.w.size)
        if regularizer == "entropy" and np.abs(w).sum() > 1:
            continue
        assert primal_objective(X, y, w, regularizer, 3.0, C, gamma, fit_intercept) >= opt.primal - 1e-9
    # the Online-SVM ends at the same optimum, up to its tolerance
    est = DualAscent(regularizer=regularizer, p=3.0, update="all", C=C, gamma=gamma,
                     fit_intercept=fit_intercept).partial_fit(X, y)
    assert_allclose(est.dual_objective_[-1], opt.dual, rtol=1e-6)


def test_batch_optimum_of_a_separable_pair_is_the_hard_margin_svm():
    opt = batch_optimum([[2.0, 0.0], [0.0, -1.0]], [1, 1], C=100.0)
    assert_allclose(opt.w, [0.5, -1.0], atol=1e-8)  # margins exactly 1 with the smallest norm
    assert_allclose(opt.primal, 0.625, atol=1e-8)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("update", ["conservative", "aggressive", "last-k", "all"])
def test_certificate_of_theorem_1_holds(regularizer, update):
    X, y = _stream(4, 60, 5, noise=0.1)
    est = DualAscent(regularizer=regularizer, p=3.0, update=update, k=2, C=0.3)
    cert = dual_certificate(est, X, y, olearn.run(est, X, y))
    assert cert.holds
    assert cert.n_mistakes > 0 and cert.average_increase > 0
    assert cert.lower <= cert.dual <= cert.primal_at_optimum + 1e-9
    assert cert.dual <= cert.primal_at_learner + 1e-9
    assert cert.primal_at_optimum <= cert.primal_at_learner + max(cert.optimum.gap, 0.0) + 1e-9


def test_certificate_refuses_a_partial_history(make_stream):
    X, y = make_stream(20, 3)
    est = DualAscent().partial_fit(X, y)
    res = olearn.run(est, X, y)
    with pytest.raises(ValueError, match="fresh start"):
        dual_certificate(est, X, y, res)


# -- the regularizers: F and F* are conjugate ------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(theta=st.lists(st.floats(-30, 30), min_size=1, max_size=6), regularizer=st.sampled_from(REGULARIZERS))
def test_fenchel_young_equality_at_the_gradient(theta, regularizer):
    """F(g(theta)) + F*(theta) = theta . g(theta): F is the conjugate of F* (the lift of the entropy is optimal)."""
    theta = np.array(theta)
    value, w = conjugate_value(theta, regularizer, 3.0)
    assert_allclose(regularizer_value(w, regularizer, 3.0) + value, theta @ w, rtol=1e-7, atol=1e-7)


def test_entropy_regularizer_outside_the_l1_ball_is_infinite():
    assert entropy_regularizer([0.7, -0.5]) == np.inf
    assert entropy_regularizer([0.0, 0.0, 0.0]) == 0.0
    # w = 0 in 6 dimensions: the lift is uniform (c = 1/12 exactly), F = 0
    assert abs(entropy_regularizer(np.zeros(6))) < 1e-12


# -- mistake bounds ---------------------------------------------------------------------------


def _adversarial(learner, n, d, seed):
    """Labels chosen against the learner: always the class it did not predict."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.empty(n, dtype=int)
    for t in range(n):
        score = learner.decision_function(X[t : t + 1])[0] if t else 0.0
        y[t] = -1 if score > 0 else 1
        learner.learn_one(X[t], y[t])
    return X, y


STREAMS = [("random", s) for s in range(3)] + [("adversarial", s) for s in range(2)]


@pytest.mark.parametrize("kind, seed", STREAMS)
def test_winnow_mistake_bound_holds(kind, seed):
    C = 0.5
    X, y = _stream(seed, 200, 6, noise=0.05) if kind == "random" else _adversarial(Winnow(C=C), 150, 6, seed)
    res = olearn.run(Winnow(C=C), X, y)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        u = rng.standard_normal(6)
        u /= np.abs(u).sum()
        for gamma in (0.2, 0.5, 1.0):
            bound = winnow_mistake_bound(X, y, u, C=C, gamma=gamma, mistakes=res.taus > 0)
            assert res.n_mistakes <= bound
            assert bound <= winnow_mistake_bound(X, y, u, C=C, gamma=gamma)


@pytest.mark.parametrize("kind, seed", STREAMS)
@pytest.mark.parametrize("p", [2.0, 3.0, 6.0])
def test_pnorm_mistake_bounds_hold(kind, seed, p):
    X, y = _stream(seed, 200, 6) if kind == "random" else _adversarial(PNorm(p=p), 150, 6, seed)
    conservative = olearn.run(PNorm(p=p), X, y)
    aggressive = olearn.run(DualAscent(regularizer="pnorm", p=p, update="last-k", k=1, C=0.8), X, y)
    rng = np.random.default_rng(seed)
    for scale in (0.5, 2.0, 8.0):
        u = scale * rng.standard_normal(6)
        assert conservative.n_mistakes <= pnorm_mistake_bound(X, y, u, p, mistakes=conservative.taus > 0)
        assert aggressive.n_mistakes <= aggressive_pnorm_mistake_bound(X, y, u, p, C=0.8)


def test_pnorm_bound_with_p_2_is_the_perceptron_bound():
    X, y = _stream(5, 80, 4)
    mask = olearn.run(olearn.Perceptron(), X, y).taus > 0
    u = np.array([1.0, -2.0, 0.5, 3.0])
    assert_allclose(pnorm_mistake_bound(X, y, u, 2.0, mistakes=mask), perceptron_bound(X, y, u, mistakes=mask))


def test_bounds_are_tight_enough_to_mean_something():
    """On a separable stream with a wide margin the p-norm bound is a small number."""
    X = np.array([[1.0, 0.1], [-1.0, 0.2], [0.9, -0.1], [-1.1, 0.0]] * 10)
    y = np.array([1, -1, 1, -1] * 10)
    res = olearn.run(PNorm(p=3.0), X, y)
    bound = pnorm_mistake_bound(X, y, [1.5, 0.0], 3.0, mistakes=res.taus > 0)
    assert res.n_mistakes <= bound < 10
