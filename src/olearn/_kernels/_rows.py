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


@njit(cache=True, _nrt=False)
def csr_ends(indptr, n_indices, n_values):
    """Whether ``indptr`` starts at 0 and ends at the number of entries, the same for the indices and the values."""
    return indptr.size > 0 and indptr[0] == 0 and indptr[indptr.size - 1] == n_indices == n_values


@njit(cache=True, _nrt=False)
def row_bounds(indptr, i, n_entries):
    """Whether ``0 <= indptr[i] <= indptr[i + 1] <= n_entries``: row ``i``'s entries may be read (as uint64s)."""
    return np.uint64(indptr[i]) <= np.uint64(indptr[i + 1]) <= np.uint64(n_entries)


@njit(cache=True, _nrt=False)
def canonical_row(indptr, indices, i, width):
    """Whether row ``i`` of a CSR matrix may be read as it is: what :func:`csr_summary` checks, for one row.

    That is ``0 <= indptr[i] <= indptr[i + 1] <= indices.size``, and the row's
    column indices strictly increase and are below ``width`` (a uint64 at most
    2**31). Each index is read as a uint64: a negative one reads as 2**63 or
    more, so that "strictly increasing, and the last below ``width``" is the
    whole check of the row's indices, one comparison each. The entries are
    read only once the row's bounds are checked.

    A loop that stops at the first disorder, rather than a counting loop the
    compiler vectorises as :func:`csr_summary`'s: inside the learning pass, the
    counting loop cost more than a separate check pass over all rows (about
    7 against 5 ms over 12 million entries), the early exit next to nothing.
    """
    if not row_bounds(indptr, i, indices.size):
        return False
    start = np.uint64(indptr[i])
    stop = np.uint64(indptr[i + 1])
    if start == stop:
        return True
    previous = np.uint64(indices[start])
    for k in range(start + np.uint64(1), stop):
        column = np.uint64(indices[k])
        if column <= previous:
            return False
        previous = column
    return previous < width
