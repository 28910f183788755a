"""Assembling and running a service: recover the model, build the app, run uvicorn on it."""

import os
import sys

from .._config import config_context, set_config
from ._connections import ConnectionLimits, check_open_files, guarded_protocol, raise_open_files_limit
from ._files import PRIVATE_UMASK, warn_if_readable_by_others
from ._requests import Limits
from ._store import Store


def serve(initial, state_dir, access, host="127.0.0.1", port=8080, allowed_hosts=(), max_body_bytes=1 << 20,
          limits=None, snapshot_every=10_000, snapshot_seconds=60.0, window=100_000, freeze_features=False,
          max_state_bytes=None, connections=None, log_level="warning"):
    """Serve a learner over HTTP/JSON until interrupted, learning every acknowledged update durably.

    The process's umask is set to 0o077: the state's files are its user's only.

    Parameters
    ----------
    initial : callable
        Returns the learner to start from. Called only when ``state_dir``
        holds no state yet; otherwise the state there is recovered (the last
        snapshot, then the write-ahead log replayed).
    state_dir : str or path
        The folder of the snapshots and the write-ahead log (created if missing).
    access : olearn.serve._auth.Access
        The tokens that writes and reads require (see :mod:`olearn.serve._auth`).
    host, port : str, int
        The address to bind (the loopback interface by default).
    allowed_hosts : sequence of str
        Host names served besides the bound address (see :class:`olearn.serve._auth.Hosts`).
    max_body_bytes : int, default=1 MiB
        The largest request body.
    limits : olearn.serve._requests.Limits, optional
        Examples per batch, features per example and the largest column index.
    snapshot_every, snapshot_seconds : int, float
        Take a snapshot (and start a new log) after this many updates or seconds.
    window : int, default=100000
        How many recent update ids are remembered for idempotent retries.
    freeze_features : bool, default=False
        Refuse names and indices the model does not have at the start.
    max_state_bytes : int, optional
        The most memory the model's feature-indexed state may grow to
        (:func:`olearn.set_config`, which gives the default): an update that
        would grow it further is refused (422, saying how much it would take).
        The log's updates are replayed without it: they were accepted.
    connections : olearn.serve._connections.ConnectionLimits, optional
        The bounds of a request's head, the time a head and a body may take,
        and the most open connections (see :mod:`olearn.serve._connections`);
        the soft limit on open files is raised to the hard one.
    log_level : str, default="warning"
        uvicorn's log level.

    Returns
    -------
    int
        The exit status: 0, or 1 if the writer stopped on an error (restart to recover).
    """
    import uvicorn

    from ._app import Settings, create_app
    from ._auth import Hosts
    from ._metrics import Metrics
    from ._writer import Writer

    os.umask(PRIVATE_UMASK)  # the state's files are the user's only, for the life of the process (see _files)
    store = Store(state_dir)
    with config_context(max_state_bytes=sys.maxsize):
        model = store.open(initial, window=window, frozen=freeze_features)
    if max_state_bytes is not None:
        set_config(max_state_bytes=max_state_bytes)
    warn_if_readable_by_others(store.folder, "the state folder")
    metrics = Metrics(regression=getattr(model.estimator, "_estimator_type", None) == "regressor")
    metrics.updates.set(model.seq)
    server = None

    def stop_serving(err):
        print(f"olearn serve: error: the writer stopped ({type(err).__name__}: {err}); the log holds every "
              "acknowledged update: restart to recover", file=sys.stderr)
        server.should_exit = True

    writer = Writer(model, store, metrics, snapshot_every, snapshot_seconds, on_failure=stop_serving)
    settings = Settings(access, Hosts(host, allowed_hosts), max_body_bytes, limits or Limits())
    app = create_app(model, writer, metrics, settings)
    connections = connections or ConnectionLimits()
    check_open_files(raise_open_files_limit(), connections.max_connections)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, workers=1,
                            lifespan="on", timeout_graceful_shutdown=5, http=guarded_protocol(connections))
    server = uvicorn.Server(config)
    print(f"olearn serve: serving {type(model.estimator).__name__} on http://{host}:{port} "
          f"({_access_summary(access)})", file=sys.stderr, flush=True)
    server.run()
    return 1 if writer.failure is not None else 0


def _access_summary(access):
    writes = "writes need the token" if access.write_token is not None else "read-only: no --token-file"
    return f"{writes}; reads {'are public' if access.public_reads else 'need a token'}"
