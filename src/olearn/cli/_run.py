"""``olearn run``: progressive validation of one learner on a file, streamed in chunks."""

import time

import click

from ._app import cli
from ._learners import (
    ALGORITHM_NAMES,
    BOUNDED,
    check_applicable,
    collect_hyperparameters,
    hyperparameter_options,
    make_estimator,
)
from ._report import Progress, ProgressiveTable, echo_stdout, summary_lines
from ._source import DataSource, check_writable, data_options, file_argument


@cli.command("run", short_help="Learn from a file online; print progressive validation.")
@click.option("--algo", "-a", type=click.Choice(ALGORITHM_NAMES), required=True,
              help="perceptron | pa, pa1, pa2 (Passive-Aggressive, PA-I, PA-II) | ogd (online gradient "
                   "descent) | svm (online SVM: ogd on the hinge loss in an L2 ball) | winnow, pnorm, dual "
                   "(quasi-additive; DualAscent) | arow, narow, cw (diagonal "
                   "covariance), arow-full, narow-full, cw-full, sop (full: O(d^2) per example), adagrad; "
                   "set r, b, a, delta with --set.")
@hyperparameter_options
@click.option("--passes", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Read the file this many times (the table counts every example of every pass).")
@data_options()
@click.option("--save", type=click.Path(dir_okay=False), default=None, metavar="MODEL",
              help="Write the learned model to MODEL (read it back with 'olearn predict').")
@click.option("--bound", is_flag=True,
              help="After the run, print the theorem's mistake bound next to the measured value "
                   "(perceptron and the PA family; loads FILE into memory).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final summary.")
@file_argument
def run_command(algo, C, eta, loss, schedule, radius, fit_intercept, settings, passes, fmt, n_features, bits,
                chunk_size, save, bound, quiet, file):
    """Learn from FILE online and report progressive validation.

    Each example is predicted first and learned second, so the mistakes
    counted on the first pass are honest test mistakes of a model that has
    never seen the example. A row is printed when the number of examples
    seen reaches 1, 2, 4, 8, ... and at the end: the cumulative mistakes,
    the mistake rate and average loss so far, and the mistake rate since the
    previous row. LIBSVM and VW files are read in chunks, so memory stays
    bounded however long the file is.

    With --passes N the file is read N times and learning continues across
    passes; from pass 2 on the learner has seen every example before, so the
    numbers are no longer progressive validation (they measure fit, not
    generalisation).

    \b
    Examples:
      olearn run --algo pa1 -C 0.1 train.svm
      olearn run --algo ogd --loss logistic --eta 0.5 --schedule sqrt train.svm.gz
      olearn run --algo perceptron --passes 3 --save model.npz train.svm
      olearn run --algo pa --bound small.svm
      olearn run --algo pa2 --format vw --bits 20 clicks.vw
      olearn run --algo ogd --set conservative=true train.svm
      olearn run --algo arow --set r=0.1 train.svm
    """
    import olearn

    start = time.perf_counter()
    hyperparameters = collect_hyperparameters(C, eta, loss, schedule, radius, settings)
    check_applicable(algo, hyperparameters)
    if bound and algo not in BOUNDED:
        raise click.UsageError(f"--bound applies to {', '.join(BOUNDED)}, not to --algo {algo}")
    if bound and passes > 1:
        raise click.UsageError("--bound describes one pass; it cannot be combined with --passes")
    if save is not None:
        check_writable(save, "--save")
    source = DataSource(file, fmt, n_features, bits, chunk_size)
    est = make_estimator(algo, hyperparameters, fit_intercept, source.model_n_features)
    table = ProgressiveTable(None if quiet else echo_stdout)

    if bound:
        X, y = source.load()
        result = olearn.run(est, X, y, record=True)
        table.add(result)
    else:
        with Progress(enabled=not quiet) as progress:
            for p in range(passes):
                label = f"pass {p + 1}/{passes}" if passes > 1 else "learning"
                for X, y in source.chunks():
                    table.add(olearn.run(est, X, y, record=table.needs_record(X.shape[0])))
                    progress.update(table.examples, label)
    table.finish()
    if table.examples == 0:
        raise ValueError(f"{file}: holds no examples")
    seconds = time.perf_counter() - start

    if not quiet:
        click.echo("")
    for line in summary_lines(table, passes, seconds):
        click.echo(line)
    if save is not None:
        est.save(save)
        click.echo(f"{'model':<14}{save}")
    if bound:
        from ..bounds import bound_report

        click.echo("")
        click.echo(str(bound_report(est, X, y, result)))
