r"""Reproduction: the synthetic experiments of Crammer et al. (2006), Figs. 3, 4 and 5.

Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online Passive-Aggressive
Algorithms", JMLR 7 (2006), Sec. 10. The data come from
:func:`olearn.data.make_pa_paper_stream`: labels uniform in {-1, +1},
instances from a Gaussian with mean :math:`y\,(1, 1)` and covariance
:math:`\mathrm{diag}(0.2, 2)`, then Gaussian instance noise of covariance
:math:`\sigma I` (Sec. 10.1: :math:`\sigma` is a variance) and label flips
with probability p. The
learners are :class:`olearn.PAClassifier` without bias, scored by
:func:`olearn.run` (predict, then learn): the *error* of a run is its number
of mistakes over its number of rounds, its *loss* the average hinge loss
:math:`\max(0, 1 - y_t\, w_t \cdot x_t)` of its predictions, both on the
(noisy) labels it learns from.

* ``run_crammer2006_fig3``: error and loss of PA, PA-I and PA-II (C = 0.001)
  under instance noise :math:`\sigma \in [0, 2]` (step 0.1) and label noise
  :math:`p \in [0, 0.3]` (step 0.02), plotted, as the paper does, against the
  average error of the best fixed linear classifier in hindsight on the same
  examples (see
  :mod:`olearn.experiments._crammer2006_hindsight`): the fewest mistakes of
  any direction, and the smallest average hinge loss of any vector (the
  comparator of the paper's loss bounds, and a lower bound on the loss of
  every fixed classifier, the best-error one at any scale included).
* ``run_crammer2006_fig4``: error and loss of PA-I and PA-II against
  :math:`\log_{10} C` (-4 to 3, step 0.25) for label noise p = 0, 0.1, 0.2.
* ``run_crammer2006_fig5``: the average error after t rounds,
  :math:`t = 1, \dots, 10^4`, with p = 0.02, of PA-I and PA-II with
  C = 100 and C = 0.001.

Every point averages 10 repetitions of 4,000 examples (Fig. 5: 10,000).

Each runner returns ``findings``, the paper's own claims about its figure
(Sec. 10.1-10.2, quoted), and ``observations``, further regularities that
olearn checks but the text does not state; both go to the findings CSV, told
apart by its ``source`` column (see
:mod:`olearn.experiments._crammer2006_findings`).
Seeds: ``numpy.random.SeedSequence(seed)`` spawns one child per
repetition, and each stream of a repetition is drawn from that child
afresh, so within a repetition every noise level (and every C) sees the same
clean examples: the curves compare settings on common random numbers. The
results depend only on ``seed``, never on the number of workers.
"""

import os

import numpy as np

from ._crammer2006_findings import fig3_findings, fig4_findings, fig5_findings
from ._crammer2006_hindsight import best_error_direction, best_hinge_classifier
from ._parallel import check_repetitions, in_parallel, progress_bar
from ._ucl_experts import write_csv

FIG3_ALGORITHMS = ("PA", "PA-I", "PA-II", "best fixed")
FIG4_ALGORITHMS = ("PA-I", "PA-II")
FIG5_LEARNERS = (("PA-I", 100.0), ("PA-I", 0.001), ("PA-II", 100.0), ("PA-II", 0.001))
_VARIANTS = {"PA": "pa", "PA-I": "pa1", "PA-II": "pa2"}
_NOISE_NAMES = {"instance": "instance noise sigma", "label": "label noise p"}

FIG3_FULL = {
    "repetitions": 10, "rounds": 4000, "C": 0.001,
    "instance": tuple(round(0.1 * k, 1) for k in range(21)), "label": tuple(round(0.02 * k, 2) for k in range(16)),
}
FIG3_QUICK = {**FIG3_FULL, "repetitions": 3, "rounds": 500, "instance": (0.0, 0.5, 1.0, 2.0),
              "label": (0.0, 0.1, 0.2, 0.3)}
FIG4_FULL = {
    "repetitions": 10, "rounds": 4000, "label": (0.0, 0.1, 0.2),
    "log10_C": tuple(round(-4.0 + 0.25 * k, 2) for k in range(29)),
}
FIG4_QUICK = {**FIG4_FULL, "repetitions": 3, "rounds": 500, "log10_C": (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0)}
FIG5_FULL = {"repetitions": 10, "rounds": 10_000, "label": 0.02}
FIG5_QUICK = {**FIG5_FULL, "repetitions": 3}

FIG3_COLUMNS = ("panel", "setting", "noise", "level", "best_fixed_error", "algorithm", "repetitions", "rounds",
                "error_mean", "error_std", "loss_mean", "loss_std")
FIG3_RUN_COLUMNS = ("noise", "level", "repetition", "algorithm", "error", "loss")
FIG4_COLUMNS = ("panel", "setting", "label_noise", "log10_C", "C", "algorithm", "repetitions", "rounds",
                "error_mean", "error_std", "loss_mean", "loss_std", "best_fixed_error", "best_fixed_loss")
FIG5_COLUMNS = ("panel", "setting", "algorithm", "C", "round", "average_error_mean", "average_error_std",
                "best_fixed_error")
FINDING_COLUMNS = ("figure", "source", "finding", "measure", "values", "holds")
_CURVE_POINTS = 200


def _learner(name, C):
    from ..linear import PAClassifier

    return PAClassifier(variant=_VARIANTS[name], C=C)


def _error_and_loss(name, C, X, y):
    from ..evaluate import run

    res = run(_learner(name, C), X, y, record=False)
    return res.mistake_rate, res.average_loss


def _hindsight(X, y):
    """(best fixed error, best fixed average hinge loss, duality gap of the latter)."""
    n_mistakes, _ = best_error_direction(X, y)
    loss, _, gap = best_hinge_classifier(X, y)
    return n_mistakes / X.shape[0], loss, gap


def _stream(seed_sequence, rounds, instance_noise=0.0, label_noise=0.0):
    from ..data import make_pa_paper_stream

    return make_pa_paper_stream(rounds, instance_noise, label_noise, random_state=seed_sequence)


def _fig3_repetition(seed_sequence, setting):
    """Error, loss (noise kind -> array (levels, algorithms)) and the largest duality gap of one repetition."""
    error, loss, gap = {}, {}, 0.0
    for kind in ("instance", "label"):
        levels = setting[kind]
        error[kind] = np.empty((len(levels), len(FIG3_ALGORITHMS)))
        loss[kind] = np.empty((len(levels), len(FIG3_ALGORITHMS)))
        for i, level in enumerate(levels):
            noise = {"instance_noise": level} if kind == "instance" else {"label_noise": level}
            X, y = _stream(seed_sequence, setting["rounds"], **noise)
            for k, name in enumerate(FIG3_ALGORITHMS[:-1]):
                error[kind][i, k], loss[kind][i, k] = _error_and_loss(name, setting["C"], X, y)
            error[kind][i, -1], loss[kind][i, -1], level_gap = _hindsight(X, y)
            gap = max(gap, level_gap)
    return error, loss, gap


def _fig4_repetition(seed_sequence, setting):
    """Error and loss, arrays (label noise, C, algorithms), and the best fixed error and loss (label noise,)."""
    shape = (len(setting["label"]), len(setting["log10_C"]), len(FIG4_ALGORITHMS))
    error, loss = np.empty(shape), np.empty(shape)
    best_error, best_loss = np.empty(shape[0]), np.empty(shape[0])
    for i, p in enumerate(setting["label"]):
        X, y = _stream(seed_sequence, setting["rounds"], label_noise=p)
        for j, log_c in enumerate(setting["log10_C"]):
            for k, name in enumerate(FIG4_ALGORITHMS):
                error[i, j, k], loss[i, j, k] = _error_and_loss(name, 10.0**log_c, X, y)
        best_error[i], best_loss[i], _ = _hindsight(X, y)
    return error, loss, best_error, best_loss


def _fig5_repetition(seed_sequence, setting):
    """Cumulative mistakes, array (learners, rounds), and the best fixed error on the whole stream."""
    from ..evaluate import run

    X, y = _stream(seed_sequence, setting["rounds"], label_noise=setting["label"])
    mistakes = np.stack([run(_learner(name, C), X, y).cumulative_mistakes for name, C in FIG5_LEARNERS])
    n_mistakes, _ = best_error_direction(X, y)
    return mistakes, n_mistakes / X.shape[0]


def _repetitions(function, setting, seed, n_jobs, progress, description):
    """``[function(child, setting) for each child seed]``, on ``n_jobs`` workers, in order, with a bar."""
    children = np.random.SeedSequence(seed).spawn(setting["repetitions"])
    with progress_bar(progress) as bar:
        return in_parallel(function, [(child, setting) for child in children], n_jobs, bar, description)


def _std(values, axis=0):
    return values.std(axis=axis, ddof=1) if values.shape[axis] > 1 else np.zeros_like(values.mean(axis=axis))


def _prepare(out_dir, quick, n_jobs, default_jobs, full, small, n_repetitions=None):
    """(out_dir, created; the setting, with ``n_repetitions`` repetitions when given; the workers)."""
    setting = small if quick else full
    if n_repetitions is not None:
        setting = {**setting, "repetitions": check_repetitions(n_repetitions)}
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    return out_dir, setting, ((1 if quick else default_jobs) if n_jobs is None else n_jobs)


def run_crammer2006_fig3(out_dir="olearn-crammer2006-fig3", seed=0, quick=False, n_jobs=None, progress=True,
                         n_repetitions=None):
    r"""Fig. 3: error and loss of PA, PA-I and PA-II (C = 0.001) against instance and label noise.

    Writes ``crammer2006_fig3.png`` (the paper's layout: instance noise on
    top, label noise below; error left, loss right; every curve against the
    average error of the best fixed classifier, the mean over the repetitions
    with a band of one standard deviation), ``crammer2006_fig3_summary.csv``
    (mean and standard deviation per noise level and algorithm, with the best
    fixed classifier's error of that level), ``crammer2006_fig3_runs.csv``
    (every repetition) and ``crammer2006_fig3_findings.csv`` (the paper's
    claims and our observations, checked).

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if missing.
    seed : int, default=0
    quick : bool, default=False
        A small version for tests: 3 repetitions of 500 examples at four
        levels of each noise, instead of 10 of 4,000 at 21 and 16 levels.
    n_jobs : int, optional
        Worker processes for the repetitions (joblib; -1 uses every core).
        Default: every core, or 1 in quick mode. The results do not depend on
        it.
    progress : bool, default=True
        Show a progress bar on stderr when it is a terminal.
    n_repetitions : int, optional
        The number of repetitions averaged (default: the paper's 10, or 3 in
        quick mode).

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``runs_csv``, ``findings_csv`` (paths),
        ``rows`` (the summary rows), ``findings`` (the paper's claims),
        ``observations`` (ours), ``algorithms``
        (``FIG3_ALGORITHMS``), ``levels`` (noise kind -> levels), ``error``
        and ``loss`` (noise kind -> array (repetitions, levels,
        algorithms)) and ``hinge_duality_gap`` (the largest gap of the
        hinge-loss programs).
    """
    from ..plots._crammer2006 import plot_crammer2006_fig3

    out_dir, setting, n_jobs = _prepare(out_dir, quick, n_jobs, -1, FIG3_FULL, FIG3_QUICK,
                                        n_repetitions)
    reps = _repetitions(_fig3_repetition, setting, seed, n_jobs, progress,
                        f"Crammer et al. 2006, Fig. 3: {setting['repetitions']} repetitions")
    error = {kind: np.stack([r[0][kind] for r in reps]) for kind in ("instance", "label")}
    loss = {kind: np.stack([r[1][kind] for r in reps]) for kind in ("instance", "label")}
    levels = {kind: np.asarray(setting[kind]) for kind in ("instance", "label")}

    rows, runs = [], []
    for kind in ("instance", "label"):
        mean_error, std_error = error[kind].mean(axis=0), _std(error[kind])
        mean_loss, std_loss = loss[kind].mean(axis=0), _std(loss[kind])
        for i, level in enumerate(setting[kind]):
            for k, name in enumerate(FIG3_ALGORITHMS):
                rows.append({
                    "panel": _NOISE_NAMES[kind], "setting": f"{name}, {kind} noise {level:g}", "noise": kind,
                    "level": level, "best_fixed_error": float(mean_error[i, -1]), "algorithm": name,
                    "repetitions": setting["repetitions"],
                    "rounds": setting["rounds"], "error_mean": float(mean_error[i, k]),
                    "error_std": float(std_error[i, k]), "loss_mean": float(mean_loss[i, k]),
                    "loss_std": float(std_loss[i, k]),
                })
                runs += [
                    {"noise": kind, "level": level, "repetition": r, "algorithm": name,
                     "error": float(error[kind][r, i, k]), "loss": float(loss[kind][r, i, k])}
                    for r in range(setting["repetitions"])
                ]
    findings, observations = fig3_findings(levels, error, loss)
    paths = _paths(out_dir, "crammer2006_fig3", ("summary", "runs", "findings"))
    plot_crammer2006_fig3(
        levels, error, loss, FIG3_ALGORITHMS, paths["figure"],
        title=f"Crammer et al. (2006), Fig. 3: PA, PA-I and PA-II (C = {setting['C']:g}) under noise; "
              f"{setting['repetitions']} x {setting['rounds']:,} examples, seed {seed}",
    )
    write_csv(paths["summary_csv"], FIG3_COLUMNS, rows)
    write_csv(paths["runs_csv"], FIG3_RUN_COLUMNS, runs)
    write_csv(paths["findings_csv"], FINDING_COLUMNS, findings + observations)
    return {**paths, "rows": rows, "findings": findings, "observations": observations,
            "algorithms": FIG3_ALGORITHMS, "levels": levels,
            "error": error, "loss": loss, "hinge_duality_gap": max(r[2] for r in reps)}


def run_crammer2006_fig4(out_dir="olearn-crammer2006-fig4", seed=0, quick=False, n_jobs=None, progress=True,
                         n_repetitions=None):
    r"""Fig. 4: error and loss of PA-I and PA-II against :math:`\log_{10} C` for label noise 0, 0.1, 0.2.

    Writes ``crammer2006_fig4.png`` (the paper's layout: error left, loss
    right; PA-I on top, PA-II below; one line per noise level, the best fixed
    classifier dashed in the same colour), ``crammer2006_fig4_summary.csv`` and
    ``crammer2006_fig4_findings.csv``.

    Parameters
    ----------
    out_dir : str or os.PathLike
    seed : int, default=0
    quick : bool, default=False
        3 repetitions of 500 examples and :math:`\log_{10} C \in \{-3, \dots, 2\}`
        instead of 10 of 4,000 and -4 to 3 in steps of 0.25.
    n_jobs : int, optional
        Worker processes for the repetitions. Default 1: a repetition takes
        a fraction of a second, less than starting a worker.
    progress : bool, default=True
    n_repetitions : int, optional
        As in :func:`run_crammer2006_fig3`.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``findings_csv``, ``rows``,
        ``findings`` (the paper's claims), ``observations`` (ours),
        ``algorithms`` (``FIG4_ALGORITHMS``), ``label_noise``,
        ``log10_C``, ``error`` and ``loss`` (arrays (repetitions, label
        noise, C, algorithms)), ``best_error`` and ``best_loss`` (arrays
        (repetitions, label noise)).
    """
    from ..plots._crammer2006 import plot_crammer2006_fig4

    out_dir, setting, n_jobs = _prepare(out_dir, quick, n_jobs, 1, FIG4_FULL, FIG4_QUICK,
                                        n_repetitions)
    reps = _repetitions(_fig4_repetition, setting, seed, n_jobs, progress,
                        f"Crammer et al. 2006, Fig. 4: {setting['repetitions']} repetitions")
    error, loss, best_error, best_loss = (np.stack([r[i] for r in reps]) for i in range(4))
    log_c, noise = np.asarray(setting["log10_C"]), np.asarray(setting["label"])

    mean_error, std_error, mean_loss, std_loss = error.mean(0), _std(error), loss.mean(0), _std(loss)
    rows = [
        {
            "panel": f"label noise p = {p:g}", "setting": f"{name}, log10 C = {lc:g}", "label_noise": p,
            "log10_C": lc, "C": 10.0**lc, "algorithm": name, "repetitions": setting["repetitions"],
            "rounds": setting["rounds"], "error_mean": float(mean_error[i, j, k]),
            "error_std": float(std_error[i, j, k]), "loss_mean": float(mean_loss[i, j, k]),
            "loss_std": float(std_loss[i, j, k]), "best_fixed_error": float(best_error[:, i].mean()),
            "best_fixed_loss": float(best_loss[:, i].mean()),
        }
        for i, p in enumerate(setting["label"])
        for k, name in enumerate(FIG4_ALGORITHMS)
        for j, lc in enumerate(setting["log10_C"])
    ]
    findings, observations = fig4_findings(noise, log_c, error, loss)
    paths = _paths(out_dir, "crammer2006_fig4", ("summary", "findings"))
    plot_crammer2006_fig4(
        noise, log_c, error, loss, best_error, best_loss, FIG4_ALGORITHMS, paths["figure"],
        title=f"Crammer et al. (2006), Fig. 4: the aggressiveness C under label noise; "
              f"{setting['repetitions']} x {setting['rounds']:,} examples, seed {seed}",
    )
    write_csv(paths["summary_csv"], FIG4_COLUMNS, rows)
    write_csv(paths["findings_csv"], FINDING_COLUMNS, findings + observations)
    return {**paths, "rows": rows, "findings": findings, "observations": observations,
            "algorithms": FIG4_ALGORITHMS, "label_noise": noise,
            "log10_C": log_c, "error": error, "loss": loss, "best_error": best_error, "best_loss": best_loss}


def run_crammer2006_fig5(out_dir="olearn-crammer2006-fig5", seed=0, quick=False, n_jobs=None, progress=True,
                         n_repetitions=None):
    r"""Fig. 5: average error after t rounds, label noise p = 0.02, for C = 100 and C = 0.001.

    Writes ``crammer2006_fig5.png`` (the paper's layout: PA-I left, PA-II
    right, one line per C, the mean over the repetitions; a second row on a
    logarithmic round axis; the best fixed classifier on the whole stream
    dotted), ``crammer2006_fig5_summary.csv`` (the average error after 10,
    100, 1,000 and 10,000 rounds), ``crammer2006_fig5_curves.csv`` (about
    200 rounds per curve, spaced logarithmically) and
    ``crammer2006_fig5_findings.csv``.

    Parameters
    ----------
    out_dir : str or os.PathLike
    seed : int, default=0
    quick : bool, default=False
        3 repetitions instead of 10 (of 10,000 examples each).
    n_jobs : int, optional
        Worker processes for the repetitions. Default 1: the whole figure
        takes well under a second of learning.
    progress : bool, default=True
    n_repetitions : int, optional
        As in :func:`run_crammer2006_fig3`.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``curves_csv``, ``findings_csv``,
        ``rows`` (the summary rows), ``findings`` (the paper's claims),
        ``observations`` (ours; none), ``learners`` (``FIG5_LEARNERS``, (name, C)
        pairs), ``average_error`` (array (repetitions, learners, rounds): the
        mistakes up to round t over t) and ``best_error`` (array
        (repetitions,)).
    """
    from ..plots._crammer2006 import plot_crammer2006_fig5

    out_dir, setting, n_jobs = _prepare(out_dir, quick, n_jobs, 1, FIG5_FULL, FIG5_QUICK,
                                        n_repetitions)
    reps = _repetitions(_fig5_repetition, setting, seed, n_jobs, progress,
                        f"Crammer et al. 2006, Fig. 5: {setting['repetitions']} repetitions")
    rounds = np.arange(1, setting["rounds"] + 1)
    average_error = np.stack([r[0] for r in reps]) / rounds
    best_error = np.array([r[1] for r in reps])

    mean, std = average_error.mean(axis=0), _std(average_error)
    sampled = np.unique(np.geomspace(1, rounds[-1], _CURVE_POINTS).round().astype(np.int64))
    checkpoints = [t for t in (10, 100, 1000, 10_000) if t < rounds[-1]] + [int(rounds[-1])]

    def curve_rows(at, round_in_setting):
        return [
            {"panel": f"label noise p = {setting['label']:g}",
             "setting": f"{name}, C = {C:g}" + (f", t = {t:,}" if round_in_setting else ""),
             "algorithm": name, "C": C, "round": int(t), "average_error_mean": float(mean[k, t - 1]),
             "average_error_std": float(std[k, t - 1]), "best_fixed_error": float(best_error.mean())}
            for k, (name, C) in enumerate(FIG5_LEARNERS)
            for t in at
        ]

    rows = curve_rows(checkpoints, True)
    findings, observations = fig5_findings(FIG5_LEARNERS, average_error)
    paths = _paths(out_dir, "crammer2006_fig5", ("summary", "curves", "findings"))
    plot_crammer2006_fig5(
        rounds, average_error, best_error, FIG5_LEARNERS, paths["figure"],
        title=f"Crammer et al. (2006), Fig. 5: average error against the round, label noise "
              f"{setting['label']:g}; {setting['repetitions']} repetitions, seed {seed}",
    )
    write_csv(paths["summary_csv"], FIG5_COLUMNS, rows)
    write_csv(paths["curves_csv"], FIG5_COLUMNS, curve_rows(sampled, False))
    write_csv(paths["findings_csv"], FINDING_COLUMNS, findings + observations)
    return {**paths, "rows": rows, "findings": findings, "observations": observations, "learners": FIG5_LEARNERS,
            "average_error": average_error, "best_error": best_error}


def _paths(out_dir, stem, tables):
    paths = {"figure": os.path.join(out_dir, f"{stem}.png")}
    paths.update({f"{table}_csv": os.path.join(out_dir, f"{stem}_{table}.csv") for table in tables})
    return paths
