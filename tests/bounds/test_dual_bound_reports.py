"""bound_report for Winnow and DualAscent (Shalev-Shwartz & Singer 2006, Examples 2-3, Thm. 3, Eq. (30)).

Each row's bound is checked against the olearn.bounds function at the
reported competitor and against the paper's formula written out here in
NumPy; the measured values must stay below the bounds on separable and
noisy streams.
"""

import math

import numpy as np
import pytest

import olearn
from olearn import DualAscent, Winnow
from olearn.bounds import (
    aggressive_dual_loss_bound,
    aggressive_dual_mistake_bound,
    bound_report,
    pnorm_mistake_bound,
    winnow_gamma_bound,
    winnow_mistake_bound,
)


def stream(seed, noise, n=150, d=5, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, d)) * scale
    w = np.array([1.0, -0.7, 0.4, 0.0, 0.2])[:d]
    score = X @ w
    keep = np.abs(score) > 0.1 * scale  # a margin when noiseless
    X, score = X[keep], score[keep]
    y = np.where(score > 0, 1, -1)
    flip = rng.random(y.size) < noise
    return X, np.where(flip, -y, y)


def augmented(X, fit_intercept):
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def balanced_entropy(u):
    """min over lifts u = u+ - u- on the 2n-simplex of sum v log(2n v): u+-_i = (sqrt(u_i^2 + 4c^2) +- u_i)/2."""
    n = u.size
    if np.abs(u).sum() >= 1.0:
        c = 0.0
    else:
        lo, hi = 0.0, 1.0
        for _ in range(200):  # bisection: sum sqrt(u^2 + 4c^2) = 1
            c = 0.5 * (lo + hi)
            lo, hi = (c, hi) if np.sqrt(u * u + 4 * c * c).sum() < 1.0 else (lo, c)
    root = np.sqrt(u * u + 4 * c * c)
    lift = np.concatenate([(root + u) / 2, (root - u) / 2])
    lift = lift[lift > 0]
    return float(np.sum(lift * np.log(2 * n * lift)))


def simplex_entropy(u):
    mass = u[u > 0]
    return float(np.sum(mass * np.log(u.size * mass)))


def hinge(Z, y, u, gamma):
    return float(np.maximum(0.0, gamma - y * (Z @ u)).sum())


def mu(x, C):
    capped = np.minimum(x, C)
    return capped * (x - capped / 2) / C


def report_of(est, X, y, u=None):
    return bound_report(est, X, y, olearn.run(est, X, y), u=u)


# -- Winnow -------------------------------------------------------------------


@pytest.mark.parametrize("balanced", [True, False])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed, noise", [(0, 0.0), (1, 0.1)])
def test_winnow_rows_equal_the_library_and_the_formula(balanced, fit_intercept, seed, noise):
    X, y = stream(seed, noise)
    C = 0.3
    est = Winnow(C=C, balanced=balanced, fit_intercept=fit_intercept)
    report = report_of(est, X, y)
    assert [row.theorem for row in report.rows] == [
        "Shalev-Shwartz & Singer 2006, Example 2 (Winnow, Thm. 1, best gamma)",
        "Shalev-Shwartz & Singer 2006, Example 2 (Winnow, C = gamma)",
    ]
    Z, labels = augmented(X, fit_intercept), np.where(y > 0, 1.0, -1.0)
    r_inf = np.abs(Z).max()
    best, gamma_form = report.rows
    u = best.u
    F = balanced_entropy(u) if balanced else simplex_entropy(u)
    assert abs(u).sum() <= 1 + 1e-12 if balanced else (u >= 0).all() and abs(u.sum() - 1) < 1e-9
    formula = (F + C * hinge(Z, labels, u, best.gamma)) / (best.gamma * C - C * C * r_inf**2 / 2)
    library = winnow_mistake_bound(X, y, u, C, best.gamma, fit_intercept=fit_intercept, balanced=balanced)
    assert best.bound == pytest.approx(library, rel=1e-12)
    assert best.bound == pytest.approx(formula, rel=1e-9)
    N = 2 * Z.shape[1] if balanced else Z.shape[1]
    formula = 2 * (math.log(N) / C**2 + hinge(Z, labels, gamma_form.u, C) / C)
    library = winnow_gamma_bound(X, y, gamma_form.u, C, fit_intercept=fit_intercept, balanced=balanced)
    assert gamma_form.bound == pytest.approx(library, rel=1e-12)
    assert gamma_form.bound == pytest.approx(formula, rel=1e-9)
    assert all(row.measured == olearn.run(Winnow(C=C, balanced=balanced, fit_intercept=fit_intercept), X, y).n_mistakes
               for row in report.rows)
    assert report.all_hold


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C", [0.05, 0.5, 2.0])
def test_winnow_bounds_hold_on_random_streams(seed, C):
    X, y = stream(seed, noise=0.05 * seed, scale=3.0)  # ||x_t||_inf up to 3: only Thm. 1's row
    report = report_of(Winnow(C=C), X, y)
    (row,) = report.rows
    assert row.measured <= row.bound
    assert "||x_t||_inf <= 1" in str(report)


def test_winnow_best_gamma_beats_a_fixed_one():
    # the search over gamma: the reported bound is below the bound at the same u with gamma = 1 and 10
    X, y = stream(2, 0.0)
    C = 0.2
    best = report_of(Winnow(C=C), X, y).rows[0]
    for gamma in (1.0, 10.0):
        assert best.bound <= winnow_mistake_bound(X, y, best.u, C, gamma)


def test_winnow_given_u_outside_the_l1_ball_is_not_applicable():
    X, y = stream(0, 0.0)
    report = report_of(Winnow(C=0.3), X, y, u=np.array([1.0, -1.0, 0.0, 0.0, 0.0]))
    assert report.rows == ()
    assert "||u||_1 <= 1; the given u is outside" in str(report)


def test_winnow_given_u_is_evaluated_at_its_best_gamma():
    X, y = stream(0, 0.0)
    u = np.array([0.5, -0.3, 0.1, 0.0, 0.05])
    best = report_of(Winnow(C=0.3), X, y, u=u).rows[0]
    np.testing.assert_array_equal(best.u, u)
    grid = [winnow_mistake_bound(X, y, u, 0.3, g) for g in np.linspace(0.5, 1.0, 501)]
    assert best.bound <= min(grid) * (1 + 1e-9)


def test_plain_winnow_whose_first_class_sorts_first():
    # while it knows one class the plain form also learns the model of the other encoding, and keeps it: the
    # run's rounds are those of the learner told both classes first, which the theorem is about
    rng = np.random.default_rng(5)
    X = rng.uniform(0.0, 1.0, size=(40, 3))
    y = np.array([0] * 10 + list(rng.integers(0, 2, size=30)))
    report = report_of(Winnow(C=1.0, balanced=False), X, y)
    declared = Winnow(C=1.0, balanced=False).partial_fit(np.empty((0, 0)), [], classes=[0, 1])
    assert [row.measured for row in report.rows] == [olearn.run(declared, X, y).n_mistakes] * 2
    assert report.all_hold


def test_class_weight_is_refused():
    X, y = stream(0, 0.0)
    est = Winnow(class_weight={-1: 2.0, 1: 1.0})
    with pytest.raises(ValueError, match="class_weight"):
        report_of(est, X, y)


# -- DualAscent ---------------------------------------------------------------


def q_norm_half_sq(u, regularizer, p):
    if regularizer == "l2":
        return 0.5 * float(u @ u)
    q = p / (p - 1)
    return 0.5 * float(np.sum(np.abs(u) ** q) ** (2 / q))


@pytest.mark.parametrize("update", ["aggressive", "last-k", "all"])
@pytest.mark.parametrize("regularizer, p", [("l2", 2.0), ("pnorm", 3.0), ("entropy", 2.0)])
@pytest.mark.parametrize("seed, noise", [(0, 0.0), (3, 0.15)])
def test_aggressive_rows_equal_the_library_and_the_formula(update, regularizer, p, seed, noise):
    X, y = stream(seed, noise, n=120)
    if regularizer == "l2":
        X = X / np.sqrt(5.0)  # ||x||_2 <= 1
    elif regularizer == "pnorm":
        X = X / np.sqrt((p - 1) * 5.0 ** (2 / p))  # (p - 1) ||x||_p^2 <= 1
    C, gamma = 0.4, 0.7
    est = DualAscent(regularizer=regularizer, p=p, update=update, k=3, C=C, gamma=gamma)
    result = olearn.run(est, X, y)
    report = bound_report(est, X, y, result)
    loss_row, mistake_row = report.rows
    labels = np.where(y > 0, 1.0, -1.0)
    u = loss_row.u
    np.testing.assert_array_equal(u, mistake_row.u)
    F = balanced_entropy(u) if regularizer == "entropy" else q_norm_half_sq(u, regularizer, p)
    L = hinge(X, labels, u, gamma)
    settings = {"regularizer": regularizer, "p": p, "gamma": gamma}
    assert loss_row.bound == pytest.approx(aggressive_dual_loss_bound(X, y, u, C, **settings), rel=1e-12)
    assert loss_row.bound == pytest.approx(F / C + L, rel=1e-9)
    assert mistake_row.bound == pytest.approx(aggressive_dual_mistake_bound(X, y, u, C, **settings), rel=1e-12)
    assert mistake_row.bound == pytest.approx((F + C * L) / (C * mu(gamma, C)), rel=1e-9)
    # the measured values: sum_t mu(l_t) of the learner's hinge losses at gamma, and its mistakes
    scores = result.scores
    assert loss_row.measured == pytest.approx(float(np.sum(mu(np.maximum(0.0, gamma - labels * scores), C))),
                                              rel=1e-9)
    assert mistake_row.measured == result.n_mistakes
    assert report.all_hold


@pytest.mark.parametrize("regularizer, p", [("l2", 2.0), ("pnorm", 4.0)])
@pytest.mark.parametrize("seed, noise", [(0, 0.0), (2, 0.1)])
def test_conservative_l2_and_pnorm_row_is_example_3(regularizer, p, seed, noise):
    X, y = stream(seed, noise, scale=2.0)
    est = DualAscent(regularizer=regularizer, p=p, C=0.7)
    (row,) = report_of(est, X, y).rows
    q = p / (p - 1)
    r_p2 = max(np.sum(np.abs(X) ** p, axis=1)) ** (2 / p)
    b2 = (p - 1) * r_p2 * np.sum(np.abs(row.u) ** q) ** (2 / q)
    L = hinge(X, np.where(y > 0, 1.0, -1.0), row.u, 1.0)
    assert row.bound == pytest.approx(pnorm_mistake_bound(X, y, row.u, p), rel=1e-12)
    assert row.bound == pytest.approx(L + b2 / 2 * (1 + math.sqrt(1 + 4 * L / b2)), rel=1e-9)
    assert row.measured <= row.bound


def test_conservative_entropy_row_is_balanced_winnows():
    X, y = stream(1, 0.05)
    C = 0.3
    report = report_of(DualAscent(regularizer="entropy", C=C, gamma=5.0), X, y)
    (row,) = report.rows
    assert row.bound == pytest.approx(winnow_mistake_bound(X, y, row.u, C, row.gamma), rel=1e-12)
    # the same learner as Balanced Winnow with step C, so the same row
    winnow_row = report_of(Winnow(C=C), X, y).rows[0]
    assert (row.measured, row.bound, row.gamma) == (winnow_row.measured, winnow_row.bound, winnow_row.gamma)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("C, gamma", [(0.1, 1.0), (1.0, 0.5), (5.0, 2.0)])
def test_aggressive_bounds_hold_on_random_streams(seed, C, gamma):
    X, y = stream(seed, noise=0.05 * seed)
    X = X / np.sqrt(5.0)
    report = report_of(DualAscent(update="aggressive", C=C, gamma=gamma), X, y)
    assert len(report.rows) == 2
    assert all(row.measured <= row.bound for row in report.rows)


def test_thm3_assumption_broken_is_not_applicable():
    X, y = stream(0, 0.0)  # ||x_t||_2 up to sqrt(5)
    report = report_of(DualAscent(update="aggressive"), X, y)
    assert report.rows == ()
    text = str(report)
    assert "not applicable: Shalev-Shwartz & Singer 2006, Thm. 3" in text
    assert "Thm. 3 assumes ||x_t||_2^2 <= 1 on every round; row " in text


def test_entropic_aggressive_learner_with_more_coordinates_than_x_is_refused():
    # its normaliser spans n_features coordinates, so its steps are not those of the 5-column stream's algorithm
    X, y = stream(0, 0.0)
    est = DualAscent(regularizer="entropy", update="aggressive", n_features=50)
    with pytest.raises(ValueError, match="n_features=50 coordinates.*X has 5 columns"):
        report_of(est, X, y)
    padded = np.hstack([X, np.zeros((X.shape[0], 45))])
    report = report_of(DualAscent(regularizer="entropy", update="aggressive", n_features=50), padded, y)
    assert len(report.rows) == 2 and report.all_hold
    assert report.rows[0].bound == pytest.approx(
        aggressive_dual_loss_bound(padded, y, report.rows[0].u, 1.0, regularizer="entropy"), rel=1e-12)

