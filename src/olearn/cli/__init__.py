"""The ``olearn`` command line: ``run``, ``predict``, ``inspect``, ``compare``, ``serve``, ``demo`` and ``reproduce``.

Run ``olearn --help`` or see ``docs/cli.md``.

Importing this package is cheap: click, the commands and what they need
(numpy, numba, the data readers) load when :func:`main` runs or :data:`cli`
is first read, so a Ctrl-C while they load ends the command as a Ctrl-C at
any later moment does, with "interrupted" and exit code 130.
"""

import sys

from ._interrupt import INTERRUPTED_EXIT_CODE, caused_by_interrupt, exit_interrupted

__all__ = ["cli", "main"]


def main(args=None):
    """Entry point of the ``olearn`` console script and of ``python -m olearn``."""
    args = sys.argv[1:] if args is None else list(args)
    try:
        from ._app import commands_named, load_commands, run_commands

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
