"""``olearn run FILE`` without a learner: no default is chosen (the learner decides the task), and the one-line
usage error lists every algorithm with its task and the flag; VW's ``vw FILE`` habit (``olearn FILE``, ``olearn
learn FILE``) is answered with the command to type."""

import pytest
from click.testing import CliRunner

from olearn.cli import cli
from olearn.cli._learners import ALGORITHM_NAMES

LINE = "1 | a:1 b:2\n-1 | a:-1 c:1\n"


@pytest.fixture
def vw_file(tmp_path):
    path = tmp_path / "data.vw"
    path.write_text(LINE)
    return str(path)


def _error_line(result):
    lines = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    return lines[0]


def test_a_run_without_algo_names_the_flag_and_every_algorithm_by_task(vw_file):
    line = _error_line(CliRunner().invoke(cli, ["run", vw_file]))
    assert "--algo" in line and "-i MODEL" in line and "no default learner" in line
    listed = line.split("--loss_function): ", 1)[1]
    assert "binary: perceptron, pa, pa1," in listed and "regression: pa-regression," in listed
    assert sorted(name for part in listed.split("; ") for name in part.split(": ")[1].split(", ")) == \
        sorted(ALGORITHM_NAMES)


@pytest.mark.parametrize("words", [["learn"], ["train"], []])
def test_vw_s_habit_of_a_file_without_a_command_is_answered_with_olearn_run(vw_file, words):
    line = _error_line(CliRunner().invoke(cli, [*words, vw_file]))
    assert "olearn run --algo NAME FILE" in line


def test_scripts_that_pass_algo_are_unchanged(vw_file):
    result = CliRunner().invoke(cli, ["run", "--algo", "pa1", "--quiet", vw_file])
    assert result.exit_code == 0, result.output
