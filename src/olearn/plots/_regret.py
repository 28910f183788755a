"""Regret curves under their theoretical bounds.

Each learner is one colour: its measured regret a solid line, the theorem's
bound on it a dashed line of the same colour, so a glance shows the solid line
staying under the dashed one. Figures are built with
:class:`matplotlib.figure.Figure` and rendered by the Agg canvas: pyplot is
never imported.
"""

import os

import numpy as np

# More points than this are thinned before drawing (the shape of the curve is kept).
_MAX_POINTS = 2000


def regret_curve(result):
    """(rounds, regret, bound) of a result.

    ``result`` is an :class:`olearn.experts.ExpertsResult`, an
    :class:`olearn.oco.OGDResult`, or a tuple ``(rounds, regret, bound)``
    whose bound may be None (a curve drawn without a bound).
    """
    if isinstance(result, tuple):
        rounds, regret, bound = result
    else:
        regret, bound = result.regret, result.regret_bound
        rounds = np.arange(1, np.asarray(regret).size + 1)
    rounds, regret = np.asarray(rounds, dtype=np.float64), np.asarray(regret, dtype=np.float64)
    bound = None if bound is None else np.asarray(bound, dtype=np.float64)
    if rounds.shape != regret.shape or (bound is not None and bound.shape != regret.shape):
        raise ValueError(f"rounds, regret and bound must have one entry per round; got {rounds.shape}, {regret.shape}")
    if regret.size > _MAX_POINTS:
        keep = np.unique(np.linspace(0, regret.size - 1, _MAX_POINTS).astype(np.int64))
        rounds, regret = rounds[keep], regret[keep]
        bound = None if bound is None else bound[keep]
    return rounds, regret, bound


def _colour(i):
    from matplotlib import colormaps

    colours = colormaps["tab10"].colors
    return colours[i % len(colours)]


def draw_regret(ax, results, title=None, ylabel="regret", log_y=False):
    """Draw each result's regret (solid) and bound (dashed, same colour) on ``ax``."""
    lowest = 0.0
    for i, (name, result) in enumerate(results.items()):
        rounds, regret, bound = regret_curve(result)
        lowest = min(lowest, float(np.min(regret)) if regret.size else 0.0)
        colour = _colour(i)
        ax.plot(rounds, regret, color=colour, linewidth=1.6, label=name)
        if bound is not None and np.isfinite(bound).any():
            ax.plot(rounds, bound, color=colour, linewidth=1.2, linestyle="--", label=f"{name}: bound")
    ax.set_xlabel("round t")
    ax.set_ylabel(ylabel)
    ax.set_xlim(left=0)
    if log_y:
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_ylim(bottom=1.2 * lowest)  # symlog would otherwise mirror the positive range below 0
    ax.grid(True, color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(loc="best", frameon=False, fontsize=7)


def _save(fig, path):
    if path is not None:
        fig.savefig(os.fspath(path), dpi=130, bbox_inches="tight")


def plot_regret(results, path=None, title=None, log_y=False):
    """Plot regret against the round with each bound dashed, one colour per learner.

    Parameters
    ----------
    results : dict
        Name -> ExpertsResult, OGDResult or ``(rounds, regret, bound)``.
    path : str or os.PathLike, optional
        Write the figure there (``.png``, ``.pdf``, ``.svg``).
    title : str, optional
    log_y : bool, default=False
        A symmetric-log y axis, for bounds far above the regret.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.experts import Hedge
    >>> from olearn.plots._regret import plot_regret
    >>> losses = np.random.default_rng(0).random((200, 5))
    >>> fig = plot_regret({"Hedge": Hedge(horizon=200).run(losses)}, title="Hedge")
    >>> [line.get_linestyle() for line in fig.axes[0].get_lines()]
    ['-', '--']
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    draw_regret(fig.add_subplot(), results, title=title, log_y=log_y)
    _save(fig, path)
    return fig


def plot_regret_panels(panels, path=None, title=None, ncols=3, log_y=(), extra_panels=0):
    """A grid of regret panels, one per entry of ``panels`` (title -> results as for :func:`plot_regret`).

    ``log_y`` names the panels drawn with a symmetric-log y axis;
    ``extra_panels`` leaves that many hidden axes after the regret panels
    (``fig.axes[len(panels):]``) for the caller to draw tables or notes in.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    n = max(len(panels), 1)
    ncols = min(ncols, n + extra_panels)
    nrows = -(-(n + extra_panels) // ncols)
    fig = Figure(figsize=(5.0 * ncols, 3.9 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, (panel_title, results) in zip(axes, panels.items()):
        draw_regret(ax, results, title=panel_title, log_y=panel_title in log_y)
    for ax in axes[n:]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=12)
    _save(fig, path)
    return fig
