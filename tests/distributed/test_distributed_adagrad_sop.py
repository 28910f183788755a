"""Parameter mixing of AdaGrad and the Second-Order Perceptron, on a local cluster of threads.

References, computed independently of the mixing code: the serial learners
(one shard for E epochs must be E serial passes, bit for bit), and NumPy
transcriptions of the documented rules applied to k models each trained
serially on its own shard: for the Second-Order Perceptron the averages of
its sums A = a Sigma^-1 and v = A w (Cesa-Bianchi, Conconi & Gentile 2005,
Fig. 2), for AdaGrad the average of the accumulators G and the weights
averaged in the accumulators' weights (plainly where no shard has G > 0).
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.second_order import AdaGrad, SecondOrderPerceptron

TIMEOUT = 300  # a hang guard only


def stream(n, seed, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X @ np.linspace(-1.0, 2.0, d) + 0.5 * rng.normal(size=n) > 0, 1, -1)


@pytest.mark.parametrize("make", [lambda: SecondOrderPerceptron(a=0.5), lambda: AdaGrad(eta=0.5, delta=0.1),
                                  lambda: AdaGrad(eta=1.0, delta=0.0, fit_intercept=True)])
def test_one_shard_is_the_serial_learner(client, make):
    X, y = stream(100, seed=1)
    res = parameter_mixing(make(), [(X, y)], epochs=2, timeout=TIMEOUT).estimator
    serial = make().partial_fit(X, y).partial_fit(X, y)
    assert np.array_equal(res.coef_, serial.coef_) and np.array_equal(res.covariance_, serial.covariance_)


def test_second_order_perceptron_mixing_averages_its_sums(client):
    X, y = stream(150, seed=2)
    shards = [(X[i::3], y[i::3]) for i in range(3)]
    a = 0.5
    res = parameter_mixing(SecondOrderPerceptron(a=a), shards, timeout=TIMEOUT).estimator
    models = [SecondOrderPerceptron(a=a).partial_fit(Xs, ys) for Xs, ys in shards]
    A = [a * np.linalg.inv(m.covariance_) for m in models]  # Sigma = a A^-1
    v = [Ai @ m.coef_[0] for Ai, m in zip(A, models)]  # w = A^-1 v
    A_mix, v_mix = np.mean(A, axis=0), np.mean(v, axis=0)
    np.testing.assert_allclose(res.coef_[0], np.linalg.solve(A_mix, v_mix), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.covariance_, a * np.linalg.inv(A_mix), rtol=1e-9, atol=1e-12)


def test_adagrad_mixing_averages_the_accumulators_and_weighs_the_weights_by_them(client):
    X, y = stream(150, seed=3, d=5)
    X[:, 4] = 0.0
    X[::3, 4] = 1.0  # feature 4 is seen by the first shard only
    shards = [(X[i::3], y[i::3]) for i in range(3)]
    res = parameter_mixing(AdaGrad(eta=0.5, delta=0.1), shards, timeout=TIMEOUT).estimator
    models = [AdaGrad(eta=0.5, delta=0.1).partial_fit(Xs, ys) for Xs, ys in shards]
    G = np.array([m.accumulator_ for m in models])
    W = np.array([m.coef_[0] for m in models])
    G_mix = G.mean(axis=0)
    expected = np.where(G_mix > 0, (G * W).sum(axis=0) / np.where(G_mix > 0, G.sum(axis=0), 1.0), W.mean(axis=0))
    np.testing.assert_allclose(res.accumulator_, G_mix, rtol=1e-12)
    np.testing.assert_allclose(res.coef_[0], expected, rtol=1e-10, atol=1e-12)
    assert G[1:, 4].max() == 0.0 and res.coef_[0, 4] == pytest.approx(W[0, 4])  # only the shard that moved it
