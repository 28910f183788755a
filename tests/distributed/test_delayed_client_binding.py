"""Delayed updates answer through the client they are given, not through Dask's default one.

Dask binds an actor, when it reaches the caller, to the current client: without
``Client.as_current`` that is the default client, and with none
(``Client(..., set_as_default=False)`` and no other client open) every call of
the shards' actors failed as if their worker were lost ("lost at step 1, 3
times"). Worker processes, since an actor of a worker in this process is reached
without a client.
"""

import numpy as np
import pytest

from olearn.distributed import delayed_updates
from olearn.linear import PAClassifier

TIMEOUT = 300  # a hang guard


def _shards():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 4))
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 1.0]) > 0, 1, -1)
    return [(X[:30], y[:30]), (X[30:], y[30:])]


def test_delayed_updates_use_the_client_given_not_the_default_one():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False, timeout=TIMEOUT) as in_process:
        expected = delayed_updates(PAClassifier(), _shards(), tau=1, client=in_process, timeout=TIMEOUT)
    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                      timeout=TIMEOUT) as cluster, Client(cluster, set_as_default=False, timeout=TIMEOUT) as given:
        got = delayed_updates(PAClassifier(), _shards(), tau=1, client=given, timeout=TIMEOUT)
    assert np.array_equal(got.estimator.coef_, expected.estimator.coef_)
    assert np.array_equal(got.totals, expected.totals)
