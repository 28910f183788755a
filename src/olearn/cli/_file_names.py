"""How messages name a command's FILE."""

import os

from ..data import _io


def named(path):
    """How messages name a command's FILE: ``-``, and the name it is read by once opened (``<stdin>``), is standard
    input (a name of its own would read as a file's); the readers' errors located at a line keep ``<stdin>:LINE:COL``,
    a compiler's location."""
    path = os.fspath(path)
    if path == "-" or (path == _io.STDIN_NAME and _io.once_input(path) is not None):
        return "standard input"
    return path
