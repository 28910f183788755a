"""The service benchmarks leave no temporary folder behind: ``bench_serve.temporary_folder`` removes its folder when
the script exits, normally, on an error or on Ctrl-C, and keeps it (printing where) with ``--keep-state``.

Each case runs a script in a child process whose temporary folders go under the test's own folder, so that what
is left there afterwards is what the script left.
"""

import os
import pathlib
import subprocess
import sys

import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"

# a script making a folder as the benchmarks do, writing in it, then ending as told by its argument
SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import bench_serve

parser = __import__("argparse").ArgumentParser()
bench_serve.add_keep_state_option(parser)
args = parser.parse_args(sys.argv[3:])
folder = bench_serve.temporary_folder("olearn-bench-test-", args.keep_state)
with open(folder + "/state", "w") as fh:
    fh.write("written")
if sys.argv[2] == "interrupted":
    raise KeyboardInterrupt
if sys.argv[2] == "failed":
    raise RuntimeError("the service did not start")
"""


@pytest.fixture
def run(tmp_path):
    if not (BENCHMARKS / "bench_serve.py").exists():
        pytest.skip("the benchmarks are not beside the tests")
    for name in ("httpx", "prometheus_client"):
        pytest.importorskip(name)
    temporary = tmp_path / "tmp"
    temporary.mkdir()

    def run_script(ending, *options):
        process = subprocess.run([sys.executable, "-c", SCRIPT, str(BENCHMARKS), ending, *options],
                                 env={**os.environ, "TMPDIR": str(temporary)}, capture_output=True, text=True)
        return process, sorted(path.name for path in temporary.iterdir())

    return run_script


@pytest.mark.parametrize("ending, returncode", [("finished", 0), ("failed", 1), ("interrupted", -2)])
def test_the_folder_is_removed_at_exit_whatever_the_ending(run, ending, returncode):
    process, left = run(ending)
    assert process.returncode == returncode, process.stderr  # (Python ends an uncaught Ctrl-C by its SIGINT)
    assert left == []


def test_keep_state_keeps_the_folder_and_says_where(run, tmp_path):
    process, left = run("interrupted", "--keep-state")
    assert len(left) == 1 and left[0].startswith("olearn-bench-test-")
    kept = tmp_path / "tmp" / left[0]
    assert (kept / "state").read_text() == "written"
    assert f"kept in {kept}" in process.stderr
