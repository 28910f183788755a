"""One line-ending rule for every reader: a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, even mixed in one file.

Each reader is given a file whose lines end in turn with the three, lone
``\\r`` in the middle (where a rule decided at the first line break would glue
two lines), and must read it as the same text with ``\\n`` endings, whatever
the block size (small blocks cut ``\\r\\n`` in two).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.data import iter_conll, iter_libsvm, iter_vw, load_conll, load_csv, load_libsvm, load_vw
from olearn.exceptions import DataFormatError

ENDINGS = ("\n", "\r\n", "\r")


def mixed(lines, first=0):
    """``lines`` ended by \\n, \\r\\n, \\r in turn from ``ENDINGS[first]``; a blank line repeats the ending before
    it (a blank line ended by \\n after a lone \\r would be the \\r\\n of one line break)."""
    text, k = "", first
    for line in lines:
        if line:
            k += 1
        text += line + ENDINGS[k % 3]
    return text


def same(a, b):
    if sp.issparse(a):
        return a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, list):
        return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b))
    return np.array_equal(a, b)


def joined(chunks):
    return [sp.vstack(part, format="csr") if sp.issparse(part[0]) else np.concatenate(part) for part in zip(*chunks)]


SVM = ["+1 1:0.5 3:2", "# comment", "-1 2:1.5", "", "+1 1:1", "-1 3:4", "+1 2:2"]
VW = ["1 2 'a |ns x y:2", "-1 |ns z", "1 |ns x", "", "-1 |ns y z", "1 |ns w"]
CSV = ["a,b,label", "1,0,1", "0,2.5,-1", "3,1,1", "2,2,-1", "0,0,1"]
CONLL = ["w=The X", "w=cat Y", "w=sat Z", "", "w=It X", "w=ran Z", "w=off Y", ""]

READERS = {
    "svm": (SVM, lambda p: load_libsvm(p, n_features=4)),
    "svm-multilabel": (["1,2 1:1", "2 2:1", "1 3:1", "0,2 1:2"], lambda p: load_libsvm(p, multilabel=True)),
    "vw": (VW, lambda p: load_vw(p, n_bits=6)),
    "csv": (CSV, load_csv),
    "conll": (CONLL, lambda p: load_conll(p, n_bits=6)),
}
STREAMS = {
    "svm": (SVM, lambda p, b: joined(iter_libsvm(p, n_features=4, chunk_size=2, block_size=b))),
    "vw": (VW, lambda p, b: joined(iter_vw(p, n_bits=6, chunk_size=2, block_size=b))),
    "vw-threads": (VW, lambda p, b: joined(iter_vw(p, n_bits=6, chunk_size=2, block_size=b, threads=2))),
    "conll": (CONLL, lambda p, b: [sum(part, []) for part in zip(*iter_conll(p, n_bits=6, chunk_size=1, block_size=b))]),
}


@pytest.mark.parametrize("first", range(3))
@pytest.mark.parametrize("fmt", sorted(READERS))
def test_every_reader_reads_mixed_line_endings_as_lines(write, fmt, first):
    lines, load = READERS[fmt]
    expected = load(write("lf.txt", "\n".join(lines) + "\n"))
    got = load(write("mixed.txt", mixed(lines, first)))
    assert all(same(a, b) for a, b in zip(got, expected))


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 1 << 20])
@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_streamed_readers_read_mixed_line_endings_at_any_block_size(write, fmt, block_size):
    lines, read = STREAMS[fmt]
    expected = read(write("lf.txt", "\n".join(lines) + "\n"), 1 << 20)
    for first in range(3):
        got = read(write("mixed.txt.gz", mixed(lines, first)), block_size)
        assert all(same(a, b) for a, b in zip(got, expected))


def test_a_lone_cr_after_lf_lines_ends_a_conll_token_and_a_vw_example(write):
    # the two silent errors of a line-ending rule decided at the first line break
    _, tags = load_conll(write("t.conll", "a X\nb Y\r\nc Z\rd W\n"), n_bits=4)
    assert [list(t) for t in tags] == [["X", "Y", "Z", "W"]]
    X, y, _ = load_vw(write("t.vw", "1 | a\n-1 | b\r\n1 | c\r-1 | d\n"), n_bits=4)
    assert X.shape[0] == 4 and list(y) == [1, -1, 1, -1]
    # and a file starting with a lone \r keeps its \r\n as one line break: one sentence, not two
    _, tags = load_conll(write("u.conll", "a X\rb Y\r\nc Z\nd W\r"), n_bits=4)
    assert [list(t) for t in tags] == [["X", "Y", "Z", "W"]]


@pytest.mark.parametrize("block_size", [1, 3, 1 << 20])
def test_errors_count_every_line_break_once(write, assert_format_error, block_size):
    path = write("bad.svm", "1 1:1\r\n-1 2:1\r1 3:1\n-1 4:x\n")
    assert_format_error(load_libsvm, path, 4, 6, "feature value")
    with pytest.raises(DataFormatError, match=r"bad\.svm:4:6: "):
        list(iter_libsvm(path, block_size=block_size))
    path = write("bad.csv", "a,y\r1,1\r\n2,x\n")
    assert_format_error(load_csv, path, 3, 3, "expected a number")


def test_a_cost_file_reads_mixed_line_endings_as_lines(write):
    from olearn.cli._costs import read_costs

    costs = read_costs(write("costs.txt", mixed(["# labels, then a row per true label", "1 2 3", "0 1 2", "", "1 0 1",
                                                 "2 1 0"])))
    assert list(costs.labels) == [1.0, 2.0, 3.0]
    assert [list(row) for row in costs.matrix] == [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
