r"""Reproduction: Fig. 6 of Crammer et al. (2006), multiclass PA-I against the Perceptron and MIRA on digits.

Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Sec. 10.3: the cumulative number of mistakes
against the round of three multi-prototype learners with a polynomial kernel,

* multiclass PA-I with C = 100 (:class:`~olearn.multiclass.PAMulticlass`),
* the multiclass Perceptron with the uniform update
  (:class:`~olearn.multiclass.MulticlassPerceptron`, ``update="uniform"``),
* MIRA with :math:`\beta = 0.01` (:class:`~olearn.multiclass.MIRA`),

on digit images shifted and scaled so that the mean image is 0 and the
average squared norm is 1, with the kernel :math:`(x \cdot x')^3` on USPS and
:math:`(0.5 + x \cdot x')^5` on MNIST.

The data (``data_sources`` says which were used, and the results carry it):

* *USPS panel*: the USPS training set (7,291 digits of 16 x 16) when
  :func:`olearn.data.fetch_usps` finds it in the data home (or, with
  ``download=True`` in full mode, downloads it); otherwise scikit-learn's
  bundled digits (1,797 digits of 8 x 8), a **stand-in** that is not the
  paper's data. A run on a stand-in says so loudly: a warning in
  ``warnings`` (printed first by ``olearn reproduce``), "STAND-IN" in the
  panel's title and in the figure's title, a ``stand_in`` column in the
  summary and curves CSVs, and a "STAND-IN DATA" row first among the findings.
* *MNIST panel*: a CSV of real MNIST digits (784 pixel columns then the
  label, gzip allowed): ``mnist_csv``, else ``mnist-5k/mnist_5k.csv.gz`` in the
  data home (5,000 digits, 500 per class; with ``OLEARN_DATA`` pointing at a
  folder that holds it, ``olearn reproduce`` finds it too); else the MNIST training set (60,000 digits) when
  :func:`olearn.data.fetch_mnist` finds it in the data home (or downloads it,
  with ``download=True`` in full mode). With none of these the panel is
  skipped, with the reason in ``skipped``; nothing is downloaded unless asked.

The examples are presented once, in an order drawn from ``seed``; quick mode
keeps the first 400 (USPS panel) and 300 (MNIST panel) of that order.
Preprocessing uses the statistics of the rows presented.

``run_crammer2006_fig6`` writes into ``out_dir``:

* ``crammer2006_fig6.png``: one panel per dataset, cumulative mistakes against the round;
* ``crammer2006_fig6_summary.csv``: per panel and learner the data, kernel,
  rounds, mistakes, mistake rate, support vectors and updates;
* ``crammer2006_fig6_curves.csv``: the cumulative mistakes at about 200 rounds per curve;
* ``crammer2006_fig6_findings.csv``: the data of each panel (a stand-in
  named as such), then the paper's conclusions, checked per panel.
"""

import os
import time
from pathlib import Path

import numpy as np

from ..data._csv import load_csv
from ..data._download import get_data_home
from ._parallel import progress_bar
from ._ucl_experts import write_csv

LEARNERS = ("PA-I (C = 100)", "Perceptron (uniform)", "MIRA (beta = 0.01)")
KERNELS = {
    "USPS": {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 0.0},
    "MNIST": {"kernel": "poly", "degree": 5, "gamma": 1.0, "coef0": 0.5},
}
KERNEL_NAMES = {"USPS": "(x.x')^3", "MNIST": "(0.5 + x.x')^5"}
_QUICK_ROUNDS = {"USPS": 400, "MNIST": 300}
_MNIST_5K = os.path.join("mnist-5k", "mnist_5k.csv.gz")
# PA-I and MIRA count as close when their mistake counts are within this fraction of each other
CLOSE = 0.15
_CURVE_POINTS = 200

SUMMARY_COLUMNS = ("panel", "data", "stand_in", "kernel", "algorithm", "rounds", "mistakes", "mistake_rate",
                   "support_vectors", "updates")
CURVE_COLUMNS = ("panel", "stand_in", "algorithm", "round", "cumulative_mistakes")
FINDING_COLUMNS = ("finding", "panel", "measure", "values", "holds")


def make_learner(name, panel):
    """A fresh learner of Fig. 6 with the kernel of ``panel`` ("USPS" or "MNIST")."""
    from ..multiclass import MIRA, MulticlassPerceptron, PAMulticlass

    kernel = KERNELS[panel]
    if name == LEARNERS[0]:
        return PAMulticlass(variant="pa1", C=100.0, **kernel)
    if name == LEARNERS[1]:
        return MulticlassPerceptron(update="uniform", **kernel)
    if name == LEARNERS[2]:
        return MIRA(beta=0.01, **kernel)
    raise ValueError(f"unknown learner {name!r}; known: {', '.join(LEARNERS)}")


def preprocess(X):
    r"""Shift to zero mean and scale to an average squared norm of 1 (the paper's preprocessing).

    >>> import numpy as np
    >>> Z = preprocess(np.array([[0.0, 2.0], [2.0, 4.0], [4.0, 0.0]]))
    >>> bool(np.allclose(Z.mean(axis=0), 0.0)), round(float(np.mean(np.sum(Z * Z, axis=1))), 12)
    (True, 1.0)
    """
    X = np.asarray(X, dtype=np.float64)
    X = X - X.mean(axis=0)
    return X / np.sqrt(np.mean(np.einsum("ij,ij->i", X, X)))


def read_digit_csv(path):
    """(X, y) from a CSV of pixel columns followed by the label, no header (plain or gzip)."""
    X, y = load_csv(path, label_column=-1, header=False)
    if X.shape[1] == 0:
        raise ValueError(f"{path}: expected pixel columns then a label column, got 1 column")
    return X.toarray(), np.asarray(y, dtype=np.int64)


def _data_home(data_home):
    return Path(get_data_home(data_home, create=False))


def _mnist_csv_candidates(data_home):
    return [_data_home(data_home) / _MNIST_5K]


def _fetched(name, download, data_home):
    """The training set of ``name`` ("mnist" or "usps") if its files are in the data home, else None.

    With ``download`` the missing files are fetched (a failure raises OSError);
    without it nothing is created in the data home.
    """
    from ..data import _digits

    if name == "mnist":
        fetch, files = _digits.fetch_mnist, [file for file, _ in _digits.MNIST_FILES["train"]]
    else:
        fetch, files = _digits.fetch_usps, [_digits.USPS_FILES["train"][0]]
    folder = _data_home(data_home) / name
    if not download and not all((folder / file).is_file() for file in files):
        return None
    return fetch("train", data_home=data_home, download_if_missing=download)


def load_panel_data(panel, quick, download=False, data_home=None, mnist_csv=None):
    """(X, y, description, stand_in) of a panel's data, or (None, None, reason, None) when it is absent.

    ``stand_in`` is None for the paper's own data set, else a sentence saying
    what replaced it; see the module docstring.
    """
    download = download and not quick
    if panel == "USPS":
        fetched = None if quick else _fetched("usps", download, data_home)
        if fetched is not None:
            return fetched[0], fetched[1], f"USPS training set ({fetched[0].shape[0]:,} digits, 16 x 16)", None
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        why = "quick mode reads no USPS files" if quick else "the USPS files are not in the data home"
        return X, y, f"scikit-learn digits ({X.shape[0]:,} digits, 8 x 8; a stand-in for USPS)", (
            f"STAND-IN DATA: the USPS panel ran on scikit-learn's 8 x 8 digits ({X.shape[0]:,}), not on the "
            f"paper's USPS data ({why}); its numbers do not reproduce the paper's USPS panel")
    if mnist_csv is not None:
        X, y = read_digit_csv(mnist_csv)
        return X, y, f"MNIST digits from {Path(mnist_csv).name} ({X.shape[0]:,} digits, 28 x 28)", None
    for path in _mnist_csv_candidates(data_home):
        if path.is_file():
            X, y = read_digit_csv(path)
            return X, y, f"MNIST digits from {path.name} ({X.shape[0]:,} digits, 28 x 28)", None
    fetched = _fetched("mnist", download, data_home)
    if fetched is not None:
        return fetched[0], fetched[1], f"MNIST training set ({fetched[0].shape[0]:,} digits, 28 x 28)", None
    hint = "" if quick else "; pass download=True to fetch the MNIST training set"
    return None, None, (f"no MNIST data: no {_MNIST_5K} in the data home, "
                        f"no mnist_csv given, and fetch_mnist's files are not in the data home{hint}"), None


def run_panel(panel, X, y, seed, quick, bar=None):
    """Run the three learners on one panel's data; return {learner: (RunResult, support size, seconds)}."""
    from ..evaluate import run

    order = np.random.default_rng(seed).permutation(X.shape[0])
    if quick:
        order = order[: _QUICK_ROUNDS[panel]]
    Z, labels = preprocess(X[order]), np.asarray(y)[order]
    results = {}
    task = bar.add_task(f"{panel}: {len(LEARNERS)} learners", total=len(LEARNERS)) if bar is not None else None
    for name in LEARNERS:
        learner = make_learner(name, panel)
        start = time.perf_counter()
        result = run(learner, Z, labels)
        results[name] = (result, learner.n_support_, time.perf_counter() - start)
        if bar is not None:
            bar.advance(task)
    return results


def run_crammer2006_fig6(out_dir="olearn-crammer2006-fig6", seed=0, quick=False, download=False, data_home=None,
                         mnist_csv=None, progress=True):
    """Run the Fig. 6 reproduction; write the PNG and CSV files into ``out_dir``.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if missing.
    seed : int, default=0
        Draws the order of the examples.
    quick : bool, default=False
        The first 400 (USPS panel) and 300 (MNIST panel) examples, from local data only.
    download : bool, default=False
        In full mode, let :func:`olearn.data.fetch_usps` / :func:`~olearn.data.fetch_mnist`
        download what the data home lacks (never in quick mode).
    data_home : str or os.PathLike, optional
        See :func:`olearn.data.get_data_home`.
    mnist_csv : str or os.PathLike, optional
        A CSV of MNIST digits to use for the MNIST panel.
    progress : bool, default=True
        Show a progress bar on stderr when it is a terminal.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``curves_csv``, ``findings_csv`` (paths),
        ``rows`` (the summary rows), ``findings`` (first one row per panel naming
        its data, a stand-in, or why it was skipped, then the paper's
        conclusions, see :func:`check_findings`), ``data_sources`` (panel ->
        description of its data), ``stand_ins`` (panel -> the sentence saying
        what replaced the paper's data), ``warnings`` (those sentences and the
        skipped panels, for ``olearn reproduce`` to print first),
        ``skipped`` (panel -> reason),
        ``curves`` (panel -> learner -> cumulative mistakes per round) and
        ``seconds`` (panel -> learner -> wall-clock time of its pass).
    """
    from ..plots._crammer2006_fig6 import plot_crammer2006_fig6

    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    sources, stand_ins, skipped, runs = {}, {}, {}, {}
    with progress_bar(progress) as bar:
        for panel in KERNELS:
            X, y, description, stand_in = load_panel_data(panel, quick, download, data_home, mnist_csv)
            if X is None:
                skipped[panel] = description
                continue
            sources[panel] = description
            if stand_in is not None:
                stand_ins[panel] = stand_in
            runs[panel] = run_panel(panel, X, y, seed, quick, bar)
    if not runs:
        raise RuntimeError("crammer2006-fig6: no data for any panel: " + "; ".join(skipped.values()))

    rows = _summarise(runs, sources, stand_ins)
    findings = data_findings(sources, skipped, stand_ins) + check_findings(rows)
    curves = {panel: {name: r[0].cumulative_mistakes for name, r in results.items()} for panel, results in runs.items()}
    paths = {
        "figure": os.path.join(out_dir, "crammer2006_fig6.png"),
        "summary_csv": os.path.join(out_dir, "crammer2006_fig6_summary.csv"),
        "curves_csv": os.path.join(out_dir, "crammer2006_fig6_curves.csv"),
        "findings_csv": os.path.join(out_dir, "crammer2006_fig6_findings.csv"),
    }
    titles = {panel: (f"STAND-IN for {panel}, NOT the paper's data\n" if panel in stand_ins else f"{panel} panel, ")
              + f"kernel {KERNEL_NAMES[panel]}\n{sources[panel]}" for panel in runs}
    plot_crammer2006_fig6({titles[p]: c for p, c in curves.items()}, paths["figure"],
                          title=f"Crammer et al. (2006), Fig. 6: cumulative mistakes, seed {seed}"
                                + (" (quick)" if quick else "")
                                + "".join(f"\nSTAND-IN DATA: the {p} panel is not on {p}" for p in stand_ins),
                          alarming=[titles[p] for p in stand_ins])
    write_csv(paths["summary_csv"], SUMMARY_COLUMNS, rows)
    write_csv(paths["curves_csv"], CURVE_COLUMNS, _curve_rows(curves, stand_ins))
    write_csv(paths["findings_csv"], FINDING_COLUMNS, findings)
    return {
        **paths,
        "rows": rows,
        "findings": findings,
        "data_sources": sources,
        "stand_ins": stand_ins,
        "warnings": list(stand_ins.values()) + [f"the {p} panel was skipped: {r}" for p, r in skipped.items()],
        "skipped": skipped,
        "curves": curves,
        "seconds": {panel: {name: r[2] for name, r in results.items()} for panel, results in runs.items()},
    }


def _summarise(runs, sources, stand_ins):
    rows = []
    for panel, results in runs.items():
        for name, (result, n_support, _) in results.items():
            rows.append({
                "panel": panel,
                "data": sources[panel],
                "stand_in": stand_ins.get(panel, ""),
                "kernel": KERNEL_NAMES[panel],
                "algorithm": name,
                "rounds": result.n_rounds,
                "mistakes": result.n_mistakes,
                "mistake_rate": result.mistake_rate,
                "support_vectors": n_support,
                "updates": result.n_updates,
            })
    return rows


def data_findings(sources, skipped, stand_ins=None):
    """Rows in the form of the findings that say which data each panel used, or why it was skipped.

    A panel on a stand-in gets the finding "STAND-IN DATA (not the paper's
    <panel>)" and the stand-in sentence as its values. ``olearn reproduce``
    prints them with the findings; ``holds`` is None (nothing is checked).
    """
    stand_ins = stand_ins or {}
    used = [{"finding": f"STAND-IN DATA (not the paper's {panel})" if panel in stand_ins else "data used",
             "panel": panel, "measure": "data",
             "values": f"{description}. {stand_ins[panel]}" if panel in stand_ins else description, "holds": None}
            for panel, description in sources.items()]
    return used + [{"finding": "panel skipped", "panel": panel, "measure": "data", "values": reason, "holds": None}
                   for panel, reason in skipped.items()]


def check_findings(rows):
    """The paper's conclusions, panel by panel, from the summary rows.

    1. *PA-I and MIRA both beat the Perceptron*: each makes fewer mistakes
       (Sec. 10.3: "both PA-I and MIRA outperform the Perceptron").
    2. *PA-I is close to MIRA*: their mistake counts differ by at most
       ``CLOSE`` (15 %, our reading of "comparable") of the larger one.
    3. *MIRA has the slight advantage* ("with a slight advantage to the
       latter"): MIRA makes no more mistakes than PA-I.

    Returns
    -------
    list of dict
        ``finding``, ``panel``, ``measure``, ``values`` (learner=value, ...) and ``holds`` (bool).
    """
    pa, perceptron, mira = LEARNERS
    table = {}
    for row in rows:
        table.setdefault(row["panel"], {})[row["algorithm"]] = row["mistakes"]
    findings = []
    for panel, mistakes in table.items():
        shown = ", ".join(f"{name}={mistakes[name]}" for name in LEARNERS)
        findings.append({
            "finding": "PA-I and MIRA both make fewer mistakes than the Perceptron",
            "panel": panel,
            "measure": "mistakes",
            "values": shown,
            "holds": max(mistakes[pa], mistakes[mira]) < mistakes[perceptron],
        })
        gap = abs(mistakes[pa] - mistakes[mira]) / max(mistakes[pa], mistakes[mira], 1)
        findings.append({
            "finding": f"PA-I is close to MIRA (within {CLOSE:.0%})",
            "panel": panel,
            "measure": "relative difference of mistakes",
            "values": f"{pa}={mistakes[pa]}, {mira}={mistakes[mira]}, difference={gap:.1%}",
            "holds": gap <= CLOSE,
        })
        findings.append({
            "finding": "MIRA has a slight advantage over PA-I",
            "panel": panel,
            "measure": "mistakes",
            "values": f"{pa}={mistakes[pa]}, {mira}={mistakes[mira]}",
            "holds": mistakes[mira] <= mistakes[pa],
        })
    return findings


def _curve_rows(curves, stand_ins):
    rows = []
    for panel, by_learner in curves.items():
        for name, mistakes in by_learner.items():
            keep = np.unique(np.linspace(0, mistakes.size - 1, min(mistakes.size, _CURVE_POINTS)).astype(np.int64))
            rows += [{"panel": panel, "stand_in": stand_ins.get(panel, ""), "algorithm": name, "round": int(t) + 1, "cumulative_mistakes": int(mistakes[t])}
                     for t in keep]
    return rows
