"""bound_report for the Second-Order Perceptron and full-covariance AROW and NAROW: rows against NumPy."""

import numpy as np
import pytest
from sklearn.base import clone

from olearn import AROW, NAROW, SecondOrderPerceptron, run
from olearn.bounds import bound_report


def _separable(n=200, seed=0):
    """Points at least 0.5 ||w|| from the hyperplane w.x = 0."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=3)
    X = rng.normal(size=(8 * n, 3))
    X = X[np.abs(X @ w) > 0.5 * np.linalg.norm(w)][:n]
    return X, np.where(X @ w > 0, 1, -1)


def _by_hand(est, X, y, res, u):
    """The theorem's right-hand side at u, from the run's flags, in plain NumPy (dense d x d matrices)."""
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if est.fit_intercept else X
    mistaken = np.diff(res.cumulative_mistakes, prepend=0) > 0
    rounds = mistaken if isinstance(est, SecondOrderPerceptron) else res.taus != 0
    margin_errors = np.sum(rounds & ~mistaken)
    hinge = np.maximum(0.0, 1.0 - y[rounds] * (Z[rounds] @ u)).sum()
    if isinstance(est, NAROW):  # replay A_t = A_{t-1} + x x^T / r_t, 1/r_t = max(0, b - 1/chi_t), on the updates
        A, shrunk = np.eye(Z.shape[1]), 0.0
        for x in Z[rounds]:
            chi = x @ np.linalg.inv(A) @ x
            inverse_r = max(0.0, est.b - 1.0 / chi)
            shrunk += chi / (1.0 + chi * inverse_r)
            A = A + inverse_r * np.outer(x, x)
        return hinge + np.sqrt(u @ A @ u * (shrunk + 2 * margin_errors)) - margin_errors, hinge
    scale = est.a if isinstance(est, SecondOrderPerceptron) else est.r
    X_S = Z[rounds].T @ Z[rounds]
    logdet = np.linalg.slogdet(np.eye(Z.shape[1]) + X_S / scale)[1]
    quadratic = scale * (u @ u) + u @ X_S @ u
    if isinstance(est, SecondOrderPerceptron):  # Cesa-Bianchi, Conconi & Gentile 2005, Thm. 1
        return hinge + np.sqrt(quadratic * logdet), hinge
    return hinge + np.sqrt(quadratic * (logdet + margin_errors)) - margin_errors, hinge


LEARNERS = [SecondOrderPerceptron(a=1.0), SecondOrderPerceptron(a=0.2, fit_intercept=True),
            AROW(r=1.0, covariance="full"), AROW(r=0.1, covariance="full", fit_intercept=True),
            NAROW(b=1.0, covariance="full"), NAROW(b=0.1, covariance="full", fit_intercept=True)]


@pytest.mark.parametrize("est", LEARNERS, ids=repr)
def test_default_row_is_the_theorem_at_the_margin_one_separator(est):
    X, y = _separable()
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if est.fit_intercept else X
    assert np.min(y * (Z @ row.u)) == pytest.approx(1.0, rel=1e-9)  # scaled to margin 1: no loss
    bound, loss = _by_hand(est, X, y, res, row.u)
    assert loss == 0.0 and row.competitor_loss == 0.0
    assert row.bound == pytest.approx(bound, rel=1e-9)
    assert row.quantity == "mistakes" and row.measured == res.n_mistakes
    assert row.holds and row.measured <= row.bound < X.shape[0] / 2  # the bound says something here


@pytest.mark.parametrize("est", LEARNERS[::2], ids=repr)
def test_a_given_u_is_used_on_an_inseparable_stream(est):
    X, y = _separable(seed=1)
    y[::7] *= -1
    res = run(clone(est), X, y)
    report = bound_report(est, X, y, res)
    assert report.rows == () and "pass u" in report.skipped[0][1]
    u = np.array([0.5, -1.0, 2.0])
    (row,) = bound_report(est, X, y, res, u=u).rows
    bound, loss = _by_hand(est, X, y, res, u)
    assert row.bound == pytest.approx(bound, rel=1e-9) and row.competitor_loss == pytest.approx(loss, rel=1e-12)
    assert np.array_equal(row.u, u) and row.holds and row.measured <= row.bound


def test_diagonal_arow_and_class_weights_are_refused():
    X, y = _separable(n=40)
    for est, reason in [(AROW(covariance="diag"), "full covariance"),
                        (SecondOrderPerceptron(class_weight={1: 2.0}), "class_weight")]:
        with pytest.raises(ValueError, match=reason):
            bound_report(est, X, y, run(clone(est), X, y))


@pytest.mark.parametrize("est", [NAROW(b=1.0, covariance="diag"), NAROW(b=0.1, covariance="diag", fit_intercept=True)],
                         ids=repr)
def test_diagonal_narow_row_bounds_the_updates(est):
    X, y = _separable(seed=2)
    res = run(clone(est), X, y)
    (row,) = bound_report(est, X, y, res).rows
    Z = np.hstack([X, np.ones((X.shape[0], 1))]) if est.fit_intercept else X
    updated = res.taus != 0
    D = np.ones(Z.shape[1])  # D_t = D_{t-1} + max(0, b - 1/chi_t) x_t^2 on the updates, chi_t = x' D^-1 x
    for x in Z[updated]:
        chi = np.sum(x * x / D)
        D = D + max(0.0, est.b - 1.0 / chi) * x * x
    theta = y[updated] @ Z[updated]
    hinge = np.maximum(0.0, 1.0 - y[updated] * (Z[updated] @ row.u)).sum()
    assert hinge == 0.0 and np.min(y * (Z @ row.u)) == pytest.approx(1.0, rel=1e-9)
    assert row.bound == pytest.approx(np.sqrt((row.u**2 @ D) * (theta**2 @ (1 / D))), rel=1e-9)
    assert row.quantity == "updates" and row.measured == np.sum(updated) >= res.n_mistakes
    assert row.holds and row.measured <= row.bound
