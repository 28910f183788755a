"""Parameter mixing of averaged learners (average=True), on a local cluster of threads.

References, computed independently of the mixing code: the serial averaged
learners (one shard for E epochs must be E serial passes, bit for bit);
plain NumPy averages of k averaged models each trained serially on its own
shard (the mixture predicts with the average of the shards' averages); the
unaveraged learners, whose iterates an averaged learner shares (so the
mixture's current weights are those of the unaveraged mixture); and the
mean of the iterates, summed in NumPy, of a learner that goes on from the
mixture (the mixture counts the most rounds of its shards).
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.linear import PAClassifier, PARegressor
from olearn.multiclass import PAMulticlass
from olearn.multilabel import PAMultilabel
from olearn.second_order import AROW, AdaGrad, SecondOrderPerceptron
from olearn.sequence import PASequence

TIMEOUT = 300  # a hang guard only


def stream(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return X, np.where(X @ [1.0, -2.0, 0.5, 1.5] + 0.5 * rng.normal(size=n) > 0, 1, -1)


def label_sets(n, seed):
    X, y = stream(n, seed)
    return X, [{"pos"} if label > 0 else ({"neg", "low"} if row[0] < 0 else {"neg"}) for label, row in zip(y, X)]


def sequences(n, seed):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n):
        codes = rng.integers(0, 3, size=rng.integers(1, 5))
        X.append(np.eye(4)[codes] + 0.3 * rng.normal(size=(codes.size, 4)))
        y.append(np.array(list("abc"))[codes])
    return X, y


# (make with average, its learning arguments, data, its weights as learned: coef_ (and transition_))
LEARNERS = {
    "pa": (lambda **kw: PAClassifier(variant="pa1", C=0.3, fit_intercept=True, **kw), {}, stream),
    "regression": (lambda **kw: PARegressor(variant="pa2", C=0.3, **kw), {}, stream),
    "multiclass": (lambda **kw: PAMulticlass(variant="pa1", C=0.5, **kw), {"classes": [-1, 1]}, stream),
    "arow": (lambda **kw: AROW(r=1.0, covariance="diag", **kw), {}, stream),
    "sop": (lambda **kw: SecondOrderPerceptron(a=0.5, **kw), {}, stream),
    "adagrad": (lambda **kw: AdaGrad(eta=0.5, delta=0.1, **kw), {}, stream),
    "multilabel": (lambda **kw: PAMultilabel(variant="pa1", C=0.5, **kw), {}, label_sets),
    "sequence": (lambda **kw: PASequence(variant="pa1", C=0.5, **kw), {}, sequences),
}


def weights_of(est):
    return np.concatenate([np.ravel(getattr(est, name, np.empty(0)))
                           for name in ("coef_", "intercept_", "transition_", "end_transition_")])


@pytest.mark.parametrize("name", LEARNERS)
def test_averaged_mixing_of_one_shard_is_the_serial_averaged_learner(client, name):
    make, fit, data = LEARNERS[name]
    X, y = data(90, seed=1)
    res = parameter_mixing(make(average=True), [(X, y)], epochs=2, timeout=TIMEOUT, **fit)
    serial = make(average=True).partial_fit(X, y, **fit).partial_fit(X, y)
    assert np.array_equal(weights_of(res.estimator), weights_of(serial))


@pytest.mark.parametrize("name", LEARNERS)
def test_averaged_mixing_averages_the_shards_averages_and_learns_on_from_them(client, name):
    make, fit, data = LEARNERS[name]
    X, y = data(150, seed=2)
    shards = [(X[i:120:3], y[i:120:3]) for i in range(3)]
    shards[2] = (shards[2][0][:25], shards[2][1][:25])  # shards of different lengths: 40, 40, 25 rounds
    res = parameter_mixing(make(average=True), shards, timeout=TIMEOUT, **fit)
    averaged = [make(average=True).partial_fit(Xs, ys, **fit) for Xs, ys in shards]
    if name in ("arow", "sop", "adagrad"):  # the weights mix in the precisions' or accumulators' weights
        plain = parameter_mixing(make(), shards, timeout=TIMEOUT, **fit).estimator
        assert not np.allclose(weights_of(res.estimator), weights_of(plain))
        return
    np.testing.assert_allclose(weights_of(res.estimator), np.mean([weights_of(m) for m in averaged], axis=0),
                               rtol=1e-10, atol=1e-12)
    # the mixture's current weights are the unaveraged mixture's; it averages the most rounds of its shards (40)
    current = parameter_mixing(make(), shards, timeout=TIMEOUT, **fit).estimator
    mixed_mean, n = weights_of(res.estimator), 40
    est, iterates = res.estimator, []
    rest_X, rest_y = X[120:], y[120:]
    for i in range(len(rest_y)):
        est.partial_fit(rest_X[i : i + 1], rest_y[i : i + 1])
        current.partial_fit(rest_X[i : i + 1], rest_y[i : i + 1])
        iterates.append(weights_of(current))
    expected = (n * mixed_mean + np.sum(iterates, axis=0)) / (n + len(iterates))
    np.testing.assert_allclose(weights_of(est), expected, rtol=1e-9, atol=1e-11)


def test_delayed_updates_still_refuse_an_averaged_learner(client):
    from olearn.distributed import delayed_updates

    X, y = stream(20, seed=3)
    with pytest.raises(ValueError, match=r"delayed updates do not keep the average .*or parameter mixing"):
        delayed_updates(PAClassifier(average=True), [(X, y)], tau=0)
