"""A command stopped by Ctrl-C exits 130, however the interrupt reached it.

CPython records a KeyboardInterrupt that leaves code run from a string
(``exec``/``eval``: dataclasses and namedtuples are made so while modules
load) as unhandled, and a ``python -m`` run whose record is set at exit ends
itself by SIGINT (return code -2) whatever exit code was asked for. A Ctrl-C
that came while the command imported a module did that in about one run in
eight: "olearn: interrupted", then -2.
"""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX return codes of processes ended by a signal")

# ``python -m`` of this package: olearn's command line, whose reader is interrupted inside code run from a string
INTERRUPTED_IN_EXEC = """
import olearn.data._libsvm
from olearn.cli import main


def parse_interrupted(*args, **kwargs):
    exec("raise KeyboardInterrupt")  # as a Ctrl-C while a dataclass is made
    yield


olearn.data._libsvm.iter_libsvm_rows = parse_interrupted
main()
"""


def test_an_interrupt_inside_exec_still_exits_130(tmp_path):
    package = tmp_path / "interrupted_olearn"
    package.mkdir()
    (package / "__main__.py").write_text(INTERRUPTED_IN_EXEC)
    data = tmp_path / "train.svm"
    data.write_text("1 1:1\n-1 2:1\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    proc = subprocess.run([sys.executable, "-m", "interrupted_olearn", "run", "--algo", "pa1", str(data)],
                          capture_output=True, text=True, env=env, timeout=240)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "olearn: interrupted\n"
