"""iter_vw / iter_vw_rows read a file in windows of whole lines, on one thread or several: the rows, labels,
weights and errors are those of a plain Python reading of the lines, whatever the block size and thread count.

The reference reads each line with ``str.split`` and hashes each name with scikit-learn's MurmurHash3
(the column of ``f`` in namespace ``ns`` is ``murmur3(f, seed=murmur3(ns))`` modulo ``2**bits``,
``load_vw``'s documented formula), summing the values of a row's repeated columns left to right.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from olearn._sparse import CSRRows
from olearn.data import iter_vw, load_vw
from olearn.data._vw import iter_vw_rows
from olearn.exceptions import DataFormatError

BITS = 6

# CRLF and lone CR line breaks, blank lines, tags (quoted and bare), importance weights, namespaces, names that
# collide in 2**6 columns, numbers the parser leaves to Python (19 digits), no line break after the last line
LINES = [
    "1 2.5 'ex1 |user age:30 tall |item price:9.99 red\r\n",
    "-1 |user short\r",
    "\n",
    "0.5 |user tall tall |item red:2 b:-1e-3\n",
    "   \n",
    "-1 3 lonetag| a b c d e f g h i j k l m n o p q r s t u v w x y z\n",
    "1 |n v:0.1234567890123456789 w:1e-310\r\n",
    "|x\n",
]
TEXT = "".join(LINES * 7) + "1 |last z:2"


def _reference(text):
    """(dense rows, labels, weights) of a VW text, read by hand."""
    rows, labels, weights = [], [], []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line.strip():
            continue
        header, *namespaces = line.split("|")
        numbers = [t for t in header.split() if not t.startswith("'")]
        numbers = [t for t in numbers if _is_number(t)]
        labels.append(float(numbers[0]) if numbers else np.nan)
        weights.append(float(numbers[1]) if len(numbers) > 1 else 1.0)
        row = np.zeros(1 << BITS)
        for part in namespaces:
            name, *features = part.split(" ")
            seed = murmurhash3_32(name.encode(), 0, positive=True)
            for feature in filter(None, features):
                key, _, value = feature.partition(":")
                row[murmurhash3_32(key.encode(), seed, positive=True) % (1 << BITS)] += float(value or 1)
        rows.append(row)
    return np.array(rows), np.array(labels), np.array(weights)


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


@pytest.fixture
def vw(tmp_path):
    path = tmp_path / "tricky.vw"
    path.write_bytes(TEXT.encode())
    return str(path)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("block_size", [7, 64, 1 << 22])
def test_chunks_equal_a_reading_by_hand(vw, threads, block_size):
    dense, labels, weights = _reference(TEXT)
    chunks = list(iter_vw(vw, chunk_size=5, n_bits=BITS, block_size=block_size, threads=threads))
    assert len(labels) == 43 and [X.shape[0] for X, _, _ in chunks] == [5] * 8 + [3]
    X = sp.vstack([X for X, _, _ in chunks]).tocsr()
    assert X.has_canonical_format
    np.testing.assert_array_equal(X.toarray(), dense)
    np.testing.assert_array_equal(np.concatenate([y for _, y, _ in chunks]), labels)
    np.testing.assert_array_equal(np.concatenate([w for _, _, w in chunks]), weights)
    whole, y, w = load_vw(vw, n_bits=BITS)
    assert (whole != X).nnz == 0 and np.array_equal(y, labels, equal_nan=True) and np.array_equal(w, weights)


@pytest.mark.parametrize("threads", [1, 3])
def test_rows_are_csr_rows_of_arrays_of_their_own(vw, threads):
    chunks = list(iter_vw_rows(vw, chunk_size=8, n_bits=BITS, block_size=32, threads=threads))
    dense, _, _ = _reference(TEXT)
    assert all(isinstance(X, CSRRows) and X.shape[1] == 1 << BITS for X, _, _ in chunks)
    np.testing.assert_array_equal(np.vstack([X.tocsr().toarray() for X, _, _ in chunks]), dense)
    # each chunk owns arrays cut to its entries (not views of a window's parse, sized by the text)
    assert all(X.data.base is None or X.data.base.size < 2 * X.data.size + 64 for X, _, _ in chunks)


@pytest.mark.parametrize("text", ["|\n" * 50 + "|", "| a b c d e f g h\n" * 20 + "| a"])
@pytest.mark.parametrize("block_size", [2, 3, 5, 1 << 22])
def test_the_densest_texts_fit_the_room_taken_from_their_length(tmp_path, text, block_size):
    # a row of two bytes ('|' and its line break), an entry of two (a blank and a name byte): the bounds
    path = tmp_path / "dense.vw"
    path.write_text(text)
    dense, _, _ = _reference(text)
    X = sp.vstack([X for X, _, _ in iter_vw(path, chunk_size=7, n_bits=BITS, block_size=block_size, threads=2)])
    np.testing.assert_array_equal(X.toarray(), dense)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("block_size", [16, 100, 1 << 22])
@pytest.mark.parametrize("bad, column, words", [("1 |a x:oops", 8, "found 'oops'"), ("yes |a b", 1, "'yes' is not a number"),
                                                ("1 a b", 6, "expected '|'")])
def test_an_error_names_the_file_line_whichever_window_and_thread_met_it(tmp_path, threads, block_size, bad, column,
                                                                          words):
    lines = ["1 |a b:1\r\n", "-1 |a c\n", "\n"] * 9
    lines.insert(20, bad + "\n")
    path = tmp_path / "bad.vw"
    path.write_bytes("".join(lines).encode())
    line = 21  # the 1-based line of the bad one
    chunks = iter_vw(path, chunk_size=4, n_bits=BITS, block_size=block_size, threads=threads, require_labels=True)
    seen = 0
    with pytest.raises(DataFormatError) as err:
        for X, _, _ in chunks:
            seen += X.shape[0]
    assert f"bad.vw:{line}:{column}: " in str(err.value) and words in str(err.value)
    assert seen <= 12  # no chunk holding the bad line (the 15th row) or a row after it was given
