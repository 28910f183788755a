"""A pass-heavy job on Dask: ``olearn run --passes N`` on one large LIBSVM file, serial against ``--workers 2``.

Issue #36's target: olearn on 2 workers at least 1.6x its own serial run for
a pass-heavy job. Every pass reads and parses the file again (the costly part
of a linear learner's pass over text), so the job is one LIBSVM file learned
with ``--passes N``: serially, and with ``--workers 2``, which cuts the file
into a byte range per worker (on line boundaries) and mixes the two shards'
models after each pass (McDonald, Hall & Mann 2010). Both are timed as a user
sees them, the whole command in a fresh process (the Dask run's cluster
start-up included), with their held-out mistake rates of the last pass and
their CPU seconds (user + system, the command's process and its children):
on a machine shared with other work, the wall ratio depends on the share of
the cores each command gets, the CPU seconds do not. ``--repeats N`` runs the
pair N times, alternating.

    python benchmarks/bench_dask_passes.py              # 1,000,000 rows x 2^18, 5 passes
    python benchmarks/bench_dask_passes.py --repeats 3
    python benchmarks/bench_dask_passes.py --quick      # a smoke test
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_stream(path, n, d, nnz, seed=0, noise=0.05):
    """``n`` LIBSVM rows of ``nnz`` distinct random features among ``d``, labelled by a random linear concept (with
    ``noise`` of the labels flipped), written in blocks."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    with open(path, "w") as f:
        for lo in range(0, n, 50_000):
            m = min(50_000, n - lo)
            stripe = d // nnz  # feature k of a row among the k-th stripe of d / nnz columns: distinct, sorted
            idx = rng.integers(0, stripe, size=(m, nnz)) + np.arange(nnz) * stripe
            val = rng.normal(size=(m, nnz)).round(4)
            y = np.where((w[idx] * val).sum(axis=1) > 0, 1, -1)
            y[rng.random(m) < noise] *= -1
            f.write("".join(f"{label} " + " ".join(f"{i + 1}:{v}" for i, v in zip(row, vals)) + "\n"
                            for label, row, vals in zip(y, idx, val)))


def timed_run(args):
    """Wall and CPU seconds of ``olearn run ARGS`` in a fresh process, and its output and progress lines."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "olearn", "run", *args], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout + done.stderr


def mixing_seconds(output):
    """The seconds of parameter mixing itself (the cluster started), from the last progress line's examples and
    examples per second."""
    examples, rate = re.findall(r"^epoch \d+/\d+ done: \d+ shards, ([0-9,]+) examples, ([0-9,]+) examples/s", output,
                                re.M)[-1]
    return int(examples.replace(",", "")) / int(rate.replace(",", ""))


def held_out_rate(output):
    return float(re.search(r"^held-out rate\s+([0-9.]+)", output, re.M).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=1, help="runs of the pair, alternating (default 1)")
    args = parser.parse_args()
    n, passes = (40_000, 2) if args.quick else (1_000_000, 5)
    d = 2 ** 18
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "big.svm")
        write_stream(path, n, d, nnz=20)
        print(f"{n:,} rows x 2^18 (20 features a row), {os.path.getsize(path) / 1e6:,.0f} MB, PA-I C=0.1, "
              f"{passes} passes, every 10th row held out")
        common = ["--algo", "pa1", "-C", "0.1", "--n-features", str(d), "--passes", str(passes), path]
        timed_run(["--algo", "pa1", "--n-features", str(d), "--quiet", path])  # numba's cache filled once
        for _ in range(args.repeats):
            serial, serial_cpu, serial_out = timed_run([*common, "--quiet"])
            on_dask, dask_cpu, dask_out = timed_run([*common, "--workers", "2"])
            mixing = mixing_seconds(dask_out)
            print(f"serial:      {serial:7.2f} s ({serial_cpu:.2f} s CPU), held-out rate {held_out_rate(serial_out):.4f}")
            print(f"--workers 2: {on_dask:7.2f} s ({dask_cpu:.2f} s CPU), held-out rate {held_out_rate(dask_out):.4f}, "
                  f"{serial / on_dask:.2f}x the serial run ({serial_cpu / dask_cpu:.2f}x its CPU seconds)")
            print(f"  of which the {passes} epochs of mixing (the cluster started): {mixing:.2f} s, "
                  f"{serial / mixing:.2f}x the serial run; starting the cluster and the rest: {on_dask - mixing:.2f} s")
            print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
