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

from ._jit import njit
from ._parse_codes import (
    C_ERR_INFO,
    C_FIXUPS,
    C_MLABELS,
    C_NNZ,
    C_ROWS,
    C_STATUS,
    C_STOP,
    C_UNSORTED,
    E_DUPLICATE,
    E_EMPTY_INDEX,
    E_EMPTY_VALUE,
    E_INDEX,
    E_INDEX_RANGE,
    E_INDEX_ZERO,
    E_LABEL,
    E_LABEL_INT,
    E_LABEL_RANGE,
    E_MISSING_COLON,
    E_QID,
    E_VALUE,
    FIX_DATA,
    FIX_LABEL,
    FULL_ENTRIES,
    FULL_FIXUPS,
    FULL_MLABELS,
    FULL_ROWS,
    FULL_UNSORTED,
    OK,
    OUT_OF_ROOM,
)
from ._parse_number import (
    COLON,
    COMMA,
    HASH,
    NEWLINE,
    NUMBER_FIXUP,
    NUMBER_INVALID,
    byte_at,
    fail,
    is_blank,
    next_token,
    scan_digits,
    scan_int64,
    scan_number,
    scan_sign,
)


# Index digits beyond this saturate; every limit is far below it.
_INDEX_SATURATION = 10**17


@njit(cache=True, inline="always")
def _ends_token(buf, i, end):
    if i >= end:
        return True
    c = byte_at(buf, i)
    return is_blank(c) | (c == NEWLINE) | (c == HASH)


@njit(cache=True)
def _colon_or_token_end(buf, i, end):
    """Index of the first ``:`` of the token at ``i``, or of the token's end if it holds none."""
    while not _ends_token(buf, i, end) and byte_at(buf, i) != COLON:
        i += 1
    return i


@njit(cache=True)
def _read_mlabels(buf, i, end, mlabels, n_mlabels):
    """Read a line's comma-separated integer labels at ``i`` into ``mlabels[n_mlabels:]``.

    A first token holding ``:`` is a feature: the line has no label. Returns
    ``(i, n_mlabels, status, position)``: ``status`` is ``OK``, an error
    code at byte ``position``, or ``OUT_OF_ROOM`` when ``mlabels`` is full.
    """
    j = _colon_or_token_end(buf, i, end)
    if j < end and byte_at(buf, j) == COLON:
        return i, n_mlabels, OK, i
    while True:
        tok = i
        digits, negative = scan_sign(buf, i, end)
        i, label, fits = scan_int64(buf, digits, end)
        if i == digits or not (_ends_token(buf, i, end) or byte_at(buf, i) == COMMA):
            return i, n_mlabels, E_LABEL_INT, tok
        if not fits:
            return i, n_mlabels, E_LABEL_RANGE, tok
        if n_mlabels >= mlabels.shape[0]:
            return i, n_mlabels, OUT_OF_ROOM, tok
        mlabels[n_mlabels] = -label if negative else label
        n_mlabels += 1
        if i < end and byte_at(buf, i) == COMMA:
            i += 1
        else:
            return i, n_mlabels, OK, i


@njit(cache=True, _nrt=False, nogil=True)
def parse_libsvm(
    buf,
    start,
    end,
    base,
    limit,
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
    max_rows : int
        Stop before the data line that would make the outputs hold more rows.
    indptr, indices, data, labels, mlabels, mlabel_ptr : arrays
        Outputs; their first ``counts[C_ROWS]`` rows (``indptr`` and
        ``mlabel_ptr`` one more entry) are kept and appended to. ``labels``
        (or ``mlabel_ptr``) has room for as many rows as ``indptr``. When
        one is full the parse stops with status ``OUT_OF_ROOM`` before the
        line that does not fit (its numbers are not listed as fix-ups).
        ``mlabels`` and ``mlabel_ptr`` are None unless the labels are
        multilabel: comma-separated integers (into ``mlabels``/``mlabel_ptr``)
        instead of one number (into ``labels``). Passed None, they take the
        multilabel code out of the compiled kernel (numba prunes the branches
        that test them), so a run on single labels never compiles it.
    counts : int64 array of length ``N_COUNTS``
        Input: the sizes of the outputs so far (``C_ROWS``, ``C_NNZ``,
        ``C_MLABELS``). Output: status, error position/info, sizes and where
        parsing stopped (see ``C_*``).
    unsorted : int64 array (m, 2)
        Output rows ``(row, line_start)`` whose indices are out of order,
        ``counts[C_UNSORTED]`` of them (from row 0 of the array at each call).
    fixups : int64 array (m, 4)
        Output: numbers left to the Python conversion (rows as written by
        ``add_fixup``), into ``data`` (``FIX_DATA``) or ``labels``
        (``FIX_LABEL``), ``counts[C_FIXUPS]`` of them (likewise).

    Every exit (an error, a full output, the end) leaves the loops with a
    ``status`` and goes through the one exit at the bottom, and the label
    and the feature values are read by the same number scan: each piece of
    code is compiled once, which keeps the first run's compile short. The
    kernel allocates nothing (a full ``unsorted`` or ``fixups`` stops it as
    the other outputs do) and is compiled without numba's reference
    counting, whose calls were a large part of its machine code.
    """
    row = counts[C_ROWS]
    k = counts[C_NNZ]
    n_mlabels = counts[C_MLABELS]
    n_unsorted = 0
    n_fix = 0
    status = OK
    position = 0
    info = 0
    line_start = start
    fix_at_line_start = 0
    i = start
    while i < end and row < max_rows:
        line_start = i
        i, line_done = next_token(buf, i, end)
        if line_done:
            continue
        fix_at_line_start = n_fix
        if row + 1 >= indptr.shape[0]:
            status = OUT_OF_ROOM
            info = FULL_ROWS
            break
        in_features = False  # the line's first token is its label, unless multilabel
        if mlabels is not None:
            i, n_mlabels, status, position = _read_mlabels(buf, i, end, mlabels, n_mlabels)
            if status != OK:
                info = FULL_MLABELS
                break
            mlabel_ptr[row + 1] = n_mlabels
            in_features = True
        previous = -1
        index = 0
        in_order = True
        while True:
            if in_features:
                i, line_done = next_token(buf, i, end)
                if line_done:
                    break
                position = i
                i, index = scan_digits(buf, i, end, _INDEX_SATURATION)
                if i == position or i >= end or byte_at(buf, i) != COLON:
                    status = E_INDEX  # or another feature error: told apart below
                    break
                if index == 0 and base == 1:
                    status = E_INDEX_ZERO
                    break
                if index > limit:
                    status = E_INDEX_RANGE
                    info = index
                    break
                i += 1
                if _ends_token(buf, i, end):
                    status = E_EMPTY_VALUE
                    position = i
                    break
            stop, kind, value = scan_number(buf, i, end)
            if kind == NUMBER_INVALID or not _ends_token(buf, stop, end):
                status = E_VALUE if in_features else E_LABEL
                position = i
                break
            if kind == NUMBER_FIXUP:
                if n_fix >= fixups.shape[0]:
                    status = OUT_OF_ROOM
                    info = FULL_FIXUPS
                    break
                fixups[n_fix, 0] = i
                fixups[n_fix, 1] = stop
                fixups[n_fix, 2] = FIX_DATA if in_features else FIX_LABEL
                fixups[n_fix, 3] = k if in_features else row
                n_fix += 1
            i = stop
            if not in_features:
                labels[row] = value
                in_features = True
                continue
            # Inside an out-of-order row the first repeat need not be adjacent;
            # the sorting pass finds it there.
            if index == previous and in_order:
                status = E_DUPLICATE
                info = index
                break
            if index < previous:
                in_order = False
            previous = index
            if k >= indices.shape[0]:
                status = OUT_OF_ROOM
                info = FULL_ENTRIES
                break
            indices[k] = index - base
            data[k] = value
            k += 1
        if status != OK:
            break
        if not in_order:
            if n_unsorted >= unsorted.shape[0]:
                status = OUT_OF_ROOM
                info = FULL_UNSORTED
                break
            unsorted[n_unsorted, 0] = row
            unsorted[n_unsorted, 1] = line_start
            n_unsorted += 1
        row += 1
        indptr[row] = k
    if status == E_INDEX:
        j = _colon_or_token_end(buf, position, end)
        if j >= end or byte_at(buf, j) != COLON:
            status = E_MISSING_COLON
        elif j == position:
            status = E_EMPTY_INDEX
        elif j - position == 3 and buf[position] == 113 and buf[position + 1] == 105 and buf[position + 2] == 100:
            status = E_QID
    if status > OK:
        fail(counts, status, position, n_fix, info)
        return
    if status == OUT_OF_ROOM:
        # Undo the line that did not fit: parsing resumes at its start.
        i = line_start
        k = indptr[row]
        if mlabels is not None:
            n_mlabels = mlabel_ptr[row]
        n_fix = fix_at_line_start
        counts[C_ERR_INFO] = info
    counts[C_STATUS] = status
    counts[C_STOP] = i
    counts[C_ROWS] = row
    counts[C_NNZ] = k
    counts[C_MLABELS] = n_mlabels
    counts[C_UNSORTED] = n_unsorted
    counts[C_FIXUPS] = n_fix
