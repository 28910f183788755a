"""sort_and_sum_rows (the VW and CoNLL readers' merge of repeated columns) against a plain reference.

The reference sorts each row with NumPy's stable argsort and sums the values of a
repeated column left to right in Python: the kernel must give the same columns and
the same values bit for bit, on rows short enough to be placed by their ranks and
long enough for the merge sort of keys, random, reversed, already in order, and
rows in order after rows that lose entries (compacted into place).
"""

import numpy as np
import pytest

from olearn._kernels import _compiled
from olearn._kernels._parse_rows import sort_and_sum_rows
from olearn.data import load_vw
from olearn.data._rows import row_sort_scratch


def reference(indptr, indices, data):
    """(indptr, indices, data) with each row sorted stably by column and repeats summed in row order."""
    out_ptr, out_idx, out_val = [0], [], []
    for r in range(len(indptr) - 1):
        cols, vals = indices[indptr[r]:indptr[r + 1]], data[indptr[r]:indptr[r + 1]]
        for k in np.argsort(cols, kind="stable"):
            if len(out_idx) > out_ptr[-1] and out_idx[-1] == cols[k]:
                out_val[-1] = out_val[-1] + float(vals[k])
            else:
                out_idx.append(int(cols[k]))
                out_val.append(float(vals[k]))
        out_ptr.append(len(out_idx))
    return np.array(out_ptr), np.array(out_idx, dtype=np.int64), np.array(out_val)


def rows_of(lengths, n_columns, seed, order="random"):
    rng = np.random.default_rng(seed)
    indptr = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=indptr[1:])
    indices = rng.integers(0, n_columns, indptr[-1]).astype(np.int32)
    for r in range(len(lengths)):
        row = indices[indptr[r]:indptr[r + 1]]
        if order == "reversed":
            row[:] = np.sort(row)[::-1]
        elif order == "sorted" or (order == "mixed" and r % 2):
            row[:] = np.sort(row)
    # values whose sums depend on the order of the terms
    data = rng.choice([1e16, -1e16, 1.0, 0.5, -3.0, 1e-300], indptr[-1]) * rng.random(indptr[-1])
    return indptr, indices, data


LENGTHS = [0, 1, 2, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000, 5000]


@pytest.mark.parametrize("order", ["random", "reversed", "sorted", "mixed"])
@pytest.mark.parametrize("n_columns", [3, 50, 2**31 - 1])
@pytest.mark.parametrize("kernel", ["jit", "compiled"])
def test_rows_are_sorted_and_repeats_summed_in_row_order(order, n_columns, kernel):
    indptr, indices, data = rows_of(LENGTHS, n_columns, seed=n_columns, order=order)
    expected = reference(indptr, indices, data)
    sort = sort_and_sum_rows if kernel == "jit" else _compiled.sort_and_sum_rows
    nnz = sort(indptr, indices, data, len(LENGTHS), *row_sort_scratch(indptr, len(LENGTHS)))
    np.testing.assert_array_equal(indptr, expected[0])
    np.testing.assert_array_equal(indices[:nnz], expected[1])
    np.testing.assert_array_equal(data[:nnz], expected[2])


def test_a_vw_feature_named_three_times_is_summed_left_to_right(tmp_path):
    """(1e16 + 1) + -1e16 is 0 in floats, where any other order of the terms gives 1: the row's order is kept,
    in a short row and in one long enough to be merged."""
    others = " ".join(f"f{i}" for i in range(80))
    path = tmp_path / "repeats.vw"
    path.write_text(f"1 | a:1e16 a:1 a:-1e16\n-1 | a:1e16 {others} a:1 b a:-1e16\n")
    X, _, _ = load_vw(path, n_bits=20)
    short, long = X[0], X[1]
    assert short.nnz == 1 and short.data.tolist() == [0.0]  # the sum is kept as an explicit zero
    (a,) = short.indices
    assert long.nnz == 1 + 80 + 1
    assert long.data[long.indices.tolist().index(a)] == 0.0


@pytest.mark.parametrize("kernel", ["jit", "compiled"])
def test_rows_of_every_rank_length_with_and_without_one_repeat(kernel):
    """Rows of 2 to 128 entries (placed by their ranks), of distinct columns and with one column repeated, at
    the start, the middle or the end of the row: a row of distinct columns is ranked by one count of the
    columns no greater, the others by their stable ranks; both must give the reference's rows."""
    rng = np.random.default_rng(7)
    rows = []
    for n in range(2, 129):
        distinct = rng.permutation(10 * n)[:n].astype(np.int32)
        rows.append(distinct)
        for where in (0, n // 2, n - 1):
            repeated = distinct.copy()
            repeated[where] = distinct[(where + 1 + int(rng.integers(n - 1))) % n]
            rows.append(repeated)
    indptr = np.zeros(len(rows) + 1, dtype=np.int32)
    np.cumsum([len(row) for row in rows], out=indptr[1:])
    indices = np.concatenate(rows)
    data = rng.choice([1e16, -1e16, 1.0, 0.5, -3.0], indptr[-1]) * rng.random(indptr[-1])
    expected = reference(indptr, indices, data)
    sort = sort_and_sum_rows if kernel == "jit" else _compiled.sort_and_sum_rows
    nnz = sort(indptr, indices, data, len(rows), *row_sort_scratch(indptr, len(rows)))
    np.testing.assert_array_equal(indptr, expected[0])
    np.testing.assert_array_equal(indices[:nnz], expected[1])
    np.testing.assert_array_equal(data[:nnz], expected[2])
