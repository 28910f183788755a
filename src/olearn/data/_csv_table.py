"""CSV tables with text columns: every text column's values are categories, one-hot as ``name=value``.

:func:`load_csv` reads numeric files with a compiled parser; a real table
also holds columns of words (a city, a product code). Here such a column is
read as categories: its value ``paris`` in the column ``city`` is the feature
``city=paris`` of value 1, the one-hot naming of the learners' dicts and of
Vowpal Wabbit. The names map to columns through a
:class:`~olearn._features.FeatureMap` vocabulary, the one the learners use for
dicts, so that a model keeps the names of its columns and a later file's
categories land in the same columns (a category it never learned counts 0).
"""

import math
import os

import scipy.sparse as sp

from olearn._features import FeatureMap
from olearn.exceptions import DataFormatError

from ._csv import _check_layout, _content_lines, _header_names, _is_number, _label_index, _split_cells
from ._errors import shorten
from ._io import read_text


def _table(path, label_column, delimiter):
    """(header or None, label column 0-based or None, [(line number, cells)] of the data lines) of a CSV file."""
    _check_layout("auto", delimiter)
    path = os.fspath(path)
    buf = read_text(path)
    lines = []
    for start, stop in _content_lines(buf):
        number = buf.count(b"\n", 0, start) + 1
        lines.append((number, _split_cells(buf, (start, stop), delimiter)))
    if not lines:
        return None, None, []
    names = _header_names(lines[0][1], "auto")
    rows = lines if names is None else lines[1:]
    n_columns = len(lines[0][1])
    label_column = _label_index(path, label_column, names, n_columns)
    for number, cells in rows:
        if len(cells) != n_columns:
            raise DataFormatError(f"expected {n_columns} cells as on the first line, found {len(cells)}", path,
                                  number)
    return names, label_column, rows


def csv_text_columns(path, label_column=-1, delimiter=","):
    """The columns (0-based) of a CSV file's data lines that hold text: a cell neither empty nor a number.

    Empty when every cell is a number (:func:`load_csv` reads the file). The
    label column is not a feature and is left out.
    """
    _, label, rows = _table(path, label_column, delimiter)
    return [k for k in _text_columns(rows) if k != label]


def _text_columns(rows):
    text = set()
    for _, cells in rows:
        for k, cell in enumerate(cells):
            if k not in text and cell and not _is_number(cell):
                text.add(k)
    return sorted(text)


def load_csv_table(path, label_column=-1, delimiter=",", feature_map=None, learning=True):
    """Load a CSV table whose text columns are categories: ``(X, y, feature_map)``.

    The first line is a header naming the columns (required: the names of the
    one-hot features come from it). A column holding a cell that is not a
    number is a text column, for the whole file: its value ``v`` in column
    ``name`` is the feature ``name=v`` of value 1, and an empty cell is no
    category (the row has none of that column's features). Every other
    column is numeric: its cells are finite numbers, an empty cell being an
    error, as in :func:`load_csv`. The label column holds numbers.

    The columns of X are those of ``feature_map`` (a vocabulary
    :class:`~olearn._features.FeatureMap`; a new one if None): with
    ``learning`` a name seen for the first time takes the next column, so a
    fresh map gives the numeric columns and categories in the order the file
    first shows them; without, a name the map does not hold is left out (a
    category never learned counts 0). X has at least one column per name of
    the map, so every file read through one map has the same width.

    Raises
    ------
    olearn.exceptions.DataFormatError
        Naming file and line: no header line, a label that is not a number,
        an empty or non-finite numeric cell, a line of another number of cells.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import load_csv_table
    >>> path = os.path.join(tempfile.mkdtemp(), "table.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("age,city,label\\n31,paris,1\\n45,lyon,-1\\n")
    >>> X, y, features = load_csv_table(path)
    >>> X.toarray(), y, features.vocabulary()
    (array([[31.,  1.,  0.],
           [45.,  0.,  1.]]), array([ 1., -1.]), {'age': 0, 'city=paris': 1, 'city=lyon': 2})
    """
    import numpy as np

    path = os.fspath(path)
    names, label, rows = _table(path, label_column, delimiter)
    if names is None:
        where = rows[0][0] if rows else 1
        raise DataFormatError("a CSV table with text columns needs a header line naming its columns (the one-hot "
                              "features are named column=value)", path, where)
    text = set(_text_columns(rows))
    if label in text:
        number, cell = next((n, c[label]) for n, c in rows if c[label] and not _is_number(c[label]))
        raise DataFormatError(f"the label column {label + 1} ({names[label]!r}) holds {shorten(cell)!r}, not a "
                              "number", path, number)
    fm = FeatureMap() if feature_map is None else feature_map
    examples, y = [], np.empty(len(rows)) if label is not None else None
    for i, (number, cells) in enumerate(rows):
        x = {}
        for k, cell in enumerate(cells):
            if k in text:
                x[names[k]] = cell or None
                continue
            value = _number(cell, path, number, f"column {k + 1} ({names[k]!r})")
            if k == label:
                y[i] = value
            else:
                x[names[k]] = value
        examples.append(x)
    indptr, indices, data, width, new = fm.rows(examples, 0, learning, name=path)
    X = sp.csr_matrix((data, indices, indptr), shape=(len(rows), max(width, fm.size)))
    return X, y, fm


def _number(cell, path, line, column):
    if not cell:
        raise DataFormatError(f"{column}: empty cell, expected a number (only a text column may leave a cell "
                              "empty)", path, line)
    value = float(cell)
    if not math.isfinite(value):
        raise DataFormatError(f"{column}: cell must be finite, found {shorten(cell)!r}", path, line)
    return value
