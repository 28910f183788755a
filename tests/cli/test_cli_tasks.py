"""``olearn run/predict/compare`` for regression, uniclass, multilabel and cost-sensitive learning.

The reference is the library on the same data read by scikit-learn's
``load_svmlight_file`` (an independent reader): ``olearn.run`` gives the
predictions that ``-p`` must write and the model that ``--save`` must hold.
"""

import csv
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.cli import cli

N = 60
D = 5
# a cost matrix over the labels 1, 2, 3 (row: true label, column: predicted), written with the labels unsorted
COSTS_TEXT = "# true \\ predicted\n3 1 2\n0 4 1\n4 0 1\n1 1 0\n"
COST_MATRIX = [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]]  # the same, over the sorted labels 1, 2, 3

# task -> {CLI arguments: the estimator they build}
LEARNERS = {
    "regression": {
        ("-a", "pa-regression"): lambda: olearn.PARegressor(variant="pa"),
        ("-a", "pa1-regression", "-C", "0.5", "--set", "epsilon=0.05"): (
            lambda: olearn.PARegressor(variant="pa1", C=0.5, epsilon=0.05)),
        ("-a", "pa2-regression", "--fit-intercept"): lambda: olearn.PARegressor(variant="pa2", fit_intercept=True),
    },
    "uniclass": {
        ("-a", "pa-uniclass", "--set", "epsilon=0.5"): lambda: olearn.PAUniclass(variant="pa", epsilon=0.5,
                                                                                 n_features=D),
        ("-a", "pa1-uniclass", "-C", "0.3"): lambda: olearn.PAUniclass(variant="pa1", C=0.3, n_features=D),
        ("-a", "pa2-uniclass", "--set", "learn_radius=true", "--set", "B=10"): (
            lambda: olearn.PAUniclass(variant="pa2", learn_radius=True, B=10.0, n_features=D)),
    },
    "multilabel": {
        ("-a", "pa-multilabel"): lambda: olearn.PAMultilabel(variant="pa"),
        ("-a", "pa1-multilabel", "-C", "0.1"): lambda: olearn.PAMultilabel(variant="pa1", C=0.1),
        ("-a", "pa2-multilabel"): lambda: olearn.PAMultilabel(variant="pa2"),
    },
    "cost-sensitive": {
        ("-a", "pa-cost-sensitive"): lambda: olearn.PACostSensitive(variant="pa", cost=COST_MATRIX),
        ("-a", "pa1-cost-sensitive", "-C", "0.5", "--set", "update=max-loss"): (
            lambda: olearn.PACostSensitive(variant="pa1", C=0.5, cost=COST_MATRIX, update="max-loss")),
        ("-a", "pa2-cost-sensitive"): lambda: olearn.PACostSensitive(variant="pa2", cost=COST_MATRIX),
    },
}
CASES = [(task, args, make) for task, learners in LEARNERS.items() for args, make in learners.items()]
IDS = [" ".join(args[1:]) for _, args, _ in CASES]


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def run(*args):
    return invoke("run", *args)


@pytest.fixture
def data(tmp_path):
    """{task: (path, path of its first 36 rows, of the other 24, extra arguments of run)}, LIBSVM, 1-based."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(N, D)), 3)
    X[rng.random(size=X.shape) < 0.3] = 0.0
    X[:, D - 1] = np.where(X[:, D - 1] == 0, 0.5, X[:, D - 1])  # every row reaches the last column
    targets = {
        "regression": np.round(X @ [1.0, -2.0, 0.5, 0.0, 1.5] + 0.1 * rng.normal(size=N), 3),
        "uniclass": np.zeros(N),
        "multilabel": [tuple(int(c) + 1 for c in np.flatnonzero(row > 0.2)) for row in X[:, :4]],
        "cost-sensitive": np.argmax(X[:, :3], axis=1) + 1.0,
    }
    costs = tmp_path / "costs.txt"
    costs.write_text(COSTS_TEXT)
    files = {}
    for task, y in targets.items():
        parts = []
        for name, rows in (("all", slice(0, N)), ("A", slice(0, 36)), ("B", slice(36, N))):
            path = tmp_path / f"{task}-{name}.svm"
            write_libsvm(path, X[rows], y[rows])
            parts.append(str(path))
        extra = {"uniclass": ("--n-features", D), "cost-sensitive": ("--costs", costs)}.get(task, ())
        files[task] = (*parts, extra)
    return files


def write_libsvm(path, X, y):
    """1-based LIBSVM lines; a label set is written comma-separated (an empty set: the line starts with a space)."""
    with open(path, "w") as f:
        for row, label in zip(X, y):
            text = ",".join(map(str, label)) if isinstance(label, tuple) else f"{label:g}"
            f.write(text + " " + " ".join(f"{j + 1}:{float(row[j])!r}" for j in np.flatnonzero(row)) + "\n")


def read(task, path):
    """X and the labels as scikit-learn reads the file (labels None for uniclass; tuples of ints for multilabel)."""
    X, y = load_svmlight_file(path, n_features=D, zero_based=False, multilabel=task == "multilabel")
    if task == "uniclass":
        return X, None
    if task == "multilabel":
        return X, [tuple(int(label) for label in labels) for labels in y]
    return X, y


def library_run(make, task, *paths):
    """The estimator after olearn.run on the files in order, and the RunResult of each."""
    est = make()
    results = [olearn.run(est, *(a for a in read(task, path) if a is not None)) for path in paths]
    return est, results


def expected_lines(task, result, est, raw=False):
    """What -p must write, from a RunResult of the library."""
    if task == "regression":
        return [repr(float(v)) for v in result.predictions]
    if task == "uniclass":
        return [repr(float(s)) for s in result.scores] if raw else [str(int(p)) for p in result.predictions]
    if task == "multilabel":
        return [",".join(str(int(c)) for c, on in zip(est.classes_, row) if on) for row in result.predictions]
    return [str(int(p)) for p in result.predictions]


def assert_same_model(saved, est):
    """The saved model's learned weights are exactly the library learner's (prototypes by sorted class)."""
    model = olearn.load(saved)
    assert type(model) is type(est) and model.get_params() == est.get_params()
    if isinstance(est, olearn.PAUniclass):
        np.testing.assert_array_equal(model.center_, est.center_)
        assert model.radius_ == est.radius_
        return
    np.testing.assert_array_equal(model.coef_, est.coef_)
    np.testing.assert_array_equal(model.intercept_, est.intercept_)
    if hasattr(est, "classes_"):
        np.testing.assert_array_equal(model.classes_, est.classes_)


def summary(output):
    return dict(re.findall(r"^(\S[^\n]*?)\s{2,}(\S+)$", output, re.MULTILINE))


def test_every_algorithm_of_the_other_tasks_is_covered():
    from olearn.cli._learners import ALGORITHM_NAMES, task_of

    covered = {args[1] for learners in LEARNERS.values() for args in learners}
    # (the sequence learners: test_cli_sequences.py)
    assert {a for a in ALGORITHM_NAMES if task_of(a) not in ("binary", "multiclass", "sequence")} == covered
    assert all(task_of(args[1]) == task for task, args, _ in CASES)


@pytest.mark.parametrize("task, args, make", CASES, ids=IDS)
def test_run_writes_the_library_predictions_and_model(data, tmp_path, task, args, make):
    path, _, _, extra = data[task]
    model, predictions = tmp_path / "model.npz", tmp_path / "predictions.txt"
    result = run(*args, *extra, "--chunk-size", 7, "-p", predictions, "-f", model, path)
    assert result.exit_code == 0, result.output
    est, (want,) = library_run(make, task, path)
    assert predictions.read_text().splitlines() == expected_lines(task, want, est)
    assert_same_model(model, est)
    totals = summary(result.stdout)
    assert totals["examples"] == str(N)
    assert float(totals["average loss"]) == pytest.approx(want.average_loss, abs=1e-6)
    if task == "regression":
        error = want.predictions - read(task, path)[1]
        assert float(totals["MAE"]) == pytest.approx(np.mean(np.abs(error)), abs=1e-6)
        assert float(totals["RMSE"]) == pytest.approx(math.sqrt(np.mean(error**2)), abs=1e-6)
        assert "mistakes" not in totals
    elif task == "uniclass":
        assert int(totals["outside"]) == want.n_mistakes == int(np.sum(want.scores < 0))
    else:
        assert int(totals["mistakes"].replace(",", "")) == want.n_mistakes
    if task == "cost-sensitive":
        y = read(task, path)[1].astype(int) - 1
        cost = np.asarray(COST_MATRIX)[y, want.predictions.astype(int) - 1]
        assert float(totals["average cost"]) == pytest.approx(cost.mean(), abs=1e-6)


def test_the_regression_table_gives_mae_and_rmse_at_each_row(data):
    path = data["regression"][0]
    result = run("-a", "pa1-regression", path)
    assert result.exit_code == 0, result.output
    _, (want,) = library_run(lambda: olearn.PARegressor(variant="pa1"), "regression", path)
    error = want.predictions - read("regression", path)[1]
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["examples", "MAE", "RMSE", "average", "loss", "since", "last"]
    rows = [line.split() for line in lines[1:] if line.strip() and line.split()[0].isdigit()]
    assert [int(row[0]) for row in rows] == [1, 2, 4, 8, 16, 32, N]
    last = 0
    for row in rows:
        n = int(row[0])
        assert float(row[1]) == pytest.approx(np.mean(np.abs(error[:n])), abs=1e-6)
        assert float(row[2]) == pytest.approx(math.sqrt(np.mean(error[:n] ** 2)), abs=1e-6)
        assert float(row[4]) == pytest.approx(np.mean(np.abs(error[last:n])), abs=1e-6)
        last = n


def test_uniclass_raw_predictions_are_the_signed_margins(data, tmp_path):
    path, _, _, extra = data["uniclass"]
    out = tmp_path / "raw.txt"
    result = run("-a", "pa1-uniclass", *extra, "-p", out, "--raw", path)
    assert result.exit_code == 0, result.output
    est, (want,) = library_run(lambda: olearn.PAUniclass(variant="pa1", n_features=D), "uniclass", path)
    assert out.read_text().splitlines() == expected_lines("uniclass", want, est, raw=True)


@pytest.mark.parametrize("task, args, make", CASES, ids=IDS)
def test_resuming_equals_one_run_and_test_only_counts_frozen_mistakes(data, tmp_path, task, args, make):
    whole, first_part, second_part, extra = data[task]
    first, resumed = tmp_path / "a.npz", tmp_path / "b.npz"
    assert run(*args, *extra, first_part, "-f", first).exit_code == 0
    resume_extra = extra if task == "uniclass" else ()  # the costs are the model's
    result = run("-i", first, *resume_extra, second_part, "-f", resumed, "--quiet")
    assert result.exit_code == 0, result.output
    est, (_, on_b) = library_run(make, task, first_part, second_part)
    assert_same_model(resumed, est)
    if task != "regression":
        assert int(summary(result.stdout)[{"uniclass": "outside"}.get(task, "mistakes")]) == on_b.n_mistakes

    predictions = tmp_path / "frozen.txt"
    result = run("-i", resumed, *resume_extra, "-t", "-p", predictions, whole)
    assert result.exit_code == 0, result.output
    model = olearn.load(resumed)
    X, y = read(task, whole)
    lines = predictions.read_text().splitlines()
    if task == "regression":
        assert lines == [repr(float(v)) for v in model.predict(X)]
    elif task == "uniclass":
        frozen = model.predict(X)
        assert lines == [str(v) for v in frozen]
        assert int(summary(result.stdout)["outside"]) == int(np.sum(frozen == -1))
    elif task == "multilabel":
        indicator = model.predict(X)
        assert lines == [",".join(str(c) for c, on in zip(model.classes_, row) if on) for row in indicator]
        scores = model.decision_function(X)
        imperfect = 0
        for row, labels in zip(scores, y):
            relevant = [s for c, s in zip(model.classes_, row) if c in labels]
            irrelevant = [s for c, s in zip(model.classes_, row) if c not in labels]
            imperfect += bool(relevant and irrelevant and min(relevant) <= max(irrelevant))
        assert int(summary(result.stdout)["mistakes"]) == imperfect
    else:
        frozen = model.predict(X)
        assert lines == [str(int(v)) for v in frozen]
        assert int(summary(result.stdout)["mistakes"]) == int(np.sum(frozen != y))


@pytest.mark.parametrize("task, args, make", CASES, ids=IDS)
def test_passes_learn_the_file_again(data, tmp_path, task, args, make):
    path, _, _, extra = data[task]
    model = tmp_path / "model.npz"
    result = run(*args, *extra, "--passes", 2, "--holdout-off", "--chunk-size", 16, "--quiet", "-f", model, path)
    assert result.exit_code == 0, result.output
    est, _ = library_run(make, task, path, path)
    assert_same_model(model, est)
    result = run(*args, *extra, "--passes", 2, "--holdout-every", 3, "--chunk-size", 16, path)
    assert result.exit_code == 0, result.output
    what = {"uniclass": r"\d+ outside, outside rate [0-9.]+",
            "regression": r"MAE [0-9.]+, RMSE [0-9.]+, loss [0-9.]+"}.get(task, r"\d+ mistakes, mistake rate [0-9.]+")
    assert re.search(rf"^pass 2 held out: 20 examples, {what} h$", result.stdout, re.MULTILINE)


@pytest.mark.parametrize("task, args, make", CASES, ids=IDS)
def test_predict_writes_the_saved_model_predictions(data, tmp_path, task, args, make):
    path, first_part, _, extra = data[task]
    model = tmp_path / "model.npz"
    assert run(*args, *extra, first_part, "-f", model, "--quiet").exit_code == 0
    result = invoke("predict", "-m", model, path)
    assert result.exit_code == 0, result.output
    est, _ = library_run(make, task, first_part)
    X, y = read(task, path)
    lines = result.stdout.splitlines()
    if task == "regression":
        values = est.predict(X)
        assert lines == [repr(float(v)) for v in values]
        mae = np.mean(np.abs(values - y))
        assert re.search(rf"^MAE: {mae:.6f}, RMSE: {math.sqrt(np.mean((values - y) ** 2)):.6f} \({N} ",
                         result.stderr, re.MULTILINE)
    elif task == "uniclass":
        inside = est.predict(X)
        assert lines == [str(v) for v in inside]
        assert f"({int(np.sum(inside == -1))}/{N} vectors)" in result.stderr
    elif task == "multilabel":
        sets = [tuple(int(c) for c, on in zip(est.classes_, row) if on) for row in est.predict(X)]
        assert lines == [",".join(map(str, labels)) for labels in sets]
        exact = sum(set(a) == set(b) for a, b in zip(sets, y))
        assert f"({exact}/{N} label sets predicted exactly)" in result.stderr
    else:
        labels = est.predict(X)
        assert lines == [str(int(v)) for v in labels]
        cost = np.asarray(COST_MATRIX)[y.astype(int) - 1, labels.astype(int) - 1].mean()
        assert f"({int(np.sum(labels == y))}/{N} correct), average cost: {cost:.6f}" in result.stderr


def test_a_multilabel_model_reads_single_labels_as_sets_of_one(data, tmp_path):
    model = tmp_path / "model.npz"
    assert run("-a", "pa1-multilabel", data["multilabel"][0], "-f", model, "--quiet").exit_code == 0
    plain = tmp_path / "plain.svm"
    plain.write_text("2 1:0.5 3:1\n1 2:1\n")
    result = invoke("predict", "-m", model, plain)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 2 and "label sets predicted exactly" in result.stderr
    binary = tmp_path / "binary.npz"
    assert run("-a", "pa1", data["uniclass"][0], "-f", binary, "--quiet").exit_code == 0
    result = invoke("predict", "-m", binary, data["multilabel"][0])
    assert result.exit_code == 1
    assert re.search(r"multilabel-all\.svm:\d+:\d+: expected a numeric label", result.stderr)


def test_a_uniclass_csv_file_is_all_coordinates(tmp_path):
    rows = np.round(np.random.default_rng(3).normal(size=(20, 3)), 2)
    path = tmp_path / "vectors.csv"
    path.write_text("".join(",".join(f"{v:g}" for v in row) + "\n" for row in rows))
    model, out = tmp_path / "u.npz", tmp_path / "p.txt"
    result = run("-a", "pa-uniclass", "--set", "epsilon=1", path, "-f", model, "-p", out)
    assert result.exit_code == 0, result.output
    est = olearn.PAUniclass(variant="pa", epsilon=1.0)
    want = olearn.run(est, rows)
    assert out.read_text().splitlines() == [str(int(p)) for p in want.predictions]
    assert_same_model(model, est)
    result = invoke("predict", "-m", model, path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [str(v) for v in est.predict(rows)]


def test_a_regression_csv_file_takes_real_labels_that_a_classifier_refuses(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("1,2,0.5\n0,1,-1.25\n2,2,3.75\n")
    assert run("-a", "pa1-regression", "--quiet", path).exit_code == 0
    result = run("-a", "pa1", "--quiet", path)
    assert result.exit_code == 2 and "non-integer values" in result.output


@pytest.mark.parametrize("content, line, message", [
    ("", None, "this one is empty"),
    ("1 2 3\n0 1 1\n1 0 1\n", 3, "2 lines of costs for the 3 labels of line 1; expected 3"),
    ("1 2\n0 1 5\n1 0\n", 2, "3 costs on the line of label 1; expected 2"),
    ("1 2\n0 -1\n1 0\n", 2, "cost '-1' (entry 2): costs are finite numbers >= 0"),
    ("1 2\n0 inf\n1 0\n", 2, "cost 'inf' (entry 2): costs are finite numbers >= 0"),
    ("# c\n1 2\n0 1\n1 0.5\n", 4, "cost 0.5 (entry 2) of predicting 2 for 2: a right prediction costs 0"),
    ("1 1\n0 1\n1 0\n", 1, "the label 1 is listed twice"),
    ("a b\n0 1\n1 0\n", 1, "the first line lists the labels, numbers as in the data; found 'a'"),
])
def test_a_bad_cost_file_is_an_error_naming_its_line(data, tmp_path, content, line, message):
    costs = tmp_path / "bad.txt"
    costs.write_text(content)
    result = run("-a", "pa1-cost-sensitive", "--costs", costs, data["cost-sensitive"][0])
    assert result.exit_code == 1
    where = f"{costs}:{line}: " if line else f"{costs}: "
    assert result.stderr.startswith(f"olearn: error: {where}"), result.stderr
    assert message in result.stderr


def test_a_label_the_costs_do_not_list_is_an_error_naming_its_line(data, tmp_path):
    path = tmp_path / "four.svm"
    path.write_text("1 1:1\n2 2:1\n# a comment\n3 3:1\n4 1:1\n1 2:1\n")
    costs = tmp_path / "costs.txt"
    costs.write_text(COSTS_TEXT)
    for command in ("run", "compare"):
        algo = ("-a", "pa1-cost-sensitive") if command == "run" else ()
        result = invoke(command, *algo, "--costs", costs, "--chunk-size", 2, path)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(f"olearn: error: {path}:5: example 4 has the label 4, which the costs of "
                                        f"{costs} do not list (their labels: 1 2 3)"), result.stderr
    model = tmp_path / "m.npz"
    assert run("-a", "pa1-cost-sensitive", "--costs", costs, data["cost-sensitive"][0], "-f", model).exit_code == 0
    for test_only in ((), ("-t",)):
        result = run("-i", model, *test_only, path)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(f"olearn: error: {path}:5: example 4 has the label 4, which the costs of the "
                                        f"model {model} do not list"), result.stderr
    result = invoke("predict", "-m", model, path)  # predicts every row; the cost is over the listed labels
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 5
    assert "average cost: " in result.stderr and "(over the 4 examples whose label the costs list)" in result.stderr


@pytest.mark.parametrize("args, message", [
    (("-a", "pa1", "--costs", "COSTS"), "--costs does not apply to --algo pa1 (it applies to: pa-cost-sensitive, "
                                        "pa1-cost-sensitive, pa2-cost-sensitive)"),
    (("-a", "pa1-cost-sensitive"), "--algo pa1-cost-sensitive learns with a cost matrix: give it with --costs FILE"),
    (("-a", "pa1-cost-sensitive", "--costs", "COSTS", "--set", "cost=1"), "reads its costs from --costs FILE, not from --set cost"),
    (("-a", "pa-uniclass", "--n-features", "5", "--fit-intercept"),
     "--fit-intercept does not apply to --algo pa-uniclass, which has no intercept"),
    (("-a", "pa-uniclass"), "give --n-features D"),
    (("-a", "pa1-regression", "-p", "-", "--raw"), "--raw does not apply to --algo pa1-regression"),
    (("-a", "pa1-multilabel", "-c"), "-c caches a file's labels as numbers"),
    (("-a", "pa1-regression", "--set", "update=max-loss"),
     "(it applies to: dual, perceptron-multiclass, pa-cost-sensitive, pa1-cost-sensitive, pa2-cost-sensitive, pa-sequence, pa1-sequence, pa2-sequence)"),
    (("-a", "fig1-arow", "--workers", "2"), "parameter mixing supports --algo"),
])
def test_options_that_do_not_apply_are_usage_errors(data, args, message):
    args = [str(data["cost-sensitive"][3][1]) if a == "COSTS" else a for a in args]
    result = run(*args, data["regression"][0])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_multilabel_learners_read_libsvm_only(tmp_path):
    path = tmp_path / "data.vw"
    path.write_text("1 | a b\n")
    result = run("-a", "pa1-multilabel", path)
    assert result.exit_code == 2 and "the multilabel learners read LIBSVM files" in result.output


def test_resuming_with_costs_is_a_usage_error(data, tmp_path):
    path, _, _, extra = data["cost-sensitive"]
    model = tmp_path / "m.npz"
    assert run("-a", "pa1-cost-sensitive", *extra, path, "-f", model, "--quiet").exit_code == 0
    result = run("-i", model, *extra, path)
    assert result.exit_code == 2 and "a resumed model keeps the costs it learned with" in result.output


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("task, options, algos", [
    ("regression", (), ["pa-regression", "pa1-regression", "pa2-regression"]),
    ("multilabel", (), ["pa-multilabel", "pa1-multilabel", "pa2-multilabel"]),
    ("cost-sensitive", None, ["pa-cost-sensitive", "pa1-cost-sensitive", "pa2-cost-sensitive"]),
    ("cost-sensitive", ("--task", "multiclass"),
     ["pa-multiclass", "pa1-multiclass", "pa2-multiclass", "perceptron-multiclass", "mira"]),
    ("uniclass", ("--task", "uniclass", "--n-features", D), ["pa-uniclass", "pa1-uniclass", "pa2-uniclass"]),
])
def test_compare_picks_the_learners_of_the_file_task(data, tmp_path, task, options, algos):
    path, _, _, extra = data[task]
    options = extra if options is None else options
    table = tmp_path / "table.csv"
    result = invoke("compare", *options, "--chunk-size", 16, "--csv", table, path)
    assert result.exit_code == 0, result.output
    rows = read_csv(table)
    assert [row["algorithm"] for row in rows] == algos
    if task == "regression":
        assert list(rows[0])[3:6] == ["MAE", "RMSE", "average_loss"]
        _, (want,) = library_run(lambda: olearn.PARegressor(variant="pa1"), task, path)
        error = want.predictions - read(task, path)[1]
        assert float(rows[1]["MAE"]) == pytest.approx(np.mean(np.abs(error)))
        assert float(rows[1]["RMSE"]) == pytest.approx(math.sqrt(np.mean(error**2)))
        assert "MAE" in result.stdout and "RMSE" in result.stdout and "mistakes" not in result.stdout
    if task == "cost-sensitive" and "--task" not in options:
        _, (want,) = library_run(LEARNERS[task][("-a", "pa2-cost-sensitive")], task, path)
        assert int(rows[2]["mistakes"]) == want.n_mistakes
        assert float(rows[2]["average_loss"]) == pytest.approx(want.average_loss)
        assert "average_cost" in rows[2]


def test_compare_picks_binary_or_multiclass_by_the_number_of_classes(tmp_path):
    from olearn.cli._learners import COMPARED_BY_DEFAULT

    binary, multi = tmp_path / "binary.svm", tmp_path / "multi.svm"
    binary.write_text("1 1:1\n-1 2:1\n1 1:1 2:0.5\n")
    multi.write_text("1 1:1\n2 2:1\n3 1:1 2:0.5\n")
    for path, task in ((binary, "binary"), (multi, "multiclass")):
        table = tmp_path / f"{task}.csv"
        result = invoke("compare", "--csv", table, path)
        assert result.exit_code == 0, result.output
        assert [row["algorithm"] for row in read_csv(table)] == list(COMPARED_BY_DEFAULT[task])


def test_compare_refuses_a_label_that_contradicts_the_first_chunk(tmp_path):
    path = tmp_path / "drift.svm"
    path.write_text("1 1:1\n-1 2:1\n1 1:1\n-1 2:1\n2.5 1:1\n")
    result = invoke("compare", "--chunk-size", 2, path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"olearn: error: {path}:5: example 5 has the label 2.5, which the binary "
                                    "learners chosen from the labels of the first chunk (-1 1) cannot take")


def test_compare_says_how_to_read_label_sets_that_follow_a_single_label(tmp_path):
    path = tmp_path / "late.svm"
    path.write_text("1 1:1\n2,3 2:1\n")
    result = invoke("compare", path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"olearn: error: {path}:2:1: expected a numeric label, found '2,3'")
    assert "say --task multilabel" in result.stderr
    assert invoke("compare", "--task", "multilabel", path).exit_code == 0


@pytest.mark.parametrize("args, message", [
    (("--algos", "pa1,pa1-regression"), "--algos mixes learners of different tasks: pa1 (binary), "
                                        "pa1-regression (regression)"),
    (("--algos", "pa1-regression", "--task", "binary"), "--task binary contradicts --algos"),
    (("--task", "regression", "--plot", "x.png"), "--plot draws the cumulative mistakes, and a regressor makes none"),
    (("--task", "cost-sensitive",), "give it with --costs FILE"),
    (("--algos", "pa1", "--costs", "COSTS"), "--costs applies to the cost-sensitive learners"),
])
def test_compare_usage_errors_of_the_tasks(data, args, message):
    args = [str(data["cost-sensitive"][3][1]) if a == "COSTS" else a for a in args]
    result = invoke("compare", *args, data["regression"][0])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_a_uniclass_model_of_the_library_reads_libsvm_in_its_dimension(tmp_path):
    est = olearn.PAUniclass(variant="pa1")  # no n_features: the first vector's dimension, 4
    olearn.run(est, np.array([[1.0, 0.0, 0.0, 2.0], [0.0, 1.0, 1.0, 1.0]]))
    model = tmp_path / "library.npz"
    est.save(model)
    path = tmp_path / "short.svm"
    path.write_text("0 1:0.5\n0 2:1 3:1\n0 1:1 4:3\n")  # the first chunk of 2 reaches column 3 only
    vectors = np.array([[0.5, 0, 0, 0], [0, 1, 1, 0], [1, 0, 0, 3]])
    result = invoke("predict", "-m", model, "--chunk-size", 2, path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [str(v) for v in est.predict(vectors)]
    resumed = tmp_path / "resumed.npz"
    result = run("-i", model, "--chunk-size", 2, path, "-f", resumed, "--quiet")
    assert result.exit_code == 0, result.output
    olearn.run(est, vectors)
    assert_same_model(resumed, est)


def test_a_cost_sensitive_model_with_the_zero_one_cost_takes_new_labels(tmp_path):
    est = olearn.PACostSensitive()  # cost=None: the 0/1 cost, classes may arrive mid-stream
    olearn.run(est, np.eye(3), np.array([1.0, 2.0, 3.0]))
    model = tmp_path / "library.npz"
    est.save(model)
    path = tmp_path / "new.svm"
    path.write_text("4 1:1\n1 2:1\n2 1:1 3:1\n")
    result = run("-i", model, path, "--quiet")
    assert result.exit_code == 0, result.output
    want = olearn.run(est, np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 0, 1.0]]), np.array([4.0, 1.0, 2.0]))
    totals = summary(result.stdout)
    assert int(totals["mistakes"]) == want.n_mistakes
    wrong = np.mean(want.predictions != np.array([4.0, 1.0, 2.0]))
    assert float(totals["average cost"]) == pytest.approx(wrong, abs=1e-6)
