"""What averaging and importance weights cost the multi-prototype multiclass pass.

The streams of ``bench_multiclass.py`` (k = 10 classes; dense rows of 100 features,
and sparse rows of 60 non-zeros out of 2^16 features). Each pass is
``olearn.run(PAMulticlass("pa1"), X, y, record=False)`` with every class declared
up front, in four settings: plain; ``sample_weight`` of ones (the weighted path);
``average=True``; ``average=True`` with the weights. The settings run in turn,
``--repeats`` times, and the best wall and CPU times of each are kept.

Run it against another olearn (say the commit before averaging existed, unpacked
with ``git archive``) by putting that source first on PYTHONPATH; the settings
it does not know are skipped.

    python benchmarks/bench_multiclass_average.py            # ~1 min
    python benchmarks/bench_multiclass_average.py --quick    # smaller streams, a smoke test
"""

import argparse
import inspect
import sys
import time

import numpy as np

import olearn
from bench_multiclass import K, make_stream
from olearn.multiclass import PAMulticlass

SETTINGS = {
    "plain": ({}, False),
    "weights of 1": ({}, True),
    "average=True": ({"average": True}, False),
    "average + weights": ({"average": True}, True),
}


def supported(params, weighted):
    names = inspect.signature(PAMulticlass).parameters
    return all(name in names for name in params) and (
        not weighted or "sample_weight" in inspect.signature(PAMulticlass.partial_fit).parameters)


def time_pass(X, y, params, weighted):
    """(wall, CPU) seconds of one pass, and its mistake count."""
    est = PAMulticlass(variant="pa1", **params).partial_fit(X[:0], y[:0], classes=np.arange(K))
    kwargs = {"sample_weight": np.ones(X.shape[0])} if weighted else {}
    c0, t0 = time.thread_time(), time.perf_counter()
    result = olearn.run(est, X, y, record=False, **kwargs)
    return time.perf_counter() - t0, time.thread_time() - c0, result.n_mistakes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    streams = {
        "dense 100-d": make_stream(200_000 // scale, 100, 100, seed=0),
        "sparse 60 of 2^16": make_stream(200_000 // scale, 2**16, 60, seed=1),
    }
    settings = {name: s for name, s in SETTINGS.items() if supported(*s)}
    print(f"olearn from {olearn.__file__}")
    print("best of --repeats; wall seconds, and in brackets CPU seconds; ratio to the plain pass (CPU)")
    for stream, (X, y) in streams.items():
        for params, weighted in settings.values():
            time_pass(X[:100], y[:100], params, weighted)  # compiles, or loads the cached machine code
        runs = {name: [] for name in settings}
        for _ in range(args.repeats):
            for name, (params, weighted) in settings.items():
                runs[name].append(time_pass(X, y, params, weighted))
        plain_cpu = min(run[1] for run in runs["plain"])
        for name, timings in runs.items():
            wall, cpu = min(run[0] for run in timings), min(run[1] for run in timings)
            assert len({run[2] for run in timings}) == 1
            print(f"{stream:18s} {name:18s} {wall:7.4f} ({cpu:7.4f})  {cpu / plain_cpu:4.2f}x  "
                  f"mistakes {timings[0][2]}")


if __name__ == "__main__":
    sys.exit(main())
