"""PAMultilabel against the NumPy transcription of Sec. 7, hand-derived values and the paper's invariants."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles.multilabel import pa_multilabel

import olearn
from olearn.multilabel import PAMultilabel

VARIANTS = [("pa", 1.0), ("pa1", 0.05), ("pa1", 3.0), ("pa2", 0.5), ("pa2", float("inf"))]
LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix, "csc": sp.csc_matrix}


def _stream(n=80, d=6, k=5, seed=0, density=1.0):
    """Rows x and relevant sets from a random multi-prototype model, with some noise and some empty/full sets."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    scores = X @ rng.standard_normal((k, d)).T + 0.3 * rng.standard_normal((n, k))
    sets = [set(np.flatnonzero(s > 0.2).tolist()) for s in scores]
    sets[5] = set()
    sets[9] = set(range(k))
    return X, sets


def _indicator(sets, k):
    Y = np.zeros((len(sets), k), dtype=int)
    for i, labels in enumerate(sets):
        Y[i, sorted(labels)] = 1
    return Y


@pytest.mark.parametrize("variant,C", VARIANTS)
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_run_matches_the_oracle(variant, C, fit_intercept, layout):
    X, sets = _stream(density=0.5 if layout != "dense" else 1.0)
    trace = pa_multilabel(X, sets, 5, variant, C, fit_intercept)
    est = PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept)
    res = olearn.run(est, LAYOUTS[layout](X), _indicator(sets, 5))
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, trace.margins, rtol=1e-10, atol=1e-12)
    assert_allclose(est.coef_, trace.coef, rtol=1e-10, atol=1e-12)
    assert_allclose(est.intercept_, trace.intercept, rtol=1e-10, atol=1e-12)
    assert res.n_mistakes == int((trace.margins <= 0).sum())
    assert_array_equal(res.predictions, trace.scores > 0)


def test_labels_joining_mid_stream_match_the_oracle():
    """Label sets without classes=: a label enters the ranking on the first row naming it."""
    X, sets = _stream(seed=1)
    names = np.array(["a", "b", "c", "d", "e"])
    order_of_appearance = []
    for labels in sets:
        for label in sorted(labels):
            if label not in order_of_appearance:
                order_of_appearance.append(label)
    trace = pa_multilabel(X, sets, 5, "pa1", 0.5, ranked=[])
    est = PAMultilabel(variant="pa1", C=0.5)
    res = olearn.run(est, X, [{names[j] for j in labels} for labels in sets])
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, trace.margins, rtol=1e-10, atol=1e-12)
    assert est.classes_.tolist() == list(names[sorted(order_of_appearance)])
    assert_allclose(est.coef_, trace.coef[sorted(order_of_appearance)], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("labels", ["indicator", "sets", "classes"])
def test_learn_one_partial_fit_and_run_agree(labels):
    X, sets = _stream(seed=2, density=0.6)
    if labels == "indicator":
        y, kwargs = _indicator(sets, 5), {}
    else:
        y = [sorted(s) for s in sets]
        kwargs = {"classes": range(5)} if labels == "classes" else {}
    params = {"variant": "pa2", "C": 0.7, "fit_intercept": True}
    batch = PAMultilabel(**params).partial_fit(X[:30], y[:30], **kwargs).partial_fit(sp.csr_matrix(X[30:]), y[30:])
    ran = PAMultilabel(**params)
    if kwargs:
        ran.partial_fit(X[:0], y[:0], **kwargs)
    olearn.run(ran, X, y)
    ones = PAMultilabel(**params)
    if kwargs or labels == "indicator":
        ones.partial_fit(X[:0], y[:0], classes=range(5))
    for i, (x, row) in enumerate(zip(X, sets)):
        features = {j: v for j, v in enumerate(x) if v != 0} if i % 2 else x
        ones.learn_one(features, tuple(row) if i % 3 else set(row))
    for other in (ran, ones):
        assert_array_equal(other.classes_, batch.classes_)
        assert_array_equal(other.coef_, batch.coef_)
        assert_array_equal(other.intercept_, batch.intercept_)


def test_hand_derived_rounds():
    """Three labels declared; x = (1, 0) with {0, 1}: all scores 0, worst pair (0, 2), tau = 1/2."""
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    est = PAMultilabel(variant="pa")
    res = olearn.run(est.partial_fit(X[:0], [], classes=[0, 1, 2]), X, [[0, 1], [2], [1]])
    # round 2: x = (0, 2), {2}: scores 0; pair (2, 0); ||z||^2 = 8, tau = 1/8
    # round 3: x = (1, 1), {1}: w_0 = (.5, -.25) -> .25, w_1 = 0, w_2 = (-.5, .25) -> -.25;
    #          margin 0 - .25 = -.25, loss 1.25, ||z||^2 = 4, tau = 5/16, pair (1, 0)
    assert_allclose(res.taus, [0.5, 0.125, 0.3125])
    assert_allclose(res.scores, [0.0, 0.0, -0.25])
    assert res.cumulative_mistakes.tolist() == [1, 2, 3]
    assert_allclose(est.coef_, [[0.1875, -0.5625], [0.3125, 0.3125], [-0.5, 0.25]])
    assert_allclose(est.coef_.sum(axis=0), 0.0, atol=1e-15)


# -- invariants -----------------------------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_pa_leaves_the_worst_pair_exactly_one_apart(fit_intercept):
    """PA solves the constraint of the chosen pair only: after the update w_r*.x - w_s*.x = 1.

    With one relevant label out of two, that pair is the whole ranking: the loss is then 0.
    """
    X, sets = _stream(seed=3)
    est = PAMultilabel(variant="pa", fit_intercept=fit_intercept).partial_fit(X[:0], [], classes=range(5))
    moved = 0
    for x, labels in zip(X, sets):
        before = est.decision_function(x[None, :])[0]
        est.learn_one(x, labels)
        relevant = np.isin(np.arange(5), list(labels))
        if relevant.any() and not relevant.all():
            r = np.flatnonzero(relevant)[np.argmin(before[relevant])]
            s = np.flatnonzero(~relevant)[np.argmax(before[~relevant])]
            after = est.decision_function(x[None, :])[0]
            if before[r] - before[s] < 1.0:
                assert after[r] - after[s] == pytest.approx(1.0, abs=1e-9)
                moved += 1
    assert moved > 20
    pair = PAMultilabel(variant="pa").partial_fit(X, [[int(v > 0)] for v in X[:, 0]], classes=[0, 1])
    for x, label in zip(X, (X[:, 0] > 0).astype(int)):
        pair.learn_one(x, [label])
        scores = pair.decision_function(x[None, :])[0]
        assert scores[label] - scores[1 - label] >= 1.0 - 1e-9


@pytest.mark.parametrize("C", [0.01, 0.2, 1.0])
def test_pa1_tau_is_the_pa_step_capped_at_C(C):
    X, sets = _stream(seed=4)
    X = X * 0.3
    res = olearn.run(PAMultilabel(variant="pa1", C=C), X, _indicator(sets, 5))
    uncapped = res.losses / (2.0 * (X * X).sum(axis=1))
    assert (res.taus <= C).all()
    assert_allclose(res.taus, np.minimum(C, uncapped), rtol=1e-12)
    assert (uncapped > C).any()
    if C == 1.0:
        assert (uncapped[res.losses > 0] < C).any()


def test_weight_vectors_sum_to_zero_so_zero_is_the_mean_score():
    X, sets = _stream(seed=5)
    est = PAMultilabel(fit_intercept=True).partial_fit(X, [sorted(s) for s in sets])
    assert_allclose(est.coef_.sum(axis=0), 0.0, atol=1e-12)
    assert_allclose(est.decision_function(X).sum(axis=1), 0.0, atol=1e-12)


def test_rows_with_nothing_to_rank_change_nothing():
    X = np.array([[1.0, 2.0], [3.0, -1.0]])
    est = PAMultilabel(variant="pa").partial_fit(X[:1], [[0]], classes=[0, 1, 2])
    coef = est.coef_
    res = olearn.run(est, X, [[], [0, 1, 2]])
    assert res.scores.tolist() == [np.inf, np.inf]
    assert res.losses.tolist() == [0.0, 0.0] and res.n_mistakes == 0 and res.n_updates == 0
    assert_array_equal(est.coef_, coef)


def test_pa_is_pa1_with_infinite_C():
    X, sets = _stream(seed=6)
    a = PAMultilabel(variant="pa").partial_fit(X, _indicator(sets, 5))
    b = PAMultilabel(variant="pa1", C=float("inf")).partial_fit(X, _indicator(sets, 5))
    assert_array_equal(a.coef_, b.coef_)
