"""The slots of labels (``ClassSlots``): the table of integer classes agrees with a dict of the labels.

The reference is the learner's own record of slots, ``slot_of`` (a dict filled in
order of arrival), read label by label in Python; the table (``_slot_table``)
and the sorted search it stands in for must both give what it gives.
"""

import numpy as np
import pytest

from olearn.multiclass import PAMulticlass
from olearn.multiclass._classes import ClassSlots

# label sets in order of arrival: a table from 0, one from the lowest class, none (too wide, not integers)
CLASS_SETS = {
    "0..9": [3, 0, 9, 1, 2, 8, 4, 7, 5, 6],
    "from 1, gaps": [5, 1, 40],
    "negative": [-3, 7, -10, 0],
    "far from 0": [1_000_003, 1_000_000, 1_000_010],
    "too wide for a table": [0, 5, 1 << 40],
    "int64 extremes": [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0],
    "floats": [2.0, 0.5, -1.0],
    "strings": ["b", "a", "c"],
}


def _reference_slots(slots, y):
    return np.array([slots.slot_of[label] for label in y.tolist()], dtype=np.int64)


def _fitting_types(classes):
    """The label arrays' types that hold every class exactly: the default, then the numeric types that fit."""
    if not all(isinstance(c, (int, np.integer)) for c in classes):
        return [None]
    fitting = [dtype for dtype in (np.int32, np.uint8, np.uint64)
               if all(np.iinfo(dtype).min <= c <= np.iinfo(dtype).max for c in classes)]
    if all(abs(c) < 2**53 for c in classes):  # a float64 holds every integer below 2**53
        fitting.append(np.float64)
    return [None] + fitting


CASES = [(name, dtype) for name, classes in CLASS_SETS.items() for dtype in _fitting_types(classes)]


@pytest.mark.parametrize(("name", "dtype"), CASES, ids=[f"{n}-{getattr(t, '__name__', 'default')}" for n, t in CASES])
def test_slots_agree_with_the_dict_of_labels(name, dtype):
    classes = CLASS_SETS[name]
    y = np.array(classes)[np.random.default_rng(0).integers(0, len(classes), 500)]
    if dtype is not None:
        y = y.astype(dtype)
    slots = ClassSlots("test")
    slots.add(slots.new_labels(y))
    assert slots.labels == list(dict.fromkeys(y.tolist()))
    assert slots.new_labels(y) == []
    np.testing.assert_array_equal(slots.slots(y), _reference_slots(slots, y))


def test_the_table_is_used_where_it_fits():
    used = {}
    for name, classes in CLASS_SETS.items():
        slots = ClassSlots("test")
        slots.add(classes)
        used[name] = slots.table is not None
    assert used == {"0..9": True, "from 1, gaps": True, "negative": True, "far from 0": True,
                    "too wide for a table": False, "int64 extremes": False, "floats": False, "strings": False}


@pytest.mark.parametrize("name", ["0..9", "from 1, gaps", "negative", "far from 0"])
def test_new_labels_between_below_and_above_the_classes(name):
    classes = CLASS_SETS[name]
    slots = ClassSlots("test")
    slots.add(classes)
    lo, hi = min(classes), max(classes)
    gap = next(v for v in range(lo, hi + 2) if v not in classes)
    y = np.array([classes[0], gap, lo - 1, classes[-1], hi + 5, gap, lo - 1], dtype=np.int64)
    assert slots.new_labels(y) == [gap, lo - 1, hi + 5]
    slots.add(slots.new_labels(y))
    np.testing.assert_array_equal(slots.slots(y), _reference_slots(slots, y))


def test_uint64_labels_beyond_int64_are_not_read_as_negative():
    slots = ClassSlots("test")
    slots.add([-1, 0, 1])
    y = np.array([0, 2**64 - 1], dtype=np.uint64)  # 2**64 - 1 would read as -1 in int64
    assert [int(v) for v in slots.new_labels(y)] == [2**64 - 1]


def test_a_learner_predicts_the_same_with_labels_shifted_far_from_0():
    """A monotone relabelling keeps the order of the classes, so every prediction maps to the shifted one."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 5))
    y = np.argmax(X @ rng.standard_normal((5, 4)), axis=1)
    near = PAMulticlass(variant="pa1").partial_fit(X, y)
    far = PAMulticlass(variant="pa1").partial_fit(X, y + 10**9)
    np.testing.assert_array_equal(far.predict(X), near.predict(X) + 10**9)
    np.testing.assert_array_equal(far.coef_, near.coef_)


def test_a_pickle_without_the_table_loads_and_finds_the_slots():
    """The table is derived state: a pickle carries the labels only, and one made before the table existed (its
    state has no ``table``) gets it back."""
    import pickle

    slots = ClassSlots("test")
    slots.add([4, 2, 9])
    state = slots.__getstate__()
    assert "table" not in state
    old = ClassSlots.__new__(ClassSlots)
    old.__setstate__(state)
    y = np.array([9, 2, 4, 4])
    np.testing.assert_array_equal(old.slots(y), [2, 1, 0, 0])
    assert old.table is not None
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(slots)).slots(y), [2, 1, 0, 0])
