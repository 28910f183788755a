"""Both readings of 001's N(0, 8.5): the tables of docs/reproduction_orabona2010.md are the module's output."""

import pathlib

import pytest

from olearn.experiments._orabona2010_readings import AXIS_TOPS, READINGS, compare_readings, readings_markdown

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reproduction_orabona2010.md"


def test_quick_comparison_tables_both_readings(tmp_path):
    comparison = compare_readings(tmp_path, quick=True, n_jobs=1, progress=False, n_repetitions=1)
    assert len(comparison["statements"]) == 12 and len(comparison["axes"]) == 8
    assert set(comparison["results"]) == set(READINGS)
    for row in comparison["axes"]:
        for reading in READINGS:
            name, value = row[reading]
            finals = comparison["results"][reading]["curves"][row["panel"]]
            assert value == max(float(curve[-1]) for curve in finals.values()) == float(finals[name][-1])
    assert sorted({row["axis top"] for row in comparison["axes"]}) == sorted(set(AXIS_TOPS.values()))
    text = readings_markdown(comparison)
    # every line of the two tables but the first: a rule, 12 statements and a total; a header, a rule, 8 panels, a total
    assert text.count("\n| ") == (1 + 12 + 1) + (1 + 1 + 8 + 1)


@pytest.mark.slow
def test_the_pages_tables_are_the_full_runs_output(tmp_path):
    """The full run at seed 0 (5,000 rounds, 100 repetitions, both readings: minutes)."""
    text = readings_markdown(compare_readings(tmp_path, n_jobs=1, progress=False))
    assert text in DOC.read_text(encoding="utf-8")
