"""How long a snapshot's threads hold the GIL at a time, in process, without HTTP (issue #35).

While a thread of the service holds the GIL, the event loop cannot run: uvloop takes the GIL back for each of
its callbacks, and waits for another thread's stretch of Python (up to the switch interval, 5 ms) or of C code
that keeps the GIL (a join of megabytes: all of it). This measures, for a snapshot of ``--waiting`` predictions
(and ``--singles`` more kept one per ``/predict`` before them) waiting for feedback (``bench_serve.py``'s batches of 100 examples of 20 features, kept as ``/predict`` keeps
them: 30 MB of checkpoint at 100,000) and its log switch with ``--since`` records of a batch's kept predictions
(those logged while it was written), the CPU time the writing thread ran between two calls that release the
GIL (``zlib.crc32`` of more than 5 KiB, a system call that writes, syncs, opens, closes, renames, removes or
lists, a file object's write): the longest of those stretches, what ended it, and their sum. CPU time of the
thread (``time.thread_time``), not wall time, so that a loaded machine changes it little. Run it against an
older ``src`` for before/after:

    PYTHONPATH=src python benchmarks/bench_serve_snapshot_gil.py
"""

import argparse
import builtins
import json
import os
import random
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_serve  # noqa: E402
import olearn  # noqa: E402
from olearn.serve import _store, _wal  # noqa: E402
from olearn.serve._feedback import JSONTexts, Pending, new_ids  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import encode  # noqa: E402


class Stretches:
    """The CPU time the thread ran with the GIL between the calls that release it, with what ended each."""

    def __init__(self):
        self.held, self.ends, self.mark = [], [], time.thread_time()

    def restart(self):
        self.held, self.ends, self.mark = [], [], time.thread_time()

    def releasing(self, func, name, when=lambda *args: True):
        def call(*args, **kwargs):
            if not when(*args):
                return func(*args, **kwargs)
            self.held.append(time.thread_time() - self.mark)
            self.ends.append(name)
            try:
                return func(*args, **kwargs)
            finally:
                self.mark = time.thread_time()
        return call

    def close(self):
        self.held.append(time.thread_time() - self.mark)
        self.ends.append("its end")
        longest = max(range(len(self.held)), key=self.held.__getitem__)
        return {"longest_ms": 1e3 * self.held[longest], "ended_by": self.ends[longest],
                "held_ms": 1e3 * sum(self.held), "stretches": len(self.held)}


class _File:
    """A file object whose writes count as releasing the GIL (those of the code before write_in_slices)."""

    def __init__(self, fh, stretches):
        self.fh, self.write = fh, stretches.releasing(fh.write, "a file's write")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def writelines(self, parts):
        for part in parts:
            self.write(part)

    def flush(self):
        self.fh.flush()

    def fileno(self):
        return self.fh.fileno()


def watch(stretches):
    """Count the GIL-releasing calls the snapshot's code makes as the ends of stretches."""
    zlib.crc32 = stretches.releasing(zlib.crc32, "crc32", lambda data, *rest: len(data) > 5 * 1024)
    for name in ("write", "writev", "fsync", "open", "close", "replace", "unlink", "listdir", "link", "lseek"):
        if hasattr(os, name):
            setattr(os, name, stretches.releasing(getattr(os, name), name))
    if hasattr(_wal, "_writev"):
        _wal._writev = os.writev
    _store.open = lambda *args, **kwargs: _File(builtins.open(*args, **kwargs), stretches)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiting", type=int, default=100_000, help="Predictions waiting (batches of 100).")
    parser.add_argument("--since", type=int, default=1_000, help="Records logged while the snapshot is written.")
    parser.add_argument("--rounds", type=int, default=3, help="Snapshots taken.")
    parser.add_argument("--singles", type=int, default=0,
                        help="Single predictions (one per /predict, as the production loop makes them) kept before "
                             "the batches, and waiting beside them.")
    args = parser.parse_args()
    rng = random.Random(1)
    batches = [[bench_serve._example(rng, False) for _ in range(100)] for _ in range(50)]
    texts = [[json.dumps(x, separators=(",", ":")).encode() for x in batch] for batch in batches]
    store = Store(bench_serve.temporary_folder("olearn-bench-snapshot-gil-"))
    pending = Pending(ttl=1e9, max_pending=args.waiting + args.singles)
    model = store.open(olearn.PAClassifier, pending=pending, say=lambda t: None)
    model.estimator.partial_fit(batches[0] + batches[1], [1, -1] * 100, classes=[-1, 1])
    for i in range(args.singles):
        model.keep(new_ids(1), JSONTexts.joined([texts[i % 50][i % 100]]), time.time())
    since = [encode(model.keep(new_ids(100), JSONTexts.joined(texts[i % 50]), time.time()))
             for i in range(max(args.waiting // 100, args.since))][-args.since:]
    stretches = Stretches()
    watch(stretches)
    print(f"{len(model.pending):,} waiting predictions, {len(since):,} records ({sum(map(len, since)) / 1e6:.1f} MB) "
          f"appended to the new log; CPU ms of the writing thread\n")
    print("| step | longest stretch with the GIL | ended by | GIL held in all | stretches |")
    print("|---|---|---|---|---|")
    for _ in range(args.rounds):
        copied = model.snapshot_copy()
        stretches.restart()
        partial = store.write_snapshot(copied)
        rows = [("write_snapshot", stretches.close())]
        stretches.restart()
        store.switch_log(copied, partial, since)
        rows.append(("switch_log", stretches.close()))
        for step, row in rows:
            print(f"| {step} | {row['longest_ms']:.2f} | {row['ended_by']} | {row['held_ms']:.1f} | "
                  f"{row['stretches']} |")
    store.close()


if __name__ == "__main__":
    main()
