"""``olearn demo``: the built-in comparison, on data that ships with olearn and scikit-learn."""

import os

import click

from ._app import cli
from ._learners import RANDOM_SEEDS
from ._report import table_console


@cli.command("demo", short_help="Compare the learners on built-in data; write a PNG and a CSV.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="olearn-demo", show_default=True,
              help="Folder for the figure and the CSV (created if missing).")
@click.option("--seed", type=RANDOM_SEEDS, default=0, show_default=True,
              help="Seed of the synthetic stream and of the shuffle of the breast-cancer data.")
def demo_command(out_dir, seed):
    """Compare the Perceptron, PA, PA-I, PA-II, OGD and an online SVM on built-in data.

    \b
    Two streams, nothing is downloaded:
      * the synthetic stream of Crammer et al., Online Passive-Aggressive
        Algorithms (JMLR 2006), Sec. 10: 4,000 examples in R^2, 10% of the
        labels flipped;
      * scikit-learn's bundled Wisconsin breast-cancer data (569 examples,
        30 standardised features, shuffled with --seed).

    PA-I and PA-II run with the paper's C = 1 and C = 0.001. Every learner
    predicts each example before learning it (progressive validation). The
    command prints a table per dataset and writes cumulative_mistakes.png
    (one panel per dataset) and results.csv into --out.

    \b
    Examples:
      olearn demo
      olearn demo --out /tmp/demo --seed 7
    """
    from ..experiments import run_demo

    demo = run_demo(out_dir, seed)
    _print_tables(demo)
    click.echo(f"figure written to {os.path.abspath(demo.figure_path)}")
    click.echo(f"table written to {os.path.abspath(demo.csv_path)}")


def _print_tables(demo):
    from rich.table import Table

    console = table_console()
    for dataset, results in demo.results.items():
        table = Table(title=dataset, title_justify="left", title_style="bold",
                      caption=demo.descriptions[dataset], caption_justify="left")
        table.add_column("algorithm")
        for name in ("mistakes", "mistake rate", "average hinge loss", "updates", "time (ms)"):
            table.add_column(name, justify="right")
        best = min(res.n_mistakes for res in results.values())
        for name, res in results.items():
            table.add_row(
                name,
                f"{res.n_mistakes:,}",
                f"{res.mistake_rate:.4f}",
                f"{res.average_loss:.4f}",
                f"{res.n_updates:,}",
                f"{1000 * demo.seconds[dataset][name]:.2f}",
                style="bold" if res.n_mistakes == best else None,
            )
        console.print(table)
        console.print("")
