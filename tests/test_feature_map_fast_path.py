"""FeatureMap.row on a repeated row: the values are read anew on every call, into an array of the call's own.

(The stream-wide fuzzing of the fast path is tests/fuzz/test_feature_map_rows.py.)
"""

import math

import pytest

from olearn._features import FeatureMap


@pytest.mark.parametrize("keys", [[0, 1, 2], ["a", "b", "c"], [900, 901, 902]], ids=["small ints", "names", "ints"])
def test_a_dict_changed_in_place_is_read_again(keys):
    fm = FeatureMap()
    x = dict.fromkeys(keys, 1.0)
    fm.add(fm.row(x, learning=True)[3] or [])
    indices, first, _, _ = fm.row(x)
    x[keys[1]] = -2.5  # the same dict object, the same keys: only a value changed
    _, second, _, _ = fm.row(x)
    assert first.tolist() == [1.0, 1.0, 1.0] and second.tolist() == [1.0, -2.5, 1.0]
    second[0] = 7.0  # each call's array is its own
    assert fm.row(x)[1].tolist() == [1.0, -2.5, 1.0] and first.tolist() == [1.0, 1.0, 1.0]
    x[keys[2]] = math.nan
    with pytest.raises(ValueError, match=repr(keys[2])):
        fm.row(x)
    x[keys[2]] = "red"  # a category now: "c=red" is no name the map knows, so it is left out
    indices, data, _, _ = fm.row(x)
    # an integer key is its column; the names took the columns 0, 1, 2 in their order
    assert data.tolist() == [1.0, -2.5] and indices.tolist() == [k if isinstance(k, int) else keys.index(k)
                                                                 for k in keys[:2]]


def test_a_mapping_that_is_not_a_dict_is_read_as_a_mapping():
    import types

    fm = FeatureMap()
    assert fm.row({})[2] == 0  # an empty row: nothing to read the next time
    indices, data, n_features, _ = fm.row(types.MappingProxyType({3: 1.5}))
    assert indices.tolist() == [3] and data.tolist() == [1.5] and n_features == 4


# -- rows of integer keys whose columns change from row to row (FeatureMap._integer_row) ---------------------------


def _expected(x):
    """The plain reading of a dict of integer keys: the keys in order as columns, the values as floats."""
    return [int(k) for k in x], [float(v) for v in x.values()]


@pytest.mark.parametrize("hashing", [None, 18])
def test_rows_of_changing_integer_keys_are_their_keys_and_values(hashing):
    import numpy as np

    rng = np.random.default_rng(4)
    fm = FeatureMap(n_bits=hashing)
    for _ in range(200):
        keys = rng.choice(1 << 18, size=int(rng.integers(1, 40)), replace=False).tolist()
        values = [float(v) if i % 3 else int(v * 10) for i, v in enumerate(rng.normal(size=len(keys)))]
        x = dict(zip(keys, values))
        indices, data, n_features, new = fm.row(x, learning=True)
        assert (indices.tolist(), data.tolist()) == _expected(x)
        assert (indices.dtype, data.dtype, n_features, new) == (np.int64, np.float64, max(keys) + 1, None)


@pytest.mark.parametrize("x, error, match", [
    ({3: 1.0, -2: 1.0}, ValueError, "feature index -2 is negative"),
    ({3: 1.0, 1 << 62: 1.0}, ValueError, "too large"),
    ({3: 1.0, 5: math.inf}, ValueError, r"feature 5 has value inf"),
    ({3: 1.0, 5: 10 ** 400}, ValueError, r"feature 5 has value 1000"),
    ({3: 1.0, 5: [1.0]}, TypeError, r"feature 5 has value \[1.0\] of type list"),
    ({3: 1.0, 2.0: 1.0}, TypeError, "feature key 2.0 is a float"),
], ids=["negative key", "huge key", "inf", "int past float64", "list value", "float key"])
def test_a_row_of_integer_keys_with_a_fault_is_refused_by_name(x, error, match):
    with pytest.raises(error, match=match):
        FeatureMap().row(x, learning=True)


def test_bool_keys_and_values_and_numpy_numbers_keep_their_meaning():
    import numpy as np

    fm = FeatureMap()
    indices, data, _, _ = fm.row({True: 2.0, 4: True, 7: np.float32(0.5), np.int64(9): 1.0}, learning=True)
    assert indices.tolist() == [1, 4, 7, 9] and data.tolist() == [2.0, 1.0, 0.5, 1.0]


def test_an_integer_key_on_a_named_column_is_refused_on_the_fast_path_too():
    fm = FeatureMap()
    fm.add(fm.row({"a": 1.0, "b": 1.0}, learning=True)[3])
    with pytest.raises(ValueError, match="column 1 holds the named feature 'b'"):
        fm.row({5: 1.0, 1: 2.0}, learning=True)
