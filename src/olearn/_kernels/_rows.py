"""Checks of one sparse example, compiled so that streaming stays cheap."""

import math

import numpy as np

from ._jit import njit

_LARGEST = 1.7976931348623157e308  # the largest finite float64


@njit(cache=True)
def row_summary(indices, data):
    """(smallest index, largest index, position of the first non-finite value or -1).

    An empty row gives (0, -1, -1).
    """
    low = 0
    high = -1
    bad = -1
    for k in range(indices.size):
        j = indices[k]
        if k == 0 or j < low:
            low = j
        if j > high:
            high = j
        if bad < 0 and not math.isfinite(data[k]):
            bad = k
    return low, high, bad


@njit(cache=True)
def all_finite(data):
    """Whether every value of ``data`` is finite (a counting loop, which the compiler vectorises)."""
    n_bad = 0
    for k in range(data.size):
        n_bad += not (abs(data[k]) <= _LARGEST)  # NaN compares false too
    return n_bad == 0


# rows per block of csr_summary: a block's column indices stay in the L1 cache
# for the second look at its row boundaries
_SUMMARY_BLOCK = 32


@njit(cache=True)
def csr_summary(indptr, indices, columns, width, data, n_columns):
    """(first decreasing pointer, first index outside [0, n_columns), first non-finite value, sorted).

    Each position is -1 when there is none; ``sorted`` says whether every
    row's indices strictly increase (no duplicates). ``indptr`` must start at
    0 and end at the number of entries (the caller checks both); the entries
    are read only when it is monotone. ``indices`` are signed integers;
    ``columns`` are the same bits read as unsigned integers and ``width`` an
    unsigned integer of their type, such that an index is in range exactly
    when its unsigned reading is below ``width`` (a negative index reads as
    2**(bits - 1) or more): one comparison instead of two.

    The entries are read once, by counting loops without early exits that
    the compiler vectorises: the values in one loop, the indices a block of
    rows at a time; the first bad position is looked for only when a count
    is not zero. So the checks of a large CSR matrix cost about one read of
    its arrays from memory, a fraction of a learning pass over it.
    """
    n_bad = 0
    for i in range(indptr.size - 1):
        n_bad += indptr[i + 1] < indptr[i]
    if n_bad:
        for i in range(indptr.size - 1):
            if indptr[i + 1] < indptr[i]:
                return i + 1, -1, -1, False
    # indptr is monotone from 0: as unsigned, its entries give loops the compiler can vectorise
    # (a signed bound could be negative, and every access would wrap around)
    pointers = indptr.view(np.uint64)
    one = np.uint64(1)
    n_rows = indptr.size - 1
    bad_indices = 0
    # Decreasing neighbours are counted over the flat index array, then the pairs
    # that straddle two rows are taken back: each non-empty row's first entry
    # compared with the previous row's last.
    disorder = 0
    if indices.size:
        bad_indices += columns[0] >= width
    for first in range(0, n_rows, _SUMMARY_BLOCK):
        last = min(n_rows, first + _SUMMARY_BLOCK)
        for k in range(max(pointers[first], one), pointers[last]):
            bad_indices += columns[k] >= width
            disorder += indices[k] <= indices[k - one]
        for i in range(max(first, 1), last):
            start = pointers[i]
            if 0 < start < pointers[i + 1]:
                disorder -= indices[start] <= indices[start - one]
    bad_index = -1
    if bad_indices:
        for k in range(indices.size):
            if indices[k] < 0 or indices[k] >= n_columns:
                bad_index = k
                break
    bad_value = -1
    if not all_finite(data):
        for k in range(data.size):
            if not math.isfinite(data[k]):
                bad_value = k
                break
    return -1, bad_index, bad_value, disorder == 0
