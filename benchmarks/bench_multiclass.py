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
    """Best wall and CPU times of C and olearn, run in turn so that both see the same machine load."""
    time_olearn(X, y)  # compiles, or loads the cached machine code
    c_runs, o_runs = [], []
    for _ in range(repeats):
        c_runs.append(time_c(binary, stream_path, weights_path))
        o_runs.append(time_olearn(X, y))
    assert len({run[2] for run in c_runs + o_runs}) == 1, "C and olearn disagree on the mistakes"
    c_best = (min(run[0] for run in c_runs), min(run[1] for run in c_runs))
    o_best = (min(run[0] for run in o_runs), min(run[1] for run in o_runs))
    return c_best, o_best, o_runs[-1][2], o_runs[-1][3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    binary = compile_reference()
    streams = {
        "dense 100-d (CSR input)": make_stream(200_000 // scale, 100, 100, seed=0),
        "sparse 60 of 2^16": make_stream(200_000 // scale, 2**16, 60, seed=1),
    }
    print("best of --repeats; wall seconds, and in brackets CPU seconds (less disturbed by other processes)")
    print(f"{'stream':28s} {'rows':>8s} {'C':>17s} {'olearn':>17s} {'ratio':>11s}  mistakes")
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        stream_path, weights_path = Path(tmp) / "stream.bin", Path(tmp) / "w.bin"
        for name, (X, y) in streams.items():
            write_stream(stream_path, X, y)
            (c_wall, c_cpu), (o_wall, o_cpu), mistakes, est = interleaved(X, y, binary, stream_path, weights_path,
                                                                         args.repeats)
            c_weights = np.fromfile(weights_path).reshape(X.shape[1], K).T
            assert np.allclose(est.coef_, c_weights, rtol=1e-9, atol=1e-12), "C and olearn disagree on the weights"
            print(f"{name:28s} {X.shape[0]:8d} {c_wall:7.4f} ({c_cpu:7.4f}) {o_wall:7.4f} ({o_cpu:7.4f}) "
                  f"{o_wall / c_wall:4.2f} ({o_cpu / c_cpu:4.2f})  {mistakes}")
        X, y = streams["dense 100-d (CSR input)"]
        write_stream(stream_path, X, y)
        _, (o_wall, o_cpu), _, _ = interleaved(X.toarray(), y, binary, stream_path, weights_path, args.repeats)
        print(f"{'dense 100-d (ndarray input)':28s} {X.shape[0]:8d} {'':17s} {o_wall:7.4f} ({o_cpu:7.4f})  "
              "(includes the conversion to CSR)")

if __name__ == "__main__":
    sys.exit(main())
