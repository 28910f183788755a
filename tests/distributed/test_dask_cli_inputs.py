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


@pytest.fixture(scope="module")
def client(process_client):
    """Worker processes: this module kills workers."""
    return process_client


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


# (2) what the serial command line takes: -i continues a model; the rest is refused in one line with its reason

@pytest.fixture
def two_files(tmp_path, big_file):
    """The rows of big_file as a head file and two shard files: (head, [shard paths], X, y, row slices)."""
    path, X, y = big_file
    slices = [slice(0, 100), slice(100, 200), slice(200, 301)]
    paths = []
    for i, rows in enumerate(slices):
        paths.append(str(tmp_path / f"part-{i}.svm"))
        dump_svmlight_file(X[rows], y[rows], paths[-1], zero_based=False)
    return paths[0], paths[1:], X, y, slices


def test_initial_model_continues_on_shards(client, two_files, tmp_path):
    head, shards, X, y, (first, *rest) = two_files
    assert invoke("run", "-a", "pa1", "-C", 0.5, "--n-features", 5, head, "-f", tmp_path / "a.npz").exit_code == 0
    result = invoke("run", "-i", tmp_path / "a.npz", "--scheduler", client.scheduler.address, *shards,
                    "-f", tmp_path / "b.npz")
    assert result.exit_code == 0, result.output
    w = pa1_pass(X[first], y[first], np.zeros(5), 0.5)
    w = np.mean([pa1_pass(X[rows], y[rows], w, 0.5) for rows in rest], axis=0)
    np.testing.assert_allclose(olearn.load(tmp_path / "b.npz").coef_[0], w, rtol=1e-9, atol=1e-12)


def test_initial_model_contradicted_by_the_options_is_refused(client, two_files, tmp_path):
    head, shards, _, _, _ = two_files
    assert invoke("run", "-a", "pa1", "-C", 0.5, head, "-f", tmp_path / "a.npz").exit_code == 0
    result = invoke("run", "-i", tmp_path / "a.npz", "-C", 2, "--scheduler", client.scheduler.address, *shards)
    assert result.exit_code == 2 and "-C 2.0 contradicts -i" in result.output
    result = invoke("run", "-i", tmp_path / "a.npz", "--classes", "0,1", "--scheduler", client.scheduler.address,
                    *shards)
    assert result.exit_code == 2 and "--classes 0,1 contradicts -i" in result.output
    assert "which learned the classes -1.0,1.0: drop --classes" in result.output


@pytest.mark.parametrize("args, reason", [
    (["-p", "-"], "-p on Dask writes the first epoch's progressive predictions of parameter mixing; on stdout"),
    (["-c"], "-c does not apply on Dask: -c keeps one FILE's cache on this machine"),
    (["--link", "logistic"], "--link does not apply on Dask"),
])
def test_serial_options_are_refused_with_their_reason(client, two_files, args, reason):
    _, shards, _, _, _ = two_files
    result = invoke("run", "-a", "pa1", *args, "--scheduler", client.scheduler.address, *shards)
    assert result.exit_code == 2 and reason in result.output, result.output
    assert "Traceback" not in result.output


# (3) every task the library mixes, on the command line

def pa1_regression_pass(X, y, w, C, epsilon):
    """PA-I regression (Crammer et al. 2006, Sec. 5): the epsilon-insensitive loss, w += sign(y - w.x) tau x."""
    w = w.copy()
    for x, target in zip(X, y):
        loss = max(0.0, abs(target - w @ x) - epsilon)
        if loss > 0.0:
            w = w + np.sign(target - w @ x) * min(C, loss / (x @ x)) * x
    return w


def test_regression_shards_mix_as_pa_regression(client, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=160)
    paths = []
    for i, rows in enumerate((slice(0, 80), slice(80, 160))):
        paths.append(str(tmp_path / f"r-{i}.svm"))
        dump_svmlight_file(X[rows], y[rows], paths[-1], zero_based=False)
    result = invoke("run", "-a", "pa1-regression", "-C", 0.5, "--set", "epsilon=0.05", "--passes", 2,
                    "--holdout-off", "--scheduler", client.scheduler.address, *paths, "-f", tmp_path / "r.npz")
    assert result.exit_code == 0, result.output
    assert "average loss" in result.output and "mistakes" not in result.output
    w = np.zeros(4)
    for _ in range(2):
        w = np.mean([pa1_regression_pass(X[rows], y[rows], w, 0.5, 0.05)
                     for rows in (slice(0, 80), slice(80, 160))], axis=0)
    np.testing.assert_allclose(olearn.load(tmp_path / "r.npz").coef_, w, rtol=1e-9, atol=1e-12)


def test_regression_shards_report_their_held_out_errors_as_a_serial_run(client, tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=160)
    halves = (slice(0, 80), slice(80, 160))
    paths = []
    for i, rows in enumerate(halves):
        paths.append(str(tmp_path / f"r-{i}.svm"))
        dump_svmlight_file(X[rows], y[rows], paths[-1], zero_based=False)
    result = invoke("run", "-a", "pa1-regression", "-C", 0.5, "--set", "epsilon=0.05", "--passes", 2,
                    "--holdout-every", 4, "--scheduler", client.scheduler.address, *paths)
    assert result.exit_code == 0, result.output
    # each shard's rows 4, 8, ..., 80 predicted by its learner of that moment, never learned (PA-I regression,
    # Crammer et al. 2006, Sec. 5); the models of the two shards mixed after each pass
    w = np.zeros(4)
    for epoch in (1, 2):
        sums, learned = np.zeros(3), []
        for rows in halves:
            shard_w = w.copy()
            for i, (x, target) in enumerate(zip(X[rows], y[rows]), start=1):
                error = shard_w @ x - target
                loss = max(0.0, abs(error) - 0.05)
                if i % 4 == 0:
                    sums += (abs(error), error * error, loss)
                elif loss > 0.0:
                    shard_w = shard_w - np.sign(error) * min(0.5, loss / (x @ x)) * x
            learned.append(shard_w)
        w = np.mean(learned, axis=0)
        mae, rmse, loss = sums[0] / 40, np.sqrt(sums[1] / 40), sums[2] / 40
        assert f"pass {epoch} held out: 40 examples, MAE {mae:.6f}, RMSE {rmse:.6f}, loss {loss:.6f} h" in result.output
    assert re.search(rf"^held-out MAE\s+{mae:.6f} h \(last pass\)$", result.output, re.M), result.output


@pytest.fixture
def three_classes(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(180, 4))
    y = np.argmax(X @ rng.normal(size=(4, 3)), axis=1) + 1.0
    paths = []
    for i, rows in enumerate((slice(0, 90), slice(90, 180))):
        paths.append(str(tmp_path / f"m-{i}.svm"))
        dump_svmlight_file(X[rows], y[rows], paths[-1], zero_based=False)
    return paths, X, y


def pa1_multiclass_pass(X, y, W, classes, C):
    """PA-I multiclass (Crammer et al. 2006, Sec. 7, single label): the highest-scoring wrong class r,
    loss 1 - (w_y - w_r).x, tau = min(C, loss / (2 ||x||^2)), w_y += tau x, w_r -= tau x."""
    W = W.copy()
    for x, label in zip(X, y):
        scores = W @ x
        k = classes.index(label)
        wrong = np.where(np.arange(len(classes)) == k, -np.inf, scores)
        r = int(np.argmax(wrong))
        loss = max(0.0, 1.0 - (scores[k] - scores[r]))
        if loss > 0.0:
            tau = min(C, loss / (2 * (x @ x)))
            W[k] += tau * x
            W[r] -= tau * x
    return W


def test_multiclass_shards_mix_each_class_s_prototype(client, three_classes, tmp_path):
    paths, X, y = three_classes
    result = invoke("run", "-a", "pa1-multiclass", "-C", 0.5, "--classes", "1,2,3", "--scheduler",
                    client.scheduler.address, *paths, "-f", tmp_path / "m.npz")
    assert result.exit_code == 0, result.output
    parts = [pa1_multiclass_pass(X[rows], y[rows], np.zeros((3, 4)), [1.0, 2.0, 3.0], 0.5)
             for rows in (slice(0, 90), slice(90, 180))]
    np.testing.assert_allclose(olearn.load(tmp_path / "m.npz").coef_, np.mean(parts, axis=0), rtol=1e-9, atol=1e-12)
    result = invoke("run", "-a", "pa1-multiclass", "--scheduler", client.scheduler.address, *paths)
    assert result.exit_code == 2 and "give them with --classes A,B,C" in result.output


def test_cost_sensitive_shards_take_the_labels_of_the_costs(client, three_classes, tmp_path):
    paths, X, y = three_classes
    costs = tmp_path / "costs.txt"
    costs.write_text("1 2 3\n0 1 1\n1 0 1\n1 1 0\n")  # the 0/1 cost: PA-I multiclass
    result = invoke("run", "-a", "pa1-cost-sensitive", "-C", 0.5, "--costs", costs, "--scheduler",
                    client.scheduler.address, *paths, "-f", tmp_path / "c.npz")
    assert result.exit_code == 0, result.output
    model = olearn.load(tmp_path / "c.npz")
    assert model.classes_.tolist() == [1.0, 2.0, 3.0]
    result = invoke("run", "-a", "pa1-cost-sensitive", "--costs", costs, "--classes", "1,2,3", "--scheduler",
                    client.scheduler.address, *paths)
    assert result.exit_code == 2 and "--classes does not apply with" in result.output


# (4) delayed updates send what changed

def test_delayed_updates_send_the_entries_a_step_moved(tmp_path, monkeypatch):
    """After the first step (the whole snapshot), each shard receives only the entries the step before moved
    (the features of its rows, and the intercept), and scores on the coordinator's weights bit for bit: the
    model equals that of whole snapshots sent every step."""
    from distributed import Client, LocalCluster

    from olearn.distributed import delayed_updates
    from olearn.distributed import _delayed

    rng = np.random.default_rng(11)
    d, n = 4096, 400
    X = sp_random(n, d, rng)
    y = np.where(rng.normal(size=n) > 0, 1.0, -1.0)
    shards = [(X[:200], y[:200]), (X[200:], y[200:])]
    received = []
    score = _delayed.ShardReader.score

    def recording(self, update, scale, n_rows):
        received.append((update[0], len(update[1])))
        return score(self, update, scale, n_rows)

    monkeypatch.setattr(_delayed.ShardReader, "score", recording)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        sparse = delayed_updates(PAClassifier(C=0.5, fit_intercept=True, n_features=d), shards, tau=15, client=client)
        kinds = [kind for kind, _ in received]
        assert kinds[:2] == ["dense", "dense"] and set(kinds[2:]) == {"sparse"}
        # a step of 2 x 8 rows of about 8 features each moves at most 16 * 8 + 1 entries
        assert max(size for kind, size in received if kind == "sparse") <= 16 * X.getnnz(axis=1).max() + 1
        monkeypatch.setattr(_delayed._Snapshot, "__init__", dense_snapshot)
        dense = delayed_updates(PAClassifier(C=0.5, fit_intercept=True, n_features=d), shards, tau=15, client=client)
    np.testing.assert_array_equal(sparse.estimator.coef_, dense.estimator.coef_)
    np.testing.assert_array_equal(sparse.estimator.intercept_, dense.estimator.intercept_)
    assert sparse.n_mistakes == dense.n_mistakes


def dense_snapshot(self, est, touched, dense_only):
    """The snapshot of every step sent whole, as before deltas."""
    from olearn._kernels._codes import S_SCALE

    self.w, self.scale, self.delta = est._w.copy(), float(est._state[S_SCALE]), None


def sp_random(n, d, rng):
    import scipy.sparse as sp

    return sp.random(n, d, density=8 / d, format="csr", random_state=rng, data_rvs=rng.standard_normal)
