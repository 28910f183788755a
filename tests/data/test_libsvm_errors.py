"""Every malformed LIBSVM input names its file, line and column and what was expected."""

import pytest

from olearn.data import load_libsvm
from olearn.exceptions import DataFormatError

CASES = [
    # (text, kwargs, line, column, message fragment)
    ("1 1:1\nabc 2:1\n", {}, 2, 1, "expected a numeric label, found 'abc'"),
    ("1:2 3:4\n", {}, 1, 1, "numeric label"),
    ("nan 1:1\n", {}, 1, 1, "label must be finite, found 'nan'"),
    ("1e400 1:1\n", {}, 1, 1, "label must be finite, found '1e400'"),
    ("1 1:1 3 4:1\n", {}, 1, 7, "found '3' (missing ':')"),
    ("1 1:abc\n", {}, 1, 5, "expected a numeric feature value after ':', found 'abc'"),
    ("1 1:0.5x 2:1\n", {}, 1, 5, "found '0.5x'"),
    ("1 1:1.2.3\n", {}, 1, 5, "numeric feature value"),
    ("1 1: 2:3\n", {}, 1, 5, "empty value after ':'"),
    ("1 2:1 3:\n", {}, 1, 9, "empty value after ':'"),
    ("1 :3\n", {}, 1, 3, "empty feature index in ':3'"),
    ("1 2:2 :\n", {}, 1, 7, "empty feature index"),
    ("1 1.5:2\n", {}, 1, 3, "non-negative integer, found '1.5'"),
    ("1 a:2\n", {}, 1, 3, "non-negative integer, found 'a'"),
    ("1 -3:2\n", {}, 1, 3, "non-negative integer, found '-3'"),
    ("1 2:1 0:1\n", {"zero_based": False}, 1, 7, "feature index 0 is invalid with 1-based"),
    ("1 1:1\n1 11:2\n", {"n_features": 10}, 2, 3, "feature index 11 is out of range for n_features=10"),
    ("1 10:1\n", {"n_features": 10, "zero_based": True}, 1, 3, "expected 0..9 (0-based)"),
    # "auto" sees index 0, so the file is 0-based and index 10 is one too many
    ("1 0:1 10:1\n", {"n_features": 10}, 1, 7, "expected 0..9 (0-based)"),
    ("1 99999999999:1\n", {}, 1, 3, "exceeds the largest supported index"),
    ("1 1:nan\n", {}, 1, 5, "feature value must be finite, found 'nan'"),
    ("1 1:-inf\n", {}, 1, 5, "feature value must be finite, found '-inf'"),
    ("1 1:Infinity\n", {}, 1, 5, "feature value must be finite"),
    ("1 1:1e999\n", {}, 1, 5, "feature value must be finite, found '1e999'"),
    ("1 1:1 1:2\n", {}, 1, 7, "duplicate feature index 1"),
    ("1 5:1 3:1 5:2\n", {}, 1, 11, "duplicate feature index 5"),
    # the first token repeating an earlier index, not a later adjacent repeat
    ("1 3:1 5:1 3:2 3:3\n", {}, 1, 11, "duplicate feature index 3"),
    ("1 qid:3 1:1\n", {}, 1, 3, "'qid:' tokens"),
    ("1.5 1:1\n", {"multilabel": True}, 1, 1, "integer labels"),
    ("1,x 2:1\n", {"multilabel": True}, 1, 3, "integer labels (multilabel=True), found 'x'"),
    ("1, 2:1\n", {"multilabel": True}, 1, 3, "integer labels"),
    ("# comment\n\n  \n1 1:1\n-1 2:x\n", {}, 5, 6, "found 'x'"),
    ("1 1:1\r\n1 2:x\r\n", {}, 2, 5, "found 'x'"),
    ("1 1:1\n\t1 2:1 2:y\n", {}, 2, 10, "found 'y'"),
]


@pytest.mark.parametrize("text, kwargs, line, column, fragment", CASES)
def test_error_location_and_message(write, assert_format_error, text, kwargs, line, column, fragment):
    assert_format_error(load_libsvm, write("bad.svm", text), line, column, fragment, **kwargs)


def test_errors_in_compressed_files_have_the_same_location(write):
    path = write("bad.svm.xz", "1 1:1\n1 2:1\n1 3:oops\n")
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path)
    assert (info.value.line, info.value.column) == (3, 5)


def test_column_counts_characters_not_bytes(write):
    # a multi-byte character before the error on the same line
    path = write("u.svm", "1 1:1 \u00e9:2\n")
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path)
    assert info.value.column == 7
    path = write("u2.svm", "1 1:\u00e9 2:x\n")
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path)
    assert info.value.column == 5


def test_first_error_in_file_order_wins(write):
    # a non-finite number (converted after the scan) before a syntax error
    path = write("two.svm", "1 1:1e999\n1 2:x\n")
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path)
    assert info.value.line == 1
