"""Issue #34: ``olearn run`` on a VW text file against Vowpal Wabbit on the same file, side by side.

The file: ``make_data.py``'s stream as VW text (``stream.vw``: one namespace,
60 features ``index:value`` per line). Each command is a fresh process, timed
from start to exit, best of N, the contenders interleaved round by round after a
warm-up round; no cache on either side, so every run parses the text:

* olearn: ``olearn run -a pa1 --quiet stream.vw`` (names hashed into 2^18
  columns, as VW's ``--hash all``);
* VW: ``-d stream.vw --loss_function hinge --noconstant -b 18 --binary --quiet``
  with ``--sgd`` (plain additive steps, the closest to PA-I) and with VW's
  default update, through the ``vowpalwabbit`` package.

Aim (issue #34): olearn <= 0.8x VW's wall time. ``OLEARN_PARSE_THREADS=1``
(``--threads 1``) makes olearn parse on one thread, VW's own parsing thread
included on its side. olearn's modules are byte-compiled first, as an install
does. ``--also SRC`` times the olearn of another source tree alongside (say
the tree before a change: ``git archive main src | tar -x -C /tmp/main``), in
the same rounds.

Usage::

    python benchmarks/bench_vw_text.py [--repeats 3] [--rows 200000] [--threads N] [--also SRC]
"""

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import bench_core  # noqa: E402  (timing helpers)
import make_data  # noqa: E402

VW_SNIPPET = "import sys, vowpalwabbit; vowpalwabbit.Workspace(arg_list=sys.argv[1:]).finish()"
VW_FLAGS = ["--loss_function", "hinge", "--noconstant", "-b", "18", "--binary", "--quiet"]


def commands(folder, also=None):
    text = os.fspath(folder / "stream.vw")
    vw = [sys.executable, "-c", VW_SNIPPET, "-d", text, *VW_FLAGS]
    olearn = ["-m", "olearn", "run", "-a", "pa1", "--quiet", text]
    cmds = {"olearn run -a pa1": [sys.executable, *olearn], "vw --sgd": [*vw, "--sgd"], "vw default": vw}
    if also is not None:  # the same command on the olearn of another source tree
        cmds["olearn of --also"] = [sys.executable, "-c", ALSO_SNIPPET, os.fspath(also), *olearn[1:]]
    return cmds


# runs ``python -m olearn ARGS`` with the source tree argv[1] first on the path
ALSO_SNIPPET = ("import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'olearn'; "
                "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=None, help="OLEARN_PARSE_THREADS for olearn")
    parser.add_argument("--also", default=None, help="another olearn source tree to time alongside")
    args = parser.parse_args(argv)
    folder = make_data.ensure(rows=args.rows)
    env = None if args.threads is None else {**os.environ, "OLEARN_PARSE_THREADS": str(args.threads)}
    bench_core.byte_compile_olearn()
    if args.also is not None:
        bench_core.byte_compile_olearn(args.also)
    load = os.getloadavg()[0]
    timings, _ = bench_core.time_processes(commands(folder, args.also), args.repeats, env=env)
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    best = {name: timing["best"] for name, timing in timings.items()}
    cpu = {name: min(timing["cpu"]) for name, timing in timings.items()}
    for name, seconds in best.items():
        print(f"{name:<20} {seconds:8.3f} s wall  {cpu[name]:8.3f} s CPU")
    for vw in ("vw --sgd", "vw default"):
        print(f"olearn / {vw}: {best['olearn run -a pa1'] / best[vw]:.2f}x wall (aim <= 0.8x), "
              f"{cpu['olearn run -a pa1'] / cpu[vw]:.2f}x CPU")


if __name__ == "__main__":
    main()
