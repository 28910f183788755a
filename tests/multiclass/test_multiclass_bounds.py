"""The loss bounds of Sec. 7-8 hold on random, noisy and adversarial multiclass streams, for many competitors U."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import olearn
import olearn.multiclass as mc
from olearn.bounds._multiclass import (
    cost_sensitive_bound,
    multiclass_pa1_mistake_bound,
    multiclass_pa2_loss_bound,
    multiclass_pa_bound,
)

K, D = 4, 5
ALL = list(range(K))


def separable_stream(n, seed, margin=0.3):
    """Rows whose true prototype beats every other by at least ``margin``; returns (X, y, prototypes)."""
    rng = np.random.default_rng(seed)
    P = rng.standard_normal((K, D))
    X = rng.standard_normal((4 * n, D)) / np.sqrt(D)
    scores = X @ P.T
    top = np.sort(scores, axis=1)
    keep = top[:, -1] - top[:, -2] >= margin
    X = X[keep][:n]
    return X, np.argmax(X @ P.T, axis=1), P


def noisy_stream(n, seed):
    X, y, P = separable_stream(n, seed, margin=0.0)
    rng = np.random.default_rng(seed + 100)
    flip = rng.random(y.size) < 0.2
    y[flip] = rng.integers(0, K, flip.sum())
    return X, y, P


def adversarial_stream(est, n, seed):
    """Each label is the class the learner scores lowest on that row (a new class while some are unseen)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D)) / np.sqrt(D)
    y = []
    for x in X:
        known = list(getattr(est, "classes_", []))
        if len(known) < K:
            label = len(known)
        else:
            label = known[int(np.argmin(est.decision_function(x[None, :])[0]))]
        est.learn_one(x, label)
        y.append(label)
    return X, np.array(y)


def competitors(X, y, P):
    """Several U: zero, scaled generating prototypes, a batch-trained PA model (scaled)."""
    trained = mc.PAMulticlass(variant="pa")
    for _ in range(5):
        trained.partial_fit(X, y, classes=range(K))
    us = [np.zeros((K, D))]
    for scale in (0.5, 2.0, 8.0):
        us.append(scale * P)
        us.append(scale * trained.coef_)
    return us


def streams():
    for seed in range(3):
        yield separable_stream(80, seed)
        yield noisy_stream(80, seed)


def test_pa_separable_bound():
    for X, y, P in [separable_stream(80, seed, margin=0.3) for seed in range(3)]:
        res = olearn.run(mc.PAMulticlass(variant="pa"), X, y)
        gap = np.sort(X @ P.T, axis=1)
        U = 1.001 * P / (gap[:, -1] - gap[:, -2]).min()  # margin > 1 on every round
        bound = multiclass_pa_bound(X, y, U, classes=ALL)
        assert np.isfinite(bound)
        assert (res.losses**2).sum() <= bound
        assert multiclass_pa_bound(X, y, 1e-3 * P, classes=ALL) == np.inf


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
def test_pa1_mistake_and_pa2_loss_bounds(C):
    for X, y, P in streams():
        res1 = olearn.run(mc.PAMulticlass(variant="pa1", C=C), X, y)
        res2 = olearn.run(mc.PAMulticlass(variant="pa2", C=C), X, y)
        for U in competitors(X, y, P):
            assert res1.n_mistakes <= multiclass_pa1_mistake_bound(X, y, U, C, classes=ALL)
            assert (res2.losses**2).sum() <= multiclass_pa2_loss_bound(X, y, U, C, classes=ALL)


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_bounds_hold_on_adversarial_streams(C):
    for seed in range(3):
        X, y = adversarial_stream(mc.PAMulticlass(variant="pa1", C=C), 60, seed)
        res1 = olearn.run(mc.PAMulticlass(variant="pa1", C=C), X, y)
        assert res1.n_mistakes >= 50  # the adversary wins almost every round
        X2, y2 = adversarial_stream(mc.PAMulticlass(variant="pa2", C=C), 60, seed)
        res2 = olearn.run(mc.PAMulticlass(variant="pa2", C=C), X2, y2)
        rng = np.random.default_rng(seed)
        for U in [np.zeros((K, D)), rng.standard_normal((K, D)), 3 * rng.standard_normal((K, D))]:
            assert res1.n_mistakes <= multiclass_pa1_mistake_bound(X, y, U, C, classes=ALL)
            assert (res2.losses**2).sum() <= multiclass_pa2_loss_bound(X2, y2, U, C, classes=ALL)


def graded_cost(true, pred):
    return float(abs(true - pred)) ** 1.5


def total_cost(res, y):
    """The cost of run's predictions; a round with no class known yet (all its scores -inf) costs the most."""
    worst = max(graded_cost(a, b) for a in range(K) for b in range(K))
    none = np.isneginf(res.scores).all(axis=1)
    return sum(worst if n else graded_cost(t, p) for p, t, n in zip(res.predictions, y, none))


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
@pytest.mark.parametrize(("variant", "C"), [("pa1", 0.1), ("pa1", 3.0), ("pa2", 0.1), ("pa2", 3.0)])
def test_cost_sensitive_bounds(update, variant, C):
    for X, y, P in streams():
        est = mc.PACostSensitive(variant=variant, C=C, cost=graded_cost, update=update)
        res = olearn.run(est, X, y)
        for U in competitors(X, y, P):
            assert total_cost(res, y) <= cost_sensitive_bound(X, y, U, graded_cost, variant, C, classes=ALL)


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_cost_sensitive_pa_bound_when_U_pays_no_max_loss(update):
    X, y, P = separable_stream(80, 5, margin=0.3)
    gap = np.sort(X @ P.T, axis=1)
    U = 1.001 * P * np.sqrt(graded_cost(0, K - 1)) / (gap[:, -1] - gap[:, -2]).min()
    matrix = [[graded_cost(a, b) for b in range(K)] for a in range(K)]
    est = mc.PACostSensitive(variant="pa", cost=matrix, update=update).partial_fit(X[:0], y[:0], classes=ALL)
    res = olearn.run(est, X, y)
    bound = cost_sensitive_bound(X, y, U, matrix, "pa", classes=ALL)
    assert np.isfinite(bound) and total_cost(res, y) <= bound


@pytest.mark.parametrize(("C", "factor"), [(2.0, 0.32), (0.5, 1.0), (0.625, 0.8)])
def test_cost_sensitive_pa1_bound_is_thm10_times_the_factor(C, factor):
    """Thm. 10 (R <= 1, sqrt(rho) <= C): cost <= ||U||^2 + 2C sum l_ML(U). By hand: x1 = (0.3, 0), y1 = 0;
    x2 = (0, 0.4), y2 = 1; rho = 0.25 off the diagonal (sqrt 0.5); U = I: l_ML = [-0.3 + 0.5]_+ = 0.2 and
    [-0.4 + 0.5]_+ = 0.1, ||U||^2 = 2, so Thm. 10 is 2 + 0.6 C. R^2 = 2 * 0.4^2 = 0.32, and the value is
    max(0.32, 0.5 / C) times that: 0.32 of Thm. 10 at C = 2, all of it at C = 0.5."""
    X, y, U = np.array([[0.3, 0.0], [0.0, 0.4]]), [0, 1], np.eye(2)
    cost = [[0.0, 0.25], [0.25, 0.0]]
    thm10 = 2.0 + 2.0 * C * 0.3
    value = cost_sensitive_bound(X, y, U, cost, "pa1", C, classes_known=True)
    assert value / thm10 == pytest.approx(factor, rel=1e-12)
    assert value <= thm10 * (1 + 1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), C=st.floats(0.01, 50.0), noise=st.floats(0.0, 0.6))
def test_pa1_bound_property(seed, C, noise):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, D)) * rng.uniform(0.1, 3.0)
    P = rng.standard_normal((K, D))
    y = np.argmax(X @ P.T, axis=1)
    flip = rng.random(40) < noise
    y[flip] = rng.integers(0, K, flip.sum())
    res = olearn.run(mc.PAMulticlass(variant="pa1", C=C, fit_intercept=True), X, y)
    U = np.hstack([rng.standard_normal((K, D)), rng.standard_normal((K, 1))]) * rng.uniform(0, 3)
    present = np.unique(y)
    assert res.n_mistakes <= multiclass_pa1_mistake_bound(X, y, U[present], C, fit_intercept=True)


def test_bound_inputs_are_checked():
    X = np.eye(2)
    with pytest.raises(ValueError, match="shape"):
        multiclass_pa_bound(X, [0, 1], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="C must be"):
        multiclass_pa1_mistake_bound(X, [0, 1], np.zeros((2, 2)), C=0)
    with pytest.raises(ValueError, match="not one of"):
        multiclass_pa_bound(X, [0, 5], np.zeros((2, 2)), classes=[0, 1])
    with pytest.raises(ValueError, match="diagonal"):
        cost_sensitive_bound(X, [0, 1], np.zeros((2, 2)), [[1.0, 1.0], [1.0, 0.0]])
