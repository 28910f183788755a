"""A full covariance stays positive definite on features of very different scales (a timestamp of about 1e8).

Subtracting the rank-one term from Sigma made a variance of -1,062 after the
first row with a feature of 1e8: the model learned on, wrongly, and saved a
file that load refused. The references are the papers' updates in 50-digit
arithmetic (mpmath), transcribed from the math: AROW (Crammer, Kulesza &
Dredze 2009, Fig. 1) in Sigma, NAROW (Orabona & Crammer 2010, Fig. 1) in
theta and A, the Second-Order Perceptron (Cesa-Bianchi, Conconi & Gentile
2005, Fig. 2) in v and A.
"""

import mpmath
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import olearn
from olearn.second_order import AROW, CW, NAROW, SecondOrderPerceptron

# a timestamp-like feature beside features of order 1, then a mix of scales from 1e-8 to 1e8
TIMESTAMPS = np.array([[1.7e8, 1.0, 0.5], [1.7e8 + 60.0, -1.0, 0.3], [1.7e8 + 90.0, 0.2, 1.0],
                       [1.7e8 + 200.0, 0.7, -0.4], [1.7e8 + 260.0, -0.3, 0.9]])
MIXED = np.array([[1e8, 1e-8, 1.0, 1e4], [3e-8, 2e7, -1.0, 1e-4], [-1e8, 5e-5, 2.0, 3e3],
                  [1e-6, -1e8, 0.5, 1.0], [4e7, 1e-8, -3e2, 1e-8], [2e-8, 3e6, 1.0, -7e4]])
Y = np.array([1, -1, 1, -1, -1, 1])


def _vector(x):
    return mpmath.matrix([mpmath.mpf(float(v)) for v in x])


def _dot(a, b):
    return sum((a[i] * b[i] for i in range(a.rows)), mpmath.mpf(0))


def _arow(X, y, r):
    """Fig. 1: beta = 1/(x^T S x + r), alpha = max(0, 1 - y w.x) beta, w += alpha y S x, S -= beta S x x^T S."""
    d = X.shape[1]
    w, S = mpmath.matrix(d, 1), mpmath.eye(d)
    for row, label in zip(X, map(int, y)):
        x = _vector(row)
        Sx = S * x
        loss = max(mpmath.mpf(0), 1 - label * _dot(w, x))
        if loss > 0:
            beta = 1 / (_dot(x, Sx) + r)
            w = w + loss * beta * label * Sx
            S = S - beta * (Sx * Sx.T)
    return w


def _narow(X, y, b):
    """Fig. 1: r_t = chi/(b chi - 1) when chi = x^T A^-1 x > 1/b (else A is kept); on a hinge loss at the margin of
    A_t = A + x x^T / r_t, keep A_t and theta += y x; w = A^-1 theta."""
    d = X.shape[1]
    theta, A = mpmath.matrix(d, 1), mpmath.eye(d)
    for row, label in zip(X, map(int, y)):
        x = _vector(row)
        chi = _dot(x, mpmath.lu_solve(A, x))
        A_next = A + (b - 1 / chi) * (x * x.T) if b * chi > 1 else A
        if 1 - label * _dot(x, mpmath.lu_solve(A_next, theta)) > 0:
            A, theta = A_next, theta + label * x
    return mpmath.lu_solve(A, theta)


def _sop(X, y, a):
    """Fig. 2: on a mistake (y x^T (A + x x^T)^-1 v <= 0), A += x x^T and v += y x, from A = aI, v = 0; w = A^-1 v."""
    d = X.shape[1]
    v, A = mpmath.matrix(d, 1), a * mpmath.eye(d)
    for row, label in zip(X, map(int, y)):
        x = _vector(row)
        if label * _dot(x, mpmath.lu_solve(A + x * x.T, v)) <= 0:
            A, v = A + x * x.T, v + label * x
    return mpmath.lu_solve(A, v)


CASES = [(AROW, {"r": 0.5, "covariance": "full"}, lambda X, y: _arow(X, y, mpmath.mpf("0.5"))),
         (NAROW, {"b": 2.0, "covariance": "full"}, lambda X, y: _narow(X, y, mpmath.mpf(2))),
         (SecondOrderPerceptron, {"a": 1.0}, lambda X, y: _sop(X, y, mpmath.mpf(1)))]


def _check_positive_definite_and_loads(model, X, tmp_path):
    covariance = model.covariance_
    assert_array_equal(covariance, covariance.T)
    assert np.all(np.diag(np.linalg.cholesky(covariance)) > 0.0)
    loaded = olearn.load(model.save(tmp_path / "m.npz"))
    assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert_array_equal(loaded.covariance_, covariance)


@pytest.mark.parametrize("X", [TIMESTAMPS, MIXED], ids=["timestamps", "mixed-scales"])
@pytest.mark.parametrize(("cls", "params", "reference"), CASES, ids=[c[0].__name__ for c in CASES])
def test_full_covariance_stays_positive_definite_and_exact(cls, params, reference, X, tmp_path):
    y = Y[: len(X)]
    model = cls(**params).partial_fit(X, y)
    with mpmath.workdps(50):
        w = reference(X, y)
        exact = [float(_dot(_vector(row), w)) for row in X]
    expected = np.array([float(v) for v in w])
    assert_allclose(model.coef_[0], expected, rtol=1e-6, atol=1e-12 * np.abs(expected).max())
    # the scores of the rows, dominated by the large features, agree to the same relative accuracy
    assert_allclose(model.decision_function(X), exact, rtol=1e-6)
    _check_positive_definite_and_loads(model, X, tmp_path)


@pytest.mark.parametrize("X", [TIMESTAMPS, MIXED], ids=["timestamps", "mixed-scales"])
def test_cw_full_covariance_stays_positive_definite(X, tmp_path):
    model = CW(covariance="full", eta=0.9).partial_fit(X, Y[: len(X)])
    _check_positive_definite_and_loads(model, X, tmp_path)

