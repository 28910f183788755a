"""bound_report for OGDClassifier: the slides' OGD regret bound, against a NumPy transcription."""

import numpy as np
import pytest
from sklearn.base import clone

from olearn import OGDClassifier, run
from olearn.bounds import bound_report


def _stream(n=250, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.3, 2.0, d)
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _ogd_hinge_losses(Z, y, eta):
    """The slides' OGD: w_1 = 0, L_hi(y_t, w_t.x_t) incurred, then w += 1{y_t w_t.x_t < 1} eta y_t x_t."""
    w, losses = np.zeros(Z.shape[1]), []
    for x, label in zip(Z, y):
        margin = label * (w @ x)
        losses.append(max(0.0, 1.0 - margin))
        if margin < 1:
            w = w + eta * label * x
    return np.array(losses)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("eta", [0.01, 0.3])
def test_row_is_the_regret_bound_at_its_u(eta, fit_intercept):
    X, y = _stream()
    est = OGDClassifier(loss="hinge", schedule="constant", eta=eta, fit_intercept=fit_intercept)
    (row,) = bound_report(est, X, y, run(clone(est), X, y)).rows
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    hinge = np.maximum(0.0, 1.0 - y * (Z @ row.u)).sum()
    R2 = max(float(z @ z) for z in Z)
    assert row.theorem == "UCL COMP0078 slides, Regret Bound for OGD, Eq. (6) with any eta"
    assert row.quantity == "sum of hinge losses"
    assert row.bound == pytest.approx(hinge + (row.u @ row.u) / (2 * eta) + eta * X.shape[0] * R2 / 2, rel=1e-10)
    assert row.competitor_loss == pytest.approx(hinge, rel=1e-10)
    assert row.measured == pytest.approx(_ogd_hinge_losses(Z, y, eta).sum(), rel=1e-10)
    assert row.holds and row.measured <= row.bound


def test_at_the_theorems_step_a_given_u_meets_eq_6():
    """eta = U / (R sqrt(m)) with U = ||u||: the bound is L(u) + sqrt(U^2 R^2 m)."""
    X, y = _stream(seed=1)
    u = np.array([1.0, -0.5, 0.3, 2.0])
    R, m = np.linalg.norm(X, axis=1).max(), X.shape[0]
    eta = np.linalg.norm(u) / (R * np.sqrt(m))
    est = OGDClassifier(loss="hinge", schedule="constant", eta=eta)
    (row,) = bound_report(est, X, y, run(clone(est), X, y), u=u).rows
    hinge = np.maximum(0.0, 1.0 - y * (X @ u)).sum()
    assert row.bound == pytest.approx(hinge + np.sqrt(u @ u * R**2 * m), rel=1e-10)
    assert np.array_equal(row.u, u) and row.holds


@pytest.mark.parametrize(("params", "named"), [
    ({}, "schedule='sqrt'"),
    ({"schedule": "constant", "loss": "logistic"}, "loss='logistic'"),
    ({"schedule": "constant", "radius": 2.0}, "radius=2.0"),
    ({"schedule": "constant", "conservative": True}, "conservative=True"),
])
def test_other_ogd_forms_are_not_applicable(params, named):
    X, y = _stream(n=40)
    report = bound_report(OGDClassifier(**params), X, y, run(OGDClassifier(**params), X, y))
    assert report.rows == () and named in report.skipped[0][1]
