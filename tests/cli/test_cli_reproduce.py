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
    # the notes' own Thm. 4.1.3 bound is printed beside ours where it applies
    assert "text's bound" in result.output
    stated = [row for row in rows if row["notes_bound"]]
    assert stated and all(f"{float(row['notes_bound']):.4g}" in result.output for row in stated)


def test_quick_crammer2006_fig5_prints_each_conclusion_with_its_verdict(tmp_path):
    result = CliRunner().invoke(cli, ["reproduce", "crammer2006-fig5", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    with open(tmp_path / "crammer2006_fig5_findings.csv", newline="") as fh:
        findings = list(csv.DictReader(fh))
    text = " ".join(result.output.split())
    assert findings and "the paper's conclusions in this run" in text
    for row in findings:
        assert row["finding"].split()[0] in text
    cells = [line.split("│")[-2].strip() for line in result.output.splitlines() if line.count("│") == 5]
    verdicts = [cell for cell in cells if cell]  # a long row wraps onto lines with an empty last cell
    assert sorted(verdicts) == sorted("yes" if row["holds"] == "True" else "NO" for row in findings)


def test_quick_crammer2006_fig4_prints_the_papers_claims_apart_from_our_observations(tmp_path):
    result = CliRunner().invoke(cli, ["reproduce", "crammer2006-fig4", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    with open(tmp_path / "crammer2006_fig4_findings.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    text = " ".join(result.output.split())
    claims_at = text.index("the paper's conclusions in this run")
    ours_at = text.index("olearn's own observations (not claims of the paper)")
    assert claims_at < ours_at
    paper = [row for row in rows if row["source"] == "paper, Sec. 10.2"]
    ours = [row for row in rows if row["source"] == "olearn observation"]
    assert paper and ours and len(paper) + len(ours) == len(rows)
    assert "C should be small when the data is noisy" in text[claims_at:ours_at]
    assert "for large C, PA-I and PA-II coincide" in text[ours_at:]


def test_quick_crammer2006_fig6_warns_loudly_that_the_usps_panel_is_a_stand_in(tmp_path, monkeypatch):
    monkeypatch.setenv("OLEARN_DATA", str(tmp_path / "empty-home"))
    result = CliRunner().invoke(cli, ["reproduce", "crammer2006-fig6", "--quick", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    warnings = [i for i, line in enumerate(lines) if line.startswith("WARNING: STAND-IN DATA: the USPS panel")]
    assert len(warnings) == 2  # before the tables and again at the end
    assert warnings[0] < 3 and warnings[1] > len(lines) - 4
