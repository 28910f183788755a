"""Pipelines on Dask: the scalers' statistics merged over the shards, then the learner mixed over scaled shards.

References are plain NumPy: the statistics of all the rows (np.mean, np.var, np.abs(...).max()), the rows scaled
by hand, and a hand mixing (the average) of serial learners that each learned one shard of the scaled rows.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import PAClassifier
from olearn.compose import Pipeline
from olearn.distributed import DistributedError, parameter_mixing
from olearn.preprocessing import FeatureHasher, MaxAbsScaler, StandardScaler

pytest.importorskip("distributed")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * [1.0, 10.0, 100.0, 0.1] + [5.0, -3.0, 0.0, 1.0]
    y = np.where((X[:, 0] - 5.0) + (X[:, 1] + 3.0) / 10.0 - X[:, 3] + 1.0 > 0, 1, -1)
    return X, y


def _weights(learner):
    return np.append(learner.coef_.ravel(), learner.intercept_)


def _hand_mixed(Z, y, bounds):
    """The average of the weights of serial PA learners, each of which learned one shard of the rows Z."""
    mixed = [_weights(PAClassifier().partial_fit(Z[lo:hi], y[lo:hi], classes=[-1, 1])) for lo, hi in bounds]
    return np.mean(mixed, axis=0)


def test_standard_scaler_statistics_are_the_whole_data_and_the_learner_the_hand_mixing(client):
    X, y = _data()
    pipeline = StandardScaler() | PAClassifier()
    res = parameter_mixing(pipeline, [(X[:100], y[:100]), (X[100:], y[100:])], client=client)
    scaler = pipeline["standardscaler"]
    assert scaler.n_seen_ == 300
    assert np.allclose(scaler.mean_, X.mean(axis=0), rtol=1e-12, atol=1e-12)
    assert np.allclose(scaler.var_, X.var(axis=0), rtol=1e-12)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    assert np.allclose(_weights(pipeline[-1]), _hand_mixed(Z, y, [(0, 100), (100, 300)]), rtol=1e-9, atol=1e-12)
    assert res.estimator is pipeline
    # the pipeline predicts new rows scaled by the frozen statistics
    assert np.allclose(pipeline.decision_function(X), Z @ pipeline[-1].coef_.ravel() + pipeline[-1].intercept_,
                       rtol=1e-9, atol=1e-12)


def test_sparse_shards_merge_the_counts_of_the_stored_entries(client):
    # a sparse row's absent entries count as zeros in the variance; the per-column counts differ between shards
    rng = np.random.default_rng(3)
    dense = rng.normal(size=(200, 6)) * 3.0 + 2.0
    dense[rng.random(dense.shape) < 0.6] = 0.0
    y = np.where(dense[:, 0] - dense[:, 1] > 0, 1, -1)
    X = sp.csr_matrix(dense)
    pipeline = StandardScaler() | PAClassifier()
    parameter_mixing(pipeline, [(X[:50], y[:50]), (X[50:130], y[50:130]), (X[130:], y[130:])], client=client)
    scaler = pipeline["standardscaler"]
    assert np.allclose(scaler.mean_, dense.mean(axis=0), rtol=1e-12)
    assert np.allclose(scaler.var_, dense.var(axis=0), rtol=1e-12)


def test_chained_scalers_each_learn_the_rows_scaled_by_those_before(client):
    X, y = _data(seed=1)
    pipeline = StandardScaler() | MaxAbsScaler() | PAClassifier()
    parameter_mixing(pipeline, [(X[:150], y[:150]), (X[150:], y[150:])], client=client)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    peaks = np.abs(Z).max(axis=0)
    assert np.allclose(pipeline["maxabsscaler"].max_abs_, peaks, rtol=1e-12)
    assert np.allclose(_weights(pipeline[-1]), _hand_mixed(Z / peaks, y, [(0, 150), (150, 300)]), rtol=1e-9,
                       atol=1e-12)


def test_held_out_rows_are_left_out_of_the_statistics(client):
    X, y = _data(seed=2)
    pipeline = MaxAbsScaler() | PAClassifier()
    parameter_mixing(pipeline, [(X[:100], y[:100]), (X[100:], y[100:])], epochs=2, holdout_every=4, client=client)
    learned = np.ones(300, dtype=bool)
    learned[3:100:4] = False  # rows 4, 8, ... of each shard, counted from 1
    learned[103:300:4] = False
    assert pipeline["maxabsscaler"].n_seen_ == learned.sum()
    assert np.array_equal(pipeline["maxabsscaler"].max_abs_, np.abs(X[learned]).max(axis=0))


def test_the_mixed_pipeline_saves_and_loads(client, tmp_path):
    X, y = _data(seed=4)
    pipeline = StandardScaler() | PAClassifier()
    parameter_mixing(pipeline, [(X[:150], y[:150]), (X[150:], y[150:])], client=client)
    path = pipeline.save(str(tmp_path / "model.npz"))
    loaded = olearn.load(path)
    assert np.array_equal(loaded.decision_function(X), pipeline.decision_function(X))
    assert np.array_equal(loaded["standardscaler"].var_, pipeline["standardscaler"].var_)


def test_a_pipeline_that_learned_before_merges_its_statistics_with_the_shards(client):
    X, y = _data(seed=5)
    pipeline = StandardScaler() | PAClassifier()
    pipeline.partial_fit(X[:60], y[:60])
    parameter_mixing(pipeline, [(X[60:180], y[60:180]), (X[180:], y[180:])], client=client)
    assert pipeline["standardscaler"].n_seen_ == 300
    assert np.allclose(pipeline["standardscaler"].mean_, X.mean(axis=0), rtol=1e-12)
    assert np.allclose(pipeline["standardscaler"].var_, X.var(axis=0), rtol=1e-12)


class _FirstScattersFail:
    """The client, except that its first ``n`` scatters of a model (not of the shards) raise ``error``."""

    def __init__(self, client, n):
        self.client, self.left = client, n

    def __getattr__(self, name):
        return getattr(self.client, name)

    def scatter(self, data, **kwargs):
        if not isinstance(data, list) and self.left:
            self.left -= 1
            raise OSError("Timed out trying to connect to a worker that has died")
        return self.client.scatter(data, **kwargs)


def test_a_worker_lost_gives_the_same_pipeline_or_a_distributed_error(client):
    X, y = _data(seed=6)
    shards = [(X[:150], y[:150]), (X[150:], y[150:])]
    expected = StandardScaler() | PAClassifier()
    parameter_mixing(expected, shards, epochs=2, client=client)
    got = StandardScaler() | PAClassifier()
    # the statistics pass loses two workers, and retries
    parameter_mixing(got, shards, epochs=2, client=_FirstScattersFail(client, 2))
    assert np.array_equal(_weights(got[-1]), _weights(expected[-1]))
    assert np.array_equal(got["standardscaler"].var_, expected["standardscaler"].var_)
    pipeline = StandardScaler() | PAClassifier()
    with pytest.raises(DistributedError, match="statistics pass of step 1: .* lost 3 times"):
        parameter_mixing(pipeline, shards, client=_FirstScattersFail(client, 3))
    assert not pipeline._is_started() and not pipeline["standardscaler"]._is_started()
    assert not pipeline[-1]._is_started()


def test_a_failed_learning_pass_leaves_the_pipeline_as_it_was(client):
    X, y = _data(seed=7)
    pipeline = StandardScaler() | PAClassifier()
    bad = y[150:].copy()
    bad[5] = 7  # not one of the classes fixed before the first epoch
    with pytest.raises(ValueError, match="label 7 at row 5"):
        parameter_mixing(pipeline, [(X[:150], y[:150]), (X[150:], bad)], client=client)
    assert not pipeline._is_started() and not pipeline["standardscaler"]._is_started()
    assert not pipeline[-1]._is_started()


@pytest.mark.parametrize("pipeline, message", [
    (lambda: FeatureHasher(n_bits=8) | StandardScaler() | PAClassifier(), "named features"),
    (lambda: Pipeline(StandardScaler()), "ends with a transformer"),
])
def test_pipelines_that_cannot_run_on_shards_are_refused_with_the_reason(client, pipeline, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        parameter_mixing(pipeline(), [(X, y)], client=client)


def test_dask_array_shards_are_scaled_where_their_blocks_live(client):
    da = pytest.importorskip("dask.array")
    X, y = _data(seed=8)
    pipeline = StandardScaler() | PAClassifier()
    parameter_mixing(pipeline, (da.from_array(X, chunks=(100, 4)), da.from_array(y, chunks=100)), client=client)
    assert np.allclose(pipeline["standardscaler"].var_, X.var(axis=0), rtol=1e-12)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    assert np.allclose(_weights(pipeline[-1]), _hand_mixed(Z, y, [(0, 100), (100, 200), (200, 300)]), rtol=1e-9,
                       atol=1e-12)
