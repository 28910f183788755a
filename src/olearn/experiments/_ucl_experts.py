r"""Reproduction: prediction with expert advice (UCL online-learning slides, Part I).

``run_ucl_experts`` writes into ``out_dir``:

* ``halving_table.csv``: a Halving run in the slides' table form: 2^k experts
  spelling every binary string, an adversary that always answers against
  the prediction, so that every one of the first k rounds is a mistake and
  the bound :math:`\log_2 n = k` is met exactly; then the one survivor
  carries on without mistakes;
* ``ucl_experts_summary.csv``: per algorithm and sequence, the learner's
  loss, the best expert's, the regret and the theorem's bound at the end;
* ``ucl_experts_curves.csv``: regret and bound after each (sampled) round;
* ``ucl_experts_regret.png``: regret (solid) under its bound (dashed) for
  Halving, Weighted Majority with beta = 1/e (whose constants are both
  :math:`1/\ln(2e/(e+1)) \approx 2.63`), its randomized version, the
  weighted average for the entropic, square and absolute losses, Hedge with
  a tuned eta and with the doubling trick, and Fixed Share against Hedge when
  the best expert switches; the last panel shows the Halving run table.

Every sequence is drawn from ``numpy.random.default_rng(seed)``; the
adversarial ones are built round by round from the learner's state.
"""

import csv
import functools
import math
import os

import numpy as np

SUMMARY_COLUMNS = (
    "panel", "sequence", "algorithm", "n_experts", "rounds", "learner_loss", "best_expert_loss", "regret",
    "regret_bound", "bound_formula", "bound_holds",
)
CURVE_COLUMNS = ("panel", "curve", "round", "regret", "regret_bound")
HALVING_COLUMNS = (
    "round", "advice", "consistent_before", "votes_for_1", "votes_for_0", "prediction", "outcome", "mistake",
    "cumulative_mistakes", "consistent_after", "bound_log2_n",
)
_CURVE_POINTS = 200


def write_csv(path, columns, rows):
    """Write dict rows to a CSV file with the given columns."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def curve_rows(panel, name, rounds, regret, bound):
    """About 200 evenly spaced rounds of one curve, as CSV rows."""
    regret = np.asarray(regret)
    keep = np.unique(np.linspace(0, regret.size - 1, min(regret.size, _CURVE_POINTS)).astype(np.int64))
    return [
        {
            "panel": panel,
            "curve": name,
            "round": int(rounds[k]),
            "regret": float(regret[k]),
            "regret_bound": "" if bound is None else float(bound[k]),
        }
        for k in keep
    ]


def weighted_majority_constants(beta):
    """(a, b) of M <= a M_i + b ln n: a = ln(1/beta) / ln(2/(1+beta)), b = 1 / ln(2/(1+beta))."""
    denominator = math.log(2.0 / (1.0 + beta))
    return math.log(1.0 / beta) / denominator, 1.0 / denominator


def forced_halving_rounds(k, m, seed=0):
    """Advice and outcomes on which Halving makes exactly k = log2 n mistakes, n = 2^k.

    For the first k rounds the experts spell every binary string of length
    k and the outcome is the opposite of Halving's prediction (the vote of
    the consistent experts is always tied, and ties go to 1), so each round
    halves them and costs a mistake. Afterwards the advice is random and the
    outcome is the one survivor's advice, so no further mistake happens.
    """
    from ..experts import Halving

    n = 2**k
    rng = np.random.default_rng(seed)
    halving = Halving()
    advice = np.empty((m, n))
    outcomes = np.empty(m)
    for t in range(m):
        if t < k:
            advice[t] = [(i >> (k - 1 - t)) & 1 for i in range(n)]
            outcomes[t] = 1.0 - halving.predict_one(advice[t])
        else:
            advice[t] = rng.integers(0, 2, n)
            outcomes[t] = advice[t, halving.consistent_[0]]
        halving.learn_one(advice[t], outcomes[t])
    return advice, outcomes


def halving_table(k=3, m=6, seed=0):
    """The rounds of Halving on :func:`forced_halving_rounds`, one dict per round (the slides' table)."""
    from ..experts import Halving

    n = 2**k
    advice, outcomes = forced_halving_rounds(k, m, seed)
    halving = Halving()
    rows, mistakes = [], 0
    for t in range(m):
        consistent = halving.consistent_ if t else np.arange(n)
        prediction = halving.predict_one(advice[t])
        halving.learn_one(advice[t], outcomes[t])
        mistakes += int(prediction != outcomes[t])
        votes_1 = int(advice[t, consistent].sum())
        rows.append({
            "round": t + 1,
            "advice": "".join(str(int(a)) for a in advice[t]),
            "consistent_before": consistent.size,
            "votes_for_1": votes_1,
            "votes_for_0": consistent.size - votes_1,
            "prediction": int(prediction),
            "outcome": int(outcomes[t]),
            "mistake": int(prediction != outcomes[t]),
            "cumulative_mistakes": mistakes,
            "consistent_after": halving.consistent_.size,
            "bound_log2_n": math.log2(n),
        })
    return rows


def _binary_experts(rng, m, n):
    """Outcomes y ~ Bernoulli(1/2) and experts that err with probabilities from 0.1 to 0.45."""
    y = rng.integers(0, 2, m).astype(float)
    errs = rng.random((m, n)) < np.linspace(0.1, 0.45, n)
    return np.where(errs, 1.0 - y[:, None], y[:, None]), y


def _adversarial_votes(learner, advice):
    """Outcomes chosen round by round against the learner's prediction (its expected one if randomized)."""
    outcomes = []
    for row in advice:
        if hasattr(learner, "random_state"):
            share = learner.weights_ @ row if hasattr(learner, "n_experts_") else row.mean()
            y = 0.0 if share >= 0.5 else 1.0
        else:
            y = 1.0 - learner.predict_one(row)
        learner.learn_one(row, y)
        outcomes.append(y)
    return np.array(outcomes)


def _adversarial_average(learner, advice):
    """Outcome 1 when the weighted average is below 1/2, else 0: the farther end."""
    outcomes = []
    for row in advice:
        outcomes.append(1.0 if learner.predict_one(row) < 0.5 else 0.0)
        learner.learn_one(row, outcomes[-1])
    return np.array(outcomes)


def _adversarial_losses(hedge, m, n):
    """Loss 1 for the expert with the largest weight (the lowest index on ties), 0 for the others."""
    rows = []
    for _ in range(m):
        weights = hedge.weights_ if hasattr(hedge, "n_experts_") else np.full(n, 1.0 / n)
        rows.append(np.eye(n)[int(np.argmax(weights))])
        hedge.learn_one(rows[-1])
    return np.array(rows)


class _Curve:
    """One line of the figure and one row of the summary: a curve not given by an ExpertsResult."""

    def __init__(self, regret, bound, **summary):
        self.regret = np.asarray(regret)
        self.regret_bound = None if bound is None else np.asarray(bound)
        self.summary = summary

    def row(self):
        bound = self.regret_bound
        return {
            **self.summary,
            "rounds": self.regret.size,
            "regret": float(self.regret[-1]),
            "regret_bound": "" if bound is None else float(bound[-1]),
            "bound_holds": "" if bound is None else bool(np.all(self.regret <= bound + 1e-9 * np.maximum(1, bound))),
        }


def _summary_row(panel, sequence, name, res):
    if isinstance(res, _Curve):
        return {"panel": panel, "sequence": sequence, "algorithm": name, **res.row()}
    return {
        "panel": panel, "sequence": sequence, "algorithm": f"{name}: {res.algorithm}", "n_experts": res.n_experts,
        "rounds": res.n_rounds, "learner_loss": res.cumulative_loss, "best_expert_loss": res.best_expert_loss,
        "regret": float(res.regret[-1]), "regret_bound": float(res.regret_bound[-1]),
        "bound_formula": res.bound_formula, "bound_holds": res.bound_holds,
    }


def _draw_halving_table(ax, table):
    ax.set_visible(True)
    ax.axis("off")
    columns = ("round", "advice", "consistent_before", "prediction", "outcome", "cumulative_mistakes")
    cells = [[str(row[c]) for c in columns] for row in table]
    labels = ["t", "advice", "consistent", "prediction", "outcome", "mistakes"]
    widths = [0.08, 0.22, 0.18, 0.18, 0.16, 0.16]
    drawn = ax.table(cellText=cells, colLabels=labels, colWidths=widths, loc="center", cellLoc="center")
    drawn.auto_set_font_size(False)
    drawn.set_fontsize(8)
    drawn.scale(1.0, 1.4)
    ax.set_title("Halving run table: n = 8, log2 n = 3 mistakes, then none", fontsize=10)


def run_ucl_experts(out_dir="olearn-ucl-experts", seed=0, quick=False):
    """Run the experts reproduction; write the PNG and CSV files into ``out_dir``.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if missing.
    seed : int, default=0
    quick : bool, default=False
        Short sequences (for tests): 300 rounds instead of 3000.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``curves_csv``, ``halving_csv`` (paths),
        ``rows`` (the summary rows), ``halving_table`` (its rows),
        ``wm_constants`` (a, b of Weighted Majority with beta = 1/e) and
        ``results`` (panel -> curve name -> ExpertsResult or curve).
    """
    from ..experts import FixedShare, Halving, Hedge, RandomizedWeightedMajority, WeightedAverage, WeightedMajority
    from ..plots._regret import plot_regret_panels

    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    m = 300 if quick else 3000
    n = 20
    beta = math.exp(-1.0)
    panels = {}

    # Halving: random experts with one perfect, and the forcing adversary on all binary strings.
    table = halving_table(k=3, m=6, seed=seed)
    m_halving = 40  # every mistake of Halving comes early: show the first rounds only
    random_advice = rng.integers(0, 2, (m_halving, 64)).astype(float)
    panels["Halving: mistakes <= log2 n (one perfect expert)"] = {
        "random, n=64": ("random", Halving().run(random_advice, random_advice[:, rng.integers(64)])),
        "adversarial, n=64": ("adversarial", Halving().run(*forced_halving_rounds(6, m_halving, seed))),
    }

    # Weighted Majority and its randomized version, beta = 1/e.
    advice, y = _binary_experts(rng, m, n)
    adversarial_advice = rng.integers(0, 2, (m, n)).astype(float)
    adv_y = _adversarial_votes(WeightedMajority(beta=beta), adversarial_advice)
    panels["Weighted Majority, beta = 1/e: M <= 2.63 (M* + ln n)"] = {
        "random": ("random", WeightedMajority(beta=beta).run(advice, y)),
        "adversarial": ("adversarial", WeightedMajority(beta=beta).run(adversarial_advice, adv_y)),
    }
    rwm = functools.partial(RandomizedWeightedMajority, beta=beta, random_state=seed)
    adv_y_rwm = _adversarial_votes(rwm(), adversarial_advice)
    panels["Randomized WM, beta = 1/e: E[M] <= 1.58 (M* + ln n)"] = {
        "random": ("random", rwm().run(advice, y)),
        "adversarial": ("adversarial", rwm().run(adversarial_advice, adv_y_rwm)),
    }

    # Weighted average: experts forecast a drifting probability with more or less noise.
    q = 0.5 + 0.4 * np.sin(np.arange(m) / 50.0)
    outcome = (rng.random(m) < q).astype(float)
    forecasts = np.clip(q[:, None] + rng.normal(0.0, np.linspace(0.02, 0.4, n), (m, n)), 0.01, 0.99)
    wa_random, wa_adversarial = {}, {}
    for loss in ("entropic", "square", "absolute"):
        wa_random[loss] = ("random", WeightedAverage(loss=loss).run(forecasts, outcome))
        adv = _adversarial_average(WeightedAverage(loss=loss), forecasts)
        wa_adversarial[loss] = ("adversarial", WeightedAverage(loss=loss).run(forecasts, adv))
    panels["Weighted average, random (default eta per loss)"] = wa_random
    panels["Weighted average, adversarial outcomes"] = wa_adversarial

    # Hedge: random losses of different means; losses aimed at the leader.
    losses = np.clip(np.linspace(0.3, 0.6, n) + rng.normal(0.0, 0.25, (m, n)), 0.0, 1.0)
    sampled = Hedge(horizon=m, randomized=True, random_state=seed).run(losses)
    panels["Hedge, random losses: sqrt(2 m ln n)"] = {
        "eta tuned to m": ("random", Hedge(horizon=m).run(losses)),
        "doubling trick": ("random", Hedge().run(losses)),
        "randomized (HA-2), realised": ("random", _Curve(
            np.cumsum(sampled.losses) - sampled.best_losses, None, n_experts=n,
            learner_loss=float(np.sum(sampled.losses)), best_expert_loss=sampled.best_expert_loss,
            bound_formula="the bound holds for the expected loss, shown by 'eta tuned to m'",
        )),
    }
    # With two experts the leader changes every round and the learner always pays the larger share.
    panels["Hedge, adversarial losses (n=2, loss 1 on the leader)"] = {
        "eta tuned to m": (
            "adversarial", Hedge(horizon=m).run(_adversarial_losses(Hedge(horizon=m, n_experts=2), m, 2))
        ),
        "doubling trick": ("adversarial", Hedge().run(_adversarial_losses(Hedge(n_experts=2), m, 2))),
    }

    # Fixed Share against Hedge when the best expert switches 4 times.
    n_share, segments = 10, 5
    comparator = np.repeat(rng.permutation(n_share)[:segments], -(-m // segments))[:m]
    switching = (rng.random((m, n_share)) < 0.5).astype(float)
    switching[np.arange(m), comparator] = (rng.random(m) < 0.15).astype(float)
    switches = segments - 1
    alpha = switches / (m - 1)
    complexity = (
        math.log(n_share) + switches * math.log((n_share - 1) / alpha) - (m - 1 - switches) * math.log1p(-alpha)
    )
    eta = math.sqrt(2.0 * complexity / m)  # minimises complexity / eta + eta m / 2
    fixed_share = FixedShare(eta=eta, alpha=alpha).run(switching, comparator=comparator)
    hedge = Hedge(horizon=m).run(switching)
    comparator_loss = np.cumsum(switching[np.arange(m), comparator])
    panels["Tracking a switching best expert (4 switches)"] = {
        "Fixed Share": ("switching", _Curve(
            fixed_share.comparator_regret, fixed_share.comparator_bound, n_experts=n_share,
            learner_loss=fixed_share.cumulative_loss, best_expert_loss=float(comparator_loss[-1]),
            bound_formula="(ln n + k ln((n-1)/alpha) + (T-1-k) ln(1/(1-alpha)))/eta + eta T/2",
        )),
        "Hedge (no tracking bound)": ("switching", _Curve(
            hedge.cumulative_losses - comparator_loss, None, n_experts=n_share,
            learner_loss=hedge.cumulative_loss, best_expert_loss=float(comparator_loss[-1]), bound_formula="",
        )),
    }

    rows, curves, results = [], [], {}
    for panel, entries in panels.items():
        results[panel] = {name: res for name, (_, res) in entries.items()}
        for name, (sequence, res) in entries.items():
            rows.append(_summary_row(panel, sequence, name, res))
            curves += curve_rows(panel, name, np.arange(1, res.regret.size + 1), res.regret, res.regret_bound)

    paths = {
        "figure": os.path.join(out_dir, "ucl_experts_regret.png"),
        "summary_csv": os.path.join(out_dir, "ucl_experts_summary.csv"),
        "curves_csv": os.path.join(out_dir, "ucl_experts_curves.csv"),
        "halving_csv": os.path.join(out_dir, "halving_table.csv"),
    }
    figure = plot_regret_panels(
        {panel: {name: _as_plotted(res) for name, res in curves_.items()} for panel, curves_ in results.items()},
        title=f"Prediction with expert advice: measured regret (solid) under its bound (dashed), seed {seed}",
        log_y=("Weighted average, random (default eta per loss)", "Weighted average, adversarial outcomes"),
        ncols=3,
        extra_panels=1,
    )
    _draw_halving_table(figure.axes[len(results)], table)
    figure.savefig(paths["figure"], dpi=130, bbox_inches="tight")
    write_csv(paths["summary_csv"], SUMMARY_COLUMNS, rows)
    write_csv(paths["curves_csv"], CURVE_COLUMNS, curves)
    write_csv(paths["halving_csv"], HALVING_COLUMNS, table)
    return {
        **paths,
        "rows": rows,
        "halving_table": table,
        "wm_constants": weighted_majority_constants(beta),
        "results": results,
    }


def _as_plotted(res):
    """What the regret plot takes: a result as is, a curve as (rounds, regret, bound)."""
    if isinstance(res, _Curve):
        return np.arange(1, res.regret.size + 1), res.regret, res.regret_bound
    return res
