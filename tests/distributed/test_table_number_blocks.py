"""A table shard of number columns is converted at once, into the rows the row-by-row reading makes.

The expected matrices are built by hand from the frame's values and the vocabulary's columns; a frame the
block cannot take (a text column, a missing number, a name the vocabulary lacks, hashing) is read row by row,
with its answer or its error.
"""

import numpy as np
import pandas as pd
import pytest

from olearn._features import FeatureMap
from olearn.distributed import _tables
from olearn.distributed._tables import names_in, table_chunk


def frame(n=7, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "b": rng.normal(size=n),
        "y": np.where(rng.random(n) < 0.5, 1, -1),
        "a": rng.integers(-5, 5, size=n),
        "c": rng.normal(size=n).astype(np.float32),
        "d": np.zeros(n),  # zeros stay entries, as in a dict row
    })


def by_hand(table, vocabulary):
    features = [name for name in table.columns if name != "y"]
    values = table[features].to_numpy(dtype=np.float64)
    columns = [vocabulary[name] for name in features]
    width = max(vocabulary.values()) + 1
    indptr = np.arange(0, values.size + 1, len(features))
    return indptr, np.tile(columns, len(table)), values.ravel(), width


def test_a_frame_of_numbers_becomes_each_row_every_column_in_order(monkeypatch):
    table = frame()
    vocabulary = {"x": 0, "d": 1, "b": 2, "a": 3, "c": 4}  # names learned in another order, one more
    features = FeatureMap(names=list(vocabulary))

    def no_rows(*args, **kwargs):
        raise AssertionError("read row by row")

    monkeypatch.setattr(_tables, "frame_rows", no_rows)
    X, y = table_chunk(table, "y", features, "part 0")
    indptr, indices, data, width = by_hand(table, vocabulary)
    np.testing.assert_array_equal(X.indptr, indptr)
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.data, data)
    assert X.shape == (7, width) and X.data.dtype == np.float64
    np.testing.assert_array_equal(y, table["y"].to_numpy())


@pytest.mark.parametrize("change", ["text", "missing", "unknown", "boolean", "integer names"])
def test_any_other_frame_is_read_row_by_row_as_before(change):
    table = frame(seed=1)
    names = ["b", "a", "c", "d"]
    if change == "text":
        table["a"] = np.where(table["a"] > 0, "high", "low")
        names = ["b", "a=high", "a=low", "c", "d"]
    elif change == "missing":
        table.loc[3, "b"] = np.nan
    elif change == "unknown":
        names = ["b", "a", "c"]
    elif change == "boolean":
        table["d"] = table["b"] > 0
    else:
        table = table.rename(columns={"b": 5})
        names = [5, "a", "c", "d"]
    features = FeatureMap(names=names)
    rows = table.drop(columns=["y"])
    assert _tables._number_block(rows) is None or features.columns_of(list(rows.columns)) is None
    try:
        expected = features.rows(_tables.frame_rows(rows), 0, False, False, "part 0")
    except (TypeError, ValueError) as err:
        with pytest.raises(type(err), match="part 0"):
            table_chunk(table, "y", features, "part 0")
        return
    X, _ = table_chunk(table, "y", features, "part 0")
    np.testing.assert_array_equal(X.indptr, expected[0])
    np.testing.assert_array_equal(X.indices, expected[1])
    np.testing.assert_array_equal(X.data, expected[2])


def test_the_names_of_frames_of_numbers_are_their_columns_in_order_after_the_names_before():
    first, second = frame(seed=2), frame(seed=3)[["y", "c", "b"]].assign(e=1.5)
    assert names_in([first, second], "y", "the tables") == ["b", "a", "c", "d", "e"]
    assert names_in([first.iloc[:0]], "y", "the tables") == []  # no rows: no names, as row by row


def test_hashing_reads_row_by_row():
    table = frame(seed=4)
    features = FeatureMap(n_bits=6)
    X, _ = table_chunk(table, "y", features, "part 0")
    expected = features.rows(_tables.frame_rows(table.drop(columns=["y"])), 0, False, False, "part 0")
    np.testing.assert_array_equal(X.indices, expected[1])
    assert X.shape == (7, 64)
