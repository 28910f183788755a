"""The ``olearn`` command line: ``run``, ``predict``, ``inspect``, ``compare``, ``serve``, ``demo`` and ``reproduce``.

Run ``olearn --help`` or see ``docs/cli.md``.

Importing this package is cheap: click, the commands and what they need
(numpy, numba, the data readers) load when :func:`main` runs or :data:`cli`
is first read, so a Ctrl-C while they load ends the command as a Ctrl-C at
any later moment does, with "interrupted" and exit code 130.
"""

import atexit
import gc
import sys

from ._interrupt import INTERRUPTED_EXIT_CODE, caused_by_interrupt, exit_interrupted

__all__ = ["cli", "main"]


def tell_compiling(name):
    """The line on stderr that explains the wait of a first run: numba compiling a kernel for a second or more."""
    sys.stderr.write(f"olearn: compiling numba kernels on first use (now: {name}), once; cached afterwards\n")
    sys.stderr.flush()


def main(args=None):
    """Entry point of the ``olearn`` console script and of ``python -m olearn``.

    A numba compile of more than a second (a first run, numba's cache cold and
    the kernel not compiled at install) is told on stderr, once per process
    (:func:`olearn._kernels.notify_slow_compile`).

    At the interpreter's exit the objects left are frozen (:func:`gc.freeze`)
    before it tears the modules down: their memory is freed by reference counts
    or by the process's end, without the collector's last passes over every
    object loaded (20 ms of CPU at every command's exit: 30 ms, 10 ms frozen).
    A command has closed its files when it returns, and olearn defines no
    finalizer for such a pass to run.
    """
    args = sys.argv[1:] if args is None else list(args)
    atexit.unregister(gc.freeze)  # once, however many commands a process runs
    atexit.register(gc.freeze)
    try:
        from .._kernels import notify_slow_compile
        from ._app import commands_named, load_commands, run_commands

        notify_slow_compile(tell_compiling)
        load_commands(commands_named(args))
    except (KeyboardInterrupt, SystemError) as err:
        if not caused_by_interrupt(err):
            raise
        sys.stderr.write("olearn: interrupted\n")
        exit_interrupted()
    try:
        return run_commands(args)
    except SystemExit as done:
        if done.code == INTERRUPTED_EXIT_CODE:
            exit_interrupted()
        raise


def __getattr__(name):
    if name == "cli":
        from ._app import load_commands

        return load_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
