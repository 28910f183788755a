"""A vocabulary's names as a compiled table, for :func:`olearn._kernels._json_batch.packed_rows`.

The table mirrors the ``str`` names of a :class:`~olearn._features.FeatureMap`
(a JSON key is a string: no other name can be one) and their columns: each
name's UTF-8 bytes, its hash (:func:`~olearn._kernels._json_batch.name_hash`) and its column, and an
open-addressing index of them, at most half full. A lookup compares the
bytes of the name found, so that a hash collision never gives a key another
name's column. :meth:`FeatureMap.name_table` keeps it in step with the map
(see there).
"""

import numpy as np

from ._lazy import LazyModule

_json_batch = LazyModule("olearn._kernels._json_batch")
_compiled = LazyModule("olearn._kernels._compiled")


class NameTable:
    """The names entered so far (:meth:`enter`), their bytes, hashes and columns, and the index of them.

    ``cuts`` and ``entered`` say which state of a FeatureMap it mirrors: the
    map's count of truncations when it was made, and how many of the map's
    names (in the order they were added) it holds.
    """

    def __init__(self, cuts):
        self.cuts = cuts
        self.entered = 0
        self.names = np.empty(0, dtype=np.uint8)
        self.bounds = np.empty((0, 2), dtype=np.int64)
        self.hashes = np.empty(0, dtype=np.int64)
        self.columns = np.empty(0, dtype=np.int64)
        self.slots = np.full(8, _json_batch.EMPTY, dtype=np.int64)

    def enter(self, pairs, entered):
        """Enter ``pairs`` of ``(name, column)`` (a name entered again takes its new column; names that are not
        ``str`` are left out), the table then mirroring the first ``entered`` names of its map."""
        pairs = [(name, column) for name, column in pairs if type(name) is str]
        self.entered = entered
        if not pairs:
            return
        encoded = [name.encode("utf-8", "surrogatepass") for name, _ in pairs]
        ends = np.cumsum([len(text) for text in encoded], dtype=np.int64)
        added = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        first = self.columns.size
        bounds = np.empty((len(pairs), 2), dtype=np.int64)
        bounds[:, 1] = ends + self.names.size
        bounds[:, 0] = bounds[:, 1] - [len(text) for text in encoded]
        self.names = np.concatenate([self.names, added])
        self.bounds = np.concatenate([self.bounds, bounds])
        self.hashes = np.concatenate([self.hashes, np.empty(len(pairs), dtype=np.int64)])  # insert_names' to write
        self.columns = np.concatenate([self.columns, np.array([column for _, column in pairs], dtype=np.int64)])
        if 2 * self.columns.size > self.slots.size:  # at most half full: a new index of every name
            size = self.slots.size
            while 2 * self.columns.size > size:
                size *= 4
            self.slots = np.full(size, _json_batch.EMPTY, dtype=np.int64)
            first = 0  # every name's hash written again, as it is entered
        _compiled.insert_names(self.slots, self.names, self.bounds, self.hashes, first, self.columns.size)
