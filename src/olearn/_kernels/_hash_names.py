"""MurmurHash3 x86_32 of many names at once: the columns of the feature names a CoNLL block brings."""

import numpy as np

from ._jit import njit
from ._parse_vw import murmur3_32


@njit(cache=True)
def hash_names(buf, ends, mask):
    """``murmur3_32(name, seed=0) & mask`` of each name, the names being ``buf`` cut at ``ends`` (their ends)."""
    columns = np.empty(ends.size, dtype=np.int64)
    start = 0
    for i in range(ends.size):
        columns[i] = murmur3_32(buf, start, ends[i], 0) & mask
        start = ends[i]
    return columns
