"""The options of ``olearn serve`` offer only what the service takes."""

import pytest
from click.testing import CliRunner

from olearn.cli import cli
from olearn.cli._learners import ALGORITHM_NAMES, make_estimator
from olearn.serve._model import ServedModel

from serve_helpers import require_serve_extra

require_serve_extra()


def _served_choices():
    return next(p for p in cli.commands["serve"].params if p.name == "algo").type.choices


@pytest.mark.parametrize("algo", ALGORITHM_NAMES)
def test_every_algo_offered_is_served_and_every_other_is_not_offered(algo):
    offered = algo in _served_choices()
    try:
        ServedModel(make_estimator(algo, {}, None))
    except ValueError as err:
        assert not offered, f"--algo {algo} is offered, yet the service refuses it: {err}"
    else:
        assert offered, f"--algo {algo} would be served, yet is not offered"


def test_an_algo_the_service_refuses_is_an_invalid_choice(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--algo", "pa-sequence", "--public-reads",
                                      "--state-dir", str(tmp_path / "state")])
    assert result.exit_code == 2 and "'pa-sequence' is not one of the algorithms this command takes" in result.output
    assert not (tmp_path / "state").exists()
