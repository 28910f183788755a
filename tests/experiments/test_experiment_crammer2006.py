"""The crammer2006 reproductions (PA paper, Figs. 3-5): files, shapes, seeding, exact hindsight comparators,
and the paper's conclusions that hold already at the quick size."""

import csv

import numpy as np
import pytest

from olearn.data import make_pa_paper_stream
from olearn.experiments._crammer2006 import (
    FIG3_ALGORITHMS,
    FIG3_QUICK,
    FIG4_QUICK,
    FIG5_LEARNERS,
    run_crammer2006_fig3,
    run_crammer2006_fig4,
    run_crammer2006_fig5,
)
from olearn.experiments._crammer2006_findings import fig4_findings, fig5_findings
from olearn.experiments._crammer2006_hindsight import best_error_direction, best_hinge_classifier

SEED = 7


@pytest.fixture(scope="module")
def fig3(tmp_path_factory):
    return run_crammer2006_fig3(tmp_path_factory.mktemp("fig3"), seed=SEED, quick=True)


@pytest.fixture(scope="module")
def fig4(tmp_path_factory):
    return run_crammer2006_fig4(tmp_path_factory.mktemp("fig4"), seed=SEED, quick=True)


@pytest.fixture(scope="module")
def fig5(tmp_path_factory):
    return run_crammer2006_fig5(tmp_path_factory.mktemp("fig5"), seed=SEED, quick=True)


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _excess(result, kind):
    """Mean error of PA, PA-I, PA-II minus the best fixed classifier's, per level: (levels, 3)."""
    error = result["error"][kind].mean(axis=0)
    return error[:, :3] - error[:, 3:]


# Files and shapes


@pytest.mark.parametrize("name", ["fig3", "fig4", "fig5"])
def test_png_and_csv_files_are_written(name, request):
    result = request.getfixturevalue(name)
    with open(result["figure"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    summary = _read(result["summary_csv"])
    assert len(summary) == len(result["rows"]) > 0
    assert {"panel", "setting"} <= set(summary[0])
    written = _read(result["findings_csv"])
    checked = result["findings"] + result["observations"]
    assert [row["holds"] for row in written] == [str(f["holds"]) for f in checked]
    # the paper's claims and our observations are told apart by the source column
    assert [row["source"].startswith("paper, Sec. 10.") for row in written] == (
        [True] * len(result["findings"]) + [False] * len(result["observations"]))
    assert all(row["source"] == "olearn observation" for row in written[len(result["findings"]):])


def test_fig3_claims_are_the_papers_sentences(fig3):
    """Sec. 10.1 makes three claims about Fig. 3 (instance noise), 'repeated' under label noise."""
    claims = [f["finding"] for f in fig3["findings"]]
    assert claims == 2 * [
        "for low levels of noise, all three PA variants make a similar number of errors",
        "PA-I and PA-II outperform the basic PA algorithm when the noise level is high",
        "PA-I and PA-II performed equally well for all levels of noise",
    ]


# Sec. 10.2 of the text, the sentences about Figs. 4 and 5 (copied from the paper)
SEC_10_2 = (
    "Since the label noise applied to the data effects only the second term, we expect that for very small values "
    "of C the loss of PA-I and PA-II will be high, regardless of the noise level. On the other hand, as we increase "
    "the value of C, the difference between different noise levels becomes apparent. As a general rule-of-thumb, C "
    "should be small when the data is noisy. "
    "For both PA-I and PA-II, setting C to be a small number leads to a slow progress rate, since each online update "
    "changes the online hypothesis by a small amount. On the other hand, when C is large, the error rate decreases "
    "much faster, but at the price of inferior performance later on."
)


def test_fig4_and_fig5_claims_quote_sec_10_2():
    """The rows marked 'paper, Sec. 10.2' carry the text's own words, not a paraphrase of them."""
    rng = np.random.default_rng(0)
    log10_C = np.array([-4.0, -2.0, 0.0, 3.0])
    claims, _ = fig4_findings(np.array([0.0, 0.1, 0.2]), log10_C, rng.random((2, 3, 4, 2)), rng.random((2, 3, 4, 2)))
    learners = [("PA-I", 100.0), ("PA-I", 0.001), ("PA-II", 100.0), ("PA-II", 0.001)]
    fig5_claims, _ = fig5_findings(learners, rng.random((2, 4, 200)))
    findings = [row["finding"] for row in claims + fig5_claims]
    assert len(set(findings)) == 5
    for finding in findings:
        assert finding in SEC_10_2


def test_fig3_summary_gives_the_best_fixed_error_of_each_level(fig3):
    """The paper's x axis: each level's row carries the mean error of the best fixed classifier."""
    for kind in ("instance", "label"):
        best = fig3["error"][kind][:, :, -1].mean(axis=0)
        rows = [row for row in fig3["rows"] if row["noise"] == kind and row["algorithm"] == "PA"]
        assert [row["best_fixed_error"] for row in rows] == pytest.approx(best.tolist())


def test_fig3_shapes_and_runs_file(fig3):
    reps = FIG3_QUICK["repetitions"]
    for kind in ("instance", "label"):
        n_levels = len(FIG3_QUICK[kind])
        assert fig3["levels"][kind].tolist() == list(FIG3_QUICK[kind])
        assert fig3["error"][kind].shape == fig3["loss"][kind].shape == (reps, n_levels, len(FIG3_ALGORITHMS))
        assert np.all((fig3["error"][kind] >= 0) & (fig3["error"][kind] <= 1))
    runs = _read(fig3["runs_csv"])
    assert len(runs) == reps * len(FIG3_ALGORITHMS) * (len(FIG3_QUICK["instance"]) + len(FIG3_QUICK["label"]))
    first = runs[0]
    assert float(first["error"]) == fig3["error"][first["noise"]][0, 0, 0]


def test_fig3_summary_is_the_mean_of_the_runs(fig3):
    row = next(r for r in fig3["rows"] if r["noise"] == "label" and r["level"] == 0.3 and r["algorithm"] == "PA-II")
    runs = [float(r["error"]) for r in _read(fig3["runs_csv"])
            if r["noise"] == "label" and float(r["level"]) == 0.3 and r["algorithm"] == "PA-II"]
    assert len(runs) == FIG3_QUICK["repetitions"]
    assert row["error_mean"] == pytest.approx(np.mean(runs))
    assert row["error_std"] == pytest.approx(np.std(runs, ddof=1))


def test_fig4_and_fig5_shapes(fig4, fig5):
    reps, n_noise, n_c = FIG4_QUICK["repetitions"], len(FIG4_QUICK["label"]), len(FIG4_QUICK["log10_C"])
    assert fig4["error"].shape == fig4["loss"].shape == (reps, n_noise, n_c, 2)
    assert fig4["best_error"].shape == fig4["best_loss"].shape == (reps, n_noise)
    assert len(fig4["rows"]) == n_noise * n_c * 2
    assert fig5["average_error"].shape == (3, len(FIG5_LEARNERS), 10_000)
    assert fig5["best_error"].shape == (3,)
    # the first round's score is 0: a mistake for every learner
    assert np.all(fig5["average_error"][:, :, 0] == 1.0)
    assert len(_read(fig5["curves_csv"])) > len(fig5["rows"])


# Seeding


def test_a_seed_repeats_and_another_differs(fig4, tmp_path):
    again = run_crammer2006_fig4(tmp_path / "again", seed=SEED, quick=True)
    assert again["rows"] == fig4["rows"]
    np.testing.assert_array_equal(again["error"], fig4["error"])
    other = run_crammer2006_fig4(tmp_path / "other", seed=SEED + 1, quick=True)
    assert not np.array_equal(other["error"], fig4["error"])


def test_workers_do_not_change_the_results(fig5, tmp_path):
    parallel = run_crammer2006_fig5(tmp_path, seed=SEED, quick=True, n_jobs=2)
    np.testing.assert_array_equal(parallel["average_error"], fig5["average_error"])
    assert parallel["rows"] == fig5["rows"]


def test_fig3_repeats_for_a_seed(fig3, tmp_path):
    again = run_crammer2006_fig3(tmp_path, seed=SEED, quick=True)
    assert again["rows"] == fig3["rows"]


# The hindsight comparators are exact: checked against independent searches


def _grid_min_mistakes(X, y, n_angles=100_001):
    theta = np.linspace(0.0, 2.0 * np.pi, n_angles)
    W = np.stack([np.cos(theta), np.sin(theta)])
    return int(((y[:, None] * (X @ W)) <= 0).sum(axis=0).min())


@pytest.mark.parametrize("sigma, p, seed", [(0.0, 0.0, 0), (0.5, 0.0, 1), (0.0, 0.1, 2), (1.5, 0.2, 3)])
def test_best_error_direction_beats_a_fine_grid_and_achieves_its_count(sigma, p, seed):
    X, y = make_pa_paper_stream(200, sigma, p, random_state=seed)
    n_mistakes, w = best_error_direction(X, y)
    assert n_mistakes == int(np.sum(y * (X @ w) <= 0))
    assert n_mistakes == _grid_min_mistakes(X, y)


def test_best_error_direction_is_exact_on_degenerate_integer_points():
    # Many parallel and opposite z's: critical angles that coincide exactly, and zero vectors.
    rng = np.random.default_rng(0)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        X = rng.integers(-2, 3, (n, 2)).astype(float)
        y = rng.choice([-1, 1], n)
        n_mistakes, w = best_error_direction(X, y)
        # distinct critical angles of points in {-2, ..., 2}^2 lie over 0.3 rad apart: 10,001 angles see every arc
        assert n_mistakes == int(np.sum(y * (X @ w) <= 0)) == _grid_min_mistakes(X, y, 10_001)


def test_best_error_direction_small_cases():
    assert best_error_direction(np.array([[1.0, 1.0], [-1.0, -2.0]]), np.array([1, -1]))[0] == 0
    # z and -z: one of the two is always a mistake
    assert best_error_direction(np.array([[1.0, 2.0], [1.0, 2.0]]), np.array([1, -1]))[0] == 1
    assert best_error_direction(np.zeros((3, 2)), np.array([1, -1, 1]))[0] == 3
    with pytest.raises(ValueError, match="shape"):
        best_error_direction(np.ones((3, 3)), np.ones(3))


@pytest.mark.parametrize("sigma, p, seed", [(0.0, 0.0, 0), (1.0, 0.1, 1)])
def test_best_hinge_classifier_matches_the_primal_program_and_a_grid(sigma, p, seed):
    from scipy.optimize import linprog

    X, y = make_pa_paper_stream(300, sigma, p, random_state=seed)
    loss, u, gap = best_hinge_classifier(X, y)
    Z = y[:, None] * X
    assert loss == pytest.approx(np.maximum(0.0, 1.0 - Z @ u).mean())
    assert 0.0 <= gap + 1e-12 and gap < 1e-9
    # primal: min sum xi, xi >= 1 - z.u, xi >= 0 over (u, xi)
    n = len(y)
    primal = linprog(np.r_[0.0, 0.0, np.ones(n)], A_ub=np.hstack([-Z, -np.eye(n)]), b_ub=-np.ones(n),
                     bounds=[(None, None)] * 2 + [(0.0, None)] * n, method="highs")
    assert loss == pytest.approx(primal.fun / n, abs=1e-9)
    grid = np.stack(np.meshgrid(np.linspace(-4, 4, 161), np.linspace(-4, 4, 161))).reshape(2, -1)
    assert loss <= np.maximum(0.0, 1.0 - Z @ grid).mean(axis=0).min() + 1e-12


# The paper's conclusions, at the quick size


def test_fig3_pa_i_and_pa_ii_are_more_robust_to_noise_than_pa(fig3):
    for kind in ("instance", "label"):
        error = fig3["error"][kind].mean(axis=0)
        assert error[-1, 1] < error[-1, 0] and error[-1, 2] < error[-1, 0]
        loss = fig3["loss"][kind].mean(axis=0)
        assert loss[-1, 0] > max(loss[-1, 1], loss[-1, 2])


def test_fig3_pa_approaches_the_best_fixed_classifier_as_noise_falls(fig3):
    for kind in ("instance", "label"):
        excess = _excess(fig3, kind)
        assert excess[0, 0] < excess[-1, 0]  # PA: closest without noise
        # with C = 0.001 it is the other way round: the slow start weighs most when there is no noise
        assert excess[-1, 1] < excess[0, 1] and excess[-1, 2] < excess[0, 2]


def test_fig3_best_fixed_classifier_is_below_every_online_learner(fig3):
    for kind in ("instance", "label"):
        error, loss = fig3["error"][kind].mean(axis=0), fig3["loss"][kind].mean(axis=0)
        assert np.all(error[:, 3:] <= error[:, :3]) and np.all(loss[:, 3:] <= loss[:, :3])
    assert fig3["hinge_duality_gap"] < 1e-9


def test_fig4_small_c_beats_large_c_under_label_noise(fig4):
    error = fig4["error"].mean(axis=0)  # (noise, C, algorithm)
    small, large = FIG4_QUICK["log10_C"].index(-2.0), len(FIG4_QUICK["log10_C"]) - 1
    for i, p in enumerate(FIG4_QUICK["label"]):
        if p > 0:
            assert np.all(error[i, small] < error[i, large])
    # the cost of a large C grows with the noise
    cost = error[:, large] - error.min(axis=1)
    assert np.all(cost[-1] > cost[0])


def test_fig4_pa_i_and_pa_ii_coincide_for_large_c(fig4):
    error = fig4["error"].mean(axis=0)
    assert np.all(np.abs(error[:, -1, 0] - error[:, -1, 1]) < 0.005)
    assert not np.allclose(error[:, 0, 0], error[:, 0, 1])  # but not for small C


def test_fig5_small_c_ends_lower(fig5):
    final = fig5["average_error"][:, :, -1].mean(axis=0)
    for name in ("PA-I", "PA-II"):
        large, small = FIG5_LEARNERS.index((name, 100.0)), FIG5_LEARNERS.index((name, 0.001))
        assert final[small] < final[large]
        assert final[small] - fig5["best_error"].mean() < 0.5 * (final[large] - fig5["best_error"].mean())


def test_fig5_large_c_learns_faster_at_first(tmp_path):
    # The early lead of C = 100 is small against the spread of the first rounds: use the 10 repetitions.
    result = run_crammer2006_fig5(tmp_path, seed=SEED, quick=False)
    after_100 = result["average_error"][:, :, 99].mean(axis=0)
    large, small = FIG5_LEARNERS.index(("PA-I", 100.0)), FIG5_LEARNERS.index(("PA-I", 0.001))
    assert after_100[large] < after_100[small]
    assert all(f["holds"] for f in result["findings"] if f["measure"].startswith("PA-I"))
