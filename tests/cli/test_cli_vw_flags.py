"""``olearn run -i/-f/-t/-p/--raw``: Vowpal Wabbit's habits, checked against the library on the same data."""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olearn
from olearn.cli import cli

# CLI arguments -> the estimator they build (each resumed exactly from a saved model)
LEARNERS = {
    ("-a", "perceptron"): lambda: olearn.Perceptron(),
    ("-a", "ogd", "--schedule", "sqrt", "--eta", "0.5"): lambda: olearn.OGDClassifier(schedule="sqrt", eta=0.5),
    ("-a", "arow", "--set", "r=0.5"): lambda: olearn.AROW(r=0.5, covariance="diag"),
    ("-a", "arow-full"): lambda: olearn.AROW(covariance="full"),
    ("-a", "perceptron", "--set", "kernel=rbf", "--set", "gamma=0.5", "--set", "budget=40"): (
        lambda: olearn.Perceptron(kernel="rbf", gamma=0.5, budget=40)
    ),
}
MULTICLASS = {
    ("-a", "pa1-multiclass", "-C", "0.5"): lambda: olearn.PAMulticlass(variant="pa1", C=0.5),
    ("-a", "mira"): lambda: olearn.MIRA(),
}


def invoke(*args):
    return CliRunner().invoke(cli, ["run", *[str(a) for a in args]])


def summary_value(output, name):
    match = re.search(rf"^{name}\s+(\S+)$", output, re.MULTILINE)
    assert match, output
    return match.group(1)


@pytest.fixture
def halves(tmp_path):
    """Two LIBSVM files A, B of one binary stream, their concatenation AB, and the same for 4 classes."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 6))
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=300) > 0, 1, -1)
    classes = np.argmax(X[:, :4] + 0.3 * rng.normal(size=(300, 4)), axis=1) + 1
    files = {}
    for name, labels in (("bin", y), ("multi", classes)):
        for part, rows in (("A", slice(0, 180)), ("B", slice(180, 300)), ("AB", slice(0, 300))):
            path = tmp_path / f"{name}{part}.svm"
            dump_svmlight_file(X[rows], labels[rows], str(path), zero_based=False)
            files[name, part] = str(path)
    return files


def read(path):
    """The file as the reader sees it (the text's numbers, not the arrays it was written from)."""
    X, y = load_svmlight_file(path, n_features=6, zero_based=False)
    return X, y


def library_run(make, *paths):
    """The estimator after learning the files in order with olearn.run, and the RunResult of the last."""
    est = make()
    for path in paths:
        result = olearn.run(est, *read(path))
    return est, result


@pytest.mark.parametrize("kind, args, make", [*(("bin", a, m) for a, m in LEARNERS.items()),
                                              *(("multi", a, m) for a, m in MULTICLASS.items())],
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_resuming_equals_one_run(tmp_path, halves, kind, args, make):
    first, resumed, whole = (tmp_path / name for name in ("a.npz", "b.npz", "ab.npz"))
    assert invoke(*args, halves[kind, "A"], "-f", first).exit_code == 0
    result = invoke("-i", first, halves[kind, "B"], "--final-model", resumed, "--quiet")
    assert result.exit_code == 0, result.output
    assert invoke(*args, halves[kind, "AB"], "--save", whole, "--quiet").exit_code == 0

    reference, on_b = library_run(make, halves[kind, "A"], halves[kind, "B"])
    assert int(summary_value(result.output, "mistakes")) == on_b.n_mistakes
    probe, _ = read(halves[kind, "AB"])
    for path in (resumed, whole):
        model = olearn.load(path)
        assert np.array_equal(model.decision_function(probe), reference.decision_function(probe))


def test_resumed_model_keeps_its_record_of_the_input(tmp_path, halves):
    model, vw = tmp_path / "m.npz", tmp_path / "b.vw"
    vw.write_text("1 | a:1 b:2\n-1 | a:2\n")
    assert invoke("-a", "pa1", halves["bin", "A"], "-f", model).exit_code == 0
    result = invoke("-i", model, vw)
    assert result.exit_code == 1
    assert "trained on a LIBSVM file" in result.stderr and "vw" in result.stderr


@pytest.mark.parametrize("args, named", [
    (("-a", "pa1"), "--algo pa1 contradicts"),
    (("-a", "arow-full"), "a model of --algo arow"),
    (("--set", "r=0.1"), "--set r=0.1 contradicts"),
    (("--eta", "0.2"), "--eta 0.2 does not apply"),
    (("--fit-intercept",), "--fit-intercept contradicts -i"),
])
def test_an_option_contradicting_the_resumed_model_is_a_usage_error(tmp_path, halves, args, named):
    model = tmp_path / "m.npz"
    assert invoke("-a", "arow", "--set", "r=0.5", halves["bin", "A"], "-f", model).exit_code == 0
    result = invoke("-i", model, *args, halves["bin", "B"])
    assert result.exit_code == 2
    assert named in result.stderr


def test_repeating_the_models_setting_is_allowed(tmp_path, halves):
    model = tmp_path / "m.npz"
    assert invoke("-a", "arow", "--set", "r=0.5", halves["bin", "A"], "-f", model).exit_code == 0
    assert invoke("-i", model, "-a", "arow", "--set", "r=0.5", halves["bin", "B"]).exit_code == 0


def test_test_only_counts_the_mistakes_of_the_frozen_model(tmp_path, halves):
    model = tmp_path / "m.npz"
    assert invoke("-a", "pa1", halves["bin", "A"], "-f", model).exit_code == 0
    before = model.read_bytes()
    result = invoke("-i", model, "-t", halves["bin", "B"])
    assert result.exit_code == 0, result.output
    X, y = read(halves["bin", "B"])
    frozen = olearn.load(model)
    assert int(summary_value(result.output, "mistakes")) == int((frozen.predict(X) != y).sum())
    assert summary_value(result.output, "updates") == "0"
    assert model.read_bytes() == before


@pytest.mark.parametrize("args, named", [
    (("-t",), "-i MODEL"),
    (("-t", "-i", "{model}", "-f", "{other}"), "-f/--save"),
    (("-t", "-i", "{model}", "--passes", "2"), "--passes"),
    (("-i", "{model}", "--bound"), "--bound"),
    (("--raw",), "add -p FILE"),
    (("-p", "{missing}/p.txt"), "-p"),
])
def test_flag_usage_errors(tmp_path, halves, args, named):
    model = tmp_path / "m.npz"
    assert invoke("-a", "pa1", halves["bin", "A"], "-f", model).exit_code == 0
    args = [a.format(model=model, other=tmp_path / "o.npz", missing=tmp_path / "none") for a in args]
    result = invoke(*([] if "-i" in args else ["-a", "pa1"]), *args, halves["bin", "B"])
    assert result.exit_code != 0 and named in result.stderr, result.output
    assert not (tmp_path / "o.npz").exists()


def test_predictions_are_progressive_labels_in_input_order(tmp_path, halves):
    out = tmp_path / "p.txt"
    result = invoke("-a", "pa1", halves["bin", "AB"], "-p", out, "--chunk-size", "64")
    assert result.exit_code == 0, result.output
    _, expected = library_run(lambda: olearn.PAClassifier(variant="pa1"), halves["bin", "AB"])
    assert out.read_text().splitlines() == [str(int(label)) for label in expected.predictions]
    assert "mistakes" in result.stdout  # the table stays on stdout when -p writes a file


def test_predictions_to_stdout_move_the_table_to_stderr(halves):
    result = invoke("-a", "perceptron", halves["bin", "A"], "-p", "-", "--raw")
    assert result.exit_code == 0, result.output
    _, expected = library_run(olearn.Perceptron, halves["bin", "A"])
    assert [float(line) for line in result.stdout.splitlines()] == expected.scores.tolist()
    assert "examples" in result.stderr and "mistakes" in result.stderr


def test_multiclass_raw_scores_name_their_classes(halves):
    result = invoke("-a", "pa1-multiclass", halves["multi", "AB"], "-p", "-", "--raw", "--chunk-size", "50")
    assert result.exit_code == 0, result.output
    # the library's run in one piece: one column per class of classes_, -inf for a class not known yet
    est, expected = library_run(lambda: olearn.PAMulticlass(variant="pa1"), halves["multi", "AB"])
    assert expected.scores.shape == (300, 4) and np.isinf(expected.scores[0]).all()
    lines = result.stdout.splitlines()
    assert len(lines) == 300 and lines[0] == ""
    for line, row in zip(lines, expected.scores):
        pairs = [pair.split(":") for pair in line.split()]
        assert [name for name, _ in pairs] == [str(int(c)) for c, s in zip(est.classes_, row) if np.isfinite(s)]
        assert [float(score) for _, score in pairs] == [s for s in row.tolist() if np.isfinite(s)]
    labels = invoke("-a", "pa1-multiclass", halves["multi", "AB"], "-p", "-", "--chunk-size", "50")
    # the first round, before any class is known, predicts none: an empty line
    assert labels.stdout.splitlines() == [""] + [str(int(c)) for c in expected.predictions[1:]]


def test_test_only_predictions_match_olearn_predict(tmp_path, halves):
    model = tmp_path / "m.npz"
    assert invoke("-a", "pa1-multiclass", halves["multi", "A"], "-f", model).exit_code == 0
    labels = invoke("-i", model, "-t", "-p", "-", halves["multi", "B"])
    predicted = CliRunner().invoke(cli, ["predict", "-m", str(model), halves["multi", "B"]])
    assert labels.exit_code == 0 and predicted.exit_code == 0
    assert labels.stdout == predicted.stdout
    raw = invoke("-i", model, "-t", "-p", "-", "--raw", halves["multi", "B"])
    frozen = olearn.load(model)
    X, _ = read(halves["multi", "B"])
    expected = frozen.decision_function(X)
    names = [str(int(c)) for c in frozen.classes_]
    assert raw.stdout.splitlines() == [" ".join(f"{n}:{float(s)!r}" for n, s in zip(names, row)) for row in expected]


def test_a_model_without_an_algo_of_run_cannot_be_resumed(tmp_path, halves, monkeypatch):
    from olearn.cli._learners import ALGORITHMS

    # every estimator class has an --algo now: take the regressor's away
    for name in ("pa-regression", "pa1-regression", "pa2-regression"):
        monkeypatch.delitem(ALGORITHMS, name)
    model = tmp_path / "regressor.npz"
    olearn.PARegressor().partial_fit(*read(halves["bin", "A"])).save(model)
    result = invoke("-i", model, halves["bin", "B"])
    assert result.exit_code == 2 and "a PARegressor model" in result.stderr, result.output
