"""Namespace crossing of the VW reader: interactions, ignore/keep, n-grams and skips, against hand-written rows.

The reference features are written out by hand per line (namespace, name,
value) and hashed with scikit-learn's MurmurHash3; the crossing formulas are
VW's (FNV prime 16777619 for interactions, 27942141 for n-grams), transcribed
here in plain Python.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from olearn.data import iter_vw, load_vw

FNV = 16777619
NGRAM = 27942141
M32 = 0xFFFFFFFF


def h(namespace, name):
    """The whole 32-bit hash of feature ``name`` of ``namespace`` (load_vw's documented hash)."""
    seed = murmurhash3_32(namespace.encode(), 0, positive=True)
    return murmurhash3_32(name.encode(), seed, positive=True)


def cross(*hashes):
    out = hashes[0]
    for other in hashes[1:]:
        out = ((out * FNV) & M32) ^ other
    return out


def gram(*hashes):
    out = hashes[0]
    for other in hashes[1:]:
        out = (out * NGRAM + other) & M32
    return out


def dense(entries, n_bits):
    """A row of ``2**n_bits`` columns from (hash, value) pairs, colliding ones summed."""
    row = np.zeros(1 << n_bits)
    for hashed, value in entries:
        row[hashed & ((1 << n_bits) - 1)] += value
    return row


TEXT = "1 2 |a x:2 y:3 |b z:5\n-1 |a x |bee u:2 v |c w\n"
A_X, A_Y, B_Z = h("a", "x"), h("a", "y"), h("b", "z")
BEE_U, BEE_V, C_W = h("bee", "u"), h("bee", "v"), h("c", "w")
BASE = [[(A_X, 2.0), (A_Y, 3.0), (B_Z, 5.0)], [(A_X, 1.0), (BEE_U, 2.0), (BEE_V, 1.0), (C_W, 1.0)]]


def check(path, rows, n_bits=20, **options):
    X, y, weight = load_vw(path, n_bits=n_bits, **options)
    expected = np.array([dense(entries, n_bits) for entries in rows])
    np.testing.assert_allclose(X.toarray(), expected, rtol=1e-15)
    # sorted, one entry per column, as without options
    for r in range(X.shape[0]):
        assert np.all(np.diff(X.indices[X.indptr[r]:X.indptr[r + 1]]) > 0)
    return X, y, weight


@pytest.mark.parametrize("n_bits", [20, 3])  # 3 bits: crossed features collide with plain ones and are summed
def test_quadratic_crosses_every_namespace_of_each_letter(write, n_bits):
    X, y, weight = check(write("t.vw", TEXT), [
        BASE[0] + [(cross(A_X, B_Z), 10.0), (cross(A_Y, B_Z), 15.0)],
        BASE[1] + [(cross(A_X, BEE_U), 2.0), (cross(A_X, BEE_V), 1.0)],
    ], n_bits=n_bits, interactions="ab")
    assert y.tolist() == [1.0, -1.0] and weight.tolist() == [2.0, 1.0]


def test_mirrored_and_repeated_terms_are_crossed_once(write):
    path = write("t.vw", TEXT)
    once, _, _ = load_vw(path, interactions=["ab"])
    twice, _, _ = load_vw(path, interactions=["ab", "ba", "ab"])
    assert (once != twice).nnz == 0
    # a wildcard does not cross again what a term crossed (VW learns the same model from -q ab -q :: as from -q ::)
    wild, _, _ = load_vw(path, interactions=["::"])
    both, _, _ = load_vw(path, interactions=["ab", "::", "ba", "a:"])
    assert (wild != both).nnz == 0 and both.nnz > once.nnz


def test_cubic(write):
    check(write("t.vw", TEXT), [
        BASE[0],  # no c namespace: nothing crossed
        BASE[1] + [(cross(A_X, BEE_U, C_W), 2.0), (cross(A_X, BEE_V, C_W), 1.0)],
    ], interactions=["abc"])


def test_self_interaction_takes_each_pair_once_with_the_squares(write):
    check(write("t.vw", TEXT), [
        BASE[0] + [(cross(A_X, A_X), 4.0), (cross(A_X, A_Y), 6.0), (cross(A_Y, A_Y), 9.0)],
        BASE[1] + [(cross(A_X, A_X), 1.0)],
    ], interactions=["aa"])


def test_wildcard_crosses_the_namespaces_of_the_line(write):
    path = write("t.vw", TEXT)
    check(path, [
        BASE[0] + [(cross(A_X, B_Z), 10.0), (cross(A_Y, B_Z), 15.0)],
        BASE[1] + [(cross(A_X, BEE_U), 2.0), (cross(A_X, BEE_V), 1.0), (cross(A_X, C_W), 1.0)],
    ], interactions=["ab", "ac"])
    # ':' is every letter of the line, nondecreasing along the wildcards: '::' is aa ab bb (and ac bc cc)
    pairs0 = [(A_X, A_X, 4.0), (A_X, A_Y, 6.0), (A_Y, A_Y, 9.0), (A_X, B_Z, 10.0), (A_Y, B_Z, 15.0), (B_Z, B_Z, 25.0)]
    b1 = [(BEE_U, 2.0), (BEE_V, 1.0)]
    pairs1 = ([(A_X, A_X, 1.0)] + [(A_X, hb, v) for hb, v in b1] + [(A_X, C_W, 1.0)]
              + [(BEE_U, BEE_U, 4.0), (BEE_U, BEE_V, 2.0), (BEE_V, BEE_V, 1.0)]
              + [(hb, C_W, v) for hb, v in b1] + [(C_W, C_W, 1.0)])
    check(path, [
        BASE[0] + [(cross(p, q), v) for p, q, v in pairs0],
        BASE[1] + [(cross(p, q), v) for p, q, v in pairs1],
    ], interactions="::")
    # 'a:' is a crossed with every letter, itself included
    check(path, [
        BASE[0] + [(cross(p, q), v) for p, q, v in pairs0[:5]],
        BASE[1] + [(cross(p, q), v) for p, q, v in pairs1[:4]],
    ], interactions="a:")


def test_ignore_and_keep(write):
    path = write("t.vw", TEXT)
    check(path, [[(A_X, 2.0), (A_Y, 3.0)], [(A_X, 1.0), (C_W, 1.0)]], ignore="b")
    check(path, [[(B_Z, 5.0)], [(BEE_U, 2.0), (BEE_V, 1.0)]], keep="b")
    # an ignored namespace is not crossed either
    check(path, [BASE[0][:2], [(A_X, 1.0), (C_W, 1.0), (cross(A_X, C_W), 1.0)]], ignore="b", interactions=["ab", "ac"])


TEXT_WORDS = "1 |w the cat sat on |n big\n"
THE, CAT, SAT, ON = (h("w", word) for word in ("the", "cat", "sat", "on"))
WORDS = [(THE, 1.0), (CAT, 1.0), (SAT, 1.0), (ON, 1.0), (h("n", "big"), 1.0)]


def test_ngrams_and_skips(write):
    path = write("w.vw", TEXT_WORDS)
    bigrams = [(gram(THE, CAT), 1.0), (gram(CAT, SAT), 1.0), (gram(SAT, ON), 1.0)]
    check(path, [WORDS + bigrams], ngram="w2")
    check(path, [WORDS + bigrams], ngram="2")  # every namespace: 'n' has one word, no bigram
    trigrams = [(gram(THE, CAT, SAT), 1.0), (gram(CAT, SAT, ON), 1.0)]
    check(path, [WORDS + bigrams + trigrams], ngram="w3")
    skipped = [(gram(THE, SAT), 1.0), (gram(CAT, ON), 1.0)]
    check(path, [WORDS + bigrams + skipped], ngram="w2", skips="w1")
    # n-grams are features of their namespace: crossed as the others
    crossed = [(cross(hw, h("n", "big")), 1.0) for hw, _ in WORDS[:4] + bigrams]
    check(path, [WORDS + bigrams + crossed], ngram="w2", interactions="wn")


def test_iter_vw_gives_the_rows_of_load_vw(write):
    path = write("t.vw", TEXT * 3)
    whole, _, _ = load_vw(path, n_bits=12, interactions=["ab", "::"], ngram="a2")
    chunks = [X for X, _, _ in iter_vw(path, chunk_size=4, block_size=16, n_bits=12, interactions=["ab", "::"],
                                       ngram="a2")]
    assert (sp.vstack(chunks) != whole).nnz == 0


@pytest.mark.parametrize("options, fragment", [
    ({"interactions": "a"}, "fewer than two namespaces"),
    ({"interactions": ["a\u00e9"]}, "cannot name a namespace"),
    ({"ignore": "a", "keep": "b"}, "exclusive"),
    ({"ngram": "ax"}, "expected a number"),
    ({"skips": "a1"}, "give ngram as well"),
])
def test_bad_options_are_refused_before_reading(write, options, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_vw(write("t.vw", TEXT), **options)


@pytest.mark.parametrize("vw_options, options", [
    ("-q ab", {"interactions": "ab"}),
    ("-q aa", {"interactions": "aa"}),
    ("--cubic abc", {"interactions": "abc"}),
    ("--interactions abcc", {"interactions": "abcc"}),
    ("-q ::", {"interactions": "::"}),
    ("--interactions a:", {"interactions": "a:"}),
    ("-q ab -q ba", {"interactions": ["ab", "ba"]}),
    ("--ngram c3 --skips c1", {"ngram": "c3", "skips": "c1"}),
    ("--ignore b -q ac", {"ignore": "b", "interactions": "ac"}),
])
def test_the_columns_are_those_of_vowpal_wabbit_hashing_all(write, tmp_path, vw_options, options):
    """VW (``--hash all``, which hashes names of digits as strings, as olearn does) learns one line; the columns of
    its readable model are the columns olearn gives the line."""
    pyvw = pytest.importorskip("vowpalwabbit.pyvw")
    line = "1 |a x y:2 |bee z w |c t u v"
    readable = tmp_path / "readable.txt"
    vw = pyvw.Workspace(f"--hash all -b 18 --noconstant --quiet --readable_model {readable} {vw_options}")
    vw.learn(line)
    vw.finish()
    theirs = sorted(int(text.split(":")[0]) for text in readable.read_text().splitlines()
                    if text.split(":")[0].isdigit() and ":" in text)
    X, _, _ = load_vw(write("one.vw", line + "\n"), n_bits=18, **options)
    assert X.indices.tolist() == theirs


def test_a_wildcard_over_many_namespaces_crosses_each_pair_once(write):
    """Seven namespaces: 28 pairs, more than the kernel first makes room to remember."""
    letters = "abcdefg"
    path = write("many.vw", "1 " + " ".join(f"|{c} x:{k + 1}" for k, c in enumerate(letters)) + "\n")
    plain = [(h(c, "x"), float(k + 1)) for k, c in enumerate(letters)]
    pairs = [(cross(plain[i][0], plain[j][0]), plain[i][1] * plain[j][1])
             for i in range(len(letters)) for j in range(i, len(letters))]
    assert len(pairs) == 28
    check(path, [plain + pairs], n_bits=24, interactions="::")
