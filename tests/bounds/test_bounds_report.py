"""bound_report: which theorems it picks, what it measures, its competitor, its table, its errors."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.svm import LinearSVC

from olearn import CW, PAClassifier, Perceptron, run
from olearn.bounds import (
    BoundReport,
    BoundRow,
    bound_report,
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
)


def _noisy_stream(n=150, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ np.arange(1.0, d + 1) + rng.normal(size=n) > 0, 1, -1)
    return X, y


def _separable_stream(margin, n=120, seed=1):
    """Points at least ``margin`` away from the hyperplane x_0 = 0, inside the unit ball."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(4 * n, 2))
    X = X[(np.abs(X[:, 0]) >= margin) & (np.linalg.norm(X, axis=1) <= 1)][:n]
    return X, np.where(X[:, 0] > 0, 1, -1)


def _report(est, X, y, **kw):
    est = clone(est)
    return bound_report(est, X, y, run(est, X, y), **kw)


def _theorems(report):
    return [row.theorem for row in report.rows]


def test_each_learner_gets_its_theorems():
    X, y = _noisy_stream()
    Xs, ys = _separable_stream(0.3)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert _theorems(_report(Perceptron(), Xs, ys)) == [
        "Novikoff 1962 (Perceptron, separable)",
        "Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)",
    ]
    report = _report(Perceptron(), X, y)
    assert _theorems(report) == ["Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)"]
    assert [t for t, _ in report.skipped] == ["Novikoff 1962 (Perceptron, separable)"]
    assert _theorems(_report(PAClassifier(variant="pa"), Xs, ys)) == ["Crammer et al. 2006, Thm. 2 (PA, separable)"]
    assert _theorems(_report(PAClassifier(variant="pa"), Xn, y)) == ["Crammer et al. 2006, Thm. 3 (PA, ||x_t|| = 1)"]
    assert _theorems(_report(PAClassifier(variant="pa1", C=0.5), X, y)) == ["Crammer et al. 2006, Thm. 4 (PA-I)"]
    assert _theorems(_report(PAClassifier(variant="pa2", C=0.5), X, y)) == ["Crammer et al. 2006, Thm. 5 (PA-II)"]
    # PA-I with C = inf is PA: the PA theorems apply too
    assert _theorems(_report(PAClassifier(variant="pa1", C=math.inf), Xs, ys)) == [
        "Crammer et al. 2006, Thm. 2 (PA, separable)",
        "Crammer et al. 2006, Thm. 4 (PA-I)",
    ]


def test_rows_measure_the_run_and_evaluate_the_functions_at_their_u():
    X, y = _noisy_stream()
    for est, fn, kwargs in [
        (Perceptron(), perceptron_bound, None),
        (PAClassifier(variant="pa1", C=0.3), pa1_mistake_bound, {"C": 0.3}),
        (PAClassifier(variant="pa2", C=0.3), pa2_loss_bound, {"C": 0.3}),
        (PAClassifier(variant="pa1", C=0.3, fit_intercept=True), pa1_mistake_bound, {"C": 0.3}),
    ]:
        res = run(est, X, y)
        (row,) = bound_report(est, X, y, res).rows
        u = row.u
        assert u.shape == (X.shape[1] + est.fit_intercept,)
        hinge = np.maximum(0, 1 - y * (np.hstack([X, np.ones((X.shape[0], 1))]) @ u if est.fit_intercept else X @ u))
        if kwargs is None:  # Shalev-Shwartz & Singer, Thm. 2: L over every round
            assert row.bound == pytest.approx(perceptron_bound(X, y, u), rel=1e-12)
            assert row.competitor_loss == pytest.approx(hinge.sum(), rel=1e-12)
        else:
            assert row.bound == pytest.approx(fn(X, y, u, fit_intercept=est.fit_intercept, **kwargs), rel=1e-12)
            power = 2 if fn is pa2_loss_bound else 1
            assert row.competitor_loss == pytest.approx(np.sum(hinge**power), rel=1e-12)
        if row.quantity == "mistakes":
            assert row.measured == res.n_mistakes
        else:
            assert row.quantity == "sum of squared losses"
            assert row.measured == pytest.approx(np.sum(res.losses**2), rel=1e-12)
        assert row.u_norm == pytest.approx(np.linalg.norm(u))
        assert row.holds and row.measured <= row.bound


def test_default_competitor_finds_the_max_margin_separator():
    # max-margin direction (1, 0) with gamma = 2; R^2 = 5 -> Novikoff 5/4, Thm. 2 the same
    X = np.array([[2.0, 1.0], [2.0, -1.0], [-2.0, 1.0], [-2.0, -1.0]] * 3)
    y = np.array([1, 1, -1, -1] * 3)
    (novikoff, _) = _report(Perceptron(), X, y).rows
    assert novikoff.bound == pytest.approx(1.25, rel=1e-3)
    assert novikoff.u_norm == pytest.approx(0.5, rel=1e-3)  # u scaled to margin 1
    (thm2,) = _report(PAClassifier(variant="pa"), X, y).rows
    assert thm2.bound == pytest.approx(1.25, rel=1e-3)
    assert np.min(y * (X @ thm2.u)) >= 1.0


def test_default_competitor_is_near_the_best_scaling():
    # The PA-I bound along the report's direction is minimised at the report's scale.
    X, y = _noisy_stream(seed=4)
    C = 0.2
    (row,) = _report(PAClassifier(variant="pa1", C=C), X, y).rows
    direction = row.u / np.linalg.norm(row.u)
    around = [pa1_mistake_bound(X, y, s * row.u_norm * direction, C=C) for s in np.linspace(0.8, 1.2, 41)]
    assert row.bound <= min(around) * (1 + 1e-6)
    # and beats the zero competitor and the data's mean direction
    assert row.bound < pa1_mistake_bound(X, y, np.zeros(X.shape[1]), C=C)


def test_default_competitor_for_pa1_and_pa2_is_the_svm_with_their_C():
    # Thm. 4's u-dependent factor ||u||^2 + 2C sum l*_t is twice the hinge SVM objective,
    # Thm. 5's ||u||^2 + 2C sum (l*_t)^2 twice the squared-hinge one: the optimum is that SVM.
    X, y = _noisy_stream(n=200, seed=5)
    for variant, loss, fn in [("pa1", "hinge", pa1_mistake_bound), ("pa2", "squared_hinge", pa2_loss_bound)]:
        for C in (0.05, 2.0):
            svm = LinearSVC(C=C, loss=loss, fit_intercept=False, tol=1e-10, max_iter=200000).fit(X, y)
            best = fn(X, y, svm.coef_.ravel(), C=C)
            (row,) = _report(PAClassifier(variant=variant, C=C), X, y).rows
            assert row.bound <= best * (1 + 1e-4)
            rng = np.random.default_rng(0)
            assert all(row.bound <= fn(X, y, svm.coef_.ravel() * s, C=C) for s in rng.uniform(0.5, 1.5, 20))


def test_large_margin_gives_a_small_novikoff_bound():
    X, y = _separable_stream(margin=0.5)
    res = run(Perceptron(), X, y)
    report = bound_report(Perceptron(), X, y, res)
    novikoff = report.rows[0]
    assert novikoff.theorem.startswith("Novikoff")
    # R <= 1 and the max margin is >= 0.5: the bound is at most 4, and the Perceptron is below it
    assert novikoff.bound < 10
    assert res.n_mistakes <= np.sum(res.taus > 0) <= novikoff.bound
    assert res.n_mistakes >= 1


def test_a_wrong_u_is_refused_by_the_separable_theorems():
    X, y = _separable_stream(margin=0.5)
    wrong = np.array([0.0, 1.0])  # does not separate
    assert novikoff_bound(X, y, wrong) == math.inf
    assert pa_separable_bound(X, y, wrong) == math.inf
    report = _report(Perceptron(), X, y, u=wrong)
    assert _theorems(report) == ["Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)"]
    ((theorem, reason),) = report.skipped
    assert theorem.startswith("Novikoff") and "min_t y_t u.x_t" in reason
    # a separating u whose margin is below 1 does not meet Thm. 2's assumption
    report = _report(PAClassifier(variant="pa"), X, y, u=[1.0, 0.0])
    assert report.rows == () and "y_t u.x_t >= 1" in report.skipped[0][1]
    report = _report(PAClassifier(variant="pa"), X, y, u=[2.0, 0.0])
    assert _theorems(report) == ["Crammer et al. 2006, Thm. 2 (PA, separable)"]
    assert report.rows[0].bound == pytest.approx(pa_separable_bound(X, y, [2.0, 0.0]))


def test_a_given_u_is_used_for_every_row():
    X, y = _noisy_stream()
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    u = np.array([0.5, 1.0, 1.5, 2.0])
    report = _report(PAClassifier(variant="pa"), Xn, y, u=u)
    (row,) = report.rows
    assert row.bound == pytest.approx(pa_unit_norm_bound(Xn, y, u))
    np.testing.assert_array_equal(row.u, u)
    with pytest.raises(ValueError, match="expected 5 .*intercept"):
        _report(PAClassifier(fit_intercept=True), X, y, u=u)
    report = _report(PAClassifier(fit_intercept=True), X, y, u=np.append(u, 0.1))
    assert report.rows[0].bound == pytest.approx(pa1_mistake_bound(X, y, np.append(u, 0.1), C=1.0, fit_intercept=True))


def test_intercept_rules_out_the_unit_norm_theorem():
    X, y = _noisy_stream()
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    report = _report(PAClassifier(variant="pa", fit_intercept=True), Xn, y)
    assert "Crammer et al. 2006, Thm. 3 (PA, ||x_t|| = 1)" in [t for t, _ in report.skipped]


def test_labels_and_sparse_input_do_not_change_the_report():
    X, y = _noisy_stream(n=80)
    names = np.where(y > 0, "spam", "ham")
    for est in (Perceptron(), PAClassifier(variant="pa2", C=0.5)):
        base = _report(est, X, y)
        assert _report(est, X, names).rows == base.rows
        assert _report(est, sp.csr_matrix(X), y).rows == base.rows
        # now the other class is +1: the bounds are symmetric (u -> -u, up to the
        # LinearSVC solver's tolerance in the default u); the measured
        # mistakes may differ only on rounds with a zero score, which olearn calls -1
        flipped = _report(est, X, np.where(y > 0, "a", "b"))
        assert [r.bound for r in flipped.rows] == pytest.approx([r.bound for r in base.rows], rel=1e-4)
        zero_scores = np.sum(run(clone(est), X, y).scores == 0)
        for a, b in zip(flipped.rows, base.rows):
            assert abs(a.measured - b.measured) <= zero_scores


def test_str_is_a_table_of_measured_vs_bound():
    X, y = _noisy_stream()
    text = str(_report(PAClassifier(variant="pa2", C=0.5), X, y))
    lines = text.splitlines()
    assert lines[0] == "PAClassifier(C=0.5, variant='pa2') on 150 rounds: measured vs bound"
    assert [c.strip() for c in lines[1].split(" | ")] == [
        "theorem", "quantity", "measured", "bound", "||u||", "loss of u", "holds",
    ]
    cells = [c.strip() for c in lines[3].split(" | ")]
    assert cells[0] == "Crammer et al. 2006, Thm. 5 (PA-II)" and cells[-1] == "yes"
    row = BoundRow("T", "mistakes", 5.0, 4.0, 1.0, 0.0, False, np.zeros(1))
    text = str(BoundReport("L()", 9, (row,), (("Other", "why"),)))
    assert text.splitlines()[-2].endswith("| NO") and text.splitlines()[-1] == "not applicable: Other: why"
    assert not BoundReport("L()", 9, (row,)).all_hold


def test_learners_without_a_theorem_here_are_refused():
    X, y = _noisy_stream(n=20)
    cw = CW()
    with pytest.raises(TypeError, match="AROW, NAROW, Fig1AROW, OGDClassifier, PNorm.* PARegressor.*; got CW"):
        bound_report(cw, X, y, run(cw, X, y))
    with pytest.raises(TypeError):
        bound_report(object(), X, y, None)


@pytest.mark.parametrize("est", [
    Perceptron(kernel="rbf"), Perceptron(kernel="poly", degree=2), Perceptron(kernel="linear", budget=3),
    PAClassifier(kernel="rbf", variant="pa"), PAClassifier(budget=4, kernel="linear"),
], ids=["perceptron-rbf", "perceptron-poly", "perceptron-budget", "pa-rbf", "pa1-budget"])
def test_kernel_and_budget_learners_are_refused(est):
    """The theorems bound a linear learner against a linear u; a kernel learner competes in its feature
    space, and a budget forgets support vectors, which none of the proofs allows."""
    X, y = _noisy_stream(n=30)
    with pytest.raises(ValueError, match="linear learner"):
        bound_report(est, X, y, run(clone(est), X, y))


def test_the_linear_kernel_without_a_budget_is_the_linear_learner():
    X, y = _noisy_stream(n=30)
    for est, primal in ((Perceptron(kernel="linear"), Perceptron()), (PAClassifier(kernel="linear"), PAClassifier())):
        report = bound_report(est, X, y, run(clone(est), X, y))
        assert [r.bound for r in report.rows] == pytest.approx(
            [r.bound for r in bound_report(primal, X, y, run(clone(primal), X, y)).rows], rel=1e-9)


def test_the_result_must_come_from_a_fresh_run_on_the_same_stream():
    X, y = _noisy_stream(n=60)
    est = PAClassifier(variant="pa1", C=0.5)
    res = run(est, X, y)
    with pytest.raises(ValueError, match="fresh"):
        bound_report(est, X, y, run(est, X, y))  # the second run continued from a trained model
    with pytest.raises(ValueError, match="fresh"):
        bound_report(PAClassifier(variant="pa1", C=5.0), X, y, res)  # other hyperparameters
    with pytest.raises(ValueError, match="fresh"):
        bound_report(est, X[::-1], y[::-1], res)  # other order
    with pytest.raises(ValueError, match="record=True"):
        bound_report(est, X, y, run(PAClassifier(variant="pa1", C=0.5), X, y, record=False))
    with pytest.raises(ValueError, match="covers 60 rounds but X has 30 rows"):
        bound_report(est, X[:30], y[:30], res)
    with pytest.raises(TypeError, match="RunResult"):
        bound_report(est, X, y, {"losses": []})
    # the trained estimator itself is fine: only its hyperparameters are used
    assert bound_report(est, X, y, res).all_hold
