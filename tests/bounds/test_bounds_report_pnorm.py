"""bound_report for the conservative PNorm: Shalev-Shwartz & Singer's Example 3, against a NumPy transcription."""

import numpy as np
import pytest
from sklearn.base import clone

from olearn import PNorm, run
from olearn.bounds import bound_report


def _stream(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _by_hand(Z, y, u, p):
    """min over C of (||u||_q^2 / 2 + C L) / (C - C^2 s / 2), s = (p - 1) max ||x_t||_p^2, on a fine grid of C."""
    q = p / (p - 1)
    s = (p - 1) * max(np.sum(np.abs(z) ** p) ** (2 / p) for z in Z)
    L = np.maximum(0.0, 1.0 - y * (Z @ u)).sum()
    C = np.linspace(1e-6, 2.0 / s - 1e-6, 200_001)
    return ((np.sum(np.abs(u) ** q) ** (2 / q) / 2 + C * L) / (C - C * C * s / 2)).min(), L


@pytest.mark.parametrize(("p", "fit_intercept"), [(2.0, False), (3.0, False), (5.0, True)])
def test_row_is_example_3_at_its_u(p, fit_intercept):
    X, y = _stream()
    est = PNorm(p=p, fit_intercept=fit_intercept)
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    assert row.theorem == "Shalev-Shwartz & Singer 2006, Example 3 (p-norm, best C)"
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    bound, loss = _by_hand(Z, y, row.u, p)
    assert row.bound == pytest.approx(bound, rel=1e-5) and row.bound <= bound * (1 + 1e-12)
    assert row.competitor_loss == pytest.approx(loss, rel=1e-12)
    assert row.quantity == "mistakes" and row.measured == res.n_mistakes
    assert row.holds and row.measured <= row.bound


def test_a_given_u_is_used():
    X, y = _stream(seed=1)
    u = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    est = PNorm(p=4.0)
    (row,) = bound_report(est, X, y, run(clone(est), X, y), u=u).rows
    assert np.array_equal(row.u, u)
    assert row.bound == pytest.approx(_by_hand(X, y, u, 4.0)[0], rel=1e-5)


def test_the_aggressive_form_is_not_applicable():
    X, y = _stream(n=40)
    est = PNorm(aggressive=True)
    report = bound_report(est, X, y, run(clone(est), X, y))
    assert report.rows == () and "aggressive=False" in report.skipped[0][1]
