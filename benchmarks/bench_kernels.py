"""Speed of the Mercer kernels and of a kernel PA pass (not a test; numbers for docs/kernels.md).

1. Kernel evaluations per second of the compiled engine (olearn._kernels._mercer:
   one row against the whole support set, scatter then gather) for the
   polynomial and RBF kernels on 256-d digit rows (scikit-learn's 8x8
   load_digits upsampled to 16x16, pixels in [0, 1]), against NumPy/BLAS
   evaluating one row against the whole support set at once (dgemv ``S @ x``,
   then the kernel's map over the vector). The compiled engine is timed twice:
   support vectors stored sparse (zeros dropped, as ``check_X`` gives them:
   a gather by index) and stored dense (every pixel: one contiguous run, read
   as a slice).
2. One pass of binary PA-I with a polynomial kernel over real MNIST digits
   (../shared/data/mnist-5k): 3 vs 5 (1,000 rows) and all 5,000 rows as
   "digit < 5" vs the rest, without and with a budget, against a NumPy dual
   transcription with BLAS (``S @ x`` per round); the scores must agree.

Every timing is the best of ``--repeats`` runs after a warm-up, wall time, and
for the kernel evaluations also the CPU time of the calling thread (less
disturbed by a busy machine; set ``OPENBLAS_NUM_THREADS=1`` so that BLAS's work
is all in that thread, a one-core comparison).

    python benchmarks/bench_kernels.py
    python benchmarks/bench_kernels.py --quick
"""

import argparse
import gzip
import json
import os
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
MNIST = HERE.parent.parent / "shared" / "data" / "mnist-5k" / "mnist_5k.csv.gz"


def best_of(fn, repeats):
    """(best wall seconds, best CPU seconds of this thread, last result) of ``repeats`` runs after a warm-up."""
    fn()
    walls, cpus = [], []
    for _ in range(repeats):
        cpu, start = time.thread_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.thread_time() - cpu)
    return min(walls), min(cpus), result


def digit_rows():
    """1,797 digit images as 256-d rows in [0, 1]: each 8x8 pixel becomes a 2x2 block."""
    from sklearn.datasets import load_digits

    images = load_digits().images / 16.0
    return np.stack([np.kron(img, np.ones((2, 2))).ravel() for img in images])


def filled_support(rows, dense):
    """A SupportSet holding ``rows`` (zeros kept when ``dense``), coefficients 1."""
    from olearn.kernel import SupportSet

    support = SupportSet()
    if dense:
        n, d = rows.shape
        indptr = np.arange(0, n * d + 1, d, dtype=np.int64)
        indices = np.tile(np.arange(d, dtype=np.int32), n)
        data = rows.ravel().copy()
    else:
        csr = sp.csr_matrix(rows)
        indptr, indices, data = csr.indptr.astype(np.int64), csr.indices.astype(np.int32), csr.data
    support.reserve(rows.shape[0], data.size)
    support.reserve_features(rows.shape[1])
    support.indptr[: indptr.size] = indptr
    support.indices[: data.size] = indices
    support.data[: data.size] = data
    support.sqnorm[: rows.shape[0]] = (rows * rows).sum(1)
    support.coef[: rows.shape[0], 0] = 1.0
    support.count[0] = rows.shape[0]
    return support


def bench_evaluations(n_support, n_queries, repeats):
    from olearn._kernels import _mercer as M
    from olearn.kernel._hyperparameters import KERNELS

    rows = digit_rows()
    S, Q = rows[:n_support], rows[n_support : n_support + n_queries]
    qcsr = sp.csr_matrix(Q)
    q_indptr, q_indices, q_data = qcsr.indptr.astype(np.int64), qcsr.indices.astype(np.int32), qcsr.data
    gamma, coef0, degree = 1.0 / 256, 1.0, 3
    sqn = (S * S).sum(1)
    out = {"n_support": n_support, "n_queries": n_queries, "density": float((rows != 0).mean())}
    for name in ("poly", "rbf"):
        mercer = (KERNELS[name], degree, gamma, coef0, 0.0, 0, 0)
        results = {}
        for layout in ("sparse", "dense"):
            support = filled_support(S, dense=layout == "dense")
            values = np.empty(n_support)

            def compiled(support=support, values=values, mercer=mercer):
                arrays = support.arrays()
                for i in range(n_queries):
                    M.support_values(q_indices, q_data, q_indptr[i], q_indptr[i + 1], arrays[0], arrays[1],
                                     arrays[2], arrays[3], arrays[5], mercer, support.work, values)
                return values.copy()

            results[f"compiled, support {layout}"] = best_of(compiled, repeats)

        def numpy_blas(name=name):
            for x in Q:
                dots = S @ x
                if name == "poly":
                    values = (gamma * dots + coef0) ** degree
                else:
                    values = np.exp(-gamma * np.maximum(sqn + x @ x - 2.0 * dots, 0.0))
            return values

        results["numpy/BLAS, one row vs the set"] = best_of(numpy_blas, repeats)
        reference = results["numpy/BLAS, one row vs the set"][2]
        out[name] = {}
        for label, (seconds, cpu_seconds, last) in results.items():
            assert np.allclose(last, reference, rtol=1e-10), label
            out[name][label] = {"seconds": seconds, "cpu_seconds": cpu_seconds,
                                "evaluations_per_second": n_support * n_queries / seconds}
        blas = out[name]["numpy/BLAS, one row vs the set"]
        for row in out[name].values():
            row["time_vs_blas"] = row["seconds"] / blas["seconds"]
            row["cpu_time_vs_blas"] = row["cpu_seconds"] / blas["cpu_seconds"]
    return out


def load_mnist():
    with gzip.open(MNIST, "rt") as fh:
        table = np.loadtxt(fh, delimiter=",")
    return table[:, :-1] / 255.0, table[:, -1].astype(int)


def numpy_dual_pa1(X, y, C, degree, gamma, coef0, budget):
    """PA-I with K = (gamma x.x' + coef0)^degree, S kept as a dense array grown by doubling; BLAS S @ x."""
    n, d = X.shape
    S = np.zeros((64, d))
    alpha = np.zeros(64)
    size = 0
    scores = np.empty(n)
    for t in range(n):
        x = X[t]
        score = alpha[:size] @ (gamma * (S[:size] @ x) + coef0) ** degree if size else 0.0
        scores[t] = score
        loss = max(0.0, 1.0 - y[t] * score)
        if loss > 0.0:
            tau = min(C, loss / (gamma * (x @ x) + coef0) ** degree)
            if budget is not None and size == budget:  # remove the oldest
                S[: size - 1] = S[1:size]
                alpha[: size - 1] = alpha[1:size]
                size -= 1
            if size == S.shape[0]:
                S = np.vstack([S, np.zeros_like(S)])
                alpha = np.concatenate([alpha, np.zeros_like(alpha)])
            S[size] = x
            alpha[size] = tau * y[t]
            size += 1
    return scores, size


def bench_pass(repeats, quick):
    import olearn

    if not MNIST.exists():
        return {"skipped": f"{MNIST} not found"}
    X, digits = load_mnist()
    order = np.random.default_rng(0).permutation(digits.size)  # the file is sorted by digit
    X, digits = X[order], digits[order]
    tasks = {"3 vs 5": (digits == 3) | (digits == 5), "<5 vs >=5 (all digits)": np.ones(digits.size, dtype=bool)}
    params = {"C": 1.0, "degree": 3, "gamma": 1.0 / 784 * 10, "coef0": 1.0}
    out = {}
    for task, mask in tasks.items():
        Xt = X[mask][: 1000 if quick else None]
        y = np.where(digits[mask][: Xt.shape[0]] == 3, 1, -1) if task == "3 vs 5" else np.where(
            digits[mask][: Xt.shape[0]] < 5, 1, -1)
        Xs = sp.csr_matrix(Xt)
        for budget in (None, 300):
            def run_olearn(budget=budget, Xs=Xs, y=y):
                est = olearn.PAClassifier(variant="pa1", kernel="poly", budget=budget, **params)
                return olearn.run(est, Xs, y)

            seconds, _, res = best_of(run_olearn, repeats)
            ref_seconds, _, (ref_scores, ref_size) = best_of(
                lambda budget=budget, Xt=Xt, y=y: numpy_dual_pa1(Xt, y, params["C"], params["degree"], params["gamma"],
                                                     params["coef0"], budget), 1)
            assert np.allclose(res.scores, ref_scores, rtol=1e-8, atol=1e-8)
            assert res.support_sizes[-1] == ref_size
            out[f"{task}, budget={budget}"] = {
                "rows": int(Xt.shape[0]),
                "seconds": seconds,
                "rows_per_second": Xt.shape[0] / seconds,
                "mistakes": res.n_mistakes,
                "mistake_rate": res.mistake_rate,
                "support_size": int(res.support_sizes[-1]),
                "numpy_blas_seconds": ref_seconds,
            }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=os.fspath(HERE / "_work" / "kernels.json"))
    args = parser.parse_args()
    n_support, n_queries = (500, 100) if args.quick else (1500, 297)
    results = {
        "evaluations": bench_evaluations(n_support, n_queries, args.repeats),
        "pa1_poly_mnist": bench_pass(args.repeats, args.quick),
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=2))
    ev = results["evaluations"]
    print(f"kernel evaluations: {ev['n_queries']} rows x {ev['n_support']} support vectors, 256-d, "
          f"{ev['density']:.0%} non-zero")
    for name in ("poly", "rbf"):
        for label, row in ev[name].items():
            print(f"  {name:4s} {label:34s} {row['evaluations_per_second'] / 1e6:8.1f} M/s "
                  f"({row['time_vs_blas']:.2f}x the time of BLAS; CPU time {row['cpu_time_vs_blas']:.2f}x)")
    print("PA-I, poly kernel (degree 3), one pass over MNIST:")
    for task, row in results["pa1_poly_mnist"].items():
        if task == "skipped":
            print("  skipped:", row)
            continue
        print(f"  {task:34s} {row['rows']:5d} rows {row['seconds']:7.3f} s ({row['rows_per_second']:8.0f} rows/s), "
              f"mistakes {row['mistakes']} ({row['mistake_rate']:.1%}), |S| = {row['support_size']}; "
              f"NumPy/BLAS dual {row['numpy_blas_seconds']:.3f} s")


if __name__ == "__main__":
    main()
