"""The shared mapping of dict keys to columns (olearn._features.FeatureMap)."""

import numpy as np
import pytest

from olearn._features import FeatureMap
from olearn.data import load_vw


def _learn(fm, x, base=0):
    indices, data, n_features, new = fm.row(x, base=base, learning=True)
    if new:
        fm.add(new)
    return indices.tolist(), data.tolist(), n_features


def test_vocabulary_gives_new_names_the_next_columns_and_keeps_them():
    fm = FeatureMap()
    assert _learn(fm, {"b": 2.0, "a": 1.0}) == ([0, 1], [2.0, 1.0], 2)
    assert _learn(fm, {"a": 3.0, "c": 4.0}) == ([1, 2], [3.0, 4.0], 3)
    assert fm.vocabulary() == {"b": 0, "a": 1, "c": 2}
    # names after every column the caller already uses (base) and every integer key of the row
    assert _learn(fm, {"d": 1.0}, base=7) == ([7], [1.0], 8)
    assert _learn(fm, {12: 1.0, "e": 1.0}) == ([12, 13], [1.0, 1.0], 14)


def test_categories_are_one_hot_and_none_is_absent():
    fm = FeatureMap()
    assert _learn(fm, {"city": "Paris", "age": 31, "zip": None}) == ([0, 1], [1.0, 31.0], 2)
    assert fm.vocabulary() == {"city=Paris": 0, "age": 1}
    # an unknown category, not being learned, contributes nothing
    indices, data, _, new = fm.row({"city": "Rome", "age": 40}, learning=False)
    assert indices.tolist() == [1] and data.tolist() == [40.0] and new is None


def test_fast_path_reuses_columns_only_for_the_same_keys_in_the_same_order():
    fm = FeatureMap()
    _learn(fm, {"a": 1.0, "b": 2.0})
    assert _learn(fm, {"a": 5.0, "b": 6.0}) == ([0, 1], [5.0, 6.0], 2)
    assert _learn(fm, {"b": 5.0, "a": 6.0}) == ([1, 0], [5.0, 6.0], 2)
    # a numeric string is a category, never read as a number
    assert _learn(fm, {"b": "5", "a": 6.0}) == ([2, 0], [1.0, 6.0], 3)
    with pytest.raises(ValueError, match="feature 'a' has value nan"):
        fm.row({"b": 1.0, "a": float("nan")})


def test_integer_key_on_a_named_column_and_float_keys_are_refused():
    fm = FeatureMap()
    _learn(fm, {"a": 1.0})
    with pytest.raises(ValueError, match="column 0 holds the named feature 'a'"):
        fm.row({0: 1.0}, learning=True)
    with pytest.raises(TypeError, match="feature key 1.0 is a float"):
        fm.row({1.0: 1.0})
    with pytest.raises(ValueError, match="feature index -1 is negative"):
        fm.row({-1: 1.0})
    with pytest.raises(TypeError, match="feature 'a' has value"):
        fm.row({"a": [1.0]})


def test_truncate_forgets_the_names_of_a_refused_example():
    fm = FeatureMap(names=["x0", "x1"])
    _learn(fm, {"x2": 1.0})
    fm.truncate(2)
    assert fm.vocabulary() == {"x0": 0, "x1": 1} and fm.name_of(2) is None
    assert _learn(fm, {"y": 1.0}) == ([2], [1.0], 3)


def test_hashing_gives_the_columns_of_the_vw_reader(tmp_path):
    path = tmp_path / "one.vw"
    path.write_text("1 | age:31 city=Paris zip:2 w:1.5 w2:0.5\n")
    X, _, _ = load_vw(path, n_bits=10)
    indices, data, n_features, new = FeatureMap(n_bits=10).row(
        {"age": 31, "city": "Paris", "zip": 2, "w": 1.5, "w2": 0.5}, learning=True
    )
    expected = dict(zip(X.indices.tolist(), X.data.tolist()))
    got = {}
    for j, v in zip(indices.tolist(), data.tolist()):
        got[j] = got.get(j, 0.0) + v
    assert got == expected and new is None and n_features <= 1 << 10


def test_hashing_sums_names_sharing_a_column_and_bounds_integer_keys():
    fm = FeatureMap(n_bits=1)
    indices, data, _, _ = fm.row({f"n{k}": 1.0 for k in range(9)})
    assert np.unique(indices).size == indices.size and data.sum() == 9.0
    with pytest.raises(ValueError, match="past the 2\\*\\*1 = 2 columns"):
        fm.row({2: 1.0})


def test_an_integer_key_with_a_category_is_a_name_not_an_index():
    fm = FeatureMap()
    row = {0: 1.0, "city": 2.0, 3: "Rome"}
    assert _learn(fm, row, base=3) == ([0, 3, 4], [1.0, 2.0, 1.0], 5)
    assert fm.vocabulary() == {"city": 3, "3=Rome": 4}
    # column 3 is the name "city", and the key 3 here is no index but the category "3=Rome"
    assert _learn(fm, row, base=5) == ([0, 3, 4], [1.0, 2.0, 1.0], 5)
    with pytest.raises(ValueError, match="column 3 holds the named feature 'city'"):
        fm.row({3: 1.0}, learning=True)
