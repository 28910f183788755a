"""Where olearn spends its time: the evidence behind the findings in README.md.

Sections (all timings are CPU time of the measuring thread or process, best of
``--repeats``, so that other work on a shared machine disturbs them less):

* ``startup``: what ``olearn run`` pays before it reads a byte -- imports, by
  package (``python -X importtime``), and numba's one-time start-up at the first
  call of a cached kernel.
* ``cli``: ``olearn run --algo pa1 --quiet stream.svm`` under cProfile (CPU clock),
  its time grouped by stage.
* ``parse``: ``olearn.data.load_libsvm`` against a minimal numba parser of the
  same file (fast path only: ``label idx:d.ddd ...``, no validation) -- an
  upper bound on what a compiled parser of this data can reach.
* ``kernel``: the in-memory PA-I pass -- ``olearn.run``, olearn's kernel alone,
  a minimal numba loop with the C reference's arithmetic (with and without FMA
  contraction; read at unsigned offsets, plain and four entries per turn as
  olearn's pass reads) and the C reference, interleaved; then what ``run`` adds.
* ``streaming``: ``learn_one``/``predict_one`` on a dict of 100 features, piece
  by piece, and a prototype fast path built from olearn's own kernels.

    python benchmarks/profile_olearn.py                    # all sections
    python benchmarks/profile_olearn.py --only kernel,streaming

The prototypes here exist only to measure what a change would buy; nothing in
``src/`` depends on them.
"""

import argparse
import io
import math
import os
import pstats
import re
import subprocess
import sys
import time
import timeit
from pathlib import Path

import numpy as np
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import bench_core  # noqa: E402
import make_data  # noqa: E402

N_FEATURES = bench_core.N_FEATURES


def cpu_best(fn, repeats):
    """Best CPU time (this thread) of ``repeats`` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return min(times)


def per_call_us(stmt, namespace, number=20000, repeats=5):
    return min(timeit.repeat(stmt, globals=namespace, number=number, repeat=repeats)) / number * 1e6


def header(title):
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


# -- startup ---------------------------------------------------------------------------------

_IMPORT_GROUPS = ("olearn", "sklearn", "scipy.stats", "scipy.sparse", "numba", "numpy", "click", "rich",
                  "matplotlib", "river", "pandas")

_FIRST_CALL = r"""
import time
c0 = time.process_time()
import numpy as np
import olearn
c1 = time.process_time()
from olearn._kernels._binary_linear import binary_linear_scores, score_row
i64, i32, f = np.zeros(2, np.int64), np.zeros(0, np.int32), np.zeros(0)
w, st, p, o = np.zeros(1), np.array([0.0, 1.0, 0.0]), np.zeros(4), np.zeros(1)
c2 = time.process_time()
binary_linear_scores(i64, i32, f, w, st, p, o)
c3 = time.process_time()
score_row(i32, f, 0, 0, w, st, p)
c4 = time.process_time()
print(c1 - c0, c3 - c2, c4 - c3)
"""


def import_times(module):
    """{package: cumulative import seconds} for ``import module`` in a fresh interpreter.

    A package is charged where it is first imported, so "sklearn" includes the
    scipy.stats it pulls in and "olearn" includes everything.
    """
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True,
                          text=True, check=True)
    out = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if m and m.group(2) in _IMPORT_GROUPS and m.group(2) not in out:
            out[m.group(2)] = int(m.group(1)) * 1e-6
    return out


_ONE_ROW_RUN = r"""
import contextlib, io, sys, time
c0 = time.process_time()
from olearn.cli import main
c1 = time.process_time()
sys.argv = ["olearn", "run", "--algo", "pa1", "--quiet", sys.argv[1]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(c1 - c0, time.process_time() - c1)
"""


def section_startup(repeats):
    header("startup: imports and numba's first call")
    rows = []
    for code in ("pass", "import numpy", "import numba, scipy.sparse, click, rich", "import sklearn.base",
                 "import olearn", "import olearn.cli._app"):
        best = min(
            bench_core.run_process([sys.executable, "-c", code])[1] for _ in range(repeats)
        )
        rows.append((code, best))
    for code, best in rows:
        print(f"  python -c '{code}':{'':<{44 - len(code)}} {best:6.3f} s CPU (process)")
    times = [import_times("olearn.cli._app") for _ in range(repeats)]
    merged = {k: min(t.get(k, math.inf) for t in times) for k in times[0]}
    print("  python -X importtime -c 'import olearn.cli._app' (cumulative, charged to the first importer):")
    for name, seconds in sorted(merged.items(), key=lambda kv: -kv[1]):
        print(f"    {name:14s} {seconds:6.3f} s")
    first = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, check=True)
        first.append([float(v) for v in out.stdout.split()])
    first = np.min(np.array(first), axis=0)
    print(f"  in one fresh process: import olearn {first[0]:.3f} s; first call of a cached kernel {first[1]:.3f} s"
          f" (numba initialises its CPU target once per process); first call of a second kernel {first[2]:.3f} s")
    one_row = bench_core.WORK / "one_row.svm"
    small = make_data.ensure(rows=1000, verbose=False) / "stream.svm"
    one_row.write_bytes(small.read_bytes().split(b"\n", 1)[0] + b"\n")
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _ONE_ROW_RUN, os.fspath(one_row)], capture_output=True, text=True,
                             check=True)
        runs.append([float(v) for v in out.stdout.split()])
    runs = np.min(np.array(runs), axis=0)
    print(f"  olearn run on a 1-row file, in one process: import of the CLI {runs[0]:.3f} s, then the command"
          f" {runs[1]:.3f} s (numba start-up + loading every cached kernel it needs + the CLI's own work)")


# -- cli ---------------------------------------------------------------------------------------

_CLI_PROFILE = r"""
import cProfile, pstats, sys, time
from olearn.cli import main
sys.argv = ["olearn", "run", "--algo", "pa1", "--quiet", sys.argv[1]]
prof = cProfile.Profile(time.process_time)
prof.enable()
try:
    main()
except SystemExit:
    pass
prof.disable()
prof.dump_stats(OUT)
"""

# (label, regex on "file:line(function)" of the cProfile entry, which time: tottime or cumtime)
_CLI_STAGES = [
    ("parse kernel (parse_libsvm)", r"_parse_libsvm\.py:\d+\(parse_libsvm\)", "tottime"),
    ("growing the chunk arrays (libsvm _grown)", r"_libsvm\.py:\d+\(_grown\)", "tottime"),
    ("row slicing (scipy get_csr_submatrix)", r"get_csr_submatrix", "tottime"),
    ("file read", r"method 'read' of '_io\.BufferedReader'", "tottime"),
    ("regrouping rows (Rows.concat + copies)", r"_rows\.py:\d+\(concat\)|method 'copy' of 'numpy\.ndarray'", "tottime"),
    ("learning kernel (binary_linear_pass)", r"\(binary_linear_pass\)", "tottime"),
    ("input checks (check_X)", r"_validation\.py:\d+\(check_X\)", "cumtime"),
    ("numba: load cached kernels + target init", r"dispatcher\.py:\d+\(_compile_for_args\)", "cumtime"),
]


def section_cli(folder):
    header("cli: olearn run --algo pa1 --quiet stream.svm under cProfile (CPU clock)")
    out_path = bench_core.WORK / "cli_profile.prof"
    code = _CLI_PROFILE.replace("OUT", repr(os.fspath(out_path)))
    # One plain run first: the numba cache may be stale after an edit of a kernel (then it recompiles).
    cli = bench_core.olearn_cli()
    subprocess.run(cli + ["run", "--algo", "pa1", "--quiet", os.fspath(folder / "stream.svm")], check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-c", code, os.fspath(folder / "stream.svm")], check=True,
                   capture_output=True, text=True)
    stats = pstats.Stats(os.fspath(out_path))
    total = stats.total_tt
    entries = {f"{Path(k[0]).name}:{k[1]}({k[2]})": v for k, v in stats.stats.items()}
    print(f"  total in main() {total:.3f} s CPU. cProfile inflates code made of many small Python calls: numba's"
          " kernel loading below costs ~0.15 s without it (see startup)")
    for label, pattern, which in _CLI_STAGES:
        seconds = sum(v[2] if which == "tottime" else v[3] for k, v in entries.items() if re.search(pattern, k))
        print(f"    {label:45s} {seconds:6.3f} s  {100 * seconds / total:4.0f}%")
    buf = io.StringIO()
    pstats.Stats(os.fspath(out_path), stream=buf).sort_stats("tottime").print_stats(12)
    print("  top entries by own time:")
    for line in buf.getvalue().splitlines():
        if re.match(r"\s+\d", line):
            print("   " + line[:150])


# -- parse ---------------------------------------------------------------------------------------

_POW10 = np.array([10.0**e for e in range(23)])


@njit(inline="always")
def _proto_decimal(buf, i, n, pow10):
    """An unsigned 'ddd.ddd' at buf[i]; returns (value, position after it)."""
    m = 0
    e = 0
    while i < n and 48 <= buf[i] <= 57:
        m = m * 10 + (buf[i] - 48)
        i += 1
    if i < n and buf[i] == 46:
        i += 1
        while i < n and 48 <= buf[i] <= 57:
            m = m * 10 + (buf[i] - 48)
            e += 1
            i += 1
    return m / pow10[e], i


@njit
def _proto_parse(buf, pow10, indptr, indices, data, labels):
    """Minimal LIBSVM parser: 'label idx:d.ddd ...' lines, 1-based indices, no validation."""
    n = buf.size
    i = 0
    row = 0
    k = 0
    while i < n:
        negative = False
        c = buf[i]
        if c == 45 or c == 43:
            negative = c == 45
            i += 1
        value, i = _proto_decimal(buf, i, n, pow10)
        labels[row] = -value if negative else value
        while i < n and buf[i] != 10:
            while i < n and buf[i] == 32:
                i += 1
            if i >= n or buf[i] == 10:
                break
            index = 0
            while 48 <= buf[i] <= 57:
                index = index * 10 + (buf[i] - 48)
                i += 1
            i += 1
            indices[k] = index - 1
            data[k], i = _proto_decimal(buf, i, n, pow10)
            k += 1
        i += 1
        row += 1
        indptr[row] = k
    return row, k


def _kernel_parse(K, arr, indptr, indices, data, labels):
    counts = np.zeros(K.N_COUNTS, np.int64)
    K.parse_libsvm(arr, 0, arr.size, 1, N_FEATURES, indptr.size - 1, indptr, indices, data, labels, None, None,
                   counts, np.empty((16, 2), np.int64), np.empty((256, 4), np.int64))
    assert counts[K.C_STATUS] == K.OK


def section_parse(folder, repeats):
    header("parse: LIBSVM text -> CSR, one process, warm page cache")
    from olearn._kernels import _parse_libsvm as K
    from olearn.data import load_libsvm

    path = folder / "stream.svm"
    raw = path.read_bytes()
    arr = np.frombuffer(raw, dtype=np.uint8)
    n_rows = raw.count(b"\n")
    nnz = raw.count(b":")
    indptr = np.zeros(n_rows + 1, np.int64)
    indices, data, labels = np.empty(nnz, np.int32), np.empty(nnz), np.empty(n_rows)
    mb = arr.size / 1e6
    results = {
        "olearn.data.load_libsvm (whole file)": cpu_best(lambda: load_libsvm(path), repeats),
        "  its kernel parse_libsvm (one call, outputs allocated)": cpu_best(
            lambda: _kernel_parse(K, arr, indptr, indices, data, labels), repeats),
        "minimal numba parser (prototype, no checks)": cpu_best(
            lambda: _proto_parse(arr, _POW10, indptr, indices, data, labels), repeats),
        "sklearn load_svmlight_file (reference)": None,
    }
    from sklearn.datasets import load_svmlight_file

    results["sklearn load_svmlight_file (reference)"] = cpu_best(
        lambda: load_svmlight_file(os.fspath(path), n_features=N_FEATURES, zero_based=False), 1)
    assert (indices == np.load(folder / "indices.npy")).all() and (data == np.load(folder / "data.npy")).all()
    print(f"  file {mb:.0f} MB, {n_rows:,} rows, {nnz:,} values")
    for name, seconds in results.items():
        print(f"    {name:45s} {seconds:6.3f} s  {mb / seconds:6.0f} MB/s")


# -- kernel --------------------------------------------------------------------------------------


@njit
def _minimal_pa1(indptr, indices, data, y, w, C, zero_is_mistake):
    """The C reference's loop, in numba: same arithmetic, same order."""
    mistakes = 0
    for i in range(indptr.size - 1):
        lo, hi = indptr[i], indptr[i + 1]
        dot = 0.0
        sq = 0.0
        for k in range(lo, hi):
            v = data[k]
            dot += w[indices[k]] * v
            sq += v * v
        yi = y[i]
        margin = yi * dot
        if (margin <= 0.0) if zero_is_mistake else ((1.0 if dot > 0.0 else -1.0) != yi):
            mistakes += 1
        if margin < 1.0 and sq > 0.0:
            tau = min(C, (1.0 - margin) / sq)
            a = tau * yi
            for k in range(lo, hi):
                w[indices[k]] += a * data[k]
    return mistakes


_minimal_pa1_fma = njit(fastmath={"contract"})(_minimal_pa1.py_func)

_U1, _U2, _U3, _U4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
_DOWN4 = ~np.uint64(3)


@njit
def _unsigned_step(indices, data, lo, hi, yi, dot, sq, w, C, zero_is_mistake):
    """The C reference's mistake count and PA-I update of one row, at unsigned offsets; returns 1 for a mistake."""
    margin = yi * dot
    mistake = (margin <= 0.0) if zero_is_mistake else ((1.0 if dot > 0.0 else -1.0) != yi)
    if margin < 1.0 and sq > 0.0:
        tau = min(C, (1.0 - margin) / sq)
        a = tau * yi
        for k in range(lo, hi):
            w[np.uint64(indices[k])] += a * data[k]
    return 1 if mistake else 0


@njit
def _minimal_pa1_unsigned(indptr, indices, data, y, w, C, zero_is_mistake):
    """The same loop read at unsigned offsets (no wrap-around of negative indices); LLVM unrolls it eightfold."""
    mistakes = 0
    for i in range(indptr.size - 1):
        lo, hi = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        dot = 0.0
        sq = 0.0
        for k in range(lo, hi):
            v = data[k]
            dot += w[np.uint64(indices[k])] * v
            sq += v * v
        mistakes += _unsigned_step(indices, data, lo, hi, y[i], dot, sq, w, C, zero_is_mistake)
    return mistakes


@njit
def _minimal_pa1_unsigned4(indptr, indices, data, y, w, C, zero_is_mistake):
    """The unsigned loop with the dot product four entries per turn (summed one after the other), as olearn's pass."""
    mistakes = 0
    for i in range(indptr.size - 1):
        lo, hi = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        dot = 0.0
        sq = 0.0
        k = lo
        end = lo + ((hi - lo) & _DOWN4)
        while k < end:
            v0, v1, v2, v3 = data[k], data[k + _U1], data[k + _U2], data[k + _U3]
            dot += w[np.uint64(indices[k])] * v0
            dot += w[np.uint64(indices[k + _U1])] * v1
            dot += w[np.uint64(indices[k + _U2])] * v2
            dot += w[np.uint64(indices[k + _U3])] * v3
            sq += v0 * v0
            sq += v1 * v1
            sq += v2 * v2
            sq += v3 * v3
            k += _U4
        while k < hi:
            v = data[k]
            dot += w[np.uint64(indices[k])] * v
            sq += v * v
            k += _U1
        mistakes += _unsigned_step(indices, data, lo, hi, y[i], dot, sq, w, C, zero_is_mistake)
    return mistakes


def section_kernel(folder, repeats):
    header("kernel: one in-memory PA-I pass, CPU time, interleaved rounds")
    import olearn
    from olearn._kernels import _codes
    from olearn._kernels._binary_linear import binary_linear_pass

    X, y = bench_core.load_csr(folder)
    indptr, indices, data = X.indptr.astype(np.int64), X.indices, X.data
    exe_fast, _ = bench_core.compile_reference(exact=False)
    exe_exact, _ = bench_core.compile_reference(exact=True)
    codes = np.zeros(_codes.N_CODES, np.int64)
    codes[_codes.K_STEP] = _codes.STEP_PA1
    params = np.zeros(_codes.N_PARAMS)
    params[_codes.P_C] = 1.0
    empty = np.empty(0)
    zero_rule = bench_core.olearn_counts_zero_score_as_mistake()

    def olearn_pass(kernel):
        def call():
            totals = np.zeros(_codes.N_TOTALS)
            kernel(indptr, indices, data, y, empty, np.zeros(N_FEATURES + 1), np.array([0.0, 1.0, 0.0]), params,
                   codes, empty, empty, empty, totals)
            return int(totals[_codes.T_MISTAKES])
        return call

    def c_pass(exe):
        def call():
            return bench_core.run_reference(exe, folder / "stream.bin", 1)["cpu"][0]
        return call

    variants = {
        "olearn.run(PAClassifier('pa1'), X, y, record=False)":
            lambda: olearn.run(olearn.PAClassifier(variant="pa1", C=1.0), X, y, record=False).n_mistakes,
        "olearn kernel binary_linear_pass alone": olearn_pass(binary_linear_pass),
        "minimal numba loop (= the C loop)":
            lambda: _minimal_pa1(indptr, indices, data, y, np.zeros(N_FEATURES), 1.0, zero_rule),
        "minimal numba loop, fastmath={'contract'}":
            lambda: _minimal_pa1_fma(indptr, indices, data, y, np.zeros(N_FEATURES), 1.0, zero_rule),
        "minimal numba loop, unsigned offsets":
            lambda: _minimal_pa1_unsigned(indptr, indices, data, y, np.zeros(N_FEATURES), 1.0, zero_rule),
        "minimal numba loop, unsigned, four per turn":
            lambda: _minimal_pa1_unsigned4(indptr, indices, data, y, np.zeros(N_FEATURES), 1.0, zero_rule),
    }
    mistakes = {name: fn() for name, fn in variants.items()}  # also compiles
    assert len(set(mistakes.values())) == 1, mistakes
    times = {name: [] for name in variants}
    times["C -O3 -march=native"] = []
    times["C -O3 -march=native -ffp-contract=off"] = []
    c_calls = {"C -O3 -march=native": c_pass(exe_fast), "C -O3 -march=native -ffp-contract=off": c_pass(exe_exact)}
    for _ in range(repeats):
        for name, fn in variants.items():
            t0 = time.thread_time()
            fn()
            times[name].append(time.thread_time() - t0)
        for name, fn in c_calls.items():
            times[name].append(fn())
    c_best = min(times["C -O3 -march=native"])
    print(f"  {X.shape[0]:,} rows, {X.nnz:,} non-zeros; all variants make {next(iter(mistakes.values())):,} mistakes")
    for name, ts in times.items():
        print(f"    {name:52s} min {1e3 * min(ts):6.1f} ms  median {1e3 * sorted(ts)[len(ts) // 2]:6.1f} ms"
              f"  {min(ts) / c_best:4.2f}x C")
    import scipy.sparse as sp

    from olearn._validation import check_X

    print("  what olearn.run adds around the kernel (the input is already canonical CSR):")
    parts = {
        "check_X (whole)": lambda: check_X(X),
        "  np.isfinite(X.data).all()": lambda: np.isfinite(X.data).all(),
        "  sp.csr_matrix(X).has_canonical_format": lambda: sp.csr_matrix(X).has_canonical_format,
        "np.unique(y) (label discovery)": lambda: np.unique(y),
    }
    for name, fn in parts.items():
        print(f"    {name:52s} {1e3 * cpu_best(fn, repeats):6.2f} ms")


# -- streaming -------------------------------------------------------------------------------------


@njit
def _validate_row(indices, data, capacity):
    """One compiled check of a converted dict row: -1 ok, -2 negative index, -3 non-finite, else needed size."""
    largest = -1
    for k in range(indices.size):
        j = indices[k]
        if j < 0:
            return -2
        if not math.isfinite(data[k]):
            return -3
        if j > largest:
            largest = j
    return -1 if largest < capacity else largest + 1


class FastPath:
    """Prototype of a leaner learn_one / predict_one over olearn's own kernels and state.

    Dict conversion with two ``np.fromiter`` calls, validation in one compiled
    call, no context manager, the label mapped with a Python comparison. The
    combined call scores with ``score_row`` and learns with ``learn_one_row``
    on the same converted arrays. (Not a drop-in: it skips the checks that a
    float or string key is rejected; ``np.fromiter`` to an integer dtype
    truncates a float key, which a real implementation must still refuse.)
    """

    def __init__(self, est):
        from olearn._kernels._binary_linear import learn_one_row, score_row

        self.est, self.learn_one_row, self.score_row = est, learn_one_row, score_row

    def _row(self, x):
        n = len(x)
        indices = np.fromiter(x.keys(), dtype=np.int32, count=n)
        data = np.fromiter(x.values(), dtype=np.float64, count=n)
        status = _validate_row(indices, data, self.est._w.size - 1)
        if status >= 0:
            self.est._grow(int(status), "x")
        elif status != -1:
            raise ValueError("bad row")
        return indices, data

    def _decode(self, score):
        classes = self.est._labels.classes
        return classes[1] if score > 0.0 else classes[0]

    def predict_one(self, x):
        est = self.est
        indices, data = self._row(x)
        score = self.score_row(indices, data, 0, indices.size, est._w, est._state, est._config[1])
        return self._decode(score)

    def learn_one(self, x, y, _return_prediction=False):
        est = self.est
        indices, data = self._row(x)
        codes, params = est._config
        score = self.score_row(indices, data, 0, indices.size, est._w, est._state, params) if _return_prediction else 0
        self.learn_one_row(indices, data, est._labels.target(y), 1.0, est._w, est._state, params, codes)
        return self._decode(score) if _return_prediction else None


def section_streaming(n, repeats):
    header("streaming: learn_one / predict_one on dicts of 100 features")
    from river import linear_model

    import olearn
    from olearn._kernels._binary_linear import learn_one_row, score_row
    from olearn._validation import check_row

    rows, labels = bench_core.make_dict_stream(n)
    est = olearn.PAClassifier(variant="pa1", C=1.0)
    for x, t in zip(rows[:200], labels[:200]):
        est.learn_one(x, t)
    x, t = rows[5], labels[5]
    indices, data, _ = check_row(x)
    codes, params = est._config_arrays()
    ns = dict(est=est, x=x, t=t, check_row=check_row, learn_one_row=learn_one_row, score_row=score_row, np=np,
              indices=indices, data=data, codes=codes, params=params)
    pieces = [
        ("est.learn_one(x, y)", "est.learn_one(x, t)"),
        ("est.predict_one(x)", "est.predict_one(x)"),
        ("  check_row(x) (dict -> arrays, validated)", "check_row(x)"),
        ("    np.array(list(x)) (keys, dtype inferred)", "np.array(list(x))"),
        ("    np.fromiter(x.values(), float64)", "np.fromiter(x.values(), dtype=np.float64, count=100)"),
        ("    np.fromiter(x.keys(), int32) (alternative for keys)", "np.fromiter(x.keys(), dtype=np.int32, count=100)"),
        ("  est._config_arrays()", "est._config_arrays()"),
        ("  learn_one_row(...) (compiled kernel, incl. dispatch)",
         "learn_one_row(indices, data, 1.0, 1.0, est._w, est._state, params, codes)"),
        ("  score_row(...) (compiled kernel, incl. dispatch)",
         "score_row(indices, data, 0, indices.size, est._w, est._state, params)"),
        ("  with est._first_call_atomic(): pass", "with est._first_call_atomic(): pass"),
        ("  an empty Python method call, for scale", "est._check_started()"),
    ]
    print("  per call, one dict of 100 features (timeit, best of 5):")
    for label, stmt in pieces:
        try:
            print(f"    {label:55s} {per_call_us(stmt, ns):6.2f} us")
        except Exception as err:  # noqa: BLE001 - olearn internals move; report and go on
            print(f"    {label:55s}    n/a ({err!r})")

    river_labels = [v > 0 for v in labels]

    def loop_river():
        model = linear_model.PAClassifier(C=1.0, mode=1, learn_intercept=False)
        model.learn_one(rows[0], river_labels[0])
        for xi, yi in zip(rows[1:], river_labels[1:]):
            model.predict_one(xi)
            model.learn_one(xi, yi)

    def loop_olearn():
        e = olearn.PAClassifier(variant="pa1", C=1.0)
        e.learn_one(rows[0], labels[0])
        for xi, yi in zip(rows[1:], labels[1:]):
            e.predict_one(xi)
            e.learn_one(xi, yi)

    def loop_fast(combined):
        def run():
            e = olearn.PAClassifier(variant="pa1", C=1.0)
            e.learn_one(rows[0], labels[0])
            e.learn_one(rows[1], labels[1] if labels[1] != labels[0] else -labels[0])  # both classes known
            fast = FastPath(e)
            for xi, yi in zip(rows[2:], labels[2:]):
                if combined:
                    fast.learn_one(xi, yi, _return_prediction=True)
                else:
                    fast.predict_one(xi)
                    fast.learn_one(xi, yi)
        return run

    loops = {
        "River PAClassifier predict_one + learn_one": loop_river,
        "olearn predict_one + learn_one (now)": loop_olearn,
        "prototype: lean predict_one + learn_one": loop_fast(False),
        "prototype: one call, dict converted once": loop_fast(True),
    }
    best = {}
    for name, fn in loops.items():
        try:
            best[name] = cpu_best(fn, repeats)
        except Exception as err:  # noqa: BLE001 - the prototype leans on olearn internals
            print(f"    {name}: n/a ({err!r})")
    river = best["River PAClassifier predict_one + learn_one"]
    print(f"  whole progressive loop over {n:,} dict rows (CPU, best of {repeats}):")
    for name, seconds in best.items():
        print(f"    {name:55s} {1e6 * seconds / n:6.2f} us/row  {river / seconds:5.1f}x River")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="startup,cli,parse,kernel,streaming")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="the 20,000-row stream and 5,000 dict rows")
    args = parser.parse_args(argv)
    sections = args.only.split(",")
    folder = make_data.ensure(rows=20_000 if args.quick else 200_000)
    print(f"load average at start: {os.getloadavg()}")
    if "startup" in sections:
        section_startup(args.repeats)
    if "cli" in sections:
        section_cli(folder)
    if "parse" in sections:
        section_parse(folder, args.repeats)
    if "kernel" in sections:
        section_kernel(folder, max(args.repeats, 7))
    if "streaming" in sections:
        section_streaming(5_000 if args.quick else 20_000, args.repeats)
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
