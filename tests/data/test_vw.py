"""load_vw against a hand-written file and an independent transcription of the hash."""

import math

import numpy as np
import pytest
from sklearn.utils import murmurhash3_32

from olearn.data import load_vw


def murmur3_32_reference(key: bytes, seed: int) -> int:
    """MurmurHash3 x86_32, transcribed from Appleby's description with Python ints."""

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed
    n_blocks = len(key) // 4
    for b in range(n_blocks):
        k = int.from_bytes(key[4 * b : 4 * b + 4], "little")
        k = rotl(k * c1 & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    tail = key[4 * n_blocks :]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= rotl(k * c1 & 0xFFFFFFFF, 15) * c2 & 0xFFFFFFFF
    h ^= len(key)
    h = (h ^ (h >> 16)) * 0x85EBCA6B & 0xFFFFFFFF
    h = (h ^ (h >> 13)) * 0xC2B2AE35 & 0xFFFFFFFF
    return h ^ (h >> 16)


def test_reference_hash_matches_known_values_and_sklearn():
    assert murmur3_32_reference(b"", 0) == 0
    assert murmur3_32_reference(b"", 1) == 0x514E28B7
    assert murmur3_32_reference(b"The quick brown fox jumps over the lazy dog", 0) == 0x2E4FF723
    for key in [b"a", b"ab", b"abc", b"abcd", b"abcde", "\u00e9t\u00e9".encode()]:
        for seed in [0, 42, 0xDEADBEEF]:
            assert murmur3_32_reference(key, seed) == murmurhash3_32(key, seed, positive=True)


def column(namespace, feature, n_bits):
    seed = murmur3_32_reference(namespace.encode(), 0)
    return murmur3_32_reference(feature.encode(), seed) % (1 << n_bits)


TEXT = (
    "1 2.5 'ex1 |user age:30 tall |item price:9.99 red\n"
    "-1 |user short\n"
    "\n"
    "0.5 |user tall tall |item red:2 \u00e9t\u00e9:-1e-3\n"
    "|user anon\n"
    "'tagonly |user x\n"
    "3 0.0 mytag|   f 12:4\n"
)
ROWS = [
    (1.0, 2.5, [("user", "age", 30.0), ("user", "tall", 1.0), ("item", "price", 9.99), ("item", "red", 1.0)]),
    (-1.0, 1.0, [("user", "short", 1.0)]),
    (0.5, 1.0, [("user", "tall", 1.0), ("user", "tall", 1.0), ("item", "red", 2.0), ("item", "\u00e9t\u00e9", -1e-3)]),
    (math.nan, 1.0, [("user", "anon", 1.0)]),
    (math.nan, 1.0, [("user", "x", 1.0)]),
    (3.0, 0.0, [("", "f", 1.0), ("", "12", 4.0)]),
]


@pytest.mark.parametrize("n_bits", [18, 3])  # 3 bits: collisions within rows are summed
def test_hand_written_file(write, n_bits):
    X, y, importance = load_vw(write("t.vw", TEXT), n_bits=n_bits)
    assert X.shape == (len(ROWS), 1 << n_bits)
    expected = np.zeros(X.shape)
    for r, (_, _, feats) in enumerate(ROWS):
        for ns, name, value in feats:
            expected[r, column(ns, name, n_bits)] += value
    np.testing.assert_allclose(X.toarray(), expected, rtol=1e-15)
    np.testing.assert_array_equal(y, [r[0] for r in ROWS])
    np.testing.assert_array_equal(importance, [r[1] for r in ROWS])
    # one stored entry per distinct column, sorted
    for r in range(X.shape[0]):
        row = X.indices[X.indptr[r] : X.indptr[r + 1]]
        assert np.all(np.diff(row) > 0)
        distinct = {column(ns, name, n_bits) for ns, name, _ in ROWS[r][2]}
        assert len(row) == len(distinct)


def test_namespaces_change_the_column(write):
    X, _, _ = load_vw(write("n.vw", "1 |a f\n1 |b f\n1 | f\n"), n_bits=20)
    cols = [X.indices[X.indptr[r]] for r in range(3)]
    assert cols == [column("a", "f", 20), column("b", "f", 20), column("", "f", 20)]
    assert len(set(cols)) == 3


# every byte a feature's name may hold: all but the blanks, the line break, '|' and ':'
NAME_BYTES = bytes(sorted(set(range(1, 256)) - set(b" \t\r\x0b\x0c\n|:")))


@pytest.mark.parametrize("last_break", ["\n", ""])
def test_names_of_every_length_and_byte_hash_as_the_reference(write, last_break):
    """Names of 1 to 20 bytes of any byte a name may hold (UTF-8 or not), ended by a blank, ':', '|', the line
    break or the end of the file: short names are found and hashed eight bytes at a time, the others and
    those near the end byte by byte; every column must be the reference hash's."""
    rng = np.random.default_rng(3)
    names = [bytes(rng.choice(list(NAME_BYTES), n)) for n in range(1, 21) for _ in range(6)]
    lines = []
    for i, name in enumerate(names):
        ending = [b" ", b"\t", b":2", b"|b x", b""][i % 5]
        lines.append(b"1 |ns " + name + ending)
    for name in names[-12:]:  # the last lines: names that end close to the end of the text
        lines.append(b"1 |ns " + name)
    X, _, _ = load_vw(write("names.vw", b"\n".join(lines) + last_break.encode()), n_bits=31)
    seed = murmur3_32_reference(b"ns", 0)
    expected = [murmur3_32_reference(name, seed) % (1 << 31) for name in names + names[-12:]]
    first_columns = [X.indices[X.indptr[r] : X.indptr[r + 1]] for r in range(X.shape[0])]
    for r, column_of_name in enumerate(expected):
        assert column_of_name in first_columns[r], (r, lines[r])


def test_compressed_and_empty(write):
    X, y, w = load_vw(write("c.vw.gz", "1 | a\n"), n_bits=4)
    assert X.nnz == 1 and y.tolist() == [1.0] and w.tolist() == [1.0]
    X, y, w = load_vw(write("e.vw", "\n\n"), n_bits=4)
    assert X.shape == (0, 16) and y.shape == w.shape == (0,)


@pytest.mark.parametrize("n_bits", [0, 32, 2.0])
def test_bad_n_bits(write, n_bits):
    with pytest.raises((ValueError, TypeError), match="n_bits"):
        load_vw(write("a.vw", "1 | a\n"), n_bits=n_bits)


ERRORS = [
    ("1 a b\n", 1, 6, "expected '|'"),
    ("1 2 3 4 |a x\n", 1, 5, "expected 'label [importance] [tag]'"),
    ("abc def |a x\n", 1, 1, "the label 'abc' is not a number"),
    ("1 'tag extra |a x\n", 1, 8, "found 'extra'"),
    ("1 -2 |a x\n", 1, 3, "importance weight must be >= 0"),
    ("1 -2.00000000000000000001 |a x\n", 1, 3, "importance weight must be >= 0"),
    ("1 1e999 |a x\n", 1, 3, "importance weight must be finite"),
    ("1e999 |a x\n", 1, 1, "label must be finite"),
    ("1 |a x:\n", 1, 8, "empty value after ':'"),
    ("1 |a x: y\n", 1, 8, "empty value after ':'"),
    ("1 |a x:abc\n", 1, 8, "found 'abc'"),
    ("1 |a x:1|b y:2z\n", 1, 14, "found '2z'"),
    ("1 |a x:nan\n", 1, 8, "feature value must be finite, found 'nan'"),
    ("1 |a :3\n", 1, 6, "empty feature name"),
    ("1 |a:2 x\n", 1, 4, "namespace weights"),
    ("1 | a\n\n \n2 | b:1 c:q\n", 4, 11, "found 'q'"),
]


@pytest.mark.parametrize("text, line, col, fragment", ERRORS)
def test_error_location_and_message(write, assert_format_error, text, line, col, fragment):
    assert_format_error(load_vw, write("bad.vw", text), line, col, fragment, n_bits=8)


# Lines and their label, importance and tag as Vowpal Wabbit 9.11 reads them (its Python package's example
# objects; an unlabelled line's label there is FLT_MAX, here NaN): the last token before the first '|' is the
# tag when it touches the bar, a number too.
VW_TAGS = [
    ("1 2|a x\n", 1.0, 1.0),  # tag 2
    ("1 0.5|a x\n", 1.0, 1.0),  # tag 0.5
    ("1 0.5 3|a x\n", 1.0, 0.5),  # tag 3
    ("0.5 3 mytag|a x\n", 0.5, 3.0),
    ("1 2 |a x\n", 1.0, 2.0),  # no tag
    ("1 2 'q |a x\n", 1.0, 2.0),  # tag q
    ("2 'q|a x\n", 2.0, 1.0),  # tag q
    ("1|a x\n", math.nan, 1.0),  # tag 1, no label
]


@pytest.mark.parametrize("text, label, importance", VW_TAGS)
def test_a_token_touching_the_bar_is_the_tag_as_vowpal_wabbit_reads_it(write, text, label, importance):
    X, y, weight = load_vw(write("t.vw", text), n_bits=8)
    np.testing.assert_array_equal(y, [label])
    assert weight.tolist() == [importance]
    assert X.toarray()[0, column("a", "x", 8)] == 1.0


# Lines whose tokens before the first '|' Vowpal Wabbit 9 reads as label words although they are no numbers, or as a
# third number, transcribed from its source (vowpalwabbit/text_parser/src/parse_example_text.cc: the last token is
# the tag only when it touches the bar or starts with "'"; core/src/simple_label_parser.cc: the words are label,
# weight, initial prediction, each through float_of_string, which warns "'yes' is not a good float, replacing with
# 0" and gives 0):
#   '1 yes |a x'    label 1, weight 0 (learns nothing), warning      -> refused here, the weight named
#   'yes |a x'      label 0, weight 1, warning                       -> refused here, the label named
#   '1 2 3 |a x'    label 1, weight 2, initial prediction 3          -> refused here: olearn takes no initial one
#   '1 2 yes |a x'  label 1, weight 2, initial prediction 0, warning -> refused here
VW_WORDS = [
    ("1 yes |a x\n", 3, "the importance weight 'yes' is not a number"),
    ("yes |a x\n", 1, "the label 'yes' is not a number"),
    ("1 2 3 |a x\n", 5, "a third number is Vowpal Wabbit's initial prediction"),
    ("1 2 yes |a x\n", 5, "found 'yes'"),
]


@pytest.mark.parametrize("require_labels", [False, True])
@pytest.mark.parametrize("text, col, fragment", VW_WORDS)
def test_a_word_that_vowpal_wabbit_reads_as_a_number_is_refused(write, assert_format_error, text, col, fragment,
                                                                require_labels):
    # VW reads such a word as 0 with a warning, and a file meant as '1 tag | ...' would learn nothing or a label 0
    assert_format_error(load_vw, write("w.vw", "-1 |a y\n" + text), 2, col, fragment, n_bits=8,
                        require_labels=require_labels)


def test_a_word_touching_the_bar_or_quoted_is_the_tag_after_the_label(write):
    # as Vowpal Wabbit 9 reads them: label 1 and the tag 'yes', importance 1
    X, y, weight = load_vw(write("t.vw", "1 yes|a x\n1 'yes |a x\n"), n_bits=8)
    assert y.tolist() == [1.0, 1.0] and weight.tolist() == [1.0, 1.0]


def test_a_label_touching_the_bar_is_named_as_a_tag_when_labels_are_required(write):
    from olearn.exceptions import DataFormatError

    with pytest.raises(DataFormatError, match=r"t\.vw:2:1: '1' touches the '\|', and the VW format reads a token "
                                              r"touching the bar as the line's tag, not its label"):
        load_vw(write("t.vw", "-1 |a x\n1|a x\n"), n_bits=8, require_labels=True)


@pytest.mark.parametrize("block_size", [3, 1 << 20])
def test_require_labels_names_the_first_unlabelled_line(write, block_size):
    from olearn.data import iter_vw
    from olearn.exceptions import DataFormatError

    path = write("u.vw", "1 | a\n\n-1 2 | b\n\n | c\n1 | d\n")
    assert np.isnan(load_vw(path, n_bits=4)[1][2])  # to predict: an unlabelled line is NaN
    with pytest.raises(DataFormatError) as err:
        list(iter_vw(path, chunk_size=1, n_bits=4, block_size=block_size, require_labels=True))
    assert (err.value.line, err.value.column) == (5, 1)
    assert "has no label" in err.value.message
    with pytest.raises(DataFormatError, match=r"u\.vw:5:1: the line has no label"):
        load_vw(path, n_bits=4, require_labels=True)


@pytest.mark.parametrize("text", [
    b"1 |f a b c\n-1 2.0 'tag |g d:1.5 e\n",
    b"\n\n  \t\r\n1 |a x\n\n",  # blank lines
    b"1 |a x y",  # no final newline
    b"1\t|a\tx\ty\r\n-1 |b  x   |c  y\t\n",  # tabs, carriage returns, runs of blanks
    b"1 | x|y |z w\n",  # bars between features, the default namespace
    b"",
    # long lines, whose quick bounds (newlines, blanks and bars) are taken; the short texts above take the exact
    # count, their quick bounds allocating more than 4 bytes a byte
    b"".join(b"%d |f %s |g x y\n" % (i % 2, b" ".join(b"feature%d:0.5" % j for j in range(40))) for i in range(5)),
])
def test_the_allocation_bounds_cover_what_the_parser_writes(text):
    """count_bounds gives upper bounds on the rows and entries parse_vw writes, counted independently here
    as the non-blank lines and the feature tokens after each line's first '|'."""
    from olearn._kernels._parse_vw import count_bounds

    lines = [line for line in text.replace(b"\r", b" ").split(b"\n") if line.strip()]
    # after each '|': the namespace's name when it touches the bar, then the features
    tokens = sum(len(part.split()) - (part[:1] not in (b"", b" ", b"\t"))
                 for line in lines for part in line.split(b"|")[1:])
    n_rows, n_entries = count_bounds(np.frombuffer(text, dtype=np.uint8), 0, len(text))
    assert n_rows >= len(lines) and n_entries >= tokens
