"""The crammer2006-fig6 reproduction: data choice, preprocessing, files, seeding, findings, the learners' settings.

The MNIST panel reads a small CSV written here (no network, no shared data
needed); the data home points at an empty folder, so nothing is fetched.
"""

import csv
import gzip
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_digits

import olearn
from olearn.experiments import _crammer2006_fig6 as fig6
from olearn.experiments._crammer2006_fig6 import (
    LEARNERS,
    check_findings,
    load_panel_data,
    make_learner,
    preprocess,
    read_digit_csv,
    run_crammer2006_fig6,
)


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def fake_mnist(tmp_path_factory):
    """300 'MNIST' digits made from the 8x8 digits, upsampled to 24x24 and padded to 28x28, as a gzip CSV."""
    X, y = load_digits(return_X_y=True)
    images = np.kron(X[:300].reshape(-1, 8, 8), np.ones((3, 3)))
    padded = np.pad(images, ((0, 0), (2, 2), (2, 2))) * 255.0 / 16.0
    path = tmp_path_factory.mktemp("mnist") / "digits.csv.gz"
    with gzip.open(path, "wt") as f:
        np.savetxt(f, np.column_stack([padded.reshape(300, -1).round(), y[:300]]), fmt="%d", delimiter=",")
    return path


@pytest.fixture(scope="module")
def empty_home(tmp_path_factory):
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def quick(tmp_path_factory, fake_mnist, empty_home):
    return run_crammer2006_fig6(tmp_path_factory.mktemp("fig6"), seed=0, quick=True, data_home=empty_home,
                                mnist_csv=fake_mnist)


def test_preprocessing_gives_zero_mean_and_unit_average_squared_norm():
    X = np.random.default_rng(0).integers(0, 256, (50, 12)).astype(float)
    Z = preprocess(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    assert np.mean(np.sum(Z * Z, axis=1)) == pytest.approx(1.0)
    # a shift and one common scale: distances keep their ratios
    ratio = np.linalg.norm(Z[0] - Z[1]) / np.linalg.norm(X[0] - X[1])
    assert np.linalg.norm(Z[2] - Z[3]) / np.linalg.norm(X[2] - X[3]) == pytest.approx(ratio)


def test_the_learners_are_the_papers():
    pa, perceptron, mira = (make_learner(name, "MNIST") for name in LEARNERS)
    assert (pa.variant, pa.C, perceptron.update, mira.beta) == ("pa1", 100.0, "uniform", 0.01)
    for est in (pa, perceptron, mira):
        assert (est.kernel, est.degree, est.gamma, est.coef0) == ("poly", 5, 1.0, 0.5)
    usps = make_learner(LEARNERS[0], "USPS")
    assert (usps.kernel, usps.degree, usps.gamma, usps.coef0) == ("poly", 3, 1.0, 0.0)
    with pytest.raises(ValueError, match="unknown learner"):
        make_learner("SVM", "USPS")


def test_files_rows_and_data_sources(quick):
    for key in ("figure", "summary_csv", "curves_csv", "findings_csv"):
        assert Path(quick[key]).stat().st_size > 0
    assert quick["skipped"] == {}
    assert quick["data_sources"]["USPS"].startswith("scikit-learn digits (1,797 digits")
    assert quick["data_sources"]["MNIST"].startswith("MNIST digits from digits.csv.gz (300 digits")
    rows = _read(quick["summary_csv"])
    assert [(r["panel"], r["algorithm"]) for r in rows] == [(p, n) for p in ("USPS", "MNIST") for n in LEARNERS]
    assert {r["rounds"] for r in rows} == {"400", "300"}
    for row, curve in zip(quick["rows"], (c for p in quick["curves"].values() for c in p.values())):
        assert row["mistakes"] == curve[-1] and row["rounds"] == curve.size
        assert row["support_vectors"] <= row["updates"] <= row["rounds"]
    curves = _read(quick["curves_csv"])
    assert {r["round"] for r in curves} >= {"1", "300", "400"}
    written = _read(quick["findings_csv"])
    assert [f["holds"] for f in written] == ["" if f["holds"] is None else str(f["holds"]) for f in quick["findings"]]
    # the data of each panel is named where `olearn reproduce` prints the findings; the stand-in loudly
    assert [(f["finding"], f["panel"]) for f in written[:2]] == [
        ("STAND-IN DATA (not the paper's USPS)", "USPS"), ("data used", "MNIST")]
    assert written[0]["values"].startswith(quick["data_sources"]["USPS"]) and "STAND-IN DATA" in written[0]["values"]
    assert written[1]["values"] == quick["data_sources"]["MNIST"]


def test_a_stand_in_for_usps_is_announced_in_the_warnings_the_figure_and_the_csvs(quick):
    assert list(quick["stand_ins"]) == ["USPS"]
    assert quick["warnings"] == [quick["stand_ins"]["USPS"]]
    assert quick["stand_ins"]["USPS"].startswith("STAND-IN DATA: the USPS panel ran on scikit-learn's 8 x 8 digits")
    for table in ("summary_csv", "curves_csv"):
        rows = _read(quick[table])
        assert {r["stand_in"] for r in rows if r["panel"] == "USPS"} == {quick["stand_ins"]["USPS"]}
        assert {r["stand_in"] for r in rows if r["panel"] == "MNIST"} == {""}


def test_the_figure_titles_name_the_stand_in(empty_home, fake_mnist, monkeypatch, tmp_path):
    seen = {}

    def spy(panels, path=None, title=None, alarming=()):
        seen.update(panels=list(panels), title=title, alarming=list(alarming))

    monkeypatch.setattr("olearn.plots._crammer2006_fig6.plot_crammer2006_fig6", spy)
    run_crammer2006_fig6(tmp_path, quick=True, data_home=empty_home, mnist_csv=fake_mnist)
    assert seen["panels"][0].startswith("STAND-IN for USPS, NOT the paper's data")
    assert not seen["panels"][1].startswith("STAND-IN")
    assert seen["alarming"] == seen["panels"][:1]
    assert "STAND-IN DATA: the USPS panel is not on USPS" in seen["title"]


def test_each_curve_is_olearn_run_of_the_learner_on_the_preprocessed_shuffled_data(quick, empty_home):
    X, y, _, stand_in = load_panel_data("USPS", quick=True, data_home=empty_home)
    assert stand_in is not None
    order = np.random.default_rng(0).permutation(X.shape[0])[:400]
    res = olearn.run(make_learner(LEARNERS[2], "USPS"), preprocess(X[order]), y[order])
    np.testing.assert_array_equal(quick["curves"]["USPS"][LEARNERS[2]], res.cumulative_mistakes)


def test_a_seed_repeats_and_another_differs(quick, tmp_path, fake_mnist, empty_home):
    again = run_crammer2006_fig6(tmp_path / "a", seed=0, quick=True, data_home=empty_home, mnist_csv=fake_mnist)
    assert again["rows"] == quick["rows"]
    other = run_crammer2006_fig6(tmp_path / "b", seed=1, quick=True, data_home=empty_home, mnist_csv=fake_mnist)
    assert other["rows"] != quick["rows"]


def test_the_papers_conclusion_at_the_quick_size(quick):
    beats = [f for f in quick["findings"] if f["finding"].startswith("PA-I and MIRA both")]
    assert [f["panel"] for f in beats] == ["USPS", "MNIST"]
    assert beats[0]["holds"]  # the digits panel: 400 rounds are enough to separate them


def test_a_panel_without_data_is_skipped_with_the_reason(tmp_path, empty_home, monkeypatch):
    monkeypatch.setattr(fig6, "_mnist_csv_candidates", lambda data_home: [tmp_path / "nowhere.csv.gz"])
    result = run_crammer2006_fig6(tmp_path, quick=True, data_home=empty_home)
    assert list(result["data_sources"]) == ["USPS"]
    assert "no MNIST data" in result["skipped"]["MNIST"]
    assert {"finding": "panel skipped", "panel": "MNIST", "measure": "data", "values": result["skipped"]["MNIST"],
            "holds": None} in result["findings"]
    assert {r["panel"] for r in result["rows"]} == {"USPS"}
    assert not list(empty_home.iterdir())  # nothing was downloaded or created


def test_findings_are_computed_from_the_mistakes():
    pa, perceptron, mira = LEARNERS
    rows = [{"panel": "P", "algorithm": pa, "mistakes": 100}, {"panel": "P", "algorithm": perceptron, "mistakes": 150},
            {"panel": "P", "algorithm": mira, "mistakes": 120}]
    beats, close, slight = check_findings(rows)
    assert beats["holds"] and not close["holds"] and "difference=16.7%" in close["values"]
    assert not slight["holds"]  # MIRA 120 > PA-I 100: the paper's "slight advantage to" MIRA fails here
    rows[2]["mistakes"] = 160
    assert check_findings(rows)[0]["holds"] is False


def test_read_digit_csv_checks_its_shape(tmp_path):
    (tmp_path / "one.csv").write_text("1\n2\n")
    with pytest.raises(ValueError, match="pixel columns then a label"):
        read_digit_csv(tmp_path / "one.csv")
