"""A file shard read once and kept in its worker's memory for the epochs after the first.

A linear learner's pass over a text shard is mostly the reading (a PA-I pass
over LIBSVM text: about 60% of a shard's pass is parsing it), and every epoch
of parameter mixing passes over the same bytes: the file parts are refused if
they change (:meth:`FilePart._check_unchanged`). So before the first epoch of
a run of several, each shard made of files is read on a worker into the same
chunks a pass would read (:func:`keep_shard`), and the chunks stay there, a
Dask future held by the run, for every epoch's pass (:class:`KeptShard`).
Its passes see the same rows in the same order, and learn the same models.

A kept shard is read in chunks of at least :data:`KEPT_CHUNK_ROWS` rows
(more than a pass's ``chunk_size`` of 10,000 by default): every chunk is one
call of the learner's pass, whose checks and bookkeeping hold the GIL, while
its compiled kernels do not. With fewer, larger calls, the two workers of a
local cluster of threads (the command line's) spend less of every epoch
waiting for each other: a PA-I pass over 450,000 kept rows took about a third
less CPU time in chunks of 100,000 rows than of 10,000. The rows, their order
and the models learned are those of the pass's own chunks; only the float
sum of the loss may differ in its last bits, as with any other ``chunk_size``.

Memory stays bounded: a shard is kept only while its chunks take at most
half of its worker's memory limit (Dask's ``memory_limit``; half the memory
available when the worker has none); a larger one is given up as soon as it
is known to be too large, and read chunk by chunk in every epoch, as before.
A kept shard lost with its worker is read again by Dask on another (a pure
task of the shard).

The command line's local cluster of threads runs its workers in the
command's own process, so its shards can be read before the cluster exists
(:func:`read_ahead`), in order on as many threads as it has workers, while the command
imports Dask and starts the cluster (Python work that holds the GIL, which
the parser's compiled kernel releases). The worker's :func:`keep_shard` of
an equal shard then takes the chunks read ahead (the same reading, in the
same chunks) instead of reading the files again.
"""

import contextlib
import threading
from dataclasses import dataclass

import numpy as np

from .._sparse import issparse
from ..exceptions import OlearnError
from ._parts import FilePart
from ._shards import Shard

# the share of a worker's memory a kept shard may take
MEMORY_SHARE = 0.5
# the fewest rows of a kept shard's chunk (the shard's chunk_size, if larger)
KEPT_CHUNK_ROWS = 100_000


def keeps(shard):
    """Whether ``shard`` is worth keeping: it is read from files (other parts are in the workers' memory already)."""
    return bool(shard.parts) and all(isinstance(part, FilePart) for part in shard.parts)


@dataclass(frozen=True)
class KeptShard:
    """The chunks of ``shard``, as :meth:`Shard.weighted_chunks` yields them (in chunks of at least
    :data:`KEPT_CHUNK_ROWS` rows), read once."""

    shard: Shard
    chunks: tuple

    def weighted_chunks(self):
        """The kept chunks, once the shard's files are checked unchanged since the shard was made (before and
        after, as a reading of the files checks them)."""
        self._check_files()
        yield from self.chunks
        self._check_files()

    def _check_files(self):
        for part in self.shard.parts:
            part._check_unchanged()


# the shards being read ahead in this process (read_ahead): each the Future of its KeptShard, taken by keep_shard
_AHEAD = {}
_AHEAD_LOCK = threading.Lock()


@contextlib.contextmanager
def read_ahead(shards, budget, threads):
    """Read each shard of files among ``shards`` into a :class:`KeptShard` (:func:`keep_shard`, at most ``budget``
    bytes each), in order, on ``threads`` threads started at once; inside the block, the :func:`keep_shard` of an
    equal shard in this process takes it. On leaving, the shards not taken are forgotten and those not started
    are not read."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(threads, thread_name_prefix="olearn-read-ahead")
    futures = {shard: pool.submit(_read, shard, budget) for shard in dict.fromkeys(shards) if keeps(shard)}
    with _AHEAD_LOCK:
        _AHEAD.update(futures)
    try:
        yield
    finally:
        with _AHEAD_LOCK:
            for shard, future in futures.items():
                if _AHEAD.get(shard) is future:
                    del _AHEAD[shard]
        pool.shutdown(wait=False, cancel_futures=True)


def local_budget(n_workers):
    """:func:`worker_budget` of a worker of a local cluster of ``n_workers``, known before the cluster starts: its
    share of the machine's memory (Dask's ``memory_limit="auto"``)."""
    import psutil

    return MEMORY_SHARE * psutil.virtual_memory().total / n_workers


def keep_shard(shard, budget=None):
    """Read ``shard`` (a shard of file parts) on a worker into a :class:`KeptShard`; None if its chunks would take
    more than ``budget`` bytes (default: :func:`worker_budget`), or if reading it fails: its passes then read it
    chunk by chunk, and raise the error where a pass meets it. A shard read ahead in this process
    (:func:`read_ahead`) is taken as it was read, once."""
    with _AHEAD_LOCK:
        ahead = _AHEAD.pop(shard, None) if _AHEAD else None
    if ahead is not None:
        return ahead.result()
    return _read(shard, worker_budget() if budget is None else budget)


def _read(shard, budget):
    chunks, size = [], 0
    try:
        for chunk in shard.in_chunks_of(max(shard.chunk_size, KEPT_CHUNK_ROWS)).weighted_chunks():
            size += sum(_nbytes(item) for item in chunk[:3])
            if size > budget:
                return None
            chunks.append(chunk)
    except (OlearnError, ValueError, OSError):
        return None
    return KeptShard(shard, tuple(chunks))


def worker_budget():
    """The bytes a kept shard may take on this worker: :data:`MEMORY_SHARE` of its Dask memory limit, or of the
    memory available outside a worker or on a worker without a limit."""
    import psutil
    from distributed import get_worker

    try:
        limit = get_worker().memory_manager.memory_limit
    except ValueError:  # not on a worker
        limit = None
    return MEMORY_SHARE * (limit or psutil.virtual_memory().available)


def _nbytes(item):
    """The bytes of a chunk's X, y or weights: arrays, sparse matrices, lists of them (sequences)."""
    if item is None:
        return 0
    if issparse(item) or hasattr(item, "indptr"):  # a scipy matrix or olearn's CSRRows
        return sum(getattr(item, name).nbytes for name in ("data", "indices", "indptr"))
    if isinstance(item, np.ndarray):
        return item.nbytes
    if isinstance(item, (list, tuple)):
        return sum(_nbytes(entry) for entry in item)
    return np.asarray(item).nbytes
