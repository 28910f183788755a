"""A batch (array, sparse matrix, list of dicts, DataFrame) as (indptr, indices, data) rows of a FeatureMap's columns.

The transformers and the pipelines read every kind of batch through
:func:`batch_rows`, once, at the boundary: a dense row holds all its entries
(zeros included), a sparse row its stored entries, a dict its keys. Named
features take their columns from the caller's :class:`~olearn._features.FeatureMap`,
and are named back by :func:`column_key` and :func:`rows_of`.
"""

import numpy as np
import scipy.sparse as sp

from ._sparse import CSRRows
from ._validation import check_X


class Batch:
    """CSR rows over a FeatureMap's columns, and what the batch was (to give back the same kind)."""

    __slots__ = ("indptr", "indices", "data", "n_rows", "n_features", "kind", "columns", "index")

    def __init__(self, indptr, indices, data, n_rows, n_features, kind, columns=None, index=None):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.n_rows = n_rows
        self.n_features = n_features
        # "dense", "sparse", "dicts" or "frame"; a dense frame's columns and index give its output the same labels
        self.kind = kind
        self.columns = columns
        self.index = index


def _is_frame(X):
    return hasattr(X, "columns") and hasattr(X, "iloc") and not isinstance(X, np.ndarray)


def batch_rows(fm, X, base, name="X"):
    """The rows of ``X`` as a :class:`Batch`; names new to ``fm`` are added to it (the caller truncates on refusal).

    ``base`` is the caller's first free column (see :meth:`FeatureMap.row`).
    Errors name the row (and the feature) at fault.
    """
    if sp.issparse(X) or isinstance(X, CSRRows):  # CSRRows: the rows of a file, as the command line reads them
        arrays = check_X(X, name)
        return Batch(arrays.indptr, arrays.indices.astype(np.int64), arrays.data, arrays.n_rows,
                     arrays.n_features, "sparse")
    if _is_frame(X):
        return _frame_rows(fm, X, base, name)
    if isinstance(X, np.ndarray) or (isinstance(X, (list, tuple)) and X and not isinstance(X[0], dict)):
        values = _dense(X, name)
        n_rows, width = values.shape
        return Batch(np.arange(n_rows + 1, dtype=np.int64) * width, np.tile(np.arange(width, dtype=np.int64), n_rows),
                     values.ravel(), n_rows, width, "dense")
    try:
        rows = list(X)
    except TypeError:
        raise TypeError(
            f"{name} must be a 2-d array, a sparse matrix, a DataFrame or a list of dicts; got {type(X).__name__}"
        ) from None
    return _dict_rows(fm, rows, base, name)


def _dense(X, name):
    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"{name} could not be read as an array of numbers: {err}") from None
    if values.ndim != 2:
        raise ValueError(f"{name} must be 2-d (n_samples, n_features); got shape {values.shape}")
    if not np.isfinite(values).all():
        row, column = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(
            f"{name} has value {values[row, column]} at row {row}, column {column}; expected finite values"
        )
    return np.ascontiguousarray(values)


def _dict_rows(fm, rows, base, name):
    # the names of each row are added before the next row is read, so a name has one column in the batch
    indptr, indices, data, width, _ = fm.rows(rows, base, learning=True, name=name)
    return Batch(indptr, indices, data, len(rows), width, "dicts")


def _frame_rows(fm, X, base, name):
    columns = list(X.columns)
    kinds = [dtype.kind for dtype in X.dtypes]
    if all(kind in "biuf" for kind in kinds):
        # every column numeric: one conversion of the names, then the values as one array
        try:
            header = fm.row(dict.fromkeys(columns, 0.0), base=base, learning=True)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{name}'s columns: {err}") from None
        if header[3]:
            fm.add(header[3])
        if len(set(header[0].tolist())) != len(columns) or header[0].size != len(columns):
            raise ValueError(f"{name}'s columns {columns!r:.200} do not name distinct features")
        values = X.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            row, column = np.argwhere(~np.isfinite(values))[0]
            raise ValueError(
                f"{name} has value {values[row, column]} at row {X.index[row]!r}, column {columns[column]!r}; "
                "expected finite values"
            )
        n_rows, width = values.shape
        indptr = np.arange(n_rows + 1, dtype=np.int64) * width
        return Batch(indptr, np.tile(header[0], n_rows), values.ravel(), n_rows, header[2], "frame",
                     columns=X.columns, index=X.index)
    # columns of categories (or of mixed kinds): row by row, as dicts (a missing number is NaN, and refused)
    batch = _dict_rows(fm, X.to_dict("records"), base, name)
    batch.kind = "frame"
    batch.index = X.index
    return batch


def rows_of(batch, data, fm):
    """The rows of ``batch`` with the values ``data`` as dicts keyed as the features were: names, else columns."""
    out = []
    indptr, indices = batch.indptr, batch.indices
    names = [fm.name_of(j) for j in range(batch.n_features)]
    keys = [j if name is None else name for j, name in enumerate(names)]
    for i in range(batch.n_rows):
        lo, hi = indptr[i], indptr[i + 1]
        out.append({keys[j]: v for j, v in zip(indices[lo:hi].tolist(), data[lo:hi].tolist())})
    return out


def column_key(fm, new, column):
    """The key of ``column`` as the example named it: a name (``new``: the names the example brings, not yet in
    ``fm``, as (name, column) pairs), else the column index."""
    column = int(column)
    if new:
        for name, j in new:
            if j == column:
                return name
    name = fm.name_of(column)
    return column if name is None else name
