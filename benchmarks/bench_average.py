"""Averaging and importance weights against the plain PA-I pass, on the reference stream.

Times, best of N after a warm-up, interleaved round by round so that load from
other processes hits every variant alike (wall and CPU time):

* ``plain``: ``olearn.run(PAClassifier(variant="pa1", C=1), X, y, record=False)``,
  the pass of ``bench_core.py`` section 1;
* ``averaged``: the same with ``average=True`` (the lazy running sum);
* ``weighted``: the plain learner with ``sample_weight`` all ones (the weighted
  path of the kernel; the weights are bit-for-bit those of ``plain``).

Run it against another tree to compare before/after a change, e.g. a checkout
of the previous commit's ``src`` (variants that tree lacks are skipped)::

    python benchmarks/make_data.py
    PYTHONPATH=src python benchmarks/bench_average.py --repeats 7
    PYTHONPATH=/tmp/before/src python benchmarks/bench_average.py --repeats 7
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_data  # noqa: E402

C = 1.0


def load_stream():
    import scipy.sparse as sp

    folder = make_data.WORK / make_data.dataset_name(200_000, 2**18, 60, 0)
    if not (folder / "y.npy").exists():
        raise SystemExit(f"{folder} is missing: run python benchmarks/make_data.py first")
    indptr = np.load(folder / "indptr.npy")
    X = sp.csr_matrix((np.load(folder / "data.npy"), np.load(folder / "indices.npy"), indptr),
                      shape=(indptr.size - 1, 2**18))
    return X, np.load(folder / "y.npy")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import olearn

    X, y = load_stream()
    ones = np.ones(y.size)
    variants = {
        "plain": lambda: olearn.run(olearn.PAClassifier(variant="pa1", C=C), X, y, record=False),
    }
    try:
        olearn.PAClassifier(average=True)
    except TypeError:
        print("(this olearn has no average or sample_weight: only the plain pass)", file=sys.stderr)
    else:
        variants["averaged"] = lambda: olearn.run(olearn.PAClassifier(variant="pa1", C=C, average=True), X, y,
                                                  record=False)
        variants["weighted"] = lambda: olearn.run(olearn.PAClassifier(variant="pa1", C=C), X, y, record=False,
                                                  sample_weight=ones)
    results = {}
    for name, fn in variants.items():
        results[name] = {"times": [], "cpu": [], "mistakes": fn().n_mistakes}  # warm-up (and compile)
    for _ in range(args.repeats):
        for name, fn in variants.items():
            c0, t0 = time.thread_time(), time.perf_counter()
            fn()
            results[name]["times"].append(time.perf_counter() - t0)
            results[name]["cpu"].append(time.thread_time() - c0)
    base = min(results["plain"]["times"])
    for name, r in results.items():
        r["best"], r["best_cpu"] = min(r["times"]), min(r["cpu"])
        print(f"{name:9s} best {1e3 * r['best']:7.1f} ms wall, {1e3 * r['best_cpu']:7.1f} ms cpu, "
              f"median {1e3 * float(np.median(r['times'])):7.1f} ms; {r['best'] / base:4.2f}x plain; "
              f"{r['mistakes']} mistakes")
    out = make_data.WORK / "average_results.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"olearn": olearn.__file__, **results}, indent=1))


if __name__ == "__main__":
    main()
