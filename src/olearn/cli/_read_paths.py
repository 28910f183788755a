"""The files a command reads named on its command line (a model, a cost matrix, a token file).

click's ``Path(exists=True)`` answers a missing file with a usage error (exit
code 2); olearn reports a missing file as an error in the input, as it does
for a data file it cannot open: one line, ``olearn: error: PATH: No such file
or directory``, exit code 1 (docs/cli.md, "Errors and exit codes").
"""

import errno
import os

import click

from ._app import CommandError, describe_error


class ReadFile(click.Path):
    """A file to read, checked when the command line is parsed: missing, it is an input error (exit code 1);
    a folder given for it stays click's usage error, as for every path."""

    def __init__(self):
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        path = super().convert(value, param, ctx)
        if not os.path.exists(path):
            raise CommandError(describe_error(FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)))
        return path
