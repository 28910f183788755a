"""FeatureMap.rows of a batch whose names are all known and whose values are all plain numbers, read at once (the
steady state of a service's batches), against the columns derived by hand from the vocabulary; any other batch
is read row by row, as before (a new name, a category, a bool, a value that is not a finite number)."""

import math

import numpy as np
import pytest

from olearn._features import FeatureMap


def _vocabulary():
    fm = FeatureMap()
    fm.add([("a", 0), ("b", 1), ("c", 2), ("d", 7)])  # a column left free between c and d
    return fm


def test_a_batch_of_known_names_is_its_columns_in_the_order_of_its_keys():
    fm = _vocabulary()
    batch = [{"d": 1.5, "a": -2}, {}, {"b": 3, "c": 0.25, "a": 1e-3}, {"d": 2.0, "a": -2}]
    assert fm.known_rows(batch) is not None  # read at once
    indptr, indices, data, width, new = fm.rows(batch, base=8, learning=True)
    assert indptr.tolist() == [0, 2, 2, 5, 7]
    assert indices.tolist() == [7, 0, 1, 2, 0, 7, 0]
    assert data.dtype == np.float64 and data.tolist() == [1.5, -2.0, 3.0, 0.25, 1e-3, 2.0, -2.0]
    assert width == 8 and new is None


def test_a_large_integer_is_its_float():
    indptr, indices, data, width, new = _vocabulary().rows([{"a": 2 ** 70}, {"b": -(10 ** 300)}], learning=True)
    assert data.tolist() == [float(2 ** 70), -1e300] and indices.tolist() == [0, 1]


@pytest.mark.parametrize("odd_row, expected_indices, expected_data", [
    ({"a": True, "b": False}, [0, 1], [1.0, 0.0]),       # bools are 1 and 0
    ({"a": "1.5"}, [8], [1.0]),                          # a string that reads as a number is a category: a=1.5
    ({"a": 1.0, "zz": 2.0}, [0, 8], [1.0, 2.0]),         # a new name: the first free column past base
    ({"a": None, "b": 2.0}, [1], [2.0]),                 # None is absent
])
def test_any_other_row_is_read_as_learn_one_reads_it(odd_row, expected_indices, expected_data):
    fm = _vocabulary()
    batch = [{"c": 1.0}, odd_row]
    assert fm.known_rows(batch) is None
    indptr, indices, data, width, new = fm.rows(batch, base=8, learning=True)
    assert indptr.tolist() == [0, 1, 1 + len(expected_indices)]
    assert indices.tolist() == [2, *expected_indices] and data.tolist() == [1.0, *expected_data]


@pytest.mark.parametrize("value", [math.nan, math.inf, 10 ** 400])
def test_a_value_that_is_not_a_finite_number_is_named_with_its_row(value):
    with pytest.raises(ValueError, match="row 1"):
        _vocabulary().rows([{"a": 1.0}, {"b": value}], learning=True)
