"""Checks and conversions at the boundary between users' data and the kernels.

Kernels see CSR arrays in one canonical form: ``indptr`` int64, ``indices``
int32, ``data`` float64, no duplicate entries within a row. Everything is
checked here once, so that the compiled loops can trust their input; the one
exception is a CSR matrix handed as it is (:func:`unchecked_csr`) to a learning
pass that checks each row before it reads it.
"""

import warnings
from collections.abc import Mapping

import numpy as np

from ._kernels import _compiled
from ._labels import two_values
from ._lazy import LazyModule
from ._sparse import CSRRows, issparse
from .exceptions import DataConversionWarning

_rows = LazyModule("olearn._kernels._rows")


class CSRArrays:
    """A CSR matrix as the kernels take it.

    ``dense`` says that it came from a dense array (or DataFrame, or list of
    rows), whose width states every feature, and ``feature_names`` holds a
    DataFrame's column names when they are all strings (else None); see
    :meth:`olearn._learner.OnlineLearner._check_X`. ``new_names`` lists the
    ``(name, column)`` pairs that a batch of named examples adds to the
    learner's vocabulary once it is learned (None when none). ``unchecked``
    says that the entries were not checked (:func:`unchecked_csr`): only a
    pass that checks each row before reading it may take them.
    """

    __slots__ = ("indptr", "indices", "data", "n_rows", "n_features", "dense", "feature_names", "new_names",
                 "unchecked")

    def __init__(self, indptr, indices, data, n_rows, n_features, dense=False, feature_names=None, new_names=None,
                 unchecked=False):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.n_rows = n_rows
        self.n_features = n_features
        self.dense = dense
        self.feature_names = feature_names
        self.new_names = new_names
        self.unchecked = unchecked


def _first_nonfinite_dense(X):
    row, col = np.argwhere(~np.isfinite(X))[0]
    return int(row), int(col), X[row, col]


def _row_of(indptr, k):
    return int(np.searchsorted(indptr, k, side="right") - 1)


# CSR column indices travel as int32 to the kernels
INDEX_LIMIT = np.iinfo(np.int32).max


def _unsigned_columns(indices, n_columns):
    """(the column indices as signed integers, read as unsigned, and the bound below which they are in range).

    A signed index ``j`` is in ``[0, n_columns)`` exactly when, read as an
    unsigned integer of its width, it is below ``min(n_columns, 2**(bits - 1))``:
    a negative one reads as ``2**(bits - 1)`` or more. (Unsigned indices are
    read as int64 first: the bound of their own type could not exceed their
    largest value.)
    """
    if indices.dtype.kind == "u":
        indices = indices.astype(np.int64)
    unsigned = np.dtype(f"u{indices.dtype.itemsize}")
    columns = np.ascontiguousarray(indices).view(unsigned)
    return columns, unsigned.type(min(n_columns, 2 ** (8 * unsigned.itemsize - 1)))


def _check_csr(X, name):
    """The arrays of the scipy CSR matrix ``X``, checked to be what the kernels trust; raises ValueError.

    The structure (lengths, pointers, column range) is checked before the
    values, since the values' positions are read through it.
    """
    n_rows, n_columns = X.shape
    indptr, indices, data = np.asarray(X.indptr), np.asarray(X.indices), np.asarray(X.data)
    for array, what in ((indptr, "indptr"), (indices, "indices")):
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise ValueError(f"{name}.{what} must be a 1-d array of integers; got dtype {array.dtype}, shape {array.shape}")
    if data.ndim != 1 or data.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {data.dtype}; expected real numbers")
    if indptr.size != n_rows + 1:
        raise ValueError(f"{name}.indptr has {indptr.size} entries; a CSR matrix of {n_rows} rows needs {n_rows + 1}")
    if indptr[0] != 0:
        raise ValueError(f"{name}.indptr starts at {indptr[0]}; expected 0")
    if not indptr[-1] == indices.size == data.size:
        raise ValueError(
            f"{name} has indptr[-1]={indptr[-1]}, {indices.size} column indices and {data.size} values; "
            "the three must be equal"
        )
    with np.errstate(over="ignore"):
        values = np.ascontiguousarray(data, dtype=np.float64)
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    columns, width = _unsigned_columns(indices, n_columns)
    summary = _compiled.csr_summary(indptr, indices, columns, width, values, n_columns)
    bad_pointer, bad_index, bad_value, increasing = summary
    if bad_pointer >= 0:
        raise ValueError(
            f"{name}.indptr decreases at row {bad_pointer - 1} ({indptr[bad_pointer - 1]} then "
            f"{indptr[bad_pointer]}); expected non-decreasing row pointers"
        )
    if bad_index >= 0:
        raise ValueError(
            f"{name} has column index {indices[bad_index]} at row {_row_of(indptr, bad_index)}; expected indices "
            f"in [0, {n_columns}) for its {n_columns} columns"
        )
    if bad_value >= 0:
        raise ValueError(
            f"{name} contains {data[bad_value]} at row {_row_of(indptr, bad_value)}, column {indices[bad_value]}; "
            "expected finite values"
        )
    if indices.size and n_columns > INDEX_LIMIT and indices.max() >= INDEX_LIMIT:
        raise ValueError(
            f"{name} has column index {indices.max()}; olearn takes column indices below 2**31 - 1 "
            "(hash the features into fewer indices)"
        )
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    if not increasing:
        # unsorted or duplicate indices: duplicates would count twice in ||x||^2, so
        # they are summed (and the indices sorted), as scipy's sum_duplicates does
        import scipy.sparse as sp

        merged = sp.csr_matrix((values, indices, indptr), shape=(n_rows, max(n_columns, 1)), copy=True)
        merged.sum_duplicates()
        indptr = np.ascontiguousarray(merged.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(merged.indices, dtype=np.int32)
        values = np.ascontiguousarray(merged.data, dtype=np.float64)
        if not np.isfinite(values).all():
            k = int(np.flatnonzero(~np.isfinite(values))[0])
            raise ValueError(
                f"{name}: the duplicate entries at row {_row_of(indptr, k)}, column {indices[k]} sum to "
                f"{values[k]}; expected finite values"
            )
    return CSRArrays(indptr, indices, values, n_rows, n_columns)


def unchecked_csr(X):
    """The arrays of the CSR matrix ``X`` (scipy's, or ``CSRRows``) as they are, entries unchecked; None when they
    cannot be so taken.

    For a learning pass that checks each row before it reads it
    (:func:`olearn._kernels._rows.canonical_row`): the row pointers, the
    column range, the order of the indices within a row and the values'
    finiteness, all that :func:`check_X` checks of a matrix already in the
    kernels' types, so that the arrays are read once instead of twice. Taken
    when ``X`` is a CSR matrix of ``n_rows + 1`` row pointers (copied to
    int64, O(rows)), contiguous int32 column indices and float64 values, and
    fewer than 2**31 - 1 columns; anything else is None, for :func:`check_X`.
    A pass that stops at a row leaves the whole batch to :func:`check_X`,
    which names what is wrong or puts the rows in canonical form.
    """
    if not ((issparse(X) or isinstance(X, CSRRows)) and X.format == "csr" and X.ndim == 2):
        return None
    n_rows, n_columns = X.shape
    indptr, indices, data = X.indptr, X.indices, X.data
    for array, dtype in ((indices, np.int32), (data, np.float64)):
        if not (isinstance(array, np.ndarray) and array.dtype == dtype and array.ndim == 1
                and array.flags.c_contiguous and array.flags.aligned):
            return None
    if not (isinstance(indptr, np.ndarray) and indptr.dtype.kind == "i" and indptr.shape == (n_rows + 1,)):
        return None
    if n_columns >= INDEX_LIMIT:
        return None
    return CSRArrays(np.ascontiguousarray(indptr, dtype=np.int64), indices, data, n_rows, n_columns, unchecked=True)


def _complex_error(name):
    # scikit-learn's checks look for its wording
    return ValueError(f"Complex data not supported: {name} holds complex numbers; expected real numbers")


def feature_names(X):
    """A DataFrame's column names as an array of str, or None when they are not all strings.

    Names of mixed types are refused, as scikit-learn refuses them: some
    columns could not be matched by name.
    """
    columns = getattr(X, "columns", None)
    if columns is None or issparse(X) or isinstance(X, (np.ndarray, CSRRows)):
        return None
    names = np.asarray(columns, dtype=object)
    is_str = np.array([isinstance(c, str) for c in names], dtype=bool)
    if is_str.all() and names.size:
        return names
    if is_str.any():
        kinds = sorted({type(c).__name__ for c in names})
        raise TypeError(
            f"X's column names have the types {kinds}; olearn, as scikit-learn, uses column names only when all "
            "are strings. Convert them all to str (X.columns = X.columns.astype(str)) or use none"
        )
    return None


def check_X(X, name="X"):
    """Return a :class:`CSRArrays` for dense or sparse 2-d input, or raise ValueError.

    A scipy sparse matrix (or the :class:`~olearn._sparse.CSRRows` of a file
    the command line read) is checked for what the kernels assume: ``indptr``
    of ``n_rows + 1`` non-decreasing pointers from 0 to the number of entries,
    column indices in ``[0, n_columns)`` (and below 2**31 - 1), and real,
    finite values. Duplicate entries of a row are summed and unsorted indices
    sorted (as scipy's ``sum_duplicates`` does). Errors name the first bad
    entry by row and column. Complex numbers are refused; an object array is
    read as numbers (TypeError for an entry that is not one, as NumPy says).
    """
    if issparse(X) or isinstance(X, CSRRows):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-d (n_samples, n_features); got shape {X.shape}")
        if X.dtype.kind == "c":
            raise _complex_error(name)
        if X.format != "csr":
            if X.dtype.kind not in "biuf":
                raise ValueError(f"{name} has dtype {X.dtype}; expected real numbers")
            X = X.tocsr()
        return _check_csr(X, name)
    names = feature_names(X)
    try:
        X = np.asarray(X)
        if X.dtype.kind == "c":
            raise _complex_error(name)
        X = X.astype(np.float64, copy=False)
    except TypeError as err:
        raise TypeError(f"{name} could not be read as an array of numbers: {err}") from None
    except OverflowError as err:
        raise ValueError(f"{name} could not be read as an array of numbers: {err}") from None
    except ValueError as err:
        if str(err).startswith("Complex data"):
            raise
        if "complex" in str(err):
            raise _complex_error(name) from None
        raise ValueError(f"{name} could not be read as an array of numbers: {err}") from None
    if X.ndim != 2:
        hint = ""
        if X.ndim == 1:
            hint = (" Reshape your data either using array.reshape(-1, 1) if your data has a single feature or "
                    "array.reshape(1, -1) if it contains a single sample (one example: use predict_one).")
        raise ValueError(f"{name} must be 2-d (n_samples, n_features); got shape {X.shape}.{hint}")
    if not np.isfinite(X).all():
        row, col, value = _first_nonfinite_dense(X)
        shown = "NaN" if np.isnan(value) else value
        raise ValueError(f"{name} contains {shown} at row {row}, column {col}; expected finite values")
    # the non-zeros row by row, each row's in column order (as scipy.sparse.csr_matrix(X) keeps them; -0.0 is
    # a zero for both), without importing scipy
    rows, columns = np.nonzero(X)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return CSRArrays(
        indptr,
        columns.astype(np.int32),
        np.ascontiguousarray(X[rows, columns], dtype=np.float64),
        X.shape[0],
        X.shape[1],
        dense=True,
        feature_names=names,
    )


def check_fit_size(X, name="X"):
    """Refuse to fit on no rows or no columns (with scikit-learn's words); cheap for arrays and matrices.

    Learning from an empty batch is a no-op for ``partial_fit``, but ``fit``
    would leave a model that learned nothing and is reported as fitted.
    """
    # a list is not converted here (fit converts it once, later): its length is its number of rows
    shape = tuple(X.shape) if hasattr(X, "shape") else (len(X),) if hasattr(X, "__len__") else (1,)
    if len(shape) < 1 or shape[0] == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={tuple(shape)}) while a minimum of 1 is required; "
                         f"{name} has no rows to learn from")
    if len(shape) == 2 and shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required; "
                         f"{name} has no columns to learn from")


def seen_row(indices, data, n_seen):
    """The entries of one row whose index is below ``n_seen``.

    A feature a learner has not seen has no weight yet, so it contributes 0
    to a score: prediction drops it instead of allocating weights for it.
    """
    if indices.size and indices.max() >= n_seen:
        keep = indices < n_seen
        return indices[keep], data[keep]
    return indices, data


def seen_columns(arrays, n_seen, sink=False):
    """``arrays`` (a :class:`CSRArrays`) without the columns at or past ``n_seen`` (see :func:`seen_row`).

    With ``sink`` those entries are kept but moved to the one column
    ``n_seen`` instead (a kernel learner still needs them in ``||x||^2``).
    The indices come back as int32, the kernels' type.
    """
    indices = arrays.indices
    if arrays.n_features <= n_seen:
        return CSRArrays(arrays.indptr, indices.astype(np.int32, copy=False), arrays.data, arrays.n_rows,
                         arrays.n_features)
    unseen = indices >= n_seen
    if not unseen.any():
        return CSRArrays(arrays.indptr, indices.astype(np.int32, copy=False), arrays.data, arrays.n_rows, n_seen)
    if sink:
        return CSRArrays(arrays.indptr, np.where(unseen, n_seen, indices).astype(np.int32), arrays.data,
                         arrays.n_rows, n_seen + 1)
    kept = np.concatenate(([0], np.cumsum(~unseen)))
    return CSRArrays(kept[arrays.indptr], indices[~unseen].astype(np.int32), arrays.data[~unseen], arrays.n_rows,
                     n_seen)


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
        if indices.dtype.kind == "u":
            if indices.size and indices.max() > np.iinfo(np.int64).max:
                raise ValueError(f"feature index {int(indices.max())} is too large; expected indices below 2**63")
            indices = indices.astype(np.int64)
        try:
            data = np.fromiter(x.values(), dtype=np.float64, count=indices.size)
        except (TypeError, ValueError, OverflowError) as err:
            raise ValueError(f"a feature's value is not a real number: {err}") from None
        low, high, bad = _rows.row_summary(indices, data)
        if low < 0:
            raise ValueError(f"feature index {low} is negative; expected indices >= 0")
        if bad >= 0:
            raise ValueError(f"feature {int(indices[bad])} has value {data[bad]}; expected a finite number")
        return indices, data, int(high) + 1
    if issparse(x) or isinstance(x, CSRRows):
        if x.shape[0] != 1:
            raise ValueError(f"a sparse example must have one row; got shape {x.shape}")
        arrays = check_X(x, name="x")
        return arrays.indices, arrays.data, arrays.n_features
    x = dense_row(x)
    indices = np.flatnonzero(x).astype(np.int32)
    return indices, x[indices], x.size


def dense_row(x):
    """The example ``x`` (neither a dict nor sparse) as a 1-d float64 array of finite values; ValueError otherwise."""
    try:
        x = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"an example must be a dict, a 1-d array or a sparse row of numbers: {err}") from None
    if x.ndim != 1:
        raise ValueError(f"an example must be a dict, a 1-d array or a sparse row; got an array of shape {x.shape}")
    if not np.isfinite(x).all():
        k = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"feature {k} has value {x[k]}; expected a finite number")
    return x


def _is_index(key):
    return isinstance(key, (int, np.integer)) and key >= 0


def _one_per_row(y, n_rows, name, what):
    """y as a 1-d array (a single column is flattened, with a warning) with one entry per row of X."""
    if y is None:
        raise ValueError(
            f"{name} is missing: this learner needs one of its {what} per row of X (it requires y to be passed, "
            f"but the target {name} is None)"
        )
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            DataConversionWarning(
                f"A column-vector y was passed when a 1d array was expected: {name} of shape {y.shape} is read as "
                f"{y.shape[0]} {what}; pass a 1-d array (y.ravel()) to silence this warning"
            ),
            stacklevel=4,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-d; got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but {name} has {y.shape[0]} {what}")
    return y


def _first_fraction(y):
    """The row of the first of finite float labels that is not a whole number, or None.

    The labels of a binary batch hold two values, checked alone (a rounded
    copy of a long batch costs more than the rest of its checks).
    """
    values = two_values(y) if y.size else y
    if values is not None and (values == np.round(values)).all():
        return None
    fractional = y != np.round(y)
    return int(np.flatnonzero(fractional)[0]) if fractional.any() else None


def check_y(y, n_rows, name="y"):
    """Return y as a 1-d array with one label per row."""
    y = _one_per_row(y, n_rows, name, "labels")
    if y.dtype.kind == "c":
        raise _complex_error(name)
    if y.dtype.kind == "f":
        if not np.isfinite(y).all():
            k = int(np.flatnonzero(~np.isfinite(y))[0])
            raise ValueError(f"{name} contains {y[k]} at row {k}; expected a class label")
        k = _first_fraction(y)
        if k is not None:
            # scikit-learn's word for such a target, which its checks look for
            raise ValueError(
                f"Unknown label type: continuous. {name} has {y[k]} at row {k}; class labels given as floats must "
                "be whole numbers (a real-valued target needs a regressor, e.g. PARegressor)"
            )
    return y


def check_label(y, name="y"):
    """The label of one example as a 1-d array of one label; a sequence (a batch's labels) is refused."""
    try:
        scalar = np.ndim(y) == 0
    except ValueError:  # a ragged sequence
        scalar = False
    if not scalar:
        raise ValueError(f"{name} must be the label of one example; got a {type(y).__name__} of shape {np.shape(y)}"
                         if isinstance(y, np.ndarray) else
                         f"{name} must be the label of one example; got a {type(y).__name__} of labels")
    return check_y([y], 1, name)


def check_targets(y, n_rows, name="y"):
    """Return regression targets as a finite 1-d float64 array with one value per row."""
    y = _one_per_row(y, n_rows, name, "targets")
    if y.dtype.kind == "c":
        raise _complex_error(name)
    if y.dtype.kind == "O":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{name} must hold real numbers (regression targets): {err}") from None
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
