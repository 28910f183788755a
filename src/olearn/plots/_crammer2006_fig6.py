"""The figure of Crammer et al. (2006), Fig. 6: cumulative mistakes of multiclass PA-I, the Perceptron and MIRA.

Built with :class:`matplotlib.figure.Figure` and the Agg canvas (pyplot is
never imported), like the other plots of :mod:`olearn.plots`.
"""

import os

import numpy as np

from ._mistakes import draw_cumulative_mistakes

# The paper's three learners, in the same colour and line style in every panel.
_STYLES = (
    {"color": "#d62728", "linestyle": "-"},
    {"color": "black", "linestyle": ":"},
    {"color": "#1f77b4", "linestyle": "--"},
)


class _Curve:
    """A cumulative-mistake curve in the form :func:`draw_cumulative_mistakes` reads."""

    def __init__(self, mistakes):
        self.cumulative_mistakes = np.asarray(mistakes)


def plot_crammer2006_fig6(panels, path=None, title=None, alarming=()):
    """Cumulative mistakes against the round, one panel per dataset, side by side.

    Parameters
    ----------
    panels : dict
        Panel title -> {learner name -> cumulative mistakes per round (1-d array)}.
    path : str or os.PathLike, optional
        Write the figure there (``.png``, ``.pdf``, ``.svg``).
    title : str, optional
    alarming : collection of str, optional
        Panel titles to draw in bold red (panels run on stand-in data).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.plots._crammer2006_fig6 import plot_crammer2006_fig6
    >>> curves = {"PA-I": np.arange(10) // 3, "MIRA": np.arange(10) // 2}
    >>> fig = plot_crammer2006_fig6({"USPS": curves, "MNIST": curves})
    >>> [ax.get_title() for ax in fig.axes]
    ['USPS', 'MNIST']
    """
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(name for curves in panels.values() for name in curves))
    styles = {name: _STYLES[i % len(_STYLES)] for i, name in enumerate(names)}
    n = max(len(panels), 1)
    fig = Figure(figsize=(5.2 * n, 4.2), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False).ravel()
    for ax, (panel, curves) in zip(axes, panels.items()):
        draw_cumulative_mistakes(ax, {name: _Curve(c) for name, c in curves.items()}, title=panel, styles=styles)
        ax.title.set_fontsize(9)
        if panel in alarming:
            ax.title.set_color("#b00000")
            ax.title.set_fontweight("bold")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=max(len(labels), 1), frameon=False, fontsize=10)
    if title:
        fig.suptitle(title, fontsize=12, color="#b00000" if alarming else "black")
    if path is not None:
        fig.savefig(os.fspath(path), dpi=130, bbox_inches="tight")
    return fig
