"""bound_report for PA regression, uniclass, multilabel and cost-sensitive learning (Crammer et al. 2006, Sec. 5-8).

Each row's bound is checked twice: against the olearn.bounds function at the
reported competitor, and against the theorem written out here in plain NumPy
from the paper; and measured <= bound on random streams, separable and noisy.
"""

import math

import numpy as np
import pytest

import olearn
from olearn.bounds import (
    bound_report,
    cost_sensitive_bound,
    multilabel_pa1_mistake_bound,
    multilabel_pa2_loss_bound,
    multilabel_pa_separable_bound,
    regression_pa1_bound,
    regression_pa2_loss_bound,
    regression_pa_separable_bound,
    regression_pa_unit_norm_bound,
    uniclass_pa1_bound,
    uniclass_pa2_bound,
    uniclass_pa_bound,
)

# -- regression (Sec. 5) -------------------------------------------------------


def _eps_losses(X, y, u, epsilon, fit_intercept):
    """Eq. (18): max(0, |u.x_t - y_t| - epsilon), x_t with a constant 1 appended if fit_intercept."""
    Z = np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X
    return np.maximum(0.0, np.abs(Z @ u - y) - epsilon), (Z * Z).sum(axis=1).max()


def _regression_reference(theorem, X, y, u, epsilon, C, fit_intercept):
    """The Sec. 5 corollaries of Thms. 2-5, by hand."""
    losses, R2 = _eps_losses(X, y, u, epsilon, fit_intercept)
    u2 = u @ u
    if "Thm. 2" in theorem:
        assert losses.max() == 0
        return R2 * u2
    if "Thm. 3" in theorem:
        return (math.sqrt(u2) + 2 * math.sqrt((losses**2).sum())) ** 2
    if "Thm. 4" in theorem:
        return max(R2, 1 / C) * (u2 + 2 * C * losses.sum())
    return (R2 + 1 / (2 * C)) * (u2 + 2 * C * (losses**2).sum())


def _regression_function(theorem, X, y, u, epsilon, C, fit_intercept):
    if "Thm. 2" in theorem:
        return regression_pa_separable_bound(X, y, u, epsilon, fit_intercept=fit_intercept)
    if "Thm. 3" in theorem:
        return regression_pa_unit_norm_bound(X, y, u, epsilon, fit_intercept=fit_intercept)
    if "Thm. 4" in theorem:
        return regression_pa1_bound(X, y, u, epsilon, C, fit_intercept=fit_intercept)
    return regression_pa2_loss_bound(X, y, u, epsilon, C, fit_intercept=fit_intercept)


def _regression_stream(seed, n=120, d=4, noise=0.0, unit=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if unit:
        X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, X @ rng.normal(size=d) + 0.5 + noise * rng.normal(size=n)


def _regression_rows(variant, X, y, C=0.5, epsilon=0.1, fit_intercept=False, u=None):
    def make():
        return olearn.PARegressor(variant=variant, C=C, epsilon=epsilon, fit_intercept=fit_intercept)

    result = olearn.run(make(), X, y)
    return bound_report(make(), X, y, result, u=u), result


@pytest.mark.parametrize("variant, expected", [
    ("pa", ["Thm. 3"]), ("pa1", ["Thm. 4"]), ("pa2", ["Thm. 5"]),
])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_regression_rows_are_the_theorems_at_the_reported_u(variant, expected, fit_intercept):
    X, y = _regression_stream(0, noise=0.3, unit=True)
    C, epsilon = 0.5, 0.1
    report, result = _regression_rows(variant, X, y, C, epsilon, fit_intercept)
    # the unit-norm Thm. 3 only applies when ||x_t|| = 1, constant feature included
    expected = [] if fit_intercept and expected == ["Thm. 3"] else expected
    assert [next(t for t in ("Thm. 2", "Thm. 3", "Thm. 4", "Thm. 5") if t in row.theorem)
            for row in report.rows] == expected
    for row in report.rows:
        assert row.u.shape == (X.shape[1] + fit_intercept,)
        args = (X, y, row.u, epsilon, C, fit_intercept)
        assert row.bound == pytest.approx(_regression_function(row.theorem, *args), rel=1e-9)
        assert row.bound == pytest.approx(_regression_reference(row.theorem, *args), rel=1e-9)
        assert row.holds and row.measured <= row.bound
    if variant == "pa1":
        assert report.rows[0].measured == int(np.sum(result.losses >= 1.0))
    elif report.rows:
        assert report.rows[0].measured == pytest.approx(float(np.sum(result.losses**2)))


def test_regression_separable_row_needs_u_within_epsilon():
    X, y = _regression_stream(1)            # noiseless: least squares (with the intercept) predicts every y_t
    report, _ = _regression_rows("pa", X, y, epsilon=0.1, fit_intercept=True)
    (row,) = [row for row in report.rows if "Thm. 2" in row.theorem]
    assert row.competitor_loss == 0
    assert row.bound == pytest.approx(_regression_reference(row.theorem, X, y, row.u, 0.1, None, True), rel=1e-9)
    assert row.holds
    # a given u outside the tube is reported as not applicable, not evaluated
    report, _ = _regression_rows("pa", X, y, epsilon=0.1, fit_intercept=True, u=np.zeros(X.shape[1] + 1))
    assert not report.rows
    assert any("Thm. 2" in theorem and "misses the tube" in reason for theorem, reason in report.skipped)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("noise", [0.0, 1.0])
@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
def test_regression_bounds_hold_on_random_streams(seed, noise, variant):
    X, y = _regression_stream(seed, n=150, noise=noise, unit=seed % 2 == 0)
    report, _ = _regression_rows(variant, X, y, C=[0.05, 1.0, 10.0, 0.3][seed], epsilon=0.05)
    assert report.rows or variant == "pa"
    assert report.all_hold, str(report)


def test_regression_given_u_is_used_as_is():
    X, y = _regression_stream(2, noise=0.5)
    u = np.array([0.1, -0.2, 0.3, 0.0])
    report, _ = _regression_rows("pa2", X, y, C=0.5, epsilon=0.1, u=u)
    (row,) = report.rows
    np.testing.assert_array_equal(row.u, u)
    assert row.bound == pytest.approx(_regression_reference(row.theorem, X, y, u, 0.1, 0.5, False), rel=1e-12)


def test_kernel_regressor_is_refused():
    X, y = _regression_stream(3)
    est = olearn.PARegressor(kernel="rbf")
    with pytest.raises(ValueError, match="linear learner"):
        bound_report(est, X, y, olearn.run(olearn.PARegressor(kernel="rbf"), X, y))


# -- uniclass (Sec. 6) ---------------------------------------------------------


def _uniclass_reference(variant, Y, u, epsilon, C, B):
    """Sec. 6 by hand: Lemma 1 with ||z_t|| = 1; with a learned radius, in the lifted space
    y_t -> (y_t, 0), w_1 = (0, B), u -> (u, sqrt(B^2 - epsilon^2)), radius B."""
    if B is None:
        start = u @ u
        losses = np.maximum(0.0, np.linalg.norm(Y - u, axis=1) - epsilon)
    else:
        u_lifted, last = np.append(u, math.sqrt(B**2 - epsilon**2)), len(u)
        Y_lifted = np.hstack([Y, np.zeros((len(Y), 1))])
        w_1 = np.zeros(last + 1)
        w_1[last] = B
        start = (u_lifted - w_1) @ (u_lifted - w_1)
        losses = np.maximum(0.0, np.linalg.norm(Y_lifted - u_lifted, axis=1) - B)
    if variant == "pa":
        return (math.sqrt(start) + 2 * math.sqrt((losses**2).sum())) ** 2
    if variant == "pa1":
        return start + 2 * C * losses.sum()
    return (1 + 1 / (2 * C)) * (start + 2 * C * (losses**2).sum())


def _uniclass_function(variant, Y, u, epsilon, C, B):
    if variant == "pa":
        return uniclass_pa_bound(Y, u, epsilon, B=B)
    return (uniclass_pa1_bound if variant == "pa1" else uniclass_pa2_bound)(Y, u, epsilon, C, B=B)


def _uniclass_stream(seed, n=150, d=3, spread=1.0, drift=0.0):
    rng = np.random.default_rng(seed)
    center = rng.normal(scale=3.0, size=d) + drift * np.linspace(0, 1, n)[:, None]
    return center + spread * rng.normal(size=(n, d))


UNICLASS_LEARNERS = [
    dict(variant="pa", epsilon=1.0), dict(variant="pa1", C=0.3, epsilon=0.5), dict(variant="pa2", C=2.0, epsilon=1.5),
    dict(variant="pa", learn_radius=True, B=10.0), dict(variant="pa1", C=0.5, learn_radius=True, B=10.0),
    dict(variant="pa2", C=1.0, learn_radius=True, B=50.0),
]


def _uniclass_rows(params, Y, u=None):
    result = olearn.run(olearn.PAUniclass(**params), Y)
    return bound_report(olearn.PAUniclass(**params), Y, None, result, u=u), result


@pytest.mark.parametrize("params", UNICLASS_LEARNERS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_uniclass_rows_are_the_theorems_at_the_reported_center(params):
    Y = _uniclass_stream(0)
    report, result = _uniclass_rows(params, Y)
    variant, C = params["variant"], params.get("C")
    B = params["B"] if params.get("learn_radius") else None
    (row,) = report.rows
    assert row.u.shape == (3,)
    if B is None:
        assert row.radius == params["epsilon"]       # a fixed radius: the learner's is the competitor's
    else:
        assert 0 <= row.radius <= B
    assert row.bound == pytest.approx(_uniclass_function(variant, Y, row.u, row.radius, C, B), rel=1e-9)
    assert row.bound == pytest.approx(_uniclass_reference(variant, Y, row.u, row.radius, C, B), rel=1e-9)
    measured = {"pa": np.sum(result.losses**2), "pa1": np.sum(result.taus * result.losses),
                "pa2": np.sum(result.losses**2)}[variant]
    assert row.measured == pytest.approx(measured)
    assert row.holds


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("spread, drift", [(0.0, 0.0), (0.3, 0.0), (2.0, 0.0), (0.5, 5.0)])
@pytest.mark.parametrize("params", UNICLASS_LEARNERS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_uniclass_bounds_hold_on_random_streams(seed, spread, drift, params):
    Y = _uniclass_stream(seed, spread=spread, drift=drift)
    report, _ = _uniclass_rows(params, Y)
    assert len(report.rows) == 1
    assert report.all_hold, str(report)


def test_uniclass_given_center_is_used():
    Y = _uniclass_stream(1)
    u = np.array([0.5, -0.5, 1.0])
    report, _ = _uniclass_rows(dict(variant="pa2", C=0.5, epsilon=0.7), Y, u=u)
    (row,) = report.rows
    np.testing.assert_array_equal(row.u, u)
    assert row.bound == pytest.approx(_uniclass_reference("pa2", Y, u, 0.7, 0.5, None), rel=1e-12)


# -- cost-sensitive multiclass (Sec. 8) ----------------------------------------

COST = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])


def _cost_reference(variant, X, y, U, cost, C):
    """Sec. 8 by hand: R^2 = 2 max ||x_t||^2, U's max-loss losses, Thms. 2/4/5 on the cost, plus k rho_max."""
    U, k = np.asarray(U), len(cost)
    R2, u2, rho_max = 2 * (X * X).sum(axis=1).max(), (U * U).sum(), cost.max()
    losses = np.array([max(U[r] @ x - U[label] @ x + math.sqrt(cost[label, r]) for r in range(k))
                       for x, label in zip(X, y)])
    if variant == "pa":
        bound = R2 * u2 if losses.max() <= 0 else math.inf
    elif variant == "pa1":
        bound = max(R2, math.sqrt(rho_max) / C) * (u2 + 2 * C * losses.sum())
    else:
        bound = (R2 + 1 / (2 * C)) * (u2 + 2 * C * (losses**2).sum())
    return bound + k * rho_max


def _cost_stream(seed, n=150, noise=0.0):
    """Three classes, y_t = argmax of a linear score (plus noise); noiseless rows keep a gap of 0.5."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4 * n, 3))
    scores = X @ rng.normal(size=(3, 3))
    top = np.sort(scores, axis=1)
    if noise == 0:
        X, scores = X[top[:, -1] - top[:, -2] > 0.5][:n], scores[top[:, -1] - top[:, -2] > 0.5][:n]
    else:
        X, scores = X[:n], scores[:n] + noise * rng.normal(size=(n, 3))
    return X, np.argmax(scores, axis=1)


COST_LEARNERS = [
    dict(variant="pa"), dict(variant="pa1", C=0.3), dict(variant="pa2", C=1.0),
    dict(variant="pa1", C=2.0, update="max-loss"), dict(variant="pa2", C=0.1, update="max-loss"),
]


def _cost_rows(params, X, y, U=None):
    def make():
        return olearn.PACostSensitive(cost=COST, **params)

    result = olearn.run(make(), X, y)
    return bound_report(make(), X, y, result, u=U), result


@pytest.mark.parametrize("params", COST_LEARNERS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_cost_sensitive_row_is_the_theorem_at_the_reported_U(params):
    X, y = _cost_stream(0)
    report, result = _cost_rows(params, X, y)
    (row,) = report.rows
    assert row.u.shape == (3, 3)
    C = params.get("C", 1.0)
    assert row.bound == pytest.approx(cost_sensitive_bound(X, y, row.u, COST, params["variant"], C), rel=1e-9)
    assert row.bound == pytest.approx(_cost_reference(params["variant"], X, y, row.u, COST, C), rel=1e-9)
    assert row.measured == COST[y, result.predictions].sum()
    assert row.holds


def test_cost_sensitive_given_U_is_used():
    X, y = _cost_stream(1, noise=1.0)
    U = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    report, _ = _cost_rows(dict(variant="pa2", C=0.5), X, y, U=U)
    (row,) = report.rows
    np.testing.assert_array_equal(row.u, U)
    assert row.bound == pytest.approx(_cost_reference("pa2", X, y, U, COST, 0.5), rel=1e-12)


# -- multilabel ranking (Sec. 7) -----------------------------------------------


def _multilabel_reference(variant, X, label_sets, U, C, fit_intercept):
    """Sec. 7 by hand: R^2 = 2 max ||x_t||^2, U's margin min over Y_t minus max over the rest (no loss when
    Y_t is empty or holds every label), Thms. 2/4/5."""
    Z = np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X
    labels = sorted({label for labels in label_sets for label in labels})
    R2, u2 = 2 * (Z * Z).sum(axis=1).max(), (U * U).sum()
    losses = []
    for z, relevant in zip(Z, label_sets):
        scores = {label: U[i] @ z for i, label in enumerate(labels)}
        inside = [scores[r] for r in relevant]
        outside = [scores[s] for s in labels if s not in relevant]
        losses.append(max(0.0, 1 - (min(inside) - max(outside))) if inside and outside else 0.0)
    losses = np.array(losses)
    if variant == "pa":
        return R2 * u2 if losses.max() == 0 else math.inf
    if variant == "pa1":
        return max(R2, 1 / C) * (u2 + 2 * C * losses.sum())
    return (R2 + 1 / (2 * C)) * (u2 + 2 * C * (losses**2).sum())


def _multilabel_stream(seed, n=150, noise=0.0):
    """Labels 'a'..'e': those whose linear score (plus noise) is above 0.5; noiseless rows keep a gap of 0.3."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4 * n, 4))
    scores = X @ rng.normal(size=(4, 5))
    if noise == 0:
        keep = (np.abs(scores - 0.5) > 0.3).all(axis=1)
        X, scores = X[keep][:n], scores[keep][:n]
    else:
        X, scores = X[:n], scores[:n] + noise * rng.normal(size=(n, 5))
    return X, [tuple("abcde"[r] for r in np.flatnonzero(row > 0.5)) for row in scores]


MULTILABEL_LEARNERS = [dict(variant="pa"), dict(variant="pa1", C=0.3), dict(variant="pa2", C=1.0),
                       dict(variant="pa1", C=2.0, fit_intercept=True), dict(variant="pa2", C=0.1, fit_intercept=True)]


def _multilabel_function(variant, X, y, U, C, fit_intercept):
    if variant == "pa":
        return multilabel_pa_separable_bound(X, y, U, fit_intercept=fit_intercept)
    function = multilabel_pa1_mistake_bound if variant == "pa1" else multilabel_pa2_loss_bound
    return function(X, y, U, C, fit_intercept=fit_intercept)


def _multilabel_rows(params, X, y, U=None):
    result = olearn.run(olearn.PAMultilabel(**params), X, y)
    return bound_report(olearn.PAMultilabel(**params), X, y, result, u=U), result


@pytest.mark.parametrize("params", MULTILABEL_LEARNERS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_multilabel_row_is_the_theorem_at_the_reported_U(params):
    X, y = _multilabel_stream(0)
    report, result = _multilabel_rows(params, X, y)
    (row,) = report.rows
    fit_intercept = params.get("fit_intercept", False)
    assert row.u.shape == (5, 4 + fit_intercept)
    args = (params["variant"], X, y, row.u, params.get("C"), fit_intercept)
    assert row.bound == pytest.approx(_multilabel_function(*args), rel=1e-9)
    assert row.bound == pytest.approx(_multilabel_reference(*args), rel=1e-9)
    expected = result.n_mistakes if params["variant"] == "pa1" else np.sum(result.losses**2)
    assert row.measured == pytest.approx(expected)
    assert row.holds


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("noise", [0.0, 0.5, 3.0])
@pytest.mark.parametrize("task, params", [*(("cost-sensitive", p) for p in COST_LEARNERS),
                                          *(("multilabel", p) for p in MULTILABEL_LEARNERS)],
                         ids=lambda v: v if isinstance(v, str) else "-".join(f"{k}={w}" for k, w in v.items()))
def test_cost_sensitive_and_multilabel_bounds_hold_on_random_streams(seed, noise, task, params):
    stream, rows = (_cost_stream, _cost_rows) if task == "cost-sensitive" else (_multilabel_stream, _multilabel_rows)
    X, y = stream(seed, noise=noise)
    report, _ = rows(params, X, y)
    assert report.rows or params["variant"] == "pa"
    assert report.all_hold, str(report)


def test_cost_sensitive_classes_declared_before_learning_and_absent_from_y():
    """A learner told of classes 0, 1, 2 (as olearn run --costs does) that meets only 0 and 2: U has a row for 1."""
    X, y = _cost_stream(2, noise=0.5)
    X, y = X[y != 1], y[y != 1]
    learner = olearn.PACostSensitive(variant="pa1", C=0.5, cost=COST)
    learner.partial_fit(np.empty((0, 3)), [], classes=[0, 1, 2])
    result = olearn.run(learner, X, y)
    report = bound_report(learner, X, y, result)
    (row,) = report.rows
    assert row.u.shape == (3, 3)
    assert row.bound == pytest.approx(cost_sensitive_bound(X, y, row.u, COST, "pa1", 0.5, classes=[0, 1, 2]),
                                      rel=1e-9)
    assert row.bound == pytest.approx(_cost_reference("pa1", X, y, row.u, COST, 0.5), rel=1e-9)
    assert row.measured == COST[y, result.predictions].sum()
    assert row.holds
