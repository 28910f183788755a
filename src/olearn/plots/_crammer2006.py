"""The figures of the synthetic experiments of Crammer et al. (2006), Figs. 3, 4 and 5.

Each curve is the mean over the repetitions, with a light band of one
standard deviation across them; the best fixed classifier in hindsight is
drawn dashed. Figures are built with :class:`matplotlib.figure.Figure` and
rendered by the Agg canvas: pyplot is never imported.
"""

import os

import numpy as np

_BEST = "best fixed"
_NOISE_AXES = {"instance": "instance noise sigma (covariance sigma I)", "label": "label noise p"}
# Thin a curve of many rounds to about this many points, spaced evenly on the logarithmic axis.
_MAX_POINTS = 1500
_FIRST_ROUND = 10


def _colour(i):
    from matplotlib import colormaps

    colours = colormaps["tab10"].colors
    return colours[i % len(colours)]


def _style_axes(ax, xlabel, ylabel, title=None):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(loc="best", frameon=False, fontsize=8)


def _mean_and_band(ax, x, runs, label, **style):
    """Plot the mean of ``runs`` (repetitions along axis 0) with a band of one standard deviation."""
    mean = runs.mean(axis=0)
    ax.plot(x, mean, label=label, linewidth=1.6, **style)
    if runs.shape[0] > 1:
        std = runs.std(axis=0, ddof=1)
        ax.fill_between(x, mean - std, mean + std, color=style.get("color"), alpha=0.15, linewidth=0)


def _figure(nrows, ncols, title):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2 * ncols, 3.9 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig, axes


def _save(fig, path):
    if path is not None:
        fig.savefig(os.fspath(path), dpi=130, bbox_inches="tight")


def plot_crammer2006_fig3(levels, error, loss, algorithms, path=None, title=None):
    """Fig. 3 in the paper's layout: error (left) and hinge loss (right) of each learner against the
    average error of the best fixed classifier, under instance noise (top) and label noise (bottom).

    The x coordinate of a noise level is the best fixed classifier's error at
    that level, averaged over the repetitions (Sec. 10.1: "as a function of the
    average error of the optimal linear classifier"); the noise levels
    themselves are written along the top of each panel. In the error panels
    the best fixed classifier is the dashed diagonal; in the loss panels the
    dashed black line is the smallest average hinge loss of any fixed vector
    (olearn's addition, the comparator of the loss bounds).

    Parameters
    ----------
    levels : dict
        ``"instance"`` and ``"label"`` -> the noise levels.
    error, loss : dict
        The same keys -> arrays (repetitions, levels, algorithms).
    algorithms : sequence of str
        Names along the last axis; one of them must be ``"best fixed"`` (the
        fewest mistakes in ``error``, the smallest hinge loss in ``loss``).
    path : str or os.PathLike, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> levels = {"instance": np.array([0.0, 1.0]), "label": np.array([0.0, 0.2])}
    >>> runs = {kind: np.full((2, 2, 2), 0.1) for kind in levels}
    >>> fig = plot_crammer2006_fig3(levels, runs, runs, ("PA", "best fixed"))
    >>> [ax.get_ylabel() for ax in fig.axes[:4]]
    ['average error', 'average hinge loss', 'average error', 'average hinge loss']
    >>> fig.axes[0].get_xlabel()
    'average error of the best fixed classifier'
    """
    best = list(algorithms).index(_BEST)
    fig, axes = _figure(2, 2, title)
    for row, kind in enumerate(("instance", "label")):
        x = error[kind][:, :, best].mean(axis=0)
        for col, (measure, runs, ylabel) in enumerate((("error", error, "average error"),
                                                       ("loss", loss, "average hinge loss"))):
            ax = axes[row, col]
            for k, name in enumerate(algorithms):
                if name != _BEST:
                    _mean_and_band(ax, x, runs[kind][:, :, k], name, color=_colour(k))
                elif measure == "error":
                    ax.plot(x, x, color="black", linestyle="--", linewidth=1.2, label="best fixed (fewest mistakes)")
                else:
                    ax.plot(x, runs[kind][:, :, k].mean(axis=0), color="black", linestyle="--", linewidth=1.2,
                            label="smallest hinge loss of a fixed u")
            _style_axes(ax, "average error of the best fixed classifier", ylabel, f"{measure} under {kind} noise")
            ax.set_ylim(bottom=0)
            top = ax.secondary_xaxis("top")
            top.set_xticks(x[:: max(1, len(x) // 5)], [f"{v:g}" for v in levels[kind][:: max(1, len(x) // 5)]])
            top.set_xlabel(_NOISE_AXES[kind], fontsize=8)
    _save(fig, path)
    return fig


def plot_crammer2006_fig4(label_noise, log10_C, error, loss, best_error, best_loss, algorithms, path=None,
                          title=None):
    """Fig. 4 in the paper's layout: error (left) and hinge loss (right) against log10 C, one row per
    algorithm (PA-I on top, PA-II below), one line per label-noise level.

    Parameters
    ----------
    label_noise : array of shape (n_noise,)
    log10_C : array of shape (n_C,)
    error, loss : arrays (repetitions, n_noise, n_C, algorithms)
    best_error, best_loss : arrays (repetitions, n_noise)
        The best fixed classifier's, drawn dashed in the colour of its noise level (olearn's addition).
    algorithms : sequence of str
    path : str or os.PathLike, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> runs, best = np.full((2, 1, 3, 2), 0.2), np.full((2, 1), 0.1)
    >>> fig = plot_crammer2006_fig4(np.array([0.1]), np.array([-1.0, 0.0, 1.0]), runs, runs, best, best,
    ...                             ("PA-I", "PA-II"))
    >>> [ax.get_title() for ax in fig.axes]
    ['PA-I: error', 'PA-I: loss', 'PA-II: error', 'PA-II: loss']
    """
    fig, axes = _figure(len(algorithms), 2, title)
    for row, name in enumerate(algorithms):
        for col, (measure, runs, best, ylabel) in enumerate((("error", error, best_error, "average error"),
                                                             ("loss", loss, best_loss, "average hinge loss"))):
            ax = axes[row, col]
            for i, p in enumerate(label_noise):
                _mean_and_band(ax, log10_C, runs[:, i, :, row], f"p = {p:g}", color=_colour(i))
                ax.axhline(best[:, i].mean(), color=_colour(i), linestyle="--", linewidth=1.0,
                           label=f"p = {p:g}: best fixed")
            _style_axes(ax, "log10 C", ylabel, f"{name}: {measure}")
            ax.set_ylim(bottom=0)
    _save(fig, path)
    return fig


def plot_crammer2006_fig5(rounds, average_error, best_error, learners, path=None, title=None):
    """Fig. 5 in the paper's layout: average error (mistakes so far over t) against the round t, PA-I
    (left) and PA-II (right), one line per C; a second row repeats it on a logarithmic round axis
    (olearn's addition).

    Every panel starts at round 10 (the first rounds' averages swing between
    0 and 1 and would flatten the rest).

    Parameters
    ----------
    rounds : array of shape (n_rounds,)
    average_error : array (repetitions, learners, n_rounds)
    best_error : array (repetitions,)
        The best fixed classifier's error on the whole stream, drawn dotted.
    learners : sequence of (name, C)
        One panel per name, one colour per C.
    path : str or os.PathLike, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> errors = np.full((2, 2, 50), 0.1)
    >>> fig = plot_crammer2006_fig5(np.arange(1, 51), errors, np.array([0.05, 0.05]),
    ...                             (("PA-I", 100.0), ("PA-I", 0.001)))
    >>> [ax.get_title() for ax in fig.axes], [ax.get_xscale() for ax in fig.axes]
    (['PA-I', 'PA-I, round axis: log'], ['linear', 'log'])
    >>> len(fig.axes[0].get_lines())
    3
    """
    rounds = np.asarray(rounds)
    first = min(_FIRST_ROUND, rounds.size)
    keep = np.unique(np.geomspace(first, rounds.size, min(rounds.size, _MAX_POINTS)).round().astype(np.int64)) - 1
    names = list(dict.fromkeys(name for name, _ in learners))
    values = sorted({C for _, C in learners}, reverse=True)
    top = 1.15 * float(average_error[:, :, keep].mean(axis=0).max())
    fig, axes = _figure(2, len(names), title)
    for col, panel in enumerate(names):
        for row, scale in enumerate(("linear", "log")):
            ax = axes[row, col]
            for k, (name, C) in enumerate(learners):
                if name == panel:
                    _mean_and_band(ax, rounds[keep], average_error[:, k, keep], f"C = {C:g}",
                                   color=_colour(values.index(C)))
            ax.axhline(best_error.mean(), color="black", linestyle=":", linewidth=1.2,
                       label="best fixed (whole stream)")
            ax.set_xscale(scale)
            _style_axes(ax, "round t", "average error (mistakes / t)",
                        panel if scale == "linear" else f"{panel}, round axis: log")
            ax.set_ylim(0, top)
    _save(fig, path)
    return fig
