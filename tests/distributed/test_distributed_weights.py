"""Importance weights on shards, on a local cluster of threads.

References, computed independently of the mixing code: the serial learners'
``partial_fit(X, y, sample_weight=...)`` (one shard for E epochs must be E
weighted serial passes, bit for bit), and plain NumPy averages of k weighted
models each trained serially on its own shard (one epoch of mixing k
shards from a fresh model).
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import delayed_updates, parameter_mixing
from olearn.linear import PAClassifier, PARegressor
from olearn.multiclass import PAMulticlass
from olearn.sequence import PASequence

TIMEOUT = 300  # a hang guard only


def stream(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X @ [1.0, -2.0, 0.5, 1.5] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y, rng.uniform(0.0, 3.0, size=n)


LEARNERS = [(lambda: PAClassifier(variant="pa1", C=0.2), {}),
            (lambda: PAMulticlass(variant="pa2", C=0.5), {"classes": [-1, 1]}),
            (lambda: PARegressor(variant="pa1", C=0.3), {})]


@pytest.mark.parametrize("make, fit", LEARNERS)
def test_weighted_rows_of_one_shard_are_the_weighted_serial_learner(client, make, fit):
    X, y, w = stream(120, seed=1)
    res = parameter_mixing(make(), [(X, y, w)], epochs=2, timeout=TIMEOUT, chunk_size=50, **fit)
    serial = make().partial_fit(X, y, sample_weight=w, **fit).partial_fit(X, y, sample_weight=w)
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    unweighted = parameter_mixing(make(), [(X, y)], epochs=2, timeout=TIMEOUT, **fit).estimator
    assert not np.array_equal(unweighted.coef_, serial.coef_)  # the weights did count


@pytest.mark.parametrize("make, fit", LEARNERS)
def test_weighted_shards_mix_into_the_average_of_weighted_models(client, make, fit):
    X, y, w = stream(150, seed=2)
    shards = [(X[i::3], y[i::3], w[i::3]) for i in range(3)]
    res = parameter_mixing(make(), shards, timeout=TIMEOUT, **fit)
    models = [make().partial_fit(Xs, ys, sample_weight=ws, **fit) for Xs, ys, ws in shards]
    np.testing.assert_allclose(res.estimator.coef_, np.mean([m.coef_ for m in models], axis=0), rtol=1e-12,
                               atol=1e-14)


def test_a_weight_for_the_whole_part_and_weighted_sequences(client):
    X, y, _ = stream(60, seed=3)
    res = parameter_mixing(PAClassifier(), [(X[:30], y[:30], 2.0), (X[30:], y[30:])], timeout=TIMEOUT)
    models = [PAClassifier().partial_fit(X[:30], y[:30], sample_weight=np.full(30, 2.0)),
              PAClassifier().partial_fit(X[30:], y[30:])]
    np.testing.assert_allclose(res.estimator.coef_, np.mean([m.coef_ for m in models], axis=0), rtol=1e-12)
    sequences = [np.eye(3)[[0, 1]], np.eye(3)[[2]], np.eye(3)[[1, 1, 0]]]
    tags = [np.array(["a", "b"]), np.array(["c"]), np.array(["b", "b", "a"])]
    weights = np.array([0.5, 3.0, 0.0])
    res = parameter_mixing(PASequence(variant="pa1", C=0.4), [(sequences, tags, weights)], timeout=TIMEOUT)
    serial = PASequence(variant="pa1", C=0.4).partial_fit(sequences, tags, sample_weight=weights)
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    with pytest.raises(ValueError, match="a part has 3 rows in X and 2 sample weights"):
        parameter_mixing(PASequence(), [(sequences, tags, weights[:2])], timeout=TIMEOUT)


def test_vw_importance_weights_are_honoured_by_mixing_and_refused_by_delayed_updates(client, tmp_path):
    from olearn.data import load_vw

    path = tmp_path / "weighted.vw"
    path.write_text("1 2 | a b\n-1 0.5 | c\n1 | a c\n-1 3 | b\n")
    X, y, w = load_vw(str(path), n_bits=8)
    res = parameter_mixing(PAClassifier(C=0.5), str(path), bits=8, timeout=TIMEOUT)
    serial = PAClassifier(C=0.5).partial_fit(X, y, sample_weight=w)
    assert np.array_equal(res.estimator.coef_, serial.coef_[:, : res.estimator.coef_.shape[1]])
    with pytest.raises(ValueError, match=r"weighted.vw: gives importance weights other than 1, and delayed "
                                         r"updates do not honour them"):
        delayed_updates(PAClassifier(), str(path), bits=8, tau=0, timeout=TIMEOUT)
    with pytest.raises(ValueError, match=r"shard 0 \(MemoryPart\): gives importance weights other than 1"):
        delayed_updates(PAClassifier(), [(X, y, w)], tau=0, timeout=TIMEOUT)
