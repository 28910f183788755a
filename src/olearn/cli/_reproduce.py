"""``olearn reproduce``: regenerate a paper's or a lecture's experiment (PNG + CSV)."""

import os

import click

from ._app import cli
from ._learners import RANDOM_SEEDS
from ._report import table_console


@cli.command("reproduce", short_help="Regenerate an experiment of the source papers; write PNG and CSV.")
@click.argument("name", required=False)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Folder for the figure and the CSVs (default: ./olearn-NAME).")
@click.option("--seed", type=RANDOM_SEEDS, default=0, show_default=True, help="Seed of every random sequence.")
@click.option("--quick", is_flag=True,
              help="A small version that finishes in seconds; its verdicts are those of that size, not the paper's.")
@click.option("--repetitions", type=click.IntRange(min=1), default=None, metavar="N",
              help="Average the figure over N repetitions instead of the paper's number (or quick mode's); "
                   "for the reproductions whose figure averages over repetitions.")
@click.option("--list", "list_only", is_flag=True, help="List the reproductions and exit.")
@click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
              help="Run the repetitions on a local Dask cluster of N worker processes (olearn[distributed]).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the repetitions on the Dask cluster at ADDRESS (tcp://host:port).")
def reproduce_command(name, out_dir, seed, quick, repetitions, list_only, workers, scheduler):
    """Regenerate the experiment NAME: its figure, its numbers, and whether each bound held.

    Reproductions of a paper's figure also check the paper's conclusions and
    print whether each holds in our run; a conclusion that does not hold is
    reported, not an error (a bound that does not hold is).

    \b
    Examples:
      olearn reproduce --list
      olearn reproduce ucl-experts
      olearn reproduce zinkevich-ogd --quick --out /tmp/ogd
      olearn reproduce orabona2010-fig3 --workers 8
      olearn reproduce crammer2006-fig3 --repetitions 30

    With --workers or --scheduler the repetitions run on Dask (through
    joblib's Dask backend); every repetition draws from its own seed, so the
    numbers are those of a local run with the same --seed.
    """
    from ..experiments import REPRODUCTIONS, get_reproduction

    if list_only or name is None:
        for known in REPRODUCTIONS.values():
            click.echo(f"{known.name:18s} {known.summary}")
        if name is None and not list_only:
            raise click.UsageError("name a reproduction (see the list above)")
        return
    reproduction = get_reproduction(name)
    out_dir = out_dir or f"olearn-{name}"
    options = {}
    if repetitions is not None:
        if not reproduction.averages_repetitions:
            raise click.UsageError(f"--repetitions applies to the reproductions whose figure averages over "
                                   f"repetitions ({', '.join(_averaging_reproductions())}), not to {name}")
        options["n_repetitions"] = repetitions
    if quick:
        click.secho(_QUICK_NOTE, fg="yellow", bold=True)
    if workers is None and scheduler is None:
        results = reproduction.run(out_dir, seed=seed, quick=quick, **options)
    else:
        results = _run_on_dask(reproduction, out_dir, seed, quick, workers, scheduler, options)
    for message in results.get("warnings", ()):
        click.secho(f"WARNING: {message}", fg="red", bold=True)
    if "findings" in results:
        _print_findings(f"{name}: the paper's conclusions in this run", results["findings"])
        if results.get("observations"):
            _print_findings(f"{name}: olearn's own observations (not claims of the paper)", results["observations"])
    else:
        _print_rows(name, results["rows"])
    for key in sorted(results):
        value = results[key]
        if key == "figure" or key.endswith("_csv"):
            click.echo(f"{key.replace('_', ' ')} written to {os.path.abspath(value)}")
    for message in results.get("warnings", ()):  # again below the tables, where a reader's eye ends
        click.secho(f"WARNING: {message}", fg="red", bold=True)
    if quick:
        click.secho(_QUICK_NOTE, fg="yellow", bold=True)
    broken = [row for row in results["rows"] if _verdict(row.get("bound_holds")) == "NO"]
    if broken:
        raise click.ClickException(f"{len(broken)} bound(s) did not hold; see the table")


_QUICK_NOTE = ("NOTE: --quick ran a reduced size (fewer rounds, repetitions or settings than the paper's); its "
               "verdicts are those of that size, not of the paper's, and can differ: run without --quick for them.")


def _averaging_reproductions():
    from ..experiments import REPRODUCTIONS

    return [known.name for known in REPRODUCTIONS.values() if known.averages_repetitions]


def _run_on_dask(reproduction, out_dir, seed, quick, workers, scheduler, options):
    """Run ``reproduction`` with its joblib repetitions sent to a Dask cluster."""
    if workers is not None and scheduler is not None:
        raise click.UsageError("give --workers (a local cluster) or --scheduler (a running one), not both")
    if not reproduction.runs_in_parallel:
        raise click.UsageError(f"{reproduction.name} has no repetitions to run in parallel; run it without "
                               "--workers/--scheduler")
    import joblib

    from ..distributed import connect

    with connect(workers=workers, scheduler=scheduler, quiet=True), joblib.parallel_backend("dask"):
        return reproduction.run(out_dir, seed=seed, quick=quick, n_jobs=-1, **options)


def _print_rows(name, rows):
    from rich.table import Table

    table = Table(title=name, title_justify="left", title_style="bold")
    # the text's own statement of a bound, where a reproduction reports it beside olearn's
    texts_bound = any("notes_bound" in row for row in rows)
    numbers = ("regret", "bound", "text's bound") if texts_bound else ("regret", "bound")
    for column in ("panel", "setting / algorithm", *numbers, "holds"):
        table.add_column(column, justify="right" if column in numbers else "left")
    for row in rows:
        cells = [_number(row.get("regret")), _number(row.get("regret_bound"))]
        if texts_bound:
            cells.append(_number(row.get("notes_bound")))
        table.add_row(str(row.get("panel", "")), str(row.get("setting", row.get("algorithm", ""))), *cells,
                      _verdict(row.get("bound_holds")))
    table_console().print(table)


def _print_findings(title, findings):
    from rich.table import Table

    table = Table(title=title, title_justify="left", title_style="bold")
    for column in ("conclusion", "measure", "values", "holds"):
        table.add_column(column)
    for row in findings:
        where = row.get("panel")
        measure = str(row.get("measure", ""))
        table.add_row(
            str(row["finding"]),
            f"{where}: {measure}" if where else measure,
            str(row.get("values", "")),
            _verdict(row.get("holds")),
        )
    table_console().print(table)


def _number(value):
    return f"{value:.4g}" if isinstance(value, (int, float)) else ("" if value is None else str(value))


def _verdict(holds):
    """yes / NO for a bound that was checked, - for a row without one."""
    if holds is None or holds == "":
        return "-"
    return "yes" if bool(holds) else "NO"
