"""The classes of a multiclass learner: slots in order of arrival, ranks in sorted order.

The kernels number classes by *slot*, in the order the stream shows them, so that a
class first seen mid-stream simply takes the next slot. ``classes_`` is sorted, as
in scikit-learn; ``ranks[slot]`` is the slot's position in it and breaks ties.
"""

import numpy as np

from .._labels import check_label_types, plain_label

# Integer classes are looked up in a table indexed by label when they span fewer values than this
# (or than a few per class): one gather instead of a binary search and a membership test per label
_TABLE_SPAN = 1 << 16


class ClassSlots:
    """The labels known so far, each with its slot and its rank."""

    def __init__(self, owner):
        self.owner = owner
        self.labels = []
        self.slot_of = {}
        self.classes = None  # sorted labels
        self.order = np.empty(0, dtype=np.int64)  # order[i]: slot of classes[i]
        self.ranks = np.empty(0, dtype=np.int64)  # ranks[slot]: position in classes
        self.table = None  # (lowest, slot of each integer from it, -1 for none), see _slot_table

    def __len__(self):
        return len(self.labels)

    def __getstate__(self):
        """The labels and their order; the table is derived from them (:meth:`__setstate__`)."""
        return {name: value for name, value in self.__dict__.items() if name != "table"}

    def __setstate__(self, state):
        """Take ``state`` and derive the table, so that a pickle made before the table existed loads too."""
        self.__dict__.update(state)
        self.table = None if self.classes is None else _slot_table(self.classes, self.order)

    def new_labels(self, y):
        """Labels of ``y`` not known yet, in order of first appearance (nothing is added); a label of another
        type than the classes known (or than the others) is refused (:func:`~olearn._labels.check_label_types`)."""
        if len(y) == 0:
            return []
        check_label_types(self.owner, y, self.labels[0] if self.labels else None)
        if self.classes is not None and len(self.classes):
            looked_up = self._looked_up(y)
            if looked_up is not None:
                known = looked_up >= 0
            else:
                try:
                    known = np.isin(y, self.classes)
                except TypeError:
                    known = np.array([label in self.slot_of for label in y], dtype=bool)
            if known.all():
                return []
            y = np.asarray(y)[~known]
        try:
            uniq, first = np.unique(y, return_index=True)
        except TypeError as err:
            raise ValueError(f"{self.owner}: the labels cannot be sorted ({err}); use labels of one type") from None
        return [uniq[i] for i in np.argsort(first, kind="stable") if uniq[i] not in self.slot_of]

    def add(self, labels):
        """Give each new label the next slot, and re-sort the classes."""
        if not labels:
            return
        for label in labels:
            self.slot_of[label] = len(self.labels)
            self.labels.append(label)
        self._sort()

    def _sort(self):
        values = np.asarray(self.labels)
        try:
            self.order = np.argsort(values, kind="stable").astype(np.int64)
        except TypeError as err:
            raise ValueError(f"{self.owner}: the labels cannot be sorted ({err}); use labels of one type") from None
        self.classes = values[self.order]
        self.ranks = np.empty(len(values), dtype=np.int64)
        self.ranks[self.order] = np.arange(len(values))
        self.table = _slot_table(self.classes, self.order)

    def truncate(self, n):
        """Forget the slots from ``n`` on (classes planned for a pass that stopped early)."""
        if n < len(self.labels):
            for label in self.labels[n:]:
                del self.slot_of[label]
            del self.labels[n:]
            self._sort()

    def slots(self, y):
        """The slot of every label of ``y`` (all known)."""
        if len(y) == 0:
            return np.empty(0, dtype=np.int64)
        looked_up = self._looked_up(y)
        if looked_up is not None and looked_up.min() >= 0:
            return looked_up
        position = np.searchsorted(self.classes, y)
        return self.order[position].astype(np.int64)

    def _looked_up(self, y):
        """The slot of each label of ``y`` from the table, -1 for a label between the classes; None without a
        table, for labels that are not integers read exactly as int64, or for a label outside the classes' range."""
        y = np.asarray(y)
        exact = y.dtype.kind == "i" or (y.dtype.kind == "u" and y.dtype.itemsize < 8)
        if self.table is None or not exact or y.size == 0:
            return None
        lowest, table = self.table
        if y.min() < lowest or y.max() > lowest + (table.size - 1):
            return None
        y = y.astype(np.int64, copy=False)
        # labels counted from 0 index the table as they are: no temporary array (a new one of a large batch costs
        # page faults)
        return table[y - lowest if lowest else y]

    def unknown_error(self, y, allowed):
        """A ValueError naming the first label of ``y`` outside ``allowed``."""
        allowed = set(allowed)
        for row, label in enumerate(y):
            if label not in allowed:
                shown = [plain_label(c) for c in sorted(allowed, key=repr)]
                return ValueError(f"{self.owner}: label {plain_label(label)!r} at row {row} is not one of the classes {shown}")
        return ValueError(f"{self.owner}: unknown label")

    def set_labels(self, labels):
        """Adopt labels in slot order (loading a saved model)."""
        self.labels = []
        self.slot_of = {}
        self.add(list(labels))


def _slot_table(classes, order):
    """(lowest, table) with ``table[label - lowest]`` the slot of each integer class and -1 between them, for
    sorted ``classes`` of integers of int64 spanning a short range (``_TABLE_SPAN``, or a few per class); else
    None. ``lowest`` is 0 where the table can start there."""
    if classes.dtype.kind not in "iu" or classes.size == 0:
        return None
    first, highest = int(classes[0]), int(classes[-1])
    limit = max(_TABLE_SPAN, 4 * classes.size)
    lowest = 0 if 0 <= first and highest < limit else first
    if highest > np.iinfo(np.int64).max or highest - lowest >= limit:
        return None
    table = np.full(highest - lowest + 1, -1, dtype=np.int64)
    table[classes.astype(np.int64) - lowest] = order
    return lowest, table
