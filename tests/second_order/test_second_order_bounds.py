"""The mistake bounds of AROW, NAROW and the Second-Order Perceptron hold on random and adversarial streams."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

import olearn
from olearn.bounds._second_order import (
    arow_mistake_bound,
    narow_mistake_bound,
    sop_mistake_bound,
)
from olearn.second_order import AROW, NAROW, SecondOrderPerceptron


def _random_stream(seed, n=300, d=5, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, d)
    w = rng.normal(size=d)
    y = np.where(X @ w > 0, 1, -1)
    y[rng.random(n) < noise] *= -1
    return X, y, w


def _adversarial_stream(est, seed, n=150, d=5):
    """Labels against the learner's own prediction: every round is a mistake."""
    X = np.random.default_rng(seed).normal(size=(n, d))
    y = np.empty(n, dtype=int)
    for t, x in enumerate(X):
        score = est.decision_function(x[None])[0] if t else 0.0
        y[t] = -1 if score > 0 else 1
        est.partial_fit(x[None], [y[t]], classes=[-1, 1])
    return X, y


def _competitors(X, y, w, seed):
    rng = np.random.default_rng(seed)
    least_squares = np.linalg.lstsq(X, y, rcond=None)[0]
    return [w, 3.0 * w / np.linalg.norm(w), least_squares, 10.0 * least_squares, rng.normal(size=X.shape[1]),
            np.zeros(X.shape[1])]


LEARNERS = {
    "AROW": (lambda p: AROW(r=p), lambda X, y, u, p, up, mi: arow_mistake_bound(X, y, u, p, up, mi)),
    "NAROW": (lambda p: NAROW(b=p), lambda X, y, u, p, up, mi: narow_mistake_bound(X, y, u, p, up, mi)),
    "SOP": (lambda p: SecondOrderPerceptron(a=p), lambda X, y, u, p, up, mi: sop_mistake_bound(X, y, u, p, mi)),
}


def _check(name, param, X, y, competitors, est=None):
    make, bound = LEARNERS[name]
    res = olearn.run(make(param), X, y)
    mistaken = np.diff(res.cumulative_mistakes, prepend=0) > 0
    updated = res.taus != 0
    assert res.n_mistakes > 0
    for u in competitors:
        assert res.n_mistakes <= bound(X, y, u, param, updated, mistaken) + 1e-9


@pytest.mark.parametrize("param", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("name", list(LEARNERS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bound_holds_on_random_streams(name, param, seed):
    X, y, w = _random_stream(seed)
    _check(name, param, X, y, _competitors(X, y, w, seed))


@pytest.mark.parametrize("param", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("name", list(LEARNERS))
def test_bound_holds_on_adversarial_streams(name, param):
    X, y = _adversarial_stream(LEARNERS[name][0](param), seed=7)
    w = np.linalg.lstsq(X, y, rcond=None)[0]
    _check(name, param, X, y, _competitors(X, y, w, 3))


def test_sop_bound_closed_form_by_hand():
    """One mistake on x = (1, 0), a = 1, u = (2, 0): l* = 0, sqrt((1*4 + 4) * ln 2)."""
    X, y = np.array([[1.0, 0.0]]), np.array([1])
    assert_allclose(sop_mistake_bound(X, y, [2.0, 0.0], 1.0, [True]), np.sqrt(8.0 * np.log(2.0)))


def test_bounds_say_something_on_a_separable_stream():
    """u with margin >= 1 everywhere has no loss; each bound is then far below the number of rounds."""
    X, y, w = _random_stream(4, n=4000, d=3, noise=0.0)
    keep = np.abs(X @ w) > 0.5 * np.linalg.norm(w)  # a margin
    X, y = X[keep], y[keep]
    u = w / np.min(np.abs(X @ w))
    for make, bound in LEARNERS.values():
        res = olearn.run(make(1.0), X, y)
        mistaken = np.diff(res.cumulative_mistakes, prepend=0) > 0
        value = bound(X, y, u, 1.0, res.taus != 0, mistaken)
        assert res.n_mistakes <= value < X.shape[0] / 2


def test_flags_must_match_the_rows():
    X, y = np.eye(3), np.array([1, -1, 1])
    with pytest.raises(ValueError, match="updated must have one flag per row"):
        arow_mistake_bound(X, y, np.zeros(3), 1.0, [True, False], [True, False, False])
