"""What waiting single predictions cost, in process: ``Pending.state()`` (taken on the event loop at each snapshot),
the CPU time of a keep and the Python memory per prediction, for ``--singles`` predictions kept one per ``/predict``
(issue #35).

Each single is kept as ``/predict`` keeps one: its features the dict decoded from the request's body (20 features,
as in ``bench_serve.py``), its id made here, its time the wall clock's. The keeps are timed by
``time.process_time``, ``state()`` by ``timeit``; the memory is measured by ``tracemalloc`` in a second pass,
untimed (the blocks allocated while keeping them that are still allocated, ids included). Run it against an older
``src`` for before/after:

    PYTHONPATH=src python benchmarks/bench_pending_singles.py
"""

import argparse
import gc
import json
import random
import sys
import time
import timeit
import tracemalloc
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_serve  # noqa: E402
from olearn.serve._feedback import Pending, new_ids  # noqa: E402


def _bodies(n):
    rng = random.Random(1)
    examples = [json.dumps({"x": [bench_serve._example(rng, False)]}, separators=(",", ":")) for _ in range(50)]
    return [examples[i % 50].encode() for i in range(n)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--singles", type=int, default=100_000, help="Single predictions kept.")
    args = parser.parse_args()
    bodies = _bodies(args.singles)
    ids = [new_ids(1) for _ in range(args.singles)]
    pending = Pending(ttl=1e9, max_pending=args.singles)
    started = time.process_time()
    for key, body in zip(ids, bodies):
        pending.add(key, [orjson.loads(body)["x"]], time.time(), checked=True)
    keep = (time.process_time() - started) / args.singles
    pending = Pending(ttl=1e9, max_pending=args.singles)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for key, body in zip(ids, bodies):
        pending.add(key, [orjson.loads(body)["x"]], time.time(), checked=True)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    features = pending.bytes
    number, seconds = timeit.Timer(pending.state).autorange()
    print(f"{len(pending):,} single predictions waiting ({features / len(pending):.0f} bytes of features each)")
    print(f"CPU time per keep (the body's decoding included): {1e6 * keep:.1f} us")
    print(f"Python memory per waiting prediction: {used / len(pending):.0f} bytes (ids included)")
    print(f"Pending.state(): {1e3 * seconds / number:.2f} ms ({number} calls timed)")


if __name__ == "__main__":
    main()
