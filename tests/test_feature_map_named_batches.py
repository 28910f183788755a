"""FeatureMap.rows on batches of named rows whose names change from row to row (JSON objects of a service).

Every expected column is derived by hand from the rules of olearn._features: a
vocabulary gives a new name the next free column, in the order of the keys;
hashing gives murmur3_32(name) mod 2**n_bits (scikit-learn's murmurhash3_32), names sharing a column summed.
"""

import math

import numpy as np
import pytest

from olearn._features import FeatureMap
from sklearn.utils import murmurhash3_32


def _dense(indptr, indices, data, width):
    out = np.zeros((len(indptr) - 1, width))
    for i in range(len(indptr) - 1):
        for k in range(indptr[i], indptr[i + 1]):
            out[i, indices[k]] += data[k]
    return out


def test_new_names_take_the_next_columns_in_the_order_of_the_keys():
    fm = FeatureMap()
    fm.add([("a", 0), ("b", 1)])
    batch = [{"b": 2.0, "z": 3, "a": -1.0}, {"y": 0.5, "z": 1.0}, {"a": 1.0, "b": 2.0}]
    indptr, indices, data, width, new = fm.rows(batch, base=5, learning=True)
    # z: the first free column past base 5; y: after z; the row after z's is read with z known
    assert new == [("z", 5), ("y", 6)]
    assert indptr.tolist() == [0, 3, 5, 7] and indices.tolist() == [1, 5, 0, 6, 5, 0, 1]
    assert data.tolist() == [2.0, 3.0, -1.0, 0.5, 1.0, 1.0, 2.0] and width == 7


def test_a_prediction_leaves_unknown_names_out():
    fm = FeatureMap()
    fm.add([("a", 0), ("b", 1)])
    indptr, indices, data, width, new = fm.rows([{"q": 9.0, "b": 4.0}, {"a": 1.5, "r": 2.0}], learning=False,
                                                grow=False)
    assert indptr.tolist() == [0, 1, 2] and indices.tolist() == [1, 0] and data.tolist() == [4.0, 1.5]
    assert width == 2 and new is None and fm.size == 2


def test_rows_of_every_kind_in_one_batch_keep_their_order():
    fm = FeatureMap()
    fm.add([("a", 0), ("b", 1)])
    batch = [{"a": 1.0}, {"b": "red", "a": 2.0}, {"b": 3.0, "a": None}, {3: 1.0}, {"a": 4.0, "b": 5.0},
             {"b": True}]
    indptr, indices, data, width, new = fm.rows(batch, learning=True, grow=True)
    expected = np.zeros((6, 4))
    expected[0, 0] = 1.0
    expected[1, 2], expected[1, 0] = 1.0, 2.0  # "b=red" is a new name: column 2, after the names' columns
    expected[2, 1] = 3.0
    expected[3, 3] = 1.0
    expected[4, 0], expected[4, 1] = 4.0, 5.0
    expected[5, 1] = 1.0
    assert new == [("b=red", 2)]
    np.testing.assert_array_equal(_dense(indptr, indices, data, width), expected)


@pytest.mark.parametrize("value, error", [(math.inf, ValueError), (math.nan, ValueError), (10 ** 400, ValueError),
                                          ([1.0], TypeError)])
def test_a_bad_value_is_named_with_its_row(value, error):
    fm = FeatureMap()
    with pytest.raises(error, match=r"X: row 1: feature 'v'"):
        fm.rows([{"u": 1.0}, {"u": 2.0, "v": value}], learning=True)


def test_integers_are_read_as_float_converts_them():
    big = 2 ** 70 + 1  # not a float64: rounded as float() rounds it
    indptr, indices, data, width, new = FeatureMap().rows([{"u": big, "v": 3}], learning=True)
    assert data.tolist() == [float(big), 3.0]


def test_hashed_names_sharing_a_column_are_summed():
    bits = 2
    column = {name: murmurhash3_32(name, seed=0, positive=True) % (1 << bits) for name in "abcdefgh"}
    a, b = next((p, q) for p in column for q in column if p < q and column[p] == column[q])
    c = next(name for name in column if column[name] != column[a])
    fm = FeatureMap(n_bits=bits)
    indptr, indices, data, width, new = fm.rows([{a: 1.5, c: 1.0, b: 2.0}, {c: -1.0}], learning=True)
    expected = np.zeros((2, 4))
    expected[0, column[a]] = 3.5
    expected[0, column[c]] = 1.0
    expected[1, column[c]] = -1.0
    np.testing.assert_array_equal(_dense(indptr, indices, data, 4), expected)
    assert new is None and len(set(indices[:indptr[1]].tolist())) == 2
