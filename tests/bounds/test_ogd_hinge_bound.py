"""The UCL slides' OGD-with-hinge-loss regret bound, Eq. (6), against runs of OGDClassifier."""

import math

import numpy as np
import pytest

import olearn
from olearn.bounds import ogd_hinge_regret_bound


def _hinge(margins):
    return np.maximum(0.0, 1.0 - margins)


def test_by_hand():
    X = np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 0.0]])  # R = 5, m = 3
    assert ogd_hinge_regret_bound(X, [1, -1, 1], U=2.0) == pytest.approx(math.sqrt(4 * 25 * 3), rel=1e-15)
    assert ogd_hinge_regret_bound(X, [1, -1, 1], U=2.0, eta=0.5) == pytest.approx(4 / 1 + 0.25 * 3 * 25, rel=1e-15)
    # the theorem's step makes both forms equal
    eta = 2.0 / (5.0 * math.sqrt(3))
    assert ogd_hinge_regret_bound(X, [1, -1, 1], U=2.0, eta=eta) == pytest.approx(
        ogd_hinge_regret_bound(X, [1, -1, 1], U=2.0), rel=1e-14)


def _ogd_transcription(X, y, eta):
    """The slides' OGD algorithm: w_1 = 0, w_{t+1} = w_t + 1{y_t w_t.x_t < 1} eta y_t x_t."""
    w = np.zeros(X.shape[1])
    losses = []
    for x, label in zip(X, y):
        margin = label * (w @ x)
        losses.append(max(0.0, 1.0 - margin))
        if margin < 1:
            w = w + eta * label * x
    return np.array(losses), w



def test_a_margin_of_exactly_one_takes_the_zero_subgradient():
    """The slides' update fires on y w.x < 1; at exactly 1 "we may choose either", olearn the zero subgradient.

    eta = 1, x = (1, 0), y = +1 three times, then x = (1/2, 0): round 1 (margin 0) gives w = (1, 0); rounds 2-3
    (margin exactly 1) leave it; round 4 (margin 1/2) gives w = (3/2, 0).
    """
    X = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.5, 0.0]])
    y = np.ones(4, dtype=int)
    est = olearn.OGDClassifier(loss="hinge", schedule="constant", eta=1.0)
    res = olearn.run(est, X, y)
    np.testing.assert_array_equal(res.losses, [1.0, 0.0, 0.0, 0.5])
    np.testing.assert_array_equal(est.coef_.ravel(), [1.5, 0.0])

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("U", [0.5, 3.0])
def test_regret_stays_under_eq_6(seed, U):
    rng = np.random.default_rng(seed)
    m, d = 300, 5
    X = rng.standard_normal((m, d)) * rng.uniform(0.2, 3.0)
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(m) > 0, 1, -1)
    R = np.linalg.norm(X, axis=1).max()
    eta = U / (R * math.sqrt(m))
    est = olearn.OGDClassifier(loss="hinge", schedule="constant", eta=eta)
    res = olearn.run(est, X, y)
    losses, w = _ogd_transcription(X, y, eta)
    np.testing.assert_allclose(res.losses, losses, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.coef_.ravel(), w, rtol=1e-12, atol=1e-12)
    bound = ogd_hinge_regret_bound(X, y, U)
    for _ in range(20):
        u = rng.standard_normal(d)
        u *= U * rng.uniform(0, 1) / np.linalg.norm(u)
        assert losses.sum() - _hinge(y * (X @ u)).sum() <= bound


def test_bad_U_and_eta_are_refused():
    for U in (0.0, -1.0, math.inf, "1", True):
        with pytest.raises(ValueError, match="U must be"):
            ogd_hinge_regret_bound([[1.0]], [1], U=U)
    with pytest.raises(ValueError, match="eta must be"):
        ogd_hinge_regret_bound([[1.0]], [1], U=1.0, eta=0.0)
