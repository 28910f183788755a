"""The classes of a multiclass learner: slots in order of arrival, ranks in sorted order.

The kernels number classes by *slot*, in the order the stream shows them, so that a
class first seen mid-stream simply takes the next slot. ``classes_`` is sorted, as
in scikit-learn; ``ranks[slot]`` is the slot's position in it and breaks ties.
"""

import numpy as np

from .._labels import plain_label


class ClassSlots:
    """The labels known so far, each with its slot and its rank."""

    def __init__(self, owner):
        self.owner = owner
        self.labels = []
        self.slot_of = {}
        self.classes = None  # sorted labels
        self.order = np.empty(0, dtype=np.int64)  # order[i]: slot of classes[i]
        self.ranks = np.empty(0, dtype=np.int64)  # ranks[slot]: position in classes

    def __len__(self):
        return len(self.labels)

    def new_labels(self, y):
        """Labels of ``y`` not known yet, in order of first appearance (nothing is added)."""
        if len(y) == 0:
            return []
        if self.classes is not None and len(self.classes):
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
        position = np.searchsorted(self.classes, y)
        return self.order[position].astype(np.int64)

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
