"""Correctly rounded conversion of the number tokens the compiled parsers defer.

The kernels convert the common case exactly themselves and list the rest as
``(start, stop, target)`` rows (see ``olearn._kernels._parse_number``). Here
those tokens are copied into fixed-width byte strings, in batches to bound
memory, and converted by NumPy, whose string-to-float cast rounds correctly.
"""

import re

import numpy as np

from olearn._kernels import _compiled
from olearn._kernels._parse_codes import FIX_DATA, FIX_LABEL, FIX_WEIGHT

from ._errors import raise_at, shorten

_BATCH = 1 << 16
# Tokens longer than this (absurdly many digits) are converted one by one so
# that a single one cannot widen a whole batch.
_MAX_WIDTH = 64


def convert_spans(arr, spans):
    """``float64`` values of the byte spans ``arr[start:stop]`` for rows of ``spans``.

    Parameters
    ----------
    arr : ndarray of uint8
        The text buffer.
    spans : ndarray of int64, shape (n, >=2)
        ``spans[:, 0]`` start and ``spans[:, 1]`` stop offsets of well-formed numbers.
    """
    values = np.empty(spans.shape[0])
    lengths = spans[:, 1] - spans[:, 0]
    short = lengths <= _MAX_WIDTH
    for j in np.flatnonzero(~short):
        values[j] = float(arr[spans[j, 0] : spans[j, 1]].tobytes())
    if not short.all():
        spans, lengths, values_short = spans[short], lengths[short], np.empty(short.sum())
    else:
        values_short = values
    for lo in range(0, spans.shape[0], _BATCH):
        hi = min(lo + _BATCH, spans.shape[0])
        width = int(lengths[lo:hi].max())
        chars = np.empty((hi - lo, width), dtype=np.uint8)
        _compiled.gather_spans(arr, spans, lo, hi, chars)
        values_short[lo:hi] = chars.view(f"S{width}").ravel().astype(np.float64)
    if values_short is not values:
        values[short] = values_short
    return values


_KIND_NAMES = {FIX_DATA: "feature value", FIX_LABEL: "label", FIX_WEIGHT: "importance weight"}


def apply_fixups(arr, buf, fixups, outputs, path, first_line, what=None):
    """Convert the deferred numbers and store them where the kernel meant them to go.

    Parameters
    ----------
    arr, buf : the text as a uint8 array and as bytes
    fixups : int64 array (n, 4)
        Rows ``(start, stop, kind, index)`` as recorded by ``add_fixup``.
    outputs : dict
        Output array per kind (``FIX_DATA``, ``FIX_LABEL``, ``FIX_WEIGHT``).
    path, first_line : where ``buf`` comes from, for error messages
    what : str, optional
        What every number is, for messages ("cell"); default by kind.

    Returns
    -------
    values : ndarray of float64, one per fix-up row

    Raises
    ------
    DataFormatError
        At the first number that is infinite after rounding (``1e999``).
    """
    if not len(fixups):
        return np.empty(0)
    values = convert_spans(arr, fixups)
    nonfinite = np.flatnonzero(~np.isfinite(values))
    if nonfinite.size:
        start, stop, kind, _ = fixups[nonfinite[0]]
        token = shorten(buf[start:stop].decode("ascii"))
        raise_at(
            f"{what or _KIND_NAMES[kind]} must be finite, found {token!r}",
            path,
            buf,
            start,
            first_line,
        )
    for kind, out in outputs.items():
        mine = fixups[:, 2] == kind
        out[fixups[mine, 3]] = values[mine]
    return values


_INTEGER = re.compile(rb"[+-]?[0-9]+")
_EXACT_LIMIT = 2.0**53  # every integer of smaller magnitude is a float64


def check_integer_labels(buf, fixups, values, is_label, path, first_line):
    """Refuse a label written as an integer that a float64 label cannot hold exactly.

    Labels are float64: ``100000000000000001`` would silently become
    ``100000000000000000`` and merge two classes. Labels written as floats
    (``1e17``, ``2.5``) are rounded like any float.

    Parameters
    ----------
    buf, fixups, values : the text, the fix-up rows and their converted values
        (as passed to and returned by :func:`apply_fixups`)
    is_label : bool array, one per fix-up row, True for the labels
    path, first_line : where ``buf`` comes from, for error messages
    """
    # Numbers the kernels convert themselves are exact; deferred ones below 2**53 too,
    # and an inexact integer rounds to 2**53 or beyond.
    for j in np.flatnonzero(is_label & (np.abs(values) >= _EXACT_LIMIT)):
        start, stop = int(fixups[j, 0]), int(fixups[j, 1])
        token = buf[start:stop]
        if _INTEGER.fullmatch(token) and int(token) != int(values[j]):
            raise_at(
                f"integer label {shorten(token.decode('ascii'))} cannot be held exactly by a float64 "
                f"label (it would become {int(values[j])}); use class ids below 2**53",
                path,
                buf,
                start,
                first_line,
            )
