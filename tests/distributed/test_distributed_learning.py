"""olearn.distributed on a local Dask cluster of two worker processes.

References: the serial learners (one shard, tau = 0 and mixing with one shard
must reproduce them bit for bit) and plain NumPy transcriptions, below, of
iterative parameter mixing (McDonald, Hall & Mann 2010, Fig. 2), of AROW
(Crammer, Kulesza & Dredze 2009, Fig. 1) with the KL mixing rule, and of the
delayed-update schedule documented in olearn.distributed._delayed.
"""

import itertools
import re
import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")

from sklearn.datasets import dump_svmlight_file

from olearn import run
from olearn.distributed._delayed import ShardReader, _Shards
from olearn.distributed import (
    DistributedError,
    delayed_updates,
    make_shards,
    parameter_mixing,
)
from olearn.exceptions import DataFormatError
from olearn.linear import OGDClassifier, OnlineSVM, PAClassifier, Perceptron
from olearn.second_order import AROW, Fig1AROW

TIMEOUT = 300  # a hang guard: a worker process may take minutes to start on a busy machine


@pytest.fixture(scope="module")
def client(process_client):
    """Worker processes: this module kills workers."""
    return process_client


def stream(n, d, seed, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    return X, y


def split(X, y, sizes):
    bounds = np.cumsum([0, *sizes])
    return [(X[lo:hi], y[lo:hi]) for lo, hi in itertools.pairwise(bounds)]


# -- NumPy oracles -------------------------------------------------------------


def pa_pass(X, y, w, variant, C):
    """One pass of PA / PA-I / PA-II (Crammer et al. 2006, Fig. 1) from w; returns (w, updates)."""
    w = w.copy()
    updates = 0
    for x, label in zip(X, y):
        loss = max(0.0, 1.0 - label * (w @ x))
        sq = x @ x
        if loss == 0.0 or sq == 0.0:
            continue
        tau = {"pa": loss / sq, "pa1": min(C, loss / sq), "pa2": loss / (sq + 1.0 / (2.0 * C))}[variant]
        w = w + tau * label * x
        updates += 1
    return w, updates


def arow_pass(X, y, w, sigma, r):
    """One pass of AROW (Crammer, Kulesza & Dredze 2009, Fig. 1) from (w, Sigma); returns (w, Sigma, updates)."""
    w, sigma = w.copy(), sigma.copy()
    updates = 0
    for x, label in zip(X, y):
        loss = max(0.0, 1.0 - label * (w @ x))
        if loss == 0.0:
            continue
        v = x @ sigma @ x
        beta = 1.0 / (v + r)
        w = w + loss * beta * label * (sigma @ x)
        sigma = sigma - beta * np.outer(sigma @ x, sigma @ x)
        updates += 1
    return w, sigma, updates


def mixing_oracle(shards, epochs, weighting, local_pass, start):
    """Iterative parameter mixing: every epoch, a pass per shard from the current model, then a weighted average."""
    model = start
    for _ in range(epochs):
        outcomes = [local_pass(X, y, model) for X, y in shards]
        updates = np.array([outcome[-1] for outcome in outcomes], dtype=float)
        sizes = np.array([len(y) for _, y in shards], dtype=float)
        if weighting == "examples":
            mu = sizes / sizes.sum()
        elif weighting == "updates" and updates.sum() > 0:
            mu = updates / updates.sum()
        else:
            mu = np.full(len(shards), 1 / len(shards))
        model = local_mix([outcome[:-1] for outcome in outcomes], mu)
    return model


def local_mix(models, mu):
    if len(models[0]) == 1:
        return (sum(m * w for m, (w,) in zip(mu, models)),)
    precision = sum(m * np.linalg.inv(s) for m, (_, s) in zip(mu, models))
    mean = np.linalg.solve(precision, sum(m * np.linalg.inv(s) @ w for m, (w, s) in zip(mu, models)))
    return mean, np.linalg.inv(precision)


def delayed_oracle(shards, tau, step_of):
    """Rounds scored on the snapshot taken at the start of their step, applied in round-robin order."""
    S = len(shards)
    b = (tau + 1) // S
    w = np.zeros(shards[0][0].shape[1])
    t, mistakes = 0, 0
    position = [0] * S
    while any(position[s] < len(shards[s][1]) for s in range(S)):
        snapshot = w.copy()
        blocks = []
        for s, (X, y) in enumerate(shards):
            blocks.append((X[position[s] : position[s] + b], y[position[s] : position[s] + b]))
            position[s] += b
        for k in range(b):
            for X, y in blocks:
                if k < len(y):
                    t += 1
                    margin = y[k] * (snapshot @ X[k])
                    mistakes += margin <= 0
                    w = step_of(w, X[k], y[k], margin, t)
    return w, mistakes


def pa1_step(C):
    def step(w, x, label, margin, t):
        loss = max(0.0, 1.0 - margin)
        return w + min(C, loss / (x @ x)) * label * x

    return step


def ogd_step(eta, radius):
    def step(w, x, label, margin, t):
        if margin < 1.0:
            w = w + eta / np.sqrt(t) * label * x
        norm = np.linalg.norm(w)
        return w * (radius / norm) if norm > radius else w

    return step


# -- the serial learner, reproduced --------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: PAClassifier(variant="pa1", C=0.5),
        lambda: Perceptron(fit_intercept=True),
        lambda: OGDClassifier(radius=0.3, fit_intercept=True),
    ],
)
def test_one_shard_with_tau_zero_is_the_serial_learner_bit_for_bit(client, make):
    X, y = stream(90, 5, seed=1)
    serial = run(make(), X, y, record=False)
    res = delayed_updates(make(), [(sp.csr_matrix(X), y)], tau=0, chunk_size=37, timeout=TIMEOUT)
    assert np.array_equal(res.estimator.coef_, serial_model(make, X, y).coef_)
    assert np.array_equal(res.estimator.intercept_, serial_model(make, X, y).intercept_)
    assert (res.n_mistakes, res.n_updates, res.n_rounds) == (serial.n_mistakes, serial.n_updates, serial.n_rounds)
    assert res.cumulative_loss == serial.cumulative_loss
    assert res.rows_per_step == 1


def serial_model(make, X, y, passes=1):
    est = make()
    for _ in range(passes):
        est.partial_fit(X, y)
    return est


@pytest.mark.parametrize(
    "make",
    [
        lambda: PAClassifier(variant="pa2", C=0.1),
        lambda: Perceptron(),
        lambda: AROW(r=0.5),
        lambda: AROW(r=0.5, covariance="diag", fit_intercept=True),
        lambda: OnlineSVM(radius=1.0),
    ],
)
def test_mixing_one_shard_is_the_serial_learner_bit_for_bit(client, make, tmp_path):
    X, y = stream(400, 6, seed=2)
    path = tmp_path / "one.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    from olearn.data import load_libsvm

    Xf, yf = load_libsvm(str(path))
    res = parameter_mixing(make(), str(path), epochs=3, chunk_size=64, timeout=TIMEOUT)
    serial = serial_model(make, Xf, yf, passes=3)
    assert np.array_equal(res.estimator.coef_, serial.coef_)
    assert np.array_equal(res.estimator.intercept_, serial.intercept_)
    if isinstance(serial, AROW):
        assert np.array_equal(res.estimator.covariance_, serial.covariance_)
    assert res.totals.shape == (3, 1, 4)
    assert res.totals[:, 0, 3].tolist() == [400, 400, 400]


# -- mixing and delays, against the oracles --------------------------------------


@pytest.mark.parametrize("weighting", ["uniform", "examples", "updates"])
def test_pa_mixing_of_three_shards_matches_the_oracle(client, weighting):
    X, y = stream(300, 5, seed=3)
    shards = split(X, y, (120, 100, 80))
    res = parameter_mixing(PAClassifier(variant="pa1", C=0.2), shards, epochs=3, weighting=weighting, timeout=TIMEOUT)
    (w,) = mixing_oracle(shards, 3, weighting, lambda X, y, m: pa_pass(X, y, m[0], "pa1", 0.2), (np.zeros(5),))
    np.testing.assert_allclose(res.estimator.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert res.mixing_weights.shape == (3, 3)
    np.testing.assert_allclose(res.mixing_weights.sum(axis=1), 1.0)


def test_held_out_rows_of_each_shard_are_predicted_never_learned_in_every_epoch(client):
    X, y = stream(230, 5, seed=31)
    shards = split(X, y, (120, 110))
    res = parameter_mixing(PAClassifier(variant="pa1", C=0.2), shards, epochs=3, holdout_every=4, chunk_size=50,
                           timeout=TIMEOUT)
    w, held = np.zeros(5), []
    for _ in range(3):  # the oracle: rows 4, 8, ... of each shard predicted by its model of that moment
        models, epoch_held = [], [0, 0]
        for Xs, ys in shards:
            wi = w.copy()
            for i, (x, label) in enumerate(zip(Xs, ys), start=1):
                if i % 4 == 0:
                    epoch_held[0] += 1
                    epoch_held[1] += (1 if wi @ x > 0 else -1) != label
                else:
                    wi, _ = pa_pass(x[None], [label], wi, "pa1", 0.2)
            models.append(wi)
        w = 0.5 * (models[0] + models[1])
        held.append(epoch_held)
    np.testing.assert_allclose(res.estimator.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert res.held_out.sum(axis=1).tolist() == held
    assert res.totals[:, :, 3].tolist() == [[90, 83]] * 3  # the learned rows only
    np.testing.assert_allclose(res.held_out_rates(), [m / n for n, m in held])


@pytest.mark.parametrize("weighting", ["uniform", "examples", "updates"])
def test_arow_mixing_averages_precisions_as_the_oracle_does(client, weighting):
    X, y = stream(240, 4, seed=4)
    shards = split(X, y, (140, 100))
    res = parameter_mixing(AROW(r=1.0), shards, epochs=2, weighting=weighting, timeout=TIMEOUT)
    w, sigma = mixing_oracle(shards, 2, weighting, lambda X, y, m: arow_pass(X, y, *m, 1.0), (np.zeros(4), np.eye(4)))
    np.testing.assert_allclose(res.estimator.coef_[0], w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.estimator.covariance_, sigma, rtol=1e-9, atol=1e-12)


def test_diagonal_arow_mixing_averages_each_feature_s_precision(client):
    X, y = stream(200, 3, seed=5)
    shards = split(X, y, (100, 100))
    a, b = (AROW(r=1.0, covariance="diag").partial_fit(*shard) for shard in shards)
    precision = 0.5 / a.covariance_ + 0.5 / b.covariance_
    mean = (0.5 / a.covariance_ * a.coef_[0] + 0.5 / b.covariance_ * b.coef_[0]) / precision
    res = parameter_mixing(AROW(r=1.0, covariance="diag"), shards, timeout=TIMEOUT)
    np.testing.assert_allclose(res.estimator.covariance_, 1.0 / precision, rtol=1e-12)
    np.testing.assert_allclose(res.estimator.coef_[0], mean, rtol=1e-12)


def test_shards_of_different_widths_are_mixed_with_zero_weights_for_unseen_features(client):
    X, y = stream(100, 6, seed=6)
    shards = [(X[:50, :3], y[:50]), (X[50:], y[50:])]
    res = parameter_mixing(PAClassifier(), shards, timeout=TIMEOUT)
    wa, _ = pa_pass(X[:50, :3], y[:50], np.zeros(3), "pa1", 1.0)
    wb, _ = pa_pass(X[50:], y[50:], np.zeros(6), "pa1", 1.0)
    np.testing.assert_allclose(res.estimator.coef_[0], 0.5 * np.append(wa, np.zeros(3)) + 0.5 * wb, rtol=1e-12)


@pytest.mark.parametrize("weighting", ["uniform", "examples", "updates"])
@pytest.mark.parametrize("make", [lambda: PAClassifier(variant="pa1", C=0.2), lambda: AROW(r=1.0)])
def test_an_empty_shard_changes_nothing(client, make, weighting):
    # uniform mixing used to average the empty shard's untouched start in: the first epoch's model halved
    X, y = stream(200, 4, seed=17)
    shards = split(X, y, (120, 80))
    empty = (np.empty((0, 4)), np.empty(0))
    without = parameter_mixing(make(), shards, epochs=2, weighting=weighting, timeout=TIMEOUT)
    res = parameter_mixing(make(), [shards[0], empty, shards[1]], epochs=2, weighting=weighting, timeout=TIMEOUT)
    assert np.array_equal(res.estimator.coef_, without.estimator.coef_)
    assert res.mixing_weights[:, 1].tolist() == [0.0, 0.0]
    assert res.n_rounds == without.n_rounds == 400


def test_mixing_only_empty_shards_leaves_the_model_as_it_was(client):
    X, y = stream(50, 3, seed=18)
    est = PAClassifier().partial_fit(X, y)
    coef = est.coef_.copy()
    empty = (np.empty((0, 3)), np.empty(0))
    res = parameter_mixing(est, [empty, empty], timeout=TIMEOUT)
    assert np.array_equal(res.estimator.coef_, coef)
    assert res.n_rounds == 0 and res.mixing_weights.tolist() == [[0.0, 0.0]]


def test_file_shards_share_one_index_base_decided_from_the_first_file(client, tmp_path):
    # a 0-based data set whose first shard never uses feature 0: each file deciding alone shifted the other
    X, y = stream(200, 4, seed=19)
    X[:100, 0] = 0.0
    paths = []
    for i, (Xi, yi) in enumerate(split(X, y, (100, 100))):
        paths.append(str(tmp_path / f"part-{i}.svm"))
        dump_svmlight_file(Xi, yi, paths[-1], zero_based=True)
    res = parameter_mixing(PAClassifier(), paths, zero_based=True, timeout=TIMEOUT)
    from sklearn.datasets import load_svmlight_files

    X0, y0, X1, y1 = load_svmlight_files(paths, n_features=4, zero_based=True)  # the data as written, read by sklearn
    expected = parameter_mixing(PAClassifier(), [(X0, y0), (X1, y1)], timeout=TIMEOUT)
    assert np.array_equal(res.estimator.coef_, expected.estimator.coef_)
    with pytest.raises(DataFormatError, match=r"part-1\.svm:1:\d+: feature index 0"):
        parameter_mixing(PAClassifier(), paths, timeout=TIMEOUT)
    with pytest.raises(DataFormatError, match=r"part-1\.svm:1:\d+: feature index 0"):
        delayed_updates(PAClassifier(), paths, tau=1, timeout=TIMEOUT)


@pytest.mark.parametrize(
    "make, step",
    [
        (lambda: PAClassifier(variant="pa1", C=0.3), pa1_step(0.3)),
        (lambda: OGDClassifier(eta=0.7, radius=0.8), ogd_step(0.7, 0.8)),
    ],
)
@pytest.mark.parametrize("tau", [1, 6])
def test_delayed_updates_follow_the_documented_schedule(client, make, step, tau):
    X, y = stream(130, 4, seed=7)
    shards = split(X, y, (70, 60))
    res = delayed_updates(make(), shards, tau=tau, timeout=TIMEOUT)
    w, mistakes = delayed_oracle(shards, tau, step)
    np.testing.assert_allclose(res.estimator.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert res.n_mistakes == mistakes
    assert res.rows_per_step == (tau + 1) // 2
    assert res.totals[0, :, 3].tolist() == [70, 60]


def test_results_depend_on_the_shards_only(client):
    X, y = stream(600, 5, seed=8)
    shards = split(X, y, (200, 200, 200))
    first = parameter_mixing(PAClassifier(), shards, epochs=2, timeout=TIMEOUT)
    again = parameter_mixing(PAClassifier(), shards, epochs=2, timeout=TIMEOUT)
    grouped = parameter_mixing(PAClassifier(), split(X, y, [100] * 6), n_shards=3, epochs=2, timeout=TIMEOUT)
    assert np.array_equal(first.estimator.coef_, again.estimator.coef_)
    assert np.array_equal(first.estimator.coef_, grouped.estimator.coef_)
    d1 = delayed_updates(OGDClassifier(), shards, tau=5, timeout=TIMEOUT)
    d2 = delayed_updates(OGDClassifier(), shards, tau=5, timeout=TIMEOUT)
    assert np.array_equal(d1.estimator.coef_, d2.estimator.coef_)
    assert np.array_equal(d1.totals, d2.totals)


def test_dask_arrays_bags_files_and_globs_are_the_same_shards(client, tmp_path):
    import dask.array as da
    import dask.bag as db

    X, y = stream(200, 4, seed=9)
    pairs = split(X, y, (100, 100))
    for i, (Xi, yi) in enumerate(pairs):
        dump_svmlight_file(Xi, yi, str(tmp_path / f"part-{i}.svm"), zero_based=True)
    expected = parameter_mixing(PAClassifier(), pairs, timeout=TIMEOUT).estimator.coef_
    arrays = (da.from_array(X, chunks=(100, 2)), da.from_array(y, chunks=100))
    bag = db.from_sequence([({j: v for j, v in enumerate(row)}, label) for row, label in zip(X, y)], npartitions=2)
    for data in (arrays, bag, str(tmp_path / "part-*.svm"), [tmp_path / "part-0.svm", tmp_path / "part-1.svm"]):
        got = parameter_mixing(PAClassifier(), data, timeout=TIMEOUT).estimator.coef_
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("mode", ["mixing", "delayed"])
def test_persisted_dask_arrays_are_learned_as_the_pairs_they_hold(client, mode):
    import dask.array as da

    X, y = stream(200, 4, seed=29)
    learn = ((lambda data: parameter_mixing(PAClassifier(), data, epochs=2, timeout=TIMEOUT)) if mode == "mixing"
             else (lambda data: delayed_updates(PAClassifier(), data, tau=3, timeout=TIMEOUT)))
    expected = learn(split(X, y, (100, 100))).estimator.coef_
    arrays = client.persist([da.from_array(X, chunks=(100, 4)), da.from_array(y, chunks=100)])
    got = learn(tuple(arrays)).estimator.coef_
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
    assert np.array_equal(arrays[0].compute(), X)  # the caller's persisted data outlive the run


def test_an_array_s_partitions_are_sent_not_the_whole_array_with_each_shard(client, monkeypatch):
    import pickle

    import dask.array as da

    import olearn.distributed._mixing as mixing

    X, y = stream(4000, 25, seed=30)  # 800 kB
    sent = []
    scatter = mixing._Epochs._scatter

    def measured(self, data):
        sent.append(len(pickle.dumps(data)))
        return scatter(self, data)

    monkeypatch.setattr(mixing._Epochs, "_scatter", measured)
    res = parameter_mixing(PAClassifier(), (da.from_array(X, chunks=(500, 25)), da.from_array(y, chunks=500)),
                           timeout=TIMEOUT)
    assert res.n_shards == 8 and res.n_rounds == 4000
    assert sum(sent) < X.nbytes / 10, sent  # the shards and the model; the partitions are computed on the cluster


def test_file_shards_are_read_in_chunks(tmp_path):
    X, y = stream(250, 3, seed=10)
    dump_svmlight_file(X, y, str(tmp_path / "a.svm"), zero_based=True)
    (shard,) = make_shards(str(tmp_path / "a.svm"), chunk_size=100)
    assert [X.shape[0] for X, _ in shard.chunks()] == [100, 100, 50]


def _rewrite(path, text, mtime_ns=None):
    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.mark.parametrize("change", ["other size", "same size, other time"])
def test_a_file_shard_that_changes_is_refused_naming_it(tmp_path, change):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n1 1:2\n")
    (shard,) = make_shards(str(path), chunk_size=1)
    assert len(list(shard.chunks())) == 3
    mtime = path.stat().st_mtime_ns
    if change == "other size":
        _rewrite(path, "1 1:1\n-1 2:1\n1 1:2\n-1 2:2\n", mtime)
    else:
        _rewrite(path, "1 1:1\n-1 2:1\n1 1:3\n", mtime + 1_000_000_000)
    with pytest.raises(DistributedError, match=rf"^{re.escape(str(path))}: the file changed while it was learned from"):
        list(shard.chunks())
    # and a file rewritten while it is read is refused at the end of the reading
    (shard,) = make_shards(str(path), chunk_size=1)
    chunks = shard.chunks()
    next(chunks)
    _rewrite(path, "1 1:1\n", mtime)
    with pytest.raises(DistributedError, match="the file changed"):
        list(chunks)


def test_a_shard_rewritten_between_epochs_stops_mixing_and_leaves_the_model_alone(client, tmp_path, monkeypatch):
    import olearn.distributed._mixing as mixing

    X, y = stream(200, 4, seed=19)
    paths = [tmp_path / "a.svm", tmp_path / "b.svm"]
    for path, lo in zip(paths, (0, 100)):
        dump_svmlight_file(X[lo : lo + 100], y[lo : lo + 100], str(path), zero_based=True)
    weights = mixing.mixing_weights

    def rewrite_after_epoch_one(*args):  # the coordinator mixes epoch 1; then b.svm is rewritten
        paths[1].write_text(paths[1].read_text()[: -40] + "\n")
        monkeypatch.setattr(mixing, "mixing_weights", weights)
        return weights(*args)

    monkeypatch.setattr(mixing, "mixing_weights", rewrite_after_epoch_one)
    est = PAClassifier().fit(X[:10], y[:10])
    before = est.coef_.copy()
    with pytest.raises(DistributedError, match=rf"{re.escape(str(paths[1]))}: the file changed"):
        parameter_mixing(est, [str(p) for p in paths], epochs=3, timeout=TIMEOUT)
    assert np.array_equal(est.coef_, before)


# -- refusals and errors ------------------------------------------------------------


def test_each_mode_refuses_the_learners_it_has_no_rule_for(client):
    X, y = stream(20, 3, seed=11)
    with pytest.raises(ValueError, match="parameter mixing supports .*AROW.*; not Fig1AROW"):
        parameter_mixing(Fig1AROW(), [(X, y)])
    with pytest.raises(ValueError, match="delayed updates supports Perceptron, .*; not AROW"):
        delayed_updates(AROW(), [(X, y)], tau=0)


@pytest.mark.parametrize("mode", ["mixing", "delayed"])
@pytest.mark.parametrize("make", [lambda: PAClassifier(kernel="rbf"), lambda: Perceptron(kernel="poly", degree=2)])
def test_kernel_learners_are_refused_before_any_shard_is_learned(client, mode, make, monkeypatch):
    import olearn.distributed._mixing as mixing

    def never(*args, **kwargs):
        raise AssertionError("a shard was learned")

    monkeypatch.setattr(mixing, "learn_shard", never)
    X, y = stream(20, 3, seed=11)
    est = make().partial_fit(X[:4], y[:4])
    support, alpha = est.support_vectors_.toarray(), est.dual_coef_.copy()
    learn = (lambda: parameter_mixing(est, [(X, y)])) if mode == "mixing" else (lambda: delayed_updates(est, [(X, y)], tau=0))
    with pytest.raises(ValueError, match="primal weight vectors; .* learns in dual form"):
        learn()
    assert np.array_equal(est.support_vectors_.toarray(), support) and np.array_equal(est.dual_coef_, alpha)


def test_bad_arguments_are_named(client, tmp_path):
    X, y = stream(20, 3, seed=12)
    with pytest.raises(ValueError, match="tau must be an integer >= n_shards - 1 = 1"):
        delayed_updates(PAClassifier(), split(X, y, (10, 10)), tau=0)
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        parameter_mixing(PAClassifier(), [(X, y)], epochs=0)
    with pytest.raises(ValueError, match="weighting must be one of uniform, examples, updates"):
        parameter_mixing(PAClassifier(), [(X, y)], weighting="errors")
    with pytest.raises(ValueError, match="n_shards must be an integer from 1 to the number of parts"):
        parameter_mixing(PAClassifier(), [(X, y)], n_shards=2)
    with pytest.raises(FileNotFoundError, match="no file matches this pattern"):
        parameter_mixing(PAClassifier(), str(tmp_path / "*.svm"))
    with pytest.raises(TypeError, match="data must be a file path"):
        parameter_mixing(PAClassifier(), 42)


@pytest.mark.parametrize("mode", ["mixing", "delayed"])
def test_a_label_outside_the_classes_names_the_shard_and_row_and_leaves_the_model_alone(client, mode):
    X, y = stream(40, 3, seed=13)
    y = np.where(y > 0, 1, 0)
    est = PAClassifier()
    with pytest.raises(ValueError, match=r"shard 0 .*0"):
        if mode == "mixing":
            parameter_mixing(est, [(X, y)], timeout=TIMEOUT)
        else:
            delayed_updates(est, [(X, y)], tau=3, timeout=TIMEOUT)
    assert not hasattr(est, "coef_") or not est._is_started()
    res = parameter_mixing(est, [(X, y)], classes=[0, 1], timeout=TIMEOUT)
    assert res.estimator.classes_.tolist() == [0, 1]


@pytest.mark.parametrize("mode", ["mixing", "delayed"])
def test_a_bad_label_in_a_file_shard_is_named_by_its_example_number_in_that_file(client, mode, tmp_path):
    # the second file of the shard holds a third class at its 8th example (1-based), which is row 30 + 7 of the
    # shard: the message speaks the file's numbering, as the command line does for one file
    X, y = stream(30, 3, seed=15)
    first, second = tmp_path / "a.svm", tmp_path / "b.svm"
    dump_svmlight_file(X, y, str(first), zero_based=False)
    y_bad = y.copy()
    y_bad[7] = 5
    dump_svmlight_file(X, y_bad, str(second), zero_based=False)
    est = PAClassifier()
    with pytest.raises(ValueError, match=r"^shard 0 \(a.svm, b.svm\): .*label 5(\.0)? at example 8 of b.svm "):
        if mode == "mixing":
            parameter_mixing(est, [str(first), str(second)], n_shards=1, chunk_size=4, timeout=TIMEOUT)
        else:
            delayed_updates(est, [str(first), str(second)], n_shards=1, tau=2, chunk_size=4, classes=[-1, 1],
                            timeout=TIMEOUT)


def test_without_a_client_the_error_says_how_to_get_one(monkeypatch):
    import distributed

    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", none)
    X, y = stream(20, 3, seed=14)
    with pytest.raises(DistributedError, match="no Dask client"):
        parameter_mixing(PAClassifier(), [(X, y)])


def test_olearn_imports_without_dask_and_names_the_extra(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
        "import olearn, olearn.distributed as D\n"
        "try:\n    D.parameter_mixing(olearn.PAClassifier(), [([[1.0]], [1])])\n"
        "except ImportError as err:\n    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert out.returncode == 0, out.stderr
    assert 'pip install "olearn[distributed]"' in out.stdout


# -- a worker killed mid-run ---------------------------------------------------------


def _kill_a_worker_while(client, target, busy):
    """Run ``target()`` in a thread; SIGKILL a worker process once ``busy()`` says one is working."""
    outcome = {}

    def call():
        try:
            outcome["result"] = target()
        except BaseException as err:  # noqa: BLE001 (handed to the test)
            outcome["error"] = err

    thread = threading.Thread(target=call)
    thread.start()
    pids = client.run(os.getpid)
    deadline = time.monotonic() + TIMEOUT
    victim = None
    while victim is None and thread.is_alive() and time.monotonic() < deadline:
        victim = busy()
        time.sleep(0.02)
    if victim is not None:
        os.kill(pids[victim], signal.SIGKILL)
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the run hung after a worker was killed"
    assert victim is not None, "the run ended before a worker could be killed"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def _worker_with_a_task(client):
    processing = client.processing()
    return next((worker for worker, tasks in sorted(processing.items()) if tasks), None)


def test_a_worker_killed_during_mixing_changes_nothing(killable_client):
    X, y = stream(6000, 120, seed=15)
    shards = split(X, y, (3000, 3000))
    expected = parameter_mixing(AROW(r=1.0), shards, epochs=2, timeout=TIMEOUT)
    got = _kill_a_worker_while(
        killable_client,
        lambda: parameter_mixing(AROW(r=1.0), shards, epochs=2, timeout=TIMEOUT),
        lambda: _worker_with_a_task(killable_client),
    )
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.estimator.covariance_, expected.estimator.covariance_)
    assert np.array_equal(got.totals, expected.totals)


def test_a_worker_killed_while_file_shards_are_kept_changes_nothing(killable_client, tmp_path):
    # the shards are read once into the workers' memory: a kept shard lost with its worker is read again
    X, y = stream(6000, 120, seed=16)
    paths = [str(tmp_path / "a.svm"), str(tmp_path / "b.svm")]
    for path, (Xi, yi) in zip(paths, split(X, y, (3000, 3000))):
        dump_svmlight_file(Xi, yi, path, zero_based=True)
    expected = parameter_mixing(AROW(r=1.0), paths, epochs=3, timeout=TIMEOUT)
    got = _kill_a_worker_while(
        killable_client,
        lambda: parameter_mixing(AROW(r=1.0), paths, epochs=3, timeout=TIMEOUT),
        lambda: _worker_with_a_task(killable_client),
    )
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.estimator.covariance_, expected.estimator.covariance_)
    assert np.array_equal(got.totals, expected.totals)


# what a scatter to a worker that has just died raises: a connection error, or Dask's KeyError for the worker it
# chose (4 of 36 workers killed while the model was sent)
SCATTER_ERRORS = [OSError("Timed out trying to connect to a worker that has died"), KeyError("tcp://127.0.0.1:40001")]


class _FirstScattersFail:
    """The client, except that its first ``n`` scatters of a model raise ``error``."""

    def __init__(self, client, n, error):
        self.client, self.left, self.error = client, n, error

    def __getattr__(self, name):
        return getattr(self.client, name)

    def scatter(self, data, **kwargs):
        if not isinstance(data, list) and self.left:
            self.left -= 1
            raise self.error
        return self.client.scatter(data, **kwargs)


@pytest.mark.parametrize("error", SCATTER_ERRORS, ids=lambda e: type(e).__name__)
def test_a_worker_lost_while_the_model_is_sent_costs_an_attempt(client, error):
    X, y = stream(300, 5, seed=17)
    shards = split(X, y, (150, 150))
    expected = parameter_mixing(PAClassifier(), shards, epochs=2, timeout=TIMEOUT)
    got = parameter_mixing(PAClassifier(), shards, epochs=2, client=_FirstScattersFail(client, 2, error),
                           timeout=TIMEOUT)
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)
    est = PAClassifier()
    with pytest.raises(DistributedError, match="lost 3 times"):
        parameter_mixing(est, shards, epochs=2, client=_FirstScattersFail(client, 3, error), timeout=TIMEOUT)
    assert not hasattr(est, "coef_")


def test_a_worker_killed_during_delayed_updates_is_recovered_exactly(killable_client):
    killable_client.wait_for_workers(2, timeout=TIMEOUT)
    X, y = stream(400, 5, seed=16)
    shards = split(X, y, (200, 200))
    expected = delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT)
    started = time.monotonic()

    def after_a_while():
        return min(killable_client.scheduler_info()["workers"]) if time.monotonic() - started > 0.3 else None

    got = _kill_a_worker_while(
        killable_client, lambda: delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT), after_a_while
    )
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)


def _kill(client, address):
    """SIGKILL the worker process at ``address`` and wait until the scheduler has dropped it."""
    os.kill(client.run(os.getpid, workers=[address])[address], signal.SIGKILL)
    deadline = time.monotonic() + TIMEOUT
    while address in client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.workers)):
        assert time.monotonic() < deadline, "the scheduler never noticed the killed worker"
        time.sleep(0.05)


def test_a_worker_lost_while_a_shard_is_opened_is_recovered_exactly(killable_client, monkeypatch):
    # killed before the actor existed: the shard is opened again elsewhere, not a raw RuntimeError
    killable_client.wait_for_workers(2, timeout=TIMEOUT)
    X, y = stream(120, 5, seed=20)
    shards = split(X, y, (60, 60))
    expected = delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT)
    submit, killed = killable_client.submit, []

    def submit_then_kill(func, *args, **kwargs):
        future = submit(func, *args, **kwargs)
        if func is ShardReader and not killed:
            killed.append(kwargs["workers"][0])
            _kill(killable_client, killed[0])
        return future

    monkeypatch.setattr(killable_client, "submit", submit_then_kill)
    got = delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT)
    assert killed
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)


def test_a_worker_lost_before_the_first_step_is_recovered_exactly(killable_client, monkeypatch):
    # killed after the shards were opened, before any was asked: used to raise "Worker holding Actor was lost"
    killable_client.wait_for_workers(2, timeout=TIMEOUT)
    X, y = stream(120, 5, seed=21)
    shards = split(X, y, (60, 60))
    expected = delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT)
    opened = _Shards.__init__

    def open_then_kill(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        (holder,) = killable_client.who_has([self.futures[0]])[self.futures[0].key]
        _kill(killable_client, holder)

    monkeypatch.setattr(_Shards, "__init__", open_then_kill)
    got = delayed_updates(PAClassifier(), shards, tau=1, timeout=TIMEOUT)
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)


def test_the_only_worker_lost_early_is_waited_for_and_recovered(monkeypatch):
    # one worker, killed as the run starts: used to end in "the Dask cluster has no workers", or to hang
    # on a task bound to the dead worker, instead of waiting for the restarted one
    from distributed import Client, LocalCluster

    X, y = stream(80, 4, seed=22)
    shards = split(X, y, (40, 40))
    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                      timeout=TIMEOUT) as cluster, Client(cluster, set_as_default=False, timeout=TIMEOUT) as solo:
        solo.wait_for_workers(1, timeout=TIMEOUT)
        expected = delayed_updates(PAClassifier(), shards, tau=1, client=solo, timeout=TIMEOUT)
        submit, killed = solo.submit, []

        def submit_then_kill(func, *args, **kwargs):
            future = submit(func, *args, **kwargs)
            if func is ShardReader and len(killed) < 2:  # the first opening, then the first re-opening
                killed.append(kwargs["workers"][0])
                _kill(solo, killed[-1])
            return future

        monkeypatch.setattr(solo, "submit", submit_then_kill)
        got = delayed_updates(PAClassifier(), shards, tau=1, client=solo, timeout=TIMEOUT)
    assert len(killed) == 2
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)
