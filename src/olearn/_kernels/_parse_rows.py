"""Compiled in-place ordering of CSR rows produced by the text parsers.

Rows are sorted by column without allocating: insertion sort for short rows
(the common case, and the fastest there), heapsort for long ones so that a
reversed row of a million features stays O(k log k).
"""

from ._jit import njit

_INSERTION_MAX = 32


@njit(cache=True, inline="always")
def _swap(indices, data, a, b):
    t = indices[a]
    indices[a] = indices[b]
    indices[b] = t
    v = data[a]
    data[a] = data[b]
    data[b] = v


@njit(cache=True)
def _sift_down(indices, data, lo, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and indices[lo + child + 1] > indices[lo + child]:
            child += 1
        if indices[lo + root] >= indices[lo + child]:
            return
        _swap(indices, data, lo + root, lo + child)
        root = child


@njit(cache=True)
def sort_row(indices, data, lo, hi):
    """Sort ``indices[lo:hi]`` ascending, permuting ``data[lo:hi]`` alike."""
    n = hi - lo
    if n <= _INSERTION_MAX:
        for a in range(lo + 1, hi):
            key = indices[a]
            val = data[a]
            b = a - 1
            while b >= lo and indices[b] > key:
                indices[b + 1] = indices[b]
                data[b + 1] = data[b]
                b -= 1
            indices[b + 1] = key
            data[b + 1] = val
        return
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(indices, data, lo, root, n)
    for last in range(n - 1, 0, -1):
        _swap(indices, data, lo, lo + last)
        _sift_down(indices, data, lo, 0, last)


@njit(cache=True)
def sort_listed_rows(indptr, indices, data, rows, n_rows):
    """Sort in place the CSR rows numbered ``rows[:n_rows, 0]``.

    Returns the position in ``rows`` of the first row holding a repeated
    column, or -1 if there is none.
    """
    for r in range(n_rows):
        lo = indptr[rows[r, 0]]
        hi = indptr[rows[r, 0] + 1]
        sort_row(indices, data, lo, hi)
        for a in range(lo + 1, hi):
            if indices[a] == indices[a - 1]:
                return r
    return -1


@njit(cache=True)
def sort_and_sum_rows(indptr, indices, data, n_rows):
    """Sort every row and merge repeated columns by summing their values.

    Compacts the matrix in place (``indptr`` is rewritten) and returns the new
    number of stored entries.
    """
    out = 0
    lo = indptr[0]
    for r in range(n_rows):
        hi = indptr[r + 1]
        sort_row(indices, data, lo, hi)
        row_start = out
        for a in range(lo, hi):
            if out > row_start and indices[out - 1] == indices[a]:
                data[out - 1] += data[a]
            else:
                indices[out] = indices[a]
                data[out] = data[a]
                out += 1
        indptr[r + 1] = out
        lo = hi
    indptr[0] = 0
    return out


# Codes of check_csr: what is wrong with the arrays of a CSR matrix read from a file.
CSR_OK = 0
CSR_INDPTR_START = 1  # indptr[0] != 0
CSR_INDPTR_DECREASES = 2  # indptr[row + 1] < indptr[row]
CSR_INDPTR_END = 3  # indptr[-1] != len(indices)
CSR_INDEX_RANGE = 4  # an index outside [0, n_columns)
CSR_INDEX_ORDER = 5  # indices of a row not strictly increasing (unsorted or repeated)


@njit(cache=True)
def check_csr(indptr, indices, n_columns):
    """``(code, row)``: the first defect of a CSR structure, or ``(CSR_OK, -1)``.

    ``indptr`` is checked whole before it is used to walk the rows, so that
    untrusted arrays (a corrupted file) can never make the check read out of
    bounds. O(n_rows + nnz), no temporary arrays.
    """
    if indptr[0] != 0:
        return CSR_INDPTR_START, 0
    for r in range(indptr.size - 1):
        if indptr[r + 1] < indptr[r]:
            return CSR_INDPTR_DECREASES, r
    if indptr[indptr.size - 1] != indices.size:
        return CSR_INDPTR_END, indptr.size - 2
    for r in range(indptr.size - 1):
        previous = -1
        for k in range(indptr[r], indptr[r + 1]):
            j = indices[k]
            if j < 0 or j >= n_columns:
                return CSR_INDEX_RANGE, r
            if j <= previous:
                return CSR_INDEX_ORDER, r
            previous = j
    return CSR_OK, -1
