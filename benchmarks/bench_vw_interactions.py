"""olearn against Vowpal Wabbit on a VW file whose signal lives in the product of two namespaces (issue #33).

The file: ``--rows`` lines (default 50,000, seeded) of two namespaces,
``|a`` (a user: one of 30 ids, ``u7``, and 3 numbers ``x0..x2`` drawn from
N(0, 1)) and ``|b`` (an item: one of 30 ids and 3 numbers ``z0..z2``), an
importance weight of 0.5, 1 or 2 before the first ``|``, and the label the sign
of ``M[user, item] + 0.5 * sum_k x_k z_k`` (a random table M of N(0, 1) cells)
with 5% of the labels flipped. Each namespace alone says little about the
label: its main effects are about zero.

Each learner makes one pass over the file, predicting every line before it
learns it (progressive validation); the number is its accuracy over all lines,
unweighted:

* ``olearn run -a ALGO FILE`` and ``olearn run -a ALGO -q ab FILE`` for ALGO
  ``pa1`` (PA-I, C = 1) and ``arow`` (diagonal AROW, r = 1: per-feature
  adaptive steps, as VW's defaults) (the command line; the accuracy is 1 -
  the summary's mistake rate);
* VW 9 through its Python package (``vowpalwabbit.pyvw``) with its defaults
  and ``--binary``, without and with ``-q ab``: each line is predicted, then
  learned.

    PYTHONPATH=src python benchmarks/bench_vw_interactions.py            # ~1 min
    PYTHONPATH=src python benchmarks/bench_vw_interactions.py --rows 5000  # a smoke test

Prints a markdown table; ``benchmarks/README.md`` keeps the numbers of a run.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ALGOS = ("pa1", "arow")
N_IDS = 30
N_NUMBERS = 3


def write_file(path, n_rows, seed):
    """The VW file of the module docstring."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((N_IDS, N_IDS))
    users = rng.integers(N_IDS, size=n_rows)
    items = rng.integers(N_IDS, size=n_rows)
    x = rng.standard_normal((n_rows, N_NUMBERS))
    z = rng.standard_normal((n_rows, N_NUMBERS))
    score = table[users, items] + 0.5 * (x * z).sum(axis=1)
    labels = np.where(score > 0, 1, -1) * np.where(rng.random(n_rows) < 0.05, -1, 1)
    importance = rng.choice([0.5, 1.0, 2.0], size=n_rows)
    with open(path, "w") as f:
        for r in range(n_rows):
            a = " ".join(f"x{k}:{x[r, k]:.4f}" for k in range(N_NUMBERS))
            b = " ".join(f"z{k}:{z[r, k]:.4f}" for k in range(N_NUMBERS))
            f.write(f"{labels[r]} {importance[r]:g} |a u{users[r]} {a} |b i{items[r]} {b}\n")


def olearn_accuracy(path, algo, *options):
    """1 - the mistake rate of ``olearn run -a ALGO [options] FILE``, and its wall time."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "olearn", "run", "-a", algo, "--quiet", *options, path],
                          capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    rate = float(re.search(r"^mistake rate\s+([0-9.]+)", done.stdout, re.M).group(1))
    return 1.0 - rate, seconds


def vw_accuracy(path, *options):
    """The progressive accuracy of VW (defaults, ``--binary``, ``options``) over the lines of ``path``."""
    from vowpalwabbit import pyvw

    start = time.perf_counter()
    vw = pyvw.Workspace("--binary --quiet " + " ".join(options))
    right = total = 0
    with open(path) as f:
        for line in f:
            label = float(line.split(" ", 1)[0])
            right += vw.predict(line) == label
            vw.learn(line)
            total += 1
    vw.finish()
    return right / total, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "train.vw")
        write_file(path, args.rows, args.seed)
        for algo in ALGOS:  # numba's cache warmed (or compiled) before the timed runs
            olearn_accuracy(path, algo, "-q", "ab")
        rows = []
        for name, options in (("no interactions", ()), ("`-q ab`", ("-q", "ab"))):
            ours = [olearn_accuracy(path, algo, *options) for algo in ALGOS]
            rows.append((name, ours, vw_accuracy(path, *options)))
    print(f"{args.rows:,} lines, seed {args.seed}, one pass, progressive accuracy (wall time)\n")
    print("| | " + " | ".join(f"olearn `-a {algo}`" for algo in ALGOS) + " | VW 9 (`--binary`) | "
          + " | ".join(f"`{algo}` - VW" for algo in ALGOS) + " |")
    print("|---|" + "---|" * (2 * len(ALGOS) + 1))
    for name, ours, (theirs, their_time) in rows:
        print(f"| {name} | " + " | ".join(f"{accuracy:.4f} ({seconds:.1f} s)" for accuracy, seconds in ours)
              + f" | {theirs:.4f} ({their_time:.1f} s) | "
              + " | ".join(f"{100 * (accuracy - theirs):+.2f} points" for accuracy, _ in ours) + " |")


if __name__ == "__main__":
    main()
