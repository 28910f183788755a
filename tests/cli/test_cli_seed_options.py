"""``--seed`` of ``olearn demo`` and ``olearn reproduce``: the range of ``olearn run --random-seed``, a seed past it
a usage error that names the option and the range (rather than numpy's "expected non-negative integer")."""

import pytest
from click.testing import CliRunner

import olearn.experiments
from olearn.cli import cli

LARGEST = 18446744073709551615  # 2**64 - 1, written out: the last state of a 64-bit generator


class Reached(Exception):
    """Raised by the stand-in of the experiment, with the seed it was given: the command line took the seed."""


def reached(out_dir, seed, **options):
    raise Reached(seed)


class StandIn:
    """A reproduction that stops at once with the seed it was given."""

    averages_repetitions = False

    def run(self, out_dir, seed, **options):
        reached(out_dir, seed)


@pytest.fixture
def stand_ins(monkeypatch):
    # the commands import these when run, from olearn.experiments
    monkeypatch.setattr(olearn.experiments, "run_demo", reached)
    monkeypatch.setattr(olearn.experiments, "get_reproduction", lambda name: StandIn())


COMMANDS = [["demo", "--out", "unused"], ["reproduce", "zinkevich-ogd", "--out", "unused"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize("seed", ["-1", "18446744073709551616"])
def test_a_seed_out_of_range_is_a_usage_error_naming_the_option_and_the_range(stand_ins, command, seed):
    result = CliRunner().invoke(cli, [*command, "--seed", seed])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '--seed': {seed} is not in the range 0<=x<={LARGEST}." in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize("seed", [0, LARGEST])
def test_the_ends_of_the_range_reach_the_experiment(stand_ins, command, seed):
    result = CliRunner().invoke(cli, [*command, "--seed", str(seed)])
    assert isinstance(result.exception, Reached) and result.exception.args == (seed,)
