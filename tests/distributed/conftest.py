"""The clusters the tests of olearn.distributed learn on: two workers that are threads of this process, or, for
the modules that kill workers, two worker processes."""

import pytest


@pytest.fixture(scope="module")
def client():
    """A local cluster of two one-thread workers in this process (a module that kills workers asks for
    :func:`process_client` under this name)."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=":0")
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


PATIENCE = 300  # a hang guard: a worker process may take minutes to start on a busy machine


def _process_cluster():
    """A local cluster of two worker processes, started and waited for."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                           timeout=PATIENCE)
    client = Client(cluster, timeout=PATIENCE)
    client.wait_for_workers(2, timeout=PATIENCE)
    yield client
    client.close(timeout=PATIENCE)
    cluster.close(timeout=PATIENCE)


@pytest.fixture(scope="module")
def process_client():
    """A local cluster of two worker processes of one module, whose workers stay alive."""
    yield from _process_cluster()


@pytest.fixture
def killable_client():
    """A local cluster of two worker processes of one test, which kills one of them: the test needs the other
    only, and no later test waits for a nanny to replace the one killed (a replacement that never arrived once
    failed the tests after it)."""
    yield from _process_cluster()
