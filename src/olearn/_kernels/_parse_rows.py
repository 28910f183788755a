"""Compiled in-place ordering of CSR rows produced by the text parsers.

:func:`sort_row` sorts a row by column without allocating: insertion sort for
short rows (the common case, and the fastest there), heapsort for long ones so
that a reversed row of a million features stays O(k log k).
:func:`sort_and_sum_rows`, which also merges repeated columns, sorts each row
stably in scratch arrays instead, so that the values of a repeated column are
summed in the order the row gives them: a row already in order is left as it
is, a short one is placed by its ranks (:func:`_distinct_ranks` when its columns
are distinct, else :func:`_stable_ranks`), a long one by a merge sort of keys
(:func:`_sorted_keys`).
"""

import numpy as np

from ._jit import njit
from ._parse_codes import (
    CSR_INDEX_ORDER,
    CSR_INDEX_RANGE,
    CSR_INDPTR_DECREASES,
    CSR_INDPTR_END,
    CSR_INDPTR_START,
    CSR_OK,
)

_INSERTION_MAX = 32
# the longest row sort_and_sum_rows places by ranks (O(n**2) comparisons) rather than by merging keys
_RANK_MAX = 128
# the place of an entry in its row, in the low 32 bits of its sort key (sort_and_sum_rows)
_PLACE = (1 << 32) - 1


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


@njit(cache=True, inline="always")
def _insertion_sort(keys, lo, hi):
    for a in range(lo + 1, hi):
        key = keys[a]
        b = a - 1
        while b >= lo and keys[b] > key:
            keys[b + 1] = keys[b]
            b -= 1
        keys[b + 1] = key


@njit(cache=True, inline="always")
def _merge(source, target, lo, middle, hi):
    """The sorted runs ``source[lo:middle]`` and ``source[middle:hi]`` merged into ``target[lo:hi]``."""
    a, b = lo, middle
    for k in range(lo, hi):
        if b >= hi or (a < middle and source[a] <= source[b]):
            target[k] = source[a]
            a += 1
        else:
            target[k] = source[b]
            b += 1


@njit(cache=True)
def _sorted_keys(keys, spare, n):
    """``keys[:n]`` sorted ascending; returns the array that holds them (``keys``, or ``spare`` of as many).

    Runs of ``_INSERTION_MAX`` keys are sorted by insertion, then merged in
    pairs, back and forth between the two arrays: O(n log n).
    """
    for lo in range(0, n, _INSERTION_MAX):
        _insertion_sort(keys, lo, min(lo + _INSERTION_MAX, n))
    source, target = keys, spare
    width = _INSERTION_MAX
    while width < n:
        for lo in range(0, n, 2 * width):
            _merge(source, target, lo, min(lo + width, n), min(lo + 2 * width, n))
        source, target = target, source
        width *= 2
    return source


@njit(cache=True, inline="always")
def _append_summed(indices, data, out, row_start, column, value):
    """Write the entry (column, value) at ``out``, or add ``value`` to the entry before if it has that column
    and belongs to the row starting at ``row_start``; returns the next ``out``."""
    if out > row_start and indices[out - 1] == column:
        data[out - 1] += value
        return out
    indices[out] = column
    data[out] = value
    return out + 1


@njit(cache=True, inline="always")
def _is_ordered(indices, lo, hi):
    """Whether ``indices[lo:hi]`` never decreases."""
    for a in range(lo + 1, hi):
        if indices[a] < indices[a - 1]:
            return False
    return True


@njit(cache=True, inline="always")
def _stable_ranks(indices, lo, n, ranks):
    """``ranks[a]``: the place of entry ``lo + a`` once ``indices[lo:lo + n]`` is sorted stably.

    Counts the entries before it with a column no greater and those after it with a smaller one: O(n**2)
    comparisons without a branch, which the compiler vectorises (unsigned offsets: no wrap-around test;
    32-bit counts: eight to a vector).
    """
    start = np.uint64(lo)
    for a in range(np.uint64(n)):
        column = indices[start + a]
        rank = np.int32(0)
        for b in range(np.uint64(0), a):
            rank += np.int32(indices[start + b] <= column)
        for b in range(a + np.uint64(1), np.uint64(n)):
            rank += np.int32(indices[start + b] < column)
        ranks[a] = rank


@njit(cache=True, inline="always")
def _distinct_ranks(indices, lo, n, ranks):
    """Whether the columns ``indices[lo:lo + n]`` are distinct, ``ranks`` (int32) then holding their places once
    sorted.

    ``ranks[a]`` receives the number of other entries of a column no greater
    than entry ``lo + a``'s, counted for all entries at once: one comparison
    of each entry with every entry of the row in turn, a loop without a
    branch over the whole row, which the compiler vectorises. It is at least
    the entry's stable rank, and equal to it unless a later entry has the same
    column; the stable ranks summing to ``n * (n - 1) / 2``, these do exactly
    when the columns are distinct.
    """
    start = np.uint64(lo)
    size = np.uint64(n)
    for a in range(size):
        ranks[a] = -1
    for b in range(size):
        column = indices[start + b]
        for a in range(size):
            ranks[a] += np.int32(indices[start + a] >= column)
    total = 0
    for a in range(size):
        total += ranks[a]
    return total == n * (n - 1) // 2


@njit(cache=True)
def sort_and_sum_rows(indptr, indices, data, n_rows, keys, spare, values):
    """Sort every row and merge repeated columns by summing their values, in the order the row gives them.

    Compacts the matrix in place (``indptr`` is rewritten) and returns the new
    number of stored entries. The columns must lie in [0, 2**31). ``keys``,
    ``spare`` (int64) and ``values`` (float64) are scratch arrays of at least
    the longest row's length (:func:`olearn.data._rows.row_sort_scratch`).
    A row whose columns never decrease is only compacted. A row of up to
    ``_RANK_MAX`` entries is placed by its ranks: counted in one vectorised
    loop when its columns are distinct (:func:`_distinct_ranks`), else as the
    stable ranks of :func:`_stable_ranks`.
    In a longer one each entry becomes the key ``column * 2**32 + its place in
    the row``: sorting the keys sorts the row stably, moving one integer per entry.
    """
    out = 0
    lo = indptr[0]
    ranks = spare.view(np.int32)
    for r in range(n_rows):
        hi = indptr[r + 1]
        n = hi - lo
        row_start = out
        if _is_ordered(indices, lo, hi):
            for a in range(lo, hi):
                out = _append_summed(indices, data, out, row_start, indices[a], data[a])
        elif n <= _RANK_MAX:
            if not _distinct_ranks(indices, lo, n, ranks):
                _stable_ranks(indices, lo, n, ranks)
            for a in range(n):
                keys[ranks[a]] = indices[lo + a]
                values[ranks[a]] = data[lo + a]
            for a in range(n):
                out = _append_summed(indices, data, out, row_start, keys[a], values[a])
        else:
            for a in range(n):
                keys[a] = (np.int64(indices[lo + a]) << 32) | a
            ordered = _sorted_keys(keys, spare, n)
            for a in range(n):
                values[a] = data[lo + (ordered[a] & _PLACE)]
            for a in range(n):
                out = _append_summed(indices, data, out, row_start, ordered[a] >> 32, values[a])
        indptr[r + 1] = out
        lo = hi
    indptr[0] = 0
    return out


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
