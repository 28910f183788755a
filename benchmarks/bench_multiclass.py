"""Speed of multi-prototype multiclass PA-I: olearn against a plain C loop doing the same pass.

k = 10 classes, two streams: dense rows of 100 features (every entry non-zero),
and sparse rows (60 non-zeros out of 2^16 features). olearn runs
``olearn.run(PAMulticlass("pa1"), X, y, record=False)`` with every class declared
up front (so that both programs see all 10 classes from row 0); the C program
(``multiclass_reference.c``, compiled here with ``gcc -O3``) times only its pass,
while olearn's time includes its input checks. The two run in turn, ``--repeats``
times, and the best time of each is kept: the sparse stream's random accesses to
the 10 x 2^16 weights make it sensitive to what else the machine is doing.
Mistake counts must be identical and the final weights equal within 1e-9.

    python benchmarks/bench_multiclass.py            # ~30 s
    python benchmarks/bench_multiclass.py --quick    # smaller streams, a smoke test
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import olearn
from olearn.multiclass import PAMulticlass

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
K = 10
C = 1.0


def make_stream(n, d, nnz_per_row, seed):
    """Rows with ``nnz_per_row`` non-zeros, labels from 10 hidden prototypes with 10% noise."""
    rng = np.random.default_rng(seed)
    if nnz_per_row == d:
        X = sp.csr_matrix(rng.standard_normal((n, d)) / np.sqrt(d))
    else:
        indices = np.sort(np.array([rng.choice(d, nnz_per_row, replace=False) for _ in range(n)]), axis=1)
        data = rng.standard_normal((n, nnz_per_row)) / np.sqrt(nnz_per_row)
        indptr = np.arange(n + 1) * nnz_per_row
        X = sp.csr_matrix((data.ravel(), indices.ravel(), indptr), shape=(n, d))
    prototypes = rng.standard_normal((K, d))
    y = np.asarray(np.argmax(X @ prototypes.T, axis=1)).ravel()
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, K, flip.sum())
    return X, y


def write_stream(path, X, y):
    with open(path, "wb") as fh:
        np.array([X.shape[0], X.shape[1], K, X.nnz], dtype=np.int64).tofile(fh)
        X.indptr.astype(np.int64).tofile(fh)
        X.indices.astype(np.int32).tofile(fh)
        X.data.astype(np.float64).tofile(fh)
        y.astype(np.int64).tofile(fh)


def compile_reference():
    WORK.mkdir(exist_ok=True)
    binary = WORK / "multiclass_reference"
    subprocess.run(["gcc", "-O3", "-o", os.fspath(binary), os.fspath(HERE / "multiclass_reference.c")], check=True)
    return binary


def time_c(binary, stream_path, weights_path):
    """(wall, CPU) seconds of one C pass, and its mistake count."""
    out = subprocess.run([os.fspath(binary), os.fspath(stream_path), "-C", str(C), "-w", os.fspath(weights_path)],
                         capture_output=True, text=True, check=True).stdout
    line = dict(item.split("=") for item in out.split())
    return float(line["seconds"]), float(line["cpu"]), int(line["mistakes"])


def time_olearn(X, y):
    """(wall, CPU) seconds of one olearn pass, its mistake count, and the estimator."""
    est = PAMulticlass(variant="pa1", C=C).partial_fit(X[:0], y[:0], classes=np.arange(K))
    c0, t0 = time.thread_time(), time.perf_counter()
    result = olearn.run(est, X, y, record=False)
    return time.perf_counter() - t0, time.thread_time() - c0, result.n_mistakes, est


def interleaved(X, y, binary, stream_path, weights_path, repeats):
    """C and olearn run in turn ``repeats`` times, so that both see the same machine load.

    Returns (C runs, olearn runs, the last olearn estimator); a run is (wall, CPU, mistakes).
    """
    time_olearn(X, y)  # compiles, or loads the cached machine code
    c_runs, o_runs = [], []
    for _ in range(repeats):
        c_runs.append(time_c(binary, stream_path, weights_path))
        *o_run, est = time_olearn(X, y)
        o_runs.append(tuple(o_run))
    assert len({run[2] for run in c_runs + o_runs}) == 1, "C and olearn disagree on the mistakes"
    return c_runs, o_runs, est


def timing(runs):
    """Best wall time, every wall and CPU time of a list of (wall, CPU, mistakes) runs."""
    return {"best": min(run[0] for run in runs), "times": [run[0] for run in runs], "cpu": [run[1] for run in runs]}


def measure(rows, repeats):
    """Stream name -> {"rows", "c", "olearn", "mistakes"} (timings as ``timing``).

    The dense stream is also given to olearn as an ndarray (its time then includes the
    conversion to CSR; no C counterpart).
    """
    binary = compile_reference()
    streams = {
        "dense 100-d (CSR input)": make_stream(rows, 100, 100, seed=0),
        "sparse 60 of 2^16": make_stream(rows, 2**16, 60, seed=1),
    }
    out = {}
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        stream_path, weights_path = Path(tmp) / "stream.bin", Path(tmp) / "w.bin"
        for name, (X, y) in streams.items():
            write_stream(stream_path, X, y)
            c_runs, o_runs, est = interleaved(X, y, binary, stream_path, weights_path, repeats)
            c_weights = np.fromfile(weights_path).reshape(X.shape[1], K).T
            assert np.allclose(est.coef_, c_weights, rtol=1e-9, atol=1e-12), "C and olearn disagree on the weights"
            out[name] = {"rows": X.shape[0], "c": timing(c_runs), "olearn": timing(o_runs), "mistakes": o_runs[0][2]}
        X, y = streams["dense 100-d (CSR input)"]
        write_stream(stream_path, X, y)
        _, o_runs, _ = interleaved(X.toarray(), y, binary, stream_path, weights_path, repeats)
        out["dense 100-d (ndarray input)"] = {"rows": X.shape[0], "olearn": timing(o_runs), "mistakes": o_runs[0][2]}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    results = measure(20_000 if args.quick else 200_000, args.repeats)
    print("best of --repeats; wall seconds, and in brackets CPU seconds (less disturbed by other processes)")
    print(f"{'stream':28s} {'rows':>8s} {'C':>17s} {'olearn':>17s} {'ratio':>11s}  mistakes")
    for name, row in results.items():
        o_wall, o_cpu = row["olearn"]["best"], min(row["olearn"]["cpu"])
        if "c" in row:
            c_wall, c_cpu = row["c"]["best"], min(row["c"]["cpu"])
            print(f"{name:28s} {row['rows']:8d} {c_wall:7.4f} ({c_cpu:7.4f}) {o_wall:7.4f} ({o_cpu:7.4f}) "
                  f"{o_wall / c_wall:4.2f} ({o_cpu / c_cpu:4.2f})  {row['mistakes']}")
        else:
            print(f"{name:28s} {row['rows']:8d} {'':17s} {o_wall:7.4f} ({o_cpu:7.4f})  "
                  "(includes the conversion to CSR)")


if __name__ == "__main__":
    sys.exit(main())
