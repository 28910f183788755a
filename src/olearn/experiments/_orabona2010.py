r"""Reproduction: Fig. 3 of Orabona & Crammer, "New Adaptive Algorithms for Online Classification" (NIPS 2010).

The synthetic experiment (see :mod:`olearn.data._orabona2010` for the data
and the orderings): 5,000 points in :math:`\mathbb R^{20}`, separable by
:math:`w^\star`, presented in four orderings (easy to hard, hard to easy,
sorted by :math:`x_1 y`, sorted by :math:`x_3 y`), without and with 10 %
label noise. Learners: PA-I, AROW, AdaGrad and NAROW, AROW and NAROW with a
full covariance matrix (d = 20). A mistake is counted when the prediction
disagrees with the **clean** label (:math:`y^{clean}\, w \cdot x \le 0`),
also in the noisy panels, where the learners are trained on the noisy
labels.

Tuning, as the text says ("All algorithms, except AdaGrad, have one
parameter to be tuned, while AdaGrad has two. These parameters were chosen
on a single random set"): for each panel (noise level and ordering) and each
learner, its parameters (PA-I's ``C``, AROW's ``r``, NAROW's ``b``, and
both of AdaGrad's, ``eta`` and ``delta``, on the product grid) are chosen
from the grid :math:`4^k`, :math:`k = -8, \dots, 8`, as the setting with the
fewest mistakes (against the clean labels) on one random set drawn for
tuning only and presented in that panel's ordering; ties go to the earlier
setting of the grid (smaller values, ``eta`` before ``delta``). The 100
repetitions then use fresh draws. (The text does not say whether the
parameters were chosen per panel; here they are.)

Seeds: ``numpy.random.SeedSequence(seed)`` spawns one child for the tuning
set and one per repetition, so each repetition's data depend only on the
seed and the repetition's index; mistake counts are integers summed in
repetition order, so the results are the same whatever the number of
workers.

``run_orabona2010_fig3`` writes into ``out_dir``:

* ``orabona2010_fig3.png``: the 2 x 4 panels, mean cumulative mistakes
  against the round (top: no noise; bottom: 10 % label noise);
* ``orabona2010_fig3_summary.csv``: per panel and learner the tuned value,
  the mean (std, standard error) of the final mistakes, the mean mistakes in
  the second half of the rounds, and the mean and median round of the last
  mistake;
* ``orabona2010_fig3_curves.csv``: the mean cumulative mistakes at about 200
  rounds per curve;
* ``orabona2010_fig3_tuning.csv``: the mistakes of every grid setting on
  the tuning set;
* ``orabona2010_fig3_findings.csv``: the text's own rankings (Sec. 6),
  checked panel by panel (see :func:`check_findings`);
* ``orabona2010_fig3_observations.csv``: olearn's own observations, not
  claims of the text (see :func:`check_observations`).
"""

import itertools
import os

import numpy as np

from ..data._orabona2010 import make_orabona2010_stream, orabona2010_order
from ._parallel import check_repetitions, in_parallel, progress_bar
from ._ucl_experts import write_csv

NOISE_LEVELS = (0.0, 0.1)
ORDERINGS = ("easy-to-hard", "hard-to-easy", "x1*y", "x3*y")
ORDERING_TITLES = {
    "easy-to-hard": "easy -> hard",
    "hard-to-easy": "hard -> easy",
    "x1*y": "sorted by x1 * y",
    "x3*y": "sorted by x3 * y",
}
LEARNERS = {"PA-I": ("C",), "AROW": ("r",), "AdaGrad": ("eta", "delta"), "NAROW": ("b",)}
GRID = tuple(4.0**k for k in range(-8, 9))
_QUICK_GRID = (4.0**-4, 1.0, 4.0**4)
_FULL = {"n_samples": 5000, "n_repetitions": 100, "grid": GRID}
_QUICK = {"n_samples": 600, "n_repetitions": 6, "grid": _QUICK_GRID}
_CURVE_POINTS = 200

SUMMARY_COLUMNS = (
    "panel", "label_noise", "ordering", "algorithm", "setting", "repetitions", "rounds",
    "mean_mistakes", "std_mistakes", "stderr_mistakes", "mean_mistakes_first_half", "mean_mistakes_second_half",
    "mean_last_mistake_round", "median_last_mistake_round",
)
CURVE_COLUMNS = ("panel", "label_noise", "ordering", "algorithm", "round", "mean_cumulative_mistakes")
TUNING_COLUMNS = ("label_noise", "ordering", "algorithm", "setting", "mistakes", "chosen")
FINDING_COLUMNS = ("finding", "panel", "measure", "values", "holds")


def make_learner(name, setting):
    """A fresh learner of Fig. 3: ``name`` in ``LEARNERS``, its parameters (``LEARNERS[name]``) set to ``setting``."""
    from ..linear import PAClassifier

    if name not in LEARNERS:
        raise ValueError(f"unknown learner {name!r}; known: {', '.join(LEARNERS)}")
    params = dict(zip(LEARNERS[name], setting))
    if name == "PA-I":
        return PAClassifier(variant="pa1", **params)
    from ..second_order import AROW, NAROW, AdaGrad

    if name == "AROW":
        return AROW(covariance="full", **params)
    if name == "NAROW":
        return NAROW(covariance="full", **params)
    return AdaGrad(**params)


def settings(name, grid):
    """The grid settings of learner ``name``: one value per parameter, every combination, in grid order."""
    return list(itertools.product(grid, repeat=len(LEARNERS[name])))


def format_setting(name, setting):
    """``"eta=0.25; delta=1"``: a setting of ``name`` as text."""
    return "; ".join(f"{param}={value:g}" for param, value in zip(LEARNERS[name], setting))


def panel_title(label_noise, ordering):
    """The title of one panel, e.g. ``"no noise: hard -> easy"``."""
    noise = "no noise" if label_noise == 0.0 else f"{label_noise:.0%} label noise"
    return f"{noise}: {ORDERING_TITLES[ordering]}"


def clean_mistakes(learner, X, y, y_clean):
    r"""Cumulative mistakes (int32) of ``learner`` trained on (X, y), counted against ``y_clean``.

    A round is a mistake when :math:`y^{clean}_t\, w_t \cdot x_t \le 0`, the
    rule of :func:`olearn.run` (a zero score names no class).

    Examples
    --------
    >>> import numpy as np, olearn
    >>> from olearn.experiments._orabona2010 import clean_mistakes
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> y, y_clean = np.array([1, -1, 1]), np.array([1, 1, 1])  # the second label is flipped
    >>> clean_mistakes(olearn.PAClassifier(variant="pa1", C=1.0), X, y, y_clean).tolist()
    [1, 1, 2]
    >>> olearn.run(olearn.PAClassifier(variant="pa1", C=1.0), X, y).cumulative_mistakes.tolist()
    [1, 2, 3]
    """
    from ..evaluate import run

    scores = run(learner, X, y, record=True).scores
    return np.cumsum(y_clean * scores <= 0.0, dtype=np.int32)


def _panel_streams(random_state, n_samples, noise_std):
    """(i, j, X, y, y_clean) of the panel of noise level i and ordering j, all from one draw of the points."""
    X, y_noisy, y_clean = make_orabona2010_stream(
        n_samples, label_noise=NOISE_LEVELS[1], random_state=random_state, return_clean=True, noise_std=noise_std
    )
    for i, noise in enumerate(NOISE_LEVELS):
        y = y_clean if noise == 0.0 else y_noisy
        for j, ordering in enumerate(ORDERINGS):
            order = orabona2010_order(X, y_clean, ordering)
            yield i, j, X[order], y[order], y_clean[order]


def _tune(random_state, n_samples, noise_std, name, candidates):
    """Final mistakes of one learner on the tuning set, shape (candidates, noise levels, orderings)."""
    mistakes = np.empty((len(candidates), len(NOISE_LEVELS), len(ORDERINGS)), dtype=np.int64)
    for i, j, X, y, y_clean in _panel_streams(random_state, n_samples, noise_std):
        for g, setting in enumerate(candidates):
            mistakes[g, i, j] = clean_mistakes(make_learner(name, setting), X, y, y_clean)[-1]
    return mistakes


def _repetition(random_state, n_samples, noise_std, learners, chosen):
    """Cumulative mistakes of one repetition, shape (noise levels, orderings, learners, rounds)."""
    curves = np.empty((len(NOISE_LEVELS), len(ORDERINGS), len(learners), n_samples), dtype=np.int32)
    for i, j, X, y, y_clean in _panel_streams(random_state, n_samples, noise_std):
        for k, name in enumerate(learners):
            curves[i, j, k] = clean_mistakes(make_learner(name, chosen[name][i][j]), X, y, y_clean)
    return curves


def run_orabona2010_fig3(out_dir="olearn-orabona2010-fig3", seed=0, quick=False, n_jobs=None, learners=None,
                         progress=True, noise_std=8.5, n_repetitions=None):
    r"""Run the Fig. 3 reproduction; write the PNG and CSV files into ``out_dir``.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if missing.
    seed : int, default=0
    quick : bool, default=False
        A small version for tests: 600 rounds, 6 repetitions and the grid
        :math:`(4^{-4}, 1, 4^4)` (AdaGrad: its square), instead of 5,000
        rounds, 100 repetitions and the grid :math:`4^{-8}, \dots, 4^8`.
    n_jobs : int, optional
        Worker processes for the tuning and the repetitions (joblib; -1 uses
        every core). Default: every core, or 1 in quick mode, where starting
        workers costs more than it saves. The results do not depend on it.
    learners : sequence of str, optional
        A subset of ``LEARNERS`` (default: all four, in the paper's order).
    progress : bool, default=True
        Show a progress bar on stderr when it is a terminal.
    noise_std : float, default=8.5
        Standard deviation of the 18 noise coordinates (the text's
        :math:`\mathcal N(0, 8.5)`; ``math.sqrt(8.5)`` is the variance reading).
    n_repetitions : int, optional
        The number of repetitions averaged (default: the text's 100, or 6 in
        quick mode); the tuning set stays the first child of the seed.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``curves_csv``, ``tuning_csv``,
        ``findings_csv``, ``observations_csv`` (paths), ``rows`` (the summary
        rows), ``findings`` (the text's rankings, checked), ``observations``
        (olearn's own), ``tuned`` (panel -> learner -> {parameter: value}),
        ``curves`` (panel -> learner -> mean cumulative mistakes per round)
        and ``final_mistakes`` (panel -> learner -> final mistakes of each
        repetition).
    """
    from ..plots._orabona2010 import plot_orabona2010_fig3

    learners = tuple(LEARNERS) if learners is None else tuple(learners)
    unknown = [name for name in learners if name not in LEARNERS]
    if unknown or not learners:
        raise ValueError(f"learners must be a non-empty subset of {list(LEARNERS)}, got {list(learners)}")
    setting = _QUICK if quick else _FULL
    n, reps, grid = setting["n_samples"], setting["n_repetitions"], setting["grid"]
    reps = reps if n_repetitions is None else check_repetitions(n_repetitions)
    n_jobs = (1 if quick else -1) if n_jobs is None else n_jobs
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)

    tuning_seed, *rep_seeds = np.random.SeedSequence(seed).spawn(reps + 1)
    candidates = {name: settings(name, grid) for name in learners}
    with progress_bar(progress) as bar:
        # one job per learner and grid value of its first parameter (AdaGrad: that eta with every delta)
        size = {name: len(grid) ** (len(LEARNERS[name]) - 1) for name in learners}
        jobs = [(name, candidates[name][g:g + size[name]])
                for name in learners for g in range(0, len(candidates[name]), size[name])]
        parts = in_parallel(_tune, [(tuning_seed, n, noise_std, name, chunk) for name, chunk in jobs], n_jobs, bar,
                            "tuning on one random set")
        tuning = {name: np.concatenate([part for (owner, _), part in zip(jobs, parts) if owner == name])
                  for name in learners}  # name -> (candidates, noise levels, orderings)
        # argmin: ties go to the earlier setting of the grid
        chosen = {name: [[candidates[name][int(np.argmin(tuning[name][:, i, j]))] for j in range(len(ORDERINGS))]
                         for i in range(len(NOISE_LEVELS))] for name in learners}
        curves = in_parallel(_repetition, [(s, n, noise_std, learners, chosen) for s in rep_seeds], n_jobs, bar,
                              f"{reps} repetitions")
    curves = np.stack(curves)  # (reps, noise levels, orderings, learners, rounds)

    summary = _summarise(curves, learners, chosen)
    paths = {
        "figure": os.path.join(out_dir, "orabona2010_fig3.png"),
        "summary_csv": os.path.join(out_dir, "orabona2010_fig3_summary.csv"),
        "curves_csv": os.path.join(out_dir, "orabona2010_fig3_curves.csv"),
        "tuning_csv": os.path.join(out_dir, "orabona2010_fig3_tuning.csv"),
        "findings_csv": os.path.join(out_dir, "orabona2010_fig3_findings.csv"),
        "observations_csv": os.path.join(out_dir, "orabona2010_fig3_observations.csv"),
    }
    mean_curves = {
        panel_title(noise, ordering): {name: curves[:, i, j, k].mean(axis=0) for k, name in enumerate(learners)}
        for i, noise in enumerate(NOISE_LEVELS)
        for j, ordering in enumerate(ORDERINGS)
    }
    findings = check_findings(summary)
    observations = check_observations(summary)
    plot_orabona2010_fig3(
        mean_curves,
        paths["figure"],
        title=f"Orabona & Crammer (2010), Fig. 3: mean cumulative mistakes over {reps} repetitions, "
              f"{n} rounds, seed {seed}",
    )
    write_csv(paths["summary_csv"], SUMMARY_COLUMNS, summary)
    write_csv(paths["curves_csv"], CURVE_COLUMNS, _curve_rows(mean_curves))
    write_csv(paths["tuning_csv"], TUNING_COLUMNS, _tuning_rows(tuning, chosen, candidates))
    write_csv(paths["findings_csv"], FINDING_COLUMNS, findings)
    write_csv(paths["observations_csv"], FINDING_COLUMNS, observations)
    return {
        **paths,
        "rows": summary,
        "findings": findings,
        "observations": observations,
        "tuned": {panel_title(noise, ordering): {name: dict(zip(LEARNERS[name], chosen[name][i][j]))
                                                 for name in learners}
                  for i, noise in enumerate(NOISE_LEVELS) for j, ordering in enumerate(ORDERINGS)},
        "curves": mean_curves,
        "final_mistakes": {
            panel_title(noise, ordering): {name: curves[:, i, j, k, -1].copy() for k, name in enumerate(learners)}
            for i, noise in enumerate(NOISE_LEVELS)
            for j, ordering in enumerate(ORDERINGS)
        },
    }


def _last_mistake_round(curves):
    """1-based round of the last mistake along the last axis (0 when there is none)."""
    final = curves[..., -1:]
    # The first round at which the count reaches its final value is the last mistake.
    return np.where(final[..., 0] > 0, np.argmax(curves == final, axis=-1) + 1, 0)


def _summarise(curves, learners, chosen):
    reps, rounds = curves.shape[0], curves.shape[-1]
    final = curves[..., -1].astype(np.float64)
    first_half = curves[..., rounds // 2 - 1].astype(np.float64)
    second_half = final - first_half
    last = _last_mistake_round(curves)
    rows = []
    for i, noise in enumerate(NOISE_LEVELS):
        for j, ordering in enumerate(ORDERINGS):
            for k, name in enumerate(learners):
                totals = final[:, i, j, k]
                std = float(totals.std(ddof=1)) if reps > 1 else 0.0
                rows.append({
                    "panel": panel_title(noise, ordering),
                    "label_noise": noise,
                    "ordering": ordering,
                    "algorithm": name,
                    "setting": format_setting(name, chosen[name][i][j]),
                    "repetitions": reps,
                    "rounds": rounds,
                    "mean_mistakes": float(totals.mean()),
                    "std_mistakes": std,
                    "stderr_mistakes": std / np.sqrt(reps),
                    "mean_mistakes_first_half": float(first_half[:, i, j, k].mean()),
                    "mean_mistakes_second_half": float(second_half[:, i, j, k].mean()),
                    "mean_last_mistake_round": float(last[:, i, j, k].mean()),
                    "median_last_mistake_round": float(np.median(last[:, i, j, k])),
                })
    return rows


# The text's own statements about Fig. 3 (Sec. 6), as (statement, orderings, noise levels, measure, order):
# ``order`` lists the learners from the largest value of ``measure`` to the smallest; a group of
# learners in a tuple is not ordered within itself.
_FINDINGS = (
    ("column 1: PA-I makes the most mistakes, then AdaGrad, closely followed by NAROW, and AROW the least",
     ("easy-to-hard",), (0.0,), "mean_mistakes", ("PA-I", "AdaGrad", "NAROW", "AROW")),
    ("column 1: every learner makes fewer mistakes on the easy first half than on the second",
     ("easy-to-hard",), (0.0,), "first half < second half", ("PA-I", "AdaGrad", "NAROW", "AROW")),
    ("column 2: AROW and NAROW stop making mistakes first, then AdaGrad, and PA-I last",
     ("hard-to-easy",), NOISE_LEVELS, "mean_last_mistake_round", ("PA-I", "AdaGrad", ("AROW", "NAROW"))),
    ("columns 3 and 4: PA-I makes the most mistakes, then AdaGrad, AROW and NAROW",
     ("x1*y", "x3*y"), NOISE_LEVELS, "mean_mistakes", ("PA-I", "AdaGrad", "AROW", "NAROW")),
    ("columns 3 and 4: NAROW takes the most examples to stop making mistakes",
     ("x1*y", "x3*y"), NOISE_LEVELS, "mean_last_mistake_round", ("NAROW", ("PA-I", "AdaGrad", "AROW"))),
)

# olearn's own observations on the same runs: not claims of the text.
_OBSERVATIONS = (
    ("NAROW makes fewer mistakes than AROW in the second half of the adversarial orderings",
     ("x1*y", "x3*y"), NOISE_LEVELS, "mean_mistakes_second_half", ("AROW", "NAROW")),
    ("AdaGrad makes fewer mistakes than PA-I", ORDERINGS, NOISE_LEVELS, "mean_mistakes", ("PA-I", "AdaGrad")),
)


def _groups(order):
    return [group if isinstance(group, tuple) else (group,) for group in order]


def _check(statements, summary):
    table = {}
    for row in summary:
        table.setdefault(row["panel"], {})[row["algorithm"]] = row
    results = []
    for statement, orderings, noise_levels, measure, order in statements:
        groups = _groups(order)
        names = [name for group in groups for name in group]
        for noise in noise_levels:
            for ordering in orderings:
                rows = table.get(panel_title(noise, ordering), {})
                if not all(name in rows for name in names):
                    continue
                if measure == "first half < second half":
                    values = {name: (rows[name]["mean_mistakes_first_half"], rows[name]["mean_mistakes_second_half"])
                              for name in names}
                    shown = ", ".join(f"{name}={a:.1f}/{b:.1f}" for name, (a, b) in values.items())
                    holds = all(a < b for a, b in values.values())
                else:
                    values = {name: rows[name][measure] for name in names}
                    shown = ", ".join(f"{name}={value:.1f}" for name, value in values.items())
                    holds = all(min(values[name] for name in high) > max(values[name] for name in low)
                                for high, low in zip(groups, groups[1:]))
                results.append({"finding": statement, "panel": panel_title(noise, ordering), "measure": measure,
                                "values": shown, "holds": bool(holds)})
    return results


def check_findings(summary):
    """The text's own statements about Fig. 3 (Sec. 6), checked panel by panel from the summary rows.

    Column 1 (easy to hard, the text speaks of the plot without noise): PA-I
    makes the most mistakes, then AdaGrad, closely followed by NAROW, and
    AROW the least; every learner makes few mistakes on the easy first half.
    Column 2 (hard to easy, both noise levels): AROW and NAROW make their
    last mistake first, then AdaGrad, PA-I last. Columns 3 and 4 (sorted by
    :math:`x_1 y` and by :math:`x_3 y`, both noise levels): in total PA-I
    makes the most mistakes, then AdaGrad, AROW and NAROW (read as that
    order), and NAROW takes the most examples to stop making mistakes. A
    ranking holds when every learner's value is strictly above the next
    one's. Only the statements whose learners were all run are checked.

    Returns
    -------
    list of dict
        One row per statement and panel: ``finding``, ``panel``, ``measure``,
        ``values`` (learner=value, ...) and ``holds`` (bool).
    """
    return _check(_FINDINGS, summary)


def check_observations(summary):
    """olearn's own observations on the runs, in the form of :func:`check_findings`; not claims of the text."""
    return _check(_OBSERVATIONS, summary)


def _curve_rows(mean_curves):
    rows = []
    for noise in NOISE_LEVELS:
        for ordering in ORDERINGS:
            for name, mean in mean_curves[panel_title(noise, ordering)].items():
                keep = np.unique(np.linspace(0, mean.size - 1, min(mean.size, _CURVE_POINTS)).astype(np.int64))
                rows += [
                    {
                        "panel": panel_title(noise, ordering),
                        "label_noise": noise,
                        "ordering": ordering,
                        "algorithm": name,
                        "round": int(t) + 1,
                        "mean_cumulative_mistakes": float(mean[t]),
                    }
                    for t in keep
                ]
    return rows


def _tuning_rows(tuning, chosen, candidates):
    rows = []
    for i, noise in enumerate(NOISE_LEVELS):
        for j, ordering in enumerate(ORDERINGS):
            for name, mistakes in tuning.items():
                for g, setting in enumerate(candidates[name]):
                    rows.append({
                        "label_noise": noise,
                        "ordering": ordering,
                        "algorithm": name,
                        "setting": format_setting(name, setting),
                        "mistakes": int(mistakes[g, i, j]),
                        "chosen": setting == chosen[name][i][j],
                    })
    return rows
