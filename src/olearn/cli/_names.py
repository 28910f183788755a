"""``olearn run --keep-names`` and VW's ``--invert_hash FILE``: the names behind the hashed columns of a VW file.

The names are read from the file learned (:func:`olearn.data._vw_names.vw_feature_names`),
saved in the model's ``input`` entry as ``hashed_names`` and shown by ``olearn
inspect``; ``--invert_hash FILE`` also writes the model's weights by name to
FILE, one line per name, as Vowpal Wabbit's ``--invert_hash`` does.
"""

import click

from ._source import named


def check_names_wanted(keep_names, invert_hash, save, initial_model, namespaces):
    """Whether names are to be kept; a usage error where they cannot be (checked before anything is learned)."""
    if not keep_names and invert_hash is None:
        return False
    flag = "--keep-names" if keep_names else "--invert_hash"
    if keep_names and save is None and invert_hash is None:
        raise click.UsageError("--keep-names keeps the names in the saved model: add -f/--save MODEL (or write "
                               "them with --invert_hash FILE)")
    if initial_model is not None:
        raise click.UsageError(f"{flag} names the columns of a fresh run's VW file; the model of -i was learned "
                               "from other files: drop -i")
    if namespaces is not None:
        raise click.UsageError(f"{flag} names the features written in the VW file; the features that -q, --cubic, "
                               "--interactions, --ngram or --skips add, or --ignore and --keep drop, would go "
                               "unnamed or misnamed: drop the namespace options")
    return True


def check_names_source(source, path):
    """A usage error unless ``source`` reads the VW text file ``path`` from disk, whose names can be read again."""
    from ..data import detect_format

    if source.stream:
        what = "a stream, read once"
    elif source.input_info().get("format") != "vw" or detect_format(path) != "vw":
        what = f"read as {detect_format(path)}"
    else:
        return
    raise click.UsageError(f"--keep-names and --invert_hash name the hashed columns of a VW text file; {named(path)} is "
                           f"{what}")


def kept_names(path, info):
    """The names of the VW file ``path`` (``info``: the input entry it was read with), as the model saves them."""
    from ..data._vw_names import vw_feature_names

    return vw_feature_names(path, info["bits"])


def write_invert_hash(path, model, info):
    """Write ``model``'s non-zero weights to ``path``, one ``name:column:weight`` line per name kept
    (``name[class]`` for a class's prototype), largest weights first; a column without a name is written by
    its number alone."""
    from ._model_description import describe
    from ._output import OutputFile

    description = describe(model, info, top=None)
    lines = [f"{description['learner']} ({description['task']}), features named by olearn run --keep-names"]
    for entry in description["weights"] or ():
        suffix = "" if entry["class"] is None else f"[{entry['class']}]"
        for name in entry.get("names") or [""]:
            lines.append(f"{name}{suffix}:{entry['column']}:{entry['weight']!r}")
    out = OutputFile(path)
    out.write("\n".join(lines) + "\n")
    out.close()
