"""Numeric CSV reader."""

import itertools
import os

import numpy as np
import scipy.sparse as sp

from olearn._kernels import _parse_csv as K
from olearn._kernels._parse_codes import C_ERR_POS, C_FIXUPS, C_STATUS, FIX_DATA, OK

from ._checks import check_int
from ._errors import number_message, raise_at, token_at
from ._io import read_start, read_text
from ._numbers import apply_fixups, check_integer_labels

# Bytes that could be part of a number (or end a line) cannot separate cells.
_BAD_DELIMITERS = set("0123456789.+-eE#\n")


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _content_lines(buf):
    """Yield ``(start, stop)`` of lines that are neither blank nor ``#`` comments."""
    start = 0
    while start < len(buf):
        stop = buf.find(b"\n", start)
        stop = len(buf) if stop < 0 else stop
        text = buf[start:stop].strip()
        if text and not text.startswith(b"#"):
            yield start, stop
        start = stop + 1


def _check_layout(header, delimiter):
    if header not in ("auto", True, False):
        raise ValueError(f"header must be 'auto', True or False, got {header!r}")
    if not (isinstance(delimiter, str) and len(delimiter) == 1 and delimiter.isascii()):
        raise ValueError(f"delimiter must be one ASCII character, got {delimiter!r}")
    if delimiter in _BAD_DELIMITERS:
        raise ValueError(f"delimiter {delimiter!r} could be part of a number or line structure")


def _split_cells(buf, line, delimiter):
    return [cell.strip() for cell in buf[line[0] : line[1]].decode("utf-8", "replace").split(delimiter)]


def _header_names(cells, header):
    """The cells of a first line if it is a header (``header`` True, or "auto" and no cell a number), else None."""
    return cells if header is True or (header == "auto" and not any(_is_number(c) for c in cells)) else None


def _label_index(path, label_column, names, n_columns):
    """The label's column, 0-based, of a file of ``n_columns`` columns and the header ``names`` (None: none);
    ``label_column`` is a header name, an index (negative: from the end) or None (no label: None)."""
    if isinstance(label_column, str):
        if names is None or label_column not in names:
            found = "the file has no header" if names is None else f"the header names {', '.join(names)}"
            raise ValueError(f"{path}: no column named {label_column!r} holds the label: {found}")
        label_column = names.index(label_column)
    if label_column is not None:
        label_column = check_int("label_column", label_column, -n_columns, n_columns - 1) % n_columns
    return label_column


def csv_columns(path, header="auto", delimiter=","):
    """The header's column names (None without a header) and the number of columns of a CSV file.

    Reads only the start of the file: its first line that is neither blank
    nor a comment, and the next one when the first is a header. Same
    ``header`` and ``delimiter`` as :func:`load_csv`; a file without data
    lines has 0 columns.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import csv_columns
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("label,height,weight\\n1,1.5,0\\n")
    >>> csv_columns(path)
    (['label', 'height', 'weight'], 3)
    """
    _check_layout(header, delimiter)
    size = 1 << 16
    while True:
        buf, whole = read_start(path, size)
        lines = list(itertools.islice(_content_lines(buf), 3))
        if len(lines) == 3 or whole:
            break
        size *= 4
    if not lines:
        return None, 0
    names = _header_names(_split_cells(buf, lines[0], delimiter), header)
    if names is None:
        return None, len(_split_cells(buf, lines[0], delimiter))
    return names, len(_split_cells(buf, lines[1], delimiter)) if len(lines) > 1 else len(names)


def load_csv(path, label_column=-1, header="auto", delimiter=","):
    """Load a numeric CSV file into a CSR matrix and a label vector.

    Every data line holds the same number of numeric cells; blanks around a
    cell are ignored, blank lines and lines starting with ``#`` are skipped.
    Lines end with ``\\n``, ``\\r\\n`` or ``\\r``, even mixed in one file. Memory follows the data:
    the rows allocated are at most the data lines, and at most one per
    ``2 * n_columns`` bytes.
    Quoted cells are not supported. Compressed files (gzip, bzip2, xz) are
    read transparently. Parsing is compiled; values equal Python's ``float``
    of the cell.

    Parameters
    ----------
    path : str or os.PathLike
    label_column : int, str or None, default -1
        Column holding the label (0-based; negative counts from the end), or
        its name in the header; the other columns are the features. None:
        every column is a feature and ``y`` is None.
    header : {"auto", True, False}, default "auto"
        Whether the first (non-blank, non-comment) line is a header to skip.
        "auto": it is a header if none of its cells is a number.
    delimiter : str, default ","
        One ASCII character that cannot be part of a number.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64, shape (n_samples, n_columns - 1)
        Zeros are not stored.
    y : ndarray of float64 of shape (n_samples,), or None

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        Naming file, line and column: a non-numeric, NaN, infinite or empty
        cell, a line with a different number of cells than the first, or an
        integer label that float64 cannot hold exactly; a truncated or
        corrupt compressed stream, naming the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import load_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("height,weight,label\\n1.5,0,1\\n0,2.5,-1\\n")
    >>> X, y = load_csv(path)
    >>> X.toarray(), y
    (array([[1.5, 0. ],
           [0. , 2.5]]), array([ 1., -1.]))
    >>> load_csv(path, label_column="height")[1]
    array([1.5, 0. ])
    """
    _check_layout(header, delimiter)
    path = os.fspath(path)
    buf = read_text(path)
    lines = _content_lines(buf)
    first = next(lines, None)
    if first is None:
        return sp.csr_matrix((0, 0)), None if label_column is None else np.empty(0)
    names = _header_names(_split_cells(buf, first, delimiter), header)
    skip_first = names is not None
    start = first[1] + 1 if skip_first else first[0]
    data_line = next(lines, None) if skip_first else first
    n_columns = len(names if data_line is None else _split_cells(buf, data_line, delimiter))
    label_column = _label_index(path, label_column, names, n_columns)
    if data_line is None:
        dense = np.empty((0, n_columns))
    else:
        # A bad cell on a first line that "auto" took for data may mean a header.
        hint_until = first[1] if header == "auto" and not skip_first else -1
        dense = _parse(buf, start, n_columns, ord(delimiter), path, hint_until, label_column)
    if label_column is None:
        return sp.csr_matrix(dense), None
    y = dense[:, label_column].copy()
    return sp.csr_matrix(np.delete(dense, label_column, axis=1)), y


def _parse(buf, start, n_columns, delimiter, path, hint_until, label_column):
    arr = np.frombuffer(buf, dtype=np.uint8)
    # Rows to allocate, from the data rather than the line count: at most one
    # per data line, and at most one per 2 * n_columns bytes, since a row holds
    # n_columns one-byte-or-longer cells, n_columns - 1 delimiters and a line
    # break. The parser writes the cells of a bad row before it fails; that row
    # follows only good ones, each of 2 * n_columns bytes or more, hence the +1.
    # The output so never exceeds 4 bytes per byte of text (+ one row).
    n_bytes = arr.size - start
    n_rows_max = min(K.count_data_lines(arr, start, arr.size), (n_bytes + 1) // (2 * n_columns) + 1)
    out = np.empty((n_rows_max, n_columns))
    counts = np.zeros(K.N_COUNTS, dtype=np.int64)
    fixups = K.parse_csv(
        arr, start, arr.size, delimiter, out, counts, np.empty((256, 4), dtype=np.int64)
    )
    fixups = fixups[: counts[C_FIXUPS]]
    values = apply_fixups(arr, buf, fixups, {FIX_DATA: out.reshape(-1)}, path, 0, what="cell")
    if label_column is not None:
        check_integer_labels(buf, fixups, values, fixups[:, 3] % n_columns == label_column, path, 0)
    code, pos = int(counts[C_STATUS]), int(counts[C_ERR_POS])
    if code == OK:
        return out[: counts[K.C_ROWS]]
    sep = bytes([delimiter])
    if code == K.E_EMPTY_CELL:
        message = "empty cell, expected a number"
    elif code == K.E_VALUE:
        hint = " (pass header=True if the first line is a header)" if pos < hint_until else ""
        message = number_message(token_at(buf, pos, sep), "cell", "a number", hint)
    else:
        line_start = buf.rfind(b"\n", 0, pos) + 1
        line_end = buf.find(b"\n", pos)
        found = buf[line_start : len(buf) if line_end < 0 else line_end].count(sep) + 1
        message = f"expected {n_columns} cells as on the first data line, found {found}"
    raise_at(message, path, buf, pos)
