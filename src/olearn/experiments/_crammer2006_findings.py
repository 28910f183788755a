"""The conclusions of Crammer et al. (2006), Sec. 10.1-10.2, checked on the measured curves.

Each function takes the arrays a runner of :mod:`olearn.experiments._crammer2006`
measured and returns two lists of rows: the **paper's claims** (what Sec. 10
says in words about the figure, each row quoting it) and **olearn's
observations** (further regularities we check, which the text does not state).
A row has ``figure``, ``source`` (``"paper, Sec. 10.x"`` or
``"olearn observation"``), ``finding``, ``measure`` (what is compared),
``values`` (the numbers compared) and ``holds``. All comparisons are on means
over the repetitions. Where the text's words are vague ("similar", "equally
well") the tolerance is ours and is stated in the measure.
"""

import numpy as np

OBSERVATION = "olearn observation"
# "Similar" and "equally well" of Sec. 10.1, read as absolute differences in average error.
SIMILAR = 0.02
EQUAL = 0.01


def _values(pairs):
    return ", ".join(f"{name}={value:.4f}" for name, value in pairs)


def _row(figure, source, finding, measure, pairs, holds):
    return {"figure": figure, "source": source, "finding": finding, "measure": measure, "values": _values(pairs),
            "holds": bool(holds)}


def fig3_findings(levels, error, loss):
    """Fig. 3 (arrays (repetitions, levels, [PA, PA-I, PA-II, best fixed])): (claims, observations).

    The paper's claims (Sec. 10.1, for instance noise, and "the behavior
    observed in the previous experiment is repeated" for label noise):

    1. "for low levels of noise, all three PA variants make a similar number
       of errors": at the lowest level the three errors are within
       ``SIMILAR`` of each other.
    2. "PA-I and PA-II outperform the basic PA algorithm when the noise level
       is high": at the highest level their error and their loss are below PA's.
    3. "PA-I and PA-II performed equally well for all levels of noise": their
       errors differ by at most ``EQUAL`` at every level.

    olearn's observations:

    4. PA-I and PA-II end close to the best fixed classifier and PA does not:
       at the highest level their excess error over it is below a quarter of PA's.
    5. PA's excess error over the best fixed classifier grows with the noise;
       that of PA-I and PA-II (C = 0.001) shrinks, as their slow start
       matters less when even the best classifier errs often.
    """
    claims, observations = [], []
    names = ("PA", "PA-I", "PA-II")
    for kind in ("instance", "label"):
        e, l = error[kind].mean(axis=0), loss[kind].mean(axis=0)
        low, high = levels[kind][0], levels[kind][-1]
        source = f"paper, Sec. 10.1 ({'instance noise' if kind == 'instance' else 'label noise: repeated'})"
        noise = f"{kind} noise {low:g} -> {high:g}"
        symbol = "sigma" if kind == "instance" else "p"
        spread = e[0, :3].max() - e[0, :3].min()
        claims.append(_row(
            "fig3", source, "for low levels of noise, all three PA variants make a similar number of errors",
            f"error at {kind} noise {low:g} (similar: max - min <= {SIMILAR:g})",
            list(zip(names, e[0, :3])) + [("max-min", spread)], spread <= SIMILAR,
        ))
        claims.append(_row(
            "fig3", source, "PA-I and PA-II outperform the basic PA algorithm when the noise level is high",
            f"error and loss at {kind} noise {high:g}",
            [(f"{n} error", v) for n, v in zip(names, e[-1, :3])] + [(f"{n} loss", v) for n, v in zip(names, l[-1, :3])],
            max(e[-1, 1], e[-1, 2]) < e[-1, 0] and max(l[-1, 1], l[-1, 2]) < l[-1, 0],
        ))
        gap = np.abs(e[:, 1] - e[:, 2])
        claims.append(_row(
            "fig3", source, "PA-I and PA-II performed equally well for all levels of noise",
            f"|error PA-I - error PA-II| at every {kind} noise level (equal: <= {EQUAL:g})",
            [(f"{symbol}={level:g}", g) for level, g in zip(levels[kind], gap)], np.all(gap <= EQUAL),
        ))
        excess = e[:, :3] - e[:, 3:]
        observations.append(_row(
            "fig3", OBSERVATION, "PA-I and PA-II end close to the best fixed classifier, PA does not",
            f"excess error over the best fixed classifier at {kind} noise {high:g}",
            zip(names, excess[-1]), max(excess[-1, 1], excess[-1, 2]) < 0.25 * excess[-1, 0],
        ))
        observations.append(_row(
            "fig3", OBSERVATION, "PA's excess error grows with the noise, PA-I's and PA-II's shrinks",
            f"excess error over the best fixed classifier, {noise}",
            [(f"{name} {end}", excess[i, k]) for k, name in enumerate(names) for i, end in ((0, "lowest"), (-1, "highest"))],
            excess[-1, 0] > excess[0, 0] and excess[-1, 1] < excess[0, 1] and excess[-1, 2] < excess[0, 2],
        ))
    return claims, observations


def fig4_findings(label_noise, log10_C, error, loss):
    """Fig. 4 (arrays (repetitions, label noise, C, [PA-I, PA-II])): (claims, observations).

    The paper's claims (Sec. 10.2):

    1. "for very small values of C the loss of PA-I and PA-II will be high,
       regardless of the noise level": at the smallest C the loss is above
       its minimum over C, at every p.
    2. "as we increase the value of C, the difference between different noise
       levels becomes apparent": the spread of the loss over p is wider at the
       largest C than at the smallest.
    3. "C should be small when the data is noisy": the C of the smallest
       error at the highest p is at most the one at p = 0.

    olearn's observations:

    4. Under label noise C = 0.01 beats the largest C, for every p > 0.
    5. Noise makes a large C costly: the error at the largest C exceeds the
       smallest error over C by more at the highest p than at p = 0.
    6. For large C, PA-I and PA-II coincide (both become PA): their errors
       at the largest C differ by less than 0.005.
    """
    e, l = error.mean(axis=0), loss.mean(axis=0)
    small = int(np.argmin(np.abs(log10_C - (-2.0))))
    source = "paper, Sec. 10.2"
    claims, observations = [], []
    for k, name in enumerate(("PA-I", "PA-II")):
        excess = l[:, 0, k] - l[:, :, k].min(axis=1)
        claims.append(_row(
            "fig4", source,
            "for very small values of C the loss of PA-I and PA-II will be high, regardless of the noise level",
            f"{name}: loss at C = {10.0 ** log10_C[0]:g} minus the smallest loss over C",
            [(f"p={p:g}", x) for p, x in zip(label_noise, excess)], np.all(excess > 0.0),
        ))
        spread = np.ptp(l[:, :, k], axis=0)
        claims.append(_row(
            "fig4", source,
            "as we increase the value of C, the difference between different noise levels becomes apparent",
            f"{name}: spread of the loss over p at the smallest and at the largest C",
            ((f"C={10.0 ** log10_C[0]:g}", spread[0]), (f"C={10.0 ** log10_C[-1]:g}", spread[-1])),
            spread[-1] > spread[0],
        ))
        best = log10_C[np.argmin(e[:, :, k], axis=1)]
        claims.append(_row(
            "fig4", source, "C should be small when the data is noisy", f"{name}: log10 C of the smallest error",
            [(f"p={p:g}", b) for p, b in zip(label_noise, best)], best[-1] <= best[0],
        ))
        for i, p in enumerate(label_noise):
            if p > 0:
                observations.append(_row(
                    "fig4", OBSERVATION, "under label noise a small C beats a large C",
                    f"{name} error at p = {p:g}, C = {10.0 ** log10_C[small]:g} vs C = {10.0 ** log10_C[-1]:g}",
                    ((f"C={10.0 ** log10_C[small]:g}", e[i, small, k]), (f"C={10.0 ** log10_C[-1]:g}", e[i, -1, k])),
                    e[i, small, k] < e[i, -1, k],
                ))
        cost = e[:, -1, k] - e[:, :, k].min(axis=1)
        observations.append(_row(
            "fig4", OBSERVATION, "label noise makes a large C costly",
            f"{name}: error at the largest C minus the smallest error over C",
            [(f"p={p:g}", c) for p, c in zip(label_noise, cost)], cost[-1] > cost[0],
        ))
    gap = np.abs(e[:, -1, 0] - e[:, -1, 1])
    observations.append(_row(
        "fig4", OBSERVATION, "for large C, PA-I and PA-II coincide",
        f"|error PA-I - error PA-II| at C = {10.0 ** log10_C[-1]:g}",
        [(f"p={p:g}", g) for p, g in zip(label_noise, gap)], np.all(gap < 0.005),
    ))
    return claims, observations


def fig5_findings(learners, average_error):
    """Fig. 5 (``average_error`` of shape (repetitions, learners, rounds); learners (name, C) pairs).

    Returns (claims, observations); both claims are the paper's (Sec. 10.2:
    "setting C to be a small number leads to a slow progress rate ... when C
    is large, the error rate decreases much faster, but at the price of
    inferior performance later on"), and there are no observations of ours:

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
            (early, "when C is large, the error rate decreases much faster",
             mean[large, early - 1] < mean[small, early - 1]),
            (rounds, "at the price of inferior performance later on", mean[small, -1] < mean[large, -1]),
        ):
            rows.append(_row(
                "fig5", "paper, Sec. 10.2", finding, f"{name}: average error after {t:,} rounds",
                (("C=100", mean[large, t - 1]), ("C=0.001", mean[small, t - 1])), holds,
            ))
    return rows, []
