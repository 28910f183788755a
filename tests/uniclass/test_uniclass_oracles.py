"""PAUniclass against the NumPy transcription of Sec. 6, hand-derived values and the paper's invariants."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oracles.uniclass import pa_uniclass, pa_uniclass_learned_radius, pa_uniclass_learned_radius_exact

import olearn
from olearn.uniclass import PAUniclass

VARIANTS = [("pa", 1.0), ("pa1", 0.3), ("pa1", 5.0), ("pa2", 0.5), ("pa2", float("inf"))]
LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix, "csc": sp.csc_matrix}


def _stream(n=60, d=5, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    Y = rng.normal(loc=2.0, scale=1.0, size=(n, d))
    if sparse:
        Y *= rng.random((n, d)) < 0.4
    return Y


def _oracle(Y, variant, C, epsilon=0.3, learn_radius=False, B=1.5):
    if learn_radius:
        return pa_uniclass_learned_radius(Y, variant, C, B)
    return pa_uniclass(Y, variant, C, epsilon)


@pytest.mark.parametrize("variant,C", VARIANTS)
@pytest.mark.parametrize("learn_radius", [False, True], ids=["fixed", "learned"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_run_matches_the_oracle(variant, C, learn_radius, layout):
    Y = _stream(sparse=layout != "dense")
    trace = _oracle(Y, variant, C, learn_radius=learn_radius)
    est = PAUniclass(variant=variant, C=C, epsilon=0.3, learn_radius=learn_radius, B=1.5)
    res = olearn.run(est, LAYOUTS[layout](Y))
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, trace.margins, rtol=1e-10, atol=1e-12)
    assert_allclose(est.center_, trace.center, rtol=1e-10, atol=1e-12)
    assert est.radius_ == pytest.approx(trace.radius, rel=1e-12, abs=1e-12)
    assert res.n_mistakes == int((trace.losses > 0).sum())
    assert_array_equal(res.predictions, np.where(trace.losses > 0, -1, 1))


@pytest.mark.parametrize("learn_radius", [False, True], ids=["fixed", "learned"])
def test_learn_one_partial_fit_and_run_agree(learn_radius):
    Y = _stream(seed=3, sparse=True)
    params = {"variant": "pa1", "C": 0.7, "epsilon": 0.2, "learn_radius": learn_radius, "B": 2.0}
    batch = PAUniclass(**params).partial_fit(Y[:25]).partial_fit(sp.csr_matrix(Y[25:]))
    olearn.run(ran := PAUniclass(**params), Y)
    ones = PAUniclass(**params, n_features=Y.shape[1])
    for i, y in enumerate(Y):
        row = {j: v for j, v in enumerate(y) if v != 0} if i % 3 == 0 else (y if i % 3 == 1 else sp.csr_matrix(y))
        ones.learn_one(row)
    for other in (ran, ones):
        assert_array_equal(other.center_, batch.center_)
        assert other.radius_ == batch.radius_


def test_hand_derived_rounds():
    """PA, epsilon = 1: y = (3, 4) is 5 away, loss 4, the center moves 4 along (0.6, 0.8)."""
    est = PAUniclass(variant="pa", epsilon=1.0)
    res = olearn.run(est, np.array([[3.0, 4.0], [2.4, 3.7], [2.4, 6.2]]))
    assert_allclose(res.losses, [4.0, 0.0, 2.0])
    assert_allclose(res.taus, [4.0, 0.0, 2.0])
    assert_allclose(est.center_, [2.4, 5.2])
    assert res.cumulative_mistakes.tolist() == [1, 1, 2]
    # PA-I caps the step at C; PA-II divides the loss by 1 + 1/(2C)
    assert_allclose(PAUniclass(variant="pa1", C=0.5, epsilon=1.0).learn_one(np.array([3.0, 4.0])).center_, [0.3, 0.4])
    assert_allclose(PAUniclass(variant="pa2", C=0.5, epsilon=1.0).learn_one(np.array([3.0, 4.0])).center_, [1.2, 1.6])


def test_learned_radius_hand_derived():
    """B = 5, y = (0, 4): lifted distance sqrt(16 + 25) from (0, 0, 5); PA lands (y, 0) on the B-sphere."""
    est = PAUniclass(variant="pa", learn_radius=True, B=5.0, epsilon=123.0)  # epsilon is not used
    assert est.learn_one(np.array([0.0, 4.0])).radius_ > 0
    lifted_center = np.append(est.center_, np.sqrt(25.0 - est.radius_**2))
    assert np.linalg.norm(lifted_center - [0.0, 4.0, 0.0]) == pytest.approx(5.0)
    c = 1.0 - 5.0 / np.sqrt(41.0)  # the fraction of the way moved towards (y, 0)
    assert_allclose(est.center_, [0.0, 4.0 * c])
    assert est.radius_ == pytest.approx(np.sqrt(25.0 - (5.0 * (1 - c)) ** 2))


@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
@pytest.mark.parametrize("B", [1e6, 1e9], ids=["B=1e6", "B=1e9"])
def test_learned_radius_with_a_large_B_matches_a_high_precision_transcription(variant, B):
    """Sec. 6 wants B far above any radius; the radii must not drown in the cancellation of B^2 - a^2."""
    Y = _stream(n=25, d=3, seed=11) * 4
    centers, radii, losses = pa_uniclass_learned_radius_exact(Y, variant, 0.5, B)
    assert radii[-1] > 1.0  # the ball has grown: the test compares real radii, not zeros
    est = PAUniclass(variant=variant, C=0.5, learn_radius=True, B=B)
    got_radii, got_centers = [], []
    for y in Y:
        got_radii.append(est.radius_ if est.predict_one() is not None else 0.0)
        got_centers.append(est.predict_one() if est.predict_one() is not None else np.zeros(3))
        est.learn_one(y)
    assert_allclose(got_radii, radii, rtol=1e-9, atol=1e-12)
    assert_allclose(got_centers, centers, rtol=1e-9, atol=1e-15)
    res = olearn.run(PAUniclass(variant=variant, C=0.5, learn_radius=True, B=B), Y)
    assert_allclose(res.losses, losses, rtol=1e-9, atol=1e-300)


def test_default_B_follows_the_text():
    """Sec. 6: B far greater than any conceivable radius, and the lifted start a_1 = B (epsilon_1 = 0)."""
    est = PAUniclass(learn_radius=True)
    assert est.B >= 1e6
    est.learn_one(np.array([0.0, 3.0, 4.0]))
    # with PA-I (C = 1) the lifted loss sqrt(25 + B^2) - B ~ 25 / (2B) is far below C: a plain PA step,
    # which puts y on the edge of the new ball: radius ~ 5, the center barely moved
    assert est.radius_ == pytest.approx(5.0, rel=1e-9)
    assert np.linalg.norm(est.center_) < 1e-10


# -- invariants -------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), epsilon=st.floats(0.0, 3.0), scale=st.floats(0.1, 100.0))
def test_pa_lands_exactly_on_the_ball(seed, epsilon, scale):
    Y = _stream(n=20, d=3, seed=seed) * scale
    est = PAUniclass(variant="pa", epsilon=epsilon)
    for y in Y:
        before = np.linalg.norm(y - est.center_) if est.predict_one() is not None else np.linalg.norm(y)
        est.learn_one(y)
        after = np.linalg.norm(y - est.center_)
        if before > epsilon:
            assert after == pytest.approx(epsilon, rel=1e-9, abs=1e-9 * scale)
            assert est.decision_function(y[None, :])[0] == pytest.approx(0.0, abs=1e-9 * scale)
        else:
            assert after == before


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), B=st.floats(0.1, 10.0), variant=st.sampled_from(["pa", "pa1", "pa2"]))
def test_learned_radius_never_shrinks_and_stays_below_B(seed, B, variant):
    Y = _stream(n=30, d=3, seed=seed) * 3
    est = PAUniclass(variant=variant, C=0.5, learn_radius=True, B=B)
    radii = []
    for y in Y:
        est.learn_one(y)
        radii.append(est.radius_)
    assert radii[0] >= 0
    # the radius is sqrt(B^2 - a^2) of the stored gap B - a: never smaller, up to its rounding
    assert all(b >= a - 4 * np.spacing(B) for a, b in itertools.pairwise(radii))
    assert max(radii) <= B


def test_pa_with_learned_radius_leaves_no_lifted_loss():
    """After a PA update the vector is on the edge of the new ball: learning it again costs nothing."""
    est = PAUniclass(variant="pa", learn_radius=True, B=1.0)
    for y in _stream(seed=4) * 2:
        outside = est.predict_one() is None or est.decision_function(y[None, :])[0] < 0
        est.learn_one(y)
        if outside:
            assert est.decision_function(y[None, :])[0] == pytest.approx(0.0, abs=1e-9)
        again = olearn.run(PAUniclass(variant="pa", learn_radius=True, B=1.0).partial_fit(y[None, :]), y[None, :])
        assert again.losses[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("C", [0.01, 0.3, 2.0])
def test_pa1_tau_never_exceeds_C(C):
    res = olearn.run(PAUniclass(variant="pa1", C=C, epsilon=0.1), _stream(seed=5) * 10)
    assert res.taus.max() == pytest.approx(C)
    assert (res.taus <= C).all()
    assert (res.taus <= res.losses + 1e-12).all()


def test_pa_is_pa1_with_infinite_C():
    Y = _stream(seed=6)
    a = PAUniclass(variant="pa", epsilon=0.2).partial_fit(Y)
    b = PAUniclass(variant="pa1", C=float("inf"), epsilon=0.2).partial_fit(Y)
    assert_array_equal(a.center_, b.center_)


def test_vectors_inside_the_ball_change_nothing():
    est = PAUniclass(epsilon=1.0).partial_fit(np.array([[0.5, 0.0]]))
    center = est.center_
    assert_array_equal(center, [0.0, 0.0])
    res = olearn.run(est, np.array([[0.5, 0.5], [0.0, 1.0], [-1.0, 0.0]]))  # the last two on the boundary
    assert res.n_mistakes == 0 and (res.taus == 0).all()
    assert_array_equal(est.center_, center)
    assert_array_equal(res.predictions, [1, 1, 1])
