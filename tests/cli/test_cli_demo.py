"""``olearn demo`` and ``olearn.experiments.run_demo``: files written, numbers recomputed independently."""

import csv

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_breast_cancer

import olearn
from olearn.cli import cli
from olearn.data import make_pa_paper_stream
from olearn.experiments import demo_datasets, run_demo
from olearn.experiments._demo import CSV_COLUMNS

SEED = 4

# The demo's learners, written out again here rather than imported.
LEARNERS = {
    "Perceptron": lambda: olearn.Perceptron(),
    "PA": lambda: olearn.PAClassifier(variant="pa"),
    "PA-I (C=1)": lambda: olearn.PAClassifier(variant="pa1", C=1.0),
    "PA-I (C=0.001)": lambda: olearn.PAClassifier(variant="pa1", C=0.001),
    "PA-II (C=1)": lambda: olearn.PAClassifier(variant="pa2", C=1.0),
    "PA-II (C=0.001)": lambda: olearn.PAClassifier(variant="pa2", C=0.001),
    "OGD (hinge, eta/sqrt t)": lambda: olearn.OGDClassifier(loss="hinge", eta=1.0, schedule="sqrt"),
    "Online SVM (R=10)": lambda: olearn.OnlineSVM(radius=10.0, fit_intercept=True),
}


def streams(seed):
    X_syn, y_syn = make_pa_paper_stream(n_samples=4000, label_noise=0.1, random_state=seed)
    data = load_breast_cancer()
    order = np.random.default_rng(seed).permutation(len(data.target))
    X = data.data[order]
    X_bc = (X - X.mean(axis=0)) / X.std(axis=0)
    y_bc = data.target_names[data.target[order]]
    return [(X_syn, y_syn), (X_bc, y_bc)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo") / "out", seed=SEED)


def test_mistakes_equal_a_direct_computation(demo):
    assert len(demo.results) == 2
    for (X, y), results in zip(streams(SEED), demo.results.values()):
        assert list(results) == list(LEARNERS)
        for name, make in LEARNERS.items():
            want = olearn.run(make(), X, y)
            got = results[name]
            assert got.n_rounds == len(y)
            assert got.n_mistakes == want.n_mistakes, name
            np.testing.assert_array_equal(got.cumulative_mistakes, want.cumulative_mistakes)
            assert got.cumulative_loss == pytest.approx(want.cumulative_loss)


def test_paper_shape_small_C_helps_under_label_noise(demo):
    synthetic = next(iter(demo.results.values()))
    for variant in ("PA-I", "PA-II"):
        assert synthetic[f"{variant} (C=0.001)"].n_mistakes < synthetic[f"{variant} (C=1)"].n_mistakes
        assert synthetic[f"{variant} (C=0.001)"].n_mistakes < synthetic["PA"].n_mistakes


def test_files_written(demo):
    with open(demo.figure_path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with open(demo.csv_path, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == CSV_COLUMNS
    assert len(rows) == 2 * len(LEARNERS)
    for row in rows:
        res = demo.results[row["dataset"]][row["algorithm"]]
        assert int(row["mistakes"]) == res.n_mistakes
        assert int(row["examples"]) == res.n_rounds
        assert float(row["mistake_rate"]) == pytest.approx(res.mistake_rate)


def test_demo_command(tmp_path):
    out = tmp_path / "demo-out"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out), "--seed", str(SEED)])
    assert result.exit_code == 0, result.output
    assert (out / "cumulative_mistakes.png").stat().st_size > 10_000
    assert (out / "results.csv").exists()
    assert f"figure written to {out / 'cumulative_mistakes.png'}" in result.stdout
    X, y = streams(SEED)[0]
    mistakes = olearn.run(olearn.PAClassifier(variant="pa1", C=0.001), X, y).n_mistakes
    row = next(line for line in result.stdout.splitlines() if "PA-I (C=0.001)" in line)
    assert f" {mistakes:,} " in row


def test_demo_streams_are_seeded():
    first, again, other = demo_datasets(1), demo_datasets(1), demo_datasets(2)
    for name, (X, y, _) in first.items():
        np.testing.assert_array_equal(X, again[name][0])
        np.testing.assert_array_equal(y, again[name][1])
        assert not np.array_equal(y, other[name][1])
