"""Issue #33: ``olearn run --passes 5 -c`` with the default hold-out against ``--holdout-off`` and Vowpal Wabbit.

The file: ``make_data.py``'s stream with 20,000 rows (LIBSVM for olearn, VW
text for VW, the same examples). Each command is a fresh process, timed from
start to exit, best of N, the contenders interleaved round by round after a
warm-up round that also writes the caches (olearn's ``FILE.olc``, VW's
``FILE.cache``): every timed run reads its cache.

* olearn: ``olearn run -a pa1 -c --passes 5 stream.svm`` (every 10th example
  held out, as VW's default ``--holdout_period 10``), and the same with
  ``--holdout-off``;
* VW: ``vw -d stream.vw -c --passes 5 --loss_function hinge --noconstant -b 18
  --sgd`` through the ``vowpalwabbit`` package, hold-out on and off.

Aims (issue #33): hold-out <= 1.3x ``--holdout-off``; the hold-out run within 2x
of VW's.

``--learner`` times another olearn learner in place of ``-a pa1`` (olearn's
commands only: the ratio hold-out / ``--holdout-off`` of each family),
e.g. ``--learner "-a pa1 --set average=true"``, ``--learner "-a pa1 --scale
standard"``, ``--learner "-a pa1-regression"`` (the file's labels as targets).
``--features`` and ``--nnz`` make the stream narrower (its columns, and the
non-zeros of each row), for the learners whose update moves every weight
(quasi-additive, dual ascent) or keeps a d x d covariance (``-a arow-full``,
``-a sop``), e.g. ``--features 50 --nnz 15``.

Usage::

    python benchmarks/bench_holdout.py [--repeats 3] [--rows 20000] [--learner "-a pa1 --link logistic"]
                                       [--features 50 --nnz 15]
"""

import argparse
import os
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import bench_core  # noqa: E402  (timing helpers)
import make_data  # noqa: E402

VW_SNIPPET = "import sys, vowpalwabbit; vowpalwabbit.Workspace(arg_list=sys.argv[1:]).finish()"
VW_FLAGS = ["--loss_function", "hinge", "--noconstant", "-b", "18", "--sgd", "--quiet", "-c", "--passes", "5"]


def commands(folder, learner=None):
    """The commands timed: olearn's with ``-a pa1`` and VW's, or olearn's with ``learner`` (its arguments) alone."""
    olearn = [sys.executable, "-m", "olearn", "run", *(learner or ["-a", "pa1"]), "-c", "--passes", "5", "--quiet",
              os.fspath(folder / "stream.svm")]
    olearn_runs = {"olearn hold-out": olearn, "olearn --holdout-off": [*olearn, "--holdout-off"]}
    if learner is not None:
        return olearn_runs
    vw = [sys.executable, "-c", VW_SNIPPET, "-d", os.fspath(folder / "stream.vw"), *VW_FLAGS]
    return {**olearn_runs, "vw hold-out": vw, "vw --holdout_off": [*vw, "--holdout_off"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--learner", help="olearn's learner arguments in place of '-a pa1' (olearn alone)")
    parser.add_argument("--features", type=int, default=2**18, help="columns of the stream (default 2^18)")
    parser.add_argument("--nnz", type=int, default=60, help="non-zeros of each row (default 60)")
    args = parser.parse_args(argv)
    folder = make_data.ensure(rows=args.rows, features=args.features, nnz=args.nnz)
    learner = None if args.learner is None else shlex.split(args.learner)
    timings, _ = bench_core.time_processes(commands(folder, learner), args.repeats)
    best = {name: timing["best"] for name, timing in timings.items()}
    for name, seconds in best.items():
        cpu = min(timings[name]["cpu"])
        print(f"{name:<22} {seconds:8.3f} s wall  {cpu:8.3f} s CPU")
    print(f"hold-out / --holdout-off (olearn): {best['olearn hold-out'] / best['olearn --holdout-off']:.2f}x (aim <= 1.3x)")
    if learner is None:
        print(f"olearn / VW, hold-out:             {best['olearn hold-out'] / best['vw hold-out']:.2f}x (aim <= 2x)")


if __name__ == "__main__":
    main()
