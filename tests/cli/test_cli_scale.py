"""``olearn run --scale`` and CSV tables with text columns: a raw table learned without scaling it by hand.

References: the library's pipeline given the same rows in memory (``olearn.run(StandardScaler() | learner, X,
y)``), NumPy's mean, variance and largest absolute value of the columns, and one-hot dicts built by hand.
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner

import olearn
from olearn import PAClassifier, PAMulticlass, PARegressor
from olearn.cli import cli
from olearn.compose import Pipeline
from olearn.data import load_csv_table
from olearn.exceptions import DataFormatError
from olearn.preprocessing import MaxAbsScaler, StandardScaler


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def summary_value(output, name):
    return float(re.search(rf"^{name}\s+([\d,.]+)", output, re.M).group(1).replace(",", ""))


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def raw_table(n, seed=0):
    """A table as a user has one: numeric columns of very different scales (years, dollars, a ratio), two text
    columns (one with empty cells), the label last; the classes depend on every column."""
    rng = np.random.default_rng(seed)
    age = rng.normal(45, 12, n)
    income = rng.lognormal(10.5, 0.5, n)
    ratio = rng.uniform(0, 1, n)
    city = rng.choice(["paris", "lyon", "nice"], n)
    plan = rng.choice(["basic", "pro", ""], n)
    z = ((age - 45) / 12 + (np.log(income) - 10.5) / 0.5 - 2 * (ratio - 0.5)
         + np.select([city == "paris", city == "lyon"], [1.2, -1.2], 0.0) + np.where(plan == "pro", 1.0, 0.0) - 0.33)
    label = np.where(z + rng.normal(0, 0.5, n) > 0, 1, -1)
    return age, income, ratio, city, plan, label


def write_table(path, n, seed=0):
    age, income, ratio, city, plan, label = raw_table(n, seed)
    with open(path, "w") as f:
        f.write("age,city,income,plan,ratio,label\n")
        for row in zip(age, city, income, plan, ratio, label):
            f.write("{:.2f},{},{:.2f},{},{:.4f},{}\n".format(*row))
    return str(path)


def write_numeric(path, X, y):
    with open(path, "w") as f:
        f.write(",".join(f"x{j}" for j in range(X.shape[1])) + ",label\n")
        for row, label in zip(X, y):
            f.write(",".join(repr(float(v)) for v in row) + f",{label:g}\n")
    return str(path)


@pytest.fixture(scope="module")
def numeric(tmp_path_factory):
    """Unscaled numeric columns (scales 1e-2 to 1e5, a column with zeros), binary, multiclass and real labels."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4)) * [0.01, 1.0, 300.0, 1e5] + [0.0, 5.0, 1000.0, 0.0]
    X[::7, 1] = 0.0
    score = X[:, 0] / 0.01 + X[:, 2] / 300.0
    folder = tmp_path_factory.mktemp("numeric")
    labels = {"binary": np.where(score > 3.3, 1, -1), "multiclass": np.digitize(score, [0.0, 4.0]) + 1,
              "regression": np.round(score, 3)}
    return X, labels, {task: write_numeric(folder / f"{task}.csv", X, y) for task, y in labels.items()}


@pytest.mark.parametrize("scale, scaler", [("standard", StandardScaler), ("maxabs", MaxAbsScaler)])
@pytest.mark.parametrize("task, algo, learner", [("binary", "pa1", lambda: PAClassifier(C=1.0)),
                                                 ("multiclass", "pa1-multiclass", lambda: PAMulticlass(variant="pa1")),
                                                 ("regression", "pa1-regression", lambda: PARegressor(variant="pa1"))])
def test_scale_equals_the_librarys_pipeline_on_the_same_rows(tmp_path, numeric, scale, scaler, task, algo, learner):
    X, labels, paths = numeric
    y = labels[task]
    raw = [] if task == "regression" else ["--raw"]
    result = invoke("run", "-a", algo, "--scale", scale, "--label-column", "label", "-p", tmp_path / "p", *raw,
                    "-f", tmp_path / "model.npz", paths[task])
    assert result.exit_code == 0, result.output
    reference = scaler() | learner()
    expected = olearn.run(reference, X, y)
    lines = read_lines(tmp_path / "p")
    if task == "binary":
        np.testing.assert_allclose([float(v) for v in lines], expected.scores, rtol=1e-12, atol=1e-12)
    elif task == "multiclass":
        assert [line.split(" ") for line in lines[-3:]] == [
            [f"{c}:{float(s)!r}" for c, s in zip(reference.classes_, row)] for row in expected.scores[-3:]]
    else:
        np.testing.assert_allclose([float(v) for v in lines], expected.predictions, rtol=1e-12)
    saved = olearn.load(tmp_path / "model.npz")
    assert isinstance(saved, Pipeline) and type(saved[0]) is scaler
    # the statistics are those of the columns, by NumPy
    if scale == "standard":
        np.testing.assert_allclose(saved[0].mean_, X.mean(axis=0), rtol=1e-10)
        np.testing.assert_allclose(saved[0].var_, X.var(axis=0), rtol=1e-9)
    else:
        np.testing.assert_array_equal(saved[0].max_abs_, np.abs(X).max(axis=0))
    # olearn predict scales as the run did
    predicted = invoke("predict", "-m", tmp_path / "model.npz", "-o", tmp_path / "q", paths[task])
    assert predicted.exit_code == 0, predicted.output
    expected_labels = reference.predict(X)
    if task == "regression":
        np.testing.assert_allclose([float(v) for v in read_lines(tmp_path / "q")], expected_labels, rtol=1e-12)
    else:
        assert read_lines(tmp_path / "q") == [f"{v:g}" for v in expected_labels]


def test_resuming_a_scaled_model_resumes_its_statistics(tmp_path, numeric):
    X, labels, paths = numeric
    y = labels["binary"]
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    write_numeric(first, X[:250], y[:250])
    write_numeric(second, X[250:], y[250:])
    assert invoke("run", "-a", "pa1", "--scale", "standard", "-f", tmp_path / "m.npz", first).exit_code == 0
    result = invoke("run", "-i", tmp_path / "m.npz", "-p", tmp_path / "p", "--raw", "-f", tmp_path / "m2.npz", second)
    assert result.exit_code == 0, result.output
    whole = olearn.run(StandardScaler() | PAClassifier(), X, y)
    np.testing.assert_allclose([float(v) for v in read_lines(tmp_path / "p")], whole.scores[250:], rtol=1e-12,
                               atol=1e-12)
    # repeating the model's scaling is allowed; another one is refused, the model unchanged
    assert invoke("run", "-i", tmp_path / "m.npz", "--scale", "standard", "-t", second).exit_code == 0
    changed = invoke("run", "-i", tmp_path / "m.npz", "--scale", "maxabs", second)
    assert changed.exit_code == 2 and "--scale maxabs contradicts" in changed.output
    assert invoke("run", "-a", "pa1", "-f", tmp_path / "plain.npz", first).exit_code == 0
    added = invoke("run", "-i", tmp_path / "plain.npz", "--scale", "standard", second)
    assert added.exit_code == 2 and "learned with no --scale" in added.output


@pytest.mark.parametrize("args, named", [
    (["-a", "pa-uniclass"], "learns uniclass"),
    (["-a", "pa-multilabel"], "learns multilabel"),
    (["-a", "pa1", "--bound"], "--bound"),
    (["-a", "pa1", "--workers", "2", "--delay", "1"], "--scale on Dask applies to parameter mixing"),
])
def test_scale_is_refused_where_it_does_not_apply(numeric, args, named):
    result = invoke("run", *args, "--scale", "standard", numeric[2]["binary"])
    assert result.exit_code == 2 and named in result.output


def test_scale_takes_a_raw_table_from_chance_to_learning(tmp_path):
    path = write_table(tmp_path / "table.csv", 3000)
    rates = {}
    for scale in (None, "standard", "maxabs"):
        args = [] if scale is None else ["--scale", scale]
        result = invoke("run", "-a", "pa1", "--quiet", *args, path)
        assert result.exit_code == 0, result.output
        rates[scale] = summary_value(result.output, "mistake rate")
    # near chance on the raw columns (incomes in the tens of thousands swamp the rest), learning when scaled
    # (measured: 0.52 raw, 0.14 standard, 0.20 maxabs; Vowpal Wabbit's defaults 0.17, docs/cli.md)
    assert rates[None] > 0.35
    assert rates["standard"] < 0.22
    assert rates["maxabs"] < 0.3


def test_text_columns_are_one_hot_categories(tmp_path):
    path = write_table(tmp_path / "table.csv", 200, seed=1)
    result = invoke("run", "-a", "pa1", "-p", tmp_path / "p", "--raw", "-f", tmp_path / "m.npz", path)
    assert result.exit_code == 0, result.output
    # the same rows as dicts, one-hot by hand; an empty cell is no category
    age, income, ratio, city, plan, label = raw_table(200, seed=1)
    rows = []
    for a, c, i, p, r in zip(age, city, income, plan, ratio):
        row = {"age": float(f"{a:.2f}"), f"city={c}": 1.0, "income": float(f"{i:.2f}"), "ratio": float(f"{r:.4f}")}
        if p:
            row[f"plan={p}"] = 1.0
        rows.append(row)
    expected = olearn.run(PAClassifier(), rows, label)
    np.testing.assert_allclose([float(v) for v in read_lines(tmp_path / "p")], expected.scores, rtol=1e-12)
    # scaled: every numeric cell is present (a key of each dict), a category on its rows only
    scaled = invoke("run", "-a", "pa1", "--scale", "standard", "-p", tmp_path / "s", "--raw", path)
    assert scaled.exit_code == 0, scaled.output
    expected = olearn.run(StandardScaler() | PAClassifier(), rows, label)
    np.testing.assert_allclose([float(v) for v in read_lines(tmp_path / "s")], expected.scores, rtol=1e-9,
                               atol=1e-12)
    # read through its cache, written then read, the table scales alike
    for _ in range(2):
        cached = invoke("run", "-a", "pa1", "--scale", "standard", "-c", "-p", tmp_path / "c", "--raw", path)
        assert cached.exit_code == 0, cached.output
        assert read_lines(tmp_path / "c") == read_lines(tmp_path / "s")
    # predict reads another file through the model's names: a city it never saw counts 0
    other = tmp_path / "other.csv"
    other.write_text("age,city,income,plan,ratio,label\n40,paris,30000,pro,0.5,1\n40,rome,30000,,0.5,1\n")
    predicted = invoke("predict", "-m", tmp_path / "m.npz", "-o", tmp_path / "q", other)
    assert predicted.exit_code == 0, predicted.output
    model = PAClassifier()
    olearn.run(model, rows, label)
    assert read_lines(tmp_path / "q") == [f"{v:g}" for v in model.predict(
        [{"age": 40.0, "city": "paris", "income": 30000.0, "plan": "pro", "ratio": 0.5},
         {"age": 40.0, "income": 30000.0, "ratio": 0.5}])]


def test_a_model_of_numbers_refuses_a_table_with_text(tmp_path, numeric):
    assert invoke("run", "-a", "pa1", "-f", tmp_path / "m.npz", numeric[2]["binary"]).exit_code == 0
    table = tmp_path / "t.csv"
    table.write_text("x0,x1,x2,x3,label\n1,2,paris,4,1\n")
    for command in (["predict", "-m"], ["run", "-i"]):
        result = invoke(*command, tmp_path / "m.npz", table)
        assert result.exit_code == 1 and "column 3 holds text, and the model was trained on a CSV file of numbers" \
            in result.output


def test_a_table_without_header_or_with_a_text_label_is_refused(tmp_path):
    headless = tmp_path / "headless.csv"
    headless.write_text("1,paris,1\n2,lyon,-1\n")
    result = invoke("run", "-a", "pa1", headless)
    assert result.exit_code == 1 and "column 2 holds text" in result.output and "no header" in result.output
    text_label = tmp_path / "label.csv"
    text_label.write_text("a,city,label\n1,paris,1\n2,lyon,yes\n")
    result = invoke("run", "-a", "pa1", text_label)
    assert result.exit_code == 1 and "label.csv:3: the label column 3 ('label') holds 'yes'" in result.output


def test_a_table_with_text_on_standard_input_is_refused_in_one_line(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    table = "age,city,label\n31,paris,1\n45,lyon,-1\n"
    result = subprocess.run([sys.executable, "-m", "olearn", "run", "-a", "pa1", "--format", "csv", "-"], input=table,
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "olearn: error: <stdin>:2:4: expected a number, found 'paris'; a CSV file with text columns (categories) is "
        "read from a file, not from a stream: save the stream to a file first"]


def test_load_csv_table_reads_categories_through_a_vocabulary(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x,colour,label\n0,red,1\n2.5,,0\n-1,blue,1\n")
    X, y, features = load_csv_table(path)
    assert features.vocabulary() == {"x": 0, "colour=red": 1, "colour=blue": 2}
    np.testing.assert_array_equal(X.toarray(), [[0, 1, 0], [2.5, 0, 0], [-1, 0, 1]])
    np.testing.assert_array_equal(y, [1, 0, 1])
    # a known vocabulary, not learning: the same columns, a new category left out
    other = tmp_path / "o.csv"
    other.write_text("x,colour,label\n1,green,1\n1,blue,0\n")
    X2, _, _ = load_csv_table(other, feature_map=features, learning=False)
    np.testing.assert_array_equal(X2.toarray(), [[1, 0, 0], [1, 0, 1]])
    empty = tmp_path / "e.csv"
    empty.write_text("x,colour,label\n,red,1\n")
    with pytest.raises(DataFormatError, match=r"e\.csv:2: column 1 \('x'\): empty cell"):
        load_csv_table(empty)


def test_run_help_says_first_when_scaling_is_needed():
    lines = invoke("run", "--help").output.splitlines()
    start = " ".join(line.strip() for line in lines[:10])  # the usage line, the summary, then this paragraph
    assert "unscaled values" in start and "--scale standard" in start and "near chance" in start


@pytest.mark.parametrize("fmt", ["svm", "vw"])
@pytest.mark.parametrize("scale, scaler", [("standard", StandardScaler), ("maxabs", MaxAbsScaler)])
def test_scale_reads_libsvm_and_vw_rows(tmp_path, numeric, fmt, scale, scaler):
    # the readers' rows (not a scipy matrix) were refused by the pipeline: "X could not be read as an array"
    X, labels, _ = numeric
    y = labels["binary"]
    path = tmp_path / f"train.{fmt}"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            entries = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v != 0.0)
            f.write(f"{label} {entries}\n" if fmt == "svm" else f"{label} | {entries}\n")
    result = invoke("run", "-a", "pa1", "--scale", scale, "-p", tmp_path / "p", "--raw", "-f", tmp_path / "m.npz",
                    *(["--format", "vw", "--bits", "4"] if fmt == "vw" else []), path)
    assert result.exit_code == 0, result.output
    reference = scaler() | PAClassifier(C=1.0)
    if fmt == "svm":
        expected = olearn.run(reference, sp.csr_matrix(X), y)  # a zero is absent from the file's rows
        np.testing.assert_allclose([float(v) for v in read_lines(tmp_path / "p")], expected.scores, rtol=1e-12,
                                   atol=1e-12)
    assert summary_value(result.output, "examples") == 400
    predicted = invoke("predict", "-m", tmp_path / "m.npz", "-o", tmp_path / "q",
                       *(["--format", "vw"] if fmt == "vw" else []), path)
    assert predicted.exit_code == 0, predicted.output
    assert len(read_lines(tmp_path / "q")) == 400
