"""``olearn inspect MODEL``: what a saved model learned, as Vowpal Wabbit's ``--readable_model`` shows it.

The description (:func:`olearn.cli._model_description.describe`) holds the model's class and task, its
hyperparameters, its classes, its input layout (the number of features, how
names became columns: a vocabulary, hashing into ``n_bits`` bits, or plain
column indices; how ``olearn run`` read the training file) and the largest
weights by absolute value, each with the name of its feature where the model
knows it. A vocabulary keeps every name; a hashed model keeps none (the
column of a name is a hash, not stored), so its weights are shown by column,
unless ``olearn run --keep-names`` (VW's ``--invert_hash``) recorded the names
behind the columns of its VW file: then each weight lists every name of its
column (several where names collide). A pipeline is described by its steps and
its final learner.
"""

import json

import click

from ._app import cli
from ._model_description import describe
from ._read_paths import ReadFile


@cli.command("inspect", short_help="Show a saved model: hyperparameters, classes, input and largest weights.")
@click.argument("model_path", metavar="MODEL", type=ReadFile())
@click.option("--top", type=click.IntRange(min=0), default=20, show_default=True, metavar="N",
              help="How many of the largest weights (by absolute value) to show.")
@click.option("--json", "as_json", is_flag=True, help="Print the description as one JSON object.")
def inspect_command(model_path, top, as_json):
    """Show what the model MODEL (saved by 'olearn run --save' or olearn.save) learned.

    Prints the learner and its task, its hyperparameters, its classes, the
    input layout (features, vocabulary or hashing bits, pipeline steps, how
    the training file was read) and the N largest weights by absolute value,
    each with its feature's name where the model keeps names (a vocabulary of
    named features does; a hashed model keeps no names, and its weights are
    shown by column, unless it was learned from a VW file with 'olearn run
    --keep-names', which lists every name of each column).

    \b
    Examples:
      olearn inspect model.npz
      olearn inspect model.npz --top 5 --json
    """
    import olearn
    from .._persistence import read_input_info

    description = describe(olearn.load(model_path), read_input_info(model_path), top)
    description = {"model": model_path, **description}
    if as_json:
        click.echo(json.dumps(description, indent=2))
    else:
        _print(description)


def _print(description):
    from rich.table import Table

    from ._report import table_console

    console = table_console()
    console.print(f"{description['model']}: {description['learner']} ({description['task']})", markup=False)
    about = Table(show_header=False)
    about.add_column("item")
    about.add_column("value")
    for key, value in description["hyperparameters"].items():
        about.add_row(key, str(value))
    about.add_section()
    classes = description["classes"]
    about.add_row("classes", "-" if classes is None else ", ".join(map(str, classes)))
    if description["intercept"] is not None:
        about.add_row("intercept", str(description["intercept"]))
    for key, value in description["input"].items():
        if key == "pipeline":
            value = " -> ".join(f"{step['name']} ({step['step']})" for step in value)
        about.add_row(key, json.dumps(value) if isinstance(value, dict) else str(value))
    console.print(about)
    weights = description["weights"]
    if weights is None:
        console.print("no weight vector to show (a kernel learner keeps support vectors)")
        return
    table = Table(title="largest weights", title_justify="left")
    for name in ("feature", "column", "class", "weight"):
        table.add_column(name, justify="right" if name in ("column", "weight") else "left")
    for entry in weights:
        table.add_row("-" if entry["feature"] is None else str(entry["feature"]), str(entry["column"]),
                      "-" if entry["class"] is None else str(entry["class"]), f"{entry['weight']:.6g}")
    console.print(table)
    kept = description["input"].get("hashed_names")
    if kept is not None:
        console.print("feature names kept at learning (olearn run --keep-names); a column where names collide lists "
                      "them all, separated by ' | '" + ("" if kept["complete"] else
                      f"; only the first {kept['limit']:,} distinct names of the file were kept"))
    elif description["input"]["names"] == "hashed" or description["input"].get("read_as", {}).get("format") == "vw":
        console.print("hashed features keep no names: the weights are shown by column (olearn run --keep-names "
                      "keeps them)")
