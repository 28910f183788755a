"""Checks and conversions at the boundary between users' data and the kernels.

Kernels see CSR arrays in one canonical form: ``indptr`` int64, ``indices``
int32, ``data`` float64, no duplicate entries within a row. Everything is
checked here once, so that the compiled loops can trust their input.
"""

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ._kernels._rows import csr_summary, row_summary


class CSRArrays:
    """A CSR matrix as the kernels take it."""

    __slots__ = ("indptr", "indices", "data", "n_rows", "n_features")

    def __init__(self, indptr, indices, data, n_rows, n_features):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.n_rows = n_rows
        self.n_features = n_features


def _first_nonfinite_dense(X):
    row, col = np.argwhere(~np.isfinite(X))[0]
    return int(row), int(col), X[row, col]


def _first_nonfinite_csr(X):
    k = int(np.flatnonzero(~np.isfinite(X.data))[0])
    row = int(np.searchsorted(X.indptr, k, side="right") - 1)
    return row, int(X.indices[k]), X.data[k]


def check_X(X, name="X"):
    """Return a :class:`CSRArrays` for dense or sparse 2-d input.

    Raises ValueError naming the first NaN or infinite entry by row and column.
    """
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} has dtype {X.dtype}; expected real numbers")
        bad, increasing = csr_summary(X.indptr, X.indices, X.data)
        if bad >= 0:
            row, col, value = _first_nonfinite_csr(X)
            raise ValueError(f"{name} contains {value} at row {row}, column {col}; expected finite values")
        if not increasing:
            # duplicates would count twice in ||x||^2; scipy merges (and sorts) them
            X = X.copy()
            X.sum_duplicates()
    else:
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name} could not be read as an array of numbers: {err}") from None
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-d (n_samples, n_features); got shape {X.shape}")
        if not np.isfinite(X).all():
            row, col, value = _first_nonfinite_dense(X)
            raise ValueError(f"{name} contains {value} at row {row}, column {col}; expected finite values")
        X = sp.csr_matrix(X)
    return CSRArrays(
        np.ascontiguousarray(X.indptr, dtype=np.int64),
        np.ascontiguousarray(X.indices, dtype=np.int32),
        np.ascontiguousarray(X.data, dtype=np.float64),
        X.shape[0],
        X.shape[1],
    )


def check_row(x):
    """Return (indices, data, n_features) for one example.

    ``x`` is a dict ``{feature_index: value}`` (0-based integer column
    indices), a 1-d array, or a sparse matrix with one row; ``n_features`` is
    one more than the largest index present. Zero values of a dict are kept
    (they cost nothing and change nothing). ``True`` and ``False``, being
    Python integers, are the indices 1 and 0. This runs once per example, so the
    checks of a dict's keys and values are made by one compiled pass.
    """
    if type(x) is dict or isinstance(x, Mapping):
        try:
            indices = np.array(list(x))
        except ValueError:
            indices = np.empty(0, dtype=object)
        if indices.dtype.kind not in "iu" or indices.ndim != 1:
            if not x:
                return np.empty(0, dtype=np.int64), np.empty(0), 0
            bad = [k for k in x if not _is_index(k)]
            if not bad:
                raise ValueError(f"a feature index is too large: the largest is {max(x)}")
            bad = bad[0]
            raise ValueError(
                f"feature {bad!r} is not an integer index; dict examples map 0-based column "
                "indices to values (hash named features first, e.g. with olearn.data.load_vw)"
            )
        data = np.fromiter(x.values(), dtype=np.float64, count=indices.size)
        low, high, bad = row_summary(indices, data)
        if low < 0:
            raise ValueError(f"feature index {low} is negative; expected indices >= 0")
        if bad >= 0:
            raise ValueError(f"feature {int(indices[bad])} has value {data[bad]}; expected a finite number")
        return indices, data, int(high) + 1
    if sp.issparse(x):
        if x.shape[0] != 1:
            raise ValueError(f"a sparse example must have one row; got shape {x.shape}")
        arrays = check_X(x, name="x")
        return arrays.indices, arrays.data, arrays.n_features
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"an example must be a dict, a 1-d array or a sparse row; got an array of shape {x.shape}")
    if not np.isfinite(x).all():
        k = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"feature {k} has value {x[k]}; expected a finite number")
    indices = np.flatnonzero(x).astype(np.int32)
    return indices, x[indices], x.size


def _is_index(key):
    return isinstance(key, (int, np.integer)) and key >= 0


def _one_per_row(y, n_rows, name, what):
    """y as a 1-d array (a single column is flattened) with one entry per row of X."""
    if y is None:
        raise ValueError(f"{name} is missing: this learner needs one of its {what} per row of X")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-d; got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but {name} has {y.shape[0]} {what}")
    return y


def check_y(y, n_rows, name="y"):
    """Return y as a 1-d array with one label per row."""
    y = _one_per_row(y, n_rows, name, "labels")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        k = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"{name} contains {y[k]} at row {k}; expected a class label")
    return y


def check_targets(y, n_rows, name="y"):
    """Return regression targets as a finite 1-d float64 array with one value per row."""
    y = _one_per_row(y, n_rows, name, "targets")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers (regression targets); got dtype {y.dtype}")
    return check_vector(y, name, position="row")


def check_vector(values, name="v", position=None, offset=0):
    """A finite, contiguous 1-d float64 vector.

    The first bad entry is named as ``name[k]``, or, with ``position`` (e.g.
    "row", "round"), as ``name has <value> at <position> <offset + k>``.
    """
    try:
        vector = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} could not be read as a vector of numbers: {err}") from None
    if vector.ndim != 1:
        raise ValueError(f"{name} must be 1-d; got shape {vector.shape}")
    if not np.isfinite(vector).all():
        k = int(np.flatnonzero(~np.isfinite(vector))[0])
        if position is None:
            where = f"{name}[{k}] is {vector[k]}"
        else:
            where = f"{name} has {vector[k]} at {position} {offset + k}"
        raise ValueError(f"{where}; expected a finite number")
    return np.ascontiguousarray(vector)
