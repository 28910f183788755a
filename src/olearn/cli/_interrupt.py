"""Ctrl-C during a command: an immediate stop while reading, never in the middle of a learning step."""

import contextlib
import os
import signal
import sys
import threading

# a command ended by Ctrl-C exits as a shell reports a process killed by SIGINT: 128 + 2
INTERRUPTED_EXIT_CODE = 130


def exit_interrupted():
    """End the process with exit code 130, its output flushed, once the command has stopped after Ctrl-C.

    Not by ``sys.exit``: CPython records a KeyboardInterrupt that leaves code
    run from a string (``exec``/``eval``, as dataclasses and namedtuples are
    made while modules load) as unhandled, and a ``python -m`` run whose
    record is still set at exit ends itself by SIGINT (return code -2),
    whatever exit code was asked for; a Ctrl-C while the command imported a
    module did that in 5 of 34 runs. The command has stopped and
    its files are closed or removed: the interpreter's shutdown has nothing
    left to do that matters.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(INTERRUPTED_EXIT_CODE)


def caused_by_interrupt(err):
    """Whether ``err`` is Ctrl-C, or a SystemError that a compiled kernel's call raised because Ctrl-C came during it.

    (A KeyboardInterrupt raised while numba converts a kernel's arguments or
    result surfaces as "SystemError: ... returned a result with an exception
    set", the KeyboardInterrupt as its cause.)
    """
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        if not isinstance(err, SystemError):
            return False
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


class HeldInterrupts:
    """Ctrl-C (SIGINT) raises KeyboardInterrupt at once, except inside :meth:`held`, which it leaves first.

    A learning step (a kernel call and the bookkeeping of its rows) is run
    ``held``: an interrupt that arrives during it is raised when it ends, so
    the model is always that of the examples counted so far. Reading is not
    held, so an interrupt never waits for input that may not come. Outside
    the main thread (where Python cannot set signal handlers) this does
    nothing.
    """

    def __init__(self):
        self._holding = False
        self._pending = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_interrupt)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False

    def _on_interrupt(self, signum, frame):
        if self._holding:
            self._pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self):
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        if self._pending:
            self._pending = False
            raise KeyboardInterrupt


@contextlib.contextmanager
def saved_if_interrupted(estimator, path, source, table):
    """On Ctrl-C, write ``estimator`` (the model of the ``table.examples`` examples learned) to ``path`` if given."""
    try:
        yield
    except (KeyboardInterrupt, SystemError) as err:
        if path is not None and caused_by_interrupt(err) and table.examples:
            import click

            from .._persistence import save

            save(estimator, path, source.input_info())
            click.echo(f"olearn: the model of the first {table.examples:,} examples is written to {path}", err=True)
        raise
