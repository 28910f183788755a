"""RBF values keep their digits on rows that are close compared with their norms (unscaled features far from 0).

The compiled kernels get ``||x - x'||^2`` from ``||x||^2 + ||x'||^2 - 2 x.x'``,
whose rounding error is about 1e-16 times the norms: on rows near (1e4, ...,
1e4) that differ by about 1e-3, the expansion's error (~1e-8 absolute) is as
large as the distance itself, and before the exact fallback the kernel values
were off by up to half their size. The reference is the plain-NumPy dual
transcription (``tests/oracles/kernel.py``), which evaluates ``exp(-gamma
(x - x').(x - x'))`` from the difference of the rows; the multiclass learner is
checked against the same formula on its own support set.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from oracles import kernel as oracle

import olearn

OFFSET = 1.0e4
GAMMA = 2.0e5  # so that gamma ||x - x'||^2 is of order 1 for the differences below


def _rows(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((n, d)) * 1.5e-3
    return OFFSET + noise, noise


def _rbf(A, B):
    diff = A[:, None, :] - B[None, :, :]
    return np.exp(-GAMMA * np.einsum("ijk,ijk->ij", diff, diff))


def test_the_expansion_alone_would_be_wrong_here():
    # the premise: on these rows the expanded distance loses most of its digits
    X, noise = _rows()
    a, b = X[0], X[1]
    expanded = max(a @ a + b @ b - 2.0 * (a @ b), 0.0)
    exact = float(np.sum((noise[0] - noise[1]) ** 2))
    assert abs(expanded - exact) > 0.01 * exact


@pytest.mark.parametrize("name, params", [
    ("PAClassifier", {"variant": "pa1", "C": 1.0}),
    ("PARegressor", {"variant": "pa", "epsilon": 0.01}),
])
def test_binary_and_regression_learners_equal_the_transcription(name, params):
    X, noise = _rows()
    u = np.random.default_rng(1).standard_normal(X.shape[1])
    y = noise @ u * 1e3 if name == "PARegressor" else np.where(noise @ u > 0, 1, -1)
    est = getattr(olearn, name)(kernel="rbf", gamma=GAMMA, **params)
    est.partial_fit(X, y) if name == "PARegressor" else est.partial_fit(X, y, classes=[-1, 1])
    args = {"rule": params["variant"], "kernel": "rbf", "gamma": GAMMA}
    if name == "PARegressor":
        args.update(task="regression", epsilon=params["epsilon"])
    expected = oracle.dual_learner(X, y, **args)
    assert sum(t != 0 for t in expected.taus) > 5
    assert_allclose(est.dual_coef_.ravel(), expected.alphas, rtol=1e-7, atol=1e-9)
    query = X + np.random.default_rng(2).standard_normal(X.shape) * 1e-3
    scores = est.predict(query) if name == "PARegressor" else est.decision_function(query)
    assert_allclose(scores, expected.decision(query, kernel="rbf", gamma=GAMMA), rtol=1e-7, atol=1e-9)


def test_multiclass_scores_use_the_exact_distance():
    X, noise = _rows(seed=3)
    y = np.argmax(noise[:, :3], axis=1)
    est = olearn.PAMulticlass(kernel="rbf", gamma=GAMMA).partial_fit(X, y, classes=[0, 1, 2])
    support = est.support_vectors_.toarray()
    query = X[:10] + 1e-4
    expected = _rbf(query, support) @ est.dual_coef_.T  # dual_coef_: one row per class
    assert_allclose(est.decision_function(query), expected, rtol=1e-7, atol=1e-9)
