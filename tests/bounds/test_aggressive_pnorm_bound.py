"""Orabona & Crammer (2010), Eq. (4): the aggressive p-norm algorithm's mistake bound."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import olearn
from olearn.bounds import aggressive_pnorm_bound
from olearn.quasi_additive import PNorm


def _random_stream(seed, n=250, d=6, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.2, 2.0, d)
    w = rng.normal(size=d)
    y = np.where(X @ w > 0, 1, -1)
    y[rng.random(n) < noise] *= -1
    return X, y, w


def _adversarial_stream(est, seed, n=150, d=6):
    """Against the prediction on even rounds (mistakes), with it on odd ones (margin errors when close).

    Rows are scaled to ||x||_p <= R, Eq. (4)'s premise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X = X / np.maximum(1.0, np.linalg.norm(X, ord=est.p, axis=1) / est.R)[:, None]
    y = np.empty(n, dtype=int)
    for t, x in enumerate(X):
        score = est.decision_function(x[None])[0] if t else 0.0
        side = 1 if score > 0 else -1
        y[t] = -side if t % 2 == 0 else side
        est.partial_fit(x[None], [y[t]], classes=[-1, 1])
    return X, y


def _competitors(X, y, w, seed):
    rng = np.random.default_rng(seed)
    least_squares = np.linalg.lstsq(X, y, rcond=None)[0]
    return [w, 5 * w / np.linalg.norm(w), least_squares, 4 * least_squares, rng.normal(size=X.shape[1]),
            np.zeros(X.shape[1])]


def _check(X, y, p, R, competitors):
    res = olearn.run(PNorm(p=p, aggressive=True, R=R), X, y)
    assert res.n_mistakes > 0
    for u in competitors:
        assert res.n_mistakes <= aggressive_pnorm_bound(X, y, u, p, R, res.taus, res.scores) + 1e-9


@pytest.mark.parametrize("p", [2.0, 3.0, 6.0])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("slack", [1.0, 2.0])
def test_bound_holds_on_random_streams(p, seed, slack):
    X, y, w = _random_stream(seed)
    R = slack * np.linalg.norm(X, ord=p, axis=1).max()
    _check(X, y, p, R, _competitors(X, y, w, seed))


@pytest.mark.parametrize("p", [2.0, 4.0])
def test_bound_holds_on_adversarial_streams(p):
    rng = np.random.default_rng(5)
    R = 4.5
    X, y = _adversarial_stream(PNorm(p=p, aggressive=True, R=R), seed=5)
    res = olearn.run(PNorm(p=p, aggressive=True, R=R), X, y)
    assert ((y * res.scores > 0) & (res.taus > 0)).any()  # margin errors as well as mistakes
    _check(X, y, p, R, _competitors(X, y, rng.normal(size=X.shape[1]), 5))


def test_bound_by_hand_on_three_rounds():
    """p = 2, R = 1.2. Round 1: w = 0, a mistake, eta = 1, w = (1, 0). Round 2: margin 1/2,
    ||x||^2 = 1/2, eta = (0.72 - 0.5) / 0.5 = 0.44, w = (1.22, 0.22). Round 3: margin -0.22, eta = 1.
    u = (2, -2): losses (0, 1, 0), L = 0.44; D = (0.44^2/2 + 0.44)/1.44 - 0.44; ||u||^2 = 8, q - 1 = 1."""
    X, y = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]), np.array([1, 1, -1])
    res = olearn.run(PNorm(p=2.0, aggressive=True, R=1.2), X, y)
    assert_allclose(res.taus, [1.0, 0.44, 1.0], rtol=1e-14)
    D = (0.44**2 * 0.5 + 2 * 0.44 * 0.5) / 1.44 - 0.44
    expected = 0.44 + 8 * 1.44 / 2 + math.sqrt(8) * 1.2 * math.sqrt(8 * 1.44 / 4 + 0.44 + D) - 0.44
    assert_allclose(aggressive_pnorm_bound(X, y, [2.0, -2.0], 2.0, 1.2, res.taus, res.scores), expected, rtol=1e-13)


def test_bound_by_numpy_transcription_p3():
    """Eq. (4) for p = 3 written out term by term from the text, against the function."""
    X, y, _ = _random_stream(9, n=40, d=3)
    p, R = 3.0, 1.1 * np.linalg.norm(X, ord=3, axis=1).max()
    res = olearn.run(PNorm(p=p, aggressive=True, R=R), X, y)
    u = np.array([0.5, -1.0, 2.0])
    q = 1.5
    margins = y * res.scores
    L = sum(eta * max(0.0, 1 - yt * (u @ x)) for eta, yt, x in zip(res.taus, y, X))
    U = [t for t in range(40) if res.taus[t] > 0 and margins[t] > 0]
    D = sum((res.taus[t] ** 2 * np.linalg.norm(X[t], 3) ** 2 + 2 * res.taus[t] * margins[t]) / R**2 - res.taus[t]
            for t in U)
    uq = np.linalg.norm(u, q)
    expected = (L + uq**2 * R**2 / (2 * (q - 1)) + uq / np.sqrt(q - 1) * R * np.sqrt(uq**2 * R**2 / (4 * (q - 1)) + L + D)
                - sum(res.taus[t] for t in U))
    assert len(U) > 0
    assert_allclose(aggressive_pnorm_bound(X, y, u, p, R, res.taus, res.scores), expected, rtol=1e-12)


def test_a_mistake_longer_than_r_is_refused():
    X, y = np.array([[3.0, 0.0]]), np.array([1])
    res = olearn.run(PNorm(p=2.0, aggressive=True, R=1.0), X, y)
    with pytest.raises(ValueError, match="row 0 is a mistake"):
        aggressive_pnorm_bound(X, y, [1.0, 0.0], 2.0, 1.0, res.taus, res.scores)


def test_per_round_arrays_must_match_the_rows():
    X, y = np.eye(2), np.array([1, -1])
    with pytest.raises(ValueError, match="taus must have one value per row"):
        aggressive_pnorm_bound(X, y, [1.0, 0.0], 2.0, 1.0, [1.0], [0.0, 0.0])


def test_steps_other_than_the_texts_on_a_mistake_are_refused():
    """Eq. (4) needs eta_t = 1 on every round with y w.x <= 0. The dual-ascent p-norm steps min(C, ...) there:
    with C = 0.05 its 24 mistakes sit above the value Eq. (4) gives for u = 0 (the sum of those small steps),
    so the function must refuse those steps rather than return a bound that does not hold."""
    rng = np.random.default_rng(17)
    X, w = rng.normal(size=(200, 5)), rng.normal(size=5)
    y = np.where(X @ w > 0, 1, -1)
    y[rng.random(200) < 0.1] *= -1
    res = olearn.run(olearn.dual.DualAscent(regularizer="pnorm", p=2.0, update="aggressive", C=0.05), X, y)
    first = int(np.flatnonzero(y * res.scores <= 0)[0])
    R = np.linalg.norm(X, axis=1).max()
    with pytest.raises(ValueError, match=rf"row {first} is a mistake with eta = 0\.05"):
        aggressive_pnorm_bound(X, y, np.zeros(5), 2.0, R, res.taus, res.scores)


def test_a_negative_step_is_refused():
    X, y = np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([1, 1])
    with pytest.raises(ValueError, match=r"taus\[1\] = -0\.5 is negative"):
        aggressive_pnorm_bound(X, y, [1.0, 0.0], 2.0, 1.0, [1.0, -0.5], [0.0, 0.5])
