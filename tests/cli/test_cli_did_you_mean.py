"""A mistyped --algo, --algos entry or --set key is answered with the closest names ("did you mean ...")."""

import pytest
from click.testing import CliRunner

from olearn.cli import cli


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    return str(path)


@pytest.mark.parametrize("args, expected", [
    (("run", "-a", "pa11"), "unknown algorithm 'pa11'; did you mean pa1 or pa? (choose from perceptron, pa,"),
    (("run", "-a", "arow-ful"), "unknown algorithm 'arow-ful'; did you mean arow-full"),
    (("compare", "--algos", "pa1,mirra"), "unknown algorithm 'mirra'; did you mean mira?"),
    (("run", "-a", "arow", "--set", "rr=0.1"), "--set rr does not apply to --algo arow (it applies to: no algorithm); "
                                              "did you mean --set r?"),
    (("run", "-a", "ogd", "--set", "schedul=sqrt"), "did you mean --schedule?"),
    (("compare", "--algos", "arow,cw", "--set", "etta=1"), "did you mean --eta?"),
])
def test_a_mistyped_name_names_the_closest(data, args, expected):
    result = CliRunner().invoke(cli, [*args, data])
    assert result.exit_code == 2
    assert expected in result.stderr, result.stderr


def test_a_name_like_none_says_only_what_is_wrong(data):
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", "--set", "zzzz=1", data])
    assert result.exit_code == 2 and "did you mean" not in result.stderr
