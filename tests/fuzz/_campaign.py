"""Run a fuzz campaign in a child process, so that a crash fails a test instead of the runner.

A campaign is a module-level function ``campaign(n_examples, seed)`` in a module under
``tests/fuzz``. It drives hypothesis (or its own generator) over ``n_examples`` inputs,
raises on any undocumented outcome, and returns the number of inputs it tried. The parent
runs it with ``python -c`` in a fresh interpreter: a segfault, an abort or a kill by the
kernel shows up as a negative return code and fails the calling test with the child's
output, which holds hypothesis's falsifying example.

``--fuzz-long`` (see ``tests/conftest.py``) multiplies every campaign's size for a long
local run; the counts each campaign tried are printed as ``FUZZ name: N inputs``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent

_CHILD = """
import json, sys
sys.path.insert(0, {tests_dir!r})
import importlib
module = importlib.import_module({module!r})
count = getattr(module, {function!r})({n_examples!r}, {seed!r})
print("FUZZ-RESULT " + json.dumps({{"count": int(count)}}))
"""


def run_campaign(request, target, n_examples, seed=0, timeout=900):
    """Run ``target`` ("fuzz.module:function") in a child and return how many inputs it tried.

    ``n_examples`` is the CI size; with ``--fuzz-long`` it is multiplied by the option's
    factor. The child inherits the environment (so ``PYTHONPATH`` and numba's cache apply).
    """
    factor = request.config.getoption("--fuzz-long")
    n = int(n_examples * factor) if factor else int(n_examples)
    module, function = target.split(":")
    code = _CHILD.format(tests_dir=str(TESTS_DIR), module=module, function=function,
                         n_examples=n, seed=seed)
    env = dict(os.environ)
    env.setdefault("PYTHONFAULTHANDLER", "1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout * (max(1.0, factor or 1.0)), env=env)
    output = f"--- stdout ---\n{proc.stdout[-20000:]}\n--- stderr ---\n{proc.stderr[-20000:]}"
    if proc.returncode < 0:
        raise AssertionError(f"{target} crashed the interpreter (signal {-proc.returncode})\n{output}")
    if proc.returncode != 0:
        raise AssertionError(f"{target} failed (exit code {proc.returncode})\n{output}")
    for line in proc.stdout.splitlines():
        if line.startswith("FUZZ-RESULT "):
            count = json.loads(line[len("FUZZ-RESULT "):])["count"]
            print(f"FUZZ {target}: {count} inputs")
            return count
    raise AssertionError(f"{target} printed no result\n{output}")
