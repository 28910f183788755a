"""detect_format by suffix and by sniffing; read_any dispatches to the right reader."""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.data import detect_format, load_libsvm, read_any, save_cache
from olearn.exceptions import DataFormatError


@pytest.mark.parametrize(
    "name, expected",
    [
        ("a.svm", "libsvm"),
        ("a.libsvm.gz", "libsvm"),
        ("a.SVMLIGHT.BZ2", "libsvm"),
        ("a.vw", "vw"),
        ("a.vw.xz", "vw"),
        ("a.csv", "csv"),
        ("a.csv.gz", "csv"),
        ("a.olc", "cache"),
    ],
)
def test_by_suffix_without_opening(tmp_path, name, expected):
    assert detect_format(tmp_path / name) == expected  # the file need not exist


@pytest.mark.parametrize(
    "text, expected",
    [
        ("# comment\n\n1 3:0.5 7:1\n", "libsvm"),
        ("-1 qid:2 3:0.5\n", "libsvm"),
        ("1\n2 1:1\n", "libsvm"),
        ("1,2 1:1\n", "libsvm"),
        ("1 'tag |ns a b:2\n", "vw"),
        ("| a\n", "vw"),
        ("1.0,2,3\n", "csv"),
        ("pixel1,pixel2,label\n0,1,2\n", "csv"),
    ],
)
@pytest.mark.parametrize("suffix", [".txt", "", ".data.gz"])
def test_by_sniffing(write, text, expected, suffix):
    assert detect_format(write(f"f{suffix}", text)) == expected


def test_cache_by_magic_bytes(tmp_path):
    path = tmp_path / "cache.bin"
    save_cache(path, sp.eye(2, format="csr"), np.zeros(2))
    assert detect_format(path) == "cache"


@pytest.mark.parametrize("text", ["", "# only\n\n", "hello world\n", "a;b;c\n"])
def test_undetectable(write, text):
    with pytest.raises(DataFormatError, match="cannot detect"):
        detect_format(write("x.txt", text))


def test_read_any_each_format(write, tmp_path):
    X, y, w = read_any(write("a.txt", "1 1:2\n-1 2:3\n"))
    assert X.toarray().tolist() == [[2, 0], [0, 3]] and y.tolist() == [1, -1] and w is None
    X, y, w = read_any(write("b.vw", "1 2 | a\n"), n_bits=4)
    assert X.shape == (1, 16) and w.tolist() == [2.0]
    X, y, w = read_any(write("c.csv", "1,2,0\n"))
    assert X.toarray().tolist() == [[1, 2]] and y.tolist() == [0] and w is None
    X_svm, y_svm = load_libsvm(write("d.svm", "1 1:2\n"), dtype=np.float32)
    save_cache(tmp_path / "d.olc", X_svm, y_svm)
    X, y, w = read_any(tmp_path / "d.olc")
    assert X.dtype == np.float64 and X.toarray().tolist() == [[2.0]] and w is None
    # an explicit format wins over the suffix
    X, _, _ = read_any(write("e.csv", "1 1:5\n"), format="libsvm")
    assert X.toarray().tolist() == [[5.0]]


def test_read_any_bad_arguments(write, tmp_path):
    path = write("a.svm", "1 1:1\n")
    with pytest.raises(ValueError, match="format must be one of"):
        read_any(path, format="arff")
    save_cache(tmp_path / "c.olc", sp.eye(1, format="csr"), np.zeros(1))
    with pytest.raises(TypeError, match="no options"):
        read_any(tmp_path / "c.olc", n_bits=3)
