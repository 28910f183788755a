"""``olearn compare``: several learners on one stream, as a table, a plot and a CSV."""

import csv
import os
import time

import click
import numpy as np

from ._app import cli
from ._learners import (
    COMPARED_BY_DEFAULT,
    check_conditions,
    check_some_takes,
    collect_hyperparameters,
    describe_estimator,
    hyperparameter_options,
    make_estimator,
    max_classes,
    parse_algorithm_list,
)
from ._report import Progress, table_console
from ._source import DataSource, IndexBase, check_writable, data_options, file_argument

PLOT_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg")
CSV_COLUMNS = ("algorithm", "settings", "examples", "mistakes", "mistake_rate", "average_loss", "updates", "seconds")


class MistakeTrace:
    """Cumulative mistakes of a long stream, sampled so that memory stays bounded.

    Every round is kept until ``capacity`` points are held; then every other
    point is dropped and the sampling stride doubles, so the trace always
    spans the whole stream with between capacity/2 and capacity points.
    """

    def __init__(self, capacity=20_000):
        self.capacity = capacity
        self.stride = 1
        self._rounds = []
        self._mistakes = []
        self._held = 0
        self.n_rounds = 0
        self.n_mistakes = 0
        self.n_updates = 0
        self.cumulative_loss = 0.0

    def add(self, result):
        n = result.n_rounds
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

    @property
    def mistake_rate(self):
        return self.n_mistakes / self.n_rounds if self.n_rounds else 0.0

    @property
    def average_loss(self):
        return self.cumulative_loss / self.n_rounds if self.n_rounds else 0.0


@cli.command("compare", short_help="Compare several learners on one stream (table, plot, CSV).")
@click.option("--algos", default=",".join(COMPARED_BY_DEFAULT), show_default=True, metavar="LIST",
              help="Comma-separated algorithms, each optionally with its own settings: "
                   "'pa1:C=0.01,pa1:C=1,ogd:loss=logistic:eta=0.5'.")
@hyperparameter_options
@data_options()
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="PNG",
              help="Write the cumulative mistakes of every learner against the round to this image "
                   "(.png, .pdf or .svg).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, metavar="CSV",
              help=f"Write the table to this CSV file (columns: {', '.join(CSV_COLUMNS)}).")
@click.option("--title", default=None, help="Title of the plot. [default: the file name]")
@file_argument
def compare_command(algos, C, eta, loss, schedule, radius, fit_intercept, settings, fmt, zero_based, n_features, bits,
                    chunk_size, label_column, delimiter, plot, csv_path, title, file):
    """Run several learners on the same stream and compare their mistakes.

    FILE is read once, in chunks; every chunk goes to every learner in turn,
    so each sees exactly the same examples in the same order (progressive
    validation, one pass). The table lists mistakes, mistake rate, average
    loss, updates and the time each learner spent learning (reading the
    file is timed separately).

    A hyperparameter option (-C, --eta, --loss, --schedule, --radius,
    --set NAME=VALUE) applies to every listed algorithm that has it and is ignored by the
    others; settings written into --algos override it for that entry.

    On a CoNLL file the sequence learners are compared (pa-sequence,
    pa1-sequence, pa2-sequence, unless --algos lists some of them), by
    their sequence and token errors.

    \b
    Examples:
      olearn compare --algos perceptron,pa,pa1,pa2 -C 0.01 train.svm
      olearn compare --algos pa1:C=0.001,pa1:C=1,ogd --plot mistakes.png --csv mistakes.csv train.svm
    """
    from sklearn.base import clone

    import olearn

    start = time.perf_counter()
    from ._sequences import compare_sequences, compares_sequences

    ctx = click.get_current_context()
    algos_given = ctx.get_parameter_source("algos") != click.core.ParameterSource.DEFAULT
    if compares_sequences(algos, algos_given, fmt, file):
        return compare_sequences(ctx.params, algos_given, start)
    entries = parse_algorithm_list(algos)
    common = collect_hyperparameters(C, eta, loss, schedule, radius, settings)
    check_some_takes(common, [algo for _, algo, _ in entries])
    check_conditions(entries, common)
    for path, what in ((plot, "--plot"), (csv_path, "--csv")):
        if path is not None:
            check_writable(path, what)
    if plot is not None and os.path.splitext(plot)[1].lower() not in PLOT_SUFFIXES:
        raise click.BadParameter(f"{plot!r}: name a file ending in {', '.join(PLOT_SUFFIXES)}", param_hint="'--plot'")
    source = DataSource(file, fmt, n_features, bits, chunk_size, IndexBase(zero_based), label_column, delimiter,
                        max_classes=max_classes(*(algo for _, algo, _ in entries)))
    learners = {
        label: make_estimator(algo, {**common, **own}, fit_intercept, source.model_n_features)
        for label, algo, own in entries
    }
    traces = {label: MistakeTrace() for label in learners}
    seconds = dict.fromkeys(learners, 0.0)

    warm = False
    with Progress(enabled=True, description="comparing") as progress:
        for X, y, weight in source.chunks():
            done = next(iter(traces.values())).n_rounds
            if not warm and X.shape[0]:
                # Load each compiled kernel on a throw-away copy, so that the first learner's
                # time is not charged for it.
                for est in learners.values():
                    with source.locating(done):
                        olearn.run(clone(est), X[:1], y[:1], sample_weight=None if weight is None else weight[:1])
                warm = True
            for label, est in learners.items():
                tick = time.perf_counter()
                with source.locating(done):
                    traces[label].add(olearn.run(est, X, y, record=True, sample_weight=weight))
                seconds[label] += time.perf_counter() - tick
            progress.update(next(iter(traces.values())).n_rounds)
    n_examples = next(iter(traces.values())).n_rounds
    if n_examples == 0:
        raise ValueError(f"{file}: holds no examples")
    wall = time.perf_counter() - start

    rows = [
        {
            "algorithm": label,
            "settings": describe_estimator(learners[label]),
            "examples": trace.n_rounds,
            "mistakes": trace.n_mistakes,
            "mistake_rate": trace.mistake_rate,
            "average_loss": trace.average_loss,
            "updates": trace.n_updates,
            "seconds": seconds[label],
        }
        for label, trace in traces.items()
    ]
    _print_table(rows, f"{file}: {n_examples:,} examples, one pass", wall - sum(seconds.values()))
    if csv_path is not None:
        with open(csv_path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        click.echo(f"table written to {csv_path}")
    if plot is not None:
        from ..plots import plot_cumulative_mistakes

        curves = {}
        for label, trace in traces.items():
            settings = describe_estimator(learners[label])
            curves[f"{label.split(':')[0]} ({settings})" if settings else label] = trace
        if len(curves) < len(traces):  # two entries that differ only in what the legend leaves out
            curves = traces
        default_title = f"{os.path.basename(file)}: {n_examples:,} examples"
        plot_cumulative_mistakes(curves, plot, title=title or default_title)
        click.echo(f"plot written to {plot}")


def _print_table(rows, caption, other_seconds):
    from rich.table import Table

    table = Table(title=caption, title_justify="left", caption=f"reading and overhead: {other_seconds:.3f} s",
                  caption_justify="left")
    table.add_column("algorithm")
    table.add_column("settings")
    for name in ("mistakes", "mistake rate", "average loss", "updates", "time (s)"):
        table.add_column(name, justify="right")
    best = min(row["mistakes"] for row in rows)
    for row in rows:
        table.add_row(
            row["algorithm"],
            row["settings"],
            f"{row['mistakes']:,}",
            f"{row['mistake_rate']:.4f}",
            f"{row['average_loss']:.4f}",
            f"{row['updates']:,}",
            f"{row['seconds']:.4f}",
            style="bold" if row["mistakes"] == best else None,
        )
    table_console().print(table)
