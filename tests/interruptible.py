"""Ctrl-C in tests: SIGINT acts as in a program started from a terminal, however pytest itself was started.

A shell starts a background job (``python -m pytest &`` in a script) with SIGINT ignored; an ignored
signal stays ignored through fork and exec, and Python installs its KeyboardInterrupt handler at
start-up only where SIGINT is not ignored. So a test that sends SIGINT sets the handler itself:

* ``interruptible.run`` and ``interruptible.Popen`` are ``subprocess.run`` and ``subprocess.Popen``
  with SIGINT's default action restored in the child before it executes, so that its Python starts
  as under a terminal (KeyboardInterrupt on SIGINT);
* ``with interruptible.here():`` makes SIGINT raise KeyboardInterrupt in the test's own process, and
  puts back the handler it found on leaving.

``tests/test_interrupts_in_background.py`` runs tests that use them under pytest started with SIGINT ignored.
"""

import contextlib
import signal
import subprocess


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(args, **kwargs):
    """``subprocess.run(args, **kwargs)``, the child started with SIGINT's default action."""
    return subprocess.run(args, preexec_fn=_default_sigint, **kwargs)


def Popen(args, **kwargs):  # noqa: N802  (stands for subprocess.Popen)
    """``subprocess.Popen(args, **kwargs)``, the child started with SIGINT's default action."""
    return subprocess.Popen(args, preexec_fn=_default_sigint, **kwargs)


@contextlib.contextmanager
def here():
    """SIGINT raises KeyboardInterrupt in this process (main thread) inside the block."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
