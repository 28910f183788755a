"""Finding Dask: the lazy import, the client a run uses, and a local cluster for the command line.

olearn imports without Dask; only the functions of :mod:`olearn.distributed`
need it, and they import it when called.
"""

import contextlib
import logging
import os
import time

from ..exceptions import OlearnError

INSTALL_HINT = 'pip install "olearn[distributed]"'
_LOG_ENV = "DASK_LOGGING__DISTRIBUTED"


class DistributedError(OlearnError, RuntimeError):
    """A distributed run failed (a worker lost beyond recovery, no cluster to run on); no model is returned."""


def require_dask():
    """The ``distributed`` module, or an ImportError saying how to install it."""
    try:
        import distributed
    except ImportError as err:
        raise ImportError(f"olearn.distributed needs Dask's distributed scheduler: {INSTALL_HINT}") from err
    return distributed


def resolve_client(client):
    """``client``, or the Dask client of this process (the one most recently created)."""
    distributed = require_dask()
    if client is not None:
        return client
    try:
        return distributed.default_client()
    except ValueError:
        raise DistributedError(
            "no Dask client: create one first (dask.distributed.Client(...), or olearn.distributed.connect()) "
            "or pass client="
        ) from None


def worker_addresses(client, wait=0.0):
    """The addresses of the workers, sorted: shards are placed on them in this order.

    With ``wait``, up to that many seconds are given for a worker to join
    (a lost worker is being restarted) before the cluster counts as empty.
    """
    deadline = time.monotonic() + wait
    while True:
        workers = sorted(client.scheduler_info()["workers"])
        if workers:
            return workers
        if time.monotonic() >= deadline:
            raise DistributedError(
                "the Dask cluster has no workers" + (f" (none joined within {wait} s)" if wait else "")
            )
        time.sleep(0.1)


@contextlib.contextmanager
def _silenced():
    """No log messages in this process, nor Dask's in the worker processes started meanwhile.

    A worker process configures its logging when it imports Dask, from the
    environment it inherits; a ``DASK_LOGGING__DISTRIBUTED`` set by the user
    is kept.
    """
    disabled = logging.root.manager.disable
    had = _LOG_ENV in os.environ
    os.environ.setdefault(_LOG_ENV, "critical")
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(disabled)
        if not had:
            os.environ.pop(_LOG_ENV, None)


def passes_release_gil(est):
    """Whether every kernel of ``est``'s passes releases the GIL, so that workers that are threads of one process
    learn at once: a binary linear learner (no average, no Mercer kernel), whose passes run in the kernels compiled
    ahead of time (:mod:`olearn._kernels._compiled`, each releasing the GIL), when that extension is in use."""
    from .._kernels import _compiled
    from ..linear._binary import BinaryLinearClassifier

    return (_compiled.EXTENSION is not None and isinstance(est, BinaryLinearClassifier)
            and not getattr(est, "average", False) and getattr(est, "kernel", None) is None)


def dashboard_link(client):
    """The link of the Dask dashboard of ``client``'s scheduler, or None if it serves none."""
    if "dashboard" not in client.scheduler_info().get("services", {}):
        return None
    return client.dashboard_link


@contextlib.contextmanager
def connect(workers=None, scheduler=None, timeout=60, quiet=False, processes=True, dashboard=True):
    """A Dask client on a new local cluster of ``workers`` workers, or on the scheduler at ``scheduler``.

    The local cluster runs one single-threaded worker per worker, a process
    of its own (``processes=True``) or a thread of this process, and is
    closed on exit; a client of a remote scheduler is closed, the cluster
    left running.

    Parameters
    ----------
    workers : int, optional
        Start a local cluster of this many workers.
    scheduler : str, optional
        Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``.
    timeout : float, default=60
        Seconds to wait for the scheduler and the workers.
    quiet : bool, default=False
        Silence log messages while the client is open: every logger of this
        process (``logging.disable``), and Dask's in the local cluster's
        worker processes (a worker's traceback of a failed task, restarts,
        lost connections). The errors that reach the caller are unchanged.
        The command line uses it, so that it prints one line per failure.
    processes : bool, default=True
        The local cluster's workers: processes, which start in seconds each
        (a Python that imports Dask and olearn) and learn at once whatever
        their kernels do; or threads of this process, which start at once and
        share its memory, but learn at once only while their kernels release
        the GIL (:func:`passes_release_gil`). A thread worker is lost only
        with the whole process.
    dashboard : bool, default=True
        The local cluster serves Dask's dashboard, on a free port
        (``client.dashboard_link``; its pages need bokeh, whose import adds
        about a second to the cluster's start where it is installed);
        ``False`` starts none (the command line's, unless ``--dashboard``).
        A scheduler's is its own.

    Examples
    --------
    >>> from olearn.distributed import connect
    >>> with connect(workers=1) as client:               # doctest: +SKIP
    ...     len(client.scheduler_info()["workers"])
    1
    """
    distributed = require_dask()
    if (workers is None) == (scheduler is None):
        raise ValueError("give exactly one of workers (a local cluster) and scheduler (an address)")
    with _silenced() if quiet else contextlib.nullcontext():
        yield from _connect(distributed, workers, scheduler, timeout, quiet, processes, dashboard)


def _connect(distributed, workers, scheduler, timeout, quiet, processes, dashboard):
    if scheduler is not None:
        client = distributed.Client(scheduler, timeout=timeout)
        try:
            yield client
        finally:
            client.close()
        return
    if workers < 1:
        raise ValueError(f"workers must be >= 1; got {workers}")
    cluster = distributed.LocalCluster(
        # without the dashboard, the scheduler's HTTP server (its health and metrics routes) still listens, on a free
        # port rather than on 8787, which may be taken (Dask then warns)
        n_workers=workers, processes=processes, threads_per_worker=1, dashboard_address=":0",
        scheduler_kwargs={"dashboard": dashboard}, timeout=timeout,
        **({"silence_logs": logging.CRITICAL} if quiet else {}),
    )
    try:
        client = distributed.Client(cluster, timeout=timeout)
        try:
            client.wait_for_workers(workers, timeout=timeout)
            yield client
        finally:
            client.close()
    finally:
        cluster.close()
