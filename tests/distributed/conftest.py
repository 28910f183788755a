"""The cluster most tests of olearn.distributed learn on: two workers that are threads of this process."""

import pytest


@pytest.fixture(scope="module")
def client():
    """A local cluster of two one-thread workers in this process (a module that kills workers defines its own,
    of processes)."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=":0")
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()
