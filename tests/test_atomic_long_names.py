"""Atomic writes of a target whose file name is long: the temporary name must fit in NAME_MAX (255 bytes) too."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import olearn
from olearn import _atomic as atomic
from olearn._atomic import atomic_write


@pytest.mark.parametrize("name", ["m" * 251 + ".npz", "é" * 125 + ".npz", "m" * 226 + ".npz"])
def test_a_model_whose_file_name_takes_up_to_255_bytes_saves_and_loads(tmp_path, name):
    """The temporary name took the whole target name plus about 30 bytes: past 255 bytes, saving failed."""
    assert len(os.fsencode(name)) <= 255
    X, y = np.eye(3), np.array([1, -1, 1])
    est = olearn.PAClassifier().fit(X, y)
    est.save(tmp_path / name)
    assert_array_equal(olearn.load(tmp_path / name).decision_function(X), est.decision_function(X))
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def _killed_writer(path):
    """Start writing ``path`` in a child process that kills itself with SIGKILL before it finishes."""
    code = (
        "import importlib.util, os, signal, sys\n"
        "spec = importlib.util.spec_from_file_location('atomic', sys.argv[2])\n"
        "atomic = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(atomic)\n"
        "with atomic.atomic_write(sys.argv[1]) as fh:\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, os.fspath(path), atomic.__file__])
    assert proc.returncode == -9


@pytest.mark.skipif(os.name != "posix", reason="killed writers are detected by process id on POSIX")
def test_temp_files_of_killed_writers_of_a_long_name_are_removed_by_the_next_write(tmp_path):
    target = tmp_path / ("t" * 250)
    _killed_writer(target)
    (leftover,) = tmp_path.iterdir()
    assert len(os.fsencode(leftover.name)) <= 255
    _killed_writer(tmp_path / ("t" * 249 + "u"))  # another target with the same start keeps its file
    with atomic_write(target) as fh:
        fh.write(b"done")
    assert not leftover.exists() and len(list(tmp_path.iterdir())) == 2 and target.read_bytes() == b"done"
