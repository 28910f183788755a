"""Turning a byte offset reported by a compiled parser into a located DataFormatError."""

import math

import numpy as np

from olearn.exceptions import DataFormatError

_TOKEN_ENDS = b" \t\r\n\x0b\x0c"
_MAX_SHOWN = 40
_LF = ord("\n")


def locate(buf, pos, first_line=0):
    """1-based ``(line, column)`` of byte ``pos`` of ``buf``.

    ``buf`` is bytes-like (a memory map too: lines are counted without its
    ``count``); ``first_line`` is the number of file lines before ``buf[0]``. The column
    counts characters, not bytes, of the line decoded as UTF-8.
    """
    line_start = buf.rfind(b"\n", 0, pos) + 1
    line = first_line + int(np.count_nonzero(np.frombuffer(buf, np.uint8, count=line_start) == _LF)) + 1
    column = len(buf[line_start:pos].decode("utf-8", "replace")) + 1
    return line, column


def token_at(buf, pos, stops=b""):
    """The text from ``pos`` to the next blank, newline or byte in ``stops``, for messages."""
    end = pos
    ends = _TOKEN_ENDS + stops
    while end < len(buf) and buf[end] not in ends:
        end += 1
    return shorten(buf[pos:end].decode("utf-8", "replace"))


def shorten(text):
    """``text``, cut to a length fit for an error message."""
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def is_nonfinite_number(text):
    """Whether ``text`` reads as a float that is NaN or infinite ('nan', 'inf', '1e999')."""
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


def number_message(token, what, expected, hint=""):
    """Message for ``token`` where a number was expected.

    ``"<what> must be finite, found ..."`` if it reads as NaN or infinite,
    else ``"expected <expected>, found ..."`` followed by ``hint``.
    """
    if is_nonfinite_number(token):
        return f"{what} must be finite, found {token!r}"
    return f"expected {expected}, found {token!r}{hint}"


def raise_at(message, path, buf, pos, first_line=0):
    """Raise DataFormatError for byte ``pos`` of ``buf`` (never returns)."""
    line, column = locate(buf, pos, first_line)
    raise DataFormatError(message, path, line, column)
