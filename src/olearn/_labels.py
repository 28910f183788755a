"""Mapping any two class labels to the -1/+1 of the binary kernels.

The classes are kept sorted, as scikit-learn does: ``classes_[1]`` is the
positive class. A stream may show one class before the other; until the
second arrives the one class seen is encoded +1. If the second class sorts
after it, the first becomes the negative class, and the learner negates its
weights: the binary learners here are odd in the labels (learning on -y gives
exactly -w), so the model is then exactly the one learned with the final
encoding from the start. The exception, Winnow on the n-simplex, learns the
model of the other encoding beside its own until the second class arrives.
"""

import numpy as np


def plain_label(label):
    """A NumPy scalar as the Python value it holds (``np.str_('a')`` as ``'a'``): what a prediction answers,
    and what a message shows."""
    return label.item() if isinstance(label, np.generic) else label


def label_type(label):
    """What a class label is: "a string", "a byte string" or "a number"; None for anything else (None, a tuple)."""
    if isinstance(label, str):
        return "a string"
    if isinstance(label, bytes):
        return "a byte string"
    if isinstance(label, (bool, int, float, np.bool_, np.integer, np.floating)):
        return "a number"
    return None


def check_label_types(owner, y, known=None):
    """Refuse, naming the first such label and its row, a label of ``y`` that is neither a number nor a string
    (None, a tuple) or whose type is not that of the class ``known`` learned before (else of ``y[0]``).

    NumPy would make the classes 1 and "1" one array of strings (two classes "1"), and cannot sort 1 beside
    "a" or None. Only an array of Python objects can mix types, so another array is checked by its first label.
    """
    y = np.asarray(y)
    if y.size == 0:
        return
    reference, where = (known, "the class learned before") if known is not None else (y[0], "the label at row 0")
    expected = label_type(reference)
    for row, label in enumerate(y if y.dtype.kind == "O" else y[:1]):
        kind = label_type(label)
        if kind is None:
            raise ValueError(
                f"{owner}: label {plain_label(label)!r:.100} at row {row} is a {type(label).__name__}; class labels "
                "are numbers or strings"
            )
        if kind != expected:
            raise ValueError(
                f"{owner}: label {plain_label(label)!r:.100} at row {row} is {kind}, but {where}, "
                f"{plain_label(reference)!r:.100}, is {expected}; give the classes one type"
            )


def two_values(y):
    """The distinct values of a non-empty 1-d array of numbers or strings when there are at most two (in order
    of appearance), else None: three comparisons over the array, no sort."""
    first = y[0]
    other = y != first
    k = int(other.argmax())
    if not other[k]:
        return y[:1].copy()
    if not (other <= (y == y[k])).all():
        return None
    return y[[0, k]]


def all_in(y, classes):
    """Whether every label of the 1-d array ``y`` equals one of the two ``classes``: two comparisons over the
    array, where ``np.isin`` sorts both (several times the cost for a batch of a hundred labels)."""
    first, second = classes
    return bool(((y == first) | (y == second)).all())


def distinct_labels(y):
    """``np.unique(y)`` of a 1-d array of labels, without sorting it when it holds at most two.

    A binary stream's labels: three comparisons over the array instead of a
    sort (0.06 against 1.8 ms for 200,000 labels). Arrays of Python objects
    and batches of three labels or more take ``np.unique`` itself.
    """
    if y.size == 0 or y.dtype.kind not in "biufUS":
        return np.unique(y)
    values = two_values(y)
    return np.unique(y) if values is None else np.sort(values)


class BinaryLabels:
    """The classes seen so far and their encoding."""

    def __init__(self, owner):
        self.owner = owner
        self.classes = None
        self.positive = None
        self._targets = {}
        # for one example: the class of a score, ``sides[score > 0.0]`` (plain Python labels), and
        # the targets once both classes are known (empty before)
        self.sides = None
        self.both_targets = {}

    def _third_class_error(self, y):
        known = [] if self.classes is None else list(self.classes)
        for row, label in enumerate(y):
            if label not in known:
                if len(known) == 2:
                    raise ValueError(
                        f"{self.owner}: Only binary classification is supported; label {plain_label(label)!r} at row "
                        f"{row} is a third class (classes so far: {[plain_label(k) for k in known]})"
                    )
                known.append(label)

    def declare(self, classes):
        """Fix both classes up front (the ``classes`` argument of ``partial_fit``)."""
        classes = np.asarray(classes)
        classes = distinct_labels(classes) if classes.ndim == 1 else np.unique(classes)
        if classes.size != 2:
            raise ValueError(
                f"{self.owner}: Only binary classification is supported; classes={[plain_label(k) for k in classes]} "
                "must name exactly 2"
            )
        if self.classes is not None and not np.isin(self.classes, classes).all():
            raise ValueError(
                f"classes={list(classes)} differs from the classes {list(self.classes)} seen in earlier calls"
            )
        if self.settled:  # the same two classes: kept as they are (see settled)
            return False
        flip = self.classes is not None and self.classes.size == 1 and self.classes[0] == classes[0]
        self.set_classes(classes)
        return flip

    @property
    def settled(self):
        """Whether both classes are known: :meth:`observe` and :meth:`declare` then change nothing, they accept
        the labels or classes given or refuse them, so a call that may be refused need not copy the labels."""
        return self.classes is not None and self.classes.size == 2

    def observe(self, y):
        """Add the labels of a batch; return True if the weights must be negated."""
        if y.dtype.kind == "O":
            check_label_types(self.owner, y, None if self.classes is None else self.classes[0])
        if self.settled:
            if not all_in(y, self.classes):
                self._third_class_error(y)
            return False
        seen = distinct_labels(y)
        if self.classes is not None and _is_text(seen) != _is_text(self.classes):
            # np.union1d would turn the numbers into strings: the label 1 would become the class "1"
            raise ValueError(
                f"{self.owner}: the labels {[plain_label(k) for k in seen[:5]]} are "
                f"{'strings' if _is_text(seen) else 'numbers'}, but the class {plain_label(self.classes[0])!r} seen in "
                f"earlier calls is {'a string' if _is_text(self.classes) else 'a number'}; give the classes one type"
            )
        union = seen if self.classes is None else np.union1d(self.classes, seen)
        if union.size > 2:
            self._third_class_error(y)
        if union.size == 1:
            self.set_classes(union)
            return False
        return self.declare(union)

    def set_classes(self, classes):
        """Adopt sorted classes (one or two); the last one is encoded +1."""
        self.classes = classes
        self.positive = classes[-1]
        labels = classes.tolist()
        self._targets = {label: -1.0 for label in labels[:-1]}
        self._targets[labels[-1]] = 1.0
        self.sides = (plain_label(classes[0]), plain_label(classes[-1]))
        self.both_targets = self._targets if len(labels) == 2 else {}

    def target(self, label):
        """+1.0 or -1.0 for a known class, None for a label not seen yet (or that cannot be one: unhashable)."""
        try:
            return self._targets.get(label)
        except TypeError:
            return None

    def encode(self, y):
        """Labels as float64 -1/+1."""
        # a mask times 2, minus 1, in one array: a tenth of np.where's time for a long batch, and no
        # temporary (a fresh page costs a fault: about 1 ms per 200,000 labels here)
        targets = (np.asarray(y) == self.positive).astype(np.float64)
        targets *= 2.0
        targets -= 1.0
        return targets

    def decode(self, scores):
        """The predicted class of each score (+1 when the score is > 0)."""
        if self.classes.size == 1:
            return np.full(scores.shape, self.classes[0])
        # np.where picks from the two classes directly (half the time of indexing them by an intp mask)
        return np.where(scores > 0.0, self.classes[1:], self.classes[:1])


def _is_text(labels):
    """Whether an array of labels holds strings (rather than numbers)."""
    return labels.dtype.kind in "US" or (labels.dtype.kind == "O" and labels.size and isinstance(labels[0], str))
