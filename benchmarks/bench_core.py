"""Core speed benchmarks of olearn against fixed anchors.

1. in-memory pass: ``olearn.run(PAClassifier("pa1"), X, y, record=False)`` vs a
   plain C loop doing the same PA-I pass (``pa1_reference.c``). Mistake counts
   must be identical and the final weights equal to the C ones within 1e-9.
2. end to end from a text file, each a fresh process timed from start to exit:
   ``olearn run --algo pa1 stream.svm`` vs Vowpal Wabbit on ``stream.vw``, and
   vs scikit-learn (``load_svmlight_file`` + a one-pass PA-I fit).
3. streaming API: ``predict_one`` + ``learn_one`` on dict rows of 100 features,
   olearn vs River's ``linear_model.PAClassifier(C=1.0, mode=1)``.
4. warm start: ``olearn run --algo pa1`` on a 1,000-row file.

Every timing is the best of ``--repeats`` runs after one warm-up run, in wall
time (what the targets use) and CPU time (less disturbed by other processes);
the JSON keeps all of them so the noise can be judged. See README.md.

    python benchmarks/bench_core.py            # full: ~3 minutes (plus ~10 s to generate the data once)
    python benchmarks/bench_core.py --quick    # 20,000 rows: a ~1 minute smoke test
"""

import argparse
import functools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.fspath(HERE))

import make_data  # noqa: E402

WORK = make_data.WORK
N_FEATURES = 2**18
C = 1.0

# -- timing helpers -------------------------------------------------------------


def best_of(fn, repeats, warmup=1):
    """Run ``fn`` ``warmup`` times untimed, then ``repeats`` times.

    Returns ({"best", "times", "cpu"}, last result): wall times, and the CPU
    time of this thread, which other processes on a busy machine disturb less.
    """
    result = None
    for _ in range(warmup):
        result = fn()
    walls, cpus = [], []
    for _ in range(repeats):
        c0, t0 = time.thread_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.thread_time() - c0)
    return {"best": min(walls), "times": walls, "cpu": cpus}, result


def best_of_interleaved(fns, repeats, warmup=1):
    """``best_of`` for several functions (name -> fn) run in turn, round by round.

    Returns (name -> {"best", "times", "cpu"}, name -> last result): the round-robin order
    makes a burst of load from other processes hit every function alike.
    """
    results = {}
    for _ in range(warmup):
        for name, fn in fns.items():
            results[name] = fn()
    timings = {name: {"times": [], "cpu": []} for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            c0, t0 = time.thread_time(), time.perf_counter()
            results[name] = fn()
            timings[name]["times"].append(time.perf_counter() - t0)
            timings[name]["cpu"].append(time.thread_time() - c0)
    for timing in timings.values():
        timing["best"] = min(timing["times"])
    return timings, results


# Runs a command and writes its wall time, CPU time, peak RSS (KiB) and exit code to argv[1]. A
# process's peak RSS counts the memory of the process that forked it, so the command is started
# from this small launcher rather than from the benchmark, whose arrays would be counted instead.
LAUNCHER = r"""
import os, subprocess, sys, time
t0 = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - t0
with open(sys.argv[1], "w") as out:
    out.write(f"{wall!r} {usage.ru_utime + usage.ru_stime!r} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_process(cmd, env=None):
    """Run ``cmd`` to exit; return (wall seconds, CPU seconds, peak RSS bytes, completed process).

    The times and the peak resident memory are the process's own, from process start to exit
    (``wait4`` in ``LAUNCHER``). Raises on failure.
    """
    with tempfile.TemporaryDirectory() as tmp:
        files = {name: Path(tmp) / name for name in ("usage", "out", "err")}
        with open(files["out"], "wb") as out, open(files["err"], "wb") as err:
            subprocess.run([sys.executable, "-c", LAUNCHER, os.fspath(files["usage"]), *map(os.fspath, cmd)],
                           stdout=out, stderr=err, env=env, check=True)
        wall, cpu, rss_kib, code = files["usage"].read_text().split()
        proc = subprocess.CompletedProcess(cmd, int(code), files["out"].read_text(), files["err"].read_text())
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return float(wall), float(cpu), int(rss_kib) * 1024, proc


def byte_compile_olearn(src=None):
    """Write the bytecode of olearn's modules (those imported, or those under ``src``), as an install does: without
    it (``PYTHONDONTWRITEBYTECODE``, set on the project's machine) every start compiles olearn's sources."""
    import compileall
    import importlib.util

    folder = Path(importlib.util.find_spec("olearn").origin).parent if src is None else Path(src)
    compileall.compile_dir(os.fspath(folder), quiet=1)


def time_processes(cmds, repeats, warmup=1, env=None):
    """Time the commands of ``cmds`` (name -> argv) ``repeats`` times each, interleaved round by round.

    One untimed warm-up round first. Returns (name -> {"best", "times", "cpu", "peak_rss"},
    name -> the last completed process); the round-robin order makes a burst of load from
    other processes hit every command alike.
    """
    last = {}
    for _ in range(warmup):
        for name, cmd in cmds.items():
            last[name] = run_process(cmd, env=env)[3]
    timings = {name: {"times": [], "cpu": [], "peak_rss": []} for name in cmds}
    for _ in range(repeats):
        for name, cmd in cmds.items():
            wall, cpu, rss, last[name] = run_process(cmd, env=env)
            timings[name]["times"].append(wall)
            timings[name]["cpu"].append(cpu)
            timings[name]["peak_rss"].append(rss)
    for timing in timings.values():
        timing["best"] = min(timing["times"])
    return timings, last


def spread(times):
    """(slowest / fastest - 1): how noisy a set of repeats was."""
    return max(times) / min(times) - 1.0


def fmt_s(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


# -- 1. in-memory pass vs C -------------------------------------------------------


def compile_reference(exact):
    """Compile pa1_reference.c; ``exact`` adds -ffp-contract=off (no FMA: bit-identical to olearn)."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise SystemExit("a C compiler (gcc) is needed for the reference loop")
    out = WORK / ("pa1_reference_exact" if exact else "pa1_reference")
    flags = ["-O3", "-march=native"] + (["-ffp-contract=off"] if exact else [])
    subprocess.run([gcc, *flags, "-o", os.fspath(out), os.fspath(HERE / "pa1_reference.c")], check=True)
    return out, " ".join(flags)


@functools.cache
def olearn_counts_zero_score_as_mistake():
    """Which mistake rule the installed olearn applies (the C reference must use the same).

    Row 0 has score 0 (w = 0) and label -1: a mistake only if a zero score always counts as one.
    """
    import olearn

    res = olearn.run(olearn.PAClassifier(variant="pa1", C=C), np.array([[1.0], [1.0]]), np.array([-1, 1]),
                     record=False)
    return res.n_mistakes == 2


def run_reference(exe, stream_bin, repeats, weights_out=None):
    cmd = [os.fspath(exe), os.fspath(stream_bin), "-C", repr(C), "-r", str(repeats + 1)]
    if weights_out is not None:
        cmd += ["-w", os.fspath(weights_out)]
    if not olearn_counts_zero_score_as_mistake():
        cmd.append("-s")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    runs = [dict(kv.split("=") for kv in line.split()) for line in out.strip().splitlines()]
    runs = runs[1:]  # the first pass warms the caches
    times = [float(r["seconds"]) for r in runs]
    return {"best": min(times), "times": times, "cpu": [float(r["cpu"]) for r in runs],
            "mistakes": int(runs[-1]["mistakes"]), "updates": int(runs[-1]["updates"])}


def load_csr(folder):
    import scipy.sparse as sp

    indptr = np.load(folder / "indptr.npy")
    X = sp.csr_matrix(
        (np.load(folder / "data.npy"), np.load(folder / "indices.npy"), indptr),
        shape=(indptr.size - 1, N_FEATURES),
    )
    return X, np.load(folder / "y.npy")


def bench_in_memory(folder, repeats):
    """Section 1. The measurements are interleaved round by round (C, C exact, olearn, olearn with
    ``record=True``, kernel, checks), so that a burst of load from other processes hits all of them alike."""
    import olearn

    X, y = load_csr(folder)
    exe_fast, flags_fast = compile_reference(exact=False)
    exe_exact, flags_exact = compile_reference(exact=True)
    w_path = WORK / "pa1_reference_weights.bin"
    stream_bin = folder / "stream.bin"

    # Warm: compile (or load from the numba cache) on a few rows first.
    olearn.run(olearn.PAClassifier(variant="pa1", C=C), X[:10], y[:10], record=False)
    holder = {}

    def one_run():
        est = olearn.PAClassifier(variant="pa1", C=C)
        res = olearn.run(est, X, y, record=False)
        holder["est"], holder["res"] = est, res

    one_run()

    def recording_run():
        res = olearn.run(olearn.PAClassifier(variant="pa1", C=C), X, y, record=True)
        holder["recorded_mistakes"] = res.n_mistakes

    python_parts = {"olearn": one_run, "olearn_record": recording_run}
    # The compiled pass alone (input already in kernel form): the rest of run() is input checking.
    # This reaches into olearn's internals, which move; if they moved, only this part is skipped.
    try:
        from olearn._kernels import _codes
        from olearn._kernels._binary_linear import binary_linear_pass
        from olearn._validation import check_X

        arrays = check_X(X)
        codes, params = holder["est"]._config_arrays()
        targets = np.where(y > 0, 1.0, -1.0)
        empty = np.empty(0)

        def kernel_only():
            w = np.zeros(N_FEATURES + 1)
            state = np.array([0.0, 1.0, 0.0])
            totals = np.zeros(_codes.N_TOTALS)
            binary_linear_pass(arrays.indptr, arrays.indices, arrays.data, targets, empty, w, state, params, codes,
                               empty, empty, empty, totals)

        kernel_only()
        python_parts.update(olearn_kernel_only=kernel_only, olearn_check_X=lambda: check_X(X))
    except Exception as err:  # noqa: BLE001 - a diagnostic, not a measurement the targets need
        print(f"  (kernel-only timing skipped: olearn internals changed: {err!r})", file=sys.stderr)
    timings = {name: {"times": [], "cpu": []} for name in ("c", "c_exact", *python_parts)}
    # (olearn_kernel_only / olearn_check_X are absent when skipped above)
    c_runs = {}
    for _ in range(repeats):
        for name, exe, w_out in (("c", exe_fast, None), ("c_exact", exe_exact, w_path)):
            c_runs[name] = run_reference(exe, stream_bin, 1, weights_out=w_out)
            timings[name]["times"] += c_runs[name]["times"]
            timings[name]["cpu"] += c_runs[name]["cpu"]
        for name, fn in python_parts.items():
            c0, t0 = time.thread_time(), time.perf_counter()
            fn()
            timings[name]["times"].append(time.perf_counter() - t0)
            timings[name]["cpu"].append(time.thread_time() - c0)
    for t in timings.values():
        t["best"] = min(t["times"])
    res = holder["res"]
    w_olearn = holder["est"].coef_.ravel()
    w_c = np.fromfile(w_path)
    max_diff = float(np.abs(w_olearn - w_c).max())
    assert res.n_mistakes == c_runs["c_exact"]["mistakes"], (res.n_mistakes, c_runs["c_exact"]["mistakes"])
    assert holder["recorded_mistakes"] == res.n_mistakes, (holder["recorded_mistakes"], res.n_mistakes)
    assert max_diff <= 1e-9, max_diff
    return {
        "rows": int(y.size), "nnz": int(X.nnz),
        "olearn": {**timings["olearn"], "mistakes": res.n_mistakes, "updates": res.n_updates},
        "olearn_record": {**timings["olearn_record"], "mistakes": holder["recorded_mistakes"]},
        "olearn_kernel_only": timings.get("olearn_kernel_only"),
        "olearn_check_X": timings.get("olearn_check_X"),
        "mistake_rule": "y*score <= 0" if olearn_counts_zero_score_as_mistake() else "sign(score) != y",
        "c": {**timings["c"], "flags": flags_fast, "mistakes": c_runs["c"]["mistakes"],
              "updates": c_runs["c"]["updates"]},
        "c_exact": {**timings["c_exact"], "flags": flags_exact, "mistakes": c_runs["c_exact"]["mistakes"],
                    "updates": c_runs["c_exact"]["updates"]},
        "max_abs_weight_diff_vs_c": max_diff,
        "weights_bit_identical": bool((w_olearn == w_c).all()),
    }


# -- 2. end to end from text ---------------------------------------------------------

VW_SNIPPET = r"""
import json, sys, time
t0 = time.perf_counter()
import vowpalwabbit
t1 = time.perf_counter()
ws = vowpalwabbit.Workspace(arg_list=sys.argv[1:])
t2 = time.perf_counter()
n, loss = ws.get_weighted_examples(), ws.get_sum_loss()
ws.finish()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "vw": t3 - t1, "pass": t2 - t1, "examples": n, "avg_loss": loss / max(n, 1)}))
"""

SKLEARN_SNIPPET = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier
t1 = time.perf_counter()
X, y = load_svmlight_file(sys.argv[1], n_features=int(sys.argv[2]), zero_based=False)
# The loader returns int64 index arrays here, which SGDClassifier refuses: convert (part of the pipeline's cost).
X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
t2 = time.perf_counter()
# PA-I exactly (Crammer et al. 2006): hinge loss, tau = min(C, l / ||x||^2) with C = eta0, one ordered pass.
clf = SGDClassifier(loss="hinge", penalty=None, learning_rate="pa1", eta0=float(sys.argv[3]),
                    fit_intercept=False, shuffle=False, average=False)
clf.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
t3 = time.perf_counter()
np.save(sys.argv[4], clf.coef_.ravel())
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "fit": t3 - t2}))
"""

NUMBA_FLOOR = "import numpy, numba"
STARTUP_SNIPPETS = {
    "python -c pass": "pass",
    "python -c 'import olearn'": "import olearn",
}

# Vowpal Wabbit settings: one pass, hinge loss, no constant feature (olearn's PA-I has
# no intercept), 2^18 weights (our features map one-to-one, see make_data.py), no cache
# file (it would make a second run skip the text parsing), --binary so that the
# reported progressive loss is VW's 0/1 mistake rate.
VW_COMMON = ["--loss_function", "hinge", "--noconstant", "-b", "18", "--binary", "--quiet"]
VW_CONFIGS = {
    "vw --sgd": ["--sgd"],  # plain additive SGD: the closest to PA-I's update, and VW's cheapest
    "vw default": [],  # adaptive + normalized + invariant updates: what VW users run
}


def olearn_cli():
    """The command that starts the olearn CLI, or None if it is not there yet."""
    exe = Path(sys.executable).with_name("olearn")
    if exe.exists():
        return [os.fspath(exe)]
    found = shutil.which("olearn")
    return [found] if found else None


def parse_mistakes(text):
    """Best-effort: the number of mistakes in the CLI summary, or None."""
    for pattern in (r"mistakes\D{0,20}?(\d[\d,]*)", r"(\d[\d,]*)\s+mistakes"):
        found = re.findall(pattern, text, flags=re.IGNORECASE)
        if found:
            return int(found[-1].replace(",", ""))
    return None


def bench_end_to_end(folder, repeats, expected_mistakes):
    """Section 2: each command a fresh process, interleaved round by round (``time_processes``)."""
    py = sys.executable
    cmds = {name: [py, "-c", code] for name, code in STARTUP_SNIPPETS.items()}
    cli = olearn_cli()
    if cli is not None:
        cmds["olearn"] = cli + ["run", "--algo", "pa1", os.fspath(folder / "stream.svm")]
    for name, flags in VW_CONFIGS.items():
        cmds[name] = [py, "-c", VW_SNIPPET, "-d", os.fspath(folder / "stream.vw"), *VW_COMMON, *flags]
    coef_path = WORK / "sklearn_coef.npy"
    cmds["sklearn"] = [py, "-c", SKLEARN_SNIPPET, os.fspath(folder / "stream.svm"), str(N_FEATURES), repr(C),
                       os.fspath(coef_path)]
    out, procs = time_processes(cmds, repeats)

    if cli is None:
        out["olearn"] = None
    else:
        text = procs["olearn"].stdout + procs["olearn"].stderr
        out["olearn"].update(cmd=" ".join(cmds["olearn"]), mistakes=parse_mistakes(text), output_tail=text[-1500:])
        out["olearn"]["mistakes_match_in_memory"] = out["olearn"]["mistakes"] == expected_mistakes
    for name in VW_CONFIGS:
        out[name]["cmd"] = "vowpalwabbit.Workspace('" + " ".join(cmds[name][3:]) + "')"
        out[name]["inner"] = json.loads(procs[name].stdout.strip().splitlines()[-1])
    out["sklearn"]["inner"] = json.loads(procs["sklearn"].stdout.strip().splitlines()[-1])
    w_c = np.fromfile(WORK / "pa1_reference_weights.bin")
    out["sklearn"]["max_abs_weight_diff_vs_c"] = float(np.abs(np.load(coef_path) - w_c).max())
    return out


# -- 3. streaming API ---------------------------------------------------------------------


def make_dict_stream(n, n_active=100, seed=1):
    """``n`` dict rows {index: value} of ``n_active`` features (L2-normalised) and -1/+1 labels."""
    rng = np.random.default_rng(seed)
    idx = make_data._sample_indices(rng, n, N_FEATURES, n_active)
    val = rng.lognormal(0.0, 0.75, size=(n, n_active))
    val /= np.sqrt((val * val).sum(axis=1, keepdims=True))
    w_star = np.where(rng.random(N_FEATURES) < 0.25, rng.standard_normal(N_FEATURES), 0.0)
    y = np.where((w_star[idx] * val).sum(axis=1) > 0, 1, -1)
    y[rng.random(n) < 0.05] *= -1
    rows = [dict(zip(i, v)) for i, v in zip(idx.tolist(), val.tolist())]
    return rows, y.tolist()


def bench_streaming(rows, labels, repeats):
    """Section 3 on the dict rows ``rows`` ({index: value}, indices below N_FEATURES) and -1/+1 ``labels``."""
    from river import linear_model

    import olearn

    n = len(rows)
    river_labels = [t > 0 for t in labels]

    def olearn_loop():
        est = olearn.PAClassifier(variant="pa1", C=C)
        est.learn_one(rows[0], labels[0])
        mistakes = 0
        for x, t in zip(rows[1:], labels[1:]):
            if est.predict_one(x) != t:
                mistakes += 1
            est.learn_one(x, t)
        return mistakes, est

    def olearn_combined_loop():
        est = olearn.PAClassifier(variant="pa1", C=C)
        est.learn_one(rows[0], labels[0])
        mistakes = 0
        for x, t in zip(rows[1:], labels[1:]):
            if est.predict_learn_one(x, t) != t:
                mistakes += 1
        return mistakes, est

    def river_loop():
        model = linear_model.PAClassifier(C=C, mode=1, learn_intercept=False)
        model.learn_one(rows[0], river_labels[0])
        mistakes = 0
        for x, t in zip(rows[1:], river_labels[1:]):
            if model.predict_one(x) != t:
                mistakes += 1
            model.learn_one(x, t)
        return mistakes, model

    o_timing, (o_mistakes, est) = best_of(olearn_loop, repeats)
    c_timing, (c_mistakes, combined) = best_of(olearn_combined_loop, repeats)
    if c_mistakes != o_mistakes or not np.array_equal(combined.coef_, est.coef_):
        raise AssertionError("predict_learn_one disagrees with predict_one + learn_one")
    r_timing, (r_mistakes, model) = best_of(river_loop, repeats)
    o_best, r_best = o_timing["best"], r_timing["best"]
    w_river = np.zeros(N_FEATURES)
    for k, v in model.weights.items():
        w_river[k] = v
    w_olearn = np.zeros(N_FEATURES)
    w_olearn[: est.coef_.shape[1]] = est.coef_.ravel()
    rounds = n - 1
    return {
        "rows": n, "features_per_row": round(sum(map(len, rows)) / n, 1),
        "olearn": {**o_timing, "mistakes": o_mistakes, "rows_per_s": rounds / o_best,
                   "us_per_row": 1e6 * o_best / rounds},
        "olearn_combined": {**c_timing, "rows_per_s": rounds / c_timing["best"],
                            "us_per_row": 1e6 * c_timing["best"] / rounds},
        "river": {**r_timing, "mistakes": r_mistakes, "rows_per_s": rounds / r_best,
                  "us_per_row": 1e6 * r_best / rounds},
        "max_abs_weight_diff": float(np.abs(w_olearn - w_river).max()),
    }


# -- 4. warm start ---------------------------------------------------------------------------


def bench_warm_start(repeats, cold_repeats=1, rows=1000):
    """Section 4: ``olearn run --algo pa1`` on a ``rows``-row file after a warm-up run, interleaved with
    ``python -c "import numpy, numba"`` (the floor of any numba program's start-up); then
    ``cold_repeats`` first runs, each with an empty numba cache."""
    folder = make_data.ensure(rows=rows, verbose=False)
    cli = olearn_cli()
    if cli is None:
        return None
    cmd = cli + ["run", "--algo", "pa1", os.fspath(folder / "stream.svm")]
    timings, procs = time_processes({"olearn": cmd, "import numpy, numba": [sys.executable, "-c", NUMBA_FLOOR]},
                                    repeats)
    res = {**timings["olearn"], "rows": rows, "cmd": " ".join(cmd), "import_numpy_numba": timings["import numpy, numba"],
           "mistakes": parse_mistakes(procs["olearn"].stdout + procs["olearn"].stderr)}
    if cold_repeats:
        # The first run after installing: an empty numba cache (in a private folder, so the
        # tree's own cache is untouched), hence every kernel the command needs is compiled.
        walls, cpus = [], []
        for _ in range(cold_repeats):
            with tempfile.TemporaryDirectory() as cache:
                wall, cpu, _, _ = run_process(cmd, env={**os.environ, "NUMBA_CACHE_DIR": cache})
            walls.append(wall)
            cpus.append(cpu)
        res["cold"] = {"best": min(walls), "times": walls, "cpu": cpus}
    return res


# -- report ------------------------------------------------------------------------------------


def summary_rows(results):
    rows = []

    def add(name, olearn, anchor, ratio, target, met, note=""):
        rows.append({"measurement": name, "olearn": olearn, "anchor": anchor, "ratio": ratio, "target": target,
                     "met": met, "note": note})

    mem = results.get("in_memory")
    if mem:
        r = mem["olearn"]["best"] / mem["c"]["best"]
        add("1. in-memory PA-I pass, time", fmt_s(mem["olearn"]["best"]), f"C {fmt_s(mem['c']['best'])}",
            f"{r:.2f}x", "<= 1.3x", r <= 1.3)
        r_cpu = min(mem["olearn"]["cpu"]) / min(mem["c"]["cpu"])
        add("   same, CPU time instead of wall", fmt_s(min(mem["olearn"]["cpu"])), f"C {fmt_s(min(mem['c']['cpu']))}",
            f"{r_cpu:.2f}x", "(info)", None)
        r_rec = mem["olearn_record"]["best"] / mem["c"]["best"]
        add("1. same with record=True", fmt_s(mem["olearn_record"]["best"]), f"C {fmt_s(mem['c']['best'])}",
            f"{r_rec:.2f}x", "<= 1.5x", r_rec <= 1.5)
        r_exact = mem["olearn"]["best"] / mem["c_exact"]["best"]
        add("   same, vs C without FMA", fmt_s(mem["olearn"]["best"]), f"C {fmt_s(mem['c_exact']['best'])}",
            f"{r_exact:.2f}x", "(info)", None)
        if mem["olearn_kernel_only"]:
            rk = mem["olearn_kernel_only"]["best"] / mem["c"]["best"]
            add("   olearn kernel alone (no input checks)", fmt_s(mem["olearn_kernel_only"]["best"]),
                f"C {fmt_s(mem['c']['best'])}", f"{rk:.2f}x", "(info)", None)
        add("1. in-memory mistakes", str(mem["olearn"]["mistakes"]), f"C {mem['c_exact']['mistakes']}",
            "equal" if mem["olearn"]["mistakes"] == mem["c_exact"]["mistakes"] else "DIFFER", "equal",
            mem["olearn"]["mistakes"] == mem["c_exact"]["mistakes"])
        add("1. final weights, max |diff|", f"{mem['max_abs_weight_diff_vs_c']:.1e}", "C", "", "<= 1e-9",
            mem["max_abs_weight_diff_vs_c"] <= 1e-9)

    e2e = results.get("end_to_end")
    if e2e:
        o = e2e.get("olearn")
        for name in VW_CONFIGS:
            vw = e2e[name]
            if o:
                r = o["best"] / vw["best"]
                add(f"2. end to end vs {name}", fmt_s(o["best"]), fmt_s(vw["best"]), f"{r:.2f}x", "<= 0.8x", r <= 0.8)
            else:
                add(f"2. end to end vs {name}", "n/a (no CLI)", fmt_s(vw["best"]), "", "<= 0.8x", None)
        if o:
            vw = e2e["vw --sgd"]
            r = min(o["cpu"]) / min(vw["cpu"])
            add("   same vs vw --sgd, CPU time (VW: 2 threads)", fmt_s(min(o["cpu"])), fmt_s(min(vw["cpu"])),
                f"{r:.2f}x", "(info)", None)
            start = e2e["python -c 'import olearn'"]
            add("   of which: python -c 'import olearn'", fmt_s(start["best"]), "", "", "(info)", None)
        sk = e2e["sklearn"]
        if o:
            r = sk["best"] / o["best"]
            add("2. end to end vs sklearn load_svmlight+PA-I", fmt_s(o["best"]), fmt_s(sk["best"]),
                f"{r:.1f}x faster", ">= 5x faster", r >= 5.0)
        else:
            add("2. end to end vs sklearn load_svmlight+PA-I", "n/a (no CLI)", fmt_s(sk["best"]), "", ">= 5x", None)

    st = results.get("streaming")
    if st:
        r = st["olearn"]["rows_per_s"] / st["river"]["rows_per_s"]
        add("3. streaming predict_one+learn_one, rows/s", f"{st['olearn']['rows_per_s']:,.0f}",
            f"River {st['river']['rows_per_s']:,.0f}", f"{r:.1f}x", ">= 10x", r >= 10.0)
        rc = st["olearn_combined"]["rows_per_s"] / st["river"]["rows_per_s"]
        add("   same with predict_learn_one, rows/s", f"{st['olearn_combined']['rows_per_s']:,.0f}",
            f"River {st['river']['rows_per_s']:,.0f}", f"{rc:.1f}x", ">= 10x", rc >= 10.0)

    ws = results.get("warm_start")
    if ws is not None:
        add("4. warm start, 1,000-row file, wall", fmt_s(ws["best"]), "", "", "< 2 s", ws["best"] < 2.0)
        add("   same, CPU time of the process", fmt_s(min(ws["cpu"])), "", "", "(info)", None)
        floor = ws["import_numpy_numba"]["best"]
        add("   vs python -c 'import numpy, numba'", fmt_s(ws["best"]), fmt_s(floor), f"{ws['best'] / floor:.2f}x",
            "(info)", None)
        if "cold" in ws:
            add("   cold start (empty numba cache), wall", fmt_s(ws["cold"]["best"]), "", "", "(info)", None)
    elif "warm_start" in results:
        add("4. warm start, 1,000-row file, wall", "n/a (no CLI)", "", "", "< 2 s", None)
    return rows


def print_table(rows):
    headers = ["measurement", "olearn", "anchor", "ratio", "target", "met?"]
    table = [[r["measurement"], r["olearn"], r["anchor"], r["ratio"], r["target"],
              {True: "yes", False: "NO", None: ""}[r["met"]]] for r in rows]
    widths = [max(len(h), *(len(row[i]) for row in table)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line)
    print("-" * len(line))
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


def print_details(results):
    def times(d):
        text = ", ".join(fmt_s(t) for t in d["times"]) + f"  (spread {100 * spread(d['times']):.0f}%)"
        if "cpu" in d:
            text += f"  cpu best {fmt_s(min(d['cpu']))}"
        return text

    print("\nall repeats (best is used; spread = slowest/fastest - 1):")
    mem = results.get("in_memory")
    if mem:
        print(f"  in-memory rows={mem['rows']:,} nnz={mem['nnz']:,}")
        for key, label in (("olearn", "olearn.run"), ("olearn_record", "olearn.run, record=True"),
                           ("olearn_kernel_only", "kernel only"),
                           ("olearn_check_X", "check_X only"), ("c", f"C {mem['c']['flags']}"),
                           ("c_exact", f"C {mem['c_exact']['flags']}")):
            if mem[key]:
                print(f"    {label:40s} {times(mem[key])}")
        print(f"    weights bit-identical to C without FMA: {mem['weights_bit_identical']};"
              f" mistakes olearn {mem['olearn']['mistakes']}, C {mem['c']['mistakes']} (FMA),"
              f" C {mem['c_exact']['mistakes']} (no FMA); mistake rule {mem['mistake_rule']}")
    e2e = results.get("end_to_end")
    if e2e:
        print("  end to end (wall from process start; cpu = user+sys of the process):")
        for key, d in e2e.items():
            if not d:
                continue
            extra = ""
            if "inner" in d:
                extra = "  inner: " + ", ".join(
                    f"{k}={fmt_s(v)}" if k in ("import", "vw", "pass", "load", "fit") else f"{k}={v:g}"
                    for k, v in d["inner"].items())
            print(f"    {key:40s} {times(d)}{extra}")
        if e2e.get("olearn"):
            print(f"    olearn CLI mistakes parsed from its output: {e2e['olearn']['mistakes']}")
        print(f"    sklearn final weights vs C: max |diff| {e2e['sklearn']['max_abs_weight_diff_vs_c']:.1e}")
    st = results.get("streaming")
    if st:
        print(f"  streaming rows={st['rows']:,}: olearn {st['olearn']['us_per_row']:.1f} us/row {times(st['olearn'])};"
              f" River {st['river']['us_per_row']:.1f} us/row {times(st['river'])}")
        print(f"    mistakes olearn {st['olearn']['mistakes']}, River {st['river']['mistakes']};"
              f" weights max |diff| {st['max_abs_weight_diff']:.1e}")
    ws = results.get("warm_start")
    if ws:
        print(f"  warm start: {times(ws)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 rows and 5,000 dict rows instead of 200,000 / 50,000")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats per measurement (best is reported)")
    parser.add_argument("--memory-repeats", type=int, default=10,
                        help="timed repeats of the in-memory pass (section 1: cheap, so more of them)")
    parser.add_argument("--only", default="1,2,3,4", help="comma-separated sections to run, e.g. 1,3")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-start run of section 4 (it compiles every kernel)")
    parser.add_argument("--json", default=os.fspath(WORK / "results.json"), help="where to write the results")
    args = parser.parse_args(argv)
    sections = {int(s) for s in args.only.split(",")}

    rows = 20_000 if args.quick else 200_000
    stream_rows = 5_000 if args.quick else 50_000
    folder = make_data.ensure(rows=rows)
    results = {
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "python": platform.python_version(), "loadavg_start": os.getloadavg()},
        "config": {"quick": args.quick, "repeats": args.repeats, "memory_repeats": args.memory_repeats, "rows": rows, "stream_rows": stream_rows,
                   "data": os.fspath(folder)},
    }
    expected = None
    if 1 in sections:
        print("1. in-memory pass ...", file=sys.stderr)
        results["in_memory"] = bench_in_memory(folder, max(args.memory_repeats, args.repeats))
        expected = results["in_memory"]["olearn"]["mistakes"]
    if 2 in sections:
        print("2. end to end ...", file=sys.stderr)
        if not (WORK / "pa1_reference_weights.bin").exists() or 1 not in sections:
            exe, _ = compile_reference(exact=True)
            run_reference(exe, folder / "stream.bin", 1, weights_out=WORK / "pa1_reference_weights.bin")
        results["end_to_end"] = bench_end_to_end(folder, args.repeats, expected)
    if 3 in sections:
        print("3. streaming ...", file=sys.stderr)
        results["streaming"] = bench_streaming(*make_dict_stream(stream_rows), args.repeats)
    if 4 in sections:
        print("4. warm start ...", file=sys.stderr)
        results["warm_start"] = bench_warm_start(args.repeats, cold_repeats=0 if args.no_cold else 1)
    results["machine"]["loadavg_end"] = os.getloadavg()
    results["summary"] = summary_rows(results)

    print_table(results["summary"])
    print_details(results)
    print(f"\nload average start {results['machine']['loadavg_start']}, end {results['machine']['loadavg_end']}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(results, indent=2, default=float) + "\n")
    print(f"results written to {args.json}")


if __name__ == "__main__":
    main()
