"""The command line learns online: the passes of the estimators' fit are not its settings."""

import pytest
from click.testing import CliRunner

from olearn.cli import cli


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("+1 1:0.5 2:1\n-1 1:-1 3:0.25\n+1 2:2\n-1 1:-0.5 3:1\n")
    return str(path)


@pytest.mark.parametrize("args", [
    ["run", "--algo", "pa1", "--set", "max_iter=5"],
    ["run", "--algo", "arow", "--set", "shuffle=false"],
    ["compare", "--algos", "pa1,perceptron", "--set", "tol=0.1"],
    ["compare", "--algos", "pa1:n_iter_no_change=2,perceptron"],
])
def test_fit_passes_are_a_usage_error_pointing_to_passes(args, data):
    result = CliRunner().invoke(cli, [*args, data])
    assert result.exit_code == 2
    assert "learns online" in result.output and "--passes" in result.output


def test_random_state_is_the_seed_of_a_kernel_budget_only(data):
    result = CliRunner().invoke(cli, ["run", "--algo", "arow", "--set", "random_state=3", data])
    assert result.exit_code == 2 and "does not apply to --algo arow" in result.output
    seeded = ["--set", "kernel=linear", "--set", "budget=2", "--set", "budget_policy=random", "--set", "random_state=3"]
    result = CliRunner().invoke(cli, ["run", "--algo", "perceptron", *seeded, "--quiet", data])
    assert result.exit_code == 0, result.output
