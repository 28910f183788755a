"""Tests that send SIGINT pass when pytest runs as a background job of a script, where SIGINT is ignored.

A shell starts ``python -m pytest &`` with SIGINT ignored, and every process the tests start inherits
that; the tests set the handlers they rely on themselves (``tests/interruptible.py``). This runs one
test of each kind under a pytest started so: an interrupt in the test's own process, one sent to an
``olearn`` command as it loads, one a child script sends itself, and Ctrl-C to ``olearn serve``.
"""

import os
import pathlib
import signal
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
INTERRUPTING = [
    "data/test_streaming.py::test_ctrl_c_while_waiting_for_a_block_stops_the_threads",
    "data/test_streaming.py::test_leaving_while_blocks_are_parsed_neither_hangs_nor_crashes",
    "cli/test_cli_startup.py::test_ctrl_c_while_the_command_loads_exits_130_without_a_traceback[click]",
    "serve/test_routes.py::test_binary_from_an_algorithm",
]


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_interrupting_tests_pass_with_sigint_ignored_by_inheritance():
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *(str(TESTS / test) for test in INTERRUPTING)],
                          cwd=TESTS.parent, capture_output=True, text=True, preexec_fn=_ignore_sigint, timeout=900)
    assert proc.returncode == 0, proc.stdout[-5000:]
    assert f"{len(INTERRUPTING) + 1} passed" in proc.stdout.splitlines()[-1]  # one test runs twice: two ways out
