r"""Delayed updates on Dask: steps computed on stale weights, applied in order (Langford, Smola & Zinkevich 2009).

*Slow Learners are Fast* (NIPS 2009; the OCO notes, Sec. 4.3): workers
compute the (sub)gradients of their examples on weights that miss the most
recent updates, and a coordinator applies them one after the other. Here:

* each shard is held by a Dask actor on a worker, which reads it in chunks
  and, on request, scores its next rows on the weights it is sent;
* the run goes in *steps*. At the start of a step the coordinator sends its
  current weights (the *snapshot*) to every shard that still has rows; each
  returns, for its next ``b`` rows, the margin :math:`y\, w_{\text{snap}}
  \cdot x`, the loss and its slope, all on the snapshot;
* the coordinator then applies the rows of the step in round-robin order
  (row 0 of shard 0, row 0 of shard 1, ..., row 1 of shard 0, ...): each
  round t gets its step size from the shared step rule (PA's
  :math:`\tau_t = \ell/\|x\|^2` and its variants, the Perceptron's, or
  OGD's :math:`\eta_t\,(-\ell')` with t the global round) and moves
  :math:`w \leftarrow \Pi(w + \tau_t y_t x_t)` exactly as the serial kernel
  does (same scaled weights, same projection).

Staleness. The k-th round of a step (k = 0, 1, ...) is computed on a
snapshot that misses exactly the k rounds of the step before it, so every
step is at most ``tau`` rounds stale when ``S * b <= tau + 1`` for S
shards: ``b = (tau + 1) // S``, and ``tau >= S - 1`` is required (S
workers computing at once cannot all see each other's updates). With one
shard and ``tau = 0`` every round is computed on the current weights: the
serial learner. :class:`olearn.oco.ProjectedOGD` with ``delay=tau``
simulates the worst case of the same model in one process: there every
gradient misses exactly ``tau`` updates (and is applied ``tau`` rounds
late), here between 0 and ``tau``. The result depends on the shards and
``tau`` only, never on timing or on which worker holds which shard.
"""

import copy
import math
import time
from concurrent.futures import CancelledError

import numpy as np

from .._estimator import locking_its_estimator
from .._kernels import _codes
from .._labels import plain_label
from .._validation import check_X
from ._cluster import DistributedError, require_dask, resolve_client, worker_addresses
from ._models import check_supported, start_with_classes
from ._result import DistributedResult
from ._tables import keep_features, with_features
from ._shards import DEFAULT_CHUNK_SIZE, make_shards, on_cluster

# how often a wait for a shard checks that its worker is still alive
_POLL_SECONDS = 1.0


class ShardReader:
    """A Dask actor: one shard read in order, its next rows scored on the weights it is sent."""

    def __init__(self, shard, params, codes, classes, skip=0, values=()):
        self._shard = shard
        self._chunks = shard.with_values(values).located_chunks()  # its Dask parts computed on the cluster
        self._starts = []  # (row of the shard, part, row of the part) where each chunk read starts
        from .._kernels._binary_linear import unpack_config  # numba's: imported by delayed updates only

        self._params = params
        self._config = unpack_config(params, codes)
        self._classes = np.asarray(classes)
        self._pending = []  # (X, y) left over from the last chunk read
        self._w = None  # the last snapshot received, moved by the deltas of the steps since
        self.rows_read = 0
        while skip > 0:
            X, _ = self._next_rows(skip)
            if X.shape[0] == 0:
                break
            skip -= X.shape[0]

    def alive(self):
        return True

    def _next_rows(self, n):
        """Up to n rows (fewer at the end of the shard) as one CSR matrix and the labels."""
        import scipy.sparse as sp

        pieces, count = [], 0
        while count < n:
            if not self._pending:
                try:
                    X, y, part, first = next(self._chunks)
                except StopIteration:
                    break
                self._starts.append((self.rows_read + count, part, first))
                arrays = check_X(X)
                X = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=(arrays.n_rows, arrays.n_features))
                self._pending = [(X, np.asarray(y))]
            X, y = self._pending.pop()
            take = min(n - count, X.shape[0])
            pieces.append((X[:take], y[:take]))
            if take < X.shape[0]:
                self._pending = [(X[take:], y[take:])]
            count += take
        self.rows_read += count
        if not pieces:
            return sp.csr_matrix((0, 0)), np.empty(0)
        width = max(X.shape[1] for X, _ in pieces)
        X = sp.vstack([sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width)) for X, _ in pieces],
                      format="csr")
        return X, np.concatenate([y for _, y in pieces])

    def _where(self, row):
        """Row ``row`` of the shard (0-based) as its source numbers it (:meth:`Shard.where`)."""
        start, part, first = next(start for start in reversed(self._starts) if start[0] <= row)
        return self._shard.where(part, first + row - start, row)

    def _snapshot(self, update):
        """The snapshot's weights: ``("dense", w)``, or ``("sparse", indices, values)``, the entries that changed
        since the snapshot before (which this reader received)."""
        if update[0] == "dense":
            self._w = np.array(update[1])
        else:
            _, indices, values = update
            self._w[indices] = values
        return self._w

    def score(self, update, scale, n_rows):
        """Margins, losses, slopes and squared norms of the next ``n_rows`` rows on the weights ``scale * w``, w the
        snapshot that ``update`` gives (:meth:`_snapshot`).

        Returns (indptr, indices, data, targets, scores, losses, slopes, sqnorms).
        """
        w = self._snapshot(update)
        first = self.rows_read
        X, y = self._next_rows(n_rows)
        unknown = ~np.isin(y, self._classes)
        if unknown.any():
            row = int(np.flatnonzero(unknown)[0])
            raise ValueError(
                f"{self._shard.describe()}: label {plain_label(y[row])!r} at {self._where(first + row)} is not one of the classes "
                f"{self._classes.tolist()}"
            )
        targets = np.where(y == self._classes[-1], 1.0, -1.0)
        if X.shape[1] > w.size - 1:
            grown = np.zeros(X.shape[1] + 1)
            grown[: w.size - 1] = w[:-1]
            grown[-1] = w[-1]
            w = grown
        from .._kernels._binary_linear import binary_linear_scores, loss_and_slope

        scores = np.empty(X.shape[0])
        binary_linear_scores(X.indptr, X.indices, X.data, w, np.array([0.0, scale, 0.0]), self._params, scores)
        bias = self._params[_codes.P_BIAS]
        losses, slopes, sqnorms = np.empty_like(scores), np.empty_like(scores), np.empty_like(scores)
        squares = X.data * X.data
        for i in range(X.shape[0]):
            # summed in the serial kernel's order, so that a step on fresh weights is its step bit for bit
            sqnorms[i] = np.cumsum(np.append(bias * bias, squares[X.indptr[i] : X.indptr[i + 1]]))[-1]
            if not (math.isfinite(scores[i]) and math.isfinite(sqnorms[i])):
                raise FloatingPointError(
                    f"{self._shard.describe()}: the score or ||x||^2 of {self._where(first + i)} is not finite; "
                    "scale the features or lower the step size"
                )
            losses[i], slopes[i] = loss_and_slope(self._config[1], targets[i] * scores[i])
        return X.indptr, X.indices, X.data, targets, scores, losses, slopes, sqnorms


class _Coordinator:
    """The weights of the serial learner, moved by steps computed elsewhere, as its kernel moves them."""

    def __init__(self, est):
        self.est = est
        from .._kernels._binary_linear import unpack_config

        self.codes, self.params = est._config_arrays()
        self.config = unpack_config(self.params, self.codes)

    def apply(self, indices, data, target, stale_score, loss, slope, sqnorm_x, where):
        """Learn one round whose loss was measured on a snapshot; return its (mistake, loss, update, 1)."""
        from .._kernels._binary_linear import apply_step, step_size

        est = self.est
        if indices.size and indices[-1] >= est.n_features_in_:
            est._grow(int(indices[-1]) + 1, where)
        state = est._state
        margin = target * stale_score
        tau = step_size(loss, slope, sqnorm_x, margin, state[_codes.S_T] + 1.0, self.config)
        if not apply_step(indices, data, tau * target, tau, sqnorm_x, est._w, state, self.params, self.codes):
            raise FloatingPointError(
                f"{type(est).__name__}: the squared norm of the weights overflowed at {where}; "
                "scale the features or lower the step size"
            )
        return margin <= 0.0, loss, tau != 0.0, 1.0


class _Shards:
    """The actors holding the shards, re-created on another worker (at the same row) when theirs is lost.

    A worker may be lost at any moment, also while an actor is being created
    or before a call reaches it: each shard may be re-opened ``retries``
    times per step (step 0 is the opening) before the run gives up.
    """

    def __init__(self, client, shards, params, codes, classes, retries, timeout):
        self.client, self.retries, self.timeout = client, retries, timeout
        self.shards, self.values = on_cluster(client, shards)
        self.args = (params, codes, classes)
        self.consumed = [0] * len(shards)
        self.futures = [None] * len(shards)  # an actor lives as long as its future
        self.actors = [None] * len(shards)
        self.synced = set()  # the shards whose actor holds the snapshot of the step before
        for s in range(len(shards)):
            self._start(s, step=0, attempt=0)

    def _start(self, s, step, attempt):
        """Create shard s's actor at the row it reached; return the attempts used (a lost worker costs one)."""
        from distributed import KilledWorker
        from distributed.comm import CommClosedError

        deadline = time.monotonic() + self.timeout
        while True:
            # not client.wait_for_workers: a local cluster's view of its workers can miss a restarted one
            workers = worker_addresses(self.client, wait=self.timeout)
            target = workers[s % len(workers)]
            self.synced.discard(s)  # a new actor holds no weights yet
            self.futures[s] = self.client.submit(
                ShardReader, self.shards[s], *self.args, skip=self.consumed[s], values=self.values[s], actor=True,
                workers=[target], allow_other_workers=True, pure=False,
            )
            try:
                self.actors[s] = self._opened(s, target, deadline)
                return attempt
            except (_WorkerLost, KilledWorker, CancelledError, CommClosedError, RuntimeError) as err:
                if isinstance(err, DistributedError):
                    raise
                # RuntimeError: Dask's "Worker holding Actor was lost"
                self.client.cancel([self.futures[s]])
                attempt = self._count_loss(s, step, attempt)

    def _opened(self, s, target, deadline):
        """The actor of shard s, once created. A task bound to a worker that died before it started is
        left waiting by Dask even though other workers may take it, so the wait polls for that worker."""
        while True:
            try:
                return self.futures[s].result(timeout=_POLL_SECONDS)
            except TimeoutError:
                if target not in self.client.scheduler_info()["workers"]:
                    raise _WorkerLost from None
                if time.monotonic() > deadline:
                    raise DistributedError(
                        f"{self.shards[s].describe()} could not be opened on a worker within {self.timeout} s"
                    ) from None

    def _count_loss(self, s, step, attempt):
        attempt += 1
        if attempt > self.retries:
            raise DistributedError(
                f"the worker holding {self.shards[s].describe()} was lost at step {step}, "
                f"{attempt} times; no model is returned"
            ) from None
        return attempt

    def _ask(self, s, snapshot, n_rows):
        """The call scoring shard s's next rows, or None if its worker is already known to be lost."""
        update = snapshot.delta if s in self.synced and snapshot.delta is not None else ("dense", snapshot.w)
        try:
            return self.actors[s].score(update, snapshot.scale, n_rows)
        except Exception:
            # Dask's proxy of an actor whose worker is gone raises RuntimeError ("Worker holding Actor was
            # lost") or, half torn down, AttributeError
            if self._lost(s):
                return None
            raise

    def close(self):
        self.client.cancel([future for future in self.futures if future is not None])

    def _holder_alive(self, s):
        future = self.futures[s]
        return bool(self.client.who_has([future]).get(future.key))

    def _lost(self, s):
        if not self._holder_alive(s):
            return True
        try:
            self.actors[s].alive().result(timeout=_POLL_SECONDS * 5)
        except Exception:  # noqa: BLE001 (whatever the failure, the actor cannot answer)
            return True
        return False

    def _wait(self, s, call, step):
        """The answer of one call; polls, so that a dead worker is noticed at once and a slow one is not cut short."""
        if call is None:
            raise _WorkerLost
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return call.result(timeout=_POLL_SECONDS)
            except TimeoutError:
                if not self._holder_alive(s):
                    raise _WorkerLost from None
                if time.monotonic() > deadline:
                    raise DistributedError(
                        f"{self.shards[s].describe()} did not answer within {self.timeout} s at step {step}"
                    ) from None

    def score(self, active, snapshot, n_rows, step):
        """Each active shard's next ``n_rows`` rows scored on the :class:`_Snapshot`; a lost shard is re-opened and
        asked again."""
        calls = {s: self._ask(s, snapshot, n_rows) for s in active}
        blocks = {}
        for s in active:
            attempt = 0
            while True:
                try:
                    blocks[s] = self._wait(s, calls[s], step)
                    break
                except DistributedError:
                    raise
                except Exception as err:
                    if not isinstance(err, _WorkerLost) and not self._lost(s):
                        raise
                    attempt = self._start(s, step, self._count_loss(s, step, attempt))
                    calls[s] = self._ask(s, snapshot, n_rows)
            self.consumed[s] += blocks[s][3].size
            self.synced.add(s)
        return blocks


class _WorkerLost(Exception):
    """The worker that held a shard's actor is gone."""


@locking_its_estimator
def delayed_updates(est, data, *, tau, n_shards=None, classes=None, client=None, chunk_size=DEFAULT_CHUNK_SIZE,
                    fmt="auto", n_features=None, bits=18, zero_based="auto", retries=2, timeout=300,
                    label_column=None):
    r"""Learn ``est`` from sharded data with delayed updates of staleness at most ``tau``.

    Langford, Smola & Zinkevich, *Slow Learners are Fast*, NIPS 2009: the
    shards' workers compute each round's loss and (sub)gradient on weights
    that miss at most ``tau`` of the preceding rounds' updates; the
    coordinator applies the updates in a fixed order with the learner's own
    step rule. The semantics, step by step, are those of
    :mod:`olearn.distributed._delayed`. One pass over the data.

    Parameters
    ----------
    est : Perceptron, PAClassifier, OGDClassifier or OnlineSVM
        Learns in place from its current model (or from scratch).
    data : path, glob, directory, list of paths, list of (X, y), (dask X, dask y), dask bag, dask DataFrame
        See :func:`make_shards`.
    tau : int
        Staleness bound in rounds, ``>= n_shards - 1``. Each shard scores
        ``(tau + 1) // n_shards`` rows per step.
    n_shards, classes, client, chunk_size, fmt, n_features, bits, zero_based, label_column
        As in :func:`parameter_mixing`.
    retries : int, default=2
        How many times a shard whose worker died is re-opened on another
        worker (from the row it had reached; the result does not change).
    timeout : float, default=300
        Seconds to wait for one step.

    Returns
    -------
    DistributedResult
        ``totals`` counts, per shard, the mistakes of the predictions made on
        the snapshots (what a worker would have answered).

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier
    >>> from olearn.distributed import delayed_updates
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 5)); y = np.sign(X @ np.arange(1.0, 6.0))
    >>> res = delayed_updates(PAClassifier(), [(X[:200], y[:200]), (X[200:], y[200:])], tau=15)  # doctest: +SKIP
    >>> res.rows_per_step                                                                       # doctest: +SKIP
    8
    """
    require_dask()
    check_supported(est, "delayed updates")
    shards = make_shards(data, n_shards, chunk_size, fmt, n_features, bits, zero_based, label_column)
    S = len(shards)
    if isinstance(tau, bool) or not isinstance(tau, (int, np.integer)) or tau < S - 1:
        raise ValueError(
            f"tau must be an integer >= n_shards - 1 = {S - 1} ({S} shards are scored at once, so a round "
            f"can miss up to {S - 1} updates); got {tau!r}"
        )
    if isinstance(retries, bool) or not isinstance(retries, (int, np.integer)) or retries < 0:
        raise ValueError(f"retries must be an integer >= 0; got {retries!r}")
    client = resolve_client(client)
    shards, features = with_features(est, shards, client)
    b = (int(tau) + 1) // S
    before = copy.deepcopy(est.__dict__)
    try:
        start_with_classes(est, classes)
        coordinator = _Coordinator(est)
        codes, params = est._config_arrays()
        # the shards' actors answer through the client that made them: Dask binds an actor to the current
        # client when it arrives, which is the default one (another cluster's, or none) unless made current
        with client.as_current():
            readers = _Shards(client, shards, params, codes, est.classes_, retries, timeout)
            try:
                totals = _run_steps(est, coordinator, readers, shards, b)
            finally:
                readers.close()
        keep_features(est, features)
    except BaseException:
        est.__dict__.clear()
        est.__dict__.update(before)
        raise
    return DistributedResult(est, "delayed", S, totals, np.empty((0, S)), tau=int(tau), rows_per_step=b)


class _Snapshot:
    """The weights a step is scored on, sent whole (``w``) or as a ``delta``: ``("sparse", indices, values)``, the
    entries that changed since the snapshot of the step before (None when they all may have: the weights grew, or
    the projection folded its scale into them).

    A step of S b rows changes the weights only where its rows have features, and the intercept: sending those
    entries costs O(S b nnz) instead of O(d) per shard and step (with d = 2^18 and b = 512, a step's rows touch
    about a tenth of the 2 MB of a dense snapshot). The reader sets them in its copy, so the weights it scores
    on are the coordinator's bit for bit.
    """

    def __init__(self, est, touched, dense_only):
        self.w = est._w.copy()
        self.scale = float(est._state[_codes.S_SCALE])
        self.delta = None
        if not dense_only:
            indices = np.union1d(np.concatenate(touched), [self.w.size - 1]).astype(np.int64)
            self.delta = ("sparse", indices, self.w[indices])


def _run_steps(est, coordinator, readers, shards, b):
    """Score and apply step after step until every shard is read; return the totals (1, shards, 4)."""
    S = len(shards)
    totals = np.zeros((1, S, _codes.N_TOTALS))
    active, step = list(range(S)), 0
    touched, dense_only = [], True  # the features the step before moved; whether its changes reach further
    while active:
        step += 1
        snapshot = _Snapshot(est, touched, dense_only)
        blocks = readers.score(active, snapshot, b, step)
        touched, dense_only = [], False
        for k in range(b):
            for s in active:
                indptr, indices, data, targets, scores, losses, slopes, sqnorms = blocks[s]
                if k >= targets.size:
                    continue
                lo, hi = indptr[k], indptr[k + 1]
                row = readers.consumed[s] - targets.size + k
                size, scale = est._w.size, est._state[_codes.S_SCALE]
                totals[0, s] += coordinator.apply(
                    indices[lo:hi], data[lo:hi], targets[k], scores[k], losses[k], slopes[k], sqnorms[k],
                    f"{shards[s].describe()}, row {row}",
                )
                touched.append(indices[lo:hi])
                # a scale that grows was folded into every weight (the projection's renormalisation)
                dense_only |= est._w.size != size or est._state[_codes.S_SCALE] > scale
        active = [s for s in active if blocks[s][3].size == b]
    return totals
