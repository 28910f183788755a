"""Compiled parser of numeric delimiter-separated text into a dense array.

Every data line must hold exactly ``n_columns`` numbers separated by a
one-byte delimiter; blanks around a number are allowed (unless the blank is
the delimiter). Blank lines and lines starting with ``#`` are skipped.
"""

from numba import njit

from ._parse_number import (
    FIX_DATA,
    HASH,
    NEWLINE,
    NUMBER_FIXUP,
    NUMBER_INVALID,
    add_fixup,
    is_blank,
    scan_number,
    skip_line,
)

OK = 0
E_EMPTY_CELL = 1
E_VALUE = 2  # a cell is not a number
E_TOO_FEW = 3  # the line ends before n_columns cells
E_TOO_MANY = 4  # a delimiter after the last expected cell

# counts[] slots filled by parse_csv
C_STATUS = 0
C_ERR_POS = 1
C_ROWS = 2
C_FIXUPS = 3
N_COUNTS = 4


@njit(cache=True)
def count_newlines(buf, start, end):
    n = 0
    for i in range(start, end):
        if buf[i] == NEWLINE:
            n += 1
    return n


@njit(cache=True, inline="always")
def _skip_blanks(buf, i, end, delimiter):
    while i < end and is_blank(buf[i]) and buf[i] != delimiter:
        i += 1
    return i


@njit(cache=True, inline="always")
def _fail(counts, code, pos, n_fix):
    """Record a format error at byte ``pos``.

    The fix-ups recorded so far all precede it; the caller still converts them,
    so that an earlier non-finite number is reported first.
    """
    counts[C_STATUS] = code
    counts[C_ERR_POS] = pos
    counts[C_FIXUPS] = n_fix


@njit(cache=True)
def parse_csv(buf, start, end, delimiter, out, counts, fixups):
    """Parse the lines of ``buf[start:end]`` into the rows of ``out``.

    Parameters
    ----------
    buf : uint8 array
    start, end : int
        Byte range; ``start`` is at a line start.
    delimiter : int
        The separating byte.
    out : float array (n_rows_max, n_columns)
        Output, one row per data line.
    counts : int64 array of length ``N_COUNTS``
        Output: status, error position and sizes (see ``C_*``).
    fixups : int64 array (m, 4)
        Output: numbers left to the Python conversion (see ``add_fixup``);
        their index is the flat position in ``out``.

    Returns
    -------
    fixups : array
        The same array, or a grown copy.
    """
    n_columns = out.shape[1]
    row = 0
    n_fix = 0
    counts[C_STATUS] = OK
    i = start
    while i < end:
        j = i
        while j < end and is_blank(buf[j]):
            j += 1
        if j >= end:
            break
        if buf[j] == NEWLINE or buf[j] == HASH:
            i = skip_line(buf, j, end)
            continue
        for col in range(n_columns):
            i = _skip_blanks(buf, i, end, delimiter)
            if i >= end or buf[i] == NEWLINE or buf[i] == delimiter:
                _fail(counts, E_EMPTY_CELL, i, n_fix)
                return fixups
            cell = i
            stop, kind, value = scan_number(buf, i, end)
            i = _skip_blanks(buf, stop, end, delimiter)
            at_end = i >= end or buf[i] == NEWLINE
            if kind == NUMBER_INVALID or not (at_end or buf[i] == delimiter):
                _fail(counts, E_VALUE, cell, n_fix)
                return fixups
            if kind == NUMBER_FIXUP:
                fixups = add_fixup(fixups, n_fix, cell, stop, FIX_DATA, row * n_columns + col)
                n_fix += 1
            out[row, col] = value
            if col < n_columns - 1:
                if at_end:
                    _fail(counts, E_TOO_FEW, i, n_fix)
                    return fixups
                i += 1
            elif not at_end:
                _fail(counts, E_TOO_MANY, i, n_fix)
                return fixups
        i += 1  # the newline
        row += 1
    counts[C_ROWS] = row
    counts[C_FIXUPS] = n_fix
    return fixups
