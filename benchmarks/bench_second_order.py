"""Speed of the second-order learners (not a test; numbers for the docs).

1. diagonal learners on the core's sparse stream (make_data.py: 2^18 features,
   60 non-zeros a row): ``olearn.run(..., record=False)`` of diagonal AROW, CW,
   AdaGrad and NAROW against the PA-I pass of the binary linear kernel, as a
   ratio of times (aim: within 2x).
2. full AROW at d = 100 and d = 1,000 on dense rows against a NumPy/BLAS
   implementation of the same rank-one update (``S @ x`` by BLAS dgemv, the
   downdate in place by BLAS dger); the final means must agree to 1e-9.

Every timing is the best of ``--repeats`` runs after one warm-up run, wall time.

    python benchmarks/bench_second_order.py            # 200,000 sparse rows
    python benchmarks/bench_second_order.py --quick    # 20,000 sparse rows, fewer dense rows
"""

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import make_data
from bench_core import best_of, best_of_interleaved, load_csr

PA1 = "PA-I (binary linear kernel)"


def diagonal_learners():
    """Name -> factory of the learners section 1 compares, the PA-I pass first (the reference)."""
    import olearn
    from olearn.second_order import AROW, CW, NAROW, AdaGrad

    return {
        PA1: lambda: olearn.PAClassifier(variant="pa1", C=1.0),
        "AROW diag": lambda: AROW(r=1.0, covariance="diag"),
        "CW diag": lambda: CW(eta=0.9, covariance="diag"),
        "AdaGrad": lambda: AdaGrad(eta=1.0, delta=1.0),
        "NAROW diag": lambda: NAROW(b=1.0, covariance="diag"),
    }


def bench_diagonal(folder, repeats, names=None):
    """``olearn.run(..., record=False)`` of each learner (``names``: a subset), interleaved round by round."""
    import olearn

    X, y = load_csr(folder)
    learners = {name: make for name, make in diagonal_learners().items() if names is None or name in names}
    passes = {}
    for name, make in learners.items():
        olearn.run(make(), X[:10], y[:10], record=False)  # compile or load from the cache
        passes[name] = lambda make=make: olearn.run(make(), X, y, record=False)
    timings, results = best_of_interleaved(passes, repeats)
    out = {name: {"seconds": timings[name]["best"], "mistakes": results[name].n_mistakes, **timings[name]}
           for name in learners}
    base = out[PA1]["seconds"]
    for row in out.values():
        row["ratio_to_pa1"] = row["seconds"] / base
    return {"rows": X.shape[0], "learners": out}


def numpy_arow(X, y, r):
    """Full AROW with the rank-one update made by BLAS in place."""
    from scipy.linalg.blas import dgemv, dger

    d = X.shape[1]
    w = np.zeros(d)
    S = np.asfortranarray(np.eye(d))
    for x, label in zip(X, y):
        margin = float(w @ x)
        loss = 1.0 - label * margin
        if loss <= 0.0:
            continue
        u = dgemv(1.0, S, x)
        beta = 1.0 / (float(x @ u) + r)
        w += loss * beta * label * u
        S = dger(-beta, u, u, a=S, overwrite_a=True)
    return w


def bench_full(dims, rows_for, repeats):
    import olearn
    from olearn.second_order import AROW

    out = {}
    for d in dims:
        rng = np.random.default_rng(d)
        n = rows_for(d)
        X = rng.normal(size=(n, d)) / np.sqrt(d)
        y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
        y[rng.random(n) < 0.1] *= -1
        olearn.run(AROW(r=1.0), X[:5], y[:5], record=False)
        kernel, est = best_of(lambda X=X, y=y: AROW(r=1.0).partial_fit(X, y), repeats)
        blas, w = best_of(lambda X=X, y=y: numpy_arow(X, y, 1.0), repeats)
        np.testing.assert_allclose(est.coef_.ravel(), w, rtol=1e-9, atol=1e-12)
        out[d] = {"rows": n, "olearn_seconds": kernel["best"], "numpy_blas_seconds": blas["best"],
                  "speedup": blas["best"] / kernel["best"],
                  "olearn_us_per_row": 1e6 * kernel["best"] / n, "numpy_us_per_row": 1e6 * blas["best"] / n}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=os.fspath(make_data.WORK / "second_order_results.json"))
    args = parser.parse_args(argv)
    rows = 20_000 if args.quick else 200_000
    folder = make_data.ensure(rows=rows)
    results = {"machine": {"cpus": os.cpu_count(), "loadavg_start": os.getloadavg()}}
    results["diagonal"] = bench_diagonal(folder, args.repeats)
    scale = 1 if args.quick else 4
    results["full"] = bench_full((100, 1000), lambda d: scale * (2000 if d <= 100 else 250), args.repeats)
    results["machine"]["loadavg_end"] = os.getloadavg()

    print(f"1. diagonal learners, {results['diagonal']['rows']} sparse rows")
    for name, row in results["diagonal"]["learners"].items():
        print(f"   {name:30s} {row['seconds']:8.3f} s   x{row['ratio_to_pa1']:.2f} of PA-I   "
              f"mistakes {row['mistakes']}")
    print("2. full AROW against NumPy/BLAS (same rank-one update)")
    for d, row in results["full"].items():
        print(f"   d = {d:5d}: {row['rows']} rows, olearn {row['olearn_us_per_row']:9.1f} us/row, "
              f"NumPy/BLAS {row['numpy_us_per_row']:9.1f} us/row, speed-up x{row['speedup']:.2f}")
    print(f"load average start {results['machine']['loadavg_start']}, end {results['machine']['loadavg_end']}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main()
