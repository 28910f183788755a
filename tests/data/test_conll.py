"""load_conll / iter_conll against hand-written files; columns from scikit-learn's MurmurHash3 (an independent hash)."""

import gzip

import numpy as np
import pytest
from sklearn.utils import murmurhash3_32

from olearn.data import detect_format, iter_conll, load_conll, load_vw, read_any
from olearn.exceptions import DataFormatError
from olearn.sequence import PASequence


def column(name, n_bits):
    return murmurhash3_32(name.encode("utf-8"), seed=0, positive=True) % (1 << n_bits)


def dense(name_counts, n_bits):
    """One token's row: each name's column, counts summed (names that share a column too)."""
    row = np.zeros(1 << n_bits)
    for name, count in name_counts.items():
        row[column(name, n_bits)] += count
    return row


TEXT = (
    "-DOCSTART- -X- O\n"
    "\n"
    "The w=the DT\n"
    "cat w=cat cat NN\n"
    "\n"
    "\n"
    "# # #\n"
    "12:30 CD\n"
    "-DOCSTART- -X- O\n"
    "runs VBZ\n"
)


def write(tmp_path, text, name="toy.conll", mode="w"):
    path = tmp_path / name
    if mode == "gz":
        path = tmp_path / (name + ".gz")
        with gzip.open(path, "wb") as f:
            f.write(text.encode("utf-8"))
    else:
        path.write_bytes(text.encode("utf-8"))
    return str(path)


def expected_sequences(n_bits):
    rows = [
        [{"The": 1, "w=the": 1}, {"cat": 2, "w=cat": 1}],
        [{"#": 2}, {"12:30": 1}],
        [{"runs": 1}],
    ]
    tags = [["DT", "NN"], ["#", "CD"], ["VBZ"]]
    return [np.array([dense(r, n_bits) for r in seq]) for seq in rows], tags


@pytest.mark.parametrize("n_bits", [4, 18])
def test_hand_written_file(tmp_path, n_bits):
    X, y = load_conll(write(tmp_path, TEXT), n_bits=n_bits)
    want_X, want_y = expected_sequences(n_bits)
    assert len(X) == 3 and [t.tolist() for t in y] == want_y
    for got, want in zip(X, want_X):
        assert got.shape == (want.shape[0], 1 << n_bits)
        assert got.has_sorted_indices
        for r in range(got.shape[0]):  # sorted, duplicate-free rows
            assert np.all(np.diff(got.indices[got.indptr[r] : got.indptr[r + 1]]) > 0)
        np.testing.assert_array_equal(got.toarray(), want)


def test_crlf_gzip_and_lone_cr_read_alike(tmp_path):
    want_X, want_y = load_conll(write(tmp_path, TEXT), n_bits=10)
    for path in (write(tmp_path, TEXT.replace("\n", "\r\n"), "crlf.conll"),
                 write(tmp_path, TEXT.replace("\n", "\r"), "cr.conll"),
                 write(tmp_path, TEXT, "z.conll", mode="gz")):
        X, y = load_conll(path, n_bits=10)
        assert [t.tolist() for t in y] == [t.tolist() for t in want_y]
        for a, b in zip(X, want_X):
            np.testing.assert_array_equal(a.toarray(), b.toarray())


def test_unlabelled_file_reads_every_field_as_a_feature(tmp_path):
    X, y = load_conll(write(tmp_path, "The DT\n\nruns\n"), n_bits=6, labelled=False)
    assert y is None
    np.testing.assert_array_equal(X[0].toarray(), [dense({"The": 1, "DT": 1}, 6)])
    np.testing.assert_array_equal(X[1].toarray(), [dense({"runs": 1}, 6)])


def test_columns_are_those_of_load_vw_and_of_pasequence_named_features(tmp_path):
    names = ["The", "w=the", "été", "suffix=ed"]
    X, _ = load_conll(write(tmp_path, " ".join(names) + " DT\n"), n_bits=12)
    # the VW reader: the same names in the default namespace
    vw = tmp_path / "same.vw"
    vw.write_text("1 | " + " ".join(names) + "\n", encoding="utf-8")
    X_vw, _, _ = load_vw(str(vw), n_bits=12)
    np.testing.assert_array_equal(X[0].toarray(), X_vw.toarray())
    # the library: PASequence(n_bits) learning dict rows of the same names puts its weights in the columns
    # where a fresh model learning the file's matrices puts them
    path = write(tmp_path, "The w=the DT\ncat été NN\n", "two.conll")
    X, y = load_conll(path, n_bits=12)
    rows = [{"The": 1.0, "w=the": 1.0}, {"cat": 1.0, "été": 1.0}]
    from_dicts = PASequence(variant="pa", n_bits=12).partial_fit([rows], [["DT", "NN"]])
    from_file = PASequence(variant="pa", n_features=1 << 12).partial_fit(X, y)
    # the rival of an unlearned model is DT DT (ties go to the smallest tags): the second token's features move
    learned = np.flatnonzero(from_file.coef_.any(axis=0))
    np.testing.assert_array_equal(learned, sorted(column(name, 12) for name in rows[1]))
    np.testing.assert_array_equal(from_dicts.coef_, from_file.coef_[:, : from_dicts.coef_.shape[1]])
    np.testing.assert_array_equal(from_dicts.transition_, from_file.transition_)


def test_iter_conll_chunks_equal_the_whole_file(tmp_path):
    path = write(tmp_path, TEXT)
    whole_X, whole_y = load_conll(path, n_bits=8)
    # tiny blocks: sequences (and lines) span the blocks
    chunks = list(iter_conll(path, chunk_size=2, n_bits=8, block_size=5))
    assert [len(X) for X, _ in chunks] == [2, 1]
    X = [x for chunk, _ in chunks for x in chunk]
    y = [t for _, tags in chunks for t in tags]
    assert [t.tolist() for t in y] == [t.tolist() for t in whole_y]
    for a, b in zip(X, whole_X):
        np.testing.assert_array_equal(a.toarray(), b.toarray())


@pytest.mark.parametrize("text, line, column, words", [
    ("The DT\ncat\n", 2, 1, "features and then its tag"),
    ("The DT\n\n\nruns VBZ\nfast\n", 5, 1, "'fast'"),
    (b"The \xff\xfe\n".decode("latin-1"), 1, 5, "not valid UTF-8"),
])
def test_errors_name_file_and_line(tmp_path, text, line, column, words):
    path = tmp_path / "bad.conll"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(DataFormatError) as info:
        load_conll(str(path))
    err = info.value
    assert (err.path, err.line, err.column) == (str(path), line, column)
    assert words in str(err)


def test_errors_in_a_streamed_file_name_the_global_line(tmp_path):
    path = write(tmp_path, "a X\n" * 50 + "\n" + "b Y\n" * 20 + "lonely\n")
    with pytest.raises(DataFormatError) as info:
        for _ in iter_conll(path, chunk_size=1, block_size=7):
            pass
    assert info.value.line == 72


@pytest.mark.parametrize("text", ["", "\n\n  \n", "-DOCSTART- -X- O\n\n"])
def test_a_file_without_tokens_is_an_error(tmp_path, text):
    with pytest.raises(DataFormatError, match="holds no token lines"):
        load_conll(write(tmp_path, text))


def test_missing_file_is_reported_at_the_call(tmp_path):
    with pytest.raises(FileNotFoundError):
        iter_conll(str(tmp_path / "absent.conll"))


def test_arguments_are_checked(tmp_path):
    path = write(tmp_path, TEXT)
    with pytest.raises(ValueError, match="n_bits"):
        load_conll(path, n_bits=0)
    with pytest.raises(ValueError, match="chunk_size"):
        iter_conll(path, chunk_size=0)


def test_detect_format(tmp_path):
    assert detect_format(str(tmp_path / "train.conll.gz")) == "conll"
    assert detect_format(write(tmp_path, TEXT, "news.txt")) == "conll"  # -DOCSTART- first
    plain = write(tmp_path, "The DT B-NP\n", "chunks.txt")
    with pytest.raises(DataFormatError, match="CoNLL"):
        detect_format(plain)
    with pytest.raises(ValueError, match="load_conll"):
        read_any(write(tmp_path, TEXT))
