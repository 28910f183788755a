"""What the first run after an install compiles, and for how long (issue #16).

Runs an ``olearn`` command in a fresh process with an empty numba cache (a new
``NUMBA_CACHE_DIR``) and records numba's compile events (``numba:compile`` of
``numba.core.event``): each dispatcher compiled, its signature, and the wall
and CPU time of its compilation. A compile nested in another (a function that
numba did not inline, compiled when its caller is typed) is counted in both;
the "top" rows are the compiles started from Python. Also times
``python -c "import numpy, numba"``, the yardstick of the issue's target.

    PYTHONPATH=src python benchmarks/first_run.py run --algo pa1 FILE.svm
    PYTHONPATH=src python benchmarks/first_run.py predict -m MODEL FILE.svm

CPU times are less disturbed than wall times by other processes on a shared
machine; the load average is printed with the table. See README.md, "First
run: what compiles".
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

# Run inside the child process: listen to numba's compile events, run the command, write the records.
_CHILD = r"""
import atexit, json, sys, time
from numba.core import event

records, stack = [], []

class Compiles(event.Listener):
    def on_start(self, ev):
        stack.append((time.perf_counter(), time.thread_time()))

    def on_end(self, ev):
        wall, cpu = stack.pop()
        func = ev.data["dispatcher"].py_func
        records.append({"depth": len(stack), "name": f"{func.__module__}.{func.__qualname__}",
                        "signature": str(ev.data["args"]), "wall": time.perf_counter() - wall,
                        "cpu": time.thread_time() - cpu})

event.register("numba:compile", Compiles())
out = sys.argv[1]

@atexit.register
def write():
    with open(out, "w") as fh:
        json.dump(records, fh)

sys.argv = ["olearn", *sys.argv[2:]]
from olearn.cli import main
main()
"""


def _child_cpu(command, env):
    """(wall, CPU of the child) of running ``command``; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(args):
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(folder, "numba"))
        records_path = os.path.join(folder, "compiles.json")
        wall, cpu = _child_cpu([sys.executable, "-c", _CHILD, records_path, *args], env)
        with open(records_path) as fh:
            records = json.load(fh)
    import_wall, import_cpu = _child_cpu([sys.executable, "-c", "import numpy, numba"], dict(os.environ))
    top = [r for r in records if r["depth"] == 0]
    print(f"olearn {' '.join(args)}  (empty numba cache; load average {os.getloadavg()[0]:.2f})\n")
    print(f"process: wall {wall:.2f} s, CPU {cpu:.2f} s; python -c 'import numpy, numba': wall {import_wall:.2f} s, "
          f"CPU {import_cpu:.2f} s (ratio {wall / import_wall:.1f}x wall, {cpu / import_cpu:.1f}x CPU)")
    print(f"compiles: {len(records)} ({len(top)} top), top compiles CPU {sum(r['cpu'] for r in top):.2f} s\n")
    print("| depth | CPU s | wall s | function | signature |")
    print("|---|---|---|---|---|")
    for r in sorted(records, key=lambda r: -r["cpu"]):
        if r["name"].startswith("olearn."):
            print(f"| {r['depth']} | {r['cpu']:.2f} | {r['wall']:.2f} | {r['name']} | {r['signature'][:90]} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
