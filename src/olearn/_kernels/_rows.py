"""Checks of one sparse example, compiled so that streaming stays cheap."""

import math

from numba import njit


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
