"""The boundary checks: CSR canonicalisation and non-finite detection (independent of the kernels)."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._validation import _check_csr, check_X


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
    """Rows of 0 to 6 distinct sorted indices, some empty; rows of several checking blocks (32 rows each)."""
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


class _RawCSR:
    """The three arrays and the shape of a CSR matrix, as scipy would hold them, without scipy's own checks."""

    def __init__(self, indptr, indices, data, shape):
        self.indptr, self.indices, self.data, self.shape = indptr, indices, data, shape


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_column_indices_of_every_integer_type_are_checked_against_the_width(dtype):
    # the range test reads the indices as unsigned integers; each type has its own bound
    n_columns = 100
    indptr = np.array([0, 2, 4, 6])
    good = np.array([0, 99, 5, 7, 98, 99], dtype=dtype)
    arrays = _check_csr(_RawCSR(indptr, good, np.arange(1.0, 7.0), (3, n_columns)), "X")
    np.testing.assert_array_equal(arrays.indices, [0, 99, 5, 7, 98, 99])
    cases = [(3, 100), (5, np.iinfo(dtype).max)]
    if np.issubdtype(dtype, np.signedinteger):
        cases += [(4, -1), (2, np.iinfo(dtype).min)]
    for k, bad in cases:
        indices = good.copy()
        indices[k] = bad
        with pytest.raises(ValueError, match=rf"column index {bad} at row {k // 2}; expected indices in \[0, 100\)"):
            _check_csr(_RawCSR(indptr, indices, np.arange(1.0, 7.0), (3, n_columns)), "X")


@pytest.mark.parametrize("dtype", [np.int8, np.int32])
def test_a_negative_index_is_refused_when_the_width_exceeds_its_type(dtype):
    # more columns than the type's positive values: every non-negative index is in range, no negative one
    n_columns = int(np.iinfo(dtype).max) + 10
    indptr = np.array([0, 2, 3])
    largest = int(np.iinfo(dtype).max) - 1  # (2**31 - 1 itself is refused, as olearn's index limit)
    indices = np.array([1, largest, 0], dtype=dtype)
    arrays = _check_csr(_RawCSR(indptr, indices, np.ones(3), (2, n_columns)), "X")
    np.testing.assert_array_equal(arrays.indices, [1, largest, 0])
    indices[2] = np.iinfo(dtype).min  # read as unsigned: 2**(bits - 1), below n_columns
    expected = rf"column index {np.iinfo(dtype).min} at row 1; expected indices in \[0, {n_columns}\)"
    with pytest.raises(ValueError, match=expected):
        _check_csr(_RawCSR(indptr, indices, np.ones(3), (2, n_columns)), "X")


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


_DAMAGED_POINTERS = r"""
import numpy as np
from olearn._validation import _check_csr


class Raw:
    def __init__(self, indptr, indices, data, shape):
        self.indptr, self.indices, self.data, self.shape = indptr, indices, data, shape


n_rows = 70  # rows of three checking blocks
indptr = np.arange(0, 2 * n_rows + 1, 2)
for row, pointer in [(33, -5), (32, 10**6), (64, -(2**62)), (1, 2**63 - 1)]:
    damaged = indptr.copy()
    damaged[row] = pointer
    for dtype in (np.int8, np.int32, np.uint64):
        indices = np.tile(np.array([0, 1], dtype=dtype), n_rows)
        try:
            _check_csr(Raw(damaged, indices, np.ones(2 * n_rows), (n_rows, 2)), "X")
        except ValueError as err:
            print(err)
"""


def test_damaged_row_pointers_are_refused_without_reading_through_them():
    # a pointer outside the entries must not be followed; run apart: a wrong read could crash the process
    proc = subprocess.run([sys.executable, "-c", _DAMAGED_POINTERS], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 12, proc.stdout
    expected = ["X.indptr decreases at row 32 (64 then -5)",
                "X.indptr decreases at row 32 (1000000 then 66)",
                f"X.indptr decreases at row 63 (126 then {-(2**62)})",
                f"X.indptr decreases at row 1 ({2**63 - 1} then 4)"]
    for k, line in enumerate(lines):
        assert line.startswith(expected[k // 3]), line
