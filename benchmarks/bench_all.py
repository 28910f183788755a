"""Every row of issue #16's speed table measured side by side in one run; docs/benchmarks.md from it.

The measurements are those of the other scripts, imported from them:

* ``bench_core``: the in-memory PA-I pass (``olearn.run(..., record=False)`` and
  ``record=True``) against the C loop ``pa1_reference.c`` (same mistakes, weights
  bit-identical to C compiled without FMA); ``olearn run --algo pa1 FILE.svm`` against
  Vowpal Wabbit on its text format and scikit-learn, process start to exit, with the
  peak resident memory of each process; River on dict rows of the same stream; the warm
  start against ``python -c "import numpy, numba"`` and the first run with an empty numba
  cache against the same;
* ``bench_multiclass``: multiclass PA-I, k = 10, dense and sparse, against ``multiclass_reference.c``;
* ``bench_second_order``: AdaGrad against the PA-I pass;
* ``bench_kernels``: kernel evaluations of the compiled engine (support vectors stored
  sparse) against NumPy/BLAS;
* here: how the time of ``olearn.run`` and of the C loop grows with the number of rows and
  with the non-zeros per row, on streams of ``make_data.generate``.

Every timing is the best of N after a warm-up, the contenders of a row interleaved
round by round; the load average is recorded at the start and the end. The raw results go
to ``benchmarks/_work/bench_all.json``; the report (a table with each target's verdict,
the machine, the versions, and a plot) is written from that file, so it can be rewritten
without measuring again.

    python benchmarks/bench_all.py                  # full size (5-10 minutes): docs/benchmarks.md + .png
    python benchmarks/bench_all.py --quick          # tiny sizes, a check that everything runs (2-3 minutes)
    python benchmarks/bench_all.py --report-only    # the doc again from the saved JSON
"""

import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, os.fspath(HERE))

import bench_core  # noqa: E402
import bench_kernels  # noqa: E402
import bench_multiclass  # noqa: E402
import bench_second_order  # noqa: E402
import make_data  # noqa: E402

WORK = make_data.WORK
N_FEATURES = bench_core.N_FEATURES

SIZES = {
    "full": {
        "rows": 200_000, "repeats": 5, "memory_repeats": 10, "multiclass_rows": 200_000,
        "kernel_support": 1500, "kernel_queries": 297, "warm_rows": 2000, "cold_repeats": 2,
        "dict_rows": 10_000, "scale_rows": [25_000, 50_000, 100_000, 200_000],
        "scale_nnz": [15, 30, 60, 120, 240], "scale_nnz_rows": 50_000,
    },
    "quick": {
        "rows": 20_000, "repeats": 2, "memory_repeats": 3, "multiclass_rows": 20_000,
        "kernel_support": 500, "kernel_queries": 100, "warm_rows": 2000, "cold_repeats": 1,
        "dict_rows": 2000, "scale_rows": [5000, 10_000, 20_000],
        "scale_nnz": [15, 30, 60], "scale_nnz_rows": 5000,
    },
}
PACKAGES = ("numpy", "numba", "scipy", "scikit-learn", "river", "vowpalwabbit", "matplotlib")


# -- measuring --------------------------------------------------------------------------------


def environment():
    """The machine, the versions and the tree measured (no host names or paths)."""
    import olearn

    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    versions = {"python": platform.python_version(), "olearn": olearn.__version__}
    for package in PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    versions["gcc"] = _first_line(["gcc", "--version"])
    commit = _first_line(["git", "-C", os.fspath(ROOT), "rev-parse", "--short", "HEAD"])
    if commit and _first_line(["git", "-C", os.fspath(ROOT), "status", "--porcelain", "--untracked-files=no"]):
        commit += " + uncommitted changes"
    from olearn._kernels import _compiled

    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gb": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30,
        "system": f"{platform.system()} {platform.release()}", "versions": versions, "commit": commit,
        "compiled_kernels": _compiled.EXTENSION is not None,
    }


def _first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.splitlines()[0].strip() if out.strip() else ""


def dict_stream(folder, n):
    """The first ``n`` rows of the stream in ``folder`` as dicts {column: value}, and -1/+1 labels."""
    indptr = np.load(folder / "indptr.npy", mmap_mode="r")
    indices = np.load(folder / "indices.npy", mmap_mode="r")
    data = np.load(folder / "data.npy", mmap_mode="r")
    y = np.load(folder / "y.npy", mmap_mode="r")
    rows = [dict(zip(indices[indptr[i]:indptr[i + 1]].tolist(), data[indptr[i]:indptr[i + 1]].tolist()))
            for i in range(n)]
    return rows, [int(label) for label in y[:n]]


def time_pass(arrays, exe, stream_bin, repeats):
    """One PA-I pass of ``olearn.run`` and of the C loop over ``arrays``, interleaved; best of ``repeats``."""
    import scipy.sparse as sp

    import olearn

    indptr, indices, data, y = arrays
    make_data.write_bin(stream_bin, indptr, indices, data, y, N_FEATURES)
    X = sp.csr_matrix((data, indices, indptr), shape=(y.size, N_FEATURES))

    def one_pass():
        return olearn.run(olearn.PAClassifier(variant="pa1", C=bench_core.C), X, y, record=False).n_mistakes

    o_mistakes = one_pass()  # warm-up (compiles or loads the cached kernel)
    c_times, o_times = [], []
    for _ in range(repeats):
        c_run = bench_core.run_reference(exe, stream_bin, 1)
        c_times.append(c_run["best"])
        t0 = time.perf_counter()
        o_mistakes = one_pass()
        o_times.append(time.perf_counter() - t0)
    return {
        "rows": int(y.size), "nnz_per_row": int(indptr[1] - indptr[0]), "nnz": int(indices.size),
        "olearn": {"best": min(o_times), "times": o_times},
        "c": {"best": min(c_times), "times": c_times},
        "mistakes": {"olearn": o_mistakes, "c": c_run["mistakes"]},
    }


def bench_scaling(rows_list, nnz_list, nnz_rows, repeats):
    """Time against rows (prefixes of one generated stream, 60 non-zeros a row) and against
    non-zeros per row (one generated stream of ``nnz_rows`` rows each)."""
    exe, flags = bench_core.compile_reference(exact=False)
    out = {"c_flags": flags, "rows": [], "nnz": []}
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        stream_bin = Path(tmp) / "stream.bin"
        indptr, indices, data, y, _ = make_data.generate(max(rows_list), N_FEATURES, 60, 0.05, 0)
        for n in rows_list:
            end = indptr[n]
            arrays = (indptr[: n + 1], indices[:end], data[:end], y[:n])
            out["rows"].append(time_pass(arrays, exe, stream_bin, repeats))
        for nnz in nnz_list:
            indptr, indices, data, y, _ = make_data.generate(nnz_rows, N_FEATURES, nnz, 0.05, 0)
            out["nnz"].append(time_pass((indptr, indices, data, y), exe, stream_bin, repeats))
    return out


def measure(size, repeats=None, log=print):
    """Every section; returns the raw results (what the JSON holds). ``repeats``: N instead of the size's."""
    s = dict(SIZES[size])
    if repeats is not None:
        s["repeats"], s["memory_repeats"] = repeats, max(repeats, s["memory_repeats"])
    bench_core.byte_compile_olearn()
    results = {"size": size, "sizes": s, "environment": environment(), "loadavg_start": os.getloadavg(),
               "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    folder = make_data.ensure(rows=s["rows"])
    results["data"] = {"folder": folder.name, "svm_bytes": (folder / "stream.svm").stat().st_size}
    t0 = time.perf_counter()

    def mistakes_in_memory():
        return results["in_memory"]["olearn"]["mistakes"] if "in_memory" in results else None

    sections = [
        ("in_memory", "in-memory PA-I pass vs C", lambda: bench_core.bench_in_memory(folder, s["memory_repeats"])),
        ("end_to_end", "end to end from text: olearn run, VW, scikit-learn",
         lambda: bench_core.bench_end_to_end(folder, s["repeats"], mistakes_in_memory())),
        ("multiclass", "multiclass PA-I vs C", lambda: bench_multiclass.measure(s["multiclass_rows"], s["repeats"])),
        ("second_order", "AdaGrad vs PA-I",
         lambda: bench_second_order.bench_diagonal(folder, s["repeats"], names=(bench_second_order.PA1, "AdaGrad"))),
        ("kernel_evaluations", "kernel evaluations vs BLAS",
         lambda: bench_kernels.bench_evaluations(s["kernel_support"], s["kernel_queries"], s["repeats"])),
        ("warm_start", "warm start and first run",
         lambda: bench_core.bench_warm_start(s["repeats"], s["cold_repeats"], rows=s["warm_rows"])),
        ("streaming", "olearn and River on dict rows of the stream",
         lambda: bench_core.bench_streaming(*dict_stream(folder, s["dict_rows"]), s["repeats"])),
        ("scaling", "time against rows and non-zeros per row",
         lambda: bench_scaling(s["scale_rows"], s["scale_nnz"], s["scale_nnz_rows"], s["repeats"])),
    ]
    for key, what, run in sections:
        log(f"{what} ...")
        try:
            results[key] = run()
        except Exception as err:  # noqa: BLE001 - the page names the failed section; the others still run
            results.setdefault("errors", {})[key] = f"{type(err).__name__}: {err}"[:500]
            log(f"  FAILED: {results['errors'][key]}")

    results["seconds"] = time.perf_counter() - t0
    results["loadavg_end"] = os.getloadavg()
    return results


# -- the report ------------------------------------------------------------------------------


def _x(ratio):
    return f"{ratio:.2f}x"


def _mb(nbytes):
    return f"{nbytes / 1e6:,.0f} MB"


def summary(results):
    """The table: one dict per row (measurement, olearn, anchor, ratio, target, met).

    ``met`` is True/False for a row with a target, None for a row reported only. Rows whose
    section is missing from ``results`` are left out.
    """
    rows = []
    fmt = bench_core.fmt_s

    def add(measurement, olearn, anchor, ratio=None, limit=None, target="", met=None, cpu=None):
        """``limit``: the ratio must be at most this (sets target and met); ``cpu``: the two timings
        whose best CPU times give the ratio of CPU time (information: the targets are on wall time)."""
        if limit is not None:
            target, met = f"<= {limit:g}x", bool(ratio <= limit)
        cpu_ratio = ""
        if cpu and all(timing.get("cpu") for timing in cpu):
            cpu_ratio = _x(min(cpu[0]["cpu"]) / min(cpu[1]["cpu"]))
        rows.append({"measurement": measurement, "olearn": olearn, "anchor": anchor,
                     "ratio": _x(ratio) if ratio is not None else "", "cpu_ratio": cpu_ratio,
                     "target": target, "met": met})

    mem = results.get("in_memory")
    if mem:
        c = mem["c"]["best"]
        add("`olearn.run(est, X, y, record=False)`, in-memory CSR, vs a C -O3 loop", fmt(mem["olearn"]["best"]),
            f"C {fmt(c)}", mem["olearn"]["best"] / c, 1.3, cpu=(mem["olearn"], mem["c"]))
        add("`olearn.run(..., record=True)` (per-round recording) vs the same C loop", fmt(mem["olearn_record"]["best"]), f"C {fmt(c)}",
            mem["olearn_record"]["best"] / c, 1.5, cpu=(mem["olearn_record"], mem["c"]))
        same = (mem["olearn"]["mistakes"] == mem["c_exact"]["mistakes"] == mem["olearn_record"]["mistakes"])
        add("in-memory: mistakes equal to C's; weights bit-identical to C without FMA",
            f"{mem['olearn']['mistakes']:,} mistakes; max abs diff {mem['max_abs_weight_diff_vs_c']:.1g}",
            f"C {mem['c_exact']['mistakes']:,} mistakes", target="equal; bit-identical",
            met=bool(same and mem["weights_bit_identical"]))
    e2e = results.get("end_to_end")
    if e2e and e2e.get("olearn"):
        o, vw = e2e["olearn"], e2e["vw --sgd"]
        add("`olearn run --algo pa1 FILE.svm` vs VW `--sgd` on its text format, process start to exit",
            fmt(o["best"]), f"VW {fmt(vw['best'])}", o["best"] / vw["best"], 0.8, cpu=(o, vw))
        add("`olearn run` vs VW's default update (adaptive, normalized)", fmt(o["best"]),
            f"VW {fmt(e2e['vw default']['best'])}", o["best"] / e2e["vw default"]["best"], target="(report)",
            cpu=(o, e2e["vw default"]))
        add("`olearn run FILE.svm`: mistakes equal to the in-memory pass's",
            f"{o['mistakes']:,}" if o["mistakes"] is not None else "not found in its output",
            f"in memory {mem['olearn']['mistakes']:,}" if mem else "", target="equal",
            met=bool(o["mistakes_match_in_memory"]))
        file_size = results.get("data", {}).get("svm_bytes")
        add("peak RSS of `olearn run` on the text file", _mb(max(o["peak_rss"])),
            (f"file {_mb(file_size)}; " if file_size else "") + f"VW `--sgd` {_mb(max(vw['peak_rss']))}",
            target="bounded (report)")
    mc = results.get("multiclass")
    if mc:
        for name, label in (("dense 100-d (CSR input)", "dense 100-d"), ("sparse 60 of 2^16", "sparse")):
            row = mc[name]
            add(f"multiclass PA-I, k = 10, {label}, vs a C loop", fmt(row["olearn"]["best"]),
                f"C {fmt(row['c']['best'])}", row["olearn"]["best"] / row["c"]["best"], 1.5, cpu=(row["olearn"], row["c"]))
    so = results.get("second_order")
    if so:
        ada, pa = so["learners"]["AdaGrad"], so["learners"][bench_second_order.PA1]
        add("AdaGrad vs the PA-I pass (`olearn.run`, same stream)", fmt(ada["seconds"]), f"PA-I {fmt(pa['seconds'])}",
            ada["seconds"] / pa["seconds"], 2.0, cpu=(ada, pa))
    ev = results.get("kernel_evaluations")
    if ev:
        for name in ("poly", "rbf"):
            mine, blas = ev[name]["compiled, support sparse"], ev[name]["numpy/BLAS, one row vs the set"]
            add(f"kernel evaluations, {name}, support vectors stored sparse, vs NumPy/BLAS",
                f"{mine['evaluations_per_second'] / 1e6:.1f} M/s", f"BLAS {blas['evaluations_per_second'] / 1e6:.1f} M/s",
                mine["seconds"] / blas["seconds"], 2.0)
    ws = results.get("warm_start")
    if ws:
        floor = ws["import_numpy_numba"]["best"]
        add(f"warm start: `olearn run` on a {ws['rows']:,}-row file vs `python -c \"import numpy, numba\"`",
            fmt(ws["best"]), fmt(floor), ws["best"] / floor, 1.5, cpu=(ws, ws["import_numpy_numba"]))
        if "cold" in ws:
            add("first run (empty numba cache) vs `python -c \"import numpy, numba\"`", fmt(ws["cold"]["best"]), fmt(floor),
                ws["cold"]["best"] / floor, 6.0, cpu=(ws["cold"], ws["import_numpy_numba"]))
    if e2e and e2e.get("olearn"):
        sk = e2e["sklearn"]
        add("extra: `olearn run` vs scikit-learn `load_svmlight_file` + PA-I, process start to exit",
            fmt(e2e["olearn"]["best"]), f"sklearn {fmt(sk['best'])}", e2e["olearn"]["best"] / sk["best"],
            target="(anchor)", cpu=(e2e["olearn"], sk))
    st = results.get("streaming")
    if st:
        river = st["river"]["rows_per_s"]
        for key, label in (("olearn", "`predict_one` + `learn_one`"), ("olearn_combined", "`predict_learn_one`")):
            add(f"extra: {label} on dict rows of the stream, rows/s, vs River `predict_one` + `learn_one`",
                f"{st[key]['rows_per_s']:,.0f}/s", f"River {river:,.0f}/s", river / st[key]["rows_per_s"],
                target="(anchor)", cpu=(st[key], st["river"]))
    return rows


def verdict_text(met):
    return {True: "yes", False: "**no**", None: ""}[met]


def markdown_table(rows):
    lines = ["| measurement | olearn | anchor | ratio | ratio of CPU time | target | met? |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['measurement']} | {r['olearn']} | {r['anchor']} | {r['ratio']} | {r['cpu_ratio']} | {r['target']} | "
                     f"{verdict_text(r['met'])} |")
    return "\n".join(lines)


def _timing_line(name, timing):
    times = timing["times"]
    cpu = f"{bench_core.fmt_s(min(timing['cpu']))}" if timing.get("cpu") else ""
    return (f"| {name} | {len(times)} | {bench_core.fmt_s(min(times))} | {bench_core.fmt_s(float(np.median(times)))} "
            f"| {bench_core.fmt_s(max(times))} | {cpu} |")


def repeats_table(results):
    """Every timing behind the table: best, median and slowest of its repeats."""
    entries = []
    mem = results.get("in_memory")
    if mem:
        entries += [("in-memory `olearn.run`, record=False", mem["olearn"]),
                    ("in-memory `olearn.run`, record=True", mem["olearn_record"]),
                    (f"C loop `{mem['c']['flags']}`", mem["c"]), (f"C loop `{mem['c_exact']['flags']}`", mem["c_exact"])]
        if mem.get("olearn_kernel_only"):
            entries.append(("olearn's compiled pass alone (no input checks)", mem["olearn_kernel_only"]))
    e2e = results.get("end_to_end") or {}
    for name, label in (("olearn", "`olearn run --algo pa1 FILE.svm`"), ("vw --sgd", "VW `--sgd`"),
                        ("vw default", "VW default"), ("sklearn", "scikit-learn end to end"),
                        ("python -c 'import olearn'", "`python -c \"import olearn\"`")):
        if e2e.get(name):
            entries.append((label, e2e[name]))
    for name, row in (results.get("multiclass") or {}).items():
        entries.append((f"multiclass, {name}, olearn", row["olearn"]))
        if "c" in row:
            entries.append((f"multiclass, {name}, C", row["c"]))
    for name, row in ((results.get("second_order") or {}).get("learners") or {}).items():
        entries.append((name, row))
    ws = results.get("warm_start")
    if ws:
        entries += [("warm start `olearn run`", ws), ("`python -c \"import numpy, numba\"`", ws["import_numpy_numba"])]
        if "cold" in ws:
            entries.append(("first run, empty numba cache", ws["cold"]))
    st = results.get("streaming")
    if st:
        entries += [("olearn `predict_one` + `learn_one` (dicts)", st["olearn"]),
                    ("olearn `predict_learn_one` (dicts)", st["olearn_combined"]),
                    ("River `predict_one` + `learn_one` (dicts)", st["river"])]
    lines = ["| timing (wall) | N | best | median | slowest | best CPU |", "|---|---|---|---|---|---|"]
    return "\n".join(lines + [_timing_line(name, timing) for name, timing in entries])


def throughputs(results):
    """(label, rows/s, group) for the throughput plot: everything that ran over the reference stream."""
    out = []
    mem, e2e, st = results.get("in_memory"), results.get("end_to_end") or {}, results.get("streaming")
    if mem:
        n = mem["rows"]
        out += [("C -O3 loop (in memory)", n / mem["c"]["best"], "anchor"),
                ("olearn.run, record=False", n / mem["olearn"]["best"], "olearn"),
                ("olearn.run, record=True", n / mem["olearn_record"]["best"], "olearn")]
        for key, label, group in (("olearn", "olearn run FILE.svm", "olearn"), ("vw --sgd", "VW --sgd (text)", "anchor"),
                                  ("vw default", "VW default (text)", "anchor"),
                                  ("sklearn", "scikit-learn (text)", "anchor")):
            if e2e.get(key):
                out.append((label, n / e2e[key]["best"], group))
    if st:
        rounds = st["rows"] - 1
        out += [("olearn predict_learn_one (dicts)", rounds / st["olearn_combined"]["best"], "olearn"),
                ("olearn predict_one + learn_one (dicts)", rounds / st["olearn"]["best"], "olearn"),
                ("River predict_one + learn_one (dicts)", rounds / st["river"]["best"], "anchor")]
    return out


def plot_growth(ax, points, x_key, xlabel, c_flags):
    """Best time of a pass of olearn and of C against ``x_key`` of the ``points``, log-log."""
    import matplotlib.ticker

    xs = [point[x_key] for point in points]
    for who, label, style in (("olearn", "olearn.run, record=False", "o-"), ("c", f"C loop ({c_flags})", "s--")):
        ax.plot(xs, [1e3 * point[who]["best"] for point in points], style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 10 else f"{value:.2g}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.set_xticks(xs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("ms per pass (best)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 5), gridspec_kw={"width_ratios": [1.6, 1, 1]})
    bars = throughputs(results)
    ax = axes[0]
    colors = {"olearn": "tab:blue", "anchor": "tab:gray"}
    ax.barh(range(len(bars)), [b[1] for b in bars], color=[colors[b[2]] for b in bars])
    ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("rows per second (log scale)")
    ax.set_title(f"PA-I over the same stream ({results['sizes']['rows']:,} rows; dicts: the first"
                 f" {results['sizes']['dict_rows']:,})", fontsize=10)
    for i, (_, rate, _) in enumerate(bars):
        ax.text(rate, i, f" {rate:,.0f}", va="center", fontsize=7)
    scaling = results.get("scaling")
    growth = ((axes[1], "rows", "rows", "rows (60 non-zeros each)"),
              (axes[2], "nnz", "nnz_per_row", f"non-zeros per row ({results['sizes']['scale_nnz_rows']:,} rows)"))
    for ax, points_key, x_key, xlabel in growth:
        if scaling is None:
            ax.set_axis_off()
            ax.text(0.5, 0.5, "not measured", ha="center")
        else:
            plot_growth(ax, scaling[points_key], x_key, xlabel, scaling["c_flags"])
    axes[1].set_title("time against rows", fontsize=10)
    axes[2].set_title("time against non-zeros per row", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def scaling_table(scaling):
    lines = ["| rows | non-zeros per row | olearn | C | ratio | mistakes olearn / C (with FMA) |", "|---|---|---|---|---|---|"]
    for p in scaling["rows"] + scaling["nnz"]:
        lines.append(f"| {p['rows']:,} | {p['nnz_per_row']} | {bench_core.fmt_s(p['olearn']['best'])} | "
                     f"{bench_core.fmt_s(p['c']['best'])} | {_x(p['olearn']['best'] / p['c']['best'])} | "
                     f"{p['mistakes']['olearn']:,} / {p['mistakes']['c']:,} |")
    return "\n".join(lines)


def load_sentence(results):
    start, end = results["loadavg_start"], results["loadavg_end"]
    cores = results["environment"]["cores"]
    text = (f"Load average (1, 5, 15 min) {', '.join(f'{v:.2f}' for v in start)} at the start and "
            f"{', '.join(f'{v:.2f}' for v in end)} at the end, on {cores} cores.")
    if start[0] >= 0.5 * cores or end[0] >= 0.5 * cores + 1:
        text += (" **The machine was busy** (other work was running besides this benchmark): the ratios are"
                 " indicative, and a quiet machine gives steadier ones.")
    return text


NOTES = [
    "* in-memory: `olearn.run(PAClassifier(variant=\"pa1\", C=1), X, y)` on the stream's CSR arrays, a fresh"
    " estimator each time, against `benchmarks/pa1_reference.c` compiled with `gcc -O3 -march=native` (the"
    " anchor; gcc contracts to FMA there) and with `-ffp-contract=off` as well (the one whose weights olearn's"
    " must equal bit for bit). The C program times only its pass; olearn's time includes its input checks.",
    "* text: each a fresh process, wall time from start to exit: `olearn run --algo pa1 stream.svm` against"
    " Vowpal Wabbit's own driver on `stream.vw` (`--loss_function hinge --noconstant -b 18 --binary`, with"
    " `--sgd` for the target, VW's default update reported too), and scikit-learn's `load_svmlight_file` +"
    " `SGDClassifier(learning_rate=\"pa1\")` (PA-I exactly; its weights equal the C loop's). Peak RSS is the"
    " process's own (`wait4`), started from a small launcher (about 14 MB, the floor of the figure).",
    "* multiclass: `benchmarks/bench_multiclass.py`, k = 10, dense 100-d rows and sparse rows (60 of 2^16),"
    " against `benchmarks/multiclass_reference.c` (`gcc -O3`); same mistakes, weights within 1e-9.",
    "* AdaGrad: `olearn.run` of `AdaGrad(eta=1, delta=1)` against that of PA-I on the same stream"
    " (`benchmarks/bench_second_order.py`).",
    "* kernel evaluations: `benchmarks/bench_kernels.py`, the compiled engine evaluating one 256-d digit row"
    " against the whole support set (stored sparse), against NumPy/BLAS (`S @ x`, then the kernel's map).",
    "* warm start: `olearn run --algo pa1` on a small file of the same kind after a warm-up run, against"
    " `python -c \"import numpy, numba\"`; first run: the same command with an empty numba cache (a fresh"
    " temporary `NUMBA_CACHE_DIR` each time), against the same anchor. olearn's modules are byte-compiled"
    " before the run, as an install leaves them, and so are, when the install built them, the kernels of"
    " this command (`olearn._kernels._compiled`): it then starts no numba, and its first run is a warm one.",
    "* extras: River's `PAClassifier(C=1, mode=1, learn_intercept=False)` and olearn's `PAClassifier` one dict"
    " at a time over the stream's first rows (`{column: value}`, `predict_one` then `learn_one`), and"
    " scikit-learn end to end (above).",
]


def markdown(results, plot_name=None, note=None):
    env, s = results["environment"], results["sizes"]
    rows = summary(results)
    met = [r for r in rows if r["met"] is True]
    missed = [r for r in rows if r["met"] is False]
    v = env["versions"]
    parts = [
        "# Benchmarks",
        "",
        "Issue #16's speed table, every row measured side by side in one run of `benchmarks/bench_all.py`"
        " (the numbers below are from that run; see `benchmarks/README.md` for what each script measures).",
        "",
        "<!-- not run: measures for many minutes and rewrites this page -->",
        "```bash",
        "python benchmarks/bench_all.py                 # measure, then write this page and its plot",
        "python benchmarks/bench_all.py --report-only   # write them again from the saved results",
        "```",
        "",
        f"Machine: {env['cpu']}, {env['cores']} cores, {env['memory_gb']:.0f} GB, {env['system']}. "
        f"Versions: Python {v['python']}, olearn {v['olearn']}" + (f" (commit {env['commit']})" if env["commit"] else "")
        + f", NumPy {v['numpy']}, numba {v['numba']}, SciPy {v['scipy']}, scikit-learn {v['scikit-learn']},"
        f" River {v['river']}, vowpalwabbit {v['vowpalwabbit']}, {v['gcc']}."
        + {True: " Kernels compiled at install: used.", False: " Kernels compiled at install: absent (numba only)."}
        .get(env.get("compiled_kernels"), ""),
        "",
        f"Run: {results['started']}, {results['seconds'] / 60:.1f} minutes"
        + (" (`--quick`: tiny sizes, a check that the script works; not numbers to judge)"
           if results["size"] == "quick" else "") + ". " + load_sentence(results),
        "",
        f"Every timing is the best of N = {s['repeats']} (the in-memory pass: N = {s['memory_repeats']}; the first"
        f" run with an empty numba cache: N = {s['cold_repeats']}, without a warm-up by its nature) after an"
        " untimed warm-up, wall time; the contenders of a row run in turn, round by round, so that a burst of"
        " load hits them alike (the kernel evaluations excepted: `bench_kernels.py` times the compiled engine,"
        " then BLAS)."
        " The stream: `benchmarks/make_data.py`'s reference stream,"
        f" {s['rows']:,} rows x 2^18 features, 60 non-zeros per row, PA-I with C = 1, one pass"
        f" (LIBSVM text {_mb(results['data']['svm_bytes'])}).",
    ]
    if note:
        parts += ["", note]
    parts += [
        "",
        "## The table",
        "",
        markdown_table(rows),
        "",
        f"**Met ({len(met)} of {len(met) + len(missed)}):** " + ("; ".join(r["measurement"] for r in met) or "none") + ".",
        "",
        f"**Not met ({len(missed)}):** " + ("; ".join(r["measurement"] for r in missed) or "none") + ".",
        "",
        "Ratios are olearn's time over the anchor's (below 1: olearn is faster); for rates (kernel"
        " evaluations, rows/s) the anchor's rate over olearn's, so again below 1 is faster. The targets are on"
        " wall time; the ratio of the best CPU times (a process's user + system time, a Python pass's thread"
        " time; VW's two threads both count) is given because other work on the machine disturbs it less.",
    ]
    parts += ["", "What each row runs:", "", *NOTES]
    if results.get("errors"):
        parts += ["", "**Not measured** (the section failed, so its rows are missing above):", ""]
        parts += [f"* {key}: `{error}`" for key, error in results["errors"].items()]
    if plot_name:
        parts += ["", "## Throughput and growth", "", f"![throughput and growth]({plot_name})"]
    if "scaling" in results:
        parts += ["", "How the in-memory pass grows (streams of `make_data.generate`; the rows are prefixes of"
                  " one stream):", "", scaling_table(results["scaling"])]
    parts += ["", "## Every timing", "", "Best, median and slowest of the repeats (the spread shows the noise):",
              "", repeats_table(results), ""]
    return "\n".join(parts)


def write_report(results, doc, note=None):
    doc = Path(doc)
    doc.parent.mkdir(parents=True, exist_ok=True)
    plot_path = doc.with_suffix(".png")
    plot(results, plot_path)
    doc.write_text(markdown(results, plot_path.name, note))
    return doc, plot_path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that everything runs")
    parser.add_argument("--report-only", action="store_true", help="no measuring: the doc from --json")
    parser.add_argument("--json", help="raw results (default benchmarks/_work/bench_all.json, or bench_all_quick.json)")
    parser.add_argument("--doc", help="the report (default docs/benchmarks.md; with --quick benchmarks/_work/)")
    parser.add_argument("--repeats", type=int, help="N: timed repeats per measurement (default 5, --quick 2;"
                        " the in-memory pass at least 10 / 3)")
    parser.add_argument("--note", help="a sentence to add to the report (e.g. what else ran on the machine)")
    args = parser.parse_args(argv)
    quick = args.quick
    json_path = Path(args.json or WORK / ("bench_all_quick.json" if quick else "bench_all.json"))
    doc = Path(args.doc or (WORK / "benchmarks_quick.md" if quick else ROOT / "docs" / "benchmarks.md"))
    if args.report_only:
        results = json.loads(json_path.read_text())
    else:
        results = measure("quick" if quick else "full", args.repeats, log=lambda text: print(text, file=sys.stderr, flush=True))
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(results, indent=1, default=float) + "\n")
        print(f"results: {json_path}", file=sys.stderr)
    doc, plot_path = write_report(results, doc, args.note)
    print(markdown_table(summary(results)))
    print(f"report: {doc}, plot: {plot_path}", file=sys.stderr)
    if results.get("errors"):
        print(f"sections that failed: {', '.join(results['errors'])}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
