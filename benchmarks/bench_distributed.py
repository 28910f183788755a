"""olearn.distributed: parameter-mixing throughput on 1 and 2 local workers, and mistakes against the delay tau.

1. Throughput. Full-covariance AROW (O(d^2) per row, compute-bound) on S
   in-memory shards, by iterative parameter mixing on a local Dask cluster
   of 1 and of 2 worker processes. The shards, not the workers, decide the
   model, so the mistakes are identical; the rows per second are compared
   (aim: 2 workers >= 1.6x one), next to the serial learner in this process.
2. Delay. PA-I and OGD (hinge, eta / sqrt(t), L2 ball) by delayed updates
   over 2 shards for a range of staleness bounds tau; the extra mistakes and
   the extra hinge loss over the smallest tau, against sqrt(tau T) (Langford,
   Smola & Zinkevich 2009: the delay's regret term is O(sqrt(tau T))).

Prints the machine's load average before and after: the 2 cores may be shared.

    python benchmarks/bench_distributed.py            # ~1-2 min
    python benchmarks/bench_distributed.py --quick    # smaller, a smoke test
"""

import argparse
import itertools
import math
import os
import time

import numpy as np

from olearn import run
from olearn.distributed import connect, delayed_updates, parameter_mixing
from olearn.linear import OGDClassifier, PAClassifier
from olearn.second_order import AROW


def stream(n, d, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    return X, y


def shards_of(X, y, count):
    bounds = np.linspace(0, len(y), count + 1).astype(int)
    return [(X[lo:hi], y[lo:hi]) for lo, hi in itertools.pairwise(bounds)]


def throughput(n, d, n_shards, repeats):
    X, y = stream(n, d, seed=0)
    shards = shards_of(X, y, n_shards)
    make = lambda: AROW(r=1.0, covariance="full")
    run(make(), X[:50], y[:50])  # compile in this process
    t = time.perf_counter()
    serial = run(make(), X, y, record=False)
    serial_seconds = time.perf_counter() - t
    print(f"serial AROW-full, one process: {n / serial_seconds:,.0f} rows/s, {serial.n_mistakes} mistakes")
    rates = {}
    for workers in (1, 2):
        with connect(workers=workers) as client:
            parameter_mixing(make(), shards_of(X[:200], y[:200], n_shards), client=client)  # compile on the workers
            best, mistakes = math.inf, None
            for _ in range(repeats):
                t = time.perf_counter()
                res = parameter_mixing(make(), shards, client=client)
                best = min(best, time.perf_counter() - t)
                mistakes = res.n_mistakes
        rates[workers] = n / best
        print(f"parameter mixing, {n_shards} shards on {workers} worker(s): {rates[workers]:,.0f} rows/s "
              f"(best of {repeats}: {best:.2f} s), {mistakes} mistakes")
    print(f"speed-up, 2 workers over 1: {rates[2] / rates[1]:.2f}x (aim >= 1.6x)")


def delays(n, d, taus):
    X, y = stream(n, d, seed=1, noise=0.1)
    shards = shards_of(X, y, 2)
    learners = {"PA-I C=0.1": lambda: PAClassifier(C=0.1), "OGD hinge radius 5": lambda: OGDClassifier(radius=5.0)}
    with connect(workers=2) as client:
        for name, make in learners.items():
            rows = []
            for tau in taus:
                t = time.perf_counter()
                res = delayed_updates(make(), shards, tau=tau, client=client)
                rows.append((tau, res.n_mistakes, res.cumulative_loss, time.perf_counter() - t))
            base_m, base_l = rows[0][1], rows[0][2]
            print(f"\n{name}, T = {n}, 2 shards (tau = {taus[0]} is the least staleness two shards allow)")
            print(f"{'tau':>6} {'mistakes':>9} {'extra':>6} {'hinge loss':>11} {'extra':>8} "
                  f"{'/ sqrt(tau T)':>14} {'/ (tau sqrt T)':>15} {'seconds':>8}")
            for tau, mistakes, loss, seconds in rows:
                extra = loss - base_l
                print(f"{tau:>6} {mistakes:>9} {mistakes - base_m:>6} {loss:>11.1f} {extra:>8.1f} "
                      f"{extra / math.sqrt(tau * n):>14.4f} {extra / (tau * math.sqrt(n)):>15.5f} {seconds:>8.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    if args.quick:
        throughput(n=4_000, d=200, n_shards=2, repeats=1)
        delays(n=2_000, d=20, taus=(1, 15, 127))
    else:
        throughput(n=20_000, d=400, n_shards=2, repeats=3)
        delays(n=10_000, d=20, taus=(1, 3, 15, 63, 255, 1023))
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
