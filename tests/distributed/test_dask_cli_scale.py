"""``olearn run --workers/--scheduler --scale``: the scaler's statistics of every shard merged, then the learner mixed.

References are plain NumPy (the mean and variance of all the rows of the files) and serial PA-I learners on the rows
scaled by hand, mixed by hand.
"""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

pytest.importorskip("distributed")

import olearn
from olearn.cli import cli
from olearn.linear import PAClassifier


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def shard_files(tmp_path):
    """Two LIBSVM shards of raw columns (very different scales): (paths, X, y, rows of each)."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 4)) * [1.0, 50.0, 0.02, 7.0] + [3.0, -20.0, 0.5, 0.0]
    y = np.where((X[:, 0] - 3.0) - (X[:, 1] + 20.0) / 50.0 + X[:, 3] / 7.0 > 0, 1.0, -1.0)
    sizes = [(0, 120), (120, 300)]
    paths = []
    for i, (lo, hi) in enumerate(sizes):
        paths.append(tmp_path / f"part-{i}.svm")
        dump_svmlight_file(X[lo:hi], y[lo:hi], str(paths[-1]), zero_based=False)
    return paths, X, y, sizes


def _weights(learner):
    return np.append(learner.coef_.ravel(), learner.intercept_)


def test_scale_standard_merges_every_shards_statistics_then_mixes_the_learner(client, shard_files, tmp_path):
    paths, X, y, sizes = shard_files
    model = tmp_path / "model.npz"
    result = invoke("run", "-a", "pa1", "--scale", "standard", "--scheduler", client.scheduler.address, *paths,
                    "-f", model)
    assert result.exit_code == 0, result.output
    pipeline = olearn.load(str(model))
    scaler = pipeline["standardscaler"]
    assert scaler.n_seen_ == 300
    assert np.allclose(scaler.mean_, X.mean(axis=0), rtol=1e-12)
    assert np.allclose(scaler.var_, X.var(axis=0), rtol=1e-12)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    hand = np.mean([_weights(PAClassifier(variant="pa1").partial_fit(Z[lo:hi], y[lo:hi], classes=[-1.0, 1.0]))
                    for lo, hi in sizes], axis=0)
    assert np.allclose(_weights(pipeline[-1]), hand, rtol=1e-9, atol=1e-12)
    # olearn predict scales a file's rows by the merged statistics, as the pipeline does
    predicted = invoke("predict", "-m", model, paths[1], "-o", tmp_path / "labels.txt")
    assert predicted.exit_code == 0, predicted.output
    labels = np.sign(Z[120:] @ hand[:-1] + hand[-1])
    assert np.array_equal(np.loadtxt(tmp_path / "labels.txt"), labels)


def test_a_scaled_model_resumed_on_dask_merges_its_statistics_with_the_shards(client, shard_files, tmp_path):
    paths, X, _, _ = shard_files
    first = tmp_path / "first.npz"
    assert invoke("run", "-a", "pa1", "--scale", "maxabs", paths[0], "-f", first).exit_code == 0
    result = invoke("run", "-i", first, "--scheduler", client.scheduler.address, paths[1], "-f", tmp_path / "b.npz")
    assert result.exit_code == 0, result.output
    scaler = olearn.load(str(tmp_path / "b.npz"))["maxabsscaler"]
    assert scaler.n_seen_ == 300
    assert np.allclose(scaler.max_abs_, np.abs(X).max(axis=0), rtol=1e-14)  # the files hold 16 digits


@pytest.mark.parametrize("args, reason", [
    (["--delay", "1"], "--scale on Dask applies to parameter mixing"),
])
def test_scale_on_dask_is_refused_where_it_cannot_run(shard_files, args, reason):
    paths, _, _, _ = shard_files
    # refused before any cluster starts
    result = invoke("run", "-a", "pa1", "--scale", "standard", "--workers", "2", *args, *paths)
    assert result.exit_code == 2 and reason in result.output, result.output
