"""A numba compile of more than a second is told once (olearn._kernels.notify_slow_compile; the CLI's stderr line).

numba announces a compile (``numba:compile``) only on a miss of its cache, so a
warm cache tells nothing. The fast tests play numba's announcement with a real
kernel's dispatcher (no compile, no timing: the callback is awaited, or the
compile ends before a delay of an hour); the slow one runs ``olearn run`` twice
in fresh processes on one empty numba cache.
"""

import os
import subprocess
import sys
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from numba.core import event

import olearn._kernels as kernels
import olearn._kernels._jit  # noqa: F401 - registers the listener
from olearn._kernels import _rows

HANG_GUARD = 120  # seconds: only a broken listener waits this long


@pytest.fixture
def told():
    """The names the callback receives, and an event set at its call; the notice is reset afterwards."""
    names, called = [], threading.Event()

    def callback(name):
        names.append(name)
        called.set()

    yield names, called, callback
    kernels.notify_slow_compile(None)


def compiling(dispatcher):
    """numba's announcement of a compile of ``dispatcher``, as ``Dispatcher.compile`` makes it after a cache miss."""
    return event.trigger_event("numba:compile", data={"dispatcher": dispatcher, "args": (), "return_type": None})


def test_a_compile_longer_than_the_delay_tells_its_kernel_once(told):
    names, called, callback = told
    kernels.notify_slow_compile(callback, delay=0.0)
    with compiling(_rows.csr_summary):
        assert called.wait(HANG_GUARD)
    with compiling(_rows.all_finite):  # a second slow compile: already told
        pass
    assert names == ["csr_summary"]
    assert kernels.slow_compile_notice["callback"] is None


def test_a_compile_shorter_than_the_delay_tells_nothing(told):
    names, _, callback = told
    kernels.notify_slow_compile(callback, delay=3600.0)
    with compiling(_rows.csr_summary):
        pass
    assert names == []
    assert kernels.slow_compile_notice["callback"] is callback  # still waiting for a slow one


def test_a_nested_compile_or_a_function_outside_olearn_starts_no_timer(told):
    names, called, callback = told
    kernels.notify_slow_compile(callback, delay=0.0)
    with compiling(SimpleNamespace(py_func=os.path.join)):  # a function of another package
        with compiling(_rows.csr_summary):  # nested: part of the outer compile
            pass
    with compiling(SimpleNamespace()):  # a dispatcher without py_func (a lifted loop's)
        pass
    assert names == []
    with compiling(_rows.all_finite):
        assert called.wait(HANG_GUARD)
    assert names == ["all_finite"]


@pytest.mark.slow
def test_olearn_run_tells_a_cold_compile_and_not_a_warm_cache(tmp_path):
    data = tmp_path / "train.svm"
    rng = np.random.default_rng(0)
    data.write_text("".join(f"{1 if rng.random() < 0.5 else -1} 1:{rng.random():.3f} 7:{rng.random():.3f}\n"
                            for _ in range(50)))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), OLEARN_KERNELS="jit")
    command = [sys.executable, "-m", "olearn", "run", "--algo", "pa1", str(data)]
    cold = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=True)
    lines = [line for line in cold.stderr.splitlines() if line.startswith("olearn: compiling ")]
    assert len(lines) == 1, cold.stderr
    assert lines[0].endswith("once; cached afterwards")
    warm = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=True)
    assert "compiling" not in warm.stderr
