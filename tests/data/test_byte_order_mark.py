"""A UTF-8 byte order mark at the start of a text file is skipped by every reader.

Windows editors write one; read as data it would be part of the first CSV
header name, LIBSVM or VW label (a VW label then reads as a tag, leaving the
example unlabelled) or CoNLL feature (hashed elsewhere).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.cli._costs import read_costs
from olearn.data import csv_columns, iter_conll, iter_libsvm, iter_vw, load_conll, load_csv, load_libsvm, load_vw

BOM = "\ufeff"


def same(a, b):
    if sp.issparse(a):
        return a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, list):
        return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b))
    return np.array_equal(a, b)


def test_a_csv_header_name_does_not_start_with_the_bom(write):
    path = write("bom.csv", BOM + "y,height\r\n1,1.5\r\n0,2\r\n")
    assert csv_columns(path) == (["y", "height"], 2)
    X, y = load_csv(path, label_column=0)
    assert list(y) == [1, 0] and X.toarray().tolist() == [[1.5], [2.0]]


READERS = {
    "svm": ("1 1:1\n-1 2:1\n", lambda p: load_libsvm(p, n_features=3)),
    "vw": ("1 | a\n-1 | b\n", lambda p: load_vw(p, n_bits=4, require_labels=True)),
    "csv": ("1,2\n3,4\n", load_csv),
    "conll": ("w=a X\nw=b Y\n", lambda p: load_conll(p, n_bits=6)),
    "svm-stream": ("1 1:1\n-1 2:1\n", lambda p: next(iter_libsvm(p, n_features=3, block_size=1))),
    "vw-stream": ("1 | a\n-1 | b\n", lambda p: next(iter_vw(p, n_bits=4, block_size=2, require_labels=True))),
    "conll-stream": ("w=a X\nw=b Y\n", lambda p: next(iter_conll(p, n_bits=6, block_size=1))),
}


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_every_reader_reads_a_file_with_a_bom_as_without(write, fmt):
    text, load = READERS[fmt]
    expected = load(write("plain.txt", text))
    for name in ("bom.txt", "bom.txt.gz"):
        assert all(same(a, b) for a, b in zip(load(write(name, BOM + text)), expected))


def test_a_file_holding_only_a_bom_is_empty(write):
    X, y = load_libsvm(write("only.svm", BOM), n_features=2)
    assert X.shape == (0, 2) and y.size == 0


def test_a_cost_file_with_a_bom_reads_its_labels(write):
    costs = read_costs(write("costs.txt", BOM + "1 2\n0 1\n1 0\n"))
    assert list(costs.labels) == [1.0, 2.0]


def test_csv_columns_reads_past_a_long_head_after_a_bom(write):
    # 100 kB of comments: the first 64 KiB read hold no data line, and without the BOM they are shorter than asked
    path = write("c.csv", BOM + "# note\r\n" * 12_500 + "a,b\r\n1,2\r\n")
    assert csv_columns(path) == (["a", "b"], 2)
