"""Assembling and running a service: recover the model, build the app, run uvicorn on it."""

import sys

import uvicorn

from ._app import Settings, create_app
from ._metrics import Metrics
from ._requests import Limits
from ._store import Store
from ._writer import Writer


def serve(initial, state_dir, host="127.0.0.1", port=8080, token=None, protect_predict=False,
          max_body_bytes=1 << 20, limits=None, snapshot_every=10_000, snapshot_seconds=60.0, window=100_000,
          freeze_features=False, log_level="warning"):
    """Serve a learner until interrupted; returns the exit status (1 if the writer stopped on an error).

    ``initial`` is a function returning the learner to start from; it is
    called only when ``state_dir`` holds no state yet, else the state is
    recovered (the last snapshot, then the log replayed). ``token`` (bytes)
    is the bearer token of the writes; without it the service takes no updates.
    """
    store = Store(state_dir)
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
