"""``olearn predict`` (a saved model round trip) and ``olearn compare`` (table, CSV, plot)."""

import csv

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.cli import cli
from olearn.cli._compare import CSV_COLUMNS
from olearn.cli._mistake_trace import MistakeTrace


@pytest.fixture
def files(tmp_path, make_stream):
    """Train and test LIBSVM files with labels -1/+1: (train path, X, y, test path, X_test, y_test)."""
    X, y = make_stream(400, 8, seed=5, noise=0.05)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:300], y[:300], str(train), zero_based=False)
    dump_svmlight_file(X[300:], y[300:], str(test), zero_based=False)
    return str(train), X[:300], y[:300], str(test), X[300:], y[300:]


def test_save_then_predict_equals_in_memory_predictions(files, tmp_path):
    train, X, y, test, X_test, y_test = files
    model = str(tmp_path / "model.npz")
    runner = CliRunner()
    result = runner.invoke(cli, ["run", "--algo", "pa2", "-C", "0.3", "--fit-intercept", "--save", model, train])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["predict", "--model", model, test])
    assert result.exit_code == 0, result.output

    est = olearn.PAClassifier(variant="pa2", C=0.3, fit_intercept=True).partial_fit(X, y)
    want = est.predict(X_test)
    got = [int(line) for line in result.stdout.splitlines()]
    assert got == want.tolist()
    accuracy = np.mean(want == y_test)
    assert result.stderr.strip() == f"accuracy: {accuracy:.6f} ({int(np.sum(want == y_test))}/{y_test.size} correct)"


def test_predict_to_output_file(files, tmp_path):
    train, X, y, test, X_test, _ = files
    model, out = str(tmp_path / "m.npz"), tmp_path / "pred.txt"
    assert CliRunner().invoke(cli, ["run", "-a", "perceptron", "--quiet", "--save", model, train]).exit_code == 0
    result = CliRunner().invoke(cli, ["predict", "-m", model, "-o", str(out), "--chunk-size", "9", test])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    want = olearn.Perceptron().partial_fit(X, y).predict(X_test)
    assert out.read_text().split() == [str(v) for v in want.tolist()]


def test_predict_rejects_a_file_that_is_not_a_model(files, tmp_path):
    _, _, _, test, _, _ = files
    fake = tmp_path / "fake.npz"
    fake.write_text("not a model")
    result = CliRunner().invoke(cli, ["predict", "--model", str(fake), test])
    assert result.exit_code == 1
    assert result.stderr.startswith("olearn: error: ") and "not an olearn model" in result.stderr
    assert "Traceback" not in result.output


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def test_compare_writes_table_csv_and_plot(files, tmp_path):
    train, X, y, _, _, _ = files
    plot, table = tmp_path / "mistakes.png", tmp_path / "mistakes.csv"
    args = ["compare", "--algos", "pa1,perceptron,ogd,pa1:C=0.01", "--eta", "0.5", "--chunk-size", "64",
            "--plot", str(plot), "--csv", str(table), train]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    for name in ("pa1", "perceptron", "ogd", "pa1:C=0.01"):
        assert name in result.stdout

    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    columns, rows = read_csv(table)
    assert tuple(columns) == CSV_COLUMNS
    want = {
        "pa1": olearn.PAClassifier(variant="pa1"),
        "perceptron": olearn.Perceptron(eta=0.5),
        "ogd": olearn.OGDClassifier(eta=0.5),
        "pa1:C=0.01": olearn.PAClassifier(variant="pa1", C=0.01),
    }
    assert [row["algorithm"] for row in rows] == list(want)
    for row in rows:
        res = olearn.run(want[row["algorithm"]], X, y)
        assert int(row["examples"]) == 300
        assert int(row["mistakes"]) == res.n_mistakes
        assert int(row["updates"]) == res.n_updates
        assert float(row["mistake_rate"]) == pytest.approx(res.mistake_rate)
        assert float(row["average_loss"]) == pytest.approx(res.average_loss)
        assert float(row["seconds"]) >= 0
    assert rows[0]["settings"] == "C=1" and rows[3]["settings"] == "C=0.01"


def test_compare_usage_errors(files):
    train = files[0]
    for algos in ("pa1,nope", "pa1:eta=2", "ogd:loss=cubic", "pa1,pa1", "pa1:C=-1", ""):
        result = CliRunner().invoke(cli, ["compare", "--algos", algos, train])
        assert result.exit_code == 2, (algos, result.output)
    result = CliRunner().invoke(cli, ["compare", "--plot", "mistakes.txt", train])
    assert result.exit_code == 2 and "--plot" in result.stderr


def test_mistake_trace_samples_the_exact_curve():
    rng = np.random.default_rng(0)
    mistakes = rng.random(10_007) < 0.3
    full = np.cumsum(mistakes)
    trace = MistakeTrace(capacity=500)
    start = 0
    for size in rng.integers(1, 900, size=100):
        part = mistakes[start : start + size]
        if part.size == 0:
            break
        trace.add(olearn.RunResult(part.size, int(part.sum()), 0, 0.0, None, None, None, None, np.cumsum(part)))
        start += part.size
    rounds, sampled = trace.rounds, trace.cumulative_mistakes
    assert rounds[0] == 1 and rounds[-1] == mistakes.size
    assert 250 <= rounds.size <= 501
    assert np.all(np.diff(rounds) > 0)
    np.testing.assert_array_equal(sampled, full[rounds - 1])
    assert trace.n_mistakes == full[-1]
