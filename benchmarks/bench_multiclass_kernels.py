"""Speed of the kernel multiclass learners against a NumPy/BLAS implementation of the same rounds.

1. kernel evaluations per second: the class scores of one row,
   ``sum_i alpha_ia K(x_i, x)`` for k = 10 classes, against support sets of
   500, 1,000 and 2,000 digits, row after row (the online setting), by olearn's
   compiled scoring and by NumPy evaluating the whole kernel row with one BLAS
   matrix-vector product ``(S @ x + coef0) ** degree`` and then ``@ alpha``;
2. one pass of the Fig. 6 experiment (:mod:`olearn.experiments._crammer2006_fig6`):
   ``olearn.run`` of multiclass PA-I, the uniform Perceptron and MIRA, against
   the same three learners written in NumPy with that BLAS kernel row (support
   set in a preallocated dense array). The mistake counts must agree within 5 %
   (rounding differs, and a near-tie may then go the other way).

Data: the MNIST panel's data of the reproduction (the 5,000-digit CSV when it
is found, else fetched MNIST in the data home), preprocessed as in the paper;
the kernel is (0.5 + x.x')^5. Timings are the best of ``--repeats`` runs after
one warm-up; the NumPy side runs with the BLAS threads it is given (set
``OPENBLAS_NUM_THREADS=1`` for a one-core comparison).

    python benchmarks/bench_multiclass_kernels.py [--rounds 5000] [--repeats 3] [--json out.json]
"""

import argparse
import json
import time

import numpy as np

import olearn
from olearn.experiments._crammer2006_fig6 import (
    LEARNERS,
    load_panel_data,
    make_learner,
    preprocess,
)

DEGREE, COEF0 = 5, 0.5


def best_time(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


# -- NumPy references ---------------------------------------------------------------------


def numpy_scores(S, alpha, x):
    """The class scores of x: one BLAS matrix-vector product for the whole kernel row."""
    return ((S @ x + COEF0) ** DEGREE) @ alpha


def mira_coefficients(scores, y, A, beta):
    """Crammer & Singer (2003), Sec. 6: the exact solution of MIRA's program by sorting."""
    B = scores.copy()
    B[y] -= beta
    D = B / A
    D[y] += 1.0
    if scores[y] - np.max(np.delete(scores, y)) >= beta:
        return np.zeros_like(scores)
    ordered = np.sort(D)[::-1]
    thetas = (np.cumsum(ordered) - 1.0) / np.arange(1, D.size + 1)
    theta = thetas[np.flatnonzero(ordered > thetas)[-1]]
    return np.minimum(theta, D) - B / A


def numpy_pass(name, X, y, k):
    """Mistakes of one online pass of a Fig. 6 learner in NumPy (BLAS kernel rows)."""
    n, d = X.shape
    S = np.empty((n, d))
    alpha = np.empty((n, k))
    size = 0
    mistakes = 0
    for x, label in zip(X, y):
        scores = numpy_scores(S[:size], alpha[:size], x)
        others = scores.copy()
        others[label] = -np.inf
        rival = int(np.argmax(others))
        mistakes += bool(scores[rival] >= scores[label])
        kxx = (x @ x + COEF0) ** DEGREE
        coef = np.zeros(k)
        if name == LEARNERS[0]:
            loss = 1.0 - (scores[label] - scores[rival])
            if loss > 0:
                tau = min(100.0, loss / (2.0 * kxx))
                coef[label], coef[rival] = tau, -tau
        elif name == LEARNERS[1]:
            errors = np.flatnonzero((scores >= scores[label]) & (np.arange(k) != label))
            if errors.size:
                coef[label] = 1.0
                coef[errors] = -1.0 / errors.size
        else:
            coef = mira_coefficients(scores, label, kxx, 0.01)
        if coef.any():
            S[size] = x
            alpha[size] = coef
            size += 1
    return mistakes


# -- the benchmarks ------------------------------------------------------------------------


def bench_kernel_rows(X, y, repeats, sizes=(500, 1000, 2000), queries=500):
    """Scores of ``queries`` rows against the support set MIRA builds from the first rows (nearly all of them)."""
    from olearn.multiclass import MIRA

    rows = []
    Q = X[-queries:]
    for size in sizes:
        est = MIRA(beta=0.01, kernel="poly", degree=DEGREE, coef0=COEF0)
        est.partial_fit(X[:0], y[:0], classes=np.arange(10)).partial_fit(X[:size], y[:size])
        S, alpha = est.support_vectors_.toarray(), est.dual_coef_.T.copy()
        n_support = est.n_support_

        def olearn_rows(est=est):
            for q in Q:
                est.decision_function(q[None, :])

        def olearn_batch(est=est):
            est.decision_function(Q)

        def numpy_rows(S=S, alpha=alpha):
            for q in Q:
                numpy_scores(S, alpha, q)

        np.testing.assert_allclose(est.decision_function(Q[:5]), np.array([numpy_scores(S, alpha, q) for q in Q[:5]]),
                                   rtol=1e-8)
        t_rows, t_batch, t_numpy = (best_time(f, repeats) for f in (olearn_rows, olearn_batch, numpy_rows))
        evaluations = n_support * queries
        rows.append({
            "support_vectors": n_support,
            "olearn_one_call_evals_per_s": evaluations / t_batch,
            "olearn_call_per_row_evals_per_s": evaluations / t_rows,
            "numpy_blas_row_by_row_evals_per_s": evaluations / t_numpy,
        })
        print(f"|S| = {n_support:5d}: olearn {evaluations / t_batch / 1e6:6.1f} M evals/s in one call, "
              f"{evaluations / t_rows / 1e6:6.1f} M/s with one decision_function call per row; "
              f"NumPy/BLAS row by row {evaluations / t_numpy / 1e6:6.1f} M/s (olearn time / NumPy time: "
              f"{t_batch / t_numpy:.2f})")
    return rows


def declared(name):
    """A Fig. 6 learner that knows the ten classes from the start, as the NumPy reference does."""
    classes = np.arange(10)
    return make_learner(name, "MNIST").partial_fit(np.zeros((0, 1)), classes[:0], classes=classes)


def bench_pass(X, y, repeats):
    rows = []
    for name in LEARNERS:
        numpy_mistakes = numpy_pass(name, X, y, 10)
        olearn_mistakes = olearn.run(declared(name), X, y).n_mistakes
        # the same rounds; rounding differs (summation order, x**5), and near-ties then go either way
        assert abs(numpy_mistakes - olearn_mistakes) <= 0.05 * numpy_mistakes, (name, numpy_mistakes, olearn_mistakes)
        t_olearn = best_time(lambda name=name: olearn.run(declared(name), X, y, record=False), repeats)
        t_numpy = best_time(lambda name=name: numpy_pass(name, X, y, 10), repeats)
        rows.append({"algorithm": name, "rounds": len(y), "mistakes": olearn_mistakes,
                     "numpy_mistakes": numpy_mistakes, "olearn_s": t_olearn, "numpy_s": t_numpy})
        print(f"{name:22s} {len(y)} rounds, mistakes {olearn_mistakes} (NumPy: {numpy_mistakes}): "
              f"olearn {t_olearn:6.2f} s, NumPy/BLAS {t_numpy:6.2f} s (olearn time / NumPy time: {t_olearn / t_numpy:.2f})")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    X, y, description = load_panel_data("MNIST", quick=False)
    if X is None:
        raise SystemExit(description)
    order = np.random.default_rng(0).permutation(X.shape[0])[: args.rounds]
    X, y = preprocess(X[order]), y[order]
    print(f"data: {description}; {len(y)} rounds after preprocessing; kernel (0.5 + x.x')^5")
    results = {"data": description, "kernel_rows": bench_kernel_rows(X, y, args.repeats),
               "fig6_pass": bench_pass(X, y, args.repeats)}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
