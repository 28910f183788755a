"""``olearn run --bound`` for the PA learners of regression, uniclass and cost-sensitive learning.

The reference is the library's ``bound_report`` on the same file read by
scikit-learn's ``load_svmlight_file`` (an independent reader).
"""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.bounds import bound_report
from olearn.cli import cli

N, D = 80, 4


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{float(row[j])!r}" for j in np.flatnonzero(row)) + "\n")


@pytest.fixture
def regression_file(tmp_path):
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(N, D)), 3)
    y = np.round(X @ [1.0, -2.0, 0.5, 1.5] + 0.2 * rng.normal(size=N), 3)
    path = tmp_path / "regression.svm"
    write_libsvm(path, X, y)
    return path


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("args, make", [
    (("-a", "pa1-regression", "-C", "0.5"), lambda: olearn.PARegressor(variant="pa1", C=0.5)),
    (("-a", "pa2-regression", "--fit-intercept", "--set", "epsilon=0.2"),
     lambda: olearn.PARegressor(variant="pa2", epsilon=0.2, fit_intercept=True)),
])
def test_run_bound_prints_the_regression_rows(regression_file, args, make):
    result = invoke("run", *args, "--bound", regression_file)
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(str(regression_file), n_features=D, zero_based=False)
    report = bound_report(make(), X, y, olearn.run(make(), X, y))
    (row,) = report.rows
    assert row.holds
    assert str(report) in result.output


@pytest.mark.parametrize("args, make", [
    (("-a", "pa1-uniclass", "-C", "0.3"), lambda: olearn.PAUniclass(variant="pa1", C=0.3, n_features=D)),
    (("-a", "pa2-uniclass", "--set", "learn_radius=true", "--set", "B=10"),
     lambda: olearn.PAUniclass(variant="pa2", learn_radius=True, B=10, n_features=D)),
])
def test_run_bound_prints_the_uniclass_rows(regression_file, args, make):
    # a uniclass learner reads the vectors of the file and ignores its labels
    result = invoke("run", *args, "--n-features", D, "--bound", regression_file)
    assert result.exit_code == 0, result.output
    X, _ = load_svmlight_file(str(regression_file), n_features=D, zero_based=False)
    report = bound_report(make(), X, None, olearn.run(make(), X))
    (row,) = report.rows
    assert row.holds
    assert str(report) in result.output


COSTS_TEXT = "# true \\ predicted\n3 1 2\n0 4 1\n4 0 1\n1 1 0\n"
COST_MATRIX = [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]]  # the same, over the sorted labels 1, 2, 3


@pytest.mark.parametrize("args, make", [
    (("-a", "pa1-cost-sensitive", "-C", "0.5"), lambda: olearn.PACostSensitive(variant="pa1", C=0.5, cost=COST_MATRIX)),
    (("-a", "pa2-cost-sensitive", "--set", "update=max-loss"),
     lambda: olearn.PACostSensitive(variant="pa2", cost=COST_MATRIX, update="max-loss")),
])
@pytest.mark.parametrize("labels", [3, 2], ids=["every-label", "a-label-of-the-costs-absent"])
def test_run_bound_prints_the_cost_sensitive_rows(tmp_path, args, make, labels):
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(N, D)), 3)
    y = np.argmax(X[:, :labels], axis=1) + 1.0
    path, costs = tmp_path / "cost.svm", tmp_path / "costs.txt"
    write_libsvm(path, X, y)
    costs.write_text(COSTS_TEXT)
    result = invoke("run", *args, "--costs", costs, "--bound", path)
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(str(path), n_features=D, zero_based=False)
    learner = make()
    learner.partial_fit(np.empty((0, D)), [], classes=[1.0, 2.0, 3.0])   # the labels of the cost file
    report = bound_report(learner, X, y, olearn.run(learner, X, y))
    (row,) = report.rows
    assert row.holds and row.u.shape == (3, D)
    assert str(report).split("\n", 1)[1] in result.output


def test_run_bound_prints_the_multilabel_rows(tmp_path):
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(N, D)), 3)
    path = tmp_path / "multilabel.svm"
    with open(path, "w") as f:
        for row in X:
            labels = ",".join(str(r + 1) for r in np.flatnonzero(row[:3] > 0.2))
            f.write(labels + " " + " ".join(f"{j + 1}:{float(row[j])!r}" for j in np.flatnonzero(row)) + "\n")
    result = invoke("run", "-a", "pa1-multilabel", "-C", "0.1", "--bound", path)
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(str(path), n_features=D, zero_based=False, multilabel=True)
    y = [tuple(int(label) for label in labels) for labels in y]
    report = bound_report(olearn.PAMultilabel(C=0.1), X, y, olearn.run(olearn.PAMultilabel(C=0.1), X, y))
    (row,) = report.rows
    assert row.holds
    assert str(report).split("\n", 1)[1] in result.output


def test_bound_for_a_learner_without_one_names_the_bounded_algorithms(regression_file):
    result = invoke("run", "-a", "cw", "--bound", regression_file)
    assert result.exit_code == 2
    assert all(name in result.output for name in ("pa1-regression", "pa-uniclass", "pa2-cost-sensitive",
                                                  "pa1-multilabel", "pa1-sequence"))
