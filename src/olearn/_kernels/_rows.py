"""Checks of one sparse example, compiled so that streaming stays cheap."""

import math

from numba import njit

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


@njit(cache=True)
def csr_summary(indptr, indices, data, n_columns):
    """(first decreasing pointer, first index outside [0, n_columns), first non-finite value, sorted).

    Each position is -1 when there is none; ``sorted`` says whether every
    row's indices strictly increase (no duplicates). The indices are checked
    against the rows only when ``indptr`` is monotone. One pass each, with no
    temporary arrays, and counting loops without early exits so that the
    compiler can vectorise them: the checks of a large CSR matrix cost a
    fraction of one learning pass over it.
    """
    n_bad = 0
    for i in range(indptr.size - 1):
        n_bad += indptr[i + 1] < indptr[i]
    if n_bad:
        for i in range(indptr.size - 1):
            if indptr[i + 1] < indptr[i]:
                return i + 1, -1, -1, False
    n_bad = 0
    for k in range(indices.size):
        j = indices[k]
        n_bad += (j < 0) | (j >= n_columns)
    bad_index = -1
    if n_bad:
        for k in range(indices.size):
            if indices[k] < 0 or indices[k] >= n_columns:
                bad_index = k
                break
    n_bad = 0
    for k in range(data.size):
        n_bad += not (abs(data[k]) <= _LARGEST)  # NaN compares false too
    bad_value = -1
    if n_bad:
        for k in range(data.size):
            if not math.isfinite(data[k]):
                bad_value = k
                break
    # Count decreasing neighbours over the flat index array (a loop that
    # vectorises), then take back the pairs that straddle two rows: each
    # non-empty row's first entry compared with the previous row's last.
    disorder = 0
    for k in range(1, indices.size):
        disorder += indices[k] <= indices[k - 1]
    for i in range(1, indptr.size - 1):
        start = indptr[i]
        if 0 < start < indptr[i + 1]:
            disorder -= indices[start] <= indices[start - 1]
    return -1, bad_index, bad_value, disorder == 0
