"""``olearn._sparse``: the scipy test that imports no scipy, the parsed rows (``CSRRows``) the command line learns
from, and the dense input that ``check_X`` turns into CSR arrays without scipy."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import PAClassifier, run
from olearn._sparse import CSRRows, issparse
from olearn._validation import check_X
from olearn.data import iter_libsvm, load_libsvm
from olearn.data._libsvm import iter_libsvm_rows


def canonical_csr(n_rows, n_columns, density, seed):
    X = sp.random(n_rows, n_columns, density=density, format="csr", random_state=seed)
    X.sum_duplicates()
    return X


def rows_of(X):
    return CSRRows(X.data, X.indices, X.indptr, X.shape)


def test_issparse_loads_no_scipy_and_answers_as_scipy():
    code = ("import sys, numpy as np; from olearn._sparse import issparse; "
            "print(issparse(np.eye(2)), issparse([[1.0]]), 'scipy.sparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False"]
    for X in (sp.csr_matrix(np.eye(2)), sp.csc_array(np.eye(2)), sp.coo_matrix(np.eye(2))):
        assert issparse(X)
    assert not issparse(np.eye(2)) and not issparse(rows_of(sp.csr_matrix(np.eye(2))))


@pytest.mark.parametrize("key", [slice(None), slice(0, 3), slice(2, 9), slice(5, 5), slice(7, 2), slice(-4, None),
                                 slice(3, 100), slice(-100, 2), slice(None, -1), slice(0, 9, 1)])
def test_a_slice_of_rows_is_scipys_slice_and_a_view(key):
    X = canonical_csr(9, 13, 0.4, seed=3)
    part = rows_of(X)[key]
    expected = X[key]
    assert isinstance(part, CSRRows) and part.shape == expected.shape
    assert part.indptr[0] == 0 and part.nnz == expected.nnz
    np.testing.assert_array_equal(part.tocsr().toarray(), expected.toarray())
    if part.nnz:
        assert np.shares_memory(part.data, X.data) and np.shares_memory(part.indices, X.indices)


@pytest.mark.parametrize("key", [slice(0, 9, 2), [4, 1, 1], np.array([True, False] * 4 + [True])])
def test_any_other_index_is_applied_to_the_scipy_matrix(key):
    X = canonical_csr(9, 13, 0.4, seed=4)
    part = rows_of(X)[key]
    assert issparse(part)
    np.testing.assert_array_equal(part.toarray(), X[key].toarray())


def test_tocsr_views_or_copies_the_arrays():
    X = canonical_csr(6, 8, 0.5, seed=5)
    rows = rows_of(X)
    view, copy = rows.tocsr(), rows.tocsr(copy=True)
    assert view.has_canonical_format and np.shares_memory(view.data, X.data)
    assert not np.shares_memory(copy.data, X.data)
    np.testing.assert_array_equal(copy.toarray(), X.toarray())
    assert rows.format == "csr" and rows.ndim == 2 and rows.dtype == np.float64 and rows.nnz == X.nnz


def test_check_X_reads_the_rows_as_the_scipy_matrix_of_the_same_arrays():
    X = canonical_csr(40, 30, 0.2, seed=6)
    arrays, expected = check_X(rows_of(X)), check_X(X)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(arrays, name), getattr(expected, name))
    assert (arrays.n_rows, arrays.n_features, arrays.dense) == (40, 30, False)


@pytest.mark.parametrize("damage", ["index", "value", "pointer"])
def test_damaged_rows_are_refused_with_the_scipy_matrix_words(damage):
    X = canonical_csr(10, 6, 0.5, seed=7)
    data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
    if damage == "index":
        indices[-1] = 6
    elif damage == "value":
        data[3] = np.nan
    else:
        indptr[4], indptr[5] = indptr[5], indptr[4] - 1
    with pytest.raises(ValueError) as from_rows:
        check_X(CSRRows(data, indices, indptr, X.shape))
    with pytest.raises(ValueError) as from_scipy:
        check_X(sp.csr_matrix((data, indices, indptr), shape=X.shape))
    assert str(from_rows.value) == str(from_scipy.value)


@pytest.mark.parametrize("order", ["C", "F"])
def test_dense_input_becomes_scipys_csr_arrays(order):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30, 12)) * (rng.random((30, 12)) < 0.3)
    X[2, 5], X[7] = -0.0, 0.0  # a negative zero is a zero, and a row may have none but zeros
    X = np.asarray(X, order=order)
    arrays, expected = check_X(X), sp.csr_matrix(X)
    np.testing.assert_array_equal(arrays.indptr, expected.indptr)
    np.testing.assert_array_equal(arrays.indices, expected.indices)
    np.testing.assert_array_equal(arrays.data, expected.data)
    assert arrays.indptr.dtype == np.int64 and arrays.indices.dtype == np.int32 and arrays.dense
    empty = check_X(np.empty((0, 4)))
    assert empty.indptr.tolist() == [0] and empty.indices.size == 0 and empty.n_features == 4


def test_the_command_lines_chunks_hold_the_readers_rows(tmp_path):
    path = tmp_path / "train.svm"
    rng = np.random.default_rng(9)
    lines = [f"{rng.choice([-1, 1])} " + " ".join(f"{j}:{rng.normal():.6f}" for j in sorted(rng.choice(50, 5, False) + 1))
             for _ in range(300)]
    path.write_text("\n".join(lines) + "\n")
    chunks = list(iter_libsvm_rows(path, chunk_size=70, n_features=50))
    assert all(isinstance(X, CSRRows) for X, _ in chunks)
    for (X, y), (X_scipy, y_scipy) in zip(chunks, iter_libsvm(path, chunk_size=70, n_features=50), strict=True):
        assert X.shape == X_scipy.shape and (X.tocsr() != X_scipy).nnz == 0
        np.testing.assert_array_equal(y, y_scipy)
    # learning from the rows in pieces is learning from the whole matrix
    X_all, y_all = load_libsvm(path, n_features=50)
    whole, pieces = PAClassifier(C=1.0), PAClassifier(C=1.0)
    expected = run(whole, X_all, y_all).predictions
    predictions = []
    for X, y in chunks:
        pieces.partial_fit(np.empty((0, 50)), [], classes=[-1.0, 1.0])
        for lo in range(0, X.shape[0], 16):
            predictions.append(run(pieces, X[lo:lo + 16], y[lo:lo + 16]).predictions)
    np.testing.assert_array_equal(np.concatenate(predictions), expected)
    np.testing.assert_array_equal(pieces.coef_, whole.coef_)
