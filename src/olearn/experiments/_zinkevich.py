r"""Reproduction: projected online gradient descent (Zinkevich 2003; the OCO notes).

``run_zinkevich_ogd`` writes into ``out_dir``:

* ``zinkevich_ogd_regret.png``: the measured regret (solid) of projected OGD
  under its bound (dashed, see :class:`olearn.oco.ProjectedOGD`) for

  1. the three schedules :math:`\eta_t = 1/\sqrt t`, :math:`1/\sqrt T`
     (constant) and :math:`1/t` on linear losses over the unit L2 ball;
  2. the same schedules on the strongly convex losses
     :math:`\tfrac12\|x - c_t\|^2` with a fixed centre plus noise (no drift),
     against the best fixed point :math:`\Pi(\bar c)`;
  3. the same losses with a centre moving on a circle (drift), against the
     moving centre itself (dynamic regret, with its path length L);
  4. delayed updates, :math:`\tau \in \{0, 1, 10, 100\}` (Langford, Smola &
     Zinkevich 2009; the notes' Sec. 4.3: the gradient of round
     :math:`t - \tau` applied with :math:`\eta_t`), on the losses of 2, with
     :math:`\eta_t = 1/\sqrt t`, and
     for :math:`\tau = 100` also with the rate :math:`\sqrt{2/(2\tau+1)}/\sqrt t`
     that minimises the delayed bound;
  5. and 6. OGD on the simplex against Hedge for n = 10 and n = 100 experts
     (the notes, Sec. 4.1): OGD's bound grows like :math:`\sqrt n`, Hedge's
     like :math:`\sqrt{\ln n}`.

* ``zinkevich_ogd_summary.csv``: the final regret and bound of each curve,
  with D, G and the path length, and for the curves with
  :math:`\eta_t = 1/\sqrt t` and no delay the notes' statement of Zinkevich's
  bound, :math:`\frac{D^2}{2}\sqrt T + G^2\sqrt T + 2DL\sqrt T` (Thm. 4.1.3),
  beside the tighter one; ``zinkevich_ogd_curves.csv``: the curves.

All data come from ``numpy.random.default_rng(seed)``.
"""

import math
import os

import numpy as np

from ._ucl_experts import CURVE_COLUMNS, curve_rows, write_csv

SUMMARY_COLUMNS = (
    "panel", "setting", "rounds", "diameter", "max_gradient_norm", "path_length", "regret", "regret_bound",
    "notes_bound", "regret_kind", "bound_holds", "regret_over_sqrt_T",
)


def _quadratic_losses(centres):
    from ..oco import ConvexLoss

    return [ConvexLoss.squared_distance(c) for c in centres]


def run_zinkevich_ogd(out_dir="olearn-zinkevich-ogd", seed=0, quick=False):
    """Run the projected-OGD reproduction; write the PNG and CSV files into ``out_dir``.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if missing.
    seed : int, default=0
    quick : bool, default=False
        Short sequences (for tests): 300 rounds instead of 10,000.

    Returns
    -------
    dict
        ``figure``, ``summary_csv``, ``curves_csv`` (paths), ``rows`` (the
        summary rows) and ``results`` (panel -> curve name -> result).
    """
    from ..experts import Hedge
    from ..oco import L2Ball, ProjectedOGD, Simplex
    from ..plots._regret import plot_regret_panels

    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    T = 300 if quick else 10_000
    d = 10
    ball = L2Ball(d, radius=1.0)
    schedules = {
        "1/sqrt(t)": {"schedule": "sqrt", "eta": 1.0},
        "1/sqrt(T), constant": {"schedule": "constant", "eta": 1.0 / math.sqrt(T)},
        "1/t": {"schedule": "inverse", "eta": 1.0},
    }
    panels = {}

    # 1. Linear losses: a fixed drift mu plus noise; the best fixed point is -mu_hat / |mu_hat|.
    mu = rng.standard_normal(d)
    mu *= 0.3 / np.linalg.norm(mu)
    gradients = mu + rng.standard_normal((T, d)) / math.sqrt(d)
    panels["Schedules: linear losses on the unit L2 ball"] = {
        name: ProjectedOGD(ball, **setting).run(gradients) for name, setting in schedules.items()
    }

    # 2. Strongly convex losses, no drift: centre c plus noise, compared with Proj(mean of the centres).
    centre = rng.standard_normal(d)
    centre *= 0.6 / np.linalg.norm(centre)
    centres = centre + 0.5 * rng.standard_normal((T, d)) / math.sqrt(d)
    best_fixed = ball.project(centres.mean(axis=0))
    panels["Schedules: 1/2 |x - c_t|^2, no drift"] = {
        name: ProjectedOGD(ball, **setting).run(_quadratic_losses(centres), comparator=best_fixed)
        for name, setting in schedules.items()
    }

    # 3. The same losses with the centre moving on a circle: dynamic regret against the centre.
    angle = 2.0 * np.pi * 3.0 * np.arange(T) / T  # three turns over the run
    moving = np.zeros((T, d))
    moving[:, 0], moving[:, 1] = 0.7 * np.cos(angle), 0.7 * np.sin(angle)
    observed = moving + 0.5 * rng.standard_normal((T, d)) / math.sqrt(d)
    panels["Schedules: 1/2 |x - c_t|^2 with drift (dynamic regret)"] = {
        name: ProjectedOGD(ball, **setting).run(_quadratic_losses(observed), comparator=moving)
        for name, setting in schedules.items()
    }

    # 4. Delayed updates on the losses of 2, with eta_t = 1/sqrt(t); then the delay-aware rate
    # eta = D / (G sqrt(2 (2 tau + 1))) that minimises the bound (D = 2, G about 1), O(sqrt(tau T)).
    delayed = {
        f"delay {tau}": ProjectedOGD(ball, eta=1.0, schedule="sqrt", delay=tau).run(
            _quadratic_losses(centres), comparator=best_fixed
        )
        for tau in (0, 1, 10, 100)
    }
    delayed["delay 100, eta = sqrt(2/201)"] = ProjectedOGD(ball, eta=math.sqrt(2.0 / 201.0), delay=100).run(
        _quadratic_losses(centres), comparator=best_fixed
    )
    panels["Delayed updates (Slow learners are fast)"] = delayed

    # 5-6. OGD on the simplex against Hedge: losses in [0, 1], expert means from 0.3 to 0.6.
    for n in (10, 100):
        losses = np.clip(np.linspace(0.3, 0.6, n) + rng.normal(0.0, 0.25, (T, n)), 0.0, 1.0)
        # eta = D / (G sqrt 2) with D = sqrt 2, G = sqrt n minimises D^2 sqrt(T)/(2 eta) + eta G^2 sqrt(T)
        panels[f"OGD on the simplex vs Hedge, n = {n}"] = {
            "OGD, eta_t = 1/sqrt(n t)": ProjectedOGD(Simplex(n), eta=1.0 / math.sqrt(n)).run(losses),
            "Hedge, eta = sqrt(2 ln n / T)": Hedge(horizon=T).run(losses),
        }

    rows, curves = [], []
    for panel, results in panels.items():
        for name, res in results.items():
            rows.append(_summary_row(panel, name, res))
            curves += curve_rows(panel, name, np.arange(1, res.regret.size + 1), res.regret, res.regret_bound)

    paths = {
        "figure": os.path.join(out_dir, "zinkevich_ogd_regret.png"),
        "summary_csv": os.path.join(out_dir, "zinkevich_ogd_summary.csv"),
        "curves_csv": os.path.join(out_dir, "zinkevich_ogd_curves.csv"),
    }
    plot_regret_panels(
        panels,
        paths["figure"],
        title=f"Projected online gradient descent: measured regret (solid) under its bound (dashed), seed {seed}",
        log_y=tuple(panels)[:4],
    )
    write_csv(paths["summary_csv"], SUMMARY_COLUMNS, rows)
    write_csv(paths["curves_csv"], CURVE_COLUMNS, curves)
    return {**paths, "rows": rows, "results": panels}


def _summary_row(panel, name, res):
    T = res.regret.size
    if hasattr(res, "diameter"):
        extra = {
            "diameter": res.diameter,
            "max_gradient_norm": float(res.gradient_norms.max()),
            "path_length": float(res.path_length[-1]),
            "regret_kind": res.regret_kind,
            "notes_bound": "" if math.isnan(res.notes_bound[-1]) else float(res.notes_bound[-1]),
        }
    else:  # Hedge, on the simplex of allocations
        extra = {"diameter": math.sqrt(2.0), "max_gradient_norm": "", "path_length": 0.0, "regret_kind": "exact",
                 "notes_bound": ""}
    return {
        "panel": panel,
        "setting": name,
        "rounds": T,
        **extra,
        "regret": float(res.regret[-1]),
        "regret_bound": float(res.regret_bound[-1]),
        "bound_holds": res.bound_holds,
        "regret_over_sqrt_T": float(res.regret[-1]) / math.sqrt(T),
    }
