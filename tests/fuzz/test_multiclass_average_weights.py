"""Fuzz campaigns: averaging and importance weights of the multiclass learners.

1. Random learners, averaging starts, weights (zeros included), classes arriving late,
   dense or sparse rows, learned through a mix of partial_fit, run and learn_one: the
   averaged model must equal the NumPy oracle's naive mean of the per-round models.
2. Rows and weights from tiny to near the float limit: a learner either learns a row
   (finite current and averaged weights) or refuses it with a FloatingPointError and
   keeps its state exactly.
"""

import numpy as np
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from oracles import multiclass as oracle

import olearn
import olearn.multiclass as mc

LEARNERS = [
    ("PAMulticlass", {"variant": "pa"}),
    ("PAMulticlass", {"variant": "pa1", "C": 0.5}),
    ("PAMulticlass", {"variant": "pa2", "C": 2.0}),
    ("PACostSensitive", {"variant": "pa1", "C": 1.0, "update": "prediction"}),
    ("PACostSensitive", {"variant": "pa2", "C": 0.3, "update": "max-loss"}),
    ("MulticlassPerceptron", {"update": "max"}),
    ("MulticlassPerceptron", {"update": "uniform"}),
    ("MIRA", {"beta": 0.5}),
]


def _settings(n_examples):
    return settings(max_examples=n_examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _learn(est, rows, y, w, how):
    """Learn the stream in three chunks, each by partial_fit, run or learn_one."""
    bounds = [0, len(y) // 3, 2 * len(y) // 3, len(y)]
    for part, (lo, hi) in zip(how, zip(bounds, bounds[1:])):
        if part == "partial_fit":
            est.partial_fit(rows[lo:hi], y[lo:hi], sample_weight=w[lo:hi])
        elif part == "run":
            olearn.run(est, rows[lo:hi], y[lo:hi], sample_weight=w[lo:hi])
        else:
            for i in range(lo, hi):
                est.learn_one(rows[i], y[i], sample_weight=w[i])


def campaign_average_matches_the_naive_mean(n_examples, seed_value):
    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(learner=st.sampled_from(LEARNERS), average=st.sampled_from([True, 1, 2, 5, 9, 40]),
           n=st.integers(1, 14), d=st.integers(1, 6), data_seed=st.integers(0, 2**32 - 1),
           weights=st.lists(st.sampled_from([0.0, 0.25, 1.0, 2.0, 3.0]), min_size=14, max_size=14),
           labels=st.lists(st.sampled_from("abcd"), min_size=14, max_size=14), sparse=st.booleans(),
           intercept=st.booleans(),
           how=st.lists(st.sampled_from(["partial_fit", "run", "learn_one"]), min_size=3, max_size=3))
    def check(learner, average, n, d, data_seed, weights, labels, sparse, intercept, how):
        nonlocal count
        count += 1
        name, params = learner
        rng = np.random.default_rng(data_seed)
        X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
        y, w = np.array(labels[:n]), np.array(weights[:n])
        est = getattr(mc, name)(**params, average=average, fit_intercept=intercept)
        _learn(est, sp.csr_matrix(X) if sparse else X, y, w, how)
        trace = oracle.multi_prototype(X, y, oracle.for_estimator(name, params), intercept, weights=w,
                                       average=int(average))
        coef, icpt = trace.averaged if trace.averaged is not None else (trace.coef, trace.intercept)
        scale = max(1.0, float(np.abs(trace.coef).max(initial=0.0)))
        np.testing.assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12 * scale)
        np.testing.assert_allclose(est.intercept_, icpt, rtol=1e-9, atol=1e-12 * scale)

    check()
    return count


VALUES = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([0.0, 1e-300, -1e-300, 1e150, -1e150, 1e200, -1e200, 1e308, -1e308]),
)
WEIGHTS = st.sampled_from([0.0, 1e-300, 0.5, 1.0, 1e10, 1e200, 1e308])


def campaign_extreme_values_are_learned_or_refused(n_examples, seed_value):
    count = 0

    @seed(seed_value)
    @_settings(n_examples)
    @given(learner=st.sampled_from(LEARNERS), average=st.sampled_from([False, True, 2]),
           rows=st.lists(st.lists(VALUES, min_size=3, max_size=3), min_size=1, max_size=8),
           labels=st.lists(st.sampled_from("abc"), min_size=8, max_size=8),
           weights=st.lists(WEIGHTS, min_size=8, max_size=8), block_map=st.booleans())
    def check(learner, average, rows, labels, weights, block_map):
        nonlocal count
        count += 1
        name, params = learner
        if block_map:
            params = {**params, "feature_map": mc.BlockFeatureMap(list("abc"), 3)}
        est = getattr(mc, name)(**params, average=average)
        est.partial_fit(np.zeros((0, 3)), [], classes=list("abc"))
        for x, label, weight in zip(np.array(rows), labels, weights):
            before = snapshot(est)
            try:
                est.partial_fit(x[None, :], [label], sample_weight=[weight])
            except FloatingPointError as err:
                assert "row 0" in str(err), err
                assert_same(before, est, "a refused row")
            assert np.isfinite(est.coef_).all() and np.isfinite(est.intercept_).all()

    check()
    return count


def test_average_matches_the_naive_mean_campaign(campaign):
    assert campaign("fuzz.test_multiclass_average_weights:campaign_average_matches_the_naive_mean", 80) >= 80


def test_extreme_values_are_learned_or_refused_campaign(campaign):
    assert campaign("fuzz.test_multiclass_average_weights:campaign_extreme_values_are_learned_or_refused", 80) >= 80
