"""The orabona2010-fig3 reproduction: the generator's statistics, seeding, workers, files, the paper's findings."""

import csv

import numpy as np
import pytest

import olearn
from olearn.data._orabona2010 import (
    ORABONA2010_ORDERINGS,
    make_orabona2010_stream,
    orabona2010_order,
    orabona2010_separator,
)
from olearn.experiments._orabona2010 import (
    LEARNERS,
    NOISE_LEVELS,
    ORDERINGS,
    check_findings,
    clean_mistakes,
    panel_title,
    run_orabona2010_fig3,
)

ROTATION = np.array([[1.0, -1.0], [1.0, 1.0]]) / np.sqrt(2.0)  # columns: long axis, short axis


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _triples(X, y, y_clean):
    """The rows (point, label, clean label), sorted: the same multiset in every ordering."""
    return sorted(map(tuple, np.column_stack([X, y, y_clean])))


# The generator ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_draw():
    return make_orabona2010_stream(40_000, label_noise=0.1, random_state=123, return_clean=True)


def test_first_two_coordinates_are_a_45_degree_rotated_gaussian_with_stds_10_and_1(big_draw):
    X = big_draw[0]
    # Back in the axes of the ellipse, the two coordinates are uncorrelated with stds 10 and 1.
    axes = X[:, :2] @ ROTATION
    cov = np.cov(axes, rowvar=False)
    assert np.sqrt(cov[0, 0]) == pytest.approx(10.0, rel=0.02)
    assert np.sqrt(cov[1, 1]) == pytest.approx(1.0, rel=0.02)
    assert abs(cov[0, 1]) / np.sqrt(cov[0, 0] * cov[1, 1]) < 0.02
    # The long axis of the sample covariance points at 45 degrees.
    values, vectors = np.linalg.eigh(np.cov(X[:, :2], rowvar=False))
    angle = np.degrees(np.arctan2(vectors[1, -1], vectors[0, -1])) % 180.0
    assert angle == pytest.approx(45.0, abs=0.5)
    assert values[-1] / values[0] == pytest.approx(100.0, rel=0.05)


def test_other_coordinates_are_independent_with_variance_8_5(big_draw):
    noise = big_draw[0][:, 2:]
    assert noise.shape[1] == 18
    assert np.abs(noise.mean(axis=0)).max() < 0.1
    np.testing.assert_allclose(noise.var(axis=0), 8.5, rtol=0.05)
    corr = np.corrcoef(big_draw[0], rowvar=False)
    off_diagonal = corr - np.diag(np.diag(corr))
    off_diagonal[0, 1] = off_diagonal[1, 0] = 0.0  # x1 and x2 share the long axis
    assert np.abs(off_diagonal).max() < 0.03


def test_clean_labels_are_separable_by_the_long_axis_and_noise_flips_ten_percent(big_draw):
    X, y, y_clean = big_draw
    w_star = orabona2010_separator()
    assert w_star @ np.array([1.0, 1.0] + [0.0] * 18) == 0.0  # the separator contains the long axis
    assert np.all(y_clean * (X @ w_star) > 0)
    flipped = y != y_clean
    assert np.all(y[flipped] == -y_clean[flipped])
    assert flipped.mean() == pytest.approx(0.1, abs=0.006)  # 4 binomial standard deviations
    assert abs(np.mean(y_clean == 1) - 0.5) < 0.01


@pytest.mark.parametrize(
    "ordering, key",
    [
        ("easy-to-hard", lambda X, y: -np.abs(X @ orabona2010_separator())),
        ("hard-to-easy", lambda X, y: np.abs(X @ orabona2010_separator())),
        ("x1*y", lambda X, y: X[:, 0] * y),
        ("x3*y", lambda X, y: X[:, 2] * y),
    ],
)
def test_orderings_are_sorted_permutations_of_the_same_points(ordering, key):
    X0, y0, c0 = make_orabona2010_stream(500, label_noise=0.1, random_state=7, return_clean=True)
    X, y, y_clean = make_orabona2010_stream(500, label_noise=0.1, ordering=ordering, random_state=7,
                                            return_clean=True)
    assert np.all(np.diff(key(X, y_clean)) >= 0)
    assert _triples(X, y, y_clean) == _triples(X0, y0, c0)
    # Sorted by the clean labels: the order is the same with and without label noise.
    X_clean, _ = make_orabona2010_stream(500, ordering=ordering, random_state=7)
    np.testing.assert_array_equal(X, X_clean)


def test_adversarial_orderings_turn_the_sorted_feature_from_against_to_with_the_label():
    X, _, y_clean = make_orabona2010_stream(1000, ordering="x3*y", random_state=0, return_clean=True)
    first, last = X[:100, 2] * y_clean[:100], X[-100:, 2] * y_clean[-100:]
    assert first.max() < 0 < last.min()


def test_generator_rejects_bad_arguments():
    with pytest.raises(ValueError, match="ordering must be one of"):
        make_orabona2010_stream(10, ordering="sideways")
    with pytest.raises(ValueError, match="label_noise"):
        make_orabona2010_stream(10, label_noise=1.5)
    with pytest.raises(ValueError, match="n_samples"):
        make_orabona2010_stream(0)
    with pytest.raises(ValueError, match="ordering must be one of"):
        orabona2010_order(np.zeros((2, 20)), np.ones(2), "sideways")
    assert set(ORDERINGS) < set(ORABONA2010_ORDERINGS)


# The runner with PA-I (no other package needed) ------------------------------------------------------------


@pytest.fixture(scope="module")
def pa_run(tmp_path_factory):
    return run_orabona2010_fig3(tmp_path_factory.mktemp("fig3"), seed=3, quick=True, learners=("PA-I",))


def test_files_are_written(pa_run):
    with open(pa_run["figure"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    summary = _read(pa_run["summary_csv"])
    assert len(summary) == len(pa_run["rows"]) == len(NOISE_LEVELS) * len(ORDERINGS)
    assert {row["panel"] for row in summary} == {panel_title(n, o) for n in NOISE_LEVELS for o in ORDERINGS}
    curves = _read(pa_run["curves_csv"])
    assert curves and all(row["algorithm"] == "PA-I" for row in curves)
    assert len(_read(pa_run["tuning_csv"])) == 8 * 3  # 8 panels, the quick grid of 3 values
    assert _read(pa_run["findings_csv"]) == []  # every finding needs a second-order learner


def test_mean_curves_count_up_to_the_mean_final_mistakes(pa_run):
    for row in pa_run["rows"]:
        mean = pa_run["curves"][row["panel"]]["PA-I"]
        finals = pa_run["final_mistakes"][row["panel"]]["PA-I"]
        assert mean.size == row["rounds"] == 600
        assert np.all(np.diff(mean) >= 0)
        assert mean[-1] == pytest.approx(row["mean_mistakes"]) == pytest.approx(finals.mean())
        assert finals.size == row["repetitions"] == 6
        assert 0 <= row["mean_mistakes_second_half"] <= row["mean_mistakes"]
        assert 0 <= row["mean_last_mistake_round"] <= row["rounds"]


def test_the_tuned_value_has_the_fewest_tuning_mistakes_ties_to_the_smaller(pa_run):
    tuning = _read(pa_run["tuning_csv"])
    for noise in NOISE_LEVELS:
        for ordering in ORDERINGS:
            group = [r for r in tuning if float(r["label_noise"]) == noise and r["ordering"] == ordering]
            best = min(int(r["mistakes"]) for r in group)
            first_best = min(float(r["value"]) for r in group if int(r["mistakes"]) == best)
            assert [float(r["value"]) for r in group if r["chosen"] == "True"] == [first_best]
            assert pa_run["tuned"][panel_title(noise, ordering)]["PA-I"] == first_best


def test_seeded_and_repeatable(pa_run, tmp_path):
    again = run_orabona2010_fig3(tmp_path / "again", seed=3, quick=True, learners=("PA-I",))
    assert again["rows"] == pa_run["rows"]
    other = run_orabona2010_fig3(tmp_path / "other", seed=4, quick=True, learners=("PA-I",))
    assert other["rows"] != pa_run["rows"]


def test_same_results_whatever_the_number_of_workers(pa_run, tmp_path):
    two = run_orabona2010_fig3(tmp_path, seed=3, quick=True, learners=("PA-I",), n_jobs=2)
    assert two["rows"] == pa_run["rows"]
    for panel, finals in pa_run["final_mistakes"].items():
        np.testing.assert_array_equal(two["final_mistakes"][panel]["PA-I"], finals["PA-I"])
        np.testing.assert_array_equal(two["curves"][panel]["PA-I"], pa_run["curves"][panel]["PA-I"])


def test_without_noise_clean_mistakes_are_the_learners_own_mistakes():
    X, y = make_orabona2010_stream(400, ordering="x1*y", random_state=2)
    counted = clean_mistakes(olearn.PAClassifier(variant="pa1", C=0.5), X, y, y)
    own = olearn.run(olearn.PAClassifier(variant="pa1", C=0.5), X, y).cumulative_mistakes
    np.testing.assert_array_equal(counted, own)


def test_with_noise_mistakes_are_counted_against_the_clean_labels():
    X, y, y_clean = make_orabona2010_stream(400, label_noise=0.3, random_state=2, return_clean=True)
    res = olearn.run(olearn.PAClassifier(variant="pa1", C=0.5), X, y)
    # A zero score (the first round) names no class: a mistake whatever the label.
    by_hand = np.cumsum((res.predictions != y_clean) | (res.scores == 0.0))
    np.testing.assert_array_equal(clean_mistakes(olearn.PAClassifier(variant="pa1", C=0.5), X, y, y_clean), by_hand)
    assert not np.array_equal(by_hand, res.cumulative_mistakes)


def test_unknown_learner_is_named():
    with pytest.raises(ValueError, match="Perceptron"):
        run_orabona2010_fig3("unused", quick=True, learners=("Perceptron",))


def test_check_findings_compares_the_named_learners_panel_by_panel():
    def row(ordering, name, mistakes, last, second_half, noise=0.0):
        return {"panel": panel_title(noise, ordering), "algorithm": name, "mean_mistakes": mistakes,
                "mean_last_mistake_round": last, "mean_mistakes_second_half": second_half}

    summary = [
        row("hard-to-easy", "PA-I", 100, 900, 5), row("hard-to-easy", "AdaGrad", 90, 800, 5),
        row("hard-to-easy", "AROW", 20, 50, 0), row("hard-to-easy", "NAROW", 30, 950, 0),
        row("x3*y", "PA-I", 100, 900, 50), row("x3*y", "AdaGrad", 110, 800, 40),
        row("x3*y", "AROW", 80, 900, 60), row("x3*y", "NAROW", 60, 900, 20),
    ]
    verdicts = {(f["finding"], f["panel"]): f["holds"] for f in check_findings(summary)}
    hard, x3 = panel_title(0.0, "hard-to-easy"), panel_title(0.0, "x3*y")
    assert verdicts == {
        ("second-order (AROW, NAROW) beat PA-I", hard): True,
        ("second-order (AROW, NAROW) beat PA-I", x3): True,
        ("AdaGrad beats PA-I", hard): True,
        ("AdaGrad beats PA-I", x3): False,
        ("AROW and NAROW stop making mistakes first on hard -> easy", hard): False,  # NAROW's last at 950
        ("NAROW recovers from adversarial orderings", x3): True,
    }


# The paper's findings, with every learner ------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_quick_run(tmp_path_factory):
    return run_orabona2010_fig3(tmp_path_factory.mktemp("fig3-all"), seed=0, quick=True)


def test_every_learner_is_run_and_every_finding_checked(full_quick_run):
    assert {row["algorithm"] for row in full_quick_run["rows"]} == set(LEARNERS)
    assert len(full_quick_run["findings"]) == 2 * 4 + 2 * 4 + 2 + 4


def _verdicts(run, finding):
    return {f["panel"]: f["holds"] for f in run["findings"] if f["finding"] == finding}


# At 600 rounds and 6 repetitions these held for seeds 0 to 5; AROW, NAROW and PA-I are within noise of each
# other on the x1 * y ordering, so that ordering is left out of the first check.
def test_second_order_learners_beat_pa1(full_quick_run):
    verdicts = _verdicts(full_quick_run, "second-order (AROW, NAROW) beat PA-I")
    assert len(verdicts) == 8
    assert all(holds for panel, holds in verdicts.items() if "x1 * y" not in panel)


def test_arow_and_narow_stop_making_mistakes_first_on_hard_to_easy(full_quick_run):
    verdicts = _verdicts(full_quick_run, "AROW and NAROW stop making mistakes first on hard -> easy")
    assert verdicts == {panel_title(noise, "hard-to-easy"): True for noise in NOISE_LEVELS}
    no_noise = {row["algorithm"]: row for row in full_quick_run["rows"]
                if row["panel"] == panel_title(0.0, "hard-to-easy")}
    for name in ("AROW", "NAROW"):  # and make no mistake at all in the easy second half
        assert no_noise[name]["mean_mistakes_second_half"] == 0


def test_narow_recovers_from_adversarial_orderings(full_quick_run):
    verdicts = _verdicts(full_quick_run, "NAROW recovers from adversarial orderings")
    assert len(verdicts) == 4 and all(verdicts.values())
