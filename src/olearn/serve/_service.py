"""Assembling and running a service: lock the state folder, bind the port, then (the probes answering
meanwhile) recover the model, warm its kernels up and serve the app, on uvicorn."""

import asyncio
import copy
import gc
import os
import socket
import sys

from .._config import config_context, set_config
from ._connections import ConnectionLimits, check_open_files, guarded_protocol, raise_open_files_limit
from ._files import PRIVATE_UMASK, warn_if_readable_by_others
from ._requests import Limits
from ._store import Store

# the cyclic collector's thresholds while serving (Python's default: 700, 10, 10). The collector counts the
# objects allocated less those freed; the requests in flight hold thousands (coroutines, frames, dicts: 64
# requests), which every collection of the young objects walks without freeing them. Under 64 batch /predict
# in flight for ~12 s, the default's 280-430 collections of the young (0.5 ms of CPU each, up to 7 ms) and 24-38
# of the middle generation (1.6-2 ms each, up to 7 ms) took 0.18-0.28 s of the event loop's CPU; at 20,000, 0-7
# collections (4-7 ms each), the memory held by cycles bounded all the same
_COLLECTOR_THRESHOLDS = (20_000, 10, 10)


def serve(initial, state_dir, access, host="127.0.0.1", port=8080, allowed_hosts=(), max_body_bytes=1 << 20,
          limits=None, snapshot_every=10_000, snapshot_seconds=60.0, window=100_000, freeze_features=False,
          max_state_bytes=None, connections=None, keep_snapshots=3, recover_log=False, on_resume=None,
          feature_keys=None, log_level="warning", feedback_ttl=3600.0, max_pending=100_000, keep_versions=20,
          vw_port=None, vw_reading=None, vw_trust_loopback=False, vw_idle_timeout=300.0, input_info=None):
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
        Examples per batch, features per example, the largest column index
        and the labels taken (those of ``--oaa K`` when ``input_info`` names
        one: see :func:`olearn.serve._requests.trained_labels`).
    snapshot_every, snapshot_seconds : int, float
        Take a snapshot (and start a new log) after this many examples logged (learned, or predicted and kept
        for feedback) or seconds.
    window : int, default=100000
        How many recent update ids are remembered for idempotent retries.
    freeze_features : bool, default=False
        Refuse names and indices the model served does not have: the model at
        the start, and after a rollback the version's.
    max_state_bytes : int, optional
        The most memory the model's feature-indexed state may grow to
        (:func:`olearn.set_config`, which gives the default): an update that
        would grow it further is refused (422, saying how much it would take).
        The log's updates are replayed without it: they were accepted.
    connections : olearn.serve._connections.ConnectionLimits, optional
        The bounds of a request's head, the time a head and a body may take,
        and the most open connections (see :mod:`olearn.serve._connections`);
        the soft limit on open files is raised to the hard one.
    keep_snapshots : int, default=3
        How many snapshots (with the logs after them) are kept: a snapshot
        that cannot be loaded falls back to the one before it.
    recover_log : bool, default=False
        Start although a log is damaged (a bad record followed by valid
        ones): copy it aside, then cut it at the damage. Without it such a
        log is refused, and left as it is.
    feature_keys : {"names", "indices"}, optional
        How the keys of the examples are read: every key a feature name, or
        every key a column index. By default the kind the model learned, and
        names for a model that learned neither. Kept with the state: a
        restart reads keys as its first start did (and refuses another value).
    on_resume : callable, optional
        Called with the learner recovered from ``state_dir`` when there was a
        state to resume (``initial`` is then not called).
    log_level : str, default="warning"
        uvicorn's log level.
    feedback_ttl : float, default=3600
        Seconds a prediction waits for its feedback by id (see :mod:`olearn.serve._feedback`).
    max_pending : int, default=100000
        The most predictions waiting for feedback (the oldest goes first); 0
        keeps none: ``/predict`` then names no prediction and logs nothing.
    keep_versions : int, default=20
        The versions taken at periodic snapshots that are kept (those taken
        on ``POST /versions`` are all kept; see :mod:`olearn.serve._versions`).
    vw_port : int, optional
        Also answer Vowpal Wabbit's daemon protocol on this port (0: a free
        one) of ``host`` (see :mod:`olearn.serve._vw_daemon`); the service
        then reads feature keys as indices (the columns VW lines hash to).
        Its predictions of unlabelled lines are not kept for feedback by id
        (VW clients send no ids): they are answered, not logged.
    vw_reading : olearn.serve._vw_daemon.VWReading, optional
        How VW lines are read (hash bits, namespace options); 18 bits by default.
        Kept with the state: a restart reads lines as the first start did (and
        refuses another reading), and the service's model files record it
        (see :func:`olearn.serve._vw_daemon.served_input`).
    vw_trust_loopback : bool, default=False
        Serve VW connections from a loopback address without a token line.
    vw_idle_timeout : float, default=300
        Seconds a VW connection may stay idle between lines before it is
        closed; the VW connections are bounded by ``connections`` too (their
        own ``max_connections``, the first line's ``header_timeout``, each
        later line's ``body_timeout``).
    input_info : dict, optional
        The metadata ``input`` entry of the model file that ``initial`` reads
        (:func:`olearn._persistence.read_input_info`): kept with the state, and
        recorded by every model file the service writes (``GET /model``, the
        snapshots, the versions), so that ``olearn run -i`` and ``olearn
        predict`` read data as the model learned it; a model learned with
        ``--oaa K`` takes the labels 1..K only, after a restart too.

    Returns
    -------
    int
        The exit status: 0, or 1 if the writer stopped on an error (restart to recover).

    Raises
    ------
    olearn.serve._lock.StateDirLocked
        Another service uses ``state_dir``.
    olearn.serve._wal.LogDamaged, ValueError
        The state cannot be recovered, or ``feature_keys`` contradicts the
        model or the state (the port was open meanwhile, for ``/live``).
    """
    import uvicorn

    from ._app import Settings, create_app
    from ._auth import Hosts, HostCheck
    from ._feedback import Pending
    from ._metrics import Metrics
    from ._startup import Starting
    from ._requests import trained_labels
    from ._vw_daemon import VWDaemon, kept_reading, served_input, stored_reading
    from ._warmup import warm_up
    from ._writer import Writer

    os.umask(PRIVATE_UMASK)  # the state's files are the user's only, for the life of the process (see _files)
    store = Store(state_dir, keep=keep_snapshots, recover_log=recover_log, keep_versions=keep_versions)
    store.lock()  # before anything is read: a second service on the folder stops here
    warn_if_readable_by_others(store.folder, "the state folder")
    connections = connections or ConnectionLimits()
    check_open_files(raise_open_files_limit(), connections.max_connections)
    config = uvicorn.Config(None, host=host, port=port, log_level=log_level, access_log=False, workers=1,
                            lifespan="on", timeout_graceful_shutdown=5, http=guarded_protocol(connections))
    sock = config.bind_socket()
    bound = sock.getsockname()[1]
    server = writer = daemon = None
    if vw_port is not None:
        vw_sock = socket.create_server((host, vw_port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
        feature_keys = feature_keys or "indices"

    def stop_serving(err):
        print(f"olearn serve: error: the writer stopped ({type(err).__name__}: {err}); the log holds every "
              "acknowledged update: restart to recover", file=sys.stderr)
        server.should_exit = True

    def build():
        nonlocal writer
        with config_context(max_state_bytes=sys.maxsize):  # the log's updates were accepted: no cap on replay
            model = store.open(initial, window=window, frozen=freeze_features, feature_keys=feature_keys,
                               pending=Pending(feedback_ttl, max_pending, labelled_window=window),
                               input_info=input_info)
        model.pending.expire()  # those that expired while the service was down
        if max_state_bytes is not None:
            set_config(max_state_bytes=max_state_bytes)
        if store.resumed and on_resume is not None:
            on_resume(model.estimator)
        warm_up(model.estimator)
        metrics = Metrics(regression=getattr(model.estimator, "_estimator_type", None) == "regressor")
        metrics.watch(model)
        metrics.updates.set(model.seq)
        metrics.snapshot_updates.set(store.snapshot_seq)
        writer = Writer(model, store, metrics, snapshot_every, snapshot_seconds, on_failure=stop_serving)
        request_limits = copy.copy(limits or Limits())
        request_limits.feature_keys = model.feature_keys
        request_limits.classes = trained_labels(model.input_info, request_limits.classes)
        settings = Settings(access, max_body_bytes, request_limits)
        if vw_port is not None:
            if model.feature_keys != "indices":
                raise ValueError("--vw-port: VW lines are hashed into columns, and this service reads its feature keys "
                                 "as names: serve a model of indices (learned from VW files) or a new --algo learner")
            reading = kept_reading(store.folder, vw_reading)
        else:
            reading = stored_reading(store.folder)  # that of an earlier start with --vw-port, or None
        # the model files say how VW files are read into the columns the state's lines took (see served_input)
        model.input_info = served_input(model.input_info, reading)
        if vw_port is not None:
            nonlocal daemon
            daemon = VWDaemon(model, writer, access, request_limits, reading, max_body_bytes, vw_trust_loopback,
                              connections, vw_idle_timeout)
        app = create_app(model, writer, metrics, settings)
        # what the start made (modules, the kernels, the recovered model) is out of the collector's full passes:
        # one over it takes ~0.1 s of CPU, a pause of every request waiting
        gc.collect()
        gc.freeze()
        gc.set_threshold(*_COLLECTOR_THRESHOLDS)
        return app, lambda: writer.failure is None

    def ready():
        if daemon is not None:
            tasks.add(asyncio.get_running_loop().create_task(asyncio.start_server(daemon.handle, sock=vw_sock)))
            print(f"olearn serve: answering VW's daemon protocol on {host}:{vw_sock.getsockname()[1]}",
                  file=sys.stderr, flush=True)
        print(f"olearn serve: serving {type(writer.model.estimator).__name__} on http://{host}:{bound} "
              f"({_access_summary(access)}; feature keys are {writer.model.feature_keys})", file=sys.stderr,
              flush=True)

    def not_built(err):
        server.should_exit = True

    tasks = set()  # the VW daemon's server, referenced while it runs
    starting = Starting(build, on_ready=ready, on_failure=not_built)
    config.app = HostCheck(starting, Hosts(host, allowed_hosts))
    server = uvicorn.Server(config)
    print(f"olearn serve: listening on http://{host}:{bound}: /live answers; recovering the state and warming "
          "the learner up (/ready once done)", file=sys.stderr, flush=True)
    server.run(sockets=[sock])
    if starting.failure is not None:
        raise starting.failure
    return 1 if writer is not None and writer.failure is not None else 0


def _access_summary(access):
    writes = "writes need the token" if access.write_token is not None else "read-only: no --token-file"
    return f"{writes}; reads {'are public' if access.public_reads else 'need a token'}"
