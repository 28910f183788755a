"""iter_libsvm / iter_vw: chunks add up to the whole-file load, errors keep global lines.

With ``threads`` > 1 iter_libsvm parses several blocks at once: its chunks and
errors must be those of one thread.
"""

import os
import signal
import sys
import textwrap
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import interruptible
from olearn.data import iter_libsvm, iter_vw, load_libsvm, load_vw
from olearn.data._parallel import in_order
from olearn.exceptions import DataFormatError


@pytest.fixture(params=[1, 3], ids=["one thread", "three threads"])
def threads(request):
    """Blocks parsed one at a time, or three at once (whatever the cores of the machine)."""
    return request.param


def parse_threads_alive():
    return sorted(t.name for t in threading.enumerate() if t.name.startswith(("olearn-parse", "olearn-gather")))


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
def test_chunks_concatenate_to_load(write, block_size, chunk_size, threads):
    path = write("s.svm.gz", libsvm_text(240))
    X, y = load_libsvm(path, n_features=40)
    chunks = list(iter_libsvm(path, chunk_size=chunk_size, n_features=40, block_size=block_size, threads=threads))
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
def test_error_in_a_later_chunk_names_the_global_line(write, block_size, threads):
    lines = ["1 1:1 2:2"] * 500 + ["-1 3:3 4:oops"] + ["1 1:1"] * 10
    path = write("late.svm", "\n".join(lines) + "\n")
    chunks = iter_libsvm(path, chunk_size=50, block_size=block_size, threads=threads)
    with pytest.raises(DataFormatError) as info:
        for _ in chunks:
            pass
    assert (info.value.line, info.value.column) == (501, 10)
    assert "'oops'" in info.value.message


def test_line_longer_than_a_block(write, threads):
    long_row = "1 " + " ".join(f"{j}:{j}" for j in range(1, 300))
    path = write("long.svm", f"-1 1:1\n{long_row}\n1 2:x\n")
    with pytest.raises(DataFormatError) as info:
        list(iter_libsvm(path, block_size=16, threads=threads))
    assert info.value.line == 3
    X = sp.vstack([Xc for Xc, _ in iter_libsvm(write("ok.svm", f"{long_row}\n"), block_size=16, threads=threads)])
    assert X.nnz == 299


def test_auto_zero_based_decides_on_the_first_block(write, threads):
    zero_first = write("z.svm", "1 0:1\n" + "1 3:1\n" * 20)
    X = sp.vstack([Xc for Xc, _ in iter_libsvm(zero_first, chunk_size=4, n_features=4, block_size=8, threads=threads)])
    assert X[0].indices.tolist() == [0] and X[1].indices.tolist() == [3]

    zero_late = write("zl.svm", "1 3:1\n" * 20 + "1 0:1\n")
    with pytest.raises(DataFormatError, match="zero_based=True") as info:
        list(iter_libsvm(zero_late, block_size=8, threads=threads))
    assert (info.value.line, info.value.column) == (21, 3)
    # the whole-file reader sees the index 0 and reads the file as 0-based
    assert load_libsvm(zero_late)[0].shape == (21, 4)


def test_multilabel_stream(write, threads):
    path = write("m.svm", "1,2 1:1\n3 2:1\n 1:1\n2,1 3:1\n")
    ys = [y for _, yc in iter_libsvm(path, chunk_size=3, multilabel=True, block_size=4, threads=threads) for y in yc]
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
    with pytest.raises(ValueError, match="threads"):
        iter_libsvm(path, threads=0)
    with pytest.raises(ValueError, match="threads"):
        iter_vw(path, threads=0)


def _chunks_and_error(path, threads, reader=iter_libsvm, **options):
    """Every chunk ``reader`` yields (its arrays) and the error that ends it (None if none)."""
    chunks = []
    try:
        for X, *labels in reader(path, threads=threads, **options):
            chunks.append((X.shape, X.indptr, X.indices, X.data, *labels))
    except DataFormatError as err:
        return chunks, (str(err), err.line, err.column)
    return chunks, None


def _assert_same_chunks(a, b):
    assert len(a) == len(b)
    for one, other in zip(a, b):
        assert one[0] == other[0]
        for x, z in zip(one[1:], other[1:]):
            if isinstance(x, list):
                assert x == z
            else:
                assert x.dtype == z.dtype
                np.testing.assert_array_equal(x, z)


# lines of every kind the parser skips or joins, and bad lines placed at the edges of 64-byte blocks
_ODD_LINES = ["1 1:1 2:2", "# a comment", "", "-1 3:0.5 # a trailing comment", "   ", "1 2:1e-3 4:2", "-1"]


def _odd_text(n_lines, seed, bad=(), line_break="\n"):
    rng = np.random.default_rng(seed)
    lines = [_ODD_LINES[k] for k in rng.integers(0, len(_ODD_LINES), n_lines)]
    for at in bad:
        lines[at] = "1 2:x"
    return line_break.join(lines)  # the last line without a line break


@pytest.mark.parametrize("line_break", ["\n", "\r\n"])
@pytest.mark.parametrize("chunk_size", [1, 7, 50])
@pytest.mark.parametrize("bad", [(), (0,), (300,), (301,), (150, 151, 400), (599,)], ids=str)
def test_threads_give_the_chunks_and_the_error_of_one_thread(write, line_break, chunk_size, bad):
    path = write("odd.svm", _odd_text(600, seed=len(bad) + chunk_size, bad=bad, line_break=line_break))
    one = _chunks_and_error(path, 1, chunk_size=chunk_size, n_features=5, block_size=64)
    assert (one[1] is None) == (bad == ())
    if bad:
        assert one[1][1] == bad[0] + 1  # the first bad line
    for threads in (2, 3, 5):
        many = _chunks_and_error(path, threads, chunk_size=chunk_size, n_features=5, block_size=64)
        _assert_same_chunks(many[0], one[0])
        assert many[1] == one[1]
    assert parse_threads_alive() == []


def test_threads_give_the_multilabel_and_float32_chunks_of_one_thread(write):
    text = "".join(f"{i % 3},{i % 5} {i % 7 + 1}:{i / 3:.17g}\n" for i in range(500)) + "4 2:1\n1,x 1:1\n"
    path = write("m.svm", text)
    options = dict(chunk_size=33, multilabel=True, dtype=np.float32, block_size=100)
    one = _chunks_and_error(path, 1, **options)
    assert one[1][1] == 502
    many = _chunks_and_error(path, 4, **options)
    _assert_same_chunks(many[0], one[0])
    assert many[1] == one[1]


@pytest.mark.parametrize("block_size", [40, 700])
def test_the_first_bad_line_is_reported_after_the_chunks_before_it(write, block_size, threads):
    # two bad lines, far apart: the blocks read ahead hold the second while the first is not reached yet
    lines = ["1 1:1 2:2"] * 500 + ["-1 3:3 4:oops"] + ["1 1:1"] * 300 + ["1 5:"] + ["1 1:1"] * 50
    path = write("two.svm", "\n".join(lines) + "\n")
    chunks = iter_libsvm(path, chunk_size=30, n_features=5, block_size=block_size, threads=threads)
    seen = []
    with pytest.raises(DataFormatError) as info:
        for X, _ in chunks:
            seen.append(X.shape[0])
    assert (info.value.line, info.value.column) == (501, 10)
    # the 16 whole chunks of 30 rows before line 501; the rows 481-500 wait for a chunk that is never complete
    assert seen == [30] * 16
    assert parse_threads_alive() == []


@pytest.mark.parametrize("zero_based", ["auto", False])
def test_an_error_before_the_block_that_decides_the_base_comes_first(write, zero_based, threads):
    # lines without features leave "auto" undecided until line 301, whose block also holds an error (line 305)
    lines = ["1"] * 200 + ["x"] + ["1"] * 99 + ["1 3:1"] * 4 + ["1 3:y"]
    path = write("undecided.svm", "\n".join(lines) + "\n")
    with pytest.raises(DataFormatError) as info:
        list(iter_libsvm(path, chunk_size=50, zero_based=zero_based, block_size=64, threads=threads))
    assert info.value.line == 201 and "'x'" in info.value.message


def test_a_stream_left_early_stops_its_parsing_threads(write):
    path = write("many.svm", libsvm_text(400))
    chunks = iter_libsvm(path, chunk_size=5, n_features=40, block_size=50, threads=3)
    next(chunks)
    assert parse_threads_alive() == ["olearn-gather-0", "olearn-parse-0", "olearn-parse-1", "olearn-parse-2"]
    chunks.close()
    assert parse_threads_alive() == []


def test_in_order_gives_results_in_order_and_the_first_error_in_its_turn():
    def work(i):
        if i in (3, 5):
            raise ValueError(f"item {i}")
        return i * i

    seen = []
    with pytest.raises(ValueError, match="item 3"):
        for value in in_order(iter(range(10)), work, threads=4, ahead=6):
            seen.append(value)
    assert seen == [0, 1, 4]
    assert parse_threads_alive() == []

    def items():
        yield from range(4)
        raise OSError("the disk failed")

    seen = []
    with pytest.raises(OSError, match="disk"):
        for value in in_order(items(), lambda i: -i, threads=2, ahead=3):
            seen.append(value)
    assert seen == [0, -1, -2, -3]
    assert parse_threads_alive() == []


def test_in_order_reads_at_most_ahead_items_not_yet_given():
    taken = []

    def items():
        for i in range(100):
            taken.append(i)
            yield i

    results = in_order(items(), lambda i: i, threads=3, ahead=4)
    for given in range(10):
        assert next(results) == given
        assert len(taken) <= given + 1 + 4
    results.close()
    assert parse_threads_alive() == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_ctrl_c_while_waiting_for_a_block_stops_the_threads():
    def work(i):
        if i == 20:
            signal.raise_signal(signal.SIGINT)  # Python raises KeyboardInterrupt in the main thread
        return i

    seen = []
    with interruptible.here(), pytest.raises(KeyboardInterrupt):
        for value in in_order(iter(range(100_000)), work, threads=2, ahead=3):
            seen.append(value)
    assert len(seen) < 100_000
    assert parse_threads_alive() == []


# a script that stops reading while blocks are still being parsed: by Ctrl-C, or by leaving the interpreter with
# the chunks not closed
LEAVE_EARLY = textwrap.dedent("""
    import os, signal, sys
    from olearn.data import iter_libsvm

    chunks = iter_libsvm(sys.argv[1], chunk_size=5, block_size=64, threads=2)
    next(chunks)
    sys.stdout.write("started\\n")
    sys.stdout.flush()
    if sys.argv[2] == "interrupt":
        os.kill(os.getpid(), signal.SIGINT)
        for _ in chunks:
            pass
    sys.exit(3)
""")


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("how, code", [("interrupt", -signal.SIGINT), ("exit", 3)])
def test_leaving_while_blocks_are_parsed_neither_hangs_nor_crashes(write, how, code):
    path = write("big.svm", libsvm_text(3000))
    proc = interruptible.run([sys.executable, "-c", LEAVE_EARLY, str(path), how], capture_output=True, text=True,
                             timeout=120)
    assert proc.stdout == "started\n"
    assert proc.returncode == code, proc.stderr
    assert ("KeyboardInterrupt" in proc.stderr) == (how == "interrupt")


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
def test_vw_chunks_concatenate_to_load(write, block_size, chunk_size, threads):
    path = write("s.vw.bz2", vw_text(120))
    X, y, w = load_vw(path, n_bits=6)
    chunks = list(iter_vw(path, chunk_size=chunk_size, n_bits=6, block_size=block_size, threads=threads))
    assert all(Xc.shape == (chunk_size, 64) for Xc, _, _ in chunks[:-1])
    X_cat = sp.vstack([Xc for Xc, _, _ in chunks], format="csr")
    assert X_cat.shape == X.shape == (120, 64)
    np.testing.assert_array_equal(X_cat.toarray(), X.toarray())
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), y)
    np.testing.assert_array_equal(np.concatenate([c[2] for c in chunks]), w)


def test_vw_error_in_a_later_block_names_the_global_line(write, threads):
    path = write("late.vw", "1 | a b\n" * 300 + "1 | a:zz\n")
    with pytest.raises(DataFormatError) as info:
        list(iter_vw(path, chunk_size=7, block_size=50, threads=threads))
    assert (info.value.line, info.value.column) == (301, 7)
    assert parse_threads_alive() == []


@pytest.mark.parametrize("chunk_size", [1, 7, 50])
@pytest.mark.parametrize("bad", [(), (0,), (150,), (60, 61, 200), (239,)], ids=str)
def test_vw_threads_give_the_chunks_and_the_error_of_one_thread(write, chunk_size, bad):
    lines = vw_text(240, seed=len(bad) + chunk_size).split("\n")
    for at in bad:
        lines[at] = "1 | a:zz"
    path = write("odd.vw", "\n".join(lines))
    one = _chunks_and_error(path, 1, iter_vw, chunk_size=chunk_size, n_bits=6, block_size=64)
    assert (one[1] is None) == (bad == ())
    if bad:
        assert one[1][1] == bad[0] + 1  # the first bad line
    for threads in (2, 3, 5):
        many = _chunks_and_error(path, threads, iter_vw, chunk_size=chunk_size, n_bits=6, block_size=64)
        _assert_same_chunks(many[0], one[0])
        assert many[1] == one[1]
    assert parse_threads_alive() == []
