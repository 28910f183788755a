"""Assembling and running a service: recover the model, build the app, run uvicorn on it."""

import sys

from ._requests import Limits
from ._store import Store


def serve(initial, state_dir, host="127.0.0.1", port=8080, token=None, protect_predict=False,
          max_body_bytes=1 << 20, limits=None, snapshot_every=10_000, snapshot_seconds=60.0, window=100_000,
          freeze_features=False, keep_snapshots=3, recover_log=False, log_level="warning"):
    """Serve a learner over HTTP/JSON until interrupted, learning every acknowledged update durably.

    Parameters
    ----------
    initial : callable
        Returns the learner to start from. Called only when ``state_dir``
        holds no state yet; otherwise the state there is recovered (the last
        snapshot, then the write-ahead log replayed).
    state_dir : str or path
        The folder of the snapshots and the write-ahead log (created if missing).
    host, port : str, int
        The address to bind (the loopback interface by default).
    token : bytes, optional
        The bearer token that writes (``/learn``, ``/predict_learn``)
        require; without it the service takes no updates.
    protect_predict : bool, default=False
        Require the token for ``/predict`` and ``/model`` too.
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
    keep_snapshots : int, default=3
        How many snapshots (with the logs after them) are kept: a snapshot
        that cannot be loaded falls back to the one before it.
    recover_log : bool, default=False
        Start although a log is damaged (a bad record followed by valid
        ones): copy it aside, then cut it at the damage. Without it such a
        log is refused, and left as it is.
    log_level : str, default="warning"
        uvicorn's log level.

    Returns
    -------
    int
        The exit status: 0, or 1 if the writer stopped on an error (restart to recover).
    """
    import uvicorn

    from ._app import Settings, create_app
    from ._metrics import Metrics
    from ._writer import Writer

    store = Store(state_dir, keep=keep_snapshots, recover_log=recover_log)
    model = store.open(initial, window=window, frozen=freeze_features)
    metrics = Metrics(regression=getattr(model.estimator, "_estimator_type", None) == "regressor")
    metrics.updates.set(model.seq)
    server = None

    def stop_serving(err):
        print(f"olearn serve: error: the writer stopped ({type(err).__name__}: {err}); the log holds every "
              "acknowledged update: restart to recover", file=sys.stderr)
        server.should_exit = True

    writer = Writer(model, store, metrics, snapshot_every, snapshot_seconds, on_failure=stop_serving)
    settings = Settings(token, protect_predict, max_body_bytes, limits or Limits())
    app = create_app(model, writer, metrics, settings)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, workers=1,
                            lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    print(f"olearn serve: serving {type(model.estimator).__name__} on http://{host}:{port} "
          f"({'writes need the bearer token' if token else 'read-only: no --token-file'})", file=sys.stderr,
          flush=True)
    server.run()
    return 1 if writer.failure is not None else 0
