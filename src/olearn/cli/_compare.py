"""``olearn compare``: several learners on one stream, as a table, a plot and a CSV."""

import csv
import os
import time

import click
import numpy as np

from ..exceptions import DataFormatError
from ._app import cli
from ._learners import (
    COMPARED_BY_DEFAULT,
    TASKS,
    algorithms_of,
    check_conditions,
    check_fit_intercept,
    check_some_takes,
    collect_hyperparameters,
    describe_estimator,
    hyperparameter_options,
    make_estimator,
    max_classes,
    parse_algorithm_list,
    seeded,
    task_of,
)
from ._mistake_trace import MistakeTrace, check_plot_and_csv
from ._read_paths import ReadFile
from ._report import Progress, table_console
from ._source import DataSource, IndexBase, data_options, file_argument, named
from ._tasks import task_named

CSV_COLUMNS = ("algorithm", "settings", "examples", "mistakes", "mistake_rate", "average_loss", "updates", "seconds")


@cli.command("compare", short_help="Compare several learners on one stream (table, plot, CSV).")
@click.option("--algos", default=None, metavar="LIST",
              help="Comma-separated algorithms of one task, each optionally with its own settings: "
                   "'pa1:C=0.01,pa1:C=1,ogd:loss=logistic:eta=0.5'. [default: the learners of the file's task; "
                   f"for two classes {','.join(COMPARED_BY_DEFAULT['binary'])}]")
@click.option("--task", "task_name", type=click.Choice(TASKS), default=None,
              help="The task whose learners are compared when --algos names none. [default: multilabel for "
                   "comma-separated LIBSVM labels, cost-sensitive with --costs, else from the labels of the first "
                   "chunk: regression if one is not an integer, binary for 2 classes, multiclass for more; "
                   "uniclass only when asked]")
@hyperparameter_options
@click.option("--costs", "costs_path", type=ReadFile(), default=None, metavar="FILE",
              help="The cost matrix of the cost-sensitive learners (see 'olearn run --help').")
@data_options()
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="PNG",
              help="Write the cumulative mistakes of every learner against the round to this image "
                   "(.png, .pdf or .svg).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None, metavar="CSV",
              help=f"Write the table to this CSV file (columns: {', '.join(CSV_COLUMNS)}).")
@click.option("--title", default=None, help="Title of the plot. [default: the file name]")
@file_argument
def compare_command(algos, task_name, C, eta, loss, schedule, radius, fit_intercept, settings, costs_path, fmt,
                    zero_based, n_features, bits, chunk_size, label_column, delimiter, plot, csv_path, title, file):
    """Run several learners on the same stream and compare their mistakes.

    FILE is read once, in chunks; every chunk goes to every learner in turn,
    so each sees exactly the same examples in the same order (progressive
    validation, one pass). The table lists mistakes, mistake rate, average
    loss, updates and the time each learner spent learning (reading the
    file is timed separately).

    A hyperparameter option (-C, --eta, --loss, --schedule, --radius,
    --set NAME=VALUE) applies to every listed algorithm that has it and is ignored by the
    others; settings written into --algos override it for that entry.

    The learners compared all learn one task. Without --algos they are those
    of the file's task (see --task), and the table shows the task's measures:
    for regression MAE and RMSE instead of mistakes (and --plot does not
    apply), for cost-sensitive learners the average cost too, for uniclass
    ones the vectors outside the ball. If the first chunk decided the task, a
    later label that contradicts it (a third class, a non-integer label) is
    an error naming its line. On a CoNLL file the sequence learners are
    compared (pa-sequence, pa1-sequence, pa2-sequence, unless --algos lists
    some of them), by their sequence and token errors.

    \b
    Examples:
      olearn compare --algos perceptron,pa,pa1,pa2 -C 0.01 train.svm
      olearn compare --algos pa1:C=0.001,pa1:C=1,ogd --plot mistakes.png --csv mistakes.csv train.svm
      olearn compare prices.svm            # real-valued labels: pa-regression, pa1-regression, pa2-regression
      olearn compare --costs costs.txt train.svm
    """
    import copy

    import olearn

    start = time.perf_counter()

    from ._sequence_choice import compares_sequences

    algos_given = algos is not None
    if task_name == "sequence" or compares_sequences(algos, algos_given, fmt, file):
        from ._sequences import compare_sequences  # here: a comparison on rows does not load the sequence path

        if task_name not in (None, "sequence"):
            raise click.UsageError(f"--task {task_name} does not apply to a CoNLL file of sequences (its task is "
                                   "sequence)")
        return compare_sequences(click.get_current_context().params, algos_given, start)
    entries = None if algos is None else parse_algorithm_list(algos)
    task_name = _chosen_task(entries, task_name, costs_path)
    common = collect_hyperparameters(C, eta, loss, schedule, radius, settings)
    check_plot_and_csv(plot, csv_path)
    if entries is not None:
        _check_entries(entries, common, fit_intercept)
    if task_name is not None:
        _check_task(task_name, costs_path, plot)
    costs = None
    if costs_path is not None:
        from ._costs import read_costs

        costs = read_costs(costs_path)
    # the learners the labels are checked for; while the file has to decide, any classifier's
    readers = ([algo for _, algo, _ in entries] if entries is not None
               else COMPARED_BY_DEFAULT[task_name or "multiclass"])
    task = None if task_name is None else task_named(task_name)
    source = DataSource(file, fmt, n_features, bits, chunk_size, IndexBase(zero_based), label_column, delimiter,
                        max_classes=max_classes(*readers), multilabel=task is not None and task.multilabel,
                        unlabelled=task is not None and not task.reads_labels)
    if task is None and _labels_are_sets(source):
        source.multilabel, task = True, task_named("multilabel")
    learners = traces = None
    seconds = {}
    decided = None  # the labels of the first chunk, when they chose the task

    warm = False
    with Progress(enabled=True, description="comparing") as progress:
        for X, y, weight in source.chunks() if task_name is not None else _sets_hinted(source):
            done = 0 if traces is None else next(iter(traces.values())).n_rounds
            if task is None:
                task = task_named(_task_of_labels(y, named(file)))
                decided = (task, np.unique(y))
            elif decided is not None:
                with source.locating(done):
                    _check_decided(decided, y)
            if costs is not None:
                with source.locating(done):
                    costs.check_labels(y)
            if learners is None:
                if entries is None:
                    entries = [(algo, algo, {}) for algo in COMPARED_BY_DEFAULT[task.name]]
                    _check_entries(entries, common, fit_intercept)
                    _check_task(task.name, costs_path, plot)
                learners = _learners(entries, common, fit_intercept, source, task, costs)
                traces = {label: MistakeTrace(task=task) for label in learners}
                seconds = dict.fromkeys(learners, 0.0)
            if not warm and X.shape[0]:
                # Load each compiled kernel on a throw-away copy, so that the first learner's
                # time is not charged for it (a copy, not a clone: a cost-sensitive one knows its labels).
                for est in learners.values():
                    with source.locating(done):
                        olearn.run(copy.deepcopy(est), X[:1], None if y is None else y[:1],
                                   sample_weight=None if weight is None else weight[:1])
                warm = True
            for label, est in learners.items():
                tick = time.perf_counter()
                with source.locating(done):
                    traces[label].add(olearn.run(est, X, y, record=True, sample_weight=weight), y, est)
                seconds[label] += time.perf_counter() - tick
            progress.update(next(iter(traces.values())).n_rounds)
    n_examples = 0 if traces is None else next(iter(traces.values())).n_rounds
    if n_examples == 0:
        raise ValueError(f"{named(file)}: holds no examples")
    wall = time.perf_counter() - start

    rows = [
        {
            "algorithm": label,
            "settings": describe_estimator(learners[label]),
            "examples": trace.n_rounds,
            **{name.replace(" ", "_"): value for name, value in trace.summary()},
            "updates": trace.n_updates,
            "seconds": seconds[label],
        }
        for label, trace in traces.items()
    ]
    caption = f"{named(file)}: {n_examples:,} examples, one pass" + ("" if task.name == "binary" else f", {task.name}")
    _print_table(rows, caption, wall - sum(seconds.values()))
    if csv_path is not None:
        with open(csv_path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
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
        default_title = f"{os.path.basename(named(file))}: {n_examples:,} examples"
        plot_cumulative_mistakes(curves, plot, title=title or default_title)
        click.echo(f"plot written to {plot}")


def _print_table(rows, caption, other_seconds):
    """The table of ``olearn compare``: the task's measures between the settings and the updates; the best
    learner by the first measure (mistakes, or MAE) in bold."""
    from rich.table import Table

    table = Table(title=caption, title_justify="left", caption=f"reading and overhead: {other_seconds:.3f} s",
                  caption_justify="left")
    measures = list(rows[0])[3:-2]
    table.add_column("algorithm")
    table.add_column("settings")
    for name in (*measures, "updates", "time (s)"):
        table.add_column(name.replace("_", " "), justify="right")
    best = min(row[measures[0]] for row in rows)
    for row in rows:
        cells = [f"{row[name]:,}" if isinstance(row[name], int) else f"{row[name]:.4f}" for name in measures]
        table.add_row(
            row["algorithm"],
            row["settings"],
            *cells,
            f"{row['updates']:,}",
            f"{row['seconds']:.4f}",
            style="bold" if row[measures[0]] == best else None,
        )
    table_console().print(table)


def _chosen_task(entries, task, costs_path):
    """The task given by --algos (whose entries must share one), by --task, or by --costs; None: the file decides."""
    if entries is not None:
        tasks = {}
        for label, algo, _ in entries:
            tasks.setdefault(task_of(algo), label)
        if len(tasks) > 1:
            listed = ", ".join(f"{label} ({name})" for name, label in tasks.items())
            raise click.UsageError(f"--algos mixes learners of different tasks: {listed}; compare the learners "
                                   "of one task")
        (found,) = tasks
        if task is not None and task != found:
            raise click.UsageError(f"--task {task} contradicts --algos, whose learners are {found} ones")
        return found
    if task is None and costs_path is not None:
        return "cost-sensitive"
    return task


def _check_task(task, costs_path, plot):
    """Usage errors of --costs and --plot for the learners of ``task``."""
    if task == "cost-sensitive" and costs_path is None:
        raise click.UsageError("the cost-sensitive learners learn with a cost matrix: give it with --costs FILE")
    if task != "cost-sensitive" and costs_path is not None:
        raise click.UsageError(f"--costs applies to the cost-sensitive learners "
                               f"({', '.join(algorithms_of('cost-sensitive'))}), not to {task} ones")
    if task == "regression" and plot is not None:
        raise click.UsageError("--plot draws the cumulative mistakes, and a regressor makes none: drop --plot "
                               "(the table and --csv give MAE and RMSE)")


def _check_entries(entries, common, fit_intercept):
    check_some_takes(common, [algo for _, algo, _ in entries])
    check_conditions(entries, common)
    for _, algo, _ in entries:
        check_fit_intercept(algo, fit_intercept)


def _learners(entries, common, fit_intercept, source, task, costs):
    """The estimators of the entries, ready for the first example (a cost-sensitive one knows all its labels)."""
    if not task.reads_labels and source.format == "libsvm" and source.model_n_features is None:
        raise click.UsageError("the uniclass learners need the dimension of their vectors up front, and a LIBSVM "
                               "file read in chunks does not tell it: give --n-features D (CSV and VW files fix it)")
    learners = {}
    for label, algo, own in entries:
        # seeded as olearn run's default --random-seed, so that a comparison repeats exactly
        est = make_estimator(algo, seeded(algo, {**common, **own}), fit_intercept, source.model_n_features,
                             None if costs is None else costs.matrix)
        if costs is not None:
            est.partial_fit(np.empty((0, source.model_n_features or 0)), [], classes=costs.labels)
        learners[label] = est
    return learners


def _labels_are_sets(source):
    """Whether the first data line of a LIBSVM file has a comma-separated label (``1,3 5:0.2``)."""
    from ..data._io import read_head

    if source.format != "libsvm":
        return False
    for line in read_head(source.path).decode("utf-8", "replace").splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            first = text.split()[0]
            return ":" not in first and "," in first
    return False


def _sets_hinted(source):
    """``source.chunks()``, where a label set met after a first line of one label says how to read the file."""
    try:
        yield from source.chunks()
    except DataFormatError as err:
        if source.multilabel or "expected a numeric label" not in err.message or "," not in err.message:
            raise
        raise DataFormatError(f"{err.message}: the file's first label is a single number, so it was not read as "
                              "multilabel; say --task multilabel", err.path, err.line, err.column) from None


def _task_of_labels(y, path):
    """The task the labels of the first chunk show: regression, binary or multiclass."""
    from ._csv_layout import MAX_PLAUSIBLE_CLASSES

    values = np.unique(np.asarray(y, dtype=np.float64))
    if not np.all(values == np.round(values)):
        return "regression"
    if values.size <= 2:
        return "binary"
    if values.size <= MAX_PLAUSIBLE_CLASSES:
        return "multiclass"
    raise click.UsageError(f"{path}: the first chunk has {values.size} distinct integer labels, too many for "
                           f"classes ({MAX_PLAUSIBLE_CLASSES} at most) and no sign of regression: say which with "
                           "--task or --algos")


def _check_decided(decided, y):
    """Refuse a label of a later chunk that the task chosen from the first chunk's labels cannot take."""
    task, first = decided
    if task.name == "regression":
        return
    y = np.asarray(y, dtype=np.float64)
    bad = np.flatnonzero(y != np.round(y))
    if task.name == "binary" and first.size == 2:
        bad = np.union1d(bad, np.flatnonzero(~np.isin(y, first)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"row {i} has the label {y[i]:g}, which the {task.name} learners chosen from the labels of "
                         f"the first chunk ({' '.join(f'{v:g}' for v in first)}) cannot take: name the task with "
                         "--task or the learners with --algos")
