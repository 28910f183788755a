"""The 2 x 4 panel figure of Orabona & Crammer (2010), Fig. 3: mean cumulative mistakes per ordering and noise level.

Built with :class:`matplotlib.figure.Figure` and the Agg canvas (pyplot is
never imported), like the other plots of :mod:`olearn.plots`.
"""

import os

import numpy as np

from ._mistakes import draw_cumulative_mistakes

# One colour and line style per learner, the same in every panel.
_STYLES = {
    "PA-I": {"color": "black", "linestyle": ":"},
    "AdaGrad": {"color": "#2ca02c", "linestyle": "-."},
    "AROW": {"color": "#1f77b4", "linestyle": "--"},
    "NAROW": {"color": "#d62728", "linestyle": "-"},
}
_OTHER = ("#9467bd", "#8c564b", "#e377c2", "#17becf")


class _MeanCurve:
    """A mean cumulative-mistake curve in the form :func:`draw_cumulative_mistakes` reads."""

    def __init__(self, mean):
        self.cumulative_mistakes = np.asarray(mean, dtype=np.float64)


def plot_orabona2010_fig3(panels, path=None, title=None, ncols=4):
    """Mean cumulative mistakes against the round, one panel per (noise level, ordering).

    Parameters
    ----------
    panels : dict
        Panel title -> {learner name -> mean cumulative mistakes per round
        (1-d array)}, in reading order: the first ``ncols`` panels make the
        top row (no noise in the reproduction), the next ones the second.
    path : str or os.PathLike, optional
        Write the figure there (``.png``, ``.pdf``, ``.svg``).
    title : str, optional
    ncols : int, default=4

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.plots._orabona2010 import plot_orabona2010_fig3
    >>> curve = {"PA-I": np.arange(10) / 2, "NAROW": np.arange(10) / 4}
    >>> fig = plot_orabona2010_fig3({f"panel {i}": curve for i in range(8)})
    >>> len(fig.axes), fig.axes[5].get_title()
    (8, 'panel 5')
    """
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(name for curves in panels.values() for name in curves))
    others = iter(_OTHER * len(names))
    styles = {name: _STYLES.get(name) or {"color": next(others), "linestyle": "-"} for name in names}
    n = max(len(panels), 1)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(4.3 * ncols, 3.6 * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, (panel, curves) in zip(axes, panels.items()):
        draw_cumulative_mistakes(ax, {name: _MeanCurve(mean) for name, mean in curves.items()}, title=panel,
                                 styles=styles)
        ax.title.set_fontsize(10)
    for ax in axes[n:]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), frameon=False, fontsize=10)
    if title:
        fig.suptitle(title, fontsize=12)
    if path is not None:
        fig.savefig(os.fspath(path), dpi=130, bbox_inches="tight")
    return fig
