"""``olearn run --bound`` for Winnow and DualAscent (Shalev-Shwartz & Singer 2006).

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

N, D = 90, 4


@pytest.fixture
def binary_file(tmp_path):
    rng = np.random.default_rng(7)
    X = np.round(rng.uniform(-1.0, 1.0, size=(N, D)) / 2, 3)  # ||x||_2 <= 1: Thm. 3 applies for every F
    y = np.where(X @ [1.0, -0.5, 0.3, 0.0] + 0.05 * rng.normal(size=N) > 0, 1, -1)
    path = tmp_path / "binary.svm"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label} " + " ".join(f"{j + 1}:{float(row[j])!r}" for j in np.flatnonzero(row)) + "\n")
    return path


@pytest.mark.parametrize("args, make, n_rows", [
    (("-a", "winnow", "-C", "0.5"), lambda: olearn.Winnow(C=0.5), 2),
    (("-a", "winnow", "--set", "balanced=false", "--fit-intercept"),
     lambda: olearn.Winnow(balanced=False, fit_intercept=True), 2),
    (("-a", "dual", "--set", "update=aggressive", "--set", "regularizer=entropy", "-C", "0.3"),
     lambda: olearn.DualAscent(update="aggressive", regularizer="entropy", C=0.3), 2),
    (("-a", "dual", "--set", "update=last-k", "--set", "k=2", "-C", "2"),
     lambda: olearn.DualAscent(update="last-k", k=2, C=2.0), 2),
    (("-a", "dual", "--set", "regularizer=pnorm", "--set", "p=3"),
     lambda: olearn.DualAscent(regularizer="pnorm", p=3), 1),
])
def test_run_bound_prints_the_library_report(binary_file, args, make, n_rows):
    result = CliRunner().invoke(cli, ["run", *args, "--bound", str(binary_file)])
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(str(binary_file), n_features=D, zero_based=False)
    report = bound_report(make(), X, y, olearn.run(make(), X, y))
    assert len(report.rows) == n_rows and report.all_hold
    for line in str(report).splitlines():
        assert line in result.output


def test_run_bound_lists_the_broken_assumption(tmp_path):
    # ||x_t||_2 = 2 > 1: Thm. 3 and Eq. (30) do not apply, and the output says why
    path = tmp_path / "wide.svm"
    path.write_text("1 1:2\n-1 2:2\n1 1:2 2:0\n")
    result = CliRunner().invoke(cli, ["run", "-a", "dual", "--set", "update=aggressive", "--bound", str(path)])
    assert result.exit_code == 0, result.output
    assert "(no theorem applies)" in result.output
    assert "Thm. 3 assumes ||x_t||_2^2 <= 1 on every round; row 0 has 4" in result.output
