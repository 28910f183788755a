"""load_csv on the shared MNIST sample and on small hand-written files."""

import gzip
from pathlib import Path

import numpy as np
import pytest

from olearn.data import csv_columns, load_csv
from olearn.exceptions import DataFormatError

MNIST = Path(__file__).resolve().parents[3] / "shared" / "data" / "mnist-5k" / "mnist_5k.csv.gz"


@pytest.mark.skipif(not MNIST.exists(), reason="shared MNIST sample not available")
def test_mnist_5k_matches_numpy():
    X, y = load_csv(MNIST)
    with gzip.open(MNIST) as f:
        expected = np.loadtxt(f, delimiter=",")
    assert X.shape == (5000, 784)
    np.testing.assert_array_equal(X.toarray(), expected[:, :-1])
    np.testing.assert_array_equal(y, expected[:, -1])
    assert 0 <= X.data.min() and X.data.max() <= 255
    assert X.nnz == np.count_nonzero(expected[:, :-1])  # zeros are not stored
    assert sorted(np.unique(y).tolist()) == list(range(10))
    assert np.bincount(y.astype(int)).tolist() == [500] * 10


def test_header_auto_true_false(write):
    with_header = write("h.csv", "a,b,label\n1,2,3\n4,5,6\n")
    X, y = load_csv(with_header)
    np.testing.assert_array_equal(X.toarray(), [[1, 2], [4, 5]])
    np.testing.assert_array_equal(y, [3, 6])
    no_header = write("n.csv", "1,2,3\n4,5,6\n")
    assert load_csv(no_header)[0].shape == (2, 2)
    assert load_csv(no_header, header=True)[0].shape == (1, 2)
    with pytest.raises(DataFormatError, match="found 'a'"):
        load_csv(with_header, header=False)


def test_label_column_and_delimiter(write):
    path = write("t.tsv.bz2", "# comment\n\n7\t 1.5 \t0\r\n8\t-2\t3e2\r\n")
    X, y = load_csv(path, label_column=0, delimiter="\t")
    np.testing.assert_array_equal(X.toarray(), [[1.5, 0], [-2, 300]])
    np.testing.assert_array_equal(y, [7, 8])
    X, y = load_csv(path, label_column=None, delimiter="\t")
    assert X.shape == (2, 3) and y is None
    X, y = load_csv(path, label_column=-2, delimiter="\t")
    np.testing.assert_array_equal(y, [1.5, -2])


def test_empty_and_header_only(write):
    X, y = load_csv(write("e.csv", ""))
    assert X.shape == (0, 0) and y.shape == (0,)
    X, y = load_csv(write("ho.csv", "a,b,c\n"))
    assert X.shape == (0, 2) and y.shape == (0,)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"delimiter": ";;"}, ValueError),
        ({"delimiter": "."}, ValueError),
        ({"header": "yes"}, ValueError),
        ({"label_column": 3}, ValueError),
        ({"label_column": "x"}, ValueError),  # a name, but the file has no header
        ({"label_column": 1.5}, TypeError),
    ],
)
def test_bad_arguments(write, kwargs, error):
    with pytest.raises(error):
        load_csv(write("a.csv", "1,2,3\n"), **kwargs)


def test_label_column_by_name_and_csv_columns(write):
    path = write("named.csv", "# comment\ny,a,b\n1,0.5,2\n-1,3,0\n")
    X, y = load_csv(path, label_column="y")
    np.testing.assert_array_equal(y, [1.0, -1.0])
    np.testing.assert_array_equal(X.toarray(), [[0.5, 2.0], [3.0, 0.0]])
    assert csv_columns(path) == (["y", "a", "b"], 3)
    assert csv_columns(write("plain.csv", "\n1;2\n3;4\n"), delimiter=";") == (None, 2)
    with pytest.raises(ValueError, match="the header names y, a, b"):
        load_csv(path, label_column="z")


ERRORS = [
    ("1,2,3\n4,x5,6\n", 2, 3, "expected a number, found 'x5'"),
    ("1,2,3\n4, 5 6,6\n", 2, 4, "expected a number, found '5'"),
    ("1,2,3\n4,,6\n", 2, 3, "empty cell"),
    ("1,2,3\n4,5,\n", 2, 5, "empty cell"),
    ("1,2,3\n4,5\n", 2, 4, "expected 3 cells as on the first data line, found 2"),
    ("1,2,3\n4,5,6,7\n", 2, 6, "expected 3 cells as on the first data line, found 4"),
    ("1,2,3\n4,nan,6\n", 2, 3, "cell must be finite, found 'nan'"),
    ("1,2,3\n4,1e999,6\n", 2, 3, "cell must be finite, found '1e999'"),
    ("x,2,3\n4,5,6\n", 1, 1, "pass header=True"),
]


@pytest.mark.parametrize("text, line, col, fragment", ERRORS)
def test_error_location_and_message(write, assert_format_error, text, line, col, fragment):
    assert_format_error(load_csv, write("bad.csv.gz", text), line, col, fragment)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="none.csv"):
        load_csv(tmp_path / "none.csv")
