"""Parameter mixing reads each file shard once and keeps it on its worker for the later epochs; the command line's
local cluster is one of threads where the passes release the GIL; a run from files imports no more than it needs."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("distributed")

from sklearn.datasets import dump_svmlight_file

from olearn.distributed import _kept, make_shards, parameter_mixing
from olearn.distributed._cluster import passes_release_gil
from olearn.distributed._parts import FilePart
from olearn.linear import PAClassifier
from olearn.second_order import AROW

TIMEOUT = 300  # a hang guard only


def write_halves(tmp_path, n=240, d=5, seed=7):
    """A labelled stream written as two LIBSVM files (0-based), and its two halves in memory."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(3)
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    halves = [(X[: n // 2], y[: n // 2]), (X[n // 2 :], y[n // 2 :])]
    paths = []
    for i, (Xi, yi) in enumerate(halves):
        paths.append(str(tmp_path / f"part-{i}.svm"))
        dump_svmlight_file(Xi, yi, paths[-1], zero_based=True)
    return halves, paths


def pa1_pass(X, y, w, C):
    """One PA-I pass from w (Crammer et al. 2006, Fig. 1): tau = min(C, loss / ||x||^2)."""
    w = w.copy()
    for x, label in zip(X, y):
        loss = max(0.0, 1.0 - label * (w @ x))
        if loss > 0.0:
            w += min(C, loss / (x @ x)) * label * x
    return w


@pytest.fixture
def reads(monkeypatch):
    """The paths of the file parts read, one entry per reading (the cluster's workers are threads of this process)."""
    paths = []
    read = FilePart._read

    def counted(part, chunk_size):
        paths.append(part.path)
        yield from read(part, chunk_size)

    monkeypatch.setattr(FilePart, "_read", counted)
    return paths


def test_each_file_shard_is_read_once_and_the_epochs_mix_the_numpy_passes(client, tmp_path, reads):
    halves, paths = write_halves(tmp_path)
    res = parameter_mixing(PAClassifier(variant="pa1", C=0.2), paths, epochs=4, timeout=TIMEOUT)
    assert sorted(reads) == paths  # each file once, not once an epoch
    w = np.zeros(5)
    for _ in range(4):
        w = (pa1_pass(*halves[0], w, 0.2) + pa1_pass(*halves[1], w, 0.2)) / 2
    np.testing.assert_allclose(res.estimator.coef_[0], w, rtol=1e-10, atol=1e-12)


def test_a_shard_over_the_memory_budget_is_read_every_epoch_with_the_same_results(client, tmp_path, reads,
                                                                                  monkeypatch):
    _, paths = write_halves(tmp_path)
    kept = parameter_mixing(PAClassifier(variant="pa1", C=0.2), paths, epochs=3, holdout_every=4, chunk_size=50,
                            timeout=TIMEOUT)
    assert len(reads) == 2
    monkeypatch.setattr(_kept, "MEMORY_SHARE", 0.0)  # no shard fits: each is read chunk by chunk in every epoch
    streamed = parameter_mixing(PAClassifier(variant="pa1", C=0.2), paths, epochs=3, holdout_every=4, chunk_size=50,
                                timeout=TIMEOUT)
    assert len(reads) == 2 + 2 + 3 * 2  # the kept run's 2; the streamed run's 2 tries to keep, and 3 epochs of 2
    assert np.array_equal(kept.estimator.coef_, streamed.estimator.coef_)
    # mistakes, updates and rounds alike; the loss, a float sum over chunks (a kept shard's are larger), to rounding
    assert np.array_equal(kept.totals[..., [0, 2, 3]], streamed.totals[..., [0, 2, 3]])
    np.testing.assert_allclose(kept.totals[..., 1], streamed.totals[..., 1], rtol=1e-12)
    assert np.array_equal(kept.held_out, streamed.held_out)
    assert kept.held_out[:, :, 0].tolist() == [[30, 30]] * 3  # rows 4, 8, ..., 120 of each shard, every epoch


def test_a_single_epoch_keeps_nothing(client, tmp_path, reads):
    _, paths = write_halves(tmp_path)
    parameter_mixing(PAClassifier(), paths, epochs=1, timeout=TIMEOUT)
    assert sorted(reads) == paths


def same_rows(X, X2):
    return all(np.array_equal(getattr(X, name), getattr(X2, name)) for name in ("data", "indices", "indptr"))


def test_a_kept_shard_gives_the_rows_of_its_reading_in_larger_chunks_or_nothing(tmp_path, monkeypatch):
    halves, paths = write_halves(tmp_path)
    (shard,) = make_shards(paths[0], chunk_size=50)
    kept = _kept.keep_shard(shard, budget=1 << 20)
    read = list(shard.weighted_chunks())
    assert [X.shape[0] for X in (chunk[0] for chunk in read)] == [50, 50, 20]
    # kept in chunks of at least KEPT_CHUNK_ROWS rows: the 120 rows in one, from the part's first row
    ((X, y, weight, part, first),) = kept.weighted_chunks()
    np.testing.assert_array_equal(X.tocsr().toarray(), halves[0][0])
    assert np.array_equal(y, halves[0][1]) and weight is None and (part, first) == (shard.parts[0], 0)
    monkeypatch.setattr(_kept, "KEPT_CHUNK_ROWS", 1)  # below chunk_size: the chunks of the reading itself
    kept = _kept.keep_shard(shard, budget=1 << 20)
    assert len(kept.chunks) == len(read) == 3
    for (X, y, weight, part, first), (X2, y2, weight2, part2, first2) in zip(kept.weighted_chunks(), read):
        assert same_rows(X, X2) and np.array_equal(y, y2) and weight is weight2 is None
        assert (part, first) == (part2, first2)
    assert _kept.keep_shard(shard, budget=1000) is None  # 120 rows of 5 values: more than 1,000 bytes
    bad = tmp_path / "bad.svm"
    bad.write_text("1 0:1\n-1 1:x\n")
    (bad_shard,) = make_shards(str(bad), zero_based=True)
    assert _kept.keep_shard(bad_shard, budget=1 << 20) is None  # the pass reads it, and raises where it fails


def test_command_line_workers_are_threads_only_where_the_passes_release_the_gil():
    from olearn._kernels import _compiled

    assert passes_release_gil(PAClassifier()) is (_compiled.EXTENSION is not None)
    assert not passes_release_gil(PAClassifier(average=True))
    assert not passes_release_gil(PAClassifier(kernel="rbf"))
    assert not passes_release_gil(AROW())


def test_a_run_from_files_imports_neither_scikit_learn_nor_dask_collections_nor_numba(tmp_path):
    _, paths = write_halves(tmp_path)
    code = (
        "import sys\n"
        "from olearn.distributed import make_shards\n"
        "from olearn.distributed._models import check_supported, kind_of\n"
        "from olearn.linear import PAClassifier\n"
        f"make_shards({paths!r})\n"
        "assert kind_of(PAClassifier()) == 'linear' and check_supported(PAClassifier(), 'parameter mixing')\n"
        "print(sorted(name for name in ('sklearn', 'pandas', 'dask.array', 'dask.dataframe', 'numba') "
        "if name in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_mixing_libsvm_files_on_a_cluster_of_threads_imports_no_scipy(tmp_path):
    """The workers learn a file's rows as its reader parsed them (CSRRows), as the serial command line does: no
    scipy matrix is built, so neither the client nor the workers import scipy (about 0.2 s of a run's start)."""
    _, paths = write_halves(tmp_path)
    code = (
        "import sys\n"
        "from olearn.distributed import connect, parameter_mixing\n"
        "from olearn.linear import PAClassifier\n"
        "with connect(workers=2, processes=False, quiet=True) as client:\n"
        f"    res = parameter_mixing(PAClassifier(), {paths!r}, epochs=2, holdout_every=4, client=client)\n"
        "print(res.n_rounds, sorted(name for name in sys.modules if name == 'scipy' or name.startswith('scipy.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "360 []"  # 2 epochs of 2 x 90 learned rows (every 4th of 120 held out)


@pytest.fixture
def reading_threads(monkeypatch):
    """The name of the thread of each reading of a file part."""
    import threading

    names = []
    read = FilePart._read

    def counted(part, chunk_size):
        names.append(threading.current_thread().name)
        yield from read(part, chunk_size)

    monkeypatch.setattr(FilePart, "_read", counted)
    return names


def test_a_shard_read_ahead_is_taken_once_by_keep_shard_as_it_would_have_read_it(tmp_path, reading_threads):
    halves, paths = write_halves(tmp_path)
    shards = make_shards(paths, chunk_size=50)
    with _kept.read_ahead(shards, budget=1 << 20, threads=2):
        # an equal shard (the worker's copy), taken as read ahead, on a thread of its own
        taken = _kept.keep_shard(make_shards(paths, chunk_size=50)[1])
        assert [name.rpartition("_")[0] for name in reading_threads] == ["olearn-read-ahead"] * 2
        again = _kept.keep_shard(shards[1])  # taken once: read again
    assert len(reading_threads) == 3
    assert _kept.keep_shard(shards[0], budget=1 << 20) is not None and len(reading_threads) == 4  # forgotten on leaving
    for kept in (taken, again):
        ((X, y, weight, part, first),) = kept.weighted_chunks()
        np.testing.assert_array_equal(X.tocsr().toarray(), halves[1][0])
        assert np.array_equal(y, halves[1][1]) and (part, first) == (shards[1].parts[0], 0)


def test_a_shard_too_large_to_keep_is_read_ahead_as_none(tmp_path):
    _, paths = write_halves(tmp_path)
    (shard,) = make_shards(paths[0])
    with _kept.read_ahead([shard], budget=1000, threads=1):
        assert _kept.keep_shard(shard) is None


@pytest.mark.skipif(not passes_release_gil(PAClassifier()), reason="the command line's workers are processes")
def test_the_command_lines_cluster_of_threads_learns_the_byte_ranges_it_read_ahead(tmp_path, reading_threads):
    from click.testing import CliRunner
    from sklearn.datasets import load_svmlight_file

    import olearn
    from olearn.cli import cli

    halves, paths = write_halves(tmp_path, n=400)
    whole = tmp_path / "whole.svm"
    whole.write_text(open(paths[0]).read() + open(paths[1]).read())
    model = tmp_path / "model.npz"
    out = CliRunner().invoke(cli, ["run", "--algo", "pa1", "-C", "0.2", "--workers", "2", "--passes", "3",
                                   "--holdout-off", "--zero-based", str(whole), "-f", str(model)])
    assert out.exit_code == 0, out.output
    # each byte range once, read ahead before the cluster's first epoch
    assert [name.rpartition("_")[0] for name in reading_threads] == ["olearn-read-ahead"] * 2
    X, y = load_svmlight_file(str(whole), zero_based=True, n_features=5)
    X = X.toarray()
    shards = make_shards(str(whole), n_shards=2, zero_based=True)
    rows = [sum(chunk.shape[0] for chunk, _ in shard.chunks()) for shard in shards]
    parts = [(X[: rows[0]], y[: rows[0]]), (X[rows[0]:], y[rows[0]:])]
    w = np.zeros(5)
    for _ in range(3):
        w = (pa1_pass(*parts[0], w, 0.2) + pa1_pass(*parts[1], w, 0.2)) / 2
    np.testing.assert_allclose(olearn.load(model).coef_[0], w, rtol=1e-10, atol=1e-12)
