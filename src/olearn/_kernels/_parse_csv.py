"""Compiled parser of numeric delimiter-separated text into a dense array.

Every data line must hold exactly ``n_columns`` numbers separated by a
one-byte delimiter; blanks around a number are allowed (unless the blank is
the delimiter). Blank lines and lines starting with ``#`` are skipped.
"""

from ._jit import njit
from ._parse_codes import C_FIXUPS, C_STATUS, FIX_DATA, N_SHARED_COUNTS, OK
from ._parse_number import (
    NEWLINE,
    NUMBER_FIXUP,
    NUMBER_INVALID,
    add_fixup,
    byte_at,
    fail,
    is_blank,
    next_token,
    scan_number,
    skip_line,
)

E_EMPTY_CELL = 1
E_VALUE = 2  # a cell is not a number
E_TOO_FEW = 3  # the line ends before n_columns cells
E_TOO_MANY = 4  # a delimiter after the last expected cell

# counts[] slots filled by parse_csv: the shared ones (C_STATUS, C_ERR_POS,
# C_FIXUPS; see _parse_number), then
C_ROWS = N_SHARED_COUNTS
N_COUNTS = N_SHARED_COUNTS + 1


@njit(cache=True)
def count_data_lines(buf, start, end):
    """Number of lines of ``buf[start:end]`` that ``parse_csv`` takes for data rows.

    Those are the lines neither blank nor starting with ``#``, counted by the
    same ``next_token`` test as the parser.
    """
    n = 0
    i = start
    while i < end:
        j, line_done = next_token(buf, i, end)
        if line_done:
            i = j
            continue
        n += 1
        i = skip_line(buf, j, end)
    return n


@njit(cache=True, inline="always")
def _skip_blanks(buf, i, end, delimiter):
    while i < end and is_blank(byte_at(buf, i)) and byte_at(buf, i) != delimiter:
        i += 1
    return i


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
        # Look ahead only: a leading blank may be the delimiter, ending an empty cell.
        j, line_done = next_token(buf, i, end)
        if line_done:
            i = j
            continue
        for col in range(n_columns):
            i = _skip_blanks(buf, i, end, delimiter)
            if i >= end or byte_at(buf, i) == NEWLINE or byte_at(buf, i) == delimiter:
                fail(counts, E_EMPTY_CELL, i, n_fix)
                return fixups
            cell = i
            stop, kind, value = scan_number(buf, i, end)
            i = _skip_blanks(buf, stop, end, delimiter)
            at_end = i >= end or byte_at(buf, i) == NEWLINE
            if kind == NUMBER_INVALID or not (at_end or byte_at(buf, i) == delimiter):
                fail(counts, E_VALUE, cell, n_fix)
                return fixups
            if kind == NUMBER_FIXUP:
                fixups = add_fixup(fixups, n_fix, cell, stop, FIX_DATA, row * n_columns + col)
                n_fix += 1
            out[row, col] = value
            if col < n_columns - 1:
                if at_end:
                    fail(counts, E_TOO_FEW, i, n_fix)
                    return fixups
                i += 1
            elif not at_end:
                fail(counts, E_TOO_MANY, i, n_fix)
                return fixups
        i += 1  # the newline
        row += 1
    counts[C_ROWS] = row
    counts[C_FIXUPS] = n_fix
    return fixups
