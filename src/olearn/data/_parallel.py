"""Work on the blocks of a file on several threads, the results taken in file order.

The parsers' kernels release the GIL while they run, so blocks parsed on
threads of their own run on as many cores, while the thread that takes the
results learns from them.
"""

import os
import sys
import threading

from ._io import is_stream, once_input

# OLEARN_PARSE_THREADS=N parses a file's blocks on at most N threads (1: on the thread that reads it)
THREADS_VARIABLE = "OLEARN_PARSE_THREADS"


def usable_cores():
    """The number of cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def parse_threads(n_blocks):
    """How many threads to parse ``n_blocks`` blocks of a file on: one per usable core, at most one per block, and
    at most what ``OLEARN_PARSE_THREADS`` says (a positive integer) when it is set."""
    threads = usable_cores()
    limit = os.environ.get(THREADS_VARIABLE, "").strip()
    if limit:
        if not limit.isdigit() or int(limit) < 1:
            raise ValueError(f"{THREADS_VARIABLE} must be a positive integer (threads), got {limit!r}")
        threads = min(threads, int(limit))
    return max(1, min(threads, n_blocks))


def file_parse_threads(path, block_size):
    """:func:`parse_threads` for the file ``path`` read in blocks of ``block_size`` bytes; 1 for a stream (its
    bytes are parsed as they arrive)."""
    if once_input(path) is not None or is_stream(path):
        return 1
    return parse_threads(os.path.getsize(path) // block_size + 1)


_END = object()


def in_order(items, work, threads, ahead, name="olearn-parse"):
    """Yield ``work(item)`` for each of ``items``, in the order of ``items``, computed on ``threads`` threads (named
    ``name-0``, ``name-1``...).

    The threads take the items one at a time (``next(items)`` is never run on
    two threads at once, so a file is read in order) and call ``work`` on them
    at the same time. At most ``ahead`` items are taken and not yet yielded,
    which bounds the memory. An exception raised by ``next(items)`` or by
    ``work`` is raised here when its item's turn comes, after the results of
    every item before it. Leaving early (an exception, Ctrl-C, ``close()``)
    stops the threads, waits for each to finish the item at hand, and closes
    ``items`` (a generator); the threads are daemon threads, so an
    interpreter that exits without closing this generator neither waits for
    them nor has them wait.
    """
    reading = threading.Lock()
    posted = threading.Condition()
    room = threading.Semaphore(ahead)
    results = {}
    state = {"taken": 0, "done": False}

    def post(seq, outcome):
        with posted:
            results[seq] = outcome
            posted.notify_all()

    def run():
        while True:
            room.acquire()
            with reading:
                if state["done"]:
                    return
                seq = state["taken"]
                state["taken"] += 1
                try:
                    item = next(items)
                except BaseException as err:  # noqa: BLE001 - raised in its turn by the taker
                    state["done"] = True
                    post(seq, _END if isinstance(err, StopIteration) else (False, err))
                    return
            try:
                outcome = (True, work(item))
            except BaseException as err:  # noqa: BLE001 - likewise
                outcome = (False, err)
            post(seq, outcome)

    workers = []
    try:
        for i in range(threads):
            workers.append(threading.Thread(target=run, name=f"{name}-{i}", daemon=True))
            workers[-1].start()
        seq = 0
        while True:
            with posted:
                while seq not in results:
                    posted.wait()
                outcome = results.pop(seq)
            if outcome is _END:
                return
            ok, value = outcome
            if not ok:
                raise value
            room.release()
            seq += 1
            yield value
    finally:
        state["done"] = True
        for _ in workers:
            room.release()
        if not sys.is_finalizing():  # at exit, a daemon thread waiting for the GIL never ends: no waiting then
            for worker in workers:
                if worker.is_alive():  # not yet, if Ctrl-C stopped its start: it will find nothing more to do
                    worker.join()
            close = getattr(items, "close", None)
            if close is not None:  # a generator: its own threads stop now, not when it is collected
                close()
