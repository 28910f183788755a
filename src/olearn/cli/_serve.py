"""``olearn serve``: keep learning behind an HTTP/JSON service (the ``olearn[serve]`` extra)."""

import importlib

import click

from ._app import CommandError, cli
from ._learners import AlgorithmChoice, check_applicable, collect_hyperparameters, hyperparameter_options, \
    make_estimator

_NEEDED = ("starlette", "uvicorn", "prometheus_client")
_COUNT = click.IntRange(min=1)


def _importable(name):
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _read_token(path):
    with open(path, "rb") as fh:
        token = fh.read().strip()
    if len(token) < 16:
        raise CommandError(f"{path}: the token is {len(token)} bytes; use at least 16 (e.g. the output of "
                           "python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return token


@cli.command("serve", short_help="Serve a learner over HTTP/JSON; it keeps learning, durably.")
@click.argument("model_path", metavar="[MODEL]", required=False, type=click.Path(dir_okay=False, exists=True))
@click.option("--algo", "-a", type=AlgorithmChoice(), default=None,
              help="Start from an empty learner of this algorithm (instead of MODEL).")
@hyperparameter_options
@click.option("--state-dir", type=click.Path(file_okay=False), default="olearn-serve-state", show_default=True,
              help="Folder of the snapshots and the write-ahead log; a service restarted on it resumes from it.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="File holding the bearer token that /learn and /predict_learn require; without it the "
                   "service is read-only.")
@click.option("--protect-predict", is_flag=True, help="Require the token for /predict and /model too.")
@click.option("--max-body-bytes", type=_COUNT, default=1 << 20, show_default=True, help="Largest request body.")
@click.option("--max-batch", type=_COUNT, default=1000, show_default=True, help="Most examples in one request.")
@click.option("--max-features", type=_COUNT, default=10_000, show_default=True,
              help="Most features in one example.")
@click.option("--max-index", type=click.IntRange(0, 2**31 - 2), default=(1 << 22) - 1, show_default=True,
              help="Largest column index an example may use.")
@click.option("--freeze-features", is_flag=True,
              help="Refuse feature names outside the model's vocabulary and indices past its width.")
@click.option("--snapshot-every", type=_COUNT, default=10_000, show_default=True,
              help="Snapshot the model (and truncate the log) after this many updates ...")
@click.option("--snapshot-seconds", type=click.FloatRange(min=0.01), default=60.0, show_default=True,
              help="... or this many seconds after the last snapshot.")
@click.option("--idempotency-window", type=_COUNT, default=100_000, show_default=True,
              help="How many recent update ids are remembered for retries.")
def serve_command(model_path, algo, C, eta, loss, schedule, radius, fit_intercept, settings, state_dir, host, port,
                  token_file, protect_predict, max_body_bytes, max_batch, max_features, max_index, freeze_features,
                  snapshot_every, snapshot_seconds, idempotency_window):
    """Serve a learner over HTTP/JSON: predict, learn, and fetch the model.

    Starts from MODEL (an olearn model file) or an empty --algo learner;
    once the state folder holds a state, a restart resumes from it (MODEL
    and --algo are then not read). An update is answered only once it is in
    the write-ahead log on disk.

    \b
    Examples:
      olearn serve model.npz --token-file token.txt
      olearn serve --algo pa1 -C 0.1 --token-file token.txt --port 9000

    See docs/serve.md for the routes and a client.
    """
    missing = [name for name in _NEEDED if not _importable(name)]
    if missing:
        raise CommandError(f"olearn serve needs {', '.join(missing)}: pip install \"olearn[serve]\"")
    hyperparameters = collect_hyperparameters(C, eta, loss, schedule, radius, settings)
    if (model_path is None) == (algo is None):
        raise click.UsageError("give a MODEL file or --algo (one of them)")
    if model_path is not None and (hyperparameters or fit_intercept is not None):
        raise click.UsageError("hyperparameters go with --algo; a MODEL file has its own")
    if algo is not None:
        check_applicable(algo, hyperparameters)
    token = _read_token(token_file) if token_file else None

    def initial():
        if model_path is not None:
            from .. import load

            return load(model_path)
        return make_estimator(algo, hyperparameters, fit_intercept)

    from ..serve import serve
    from ..serve._requests import Limits

    status = serve(initial, state_dir, host=host, port=port, token=token, protect_predict=protect_predict,
                   max_body_bytes=max_body_bytes, limits=Limits(max_batch, max_features, max_index),
                   snapshot_every=snapshot_every, snapshot_seconds=snapshot_seconds, window=idempotency_window,
                   freeze_features=freeze_features)
    raise SystemExit(status)
