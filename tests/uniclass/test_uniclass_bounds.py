"""The loss bounds of Sec. 6 hold for PAUniclass on random and adversarial streams."""

import math

import mpmath
import numpy as np
import pytest

import olearn
from olearn.bounds._uniclass_multilabel import (
    uniclass_pa1_bound,
    uniclass_pa2_bound,
    uniclass_pa_bound,
)
from olearn.uniclass import PAUniclass


def _ball_stream(n, d, center, radius, seed, outliers=0.0):
    """Vectors within ``radius`` of ``center``; a fraction ``outliers`` of them thrown far away."""
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    Y = center + radius * rng.random((n, 1)) * directions
    far = rng.random(n) < outliers
    Y[far] += 5 * radius * directions[far]
    return Y


def _adversary(est, center, radius, n):
    """Each vector on u's ball, at the point farthest from the learner's current center."""
    Y = []
    for _ in range(n):
        w = est.predict_one() if est.predict_one() is not None else np.zeros(center.size)
        away = center - w
        if np.linalg.norm(away) < 1e-12:  # the learner sits on u: every point of the sphere is as far
            away = np.eye(center.size)[len(Y) % center.size]
        y = center + radius * away / np.linalg.norm(away)
        est.learn_one(y)
        Y.append(y)
    return np.array(Y)


def _measured(res, variant):
    if variant == "pa1":
        return float((res.taus * res.losses).sum())
    return float((res.losses**2).sum())


def _bound(variant, Y, u, epsilon, C, B=None):
    if variant == "pa":
        return uniclass_pa_bound(Y, u, epsilon, B=B)
    if variant == "pa1":
        return uniclass_pa1_bound(Y, u, epsilon, C, B=B)
    return uniclass_pa2_bound(Y, u, epsilon, C, B=B)


CASES = [("pa", float("inf")), ("pa1", 0.3), ("pa1", 3.0), ("pa2", 0.2), ("pa2", 5.0)]


@pytest.mark.parametrize("variant,C", CASES)
@pytest.mark.parametrize("outliers", [0.0, 0.2], ids=["realizable", "outliers"])
@pytest.mark.parametrize("seed", range(3))
def test_bounds_hold_on_random_streams(variant, C, outliers, seed):
    rng = np.random.default_rng(100 + seed)
    u = rng.normal(0, 3, size=4)
    Y = _ball_stream(200, 4, u, 0.7, seed, outliers)
    res = olearn.run(PAUniclass(variant=variant, C=C, epsilon=0.7), Y)
    assert _measured(res, variant) <= _bound(variant, Y, u, 0.7, C) * (1 + 1e-9)
    learned = olearn.run(PAUniclass(variant=variant, C=C, learn_radius=True, B=2.0), Y)
    assert _measured(learned, variant) <= _bound(variant, Y, u, 0.7, C, B=2.0) * (1 + 1e-9)


@pytest.mark.parametrize("variant,C", CASES)
@pytest.mark.parametrize("learn_radius", [False, True], ids=["fixed", "learned"])
def test_bounds_hold_against_an_adaptive_adversary(variant, C, learn_radius):
    u = np.array([4.0, -3.0, 2.0])
    est = PAUniclass(variant=variant, C=C, epsilon=0.5, learn_radius=learn_radius, B=1.5)
    Y = _adversary(est, u, 0.5, 150)
    res = olearn.run(PAUniclass(**est.get_params()), Y)
    B = 1.5 if learn_radius else None
    bound = _bound(variant, Y, u, 0.5, C, B=B)
    assert 0 < _measured(res, variant) <= bound * (1 + 1e-9)


def test_the_realizable_bound_is_attained():
    """One vector 5 away from w_1 = 0, epsilon 0: PA's loss is 5 and the bound ||u||^2 = 25 is met."""
    res = olearn.run(PAUniclass(variant="pa", epsilon=0.0), np.array([[3.0, 4.0]]))
    assert float((res.losses**2).sum()) == 25.0 == uniclass_pa_bound([[3.0, 4.0]], [3.0, 4.0], 0.0)


def test_bound_inputs_are_checked():
    with pytest.raises(ValueError, match="u must be a vector of 2"):
        uniclass_pa_bound([[1.0, 2.0]], [1.0], 0.1)
    with pytest.raises(ValueError, match="exceeds the bound B"):
        uniclass_pa_bound([[1.0, 2.0]], [1.0, 2.0], 3.0, B=2.0)
    with pytest.raises(ValueError, match="epsilon"):
        uniclass_pa_bound([[1.0, 2.0]], [1.0, 2.0], -1.0)
    with pytest.raises(ValueError, match="C must be"):
        uniclass_pa1_bound([[1.0, 2.0]], [1.0, 2.0], 0.1, C=0)
    with pytest.raises(ValueError, match="no rows"):
        uniclass_pa2_bound(np.empty((0, 2)), [1.0, 2.0], 0.1, C=1.0)


@pytest.mark.parametrize("variant, C", [("pa", 1.0), ("pa1", 0.2), ("pa2", 0.5)])
def test_learned_radius_bounds_hold_with_the_default_B(variant, C):
    """Sec. 6's B, far above any radius (the default 1e6): the lifted losses are O(1/B) and must keep their
    digits, in the learner and in the bound, for the comparison to mean anything."""
    rng = np.random.default_rng(8)
    Y = rng.normal(loc=1.0, size=(40, 3))
    learner = PAUniclass(variant=variant, C=C, learn_radius=True)
    learned = olearn.run(learner, Y)
    assert learned.losses.max() > 1e-7  # lifted losses ~ d^2 / (2B): small but not lost
    for u, epsilon in ((np.ones(3), 1.5), (np.zeros(3), 3.0), (Y.mean(axis=0), 2.0)):
        bound = _bound(variant, Y, u, epsilon, C, B=learner.B)
        # the lifted loss of the competitor, written out: sqrt(||u - y||^2 + B^2 - eps^2) - B, in 50 digits
        with mpmath.workdps(50):
            B = mpmath.mpf(learner.B)
            exact = [max(0, mpmath.sqrt(mpmath.mpf(float(np.sum((u - y) ** 2))) + B**2 - epsilon**2) - B) for y in Y]
            start = (B - mpmath.sqrt(B**2 - epsilon**2)) ** 2
            u2 = float(u @ u) + float(start)
            sq = float(sum(x * x for x in exact))
            lin = float(sum(exact))
        expected = {"pa": (math.sqrt(u2) + 2 * math.sqrt(sq)) ** 2,
                    "pa1": u2 + 2 * C * lin,
                    "pa2": (1.0 + 1.0 / (2 * C)) * (u2 + 2 * C * sq)}[variant]
        assert bound == pytest.approx(expected, rel=1e-9)
        assert _measured(learned, variant) <= bound * (1 + 1e-9)
