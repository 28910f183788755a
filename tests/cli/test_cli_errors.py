"""Failures of the command line: exit codes, one-line messages, no tracebacks; real subprocess calls."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn.cli import cli


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.svm"
    path.write_text("+1 1:0.5 2:1\n-1 1:-1 3:0.25\n+1 2:2\n-1 1:-0.5 3:1\n")
    return str(path)


@pytest.fixture
def bad(tmp_path):
    """A LIBSVM file whose third line has a feature without ':' at column 10."""
    path = tmp_path / "bad.svm"
    path.write_text("+1 1:0.5 2:1\n-1 1:-1 3:0.25\n+1 2:2 3 4:1\n")
    return str(path)


def olearn_process(*args, cwd=None):
    """``python -m olearn ARGS`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("CI", None)
    return subprocess.run(
        [sys.executable, "-m", "olearn", *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )


def assert_one_line_error(result_stderr, pattern):
    lines = result_stderr.strip().splitlines()
    assert len(lines) == 1, result_stderr
    assert re.fullmatch(pattern, lines[0]), lines[0]
    assert "Traceback" not in result_stderr


# -- real processes -----------------------------------------------------------


def test_process_malformed_file_names_file_line_column(bad):
    proc = olearn_process("run", "--algo", "pa1", bad)
    assert proc.returncode == 1
    assert_one_line_error(proc.stderr, r"olearn: error: .*bad\.svm:3:8: .+")
    assert proc.stdout == ""


def test_process_run(good):
    proc = olearn_process("run", "--algo", "perceptron", good)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^mistakes\s+\d+$", proc.stdout, re.MULTILINE)
    assert proc.stderr == ""  # no progress bar outside a terminal


def test_process_unknown_algorithm_is_a_usage_error(good):
    proc = olearn_process("run", "--algo", "nope", good)
    assert proc.returncode == 2
    assert "Invalid value for '--algo'" in proc.stderr and "Traceback" not in proc.stderr


# -- in process ---------------------------------------------------------------


def test_malformed_file_in_process(bad):
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--quiet", bad])
    assert result.exit_code == 1
    assert_one_line_error(result.stderr, r"olearn: error: .*bad\.svm:3:8: .+")


@pytest.mark.parametrize("command", [
    ["run", "--algo", "pa", "MISSING"],
    ["run", "-d", "MISSING", "--algo", "pa"],
    ["run", "-i", "MISSING", "GOOD"],
    ["run", "--algo", "pa1-cost-sensitive", "--costs", "MISSING", "GOOD"],
    ["compare", "MISSING"],
    ["compare", "--algos", "pa1-cost-sensitive", "--costs", "MISSING", "GOOD"],
    ["predict", "--model", "MODEL", "MISSING"],
    ["predict", "--model", "MISSING", "GOOD"],
    ["inspect", "MISSING"],
    ["serve", "MISSING"],
    ["serve", "--algo", "pa", "--token-file", "MISSING"],
    ["serve", "--algo", "pa", "--read-token-file", "MISSING"],
], ids=" ".join)
def test_a_missing_file_is_an_input_error_of_every_command(command, tmp_path, good):
    # exit code 1, as a malformed file: click's usage error (2) is for the command line itself
    model = tmp_path / "m.npz"
    olearn.PAClassifier().partial_fit(np.array([[1.0], [-1.0]]), [1, -1]).save(model)
    missing = str(tmp_path / "missing.svm")
    args = [{"MISSING": missing, "GOOD": good, "MODEL": str(model)}.get(arg, arg) for arg in command]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert_one_line_error(result.stderr, rf"olearn: error: {re.escape(missing)}: No such file or directory")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--algo", "nope"],
        ["run", "--algo", "perceptron", "-C", "0.1"],  # C is not a Perceptron hyperparameter
        ["run", "--algo", "pa1", "--loss", "hinge"],
        ["run", "--algo", "pa1", "-C", "-1"],
        ["run", "--algo", "pa1", "--passes", "0"],
        ["run", "--algo", "cw", "--bound"],
        ["run", "--algo", "pa", "--bound", "--passes", "2"],
        ["run", "--algo", "pa", "--bits", "20"],  # --bits is for VW files
        ["run"],
        ["bogus"],
    ],
    ids=lambda a: " ".join(a[1:]) or a[0],
)
def test_usage_errors_exit_2(args, good):
    result = CliRunner().invoke(cli, [*args, good])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_third_class_is_a_clean_error(tmp_path):
    path = tmp_path / "three.svm"
    path.write_text("1 1:1\n2 2:1\n3 1:1 2:1\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", str(path)])
    assert result.exit_code == 1
    assert_one_line_error(result.stderr, r"olearn: error: .*third class.*")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.svm"
    path.write_text("# only a comment\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--format", "libsvm", str(path)])
    assert result.exit_code == 1
    assert_one_line_error(result.stderr, r"olearn: error: .*empty\.svm: holds no examples")


def test_save_into_a_missing_folder_fails_before_learning(good, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(olearn, "run", lambda *a, **k: calls.append(1))
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", "--save", str(tmp_path / "no" / "m.npz"), good])
    assert result.exit_code == 1 and calls == []
    assert_one_line_error(result.stderr, r"olearn: error: .*no: folder for --save does not exist")


def test_ctrl_c_exits_130(good, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(olearn, "run", interrupted)
    result = CliRunner().invoke(cli, ["run", "--algo", "pa", good])
    assert result.exit_code == 130
    assert result.stderr.strip() == "olearn: interrupted"


def test_overflow_is_a_clean_error(tmp_path):
    path = tmp_path / "huge.svm"
    path.write_text("1 1:1e200\n-1 1:1e200\n1 1:1e200\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "perceptron", "--eta", "1e300", str(path)])
    assert result.exit_code == 1
    assert_one_line_error(result.stderr, r"olearn: error: Perceptron: .*overflowed.*")


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"olearn {olearn.__version__}"


@pytest.mark.parametrize("command", ["run", "predict", "compare", "demo"])
def test_help_has_examples(command):
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and f"olearn {command}" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--algo", "pa1", "--set", "eta=2"], r"--eta does not apply to --algo pa1 \(it applies to: perceptron, ogd, svm, cw, adagrad, cw-full\)"),
        (["--algo", "pa1", "--set", "nope=2"], r"--set nope does not apply to --algo pa1 \(it applies to: no algorithm\)"),
        (["--algo", "pa1", "--set", "C"], r"'C': expected NAME=VALUE"),
        (["--algo", "pa1", "--set", "fit_intercept=true"], r"fit_intercept has its own option"),
        (["--algo", "pa1", "-C", "2", "--set", "C=3"], r"C is given twice"),
    ],
)
def test_set_usage_errors(tmp_path, args, message):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["run", *args, str(path)])
    assert result.exit_code == 2, result.output
    assert re.search(message, " ".join(result.output.split())), result.output


def test_set_value_the_learner_refuses_names_the_parameter(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["run", "--algo", "ogd", "--set", "schedule=weekly", str(path)])
    assert result.exit_code == 1
    assert "schedule" in result.output and "weekly" in result.output


def test_compare_set_must_apply_to_a_listed_algorithm(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    result = CliRunner().invoke(cli, ["compare", "--algos", "pa1,pa2", "--set", "conservative=true", str(path)])
    assert result.exit_code == 2
    assert "applies to none of the listed algorithms (it applies to: ogd)" in " ".join(result.output.split())
    ok = CliRunner().invoke(cli, ["compare", "--algos", "pa1,ogd", "--set", "conservative=true", str(path)])
    assert ok.exit_code == 0, ok.output
    assert "conservative=True" in ok.output
