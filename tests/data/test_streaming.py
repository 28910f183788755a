"""iter_libsvm / iter_vw: chunks add up to the whole-file load, errors keep global lines."""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.data import iter_libsvm, iter_vw, load_libsvm, load_vw
from olearn.exceptions import DataFormatError


def libsvm_text(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n_rows):
        if i % 17 == 0:
            lines.append("# a comment line")
        if i % 23 == 0:
            lines.append("")
        cols = np.sort(rng.choice(np.arange(1, 40), size=rng.integers(0, 8), replace=False))
        if i % 5 == 0:
            cols = cols[::-1]  # out of order
        feats = " ".join(f"{c}:{rng.standard_normal():.17g}" for c in cols)
        lines.append(f"{rng.choice([-1, 1])} {feats}".rstrip())
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("block_size", [5, 64, 1000, 1 << 22])
@pytest.mark.parametrize("chunk_size", [1, 7, 100, 10_000])
def test_chunks_concatenate_to_load(write, block_size, chunk_size):
    path = write("s.svm.gz", libsvm_text(240))
    X, y = load_libsvm(path, n_features=40)
    chunks = list(iter_libsvm(path, chunk_size=chunk_size, n_features=40, block_size=block_size))
    assert all(Xc.shape[0] == chunk_size for Xc, _ in chunks[:-1])
    assert 0 < chunks[-1][0].shape[0] <= chunk_size
    assert all(Xc.shape[1] == 40 for Xc, _ in chunks)
    X_cat = sp.vstack([Xc for Xc, _ in chunks], format="csr")
    assert X_cat.shape == X.shape
    assert (X_cat != X).nnz == 0
    np.testing.assert_array_equal(np.concatenate([yc for _, yc in chunks]), y)


def test_chunks_are_independent_arrays(write):
    path = write("i.svm", libsvm_text(50))
    chunks = list(iter_libsvm(path, chunk_size=10, n_features=40, block_size=64))
    first = chunks[0][0].copy()
    for Xc, _ in chunks[1:]:
        Xc.data[:] = 0.0
    assert (chunks[0][0] != first).nnz == 0


def test_without_n_features_each_chunk_has_its_own_width(write):
    path = write("w.svm", "1 2:1\n1 9:1\n1 3:1\n")
    shapes = [Xc.shape for Xc, _ in iter_libsvm(path, chunk_size=1)]
    assert shapes == [(1, 2), (1, 9), (1, 3)]


@pytest.mark.parametrize("block_size", [8, 100, 1 << 20])
def test_error_in_a_later_chunk_names_the_global_line(write, block_size):
    lines = ["1 1:1 2:2"] * 500 + ["-1 3:3 4:oops"] + ["1 1:1"] * 10
    path = write("late.svm", "\n".join(lines) + "\n")
    chunks = iter_libsvm(path, chunk_size=50, block_size=block_size)
    with pytest.raises(DataFormatError) as info:
        for _ in chunks:
            pass
    assert (info.value.line, info.value.column) == (501, 10)
    assert "'oops'" in info.value.message


def test_line_longer_than_a_block(write):
    long_row = "1 " + " ".join(f"{j}:{j}" for j in range(1, 300))
    path = write("long.svm", f"-1 1:1\n{long_row}\n1 2:x\n")
    with pytest.raises(DataFormatError) as info:
        list(iter_libsvm(path, block_size=16))
    assert info.value.line == 3
    X = sp.vstack([Xc for Xc, _ in iter_libsvm(write("ok.svm", f"{long_row}\n"), block_size=16)])
    assert X.nnz == 299


def test_auto_zero_based_decides_on_the_first_block(write):
    zero_first = write("z.svm", "1 0:1\n" + "1 3:1\n" * 20)
    X = sp.vstack([Xc for Xc, _ in iter_libsvm(zero_first, chunk_size=4, n_features=4, block_size=8)])
    assert X[0].indices.tolist() == [0] and X[1].indices.tolist() == [3]

    zero_late = write("zl.svm", "1 3:1\n" * 20 + "1 0:1\n")
    with pytest.raises(DataFormatError, match="zero_based=True") as info:
        list(iter_libsvm(zero_late, block_size=8))
    assert (info.value.line, info.value.column) == (21, 3)
    # the whole-file reader sees the index 0 and reads the file as 0-based
    assert load_libsvm(zero_late)[0].shape == (21, 4)


def test_multilabel_stream(write):
    path = write("m.svm", "1,2 1:1\n3 2:1\n 1:1\n2,1 3:1\n")
    ys = [y for _, yc in iter_libsvm(path, chunk_size=3, multilabel=True, block_size=4) for y in yc]
    assert ys == load_libsvm(path, multilabel=True)[1] == [(1, 2), (3,), (), (1, 2)]


def test_empty_file_yields_nothing(write):
    assert list(iter_libsvm(write("e.svm", "# nothing\n"))) == []


def test_missing_file_and_bad_arguments_fail_at_call_time(tmp_path, write):
    with pytest.raises(FileNotFoundError, match="gone.svm"):
        iter_libsvm(tmp_path / "gone.svm")
    with pytest.raises(FileNotFoundError, match="gone.vw"):
        iter_vw(tmp_path / "gone.vw")
    path = write("a.svm", "1 1:1\n")
    with pytest.raises(ValueError, match="chunk_size"):
        iter_libsvm(path, chunk_size=0)
    with pytest.raises(ValueError, match="block_size"):
        iter_vw(path, block_size=0)


def vw_text(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{j}" for j in range(30)]
    lines = []
    for i in range(n_rows):
        feats = " ".join(f"{rng.choice(words)}:{rng.random():.17g}" for _ in range(rng.integers(0, 6)))
        weight = f" {rng.random() * 3:.3f}" if i % 3 == 0 else ""
        lines.append(f"{rng.choice([-1, 1])}{weight} 'tag{i} |a {feats} |b {rng.choice(words)}")
        if i % 11 == 0:
            lines.append("")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("block_size", [10, 300, 1 << 22])
@pytest.mark.parametrize("chunk_size", [1, 13, 1000])
def test_vw_chunks_concatenate_to_load(write, block_size, chunk_size):
    path = write("s.vw.bz2", vw_text(120))
    X, y, w = load_vw(path, n_bits=6)
    chunks = list(iter_vw(path, chunk_size=chunk_size, n_bits=6, block_size=block_size))
    assert all(Xc.shape == (chunk_size, 64) for Xc, _, _ in chunks[:-1])
    X_cat = sp.vstack([Xc for Xc, _, _ in chunks], format="csr")
    assert X_cat.shape == X.shape == (120, 64)
    np.testing.assert_array_equal(X_cat.toarray(), X.toarray())
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y)
    np.testing.assert_array_equal(np.concatenate([c[2] for c in chunks]), w)


def test_vw_error_in_a_later_block_names_the_global_line(write):
    path = write("late.vw", "1 | a b\n" * 300 + "1 | a:zz\n")
    with pytest.raises(DataFormatError) as info:
        list(iter_vw(path, chunk_size=7, block_size=50))
    assert (info.value.line, info.value.column) == (301, 7)
