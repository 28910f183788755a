"""``olearn run --workers N`` starts its local cluster without Dask's dashboard unless ``--dashboard`` asks for it
(bokeh, which draws it, costs about a second to import), and prints a dashboard's link only where one is served."""

import importlib.util

import pytest
from click.testing import CliRunner

pytest.importorskip("distributed")

from olearn.cli import cli
from olearn.cli import _dask_run

TIMEOUT = 300  # a hang guard only


@pytest.fixture
def stream(tmp_path):
    path = tmp_path / "stream.svm"
    path.write_text("".join(f"{1 if i % 3 else -1} 1:{i % 5} 2:{(i * 7) % 3}\n" for i in range(60)))
    return str(path)


def run(*args):
    return CliRunner().invoke(cli, ["run", "--algo", "pa1", *args])


def bokeh_installed(installed, monkeypatch):
    """Let ``--dashboard`` find bokeh installed, or not, whatever this environment holds."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: (find_spec("click") if installed else None) if name == "bokeh"
                        else find_spec(name, *rest))


def test_a_local_cluster_prints_no_dashboard_link_without_dashboard(stream):
    out = run("--workers", "1", "--passes", "2", stream)
    assert out.exit_code == 0, out.output
    assert "Dask dashboard" not in out.stderr
    assert "epoch 2/2 done: 1 shards" in out.stderr  # the progress lines themselves


def test_dashboard_serves_the_local_clusters_and_prints_its_link_once(stream, monkeypatch):
    bokeh_installed(True, monkeypatch)
    out = run("--workers", "1", "--dashboard", stream)
    assert out.exit_code == 0, out.output
    (line,) = [line for line in out.stderr.splitlines() if "Dask dashboard" in line]
    assert line.startswith("Dask dashboard: http://") and line.endswith("/status")


@pytest.mark.parametrize("args, message", [
    (("--workers", "1", "--dashboard"), '--dashboard needs bokeh, which draws the Dask dashboard: pip install'),
    (("--scheduler", "tcp://127.0.0.1:1", "--dashboard"), "--dashboard serves the dashboard of the local cluster of "
                                                          "--workers; a cluster of --scheduler serves its own"),
    (("--dashboard",), "--dashboard applies with --workers or --scheduler only"),
])
def test_dashboard_is_refused_without_bokeh_or_a_local_cluster(stream, monkeypatch, args, message):
    bokeh_installed(False, monkeypatch)
    out = run(*args, stream)
    assert out.exit_code == 2, out.output
    assert message in out.output


def test_the_dashboard_line_is_left_out_where_the_scheduler_serves_none():
    class Client:
        dashboard_link = "http://localhost:8787/status"

        def __init__(self, services):
            self.services = services

        def scheduler_info(self):
            return {"services": self.services}

    assert _dask_run.dashboard_line(Client({}), True) is None
    assert _dask_run.dashboard_line(Client({"dashboard": 8787}), False) is None
    assert _dask_run.dashboard_line(Client({"dashboard": 8787}), True) == "Dask dashboard: http://localhost:8787/status"
