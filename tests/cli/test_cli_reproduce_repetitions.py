"""``olearn reproduce --repetitions N`` and the note that ``--quick`` verdicts are not the paper's size."""

import csv

import pytest
from click.testing import CliRunner

from olearn.cli import cli
from olearn.experiments import REPRODUCTIONS
from olearn.experiments._crammer2006 import run_crammer2006_fig5
from olearn.experiments._orabona2010 import run_orabona2010_fig3

NOTE = "NOTE: --quick ran a reduced size"


def test_quick_run_says_twice_that_its_verdicts_are_not_the_papers_size(tmp_path):
    result = CliRunner().invoke(cli, ["reproduce", "crammer2006-fig5", "--quick", "--repetitions", "2",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    notes = [i for i, line in enumerate(lines) if line.startswith(NOTE)]
    assert len(notes) == 2 and notes[0] == 0 and notes[1] == len(lines) - 1
    assert "not of the paper's" in lines[0]
    with open(tmp_path / "crammer2006_fig5_summary.csv", newline="") as fh:
        assert list(csv.DictReader(fh))


def test_repetitions_sets_the_number_averaged(tmp_path):
    results = run_crammer2006_fig5(tmp_path, quick=True, n_repetitions=2, progress=False)
    assert results["average_error"].shape[0] == 2
    results = run_orabona2010_fig3(tmp_path / "o", quick=True, n_repetitions=1, learners=["PA-I"], progress=False)
    assert {row["repetitions"] for row in results["rows"]} == {1}
    assert all(len(finals["PA-I"]) == 1 for finals in results["final_mistakes"].values())


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "4"])
def test_a_number_of_repetitions_that_is_not_a_positive_integer_is_refused(tmp_path, bad):
    with pytest.raises(ValueError, match=r"n_repetitions must be an integer >= 1; got"):
        run_crammer2006_fig5(tmp_path, quick=True, n_repetitions=bad, progress=False)


def test_repetitions_for_a_reproduction_without_repetitions_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["reproduce", "zinkevich-ogd", "--repetitions", "3", "--out", str(tmp_path)])
    assert result.exit_code == 2
    averaging = [r.name for r in REPRODUCTIONS.values() if r.averages_repetitions]
    assert averaging == ["crammer2006-fig3", "crammer2006-fig4", "crammer2006-fig5", "orabona2010-fig3"]
    assert f"--repetitions applies to the reproductions whose figure averages over repetitions " \
           f"({', '.join(averaging)}), not to zinkevich-ogd" in " ".join(result.output.split())
    assert not any(tmp_path.iterdir())
    result = CliRunner().invoke(cli, ["reproduce", "crammer2006-fig5", "--quick", "--repetitions", "0"])
    assert result.exit_code == 2 and "--repetitions" in result.output
