"""Compiled LIBSVM / SVMlight text parser over a ``uint8`` buffer.

Grammar of a data line (blank lines and lines starting with ``#`` are skipped)::

    label (blank index:value)* [blank] [# comment]

The parser appends to caller-allocated CSR arrays in file order (a call may
continue the rows of an earlier one, and stops after a given number of rows
or when an output is full), records which rows
are out of column order (sorted afterwards, once every value is final) and
which number tokens need the Python fix-up conversion (see ``_parse_number``).
On a format error it stops and reports an error code and the byte offset; the
Python layer turns those into a line, column and message.
"""

from numba import njit

from ._parse_number import (
    C_ERR_INFO,
    C_FIXUPS,
    C_STATUS,
    COLON,
    COMMA,
    FIX_DATA,
    FIX_LABEL,
    HASH,
    N_SHARED_COUNTS,
    NEWLINE,
    NUMBER_FIXUP,
    NUMBER_INVALID,
    OK,
    add_fixup,
    fail,
    grow_rows,
    is_blank,
    next_token,
    scan_digits,
    scan_int64,
    scan_number,
    scan_sign,
)

E_LABEL = 1  # label is not a number
E_LABEL_INT = 2  # multilabel: a label is not an integer
E_MISSING_COLON = 3  # feature token without ':'
E_EMPTY_INDEX = 4  # ':value'
E_INDEX = 5  # index part is not a non-negative integer
E_INDEX_ZERO = 6  # index 0 in a 1-based file
E_INDEX_RANGE = 7  # index above the limit; info = index
E_EMPTY_VALUE = 8  # 'index:'
E_VALUE = 9  # value is not a number
E_DUPLICATE = 10  # index repeated in a sorted run; info = index
E_QID = 11  # 'qid:' token
E_LABEL_RANGE = 12  # multilabel: an integer label beyond the int64 range

# counts[] slots of parse_libsvm: the shared ones (C_STATUS, C_ERR_POS,
# C_ERR_INFO, C_FIXUPS; see _parse_number), then
C_ROWS = N_SHARED_COUNTS  # rows in the outputs (read at the start, then updated)
C_NNZ = N_SHARED_COUNTS + 1  # entries of indices/data in use (likewise)
C_MLABELS = N_SHARED_COUNTS + 2  # entries of mlabels in use (likewise)
C_UNSORTED = N_SHARED_COUNTS + 3  # output: rows listed in unsorted
C_STOP = N_SHARED_COUNTS + 4  # output: the offset where parsing stopped (end, or a line start)
N_COUNTS = N_SHARED_COUNTS + 5

# Status of a parse that stopped at a line start because an output array is
# full (not an error): grow the outputs and parse on from counts[C_STOP].
# counts[C_ERR_INFO] then says which is full:
OUT_OF_ROOM = -1
FULL_ROWS = 0  # indptr (and labels or mlabel_ptr)
FULL_ENTRIES = 1  # indices and data
FULL_MLABELS = 2

# Index digits beyond this saturate; every limit is far below it.
_INDEX_SATURATION = 10**17


@njit(cache=True, inline="always")
def _ends_token(buf, i, end):
    return i >= end or is_blank(buf[i]) or buf[i] == NEWLINE or buf[i] == HASH


@njit(cache=True)
def _feature_error(buf, tok, end):
    """Classify a feature token that is not ``digits:``; returns the error code."""
    i = tok
    while not _ends_token(buf, i, end) and buf[i] != COLON:
        i += 1
    if i >= end or buf[i] != COLON:
        return E_MISSING_COLON
    if i == tok:
        return E_EMPTY_INDEX
    if i - tok == 3 and buf[tok] == 113 and buf[tok + 1] == 105 and buf[tok + 2] == 100:
        return E_QID
    return E_INDEX


@njit(cache=True)
def _first_token_has_colon(buf, i, end):
    while not _ends_token(buf, i, end):
        if buf[i] == COLON:
            return True
        i += 1
    return False


@njit(cache=True, inline="always")
def _stop(counts, status, i, row, k, n_mlabels, n_unsorted, n_fix):
    counts[C_STATUS] = status
    counts[C_STOP] = i
    counts[C_ROWS] = row
    counts[C_NNZ] = k
    counts[C_MLABELS] = n_mlabels
    counts[C_UNSORTED] = n_unsorted
    counts[C_FIXUPS] = n_fix


@njit(cache=True)
def parse_libsvm(
    buf,
    start,
    end,
    base,
    limit,
    multilabel,
    max_rows,
    indptr,
    indices,
    data,
    labels,
    mlabels,
    mlabel_ptr,
    counts,
    unsorted,
    fixups,
):
    """Parse the LIBSVM lines of ``buf[start:end]`` into CSR arrays.

    Parameters
    ----------
    buf : uint8 array
    start, end : int
        Byte range; ``start`` is at a line start.
    base : int
        0: store indices as written; 1: store ``index - 1`` and reject index 0.
    limit : int
        Largest index (as written) accepted.
    multilabel : bool
        Labels are comma-separated integers (into ``mlabels``/``mlabel_ptr``)
        instead of one number (into ``labels``).
    max_rows : int
        Stop before the data line that would make the outputs hold more rows.
    indptr, indices, data, labels, mlabels, mlabel_ptr : arrays
        Outputs; their first ``counts[C_ROWS]`` rows (``indptr`` and
        ``mlabel_ptr`` one more entry) are kept and appended to. ``labels``
        (or ``mlabel_ptr``) has room for as many rows as ``indptr``. When
        one is full the parse stops with status ``OUT_OF_ROOM`` before the
        line that does not fit (its numbers are not listed as fix-ups).
    counts : int64 array of length ``N_COUNTS``
        Input: the sizes of the outputs so far (``C_ROWS``, ``C_NNZ``,
        ``C_MLABELS``). Output: status, error position/info, sizes and where
        parsing stopped (see ``C_*``).
    unsorted : int64 array (m, 2)
        Output rows ``(row, line_start)`` whose indices are out of order.
    fixups : int64 array (m, 4)
        Output: numbers left to the Python conversion (see ``add_fixup``),
        into ``data`` (``FIX_DATA``) or ``labels`` (``FIX_LABEL``).

    Returns
    -------
    unsorted, fixups : arrays
        The same arrays, or grown copies if they filled up.
    """
    row = counts[C_ROWS]
    k = counts[C_NNZ]
    n_mlabels = counts[C_MLABELS]
    n_unsorted = 0
    n_fix = 0
    i = start
    while i < end and row < max_rows:
        line_start = i
        i, line_done = next_token(buf, i, end)
        if line_done:
            continue
        if row + 1 >= indptr.shape[0]:
            _stop(counts, OUT_OF_ROOM, line_start, row, k, n_mlabels, n_unsorted, n_fix)
            counts[C_ERR_INFO] = FULL_ROWS
            return unsorted, fixups
        fix_at_line_start = n_fix
        if multilabel:
            if not _first_token_has_colon(buf, i, end):
                while True:
                    tok = i
                    digits, negative = scan_sign(buf, i, end)
                    i, label, fits = scan_int64(buf, digits, end)
                    if i == digits or not (_ends_token(buf, i, end) or buf[i] == COMMA):
                        fail(counts, E_LABEL_INT, tok, n_fix)
                        return unsorted, fixups
                    if not fits:
                        fail(counts, E_LABEL_RANGE, tok, n_fix)
                        return unsorted, fixups
                    if n_mlabels >= mlabels.shape[0]:
                        _stop(counts, OUT_OF_ROOM, line_start, row, k, mlabel_ptr[row], n_unsorted, fix_at_line_start)
                        counts[C_ERR_INFO] = FULL_MLABELS
                        return unsorted, fixups
                    mlabels[n_mlabels] = -label if negative else label
                    n_mlabels += 1
                    if i < end and buf[i] == COMMA:
                        i += 1
                    else:
                        break
            mlabel_ptr[row + 1] = n_mlabels
        else:
            stop, kind, value = scan_number(buf, i, end)
            if kind == NUMBER_INVALID or not _ends_token(buf, stop, end):
                fail(counts, E_LABEL, i, n_fix)
                return unsorted, fixups
            if kind == NUMBER_FIXUP:
                fixups = add_fixup(fixups, n_fix, i, stop, FIX_LABEL, row)
                n_fix += 1
            labels[row] = value
            i = stop
        previous = -1
        in_order = True
        while True:
            i, line_done = next_token(buf, i, end)
            if line_done:
                break
            tok = i
            i, index = scan_digits(buf, i, end, _INDEX_SATURATION)
            if i == tok or i >= end or buf[i] != COLON:
                fail(counts, _feature_error(buf, tok, end), tok, n_fix)
                return unsorted, fixups
            if index == 0 and base == 1:
                fail(counts, E_INDEX_ZERO, tok, n_fix)
                return unsorted, fixups
            if index > limit:
                fail(counts, E_INDEX_RANGE, tok, n_fix, index)
                return unsorted, fixups
            i += 1
            if _ends_token(buf, i, end):
                fail(counts, E_EMPTY_VALUE, i, n_fix)
                return unsorted, fixups
            stop, kind, value = scan_number(buf, i, end)
            if kind == NUMBER_INVALID or not _ends_token(buf, stop, end):
                fail(counts, E_VALUE, i, n_fix)
                return unsorted, fixups
            if kind == NUMBER_FIXUP:
                fixups = add_fixup(fixups, n_fix, i, stop, FIX_DATA, k)
                n_fix += 1
            i = stop
            # Inside an out-of-order row the first repeat need not be adjacent;
            # the sorting pass finds it there.
            if index == previous and in_order:
                fail(counts, E_DUPLICATE, tok, n_fix, index)
                return unsorted, fixups
            if index < previous:
                in_order = False
            previous = index
            if k >= indices.shape[0]:
                n_mlabels = mlabel_ptr[row] if multilabel else n_mlabels
                _stop(counts, OUT_OF_ROOM, line_start, row, indptr[row], n_mlabels, n_unsorted, fix_at_line_start)
                counts[C_ERR_INFO] = FULL_ENTRIES
                return unsorted, fixups
            indices[k] = index - base
            data[k] = value
            k += 1
        if not in_order:
            unsorted = grow_rows(unsorted, n_unsorted + 1)
            unsorted[n_unsorted, 0] = row
            unsorted[n_unsorted, 1] = line_start
            n_unsorted += 1
        row += 1
        indptr[row] = k
    _stop(counts, OK, i, row, k, n_mlabels, n_unsorted, n_fix)
    return unsorted, fixups
