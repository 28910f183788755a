"""The command line on Dask and its inputs: one file cut into byte ranges, resumed models, every task.

References: the file's lines cut by hand at the byte rule (the first line
starting at or after ``i * size / n``) and a plain NumPy transcription of
PA-I (Crammer et al. 2006, Fig. 1) mixed as McDonald, Hall & Mann (2010,
Fig. 2) mix.
"""

import gzip
import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

pytest.importorskip("distributed")

import olearn
from olearn.cli import cli
from olearn.distributed import make_shards, parameter_mixing
from olearn.exceptions import DataFormatError
from olearn.linear import PAClassifier

TIMEOUT = 300  # a hang guard: a worker process may take minutes to start on a busy machine


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, timeout=TIMEOUT)
    client = Client(cluster, timeout=TIMEOUT)
    client.wait_for_workers(2, timeout=TIMEOUT)
    yield client
    client.close(timeout=TIMEOUT)
    cluster.close(timeout=TIMEOUT)


@pytest.fixture
def big_file(tmp_path):
    """One LIBSVM file of 301 rows: (path, X, y)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(301, 5)) / 2.0
    y = np.where(X @ rng.normal(size=5) + 0.2 * rng.normal(size=301) > 0, 1.0, -1.0)
    path = tmp_path / "big.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), X, y


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def summary(output, name):
    match = re.search(rf"^{name}\s+(.+)$", output, re.MULTILINE)
    assert match, output
    return match.group(1)


def rows_of_ranges(path, n):
    """The row numbers each of n byte ranges holds: a line belongs to range i when it starts in
    [cut_i, cut_{i+1}), cut_i the first line start at or after i * size / n."""
    data = open(path, "rb").read()
    starts = [0] + [k + 1 for k, byte in enumerate(data) if byte == ord("\n") and k + 1 < len(data)]
    cuts = [min((s for s in starts if s >= i * len(data) // n), default=len(data)) for i in range(n)] + [len(data)]
    return [[r for r, s in enumerate(starts) if lo <= s < hi] for lo, hi in zip(cuts, cuts[1:])]


def pa1_pass(X, y, w, C):
    """PA-I (Crammer et al. 2006, Fig. 1) from w."""
    w = w.copy()
    for x, label in zip(X, y):
        loss = max(0.0, 1.0 - label * (w @ x))
        if loss > 0.0:
            w = w + min(C, loss / (x @ x)) * label * x
    return w


def mixed_pa1(X, y, parts, C, epochs):
    w = np.zeros(X.shape[1])
    for _ in range(epochs):
        w = np.mean([pa1_pass(X[rows], y[rows], w, C) for rows in parts], axis=0)
    return w


# (1) one file cut into byte ranges on line boundaries

@pytest.mark.parametrize("n", [2, 3, 7])
def test_one_file_is_cut_into_byte_ranges_on_line_boundaries(big_file, n):
    path, X, y = big_file
    shards = make_shards(path, n_shards=n, n_features=5)
    expected = rows_of_ranges(path, n)
    assert len(shards) == n
    for shard, rows in zip(shards, expected):
        chunks = list(shard.chunks())
        np.testing.assert_allclose(np.vstack([Xc.toarray() for Xc, _ in chunks]), X[rows], rtol=1e-6)
        np.testing.assert_array_equal(np.concatenate([yc for _, yc in chunks]), y[rows])


def test_a_file_of_fewer_lines_than_shards_gives_a_shard_per_line(tmp_path):
    path = tmp_path / "two.svm"
    path.write_text("1 1:1\n-1 2:1\n")
    shards = make_shards(str(path), n_shards=5)
    assert [[yc.tolist() for _, yc in shard.chunks()] for shard in shards] == [[[1.0]], [[-1.0]]]


def test_a_bad_line_in_a_later_range_is_named_by_its_line_in_the_file(tmp_path):
    path = tmp_path / "bad.svm"
    lines = [f"{1 if i % 2 else -1} 1:{i + 1}" for i in range(100)]
    lines[80] = "1 1:x"
    path.write_text("\n".join(lines) + "\n")
    shard_a, shard_b = make_shards(str(path), n_shards=2, zero_based=False)  # no detection: it would parse the file
    assert sum(yc.size for _, yc in shard_a.chunks()) < 80
    with pytest.raises(DataFormatError) as err:
        list(shard_b.chunks())
    assert err.value.line == 81 and err.value.path == str(path)


def test_a_file_that_cannot_be_cut_is_refused_with_the_reason(tmp_path, big_file):
    path, X, y = big_file
    packed = tmp_path / "big.svm.gz"
    packed.write_bytes(gzip.compress(open(path, "rb").read()))
    with pytest.raises(ValueError, match=r"big.svm.gz is compressed \(gzip\), and a compressed stream cannot be cut"):
        make_shards(str(packed), n_shards=2)


def test_mixing_on_byte_ranges_is_mixing_of_their_rows(client, big_file):
    path, X, y = big_file
    res = parameter_mixing(PAClassifier(C=0.5), path, n_shards=2, epochs=2, n_features=5, client=client)
    assert res.n_shards == 2
    np.testing.assert_allclose(res.estimator.coef_[0], mixed_pa1(X, y, rows_of_ranges(path, 2), 0.5, 2),
                               rtol=1e-9, atol=1e-12)


def test_the_command_line_cuts_one_file_into_a_shard_per_worker(client, big_file, tmp_path):
    path, X, y = big_file
    model = tmp_path / "m.npz"
    result = invoke("run", "--algo", "pa1", "-C", 0.5, "--passes", 2, "--holdout-off", "--n-features", 5,
                    "--scheduler", client.scheduler.address, "--save", model, path)
    assert result.exit_code == 0, result.output
    assert summary(result.output, "shards") == "2 on 2 workers"
    np.testing.assert_allclose(olearn.load(model).coef_[0], mixed_pa1(X, y, rows_of_ranges(path, 2), 0.5, 2),
                               rtol=1e-9, atol=1e-12)


def test_the_command_line_says_why_a_file_stays_one_shard(client, big_file, tmp_path):
    path, X, y = big_file
    packed = tmp_path / "big.svm.gz"
    packed.write_bytes(gzip.compress(open(path, "rb").read()))
    result = invoke("run", "--algo", "pa1", "--scheduler", client.scheduler.address, packed)
    assert result.exit_code == 0, result.output
    assert summary(result.output, "shards") == "1 on 2 workers"
    assert "one shard on 2 workers: big.svm.gz is compressed (gzip)" in result.stderr
