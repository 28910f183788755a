"""The cost of an estimator's lock on the single-thread dict path: ``predict_learn_one`` with and without it.

Every public method of an olearn estimator holds the estimator's lock for the
whole call (docs/streams.md, "Threads"). This script runs
``benchmarks/bench_streams.py``'s stream (dict rows of 100 features, int and
str keys) through ``predict_learn_one`` as users call it (the lock taken and
released once per row) and through the same method without the lock (its
``__wrapped__`` function, the code the lock wraps), for PA-I alone and behind a
``StandardScaler`` (a pipeline takes its own lock and its two steps').

On a shared machine a whole pass is disturbed by other work more than the lock
costs, so the two ways alternate on short blocks of the stream (``--block``
rows, the same model going on learning; each way first on every other block),
and each way's time per row is the
best block of ``--repeats`` passes over the stream: the difference is the
lock's cost per call. Wall and thread CPU time are both given.

    PYTHONPATH=src python benchmarks/bench_lock.py                  # ~1 min
    PYTHONPATH=src python benchmarks/bench_lock.py --rows 2000 --repeats 2   # a smoke test
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_streams import make_stream, pa1_olearn, scaled_pa1_olearn  # noqa: E402

ENTRIES = [("PA-I", pa1_olearn), ("StandardScaler + PA-I", scaled_pa1_olearn)]


def locked_pass(model, rows, labels):
    for x, y in zip(rows, labels):
        model.predict_learn_one(x, y)


def unlocked_pass(model, rows, labels):
    method = type(model).predict_learn_one.__wrapped__
    for x, y in zip(rows, labels):
        method(model, x, y)


def timed(model, run, rows, labels):
    """(wall s, thread CPU s) of ``model`` through ``rows``."""
    cpu, wall = time.thread_time(), time.perf_counter()
    run(model, rows, labels)
    return time.perf_counter() - wall, time.thread_time() - cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--block", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    int_rows, str_rows, labels = make_stream(args.rows)
    streams = {"int keys": int_rows, "str keys": str_rows}
    runs = {"with lock": locked_pass, "without": unlocked_pass}
    best = {}
    load_start = os.getloadavg()[0]
    for name, factory in ENTRIES:
        for keys, rows in streams.items():
            model = factory()
            locked_pass(model, rows, labels)  # warm-up: numba's cache loaded or compiled, every column known
            for _ in range(args.repeats):
                for k, start in enumerate(range(0, args.rows, args.block)):
                    block, block_labels = rows[start:start + args.block], labels[start:start + args.block]
                    # each way goes first on every other block: the second reads rows the first left in cache
                    for how, run in (list(runs.items()) if k % 2 else list(runs.items())[::-1]):
                        per_row = [t / len(block) for t in timed(model, run, block, block_labels)]
                        key = (name, keys, how)
                        best[key] = [min(a, b) for a, b in zip(best.get(key, per_row), per_row)]
    load_end = os.getloadavg()[0]
    print(f"{args.rows} rows of 100 features, predict_learn_one, best block of {args.block} rows over "
          f"{args.repeats} passes: wall (thread CPU) per row; load average {load_start:.1f} at start, "
          f"{load_end:.1f} at end\n")
    print("| entry | keys | with lock, us | without, us | the lock's cost, us |")
    print("|---|---|---|---|---|")
    for name, _ in ENTRIES:
        for keys in streams:
            (wall_with, cpu_with), (wall_without, cpu_without) = (
                (1e6 * t for t in best[name, keys, how]) for how in runs)
            print(f"| {name} | {keys} | {wall_with:.2f} ({cpu_with:.2f}) | {wall_without:.2f} ({cpu_without:.2f}) "
                  f"| {wall_with - wall_without:.2f} ({cpu_with - cpu_without:.2f}), "
                  f"{100 * (wall_with / wall_without - 1):+.0f}% ({100 * (cpu_with / cpu_without - 1):+.0f}%) |")


if __name__ == "__main__":
    sys.exit(main())
