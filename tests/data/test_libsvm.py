"""load_libsvm: agreement with scikit-learn's reader and writer, and the format's corners."""

import io
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from olearn.data import iter_libsvm, load_libsvm
from olearn.exceptions import DataFormatError


def random_csr(rng, n, d, density):
    X = sp.random(n, d, density=density, format="csr", random_state=rng)
    X.data = rng.standard_normal(X.nnz) * 10.0 ** rng.integers(-30, 30, X.nnz)
    return X


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("seed", [0, 1])
def test_round_trip_with_sklearn_dump(write, suffix, seed):
    rng = np.random.default_rng(seed)
    keep = np.ones(300)
    keep[3] = 0  # an empty row
    X = sp.csr_matrix(sp.diags(keep) @ random_csr(rng, 300, 50, 0.1))
    X.eliminate_zeros()
    assert X[3].nnz == 0
    y = rng.standard_normal(300)
    text = io.BytesIO()
    dump_svmlight_file(X, y, text, zero_based=False)
    plain = write("plain.svm", text.getvalue())
    compressed = write(f"data.svm{suffix}", text.getvalue())

    X_ours, y_ours = load_libsvm(compressed, n_features=50)
    X_sk, y_sk = load_svmlight_file(str(plain), n_features=50, zero_based=False)

    assert X_ours.shape == (300, 50)
    # exact against scikit-learn's reader; to 16 digits (what the writer keeps) against X
    assert (X_ours != X_sk).nnz == 0
    np.testing.assert_array_equal(y_ours, y_sk)
    np.testing.assert_allclose(X_ours.toarray(), X.toarray(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(y_ours, y, rtol=1e-15, atol=0)
    assert X_ours.has_sorted_indices
    for i in range(X_ours.shape[0]):
        row = X_ours.indices[X_ours.indptr[i] : X_ours.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)


def test_zero_based_dump_is_detected_like_sklearn(tmp_path):
    rng = np.random.default_rng(2)
    X = random_csr(rng, 100, 20, 0.3).tolil()
    X[0, 0] = 1.5  # make sure index 0 is written
    X = X.tocsr()
    y = rng.integers(0, 3, 100)
    path = tmp_path / "zero.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    X_ours, y_ours = load_libsvm(path)
    X_sk, y_sk = load_svmlight_file(str(path))
    assert X_ours.shape == X_sk.shape == (100, 20)
    assert (X_ours != X_sk).nnz == 0
    np.testing.assert_array_equal(y_ours, y_sk)
    # explicit modes
    assert (load_libsvm(path, zero_based=True)[0] != X_sk).nnz == 0
    with pytest.raises(DataFormatError, match="index 0"):
        load_libsvm(path, zero_based=False)


def test_one_based_columns_and_shape(write):
    path = write("a.svm", "1 1:1 4:4\n-1 2:2\n")
    X, y = load_libsvm(path)
    np.testing.assert_array_equal(X.toarray(), [[1, 0, 0, 4], [0, 2, 0, 0]])
    X, _ = load_libsvm(path, n_features=7)
    assert X.shape == (2, 7)
    X, _ = load_libsvm(path, zero_based=True)
    np.testing.assert_array_equal(X.toarray(), [[0, 1, 0, 0, 4], [0, 0, 2, 0, 0]])


def test_comments_blank_lines_crlf_tabs_and_signs(write):
    text = (
        "# header comment\r\n"
        "\r\n"
        "   \t\n"
        "+1\t3:+2.5e1  1:-.5 # trailing comment 9:9\r\n"
        "  # indented comment\n"
        "-2 2:1.#no space before comment\n"
        "0.5\n"
        "3 2:7"  # no final newline
    )
    X, y = load_libsvm(write("c.svm", text))
    np.testing.assert_array_equal(y, [1.0, -2.0, 0.5, 3.0])
    np.testing.assert_array_equal(
        X.toarray(), [[-0.5, 0, 25.0], [0, 1.0, 0], [0, 0, 0], [0, 7.0, 0]]
    )


def test_unsorted_rows_are_sorted_with_their_values(write):
    X, _ = load_libsvm(write("u.svm", "1 5:5 2:2 9:9 1:1\n1 3:3\n"))
    assert X.indices[:4].tolist() == [0, 1, 4, 8]
    assert X.data[:4].tolist() == [1.0, 2.0, 5.0, 9.0]


def test_long_unsorted_row_uses_the_long_sort(write):
    # more entries than the insertion-sort cut-off, in reverse order
    n = 500
    text = "1 " + " ".join(f"{j}:{j}.25" for j in range(n, 0, -1)) + "\n"
    X, _ = load_libsvm(write("r.svm", text))
    np.testing.assert_array_equal(X.indices, np.arange(n))
    np.testing.assert_array_equal(X.data, np.arange(1, n + 1) + 0.25)


def test_many_unsorted_rows_and_fixups_in_one_read(write):
    # More unsorted rows and more numbers left to the exact conversion (exponents, long mantissas) than the
    # parser's first lists hold, in one line and over many lines: the parser stops, the reader makes room and
    # parses on from the line that did not fit. Expected: each row's pairs sorted, values Python's float.
    rng = np.random.default_rng(0)
    lines, expected_rows, expected_y = [], [], []
    for r in range(300):
        n = 1000 if r == 7 else int(rng.integers(1, 40))
        columns = rng.choice(np.arange(1, 2000), n, replace=False)  # unsorted
        values = [f"{v:.17e}" if rng.random() < 0.7 else f"{v:.6f}" for v in rng.standard_normal(n)]
        label = "2.5e0" if r % 3 == 0 else "-1"
        lines.append(label + " " + " ".join(f"{j}:{v}" for j, v in zip(columns, values)) + "\n")
        expected_rows.append(sorted((int(j) - 1, float(v)) for j, v in zip(columns, values)))
        expected_y.append(float(label))
    indptr = np.cumsum([0] + [len(row) for row in expected_rows])
    indices = [j for row in expected_rows for j, _ in row]
    data = np.array([v for row in expected_rows for _, v in row])
    path = write("many.svm", "".join(lines))
    X, y = load_libsvm(path, n_features=2000)
    for got in (X, sp.vstack([Xc for Xc, _ in iter_libsvm(path, chunk_size=70, n_features=2000)], format="csr")):
        np.testing.assert_array_equal(got.indptr, indptr)
        np.testing.assert_array_equal(got.indices, indices)
        assert np.array_equal(got.data.view(np.int64), data.view(np.int64))
    np.testing.assert_array_equal(y, expected_y)


def test_explicit_zeros_are_kept(write):
    X, _ = load_libsvm(write("z.svm", "1 1:0 2:3\n"))
    assert X.nnz == 2


def test_empty_file_and_only_comments(write):
    X, y = load_libsvm(write("e.svm", ""))
    assert X.shape == (0, 0) and y.shape == (0,)
    X, y = load_libsvm(write("e2.svm", "# nothing\n\n"), n_features=4)
    assert X.shape == (0, 4) and y.shape == (0,)


def test_float32_dtype(write):
    X, y = load_libsvm(write("f.svm", "1 1:0.1\n"), dtype=np.float32)
    assert X.dtype == np.float32 and X.data[0] == np.float32(0.1)
    assert y.dtype == np.float64


def test_multilabel(write):
    path = write("m.svm", "1,3,7 1:1\n2 2:2\n 1:5\n7,-1 3:3\n")
    X, y = load_libsvm(path, multilabel=True)
    assert y == [(1, 3, 7), (2,), (), (-1, 7)]
    assert all(isinstance(v, int) for t in y for v in t)
    _, y_sk = load_svmlight_file(str(path), multilabel=True)
    assert [tuple(int(v) for v in t) for t in y_sk] == y
    assert X.shape == (4, 3)


def test_pathlike_and_str(write):
    path = write("p.svm", "1 1:1\n")
    assert load_libsvm(str(path))[0].nnz == load_libsvm(Path(path))[0].nnz == 1


def test_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "nope.svm"
    with pytest.raises(FileNotFoundError, match="nope.svm"):
        load_libsvm(missing)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"zero_based": "yes"}, ValueError),
        ({"n_features": 0}, ValueError),
        ({"n_features": 2.5}, TypeError),
        ({"dtype": np.int64}, TypeError),
    ],
)
def test_bad_arguments(write, kwargs, error):
    with pytest.raises(error):
        load_libsvm(write("b.svm", "1 1:1\n"), **kwargs)


def test_magic_bytes_decide_compression_without_suffix(tmp_path):
    import gzip

    path = tmp_path / "noext"
    path.write_bytes(gzip.compress(b"1 2:3\n"))
    X, y = load_libsvm(path)
    assert X.toarray().tolist() == [[0.0, 3.0]] and y.tolist() == [1.0]


number_formats = st.sampled_from(["%r", "%.17g", "%.16g", "%.15g", "%.3e", "%.20e", "%.30f"])
finite_floats = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.tuples(finite_floats, number_formats), min_size=1, max_size=20))
def test_values_equal_python_float_of_the_token(tmp_path_factory, values):
    tokens = [(fmt % v if fmt != "%r" else repr(v)) for v, fmt in values]
    tokens = [t for t in tokens if math.isfinite(float(t))]  # %.3e can round up to inf
    if not tokens:
        return
    line = "1 " + " ".join(f"{j + 1}:{t}" for j, t in enumerate(tokens)) + "\n"
    path = tmp_path_factory.mktemp("h") / "v.svm"
    path.write_text(line + tokens[0] + "\n")
    X, y = load_libsvm(path)
    expected = [float(t) for t in tokens]
    assert X.toarray()[0].tolist() == expected
    assert y[1] == float(tokens[0])


def test_numbers_with_many_digits_and_extreme_exponents(write):
    tokens = [
        "0." + "1" * 80,  # longer than the batched fix-up width
        "123456789012345678901234567890",
        "1e-320",  # subnormal
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "9007199254740993",  # 2**53 + 1: needs correct rounding
        "0.000000000000000000000000000001",
        "-0",
    ]
    line = "1 " + " ".join(f"{j + 1}:{t}" for j, t in enumerate(tokens)) + "\n"
    X, _ = load_libsvm(write("d.svm", line))
    assert X.toarray()[0].tolist() == [float(t) for t in tokens]


def plain_decimals(rng, n):
    """Tokens ``[-]digits[.digits]``: up to 12 digits before the point (leading zeros too), up to 14 after, some
    with a point and no digit after it or none before it, around the 18 digits and 2**53 where the reader changes
    its way of converting."""
    tokens = []
    for _ in range(n):
        whole = "".join(rng.choice(list("0123456789"), rng.integers(0, 13)))
        fraction = "".join(rng.choice(list("0123456789"), rng.integers(0, 15)))
        if not whole and not fraction:
            whole = "0"
        sign = "-" if rng.random() < 0.3 else ""
        point = "." if fraction or rng.random() < 0.2 else ""
        tokens.append(sign + whole + point + fraction)
    return tokens + ["9007199254740992", "9007199254740993", "900719925474099.3", "0.000000000000000001",
                     "123456789.123456789", "-0.0", "0.", ".5", "-.5", "00000000000000000001.5"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plain_decimals_equal_python_float_and_sklearn_bit_for_bit(tmp_path, seed):
    tokens = plain_decimals(np.random.default_rng(seed), 3000)
    path = tmp_path / "plain.svm"
    # labels too, but for the integers a float64 label cannot hold (refused, see test_libsvm_errors)
    labels = [t if "." in t else "1" for t in tokens]
    path.write_text("".join(f"{label} {j % 50 + 1}:{t}\n" for j, (label, t) in enumerate(zip(labels, tokens))))
    X, y = load_libsvm(path, n_features=50)
    X_sk, y_sk = load_svmlight_file(str(path), n_features=50)
    expected = np.array([float(t) for t in tokens])
    expected_y = np.array([float(t) for t in labels])
    # bit patterns, so that -0.0 and 0.0 differ
    assert np.array_equal(X.data.view(np.int64), expected.view(np.int64))
    assert np.array_equal(y.view(np.int64), expected_y.view(np.int64))
    assert np.array_equal(X_sk.data.view(np.int64), expected.view(np.int64))
    assert np.array_equal(y_sk.view(np.int64), expected_y.view(np.int64))


def test_detect_zero_based_reads_multilabel_lines(tmp_path):
    from olearn.data._libsvm import detect_zero_based

    path = tmp_path / "multilabel.svm"
    path.write_text("1,3 0:0.5 2:1\n 1:1\n")
    assert detect_zero_based(path, multilabel=True) is True
    path.write_text("1,3 1:0.5 2:1\n")
    assert detect_zero_based(path, multilabel=True) is False
    with pytest.raises(ValueError, match="expected a numeric label"):
        detect_zero_based(path)
