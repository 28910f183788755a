"""The zinkevich-ogd reproduction: files written, bounds hold, seeded, delays and drift as expected."""

import csv

import pytest

from olearn.experiments._zinkevich import run_zinkevich_ogd


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    return run_zinkevich_ogd(tmp_path_factory.mktemp("zinkevich"), seed=5, quick=True)


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_files_are_written(quick_run):
    with open(quick_run["figure"], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert len(_read(quick_run["summary_csv"])) == len(quick_run["rows"])
    assert _read(quick_run["curves_csv"])


def test_every_bound_holds(quick_run):
    assert all(row["bound_holds"] for row in quick_run["rows"])


def test_panels_cover_schedules_drift_delays_and_hedge(quick_run):
    settings = {(row["panel"].split(":")[0].split(" (")[0], row["setting"]) for row in quick_run["rows"]}
    assert {s for _, s in settings} >= {"1/sqrt(t)", "1/t", "1/sqrt(T), constant", "delay 0", "delay 1", "delay 10",
                                        "delay 100"}
    drift = [row for row in quick_run["rows"] if "drift (dynamic" in row["panel"]]
    assert drift and all(row["path_length"] > 0 for row in drift)
    assert any(row["setting"].startswith("Hedge") for row in quick_run["rows"])


def test_seeded(quick_run, tmp_path):
    assert run_zinkevich_ogd(tmp_path, seed=5, quick=True)["rows"] == quick_run["rows"]


def test_the_notes_bound_is_reported_beside_the_tighter_one(quick_run):
    rows = [row for row in quick_run["rows"] if row["setting"] in ("1/sqrt(t)", "delay 0")]
    assert len(rows) == 4
    for row in rows:
        # 004 Thm. 4.1.3: D^2/2 sqrt(T) + G^2 sqrt(T) + 2 D L sqrt(T)
        root = row["rounds"] ** 0.5
        G, D, L = row["max_gradient_norm"], row["diameter"], row["path_length"]
        assert row["notes_bound"] == pytest.approx((D * D / 2 + G * G + 2 * D * L) * root, rel=1e-12)
        assert row["regret"] <= row["regret_bound"] <= row["notes_bound"]
    assert all(row["notes_bound"] == "" for row in quick_run["rows"] if row["setting"] == "1/t")
