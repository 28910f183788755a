"""The binary label helpers against NumPy's own answers (np.unique, np.where)."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from olearn._labels import BinaryLabels, all_in, distinct_labels

FIXED = [
    np.array([1.0]), np.array([3, 3, 3]), np.array([2, 1, 2, 1]), np.array([1, 2, 3]), np.array(["b", "a", "b"]),
    np.array([True, False, True]), np.array([0.0, -0.0]), np.array([5, 5, 7, 5, 9]), np.array([], dtype=float),
    np.array(["x", "y", "z"]), np.array([b"n", b"p"]), np.array(["a", "b"], dtype=object), np.array([2**63, 1], np.uint64),
]


@pytest.mark.parametrize("y", FIXED, ids=range(len(FIXED)))
def test_distinct_labels_are_np_unique(y):
    got = distinct_labels(y)
    assert got.dtype == np.unique(y).dtype
    assert_array_equal(got, np.unique(y))


def test_distinct_labels_of_random_batches_are_np_unique():
    rng = np.random.default_rng(3)
    for _ in range(3000):
        pool = rng.normal(size=rng.integers(1, 4)) if rng.random() < 0.5 else np.arange(rng.integers(1, 4)) - 1
        y = rng.choice(pool, size=int(rng.integers(1, 40)))
        assert_array_equal(distinct_labels(y), np.unique(y))


@pytest.mark.parametrize("labels", [np.array([-1.0, 1.0, 1.0, -1.0]), np.array(["no", "yes", "no"]), np.array([0, 7, 7])])
def test_the_encoding_is_plus_one_for_the_positive_class_only(labels):
    encoding = BinaryLabels("test")
    encoding.observe(labels)
    assert_array_equal(encoding.encode(labels), np.where(labels == sorted(set(labels))[-1], 1.0, -1.0))
    assert encoding.encode(labels).dtype == np.float64


@pytest.mark.parametrize("y", FIXED, ids=range(len(FIXED)))
def test_all_in_is_np_isin_for_two_classes(y):
    for classes in (np.unique(y)[:2], np.array([1, 2]), np.array(["a", "b"])):
        if classes.size == 2:
            assert all_in(y, classes) == bool(np.isin(y, classes).all())
