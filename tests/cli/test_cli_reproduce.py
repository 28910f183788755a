"""``olearn reproduce``: the experiment catalogue from the command line."""

import csv

from click.testing import CliRunner

from olearn.cli import cli
from olearn.experiments import REPRODUCTIONS


def test_list_names_every_reproduction():
    result = CliRunner().invoke(cli, ["reproduce", "--list"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.splitlines()]
    assert listed == list(REPRODUCTIONS)


def test_unknown_name_is_a_one_line_error():
    result = CliRunner().invoke(cli, ["reproduce", "no-such-paper"])
    assert result.exit_code == 1
    assert "no reproduction called 'no-such-paper'" in result.output
    assert "Traceback" not in result.output


def test_quick_zinkevich_writes_figure_and_csv_whose_bounds_hold(tmp_path):
    result = CliRunner().invoke(cli, ["reproduce", "zinkevich-ogd", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "zinkevich_ogd_regret.png").stat().st_size > 10_000
    with open(tmp_path / "zinkevich_ogd_summary.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    delays = {row["setting"] for row in rows if "delay" in row["setting"].lower()}
    assert len(delays) >= 4  # delays 0, 1, 10, 100
    checked = [row for row in rows if row["bound_holds"] in ("True", "False")]
    assert checked and all(row["bound_holds"] == "True" for row in checked)
    assert all(float(row["regret"]) <= float(row["regret_bound"]) for row in checked)
