"""Cumulative-mistake curves of online learners.

Figures are built with :class:`matplotlib.figure.Figure` and rendered by the
Agg canvas directly: pyplot is never imported, so the functions neither open
windows nor change the backend or the current figure of the caller.
"""

import os

import numpy as np

# More points than this are thinned before drawing: a line of a million
# vertices looks the same as one of a few thousand but is slow to render.
_MAX_POINTS = 4000
_STYLES = ("-", "--", "-.", ":")


def curve(result):
    """(rounds, cumulative mistakes) of a result.

    ``result`` is an :class:`olearn.RunResult` recorded with ``record=True``,
    or any object with ``cumulative_mistakes`` and, optionally, ``rounds``
    (the 1-based round of each entry, for curves sampled at some rounds only).
    """
    mistakes = np.asarray(result.cumulative_mistakes)
    rounds = getattr(result, "rounds", None)
    rounds = np.arange(1, mistakes.size + 1) if rounds is None else np.asarray(rounds)
    if rounds.shape != mistakes.shape:
        raise ValueError(f"rounds has shape {rounds.shape} but cumulative_mistakes has shape {mistakes.shape}")
    if mistakes.size > _MAX_POINTS:
        keep = np.unique(np.linspace(0, mistakes.size - 1, _MAX_POINTS).astype(np.int64))
        rounds, mistakes = rounds[keep], mistakes[keep]
    return rounds, mistakes


def _style(i):
    """Colour and line style of the i-th learner: ten colours, then the next line style."""
    from matplotlib import colormaps

    colours = colormaps["tab10"].colors
    return {"color": colours[i % len(colours)], "linestyle": _STYLES[(i // len(colours)) % len(_STYLES)]}


def draw_cumulative_mistakes(ax, results, title=None, styles=None):
    """Draw one line per learner of ``results`` (name -> result) on the axes ``ax``."""
    names = list(results)
    for i, name in enumerate(names):
        rounds, mistakes = curve(results[name])
        style = styles[name] if styles is not None else _style(i)
        ax.plot(rounds, mistakes, label=name, linewidth=1.6, **style)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative mistakes")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, fontsize=11)


def _save(fig, path):
    if path is not None:
        fig.savefig(os.fspath(path), dpi=150, bbox_inches="tight")


def plot_cumulative_mistakes(results, path=None, title=None):
    """Plot cumulative mistakes against the round, one line per learner.

    Parameters
    ----------
    results : dict
        Learner name -> :class:`olearn.RunResult` (recorded with
        ``record=True``), or any object with ``cumulative_mistakes`` (and
        optionally ``rounds``).
    path : str or os.PathLike, optional
        Write the figure there; the file type follows the suffix (``.png``,
        ``.pdf``, ``.svg``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np, olearn
    >>> from olearn.plots import plot_cumulative_mistakes
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0]] * 20), np.array([1, -1] * 20)
    >>> res = {"PA": olearn.run(olearn.PAClassifier(variant="pa"), X, y)}
    >>> fig = plot_cumulative_mistakes(res, title="toy")
    >>> fig.axes[0].get_ylabel()
    'cumulative mistakes'
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    draw_cumulative_mistakes(ax, results, title=title)
    ax.legend(loc="upper left", frameon=False, fontsize=9)
    _save(fig, path)
    return fig


def plot_cumulative_mistakes_panels(panels, path=None, title=None, styles=None):
    """One panel of cumulative-mistake curves per dataset, side by side, with one shared legend.

    Parameters
    ----------
    panels : dict
        Panel title (e.g. the dataset) -> {learner name -> result}, as for
        :func:`plot_cumulative_mistakes`. A learner keeps its colour in every
        panel.
    path : str or os.PathLike, optional
    title : str, optional
        Title of the whole figure.
    styles : dict, optional
        Learner name -> keyword arguments of ``Axes.plot`` (``color``,
        ``linestyle``, ...), e.g. one colour per family and one line style per
        setting. Learners left out get the default colour cycle.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(name for results in panels.values() for name in results))
    given = styles or {}
    styles = {name: given.get(name, _style(i)) for i, name in enumerate(names)}
    n = max(len(panels), 1)
    fig = Figure(figsize=(5.2 * n, 4.6), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False)[0]
    for ax, (panel_title, results) in zip(axes, panels.items()):
        draw_cumulative_mistakes(ax, results, title=panel_title, styles=styles)
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 4), frameon=False, fontsize=9)
    if title:
        fig.suptitle(title, fontsize=12)
    _save(fig, path)
    return fig
