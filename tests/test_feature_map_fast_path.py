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
