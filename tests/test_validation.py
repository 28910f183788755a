"""The boundary checks: CSR canonicalisation and non-finite detection (independent of the kernels)."""

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._validation import check_X


def _csr_with_shuffled_rows(seed):
    rng = np.random.default_rng(seed)
    X = sp.random(7, 9, density=0.5, format="csr", random_state=seed)
    X.data = rng.standard_normal(X.data.size)
    X.indptr[3:5] = X.indptr[3]  # empty rows in the middle
    X = sp.csr_matrix((X.data[: X.indptr[-1]], X.indices[: X.indptr[-1]], X.indptr), shape=X.shape)
    indices = X.indices.copy()
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        if hi - lo > 1 and rng.random() < 0.5:
            indices[lo:hi] = rng.permutation(indices[lo:hi])
            if rng.random() < 0.5:
                indices[lo + 1] = indices[lo]  # a duplicate entry
    return sp.csr_matrix((X.data, indices, X.indptr), shape=X.shape)


@pytest.mark.parametrize("seed", range(20))
def test_unsorted_and_duplicate_entries_are_merged_like_scipy(seed):
    X = _csr_with_shuffled_rows(seed)
    arrays = check_X(X)
    expected = X.copy()
    expected.sum_duplicates()
    got = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=X.shape)
    np.testing.assert_array_equal(got.toarray(), X.toarray())
    for i in range(X.shape[0]):
        row = arrays.indices[arrays.indptr[i] : arrays.indptr[i + 1]]
        assert np.all(np.diff(row) > 0), f"row {i} still has unsorted or repeated indices"
    assert arrays.data.size == expected.nnz


def test_canonical_csr_is_used_without_copying_its_values():
    X = sp.random(50, 20, density=0.3, format="csr", random_state=0)
    arrays = check_X(X)
    assert np.shares_memory(arrays.data, X.data)


def _sorted_csr(n_rows=1000, n_columns=40, seed=0):
    """Rows of 0 to 6 distinct sorted indices, some empty; rows of several checking blocks (256 rows each)."""
    rng = np.random.default_rng(seed)
    rows = [np.sort(rng.choice(n_columns, size=rng.integers(0, 7), replace=False)) for _ in range(n_rows)]
    rows[255] = rows[256] = rows[511] = np.array([3, 20, 39])  # non-empty rows on both sides of block edges
    indptr = np.concatenate(([0], np.cumsum([r.size for r in rows])))
    indices = np.concatenate(rows).astype(np.int32)
    return sp.csr_matrix((rng.standard_normal(indices.size), indices, indptr), shape=(n_rows, n_columns))


def test_sorted_rows_across_checking_blocks_are_used_as_they_are():
    # each row starts below where the previous one ended: not a disorder within a row
    X = _sorted_csr()
    arrays = check_X(X)
    assert np.shares_memory(arrays.data, X.data) and np.shares_memory(arrays.indices, X.indices)


@pytest.mark.parametrize("row", [0, 255, 256, 511, 999])
@pytest.mark.parametrize("kind", ["swap", "duplicate"])
def test_one_unsorted_row_anywhere_is_found_and_merged(row, kind):
    X = _sorted_csr()
    lo = X.indptr[row]
    assert X.indptr[row + 1] - lo >= 2  # the stream of seed 0 has two entries or more in these rows
    if kind == "swap":
        X.indices[lo], X.indices[lo + 1] = X.indices[lo + 1], X.indices[lo]
    else:
        X.indices[lo + 1] = X.indices[lo]
    dense = np.zeros(X.shape)
    for i in range(X.shape[0]):
        for k in range(X.indptr[i], X.indptr[i + 1]):
            dense[i, X.indices[k]] += X.data[k]
    arrays = check_X(X)
    got = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=X.shape)
    assert not np.shares_memory(arrays.data, X.data)
    np.testing.assert_allclose(got.toarray(), dense, rtol=0, atol=1e-15)
    assert all(np.all(np.diff(arrays.indices[arrays.indptr[i]:arrays.indptr[i + 1]]) > 0) for i in range(X.shape[0]))


@pytest.mark.parametrize("row", [0, 255, 256, 999])
def test_column_index_out_of_range_is_named_by_row_in_any_block(row):
    X = _sorted_csr()
    k = X.indptr[row]
    X.indices[k] = -1 if row % 2 else 40
    with pytest.raises(ValueError, match=rf"column index {X.indices[k]} at row {row}; expected indices in \[0, 40\)"):
        check_X(X)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_first_non_finite_value_is_named_by_row_and_column(value):
    X = sp.random(30, 10, density=0.4, format="csr", random_state=1)
    k = X.indptr[17] + 1
    X.data[k] = value
    X.data[-1] = value  # a later one is not the one reported
    with pytest.raises(ValueError, match=rf"{value} at row 17, column {X.indices[k]}\b"):
        check_X(X)


@pytest.mark.parametrize("make", [lambda: olearn.PAClassifier(), lambda: olearn.PARegressor()])
def test_run_without_labels_says_they_are_missing(make):
    with pytest.raises(ValueError, match=r"y is missing: this learner needs one of its (labels|targets) per row"):
        olearn.run(make(), [[1.0, 2.0]])
