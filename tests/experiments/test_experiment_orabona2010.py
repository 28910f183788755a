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
    check_observations,
    clean_mistakes,
    format_setting,
    make_learner,
    panel_title,
    run_orabona2010_fig3,
    settings,
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


def test_other_coordinates_are_independent_with_standard_deviation_8_5(big_draw):
    noise = big_draw[0][:, 2:]
    assert noise.shape[1] == 18
    assert np.abs(noise.mean(axis=0)).max() < 0.3  # 8.5 / sqrt(40,000) = 0.0425: 7 standard errors
    np.testing.assert_allclose(noise.std(axis=0), 8.5, rtol=0.03)
    corr = np.corrcoef(big_draw[0], rowvar=False)
    off_diagonal = corr - np.diag(np.diag(corr))
    off_diagonal[0, 1] = off_diagonal[1, 0] = 0.0  # x1 and x2 share the long axis
    assert np.abs(off_diagonal).max() < 0.03


def test_the_variance_reading_is_one_argument_away():
    X, _ = make_orabona2010_stream(40_000, random_state=1, noise_std=np.sqrt(8.5))
    np.testing.assert_allclose(X[:, 2:].var(axis=0), 8.5, rtol=0.05)
    with pytest.raises(ValueError, match="noise_std"):
        make_orabona2010_stream(10, noise_std=0.0)


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
    assert _read(pa_run["findings_csv"]) == []  # every statement of the text compares several learners
    assert _read(pa_run["observations_csv"]) == []


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
            first_best = min(float(r["setting"].removeprefix("C=")) for r in group if int(r["mistakes"]) == best)
            assert [r["setting"] for r in group if r["chosen"] == "True"] == [f"C={first_best:g}"]
            assert pa_run["tuned"][panel_title(noise, ordering)]["PA-I"] == {"C": first_best}


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


def test_adagrad_is_tuned_over_both_of_its_parameters():
    """The text: "All algorithms, except AdaGrad, have one parameter to be tuned, while AdaGrad has two"."""
    assert LEARNERS["AdaGrad"] == ("eta", "delta")
    grid = (0.25, 1.0, 4.0)
    assert settings("AdaGrad", grid) == [(a, b) for a in grid for b in grid]
    assert settings("AROW", grid) == [(0.25,), (1.0,), (4.0,)]
    learner = make_learner("AdaGrad", (0.25, 4.0))
    assert (learner.eta, learner.delta) == (0.25, 4.0)
    assert format_setting("AdaGrad", (0.25, 4.0)) == "eta=0.25; delta=4"


def _row(noise, ordering, name, mistakes, last=0.0, first_half=0.0, second_half=0.0):
    return {"panel": panel_title(noise, ordering), "algorithm": name, "mean_mistakes": mistakes,
            "mean_last_mistake_round": last, "mean_mistakes_first_half": first_half,
            "mean_mistakes_second_half": second_half}


def test_check_findings_checks_the_texts_rankings_panel_by_panel():
    summary = [
        # column 1, no noise: PA-I > AdaGrad > NAROW > AROW holds; halves: AROW's second half is not larger
        _row(0.0, "easy-to-hard", "PA-I", 700, first_half=50, second_half=650),
        _row(0.0, "easy-to-hard", "AdaGrad", 400, first_half=30, second_half=370),
        _row(0.0, "easy-to-hard", "NAROW", 390, first_half=20, second_half=370),
        _row(0.0, "easy-to-hard", "AROW", 100, first_half=50, second_half=50),
        # column 2, no noise: AROW/NAROW (any order among them) < AdaGrad < PA-I; with noise AdaGrad stops last
        _row(0.0, "hard-to-easy", "PA-I", 0, last=3000), _row(0.0, "hard-to-easy", "AdaGrad", 0, last=2000),
        _row(0.0, "hard-to-easy", "AROW", 0, last=40), _row(0.0, "hard-to-easy", "NAROW", 0, last=30),
        _row(0.1, "hard-to-easy", "PA-I", 0, last=3000), _row(0.1, "hard-to-easy", "AdaGrad", 0, last=3500),
        _row(0.1, "hard-to-easy", "AROW", 0, last=40), _row(0.1, "hard-to-easy", "NAROW", 0, last=30),
        # column 4, no noise: totals PA-I > AdaGrad > AROW > NAROW; NAROW's last mistake is not the latest
        _row(0.0, "x3*y", "PA-I", 300, last=3000), _row(0.0, "x3*y", "AdaGrad", 250, last=3500),
        _row(0.0, "x3*y", "AROW", 200, last=4000), _row(0.0, "x3*y", "NAROW", 100, last=3900),
    ]
    verdicts = [(f["panel"], f["holds"]) for f in check_findings(summary)]
    assert verdicts == [
        (panel_title(0.0, "easy-to-hard"), True),  # the ranking
        (panel_title(0.0, "easy-to-hard"), False),  # the halves
        (panel_title(0.0, "hard-to-easy"), True),
        (panel_title(0.1, "hard-to-easy"), False),
        (panel_title(0.0, "x3*y"), True),  # the totals
        (panel_title(0.0, "x3*y"), False),  # NAROW converging last
    ]


def test_observations_are_kept_apart_from_the_texts_findings():
    summary = [_row(0.0, "x3*y", "AROW", 200, second_half=60), _row(0.0, "x3*y", "NAROW", 100, second_half=20)]
    assert check_findings(summary) == []
    [observation] = check_observations(summary)
    assert observation["holds"] and "second half" in observation["finding"]


# The text's findings, with every learner ------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_quick_run(tmp_path_factory):
    return run_orabona2010_fig3(tmp_path_factory.mktemp("fig3-all"), seed=0, quick=True)


def test_every_learner_is_run_and_every_statement_checked(full_quick_run):
    assert {row["algorithm"] for row in full_quick_run["rows"]} == set(LEARNERS)
    assert len(full_quick_run["findings"]) == 1 + 1 + 2 + 4 + 4
    assert len(full_quick_run["observations"]) == 4 + 8
    assert all(row["setting"].startswith("eta=") for row in full_quick_run["rows"] if row["algorithm"] == "AdaGrad")


# At 600 rounds and 6 repetitions these held for seeds 0 to 5.
def test_arow_and_narow_stop_making_mistakes_before_pa1_and_adagrad_on_hard_to_easy(full_quick_run):
    for noise in NOISE_LEVELS:
        rows = {row["algorithm"]: row for row in full_quick_run["rows"]
                if row["panel"] == panel_title(noise, "hard-to-easy")}
        last = {name: row["mean_last_mistake_round"] for name, row in rows.items()}
        assert max(last["AROW"], last["NAROW"]) < min(last["PA-I"], last["AdaGrad"])
    no_noise = {row["algorithm"]: row for row in full_quick_run["rows"]
                if row["panel"] == panel_title(0.0, "hard-to-easy")}
    for name in ("AROW", "NAROW"):  # and make no mistake at all in the easy second half
        assert no_noise[name]["mean_mistakes_second_half"] == 0
