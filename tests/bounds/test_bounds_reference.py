"""Each bound against a one-line NumPy transcription of the paper's statement.

The reference below is written from the theorems alone (dense arrays, the
formula as printed); it shares no code with olearn.bounds.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from olearn.bounds import (
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
)


def _augment(X, fit_intercept):
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def ref_novikoff(X, y, u):
    R = np.max(np.linalg.norm(X, axis=1))
    gamma = np.min(y * (X @ u)) / np.linalg.norm(u)
    return (R / gamma) ** 2 if gamma > 0 else math.inf


def ref_perceptron(X, y, u, mask):
    """000 Thm. 2, M <= L + 1/2 ||w||^2 (1 + sqrt(1 + 4 L / ||w||^2)), applied to x / R and w = R u."""
    R = np.max(np.linalg.norm(X, axis=1))
    L = np.sum(np.maximum(0, 1 - y * (X @ u))[mask])
    w2 = R**2 * np.linalg.norm(u) ** 2
    if w2 == 0:
        return L
    return L + 0.5 * w2 * (1 + np.sqrt(1 + 4 * L / w2))


def ref_pa_thm2(X, y, u):
    R = np.max(np.linalg.norm(X, axis=1))
    return np.linalg.norm(u) ** 2 * R**2 if np.all(y * (X @ u) >= 1) else math.inf


def ref_pa_thm3(X, y, u):
    lstar = np.maximum(0, 1 - y * (X @ u))
    return (np.linalg.norm(u) + 2 * np.sqrt(np.sum(lstar**2))) ** 2


def ref_pa_thm4(X, y, u, C):
    R = np.max(np.linalg.norm(X, axis=1))
    lstar = np.maximum(0, 1 - y * (X @ u))
    return max(R**2, 1 / C) * (np.linalg.norm(u) ** 2 + 2 * C * np.sum(lstar))


def ref_pa_thm5(X, y, u, C):
    R = np.max(np.linalg.norm(X, axis=1))
    lstar = np.maximum(0, 1 - y * (X @ u))
    return (R**2 + 1 / (2 * C)) * (np.linalg.norm(u) ** 2 + 2 * C * np.sum(lstar**2))


def _close(library, reference, abs_tol=1e-12):
    if math.isinf(reference):
        return library == math.inf
    return library == pytest.approx(reference, rel=1e-10, abs=abs_tol)


def _sqrt_tol(Z, y, u):
    """Slack for R ||u|| sqrt(L): when L is a few ulps (margins of exactly 1 up to
    rounding), sqrt turns the rounding of the dot products into ~sqrt(eps) errors."""
    rounding = 1e-14 * y.size * max(1.0, float(np.max(np.abs(Z @ u))))
    return np.max(np.linalg.norm(Z, axis=1)) * np.linalg.norm(u) * math.sqrt(rounding) + 1e-12


@settings(deadline=None, max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 50),
    d=st.integers(1, 6),
    fit_intercept=st.booleans(),
    sparse=st.booleans(),
    C=st.sampled_from([0.01, 0.3, 1.0, 7.0, 1000.0]),
    scale=st.sampled_from([0.1, 1.0, 10.0]),
)
def test_library_matches_the_papers_formulas(seed, n, d, fit_intercept, sparse, C, scale):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale * (rng.random((n, d)) < 0.7)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    Z = _augment(X, fit_intercept)
    # a u that separates now and then (the true labels' direction), else a random one
    if rng.random() < 0.5:
        u = rng.normal(size=Z.shape[1])
    else:
        u = rng.normal(size=Z.shape[1])
        y = np.where(Z @ u > 0, 1, -1)
        # scaled away from margins of exactly 1, where rounding decides which side a row is on
        u = u * rng.choice([0.5, 1.0, (1 + 1e-9) / max(np.min(np.abs(Z @ u)), 1e-3)])
    mask = rng.random(n) < 0.5
    Xin = sp.csr_matrix(X) if sparse else X
    kw = {"fit_intercept": fit_intercept}

    assert _close(novikoff_bound(Xin, y, u, **kw), ref_novikoff(Z, y, u))
    tol = _sqrt_tol(Z, y, u)
    assert _close(perceptron_bound(Xin, y, u, mistakes=mask, **kw), ref_perceptron(Z, y, u, mask), tol)
    assert _close(perceptron_bound(Xin, y, u, **kw), ref_perceptron(Z, y, u, np.ones(n, dtype=bool)), tol)
    assert _close(pa_separable_bound(Xin, y, u, **kw), ref_pa_thm2(Z, y, u))
    assert _close(pa1_mistake_bound(Xin, y, u, C=C, **kw), ref_pa_thm4(Z, y, u, C))
    assert _close(pa2_loss_bound(Xin, y, u, C=C, **kw), ref_pa_thm5(Z, y, u, C))

    rows = np.linalg.norm(X, axis=1) > 0
    if not fit_intercept and rows.any():
        Xn = X[rows] / np.linalg.norm(X[rows], axis=1, keepdims=True)
        Xn_in = sp.csr_matrix(Xn) if sparse else Xn
        assert _close(pa_unit_norm_bound(Xn_in, y[rows], u), ref_pa_thm3(Xn, y[rows], u))


def test_reference_and_library_agree_on_a_fixed_stream():
    # A plain regression guard with numbers one can recompute by hand or in any tool.
    rng = np.random.default_rng(12345)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=40) > 0, 1, -1)
    u = np.array([0.7, -1.1, 0.2])
    assert pa1_mistake_bound(X, y, u, C=0.5) == pytest.approx(ref_pa_thm4(X, y, u, 0.5), rel=1e-12)
    assert pa2_loss_bound(X, y, u, C=0.5) == pytest.approx(ref_pa_thm5(X, y, u, 0.5), rel=1e-12)
    assert perceptron_bound(X, y, u) == pytest.approx(ref_perceptron(X, y, u, np.ones(40, bool)), rel=1e-12)
