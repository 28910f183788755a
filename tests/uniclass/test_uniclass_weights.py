"""PAUniclass's importance weights (issue #13) against the NumPy transcription and hand-derived values."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from numpy.testing import assert_allclose, assert_array_equal
from oracles.uniclass import pa_uniclass, pa_uniclass_learned_radius

import olearn
from olearn.uniclass import PAUniclass


def _stream(n=30, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) + 2.0


@pytest.mark.parametrize("variant,C", [("pa", 1.0), ("pa1", 0.3), ("pa2", 0.5)])
@pytest.mark.parametrize("learn_radius", [False, True])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_weighted_stream_matches_the_oracle(variant, C, learn_radius, layout):
    Y = _stream()
    weights = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 2.5], size=len(Y))
    if learn_radius:
        trace = pa_uniclass_learned_radius(Y, variant, C, B=3.0, weights=weights)
    else:
        trace = pa_uniclass(Y, variant, C, epsilon=0.5, weights=weights)
    est = PAUniclass(variant=variant, C=C, epsilon=0.5, learn_radius=learn_radius, B=3.0)
    res = olearn.run(est, sp.csr_matrix(Y) if layout == "csr" else Y, sample_weight=weights)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(est.center_, trace.center, rtol=1e-10, atol=1e-12)
    again = PAUniclass(variant=variant, C=C, epsilon=0.5, learn_radius=learn_radius, B=3.0)
    again.partial_fit(Y, sample_weight=weights)
    one = PAUniclass(variant=variant, C=C, epsilon=0.5, learn_radius=learn_radius, B=3.0)
    for y, w in zip(Y, weights):
        one.learn_one(y, sample_weight=w)
    assert_array_equal(again.center_, est.center_)
    assert_allclose(one.center_, est.center_, rtol=1e-12, atol=1e-14)
    assert one.radius_ == pytest.approx(est.radius_, rel=1e-12)


@pytest.mark.parametrize("learn_radius", [False, True])
def test_pa1_integer_weight_is_the_vector_repeated(learn_radius):
    Y = _stream(n=15, seed=2)
    weights = np.random.default_rng(3).integers(0, 4, size=len(Y))
    repeated = np.repeat(Y, weights, axis=0)
    settings = {"variant": "pa1", "C": 0.2, "epsilon": 0.3, "learn_radius": learn_radius, "B": 2.0}
    weighted = PAUniclass(**settings).partial_fit(Y, sample_weight=weights)
    twice = PAUniclass(**settings, n_features=3).partial_fit(repeated)
    assert_allclose(weighted.center_, twice.center_, rtol=1e-10, atol=1e-12)
    assert weighted.radius_ == pytest.approx(twice.radius_, rel=1e-10)


def test_weight_closed_forms():
    """y = (3, 4), w = 0, epsilon = 1: loss 4. PA-I, C = 1, weight 2.5: tau = min(2.5, 4) = 2.5;
    PA-II, C = 1, weight 3: tau = 4 / (1 + 1/6) = 24/7. The center moves tau along (3, 4)/5."""
    y = np.array([3.0, 4.0])
    pa1 = PAUniclass(variant="pa1", C=1.0, epsilon=1.0).learn_one(y, sample_weight=2.5)
    assert_allclose(pa1.center_, 2.5 * y / 5.0, rtol=1e-12)
    pa2 = PAUniclass(variant="pa2", C=1.0, epsilon=1.0).learn_one(y, sample_weight=3)
    assert_allclose(pa2.center_, (24.0 / 7.0) * y / 5.0, rtol=1e-12)
    pa = PAUniclass(variant="pa", epsilon=1.0).learn_one(y, sample_weight=0.01)
    assert_allclose(pa.center_, 4.0 * y / 5.0, rtol=1e-12)  # PA: any weight > 0 is the plain step


def test_zero_weight_changes_nothing_but_the_round():
    Y = _stream(n=10)
    est = PAUniclass(variant="pa", learn_radius=True, B=2.0).partial_fit(Y[:5])
    before = snapshot(est)
    res = olearn.run(est, Y[5:], sample_weight=np.zeros(5))
    assert res.n_rounds == 5 and not res.taus.any() and res.losses.any()
    assert_same(before, est, "zero weights")


BAD_WEIGHTS = [("negative", [1.0, -1.0, 1.0]), ("NaN", [1.0, math.nan, 1.0]), ("short", [1.0, 1.0]),
               ("text", "heavy")]


@pytest.mark.parametrize("what,weights", BAD_WEIGHTS, ids=[w for w, _ in BAD_WEIGHTS])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(what, weights):
    Y = _stream(n=8)
    est = PAUniclass().partial_fit(Y[:5])
    before = snapshot(est)
    with pytest.raises(ValueError, match="sample_weight"):
        est.partial_fit(Y[5:], sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight"):
        olearn.run(est, Y[5:], sample_weight=weights)
    for bad in (-1.0, math.inf, "1"):
        with pytest.raises(ValueError, match="sample_weight"):
            est.learn_one(Y[5], sample_weight=bad)
    assert_same(before, est, f"{what} weights")
    fresh = PAUniclass()
    with pytest.raises(ValueError, match="sample_weight"):
        fresh.learn_one(Y[0], sample_weight=-2.0)
    assert not hasattr(fresh, "_w")


def test_uniclass_takes_no_average():
    assert "average" not in PAUniclass().get_params()
