"""``olearn serve``: keep learning behind an HTTP/JSON service (the ``olearn[serve]`` extra)."""

import importlib

import click

from ._app import CommandError, cli
from ._learners import ALGORITHM_NAMES, RANDOM_SEED, RANDOM_SEEDS, AlgorithmChoice, check_applicable, \
    collect_hyperparameters, draws_random_numbers, hyperparameter_options, make_estimator, random_seed_given, \
    seeded, task_of
from ._read_paths import ReadFile

_NEEDED = ("starlette", "uvicorn", "httptools", "prometheus_client", "orjson")
_COUNT = click.IntRange(min=1)
_SECONDS = click.FloatRange(min=0.01)
# the service learns examples with features: not the sequences of pa-sequence, nor uniclass's featureless points
SERVED_ALGORITHMS = tuple(name for name in ALGORITHM_NAMES if task_of(name) not in ("uniclass", "sequence"))


def _importable(name):
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _read_token(path):
    from ..serve._files import warn_if_readable_by_others

    warn_if_readable_by_others(path, "the token file")
    with open(path, "rb") as fh:
        token = fh.read().strip()
    if len(token) < 16:
        raise CommandError(f"{path}: the token is {len(token)} bytes; use at least 16 (e.g. the output of "
                           "python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return token


@cli.command("serve", short_help="Serve a learner over HTTP/JSON; it keeps learning, durably.")
@click.argument("model_path", metavar="[MODEL]", required=False, type=ReadFile())
@click.option("--algo", "-a", type=AlgorithmChoice(SERVED_ALGORITHMS), default=None,
              help="Start from an empty learner of this algorithm (instead of MODEL).")
@hyperparameter_options
@click.option("--random-seed", "--random_seed", type=RANDOM_SEEDS, default=RANDOM_SEED, show_default=True,
              metavar="S",
              help="The seed of the random budget of an --algo kernel learner (--set budget_policy=random; --set "
                   "random_state=N seeds it instead), as olearn run's: kept with the state, so that a restart "
                   "replays the log with the same draws. A MODEL carries on from its generator's saved state.")
@click.option("--state-dir", type=click.Path(file_okay=False), default="olearn-serve-state", show_default=True,
              help="Folder of the snapshots and the write-ahead log; a service restarted on it resumes from it.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option("--token-file", type=ReadFile(), default=None,
              help="File holding the bearer token that /learn and /predict_learn require (reads take it too); "
                   "without it the service is read-only.")
@click.option("--read-token-file", type=ReadFile(), default=None,
              help="File holding a bearer token for the reads only: /predict, /model, /health, /metrics, "
                   "/openapi.json.")
@click.option("--public-reads", is_flag=True, help="Let anyone read (predict, fetch the model, ...) without a token.")
@click.option("--allowed-hosts", metavar="NAMES", multiple=True,
              help="Host names (comma-separated, or the option repeated) that the service answers to, besides "
                   "the bound address; '*' for any.")
@click.option("--max-body-bytes", type=_COUNT, default=1 << 20, show_default=True, help="Largest request body.")
@click.option("--max-batch", type=_COUNT, default=1000, show_default=True, help="Most examples in one request.")
@click.option("--max-features", type=_COUNT, default=10_000, show_default=True,
              help="Most features in one example.")
@click.option("--max-index", type=click.IntRange(0, 2**31 - 2), default=(1 << 22) - 1, show_default=True,
              help="Largest column index an example may use (with --feature-keys indices).")
@click.option("--max-header-bytes", type=_COUNT, default=64 << 10, show_default=True,
              help="Largest request head (request line and headers); past it the answer is 431.")
@click.option("--max-headers", type=_COUNT, default=100, show_default=True, help="Most headers in one request.")
@click.option("--header-timeout", type=_SECONDS, default=10.0, show_default=True,
              help="Seconds a request's head may take to arrive (408 and the connection closed after).")
@click.option("--body-timeout", type=_SECONDS, default=30.0, show_default=True,
              help="Seconds a request's body may take to arrive after its head.")
@click.option("--max-connections", type=_COUNT, default=1000, show_default=True,
              help="Most open connections; a new one past it is answered 503 and closed.")
@click.option("--max-state-bytes", type=_COUNT, default=None,
              help="Most memory the model's feature-indexed state may grow to; an update past it is refused. "
                   "[default: olearn.get_config()['max_state_bytes'], 1 GiB]")
@click.option("--classes", metavar="A,B,...", default=None,
              help="The only labels updates may use (numbers, true/false or strings); others are refused.")
@click.option("--feature-keys", type=click.Choice(["names", "indices"]), default=None,
              help="How the keys of the JSON examples are read: every key a feature name (digits too), or every "
                   "key a column index (others refused). Kept with the state. [default: the kind the MODEL "
                   "learned; names for a learner that learned neither]")
@click.option("--freeze-features", is_flag=True,
              help="Refuse feature names outside the model's vocabulary and indices past its width.")
@click.option("--snapshot-every", type=_COUNT, default=10_000, show_default=True,
              help="Snapshot the model (and start a new log) after this many examples logged: each example learned (a "
                   "batch's one by one) and each prediction kept for feedback; at least as many as the predictions "
                   "the last snapshot wrote ...")
@click.option("--snapshot-seconds", type=click.FloatRange(min=0.01), default=60.0, show_default=True,
              help="... or this many seconds after the last snapshot.")
@click.option("--keep-snapshots", type=_COUNT, default=3, show_default=True,
              help="Snapshots kept, each with the log after it: a snapshot that cannot be loaded falls back to "
                   "the one before it.")
@click.option("--recover-log", is_flag=True,
              help="Start although a log of the state folder is damaged (a bad record followed by valid ones): "
                   "copy it aside, then drop the bad record and everything after it.")
@click.option("--idempotency-window", type=_COUNT, default=100_000, show_default=True,
              help="How many recent update ids are remembered for retries (and labelled prediction ids, to "
                   "answer a second label with 409).")
@click.option("--feedback-ttl", type=_SECONDS, default=3600.0, show_default=True,
              help="Seconds a prediction waits for its feedback by id (/learn with {\"id\": ..., \"y\": ...}).")
@click.option("--max-pending", type=click.IntRange(min=0), default=100_000, show_default=True,
              help="Most predictions waiting for feedback (the oldest goes first); 0: /predict keeps none.")
@click.option("--keep-versions", type=_COUNT, default=20, show_default=True,
              help="Versions taken at periodic snapshots that are kept (those of POST /versions are all kept).")
@click.option("--vw-port", type=click.IntRange(0, 65535), default=None,
              help="Also answer Vowpal Wabbit's daemon protocol on this port: VW lines over TCP, one prediction line "
                   "out per line in (labelled lines learn). The feature keys are then indices.")
@click.option("--vw-bits", type=click.IntRange(1, 31), default=None,
              help="Hash bits of the VW lines (kept with the state). [default: the state's, else those MODEL's VW "
                   "training file was read with, else 18]")
@click.option("--vw-trust-loopback", is_flag=True,
              help="Serve VW connections from a loopback address without a token line (as VW clients connect).")
@click.option("--vw-idle-timeout", type=_SECONDS, default=None,
              help="Seconds a VW connection may stay idle between lines before it is closed. [default: 300]")
def serve_command(model_path, algo, C, eta, loss, schedule, radius, fit_intercept, settings, random_seed, state_dir,
                  host, port, token_file, read_token_file, public_reads, allowed_hosts, max_body_bytes, max_batch,
                  max_features, max_index, max_header_bytes, max_headers, header_timeout, body_timeout, max_connections,
                  max_state_bytes, classes, feature_keys, freeze_features, snapshot_every, snapshot_seconds,
                  keep_snapshots, recover_log, idempotency_window, feedback_ttl, max_pending, keep_versions,
                  vw_port, vw_bits, vw_trust_loopback, vw_idle_timeout):
    """Serve a learner over HTTP/JSON: predict, learn, and fetch the model.

    Starts from MODEL (an olearn model file) or an empty --algo learner;
    once the state folder holds a state, a restart resumes from it (MODEL
    and --algo are then not read, and a warning says so when they differ).
    An update is answered only once it is in the write-ahead log on disk.

    \b
    Examples:
      olearn serve model.npz --token-file token.txt
      olearn serve model.npz --read-token-file read-token.txt    # read-only
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
    if model_path is not None and random_seed_given():
        raise click.UsageError(f"--random-seed goes with --algo: MODEL {model_path} carries on from the generator "
                               "state saved with it; drop --random-seed")
    if algo is not None:
        check_applicable(algo, hyperparameters)
        if random_seed_given() and not draws_random_numbers(algo, hyperparameters):
            raise click.UsageError("--random-seed seeds the random budget of a kernel learner (--set kernel=... "
                                   f"--set budget=N --set budget_policy=random); --algo {algo} as set draws no "
                                   "random numbers")
        hyperparameters = seeded(algo, hyperparameters, random_seed)
    if classes is not None and algo is not None and task_of(algo) == "regression":
        raise click.UsageError(f"--classes names the labels of a classifier; --algo {algo} learns a regression")
    from ..serve._auth import Access
    from ..serve._connections import ConnectionLimits
    from ..serve._requests import LabelSet, Limits

    try:
        access = Access(_read_token(token_file) if token_file else None,
                        _read_token(read_token_file) if read_token_file else None, public_reads)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    hosts = [name.strip() for names in allowed_hosts for name in names.split(",") if name.strip()]
    try:
        label_set = None if classes is None else LabelSet(classes)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    from .._persistence import read_input_info

    # how MODEL's training data was read, kept with a fresh state and recorded by the service's model files (its
    # --oaa K too: the labels 1..K are then the only ones taken, and --classes may name no others)
    trained = {} if model_path is None else read_input_info(model_path)

    def initial():
        if model_path is not None:
            from .. import load

            return load(model_path)
        return make_estimator(algo, hyperparameters, fit_intercept)

    def on_resume(resumed):
        """Say that the state folder's learner is served: MODEL is then not read, --algo not used if it differs."""
        if model_path is not None:
            ignored = f"MODEL {model_path} is not read"
        else:
            asked = make_estimator(algo, hyperparameters, fit_intercept)
            if type(asked) is type(resumed) and asked.get_params(deep=False) == resumed.get_params(deep=False):
                return
            ignored = f"--algo {algo} ({asked!r}) is not used"
        click.echo(f"olearn serve: warning: {state_dir} holds a state, which is resumed: {resumed!r} is served "
                   f"and {ignored}; move the folder away (or give another --state-dir) to start afresh", err=True)

    from ..serve import serve

    if vw_port is None and (vw_bits is not None or vw_trust_loopback or vw_idle_timeout is not None):
        raise click.UsageError("--vw-bits, --vw-trust-loopback and --vw-idle-timeout go with --vw-port")
    status = serve(initial, state_dir, access, host=host, port=port, allowed_hosts=hosts,
                   max_body_bytes=max_body_bytes, limits=Limits(max_batch, max_features, max_index, label_set),
                   snapshot_every=snapshot_every, snapshot_seconds=snapshot_seconds, window=idempotency_window,
                   freeze_features=freeze_features, max_state_bytes=max_state_bytes,
                   connections=ConnectionLimits(max_header_bytes, max_headers, header_timeout, body_timeout,
                                                max_connections),
                   keep_snapshots=keep_snapshots, recover_log=recover_log, on_resume=on_resume,
                   feature_keys=feature_keys, feedback_ttl=feedback_ttl, max_pending=max_pending,
                   keep_versions=keep_versions, vw_port=vw_port, vw_reading=_vw_reading(model_path, trained, vw_bits),
                   vw_trust_loopback=vw_trust_loopback,
                   vw_idle_timeout=300.0 if vw_idle_timeout is None else vw_idle_timeout, input_info=trained)
    raise SystemExit(status)


def _vw_reading(model_path, trained, bits):
    """How the VW daemon is asked to read lines: ``bits`` and the namespace options MODEL's VW training file was
    read with (``trained``, MODEL's input entry; ``bits`` may not contradict them: MODEL's columns are those), or
    None when neither says (the state's reading, else 18 bits; see :func:`olearn.serve._vw_daemon.kept_reading`)."""
    from ..serve._vw_daemon import VWReading

    if trained.get("format") != "vw":
        return None if bits is None else VWReading(bits)
    if bits is not None and bits != trained["bits"]:
        raise click.UsageError(f"--vw-bits {bits}: {model_path} was learned from a VW file hashed into 2^"
                               f"{trained['bits']} columns; lines hashed otherwise would take other columns "
                               f"(omit --vw-bits, or give {trained['bits']})")
    return VWReading.from_info(trained)
