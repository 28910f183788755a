"""``olearn compare --plot``: the cumulative mistakes of each learner, traced in bounded memory, and the files
``--plot`` and ``--csv`` may write. Shared by the comparison of rows and of sequences (:mod:`olearn.cli._sequences`)."""

import os

import click
import numpy as np

from .._rates import RunRates
from ._source import check_writable
from ._tasks import task_named

PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


def check_plot_and_csv(plot, csv_path):
    """Usage errors of ``--plot`` and ``--csv``: a file that cannot be written, an image of a kind not drawn."""
    for path, what in ((plot, "--plot"), (csv_path, "--csv")):
        if path is not None:
            check_writable(path, what)
    if plot is not None and os.path.splitext(plot)[1].lower() not in PLOT_SUFFIXES:
        raise click.BadParameter(f"{plot!r}: name a file ending in {', '.join(PLOT_SUFFIXES)}", param_hint="'--plot'")


class MistakeTrace(RunRates):
    """Cumulative mistakes of a long stream, sampled so that memory stays bounded.

    Every round is kept until ``capacity`` points are held; then every other
    point is dropped and the sampling stride doubles, so the trace always
    spans the whole stream with between capacity/2 and capacity points.
    """

    def __init__(self, capacity=20_000, task=None):
        self.task = task_named("binary") if task is None else task
        self.extras = np.zeros(self.task.n_extras)
        self.capacity = capacity
        self.stride = 1
        self._rounds = []
        self._mistakes = []
        self._held = 0
        self.n_rounds = 0
        self.n_mistakes = 0
        self.n_updates = 0
        self.cumulative_loss = 0.0

    def add(self, result, y=None, model=None):
        """Count ``result``, the rounds of the labels ``y`` learned by ``model`` (needed by the task's extras)."""
        n = result.n_rounds
        if self.task.n_extras:
            self.extras = self.extras + self.task.extras(result, y, model).sum(axis=0)
        if n:
            first = (-self.n_rounds) % self.stride  # first index in this chunk on the stride grid
            picked = np.arange(first, n, self.stride)
            self._rounds.append(self.n_rounds + picked + 1)
            self._mistakes.append(self.n_mistakes + result.cumulative_mistakes[picked])
            self._held += picked.size
            while self._held > self.capacity:
                self._thin()
        self.n_rounds += n
        self.n_mistakes += result.n_mistakes
        self.n_updates += result.n_updates
        self.cumulative_loss += result.cumulative_loss

    def _thin(self):
        rounds, mistakes = np.concatenate(self._rounds), np.concatenate(self._mistakes)
        self.stride *= 2
        keep = (rounds - 1) % self.stride == 0
        self._rounds, self._mistakes = [rounds[keep]], [mistakes[keep]]
        self._held = int(keep.sum())

    def _points(self):
        """The sampled (rounds, cumulative mistakes), always ending with the last round."""
        rounds = np.concatenate(self._rounds) if self._rounds else np.empty(0, dtype=np.int64)
        mistakes = np.concatenate(self._mistakes) if self._mistakes else np.empty(0, dtype=np.int64)
        if self.n_rounds and (rounds.size == 0 or rounds[-1] != self.n_rounds):
            rounds = np.append(rounds, self.n_rounds)
            mistakes = np.append(mistakes, self.n_mistakes)
        return rounds, mistakes

    @property
    def rounds(self):
        """1-based round of each sampled point."""
        return self._points()[0]

    @property
    def cumulative_mistakes(self):
        """Mistakes up to and including each sampled round."""
        return self._points()[1]

    def summary(self):
        """The task's (name, value) totals, as ``olearn run`` prints them."""
        return self.task.summary(self.n_rounds, self.n_mistakes, self.cumulative_loss, self.extras)
