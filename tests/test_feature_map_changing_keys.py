"""FeatureMap.row on a stream whose keys change from row to row (the JSON objects of ``olearn serve``): nothing is
remembered for keys that never come again, and a stream repeating its keys is remembered from its second row on."""

from olearn._features import FeatureMap


def _known_map(names):
    fm = FeatureMap()
    fm.add([(name, column) for column, name in enumerate(names)])
    return fm


def test_rows_of_changing_keys_remember_nothing_and_read_their_own_columns():
    fm = _known_map(["a", "b", "c", "d"])
    rows = [{"a": 1.0, "b": 2}, {"c": -1.5, "a": 0.5}, {"d": 4.0}, {"b": 1.0, "c": 2.0, "d": 3.0}]
    for x in rows:
        indices, data, n_features, new = fm.row(x, learning=True)
        # the columns the names hold, in the order of the keys; the width one past the largest
        assert indices.tolist() == ["abcd".index(k) for k in x] and data.tolist() == [float(v) for v in x.values()]
        assert n_features == max(indices.tolist()) + 1 and new is None
        assert fm.repeated is None  # no arrays made for keys that do not come again


def test_a_stream_repeating_its_keys_is_remembered_from_its_second_row():
    fm = _known_map(["a", "b", "c"])
    fm.row({"c": 1.0, "a": 2.0})
    assert fm.repeated is None
    fm.row({"c": 3.0, "a": 4.0})
    assert fm.repeated is not None  # the next dict of these keys is read from its values only
    indices, data, n_features, _ = fm.row({"c": -1.0, "a": 0.25})
    assert indices.tolist() == [2, 0] and data.tolist() == [-1.0, 0.25] and n_features == 3
    fm.row({"b": 1.0})  # other keys: the remembered row is forgotten
    assert fm.repeated is None
    assert fm.row({"c": 5.0, "a": 6.0})[1].tolist() == [5.0, 6.0]
