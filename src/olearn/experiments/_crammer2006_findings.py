"""The conclusions of Crammer et al. (2006), Sec. 10.1-10.2, checked on the measured curves.

Each function takes the arrays a runner of :mod:`olearn.experiments._crammer2006`
measured and returns one row per conclusion: ``figure``, ``finding``,
``measure`` (what is compared), ``values`` (the numbers compared) and
``holds``. All comparisons are on means over the repetitions.
"""

import numpy as np


def _values(pairs):
    return ", ".join(f"{name}={value:.4f}" for name, value in pairs)


def _row(figure, finding, measure, pairs, holds):
    return {"figure": figure, "finding": finding, "measure": measure, "values": _values(pairs),
            "holds": bool(holds)}


def fig3_findings(levels, error, loss):
    """Fig. 3 (arrays (repetitions, levels, [PA, PA-I, PA-II, best fixed])).

    1. PA-I and PA-II are more robust to noise than PA: at the highest
       level of each noise they make fewer mistakes than PA.
    2. PA-I and PA-II end close to the best fixed classifier and PA does
       not: at the highest noise level, their excess error over it is below
       a quarter of PA's.
    3. PA's excess error over the best fixed classifier grows with the
       noise; that of PA-I and PA-II (C = 0.001) shrinks, as their slow
       start matters less when even the best classifier errs often.
    4. PA's hinge loss grows fastest with the noise: at the highest level
       it is above PA-I's and PA-II's.
    """
    rows = []
    for kind in ("instance", "label"):
        e, l = error[kind].mean(axis=0), loss[kind].mean(axis=0)
        noise = f"{kind} noise {levels[kind][0]:g} -> {levels[kind][-1]:g}"
        excess = e[:, :3] - e[:, 3:]
        rows.append(_row(
            "fig3", "PA-I and PA-II are more robust to noise than PA", f"error at {kind} noise {levels[kind][-1]:g}",
            zip(("PA", "PA-I", "PA-II"), e[-1, :3]), e[-1, 1] < e[-1, 0] and e[-1, 2] < e[-1, 0],
        ))
        rows.append(_row(
            "fig3", "PA-I and PA-II end close to the best fixed classifier, PA does not",
            f"excess error over the best fixed classifier at {kind} noise {levels[kind][-1]:g}",
            zip(("PA", "PA-I", "PA-II"), excess[-1]), max(excess[-1, 1], excess[-1, 2]) < 0.25 * excess[-1, 0],
        ))
        rows.append(_row(
            "fig3", "PA's excess error grows with the noise, PA-I's and PA-II's shrinks",
            f"excess error over the best fixed classifier, {noise}",
            [(f"{name} {end}", excess[i, k]) for k, name in enumerate(("PA", "PA-I", "PA-II"))
             for i, end in ((0, "lowest"), (-1, "highest"))],
            excess[-1, 0] > excess[0, 0] and excess[-1, 1] < excess[0, 1] and excess[-1, 2] < excess[0, 2],
        ))
        rows.append(_row(
            "fig3", "PA's loss grows fastest with the noise", f"hinge loss at {kind} noise {levels[kind][-1]:g}",
            zip(("PA", "PA-I", "PA-II", "best fixed"), l[-1]), l[-1, 0] > max(l[-1, 1], l[-1, 2]),
        ))
    return rows



def fig4_findings(label_noise, log10_C, error, loss):
    """Fig. 4 (arrays (repetitions, label noise, C, [PA-I, PA-II])).

    1. Under label noise a small C beats a large one: the error at
       C = 0.01 is below the error at the largest C, for every p > 0.
    2. Noise makes a large C costly: the error at the largest C exceeds the
       smallest error over C by more at the highest p than at p = 0.
    3. The best C does not grow with the noise: the C of the smallest error
       at the highest p is at most the one at p = 0.
    4. For large C, PA-I and PA-II coincide (both become PA): their errors
       at the largest C differ by less than 0.005.
    """
    e = error.mean(axis=0)
    small = int(np.argmin(np.abs(log10_C - (-2.0))))
    rows = []
    for k, name in enumerate(("PA-I", "PA-II")):
        for i, p in enumerate(label_noise):
            if p > 0:
                rows.append(_row(
                    "fig4", "under label noise a small C beats a large C",
                    f"{name} error at p = {p:g}, C = {10.0 ** log10_C[small]:g} vs C = {10.0 ** log10_C[-1]:g}",
                    ((f"C={10.0 ** log10_C[small]:g}", e[i, small, k]), (f"C={10.0 ** log10_C[-1]:g}", e[i, -1, k])),
                    e[i, small, k] < e[i, -1, k],
                ))
        cost = e[:, -1, k] - e[:, :, k].min(axis=1)
        rows.append(_row(
            "fig4", "label noise makes a large C costly",
            f"{name}: error at the largest C minus the smallest error over C",
            [(f"p={p:g}", c) for p, c in zip(label_noise, cost)], cost[-1] > cost[0],
        ))
        best = log10_C[np.argmin(e[:, :, k], axis=1)]
        rows.append(_row(
            "fig4", "the best C does not grow with the label noise", f"{name}: log10 C of the smallest error",
            [(f"p={p:g}", b) for p, b in zip(label_noise, best)], best[-1] <= best[0],
        ))
    gap = np.abs(e[:, -1, 0] - e[:, -1, 1])
    rows.append(_row(
        "fig4", "for large C, PA-I and PA-II coincide", f"|error PA-I - error PA-II| at C = {10.0 ** log10_C[-1]:g}",
        [(f"p={p:g}", g) for p, g in zip(label_noise, gap)], np.all(gap < 0.005),
    ))
    return rows


def fig5_findings(learners, average_error):
    """Fig. 5 (``average_error`` of shape (repetitions, learners, rounds); learners (name, C) pairs).

    1. A large C learns faster: after 100 rounds, C = 100 has the lower
       average error.
    2. A small C ends lower: after all the rounds, C = 0.001 has the lower
       average error.
    """
    mean = average_error.mean(axis=0)
    rounds = mean.shape[1]
    early = min(100, rounds)
    rows = []
    for name in dict.fromkeys(n for n, _ in learners):
        large, small = (learners.index((name, C)) for C in (100.0, 0.001))
        for t, finding, holds in (
            (early, "a large C learns faster at first", mean[large, early - 1] < mean[small, early - 1]),
            (rounds, "a small C ends with fewer mistakes", mean[small, -1] < mean[large, -1]),
        ):
            rows.append(_row(
                "fig5", finding, f"{name}: average error after {t:,} rounds",
                (("C=100", mean[large, t - 1]), ("C=0.001", mean[small, t - 1])), holds,
            ))
    return rows
