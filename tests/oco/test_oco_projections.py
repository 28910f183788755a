"""Euclidean projections: KKT conditions, independent references, and the properties of a projection."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from oco import _oracle as oracle

from olearn.oco import (
    Box,
    L1Ball,
    L2Ball,
    Simplex,
    project_box,
    project_l1_ball,
    project_l2_ball,
    project_simplex,
)

FEW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZES = st.integers(1, 12)
SCALES = st.floats(0.1, 5.0)


@st.composite
def vectors(draw, max_size=12, bound=10.0):
    n = draw(st.integers(1, max_size))
    return draw(arrays(np.float64, n, elements=st.floats(-bound, bound, allow_subnormal=False)))


def _variational_inequality(v, x, feasible_points):
    """x = Proj(v) iff (v - x) . (y - x) <= 0 for every feasible y."""
    scale = 1.0 + np.abs(v).max()
    for y in feasible_points:
        assert (v - x) @ (y - x) <= 1e-9 * scale**2


def _random_simplex_points(rng, n, z, k=20):
    points = rng.dirichlet(np.full(n, 0.5), size=k) * z
    return np.vstack([points, z * np.eye(n)])


# -- simplex ------------------------------------------------------------------------------


@FEW
@given(vectors(), SCALES)
def test_simplex_projection_satisfies_the_kkt_conditions(v, z):
    x = project_simplex(v, z)
    assert (x >= 0).all()
    assert x.sum() == pytest.approx(z, rel=1e-12, abs=1e-12)
    # x_i = max(v_i - theta, 0) for one theta: equal shifts on the support, v_i <= theta off it
    support = x > 0
    theta = (v[support] - x[support]).mean()
    assert_allclose(v[support] - x[support], theta, atol=1e-9)
    assert (v[~support] <= theta + 1e-9).all()


@FEW
@given(vectors(), SCALES)
def test_simplex_projection_equals_the_sort_and_bisection_references(v, z):
    x = project_simplex(v, z)
    assert_allclose(x, oracle.simplex_by_sorting(v, z), atol=1e-10)
    assert_allclose(x, oracle.simplex_by_bisection(v, z), atol=1e-9)
    assert_allclose(Simplex(v.size, z=z).project(v), x)


@FEW
@given(vectors(max_size=5, bound=3.0), st.floats(0.5, 2.0))
def test_simplex_projection_equals_scipy_optimize(v, z):
    assert_allclose(project_simplex(v, z), oracle.simplex_by_scipy(v, z), atol=1e-6)


@FEW
@given(vectors(), SCALES, st.integers(0, 2**32 - 1))
def test_simplex_projection_is_the_closest_feasible_point(v, z, seed):
    x = project_simplex(v, z)
    _variational_inequality(v, x, _random_simplex_points(np.random.default_rng(seed), v.size, z))


def test_simplex_projection_of_a_feasible_point_is_itself():
    p = np.array([0.2, 0.3, 0.5])
    assert_allclose(project_simplex(p), p, atol=1e-15)
    assert_allclose(project_simplex(np.array([5.0, 5.0, 5.0]), z=3.0), [1.0, 1.0, 1.0])


def test_simplex_projection_is_fast_enough_for_large_inputs():
    """O(n log n): a million entries is a sort, not a loop over candidate thresholds."""
    v = np.random.default_rng(0).standard_normal(1_000_000)
    x = project_simplex(v)
    assert x.sum() == pytest.approx(1.0) and (x >= 0).all()


# -- L2 ball, box, L1 ball -------------------------------------------------------------------


@FEW
@given(vectors(bound=100.0), SCALES)
def test_l2_ball_projection(v, r):
    x = project_l2_ball(v, r)
    norm = np.linalg.norm(v)
    if norm <= r:
        assert_array_equal(x, v)
    else:
        assert_allclose(x, r * v / norm, rtol=1e-12)
        assert np.linalg.norm(x) == pytest.approx(r)


def test_l2_ball_projection_does_not_overflow():
    x = project_l2_ball(np.array([1e200, -1e200, 3e199]), 1.0)
    assert np.isfinite(x).all() and np.linalg.norm(x) == pytest.approx(1.0)


@FEW
@given(vectors(), st.floats(-3, 0), st.floats(0, 3))
def test_box_projection_clips(v, low, high):
    assert_array_equal(project_box(v, low, high), np.clip(v, low, high))
    lows = np.linspace(-1, 0, v.size)
    assert_array_equal(Box(v.size, low=lows, high=1.0).project(v), np.clip(v, lows, 1.0))


@FEW
@given(vectors(), SCALES, st.integers(0, 2**32 - 1))
def test_l1_ball_projection(v, r, seed):
    x = project_l1_ball(v, r)
    assert np.abs(x).sum() <= r * (1 + 1e-12)
    if np.abs(v).sum() <= r:
        assert_array_equal(x, v)
    else:
        assert np.abs(x).sum() == pytest.approx(r)
        assert (np.sign(x) * np.sign(v) >= 0).all()
    rng = np.random.default_rng(seed)
    inside = rng.standard_normal((20, v.size))
    inside *= r * rng.random((20, 1)) / np.abs(inside).sum(axis=1, keepdims=True)
    _variational_inequality(v, x, np.vstack([inside, r * np.eye(v.size), -r * np.eye(v.size)]))


@FEW
@given(vectors(max_size=4, bound=3.0), st.floats(0.5, 2.0))
def test_l1_ball_projection_equals_scipy_optimize(v, r):
    assert_allclose(project_l1_ball(v, r), oracle.l1_ball_by_scipy(v, r), atol=1e-6)


# -- every projection: idempotent, non-expansive ------------------------------------------------

DOMAINS = [L2Ball(5, radius=1.5), Simplex(5, z=2.0), Box(5, low=-0.5, high=[1, 2, 3, 4, 5]), L1Ball(5, radius=1.0)]


@pytest.mark.parametrize("domain", DOMAINS, ids=repr)
def test_projections_are_idempotent_and_non_expansive(domain):
    rng = np.random.default_rng(7)
    for _ in range(200):
        a, b = rng.standard_normal(5) * 4, rng.standard_normal(5) * 4
        pa, pb = domain.project(a), domain.project(b)
        assert domain.contains(pa)
        assert_allclose(domain.project(pa), pa, atol=1e-12)
        assert np.linalg.norm(pa - pb) <= np.linalg.norm(a - b) + 1e-12


@pytest.mark.parametrize("domain", DOMAINS, ids=repr)
def test_diameter_and_linear_minimiser(domain):
    rng = np.random.default_rng(8)
    points = np.array([domain.project(rng.standard_normal(5) * 10) for _ in range(300)])
    gaps = np.linalg.norm(points[:, None] - points[None], axis=2)
    assert gaps.max() <= domain.diameter + 1e-9
    for _ in range(20):
        g = rng.standard_normal(5)
        best = domain.minimize_linear(g)
        assert domain.contains(best)
        assert g @ best <= (points @ g).min() + 1e-9


def test_domain_facts():
    assert Simplex(4).diameter == pytest.approx(math.sqrt(2)) and Simplex(1).diameter == 0.0
    assert L2Ball(3, radius=2).diameter == 4.0 and L1Ball(3, radius=2).diameter == 4.0
    assert_allclose(Simplex(4, z=2).initial_point(), 0.5)
    assert_array_equal(Box(2, low=0.5, high=1).initial_point(), [0.5, 0.5])
    assert Simplex(3) == Simplex(3) and Simplex(3) != Simplex(3, z=2) and L2Ball(3) != L1Ball(3)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: project_simplex([0.5, np.nan]), r"v\[1\] is nan"),
        (lambda: project_simplex([[0.5, 0.5]]), "must be 1-d"),
        (lambda: project_simplex([0.5], z=0), "z=0 is invalid"),
        (lambda: project_l2_ball([1.0], radius=-1), "radius=-1 is invalid"),
        (lambda: project_l1_ball(["a"]), "could not be read"),
        (lambda: project_box([1.0, 2.0], low=1.0, high=0.0), "the box is empty"),
        (lambda: project_box([1.0, 2.0], low=[0, 0, 0], high=1.0), "vector of length 2"),
        (lambda: Simplex(0), "dim=0 is invalid"),
        (lambda: L2Ball(3).project([1.0, 2.0]), "lives in R\\^3"),
    ],
)
def test_bad_input_gives_a_clear_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_projections_of_huge_vectors_keep_the_radius():
    # the threshold is found after shifting by the largest entry: z is not lost to rounding
    assert_allclose(project_simplex(np.array([1e150, 0.0, -3.0])), [1.0, 0.0, 0.0])
    assert_allclose(project_simplex(np.array([1e150, 1e150, 0.0]), z=2.0), [1.0, 1.0, 0.0])
    assert_allclose(L1Ball(3, radius=2.0).project(np.array([0.0, 0.0, -1e150])), [0.0, 0.0, -2.0])
    assert_allclose(L1Ball(2, radius=2.0).project(np.array([1e300, -1e300])), [1.0, -1.0])
