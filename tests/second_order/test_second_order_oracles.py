"""Every second-order learner against its NumPy transcription of the paper, on dense, CSR and CSC input."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import second_order as oracle

import olearn
from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron

CASES = [
    (AROW, {}),
    (AROW, {"r": 0.1, "fit_intercept": True}),
    (AROW, {"r": 4.0, "covariance": "diag"}),
    (AROW, {"r": 0.5, "covariance": "diag", "fit_intercept": True}),
    (NAROW, {}),
    (NAROW, {"b": 0.3, "fit_intercept": True}),
    (NAROW, {"b": 5.0}),
    (NAROW, {"b": 2.0, "covariance": "diag"}),
    (NAROW, {"b": 0.5, "covariance": "diag", "fit_intercept": True}),
    (SecondOrderPerceptron, {}),
    (SecondOrderPerceptron, {"a": 0.2, "fit_intercept": True}),
    (CW, {}),
    (CW, {"eta": 0.7, "covariance": "full"}),
    (CW, {"eta": 0.95, "covariance": "full", "fit_intercept": True}),
    (CW, {"eta": 0.6, "fit_intercept": True}),
    (AdaGrad, {}),
    (AdaGrad, {"eta": 0.3, "delta": 0.0, "fit_intercept": True}),
    (AdaGrad, {"eta": 2.0, "delta": 0.1}),
]
IDS = [cls.__name__ + "-" + ",".join(f"{k}={v}" for k, v in params.items()) for cls, params in CASES]


def _close(actual, expected, rtol=1e-9):
    expected = np.asarray(expected, dtype=float)
    assert_allclose(actual, expected, rtol=rtol, atol=1e-12 * max(1.0, float(np.max(np.abs(expected), initial=0.0))))


def _covariance_of(est, name):
    return est.accumulator_ if name == "AdaGrad" else est.covariance_


@pytest.mark.parametrize("layout", ["dense", "csr", "csc"])
@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_kernel_matches_the_oracle(cls, params, layout, make_stream):
    X, y = make_stream(120, 6, density=0.5, seed=len(IDS[CASES.index((cls, params))]))
    X[7] = 0.0  # a zero row: every learner must take it without dividing by zero
    data = {"dense": X, "csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X)}[layout]
    est = cls(**params)
    res = olearn.run(est, data, y)
    trace = oracle.for_estimator(cls.__name__, est.get_params(), X, y)
    _close(res.scores, trace.scores)
    _close(res.losses, trace.losses)
    _close(res.taus, trace.taus)
    assert_array_equal(res.cumulative_mistakes, np.cumsum(trace.mistakes))
    _close(est.coef_.ravel(), trace.coef)
    _close(est.intercept_, [trace.intercept])
    _close(_covariance_of(est, cls.__name__), trace.covariance)
    assert res.n_updates > 10  # the stream exercises the update


@pytest.mark.parametrize("params", [{"eta": 0.5}, {"eta": 0.3, "delta": 0.0, "fit_intercept": True}])
def test_adagrad_on_long_rows_with_stored_zeros_matches_the_oracle(params, make_stream):
    """Rows of 150 entries, longer than the 64 the update divides at a time, about a third of them stored zeros
    (with delta = 0 a stored zero on a fresh coordinate would divide 0 by 0: it must move nothing)."""
    X, y = make_stream(80, 150, density=0.7, seed=11)
    n, d = X.shape
    every = sp.csr_matrix((X.ravel(), np.tile(np.arange(d, dtype=np.int32), n), np.arange(0, n * d + 1, d)),
                          shape=(n, d))
    assert every.nnz == n * d and np.count_nonzero(every.data == 0.0) > n * d // 4
    est = AdaGrad(**params)
    res = olearn.run(est, every, y)
    trace = oracle.for_estimator("AdaGrad", est.get_params(), X, y)
    assert_array_equal(res.cumulative_mistakes, np.cumsum(trace.mistakes))
    _close(res.scores, trace.scores)
    _close(est.coef_.ravel(), trace.coef)
    _close(est.intercept_, [trace.intercept])
    _close(est.accumulator_, trace.covariance)
    assert res.n_updates > 10


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_learn_one_matches_the_oracle_with_growing_features(cls, params, make_stream):
    """Features that appear late enter with the prior variance and no correlation."""
    X, y = make_stream(60, 5, density=0.7, seed=4)
    X[:25, 3:] = 0.0
    est = cls(**params)
    for x, label in zip(X, y):
        est.learn_one({j: v for j, v in enumerate(x) if v != 0.0}, label)
    trace = oracle.for_estimator(cls.__name__, est.get_params(), X, y)
    assert est.coef_.shape == (1, 5)
    _close(est.coef_.ravel(), trace.coef)
    _close(_covariance_of(est, cls.__name__), trace.covariance)


def test_sop_scores_are_the_papers_times_a_positive_factor(make_stream):
    """w.x = x^T (A + x x^T)^{-1} v * (1 + x^T A^{-1} x): the paper's prediction, same sign."""
    X, y = make_stream(80, 4, seed=9)
    a = 0.5
    res = olearn.run(SecondOrderPerceptron(a=a), X, y)
    trace, paper = oracle.second_order_perceptron(X, y, a=a)
    assert_array_equal(np.sign(res.scores), np.sign(paper))
    # rebuild A_t from the rounds the oracle updated on
    A = a * np.eye(4)
    for x, score, paper_score, mistake in zip(X, res.scores, paper, trace.mistakes):
        _close(score, paper_score * (1.0 + x @ np.linalg.solve(A, x)))
        if mistake:
            A += np.outer(x, x)


def test_narow_paper_margin_is_the_loss_margin(make_stream):
    """The recorded loss is the hinge at m r/(r + chi), the margin with x_t already in A_t."""
    X, y = make_stream(50, 3, seed=2)
    res = olearn.run(NAROW(b=1.5), X, y)
    trace = oracle.narow(X, y, b=1.5)
    _close(res.losses, trace.losses)
    assert not np.allclose(res.losses, np.maximum(0.0, 1.0 - y * res.scores))


def test_diagonal_narow_by_hand():
    """001 Fig. 1 with D_t = diag(A_t), b = 2. Round 1, x = (1, 1): chi = 2, 1/r = b - 1/chi = 3/2,
    D = (5/2, 5/2), margin 0, theta = (1, 1), w = (2/5, 2/5). Round 2, x = (1, 0), y = -1:
    chi = 2/5 <= 1/b so r is infinite, D stays; margin -2/5 < 1: theta = (0, 1), w = (0, 2/5)."""
    est = NAROW(b=2.0, covariance="diag")
    res = olearn.run(est, np.array([[1.0, 1.0], [1.0, 0.0]]), np.array([1, -1]))
    assert_allclose(res.scores, [0.0, 0.4], atol=1e-15)
    assert_allclose(res.taus, [1.0, 1.0])
    assert_allclose(est.coef_, [[0.0, 0.4]], atol=1e-15)
    assert_allclose(est.covariance_, [0.4, 0.4], rtol=1e-15)
