"""Each theorem holds for olearn's actual learners, on random and adversarial streams, for many u.

The values of the bounds are checked against the papers' formulas in
test_bounds_reference.py; here the runs of the learners are set against them.
Mistakes are counted both as olearn counts them (``n_mistakes``) and as the
proofs do (rounds with y_t w_t.x_t <= 0, a superset).
"""

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from olearn import PAClassifier, Perceptron, run
from olearn.bounds import (
    bound_report,
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
)

SLACK = 1 + 1e-9
C_VALUES = st.sampled_from([0.01, 0.1, 1.0, 10.0, 100.0, math.inf])


def _margins(estimator, y, result):
    """y_t w_t.x_t in the estimator's own encoding of the labels."""
    classes = estimator.classes_
    target = np.where(y == classes[1], 1.0, -1.0) if classes.size == 2 else np.ones(y.size)
    return target * result.scores


def check_learners(X, y, us, fit_intercept, C, unit_norm=False):
    """Run every learner on (X, y) and check each of its theorems for each u."""
    kw = {"fit_intercept": fit_intercept}

    for eta in (1.0, 0.37):
        est = Perceptron(eta=eta, fit_intercept=fit_intercept)
        res = run(est, X, y)
        updated = res.taus > 0
        assert updated.sum() == np.sum(_margins(est, y, res) <= 0)
        for u in us:
            bound = perceptron_bound(X, y, u, mistakes=updated, **kw)
            assert res.n_mistakes <= updated.sum() <= bound * SLACK
            assert updated.sum() <= novikoff_bound(X, y, u, **kw) * SLACK

    pa = PAClassifier(variant="pa", fit_intercept=fit_intercept)
    res = run(pa, X, y)
    squared = np.sum(res.losses**2)
    for u in us:
        assert squared <= pa_separable_bound(X, y, u, **kw) * SLACK
        if unit_norm:
            assert squared <= pa_unit_norm_bound(X, y, u) * SLACK

    pa1 = PAClassifier(variant="pa1", C=C, fit_intercept=fit_intercept)
    res = run(pa1, X, y)
    nonpositive = np.sum(_margins(pa1, y, res) <= 0)
    for u in us:
        assert res.n_mistakes <= nonpositive <= pa1_mistake_bound(X, y, u, C=C, **kw) * SLACK

    pa2 = PAClassifier(variant="pa2", C=C, fit_intercept=fit_intercept)
    res = run(pa2, X, y)
    squared = np.sum(res.losses**2)
    for u in us:
        assert squared <= pa2_loss_bound(X, y, u, C=C, **kw) * SLACK


def _grid(n, d):
    # coarse values make exact ties (zero scores, margins of exactly 1) common
    return arrays(np.float64, (n, d), elements=st.integers(-8, 8).map(lambda k: k / 4))


@st.composite
def streams(draw, separable=False, unit_norm=False):
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 4))
    fit_intercept = False if unit_norm else draw(st.booleans())
    if draw(st.booleans()):
        X = draw(_grid(n, d))
    else:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        X = rng.normal(size=(n, d)) * draw(st.sampled_from([0.05, 1.0, 20.0]))
    if unit_norm:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = np.where(norms > 0, X / np.where(norms > 0, norms, 1.0), np.eye(1, d))
    Z = np.hstack([X, np.ones((n, 1))]) if fit_intercept else X
    if separable:
        u_star = np.array(draw(st.lists(st.integers(-4, 4), min_size=Z.shape[1], max_size=Z.shape[1])), float)
        scores = Z @ u_star
        keep = np.abs(scores) > 1e-9
        assume(keep.any())
        X, Z, scores = X[keep], Z[keep], scores[keep]
        y = np.where(scores > 0, 1, -1)
    else:
        y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    us = [np.array(v) for v in draw(
        st.lists(st.lists(st.floats(-3, 3), min_size=Z.shape[1], max_size=Z.shape[1]), min_size=1, max_size=3)
    )]
    us.append(np.zeros(Z.shape[1]))
    if separable:
        # the separator itself, scaled so that its smallest margin is exactly 1 (and a bit more)
        us += [u_star / np.min(scores * y), 1.5 * u_star / np.min(scores * y)]
    return X, y, us, fit_intercept


@settings(deadline=None, max_examples=60)
@given(stream=streams(), C=C_VALUES)
def test_bounds_hold_on_random_streams(stream, C):
    X, y, us, fit_intercept = stream
    check_learners(X, y, us, fit_intercept, C)


@settings(deadline=None, max_examples=40)
@given(stream=streams(separable=True), C=C_VALUES)
def test_bounds_hold_on_separable_streams(stream, C):
    X, y, us, fit_intercept = stream
    check_learners(X, y, us, fit_intercept, C)


@settings(deadline=None, max_examples=40)
@given(stream=streams(unit_norm=True), C=C_VALUES)
def test_bounds_hold_on_unit_norm_streams(stream, C):
    X, y, us, fit_intercept = stream
    check_learners(X, y, us, fit_intercept, C, unit_norm=True)


def adversarial_stream(make_estimator, pool_X, pool_y, n_rounds):
    """Build a stream against a learner: each round, show it the pool example it likes least.

    The learner sees the examples one by one (learn_one); each next example is
    the one with the smallest margin y w.x under its current weights, so it
    errs whenever it can. The result is an ordinary fixed stream, on which a
    fresh learner then runs.
    """
    est = make_estimator()
    est.partial_fit(pool_X[:0], pool_y[:0], classes=[-1, 1])
    order = []
    for _ in range(n_rounds):
        i = int(np.argmin(pool_y * est.decision_function(pool_X)))
        est.learn_one(pool_X[i], pool_y[i])
        order.append(i)
    return pool_X[order], pool_y[order]


@settings(deadline=None, max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(2, 4),
    gamma=st.sampled_from([0.01, 0.1, 0.5]),
    C=C_VALUES,
    fit_intercept=st.booleans(),
)
def test_bounds_hold_against_an_adaptive_adversary(seed, d, gamma, C, fit_intercept):
    """Separable pools with a small margin gamma, and the same pools with flipped labels."""
    rng = np.random.default_rng(seed)
    u_star = rng.normal(size=d)
    u_star /= np.linalg.norm(u_star)
    pool = rng.normal(size=(60, d))
    scores = pool @ u_star
    pool, scores = pool[np.abs(scores) >= gamma][:12], scores[np.abs(scores) >= gamma][:12]
    assume(pool.shape[0] >= 2)
    pool_y = np.where(scores > 0, 1, -1)
    Z = np.hstack([pool, np.ones((pool.shape[0], 1))]) if fit_intercept else pool
    u_sep = np.append(u_star, 0.0) if fit_intercept else u_star
    us = [u_sep / np.min(pool_y * (Z @ u_sep)), rng.normal(size=Z.shape[1]), np.zeros(Z.shape[1])]
    noisy_y = pool_y.copy()
    noisy_y[rng.random(pool_y.size) < 0.2] *= -1

    makers = [
        lambda: Perceptron(fit_intercept=fit_intercept),
        lambda: PAClassifier(variant="pa", fit_intercept=fit_intercept),
        lambda: PAClassifier(variant="pa1", C=C, fit_intercept=fit_intercept),
        lambda: PAClassifier(variant="pa2", C=C, fit_intercept=fit_intercept),
    ]
    for labels in (pool_y, noisy_y):
        for make in makers:
            X, y = adversarial_stream(make, pool, labels, n_rounds=50)
            check_learners(X, y, us, fit_intercept, C)


def test_the_adversary_makes_the_perceptron_err_on_every_round_until_it_converges():
    """The adversarial streams are adversarial, so the checks above are not vacuous."""
    rng = np.random.default_rng(7)
    u_star = np.array([1.0, 1.0]) / math.sqrt(2)
    pool = rng.normal(size=(200, 2))
    scores = pool @ u_star
    pool, scores = pool[np.abs(scores) >= 0.05][:30], scores[np.abs(scores) >= 0.05][:30]
    y = np.where(scores > 0, 1, -1)
    X, y_adv = adversarial_stream(Perceptron, pool, y, n_rounds=300)
    res = run(Perceptron(), X, y_adv)
    erred = np.diff(res.cumulative_mistakes, prepend=0).astype(bool) | (res.taus > 0)
    last = int(np.flatnonzero(erred)[-1])
    assert last >= 5 and erred[: last + 1].all()
    assert np.sum(res.taus > 0) <= novikoff_bound(X, y_adv, u_star)


@settings(deadline=None, max_examples=15)
@given(stream=streams(), C=st.sampled_from([0.1, 1.0, 10.0]))
def test_report_rows_hold_with_the_default_competitor(stream, C):
    X, y, _, fit_intercept = stream
    for est in (
        Perceptron(fit_intercept=fit_intercept),
        PAClassifier(variant="pa", fit_intercept=fit_intercept),
        PAClassifier(variant="pa1", C=C, fit_intercept=fit_intercept),
        PAClassifier(variant="pa2", C=C, fit_intercept=fit_intercept),
    ):
        report = bound_report(est, X, y, run(est, X, y))
        assert report.all_hold, str(report)
