"""The ucl-experts reproduction: files written, bounds hold, seeded, the slides' numbers."""

import csv
import math

import pytest

from olearn.experiments._ucl_experts import run_ucl_experts, weighted_majority_constants


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    return run_ucl_experts(tmp_path_factory.mktemp("ucl"), seed=3, quick=True)


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_files_are_written(quick_run):
    with open(quick_run["figure"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    summary = _read(quick_run["summary_csv"])
    assert len(summary) == len(quick_run["rows"]) >= 15
    assert {row["sequence"] for row in summary} == {"random", "adversarial", "switching"}
    assert len(_read(quick_run["curves_csv"])) > len(summary)


def test_every_bound_holds(quick_run):
    claimed = [row for row in quick_run["rows"] if row["bound_holds"] != ""]
    assert len(claimed) >= 15
    assert all(row["bound_holds"] for row in claimed), [row["algorithm"] for row in claimed if not row["bound_holds"]]


def test_halving_table_meets_log2_n(quick_run):
    table = _read(quick_run["halving_csv"])
    assert [int(r["consistent_before"]) for r in table[:4]] == [8, 4, 2, 1]
    assert [int(r["cumulative_mistakes"]) for r in table] == [1, 2, 3, 3, 3, 3]
    assert all(float(r["bound_log2_n"]) == 3.0 for r in table)


def test_weighted_majority_constants_are_2_63():
    a, b = weighted_majority_constants(1 / math.e)
    assert a == pytest.approx(2.63, abs=5e-3) and b == pytest.approx(2.63, abs=5e-3)


def test_seeded(quick_run, tmp_path):
    again = run_ucl_experts(tmp_path, seed=3, quick=True)
    assert again["rows"] == quick_run["rows"]
