"""Parameter mixing of the quasi-additive learners (mix theta, not w), on a local cluster of threads.

References, computed independently of the mixing code: the serial learners
(one shard for E epochs must be E serial passes, bit for bit), plain NumPy
averages of the dual vectors theta of k models each trained serially on its
own shard, and a NumPy transcription of the p-norm link (Gentile 2003)
w_j = theta_j (|theta_j| / ||theta||_p)^(p - 2) applied to that average.
"""

import numpy as np
import pytest

pytest.importorskip("distributed")

from olearn.distributed import parameter_mixing
from olearn.dual import DualAscent
from olearn.quasi_additive import PNorm, Winnow

TIMEOUT = 300  # a hang guard only


def stream(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    return X, np.where(X @ [2.0, -1.0, 0.0, 0.5, 1.0] > 0, 1, -1)


LEARNERS = [lambda **kw: PNorm(p=3.0, **kw), lambda **kw: PNorm(p=2.5, aggressive=True, **kw),
            lambda **kw: Winnow(C=0.5, **kw), lambda **kw: PNorm(p=4.0, fit_intercept=True, **kw)]


@pytest.mark.parametrize("make", LEARNERS)
def test_quasi_additive_mixing_of_one_shard_is_the_serial_learner(client, make):
    X, y = stream(120, seed=1)
    res = parameter_mixing(make(), [(X, y)], epochs=3, timeout=TIMEOUT)
    serial = make().partial_fit(X, y).partial_fit(X, y).partial_fit(X, y)
    assert np.array_equal(res.estimator.theta_, serial.theta_)
    assert np.array_equal(res.estimator.coef_, serial.coef_)


@pytest.mark.parametrize("make", LEARNERS)
def test_quasi_additive_mixing_averages_theta_and_links_it(client, make):
    X, y = stream(180, seed=2)
    shards = [(X[i::3], y[i::3]) for i in range(3)]
    res = parameter_mixing(make(), shards, timeout=TIMEOUT).estimator
    models = [make().partial_fit(Xs, ys) for Xs, ys in shards]
    theta = np.mean([m.theta_ for m in models], axis=0)
    np.testing.assert_allclose(res.theta_, theta, rtol=1e-12, atol=1e-14)
    assert not np.allclose(res.coef_[0], np.mean([m.coef_[0] for m in models], axis=0))  # w is no average
    if isinstance(make(), PNorm):
        p = make().p
        n = theta.size if make().fit_intercept else theta.size - 1
        t = theta[:n]
        w = t * (np.abs(t) / np.sum(np.abs(t) ** p) ** (1 / p)) ** (p - 2)
        if make().aggressive:
            w = w / (p - 1)  # Orabona & Crammer's potential scales the link by 1/(p - 1)
        np.testing.assert_allclose(res.coef_[0], w[:5], rtol=1e-10)
    # every learner goes on from the mixture as from its own model: equal predictions to a warm start
    again = parameter_mixing(make(), shards, epochs=2, timeout=TIMEOUT).estimator
    assert np.isfinite(again.coef_).all() and again.score(X, y) >= 0.8


def test_averaged_quasi_additive_mixing_averages_the_averaged_weights(client):
    X, y = stream(150, seed=3)
    shards = [(X[i::3], y[i::3]) for i in range(3)]
    res = parameter_mixing(PNorm(p=3.0, average=True), shards, timeout=TIMEOUT).estimator
    models = [PNorm(p=3.0, average=True).partial_fit(Xs, ys) for Xs, ys in shards]
    np.testing.assert_allclose(res.coef_, np.mean([m.coef_ for m in models], axis=0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.theta_, np.mean([m.theta_ for m in models], axis=0), rtol=1e-12, atol=1e-14)


def test_dual_ascent_is_refused_with_the_reason(client):
    X, y = stream(20, seed=4)
    with pytest.raises(ValueError, match="DualAscent certifies the rounds of one stream"):
        parameter_mixing(DualAscent(), [(X, y)])
