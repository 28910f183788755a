"""``olearn inspect MODEL``: what a saved model learned, as Vowpal Wabbit's ``--readable_model`` shows it.

The description (:func:`describe`) holds the model's class and task, its
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
import numpy as np

from ._app import cli


@cli.command("inspect", short_help="Show a saved model: hyperparameters, classes, input and largest weights.")
@click.argument("model_path", metavar="MODEL", type=click.Path(exists=True, dir_okay=False))
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


def describe(model, input_info, top):
    """The JSON-ready description of ``model``; ``input_info`` is how ``olearn run`` read its data (``{}``)."""
    steps = getattr(model, "steps", None)
    learner = steps[-1][1] if steps else model
    classes = getattr(learner, "classes_", None)
    layout = {"n_features": getattr(learner, "n_features_in_", None), **_names_layout(learner)}
    if steps:
        layout["pipeline"] = [{"name": name, "step": type(step).__name__} for name, step in steps]
    hashed_names = (input_info or {}).get("hashed_names")
    if input_info:
        layout["read_as"] = {key: value for key, value in input_info.items() if key != "hashed_names"}
    if hashed_names is not None:
        layout["hashed_names"] = {"named_columns": len(hashed_names["columns"]), "limit": hashed_names["limit"],
                                  "complete": hashed_names["complete"]}
    return {
        "learner": type(learner).__name__,
        "task": getattr(learner, "_task", None),
        "hyperparameters": {key: _plain(value) for key, value in learner.get_params(deep=False).items()},
        "classes": None if classes is None else [_plain(label) for label in np.asarray(classes).tolist()],
        "intercept": _intercept(learner),
        "input": layout,
        "weights": _largest_weights(learner, classes, top, None if hashed_names is None else hashed_names["columns"]),
    }


def _names_layout(learner):
    """How the learner's feature names map to columns: a vocabulary, hashing, or none (the columns of arrays,
    LIBSVM files, and VW or CoNLL files, whose names ``olearn run`` hashes without keeping them)."""
    if not hasattr(learner, "_feature_map") or not getattr(learner, "_named_features", False):
        return {"names": "columns"}
    features = learner._feature_map()
    if features.hashing:
        return {"names": "hashed", "n_bits": features.n_bits, "named_columns": features.size}
    if features.size == 0:
        return {"names": "columns"}
    return {"names": "vocabulary", "vocabulary_size": features.size}


def _intercept(learner):
    """The learned intercept: a number, one per row of ``coef_``, or None (none learned)."""
    if not getattr(learner, "fit_intercept", False) or getattr(learner, "intercept_", None) is None:
        return None
    values = np.ravel(np.asarray(learner.intercept_, dtype=float)).tolist()
    return values[0] if len(values) == 1 else values


def _largest_weights(learner, classes, top, hashed_names=None):
    """The ``top`` non-zero weights of ``coef_`` (a uniclass learner's ``center_``) by absolute value, largest
    first, or None without either (a kernel learner keeps support vectors). ``hashed_names``: the names kept
    for each hashed column (``{"column": [names]}``), which each weight then lists as ``names``."""
    coef = getattr(learner, "coef_", None)
    if coef is None:
        coef = getattr(learner, "center_", None)
    if coef is None:
        return None
    weights = np.atleast_2d(np.asarray(coef, dtype=float))
    rows, columns = np.nonzero(weights)
    order = np.argsort(-np.abs(weights[rows, columns]), kind="stable")[:top]
    features = learner._feature_map() if getattr(learner, "_named_features", False) else None
    labels = _row_labels(weights.shape[0], classes)
    entries = [{"feature": None if features is None else _plain(features.name_of(int(columns[i]))),
                "column": int(columns[i]), "class": labels[rows[i]], "weight": float(weights[rows[i], columns[i]])}
               for i in order]
    if hashed_names is not None:
        for entry in entries:
            names = hashed_names.get(str(entry["column"]), [])
            entry["names"] = names
            entry["feature"] = " | ".join(names) if names else entry["feature"]
    return entries


def _row_labels(n_rows, classes):
    """What each row of ``coef_`` scores: a class of a multiclass learner; None for one row (positive: the last
    class of a binary learner)."""
    if n_rows == 1 or classes is None or len(classes) != n_rows:
        return [None] * n_rows
    return [_plain(label) for label in np.asarray(classes).tolist()]


def _plain(value):
    """``value`` as JSON holds it: numbers, strings, booleans and None as they are, anything else as its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, int, float, str)) for v in value):
        return list(value)
    return repr(value)


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
