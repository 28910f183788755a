"""The text files a command writes its predictions to (``-``: standard output), failing cleanly.

A write that fails (a full disk: "No space left on device") ends the command
with an error naming the file, not the operating system's bare message, and
removes the partial file, which would otherwise pass for a file of
predictions. Only a regular file the command opened is removed (``-p
/dev/full`` removes nothing). A closed pipe (``| head``) is left to click,
which ends the command quietly.
"""

import contextlib
import errno
import os
import stat
import sys


class OutputFile:
    """``path`` opened for writing text (``-``: standard output)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        if self.to_stdout:
            self._out = sys.stdout
            self._opened = None
        else:
            self._out = open(self.path, "w", encoding="utf-8")
            self._opened = os.fstat(self._out.fileno())

    @property
    def to_stdout(self):
        return self.path == "-"

    def write(self, text):
        try:
            self._out.write(text)
        except OSError as err:
            self._fail(err)

    def close(self):
        try:
            if self.to_stdout:
                self._out.flush()
            else:
                self._out.close()
        except OSError as err:
            self._fail(err)

    def _fail(self, err):
        if err.errno == errno.EPIPE:
            raise err
        name = "standard output" if self.to_stdout else self.path
        if self._opened is not None:
            with contextlib.suppress(OSError):
                self._out.close()  # flushes what is buffered again, which fails again
            if self._remove_partial():
                raise OSError(err.errno, f"{err.strerror} (the partial file is removed)", name) from None
        raise OSError(err.errno, err.strerror, name) from None

    def _remove_partial(self):
        """Remove the file written, if it is the regular file opened; whether it is removed."""
        try:
            now = os.stat(self.path)
            if not stat.S_ISREG(self._opened.st_mode) or (now.st_dev, now.st_ino) != (
                    self._opened.st_dev, self._opened.st_ino):
                return False
            os.unlink(self.path)
        except OSError:
            return False
        return True
