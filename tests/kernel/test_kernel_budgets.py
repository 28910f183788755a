"""Memory budgets: the support set never exceeds ``budget``, and each policy removes the right vector."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import kernel as oracle

import olearn

POLICIES = ["oldest", "random", "smallest"]


def _noisy_stream(n, d=10, seed=0, regression=False):
    """Random labels: almost every round updates, so the budget is always under pressure."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.5) / np.sqrt(d)
    y = rng.standard_normal(n) if regression else np.where(rng.random(n) < 0.5, 1, -1)
    return X, y


LEARNERS = [
    (olearn.PAClassifier, {"variant": "pa1", "C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    (olearn.PAClassifier, {"variant": "pa2", "kernel": "poly", "degree": 2, "coef0": 1.0, "fit_intercept": True}),
    (olearn.Perceptron, {"kernel": "poly", "degree": 3}),
    (olearn.PARegressor, {"variant": "pa", "epsilon": 0.01, "kernel": "rbf"}),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("cls, params", LEARNERS, ids=lambda v: getattr(v, "__name__", None) or v["kernel"])
def test_the_support_set_never_exceeds_the_budget(cls, params, policy):
    X, y = _noisy_stream(3000, regression=cls is olearn.PARegressor)
    budget = 25
    est = cls(budget=budget, budget_policy=policy, random_state=7, **params)
    res = olearn.run(est, X, y)
    assert res.n_updates > 1000
    assert res.support_sizes.max() == budget
    assert np.all(res.support_sizes <= budget)
    assert est.n_support_ == budget == est.support_vectors_.shape[0] == est.dual_coef_.shape[1]
    # the arrays behind the set stay bounded by the budget too, however long the stream
    longest = int(np.diff(sp.csr_matrix(X).indptr).max())
    assert est._support.data.size <= 2 * (budget + 1) * longest
    assert est._support.coef.shape[0] <= budget
    # streaming keeps it too
    for row, label in zip(X[:300], y[:300]):
        est.learn_one(row, label)
        assert est.n_support_ <= budget


def _orthogonal_stream():
    """Rows on distinct axes: every score is 0, so PA updates each with alpha = y / ||x||^2.

    alphas: x0 -> 1, x1 -> 1/4, x2 -> 4, x3 -> 1/9 (labels all +1).
    """
    X = np.zeros((4, 4))
    X[0, 0], X[1, 1], X[2, 2], X[3, 3] = 1.0, 2.0, 0.5, 3.0
    return X, [1, 1, 1, 1]


@pytest.mark.parametrize(
    "policy, kept",
    [
        # oldest: x0 leaves at round 2, x1 at round 3
        ("oldest", [2, 3]),
        # smallest |alpha|: of {x0: 1, x1: 1/4} x1 leaves, then of {x0: 1, x2: 4} x0
        ("smallest", [2, 3]),
    ],
)
def test_the_policy_removes_the_right_vector_by_hand(policy, kept):
    X, y = _orthogonal_stream()
    est = olearn.PAClassifier(variant="pa", kernel="linear", budget=2, budget_policy=policy)
    removed = []
    for t, (row, label) in enumerate(zip(X, y)):
        before = {tuple(v) for v in est.support_vectors_.toarray()} if t else set()
        est.learn_one(row, label)
        after = {tuple(v) for v in est.support_vectors_.toarray()}
        removed.extend(before - after)
    assert_array_equal(est.support_vectors_.toarray(), X[kept])
    assert_allclose(est.dual_coef_, [[4.0, 1 / 9]])
    expected_removed = {"oldest": [X[0], X[1]], "smallest": [X[1], X[0]]}[policy]
    assert_array_equal(np.array(removed), np.array(expected_removed))


def test_random_policy_removes_the_drawn_vector_by_hand():
    """Round 2 draws from {x0, x1} and round 3 from the two left: SplitMix64 from the seed decides."""
    X, y = _orthogonal_stream()
    for seed in range(20):
        state, z = oracle.splitmix64(seed)
        first = min(int((z >> 11) / 2.0**53 * 2), 1)
        _, z = oracle.splitmix64(state)
        second = min(int((z >> 11) / 2.0**53 * 2), 1)
        held = [0, 1]
        del held[first]
        held.append(2)
        del held[second]
        held.append(3)
        est = olearn.PAClassifier(variant="pa", kernel="linear", budget=2, budget_policy="random", random_state=seed)
        est.partial_fit(X, y)
        assert_array_equal(est.support_vectors_.toarray(), X[held])


def test_random_policy_is_uniform_over_seeds():
    X, y = _orthogonal_stream()
    first_removed = []
    for seed in range(400):
        est = olearn.PAClassifier(variant="pa", kernel="linear", budget=2, budget_policy="random", random_state=seed)
        est.partial_fit(X[:3], y[:3])
        first_removed.append(est.support_vectors_.toarray()[0, 0] == 0.0)  # x0 left
    assert 0.4 < np.mean(first_removed) < 0.6


def test_random_policy_is_reproducible_with_random_state():
    X, y = _noisy_stream(600, seed=2)

    def support(seed):
        est = olearn.Perceptron(kernel="rbf", budget=10, budget_policy="random", random_state=seed).partial_fit(X, y)
        return est.support_vectors_.toarray(), est.dual_coef_

    a, b, c = support(3), support(3), support(4)
    assert_array_equal(a[0], b[0])
    assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    # without a seed it still keeps the budget
    est = olearn.Perceptron(kernel="rbf", budget=10, budget_policy="random").partial_fit(X, y)
    assert est.n_support_ == 10


def test_lowering_the_budget_mid_stream_shrinks_the_set_at_the_next_update():
    X, y = _noisy_stream(400, seed=5)
    est = olearn.PAClassifier(kernel="rbf", budget=30).partial_fit(X[:200], y[:200])
    assert est.n_support_ == 30
    est.set_params(budget=5)
    res = olearn.run(est, X[200:], y[200:])
    assert res.support_sizes.max() <= 30 and est.n_support_ == 5
    assert np.all(res.support_sizes[np.argmax(res.taus != 0):] <= 5)


def test_no_budget_keeps_every_update():
    X, y = _noisy_stream(300, seed=6)
    res = olearn.run(olearn.PAClassifier(kernel="poly", degree=2), X, y)
    assert_array_equal(res.support_sizes, np.cumsum(res.taus != 0))
