"""What ``olearn run`` prints: a Vowpal-Wabbit-style progressive table, a progress bar, a summary."""

import os
import sys
import time

import numpy as np

class ProgressiveTable:
    """Running totals of a progressive-validation run, printed at 1, 2, 4, 8, ... examples and at the end.

    Feed it the :class:`olearn.RunResult` of each chunk in order, with the
    chunk's labels. A row that falls inside a chunk needs the chunk's
    per-round arrays (``record=True``); learning the pieces of :meth:`pieces`
    instead, every row falls at the end of one and is printed as soon as its
    example is learned. The columns are those of the ``task``
    (:mod:`olearn.cli._tasks`; binary classification by default).
    """

    def __init__(self, write=None, task=None):
        from ._tasks import task_named

        self.write = write
        self.task = task_named("binary") if task is None else task
        self.examples = 0
        self.mistakes = 0
        self.updates = 0
        self.loss = 0.0
        self.extras = np.zeros(self.task.n_extras)
        self.rows = []  # the lines printed
        self._next = 1
        self._last = (0, 0, self.extras.copy())

    def pieces(self, X, y, weight):
        """``(X, y, weight)`` of a chunk, cut where a row of the table falls (uncut if none does).

        Learn each piece and :meth:`add` its result before taking the next.
        """
        from ..data._rows import row_range

        n = X.shape[0]
        lo = 0
        while lo < n:
            hi = n if self.write is None else min(n, lo + self._next - self.examples)
            if lo == 0 and hi == n:
                yield X, y, weight
            else:
                yield row_range(X, lo, hi), None if y is None else y[lo:hi], None if weight is None else weight[lo:hi]
            lo = hi

    def add(self, result, y=None, model=None):
        """Count ``result``, the rounds of the labels ``y`` (None: unlabelled, or totals only) learned by ``model``."""
        n = result.n_rounds
        extras = self.task.extras(result, y, model) if self.task.n_extras else np.empty((n, 0))
        if self.write is not None and self.examples + n > self._next:
            mistakes = result.cumulative_mistakes
            losses = np.cumsum(result.losses)
            running = np.cumsum(extras, axis=0)
            while self._next < self.examples + n:
                i = self._next - self.examples - 1
                self._row(self._next, self.mistakes + int(mistakes[i]), self.loss + float(losses[i]),
                          self.extras + running[i])
                self._next *= 2
        self.examples += n
        self.mistakes += result.n_mistakes
        self.updates += result.n_updates
        self.loss += result.cumulative_loss
        self.extras = self.extras + extras.sum(axis=0)
        if self.write is not None and self.examples == self._next:
            self._row(self.examples, self.mistakes, self.loss, self.extras)
            self._next *= 2

    def finish(self):
        """Print the last row, unless the stream ended on a power of two (or was empty)."""
        if self.write is not None and self.examples != self._last[0]:
            self._row(self.examples, self.mistakes, self.loss, self.extras)

    def _row(self, examples, mistakes, loss, extras):
        line = self.task.row(examples, mistakes, loss, extras, self._last)
        if not self.rows:
            self.write(self.task.header())  # only now: a file that fails to parse prints no table at all
        self.rows.append(line)
        self._last = (examples, mistakes, np.array(extras))
        self.write(line)

    def summary(self):
        """The task's (name, value) totals: mistakes, rates, losses, errors."""
        return self.task.summary(self.examples, self.mistakes, self.loss, self.extras)


def summary_lines(table, passes, seconds):
    """The closing summary of ``olearn run`` as aligned ``name value`` lines."""
    throughput = table.examples / seconds if seconds > 0 else float("inf")
    measured = [(name, f"{value:,}" if isinstance(value, int) else f"{value:.6f}") for name, value in table.summary()]
    items = [
        ("examples", f"{table.examples:,}"),
        ("passes", f"{passes}"),
        *measured,
        ("updates", f"{table.updates:,}"),
        ("wall time", f"{seconds:.3f} s"),
        ("throughput", f"{throughput:,.0f} examples/s"),
    ]
    return [f"{name:<14}{value}" for name, value in items]


def echo_stdout(line):
    # print, not click.echo: while a progress display is live, rich swaps sys.stdout
    # for a proxy that prints above the display, and print looks sys.stdout up each time.
    print(line, flush=True)  # flushed: a row shows when its example is learned, in a pipe too


def progress_wanted():
    """A live progress bar only on an interactive terminal, never in CI logs or pipes."""
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """A one-line rich progress display on stderr, from the start of learning, on an interactive terminal only.

    Table rows printed with :func:`echo_stdout` while it is shown scroll above
    it when stdout is the same terminal, and go straight to stdout otherwise.
    """

    def __init__(self, enabled, description="learning"):
        self.enabled = enabled and progress_wanted()
        self.description = description
        self.start = time.perf_counter()
        self._live = None
        self._task = None

    def update(self, examples, description=None):
        if not self.enabled:
            return
        if description is not None:
            self.description = description
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        if self._live is None:
            self._open()
        text = f"{self.description}: {examples:,} examples, {examples / elapsed:,.0f} examples/s, {elapsed:,.0f} s"
        self._live.update(self._task, description=text)

    def _open(self):
        from rich.console import Console
        from rich.progress import Progress as RichProgress
        from rich.progress import SpinnerColumn, TextColumn

        self._live = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            console=Console(stderr=True),
            transient=True,
            redirect_stdout=sys.stdout.isatty(),
            redirect_stderr=False,
        )
        self._live.start()
        self._task = self._live.add_task(f"{self.description}: 0 examples", total=None)

    def close(self):
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __enter__(self):
        if self.enabled:
            self._open()  # at once: a slow stream shows that the command is waiting for it
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def table_console():
    """A rich console on stdout for result tables; wide enough in logs and pipes not to cut names."""
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=160)
    return console
