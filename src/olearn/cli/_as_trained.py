"""FILE read as a model's training data were: the same format, index base, hashing bits and CSV layout, or refused.

Shared by ``olearn predict``, ``olearn run -i`` (:func:`olearn.cli._resume.resumed_source`) and the sequence
path (:func:`olearn.cli._sequences.source_for_model`).
"""

import math

import click

from .._persistence import read_input_info
from ._scaling import learner_of
from ._source import DataSource, IndexBase, named


def _bits_of(model):
    """log2 of the model's fixed dimension, if it is a power of two (a VW-hashed model)."""
    n = model.get_params().get("n_features")
    if n is not None and n > 0 and n & (n - 1) == 0:
        return int(math.log2(n))
    return None


def _trained_on(info):
    """The training data as the model's ``input`` entry records them, e.g. ``a VW file hashed into 2^18 columns``."""
    fmt = info["format"]
    if fmt == "conll":
        return f"a CoNLL file of sequences hashed into 2^{info.get('bits')} columns"
    if fmt == "vw":
        crossed = " (namespaces crossed as it records)" if info.get("namespaces") else ""
        return f"a VW file hashed into 2^{info.get('bits')} columns{crossed}"
    if fmt == "libsvm":
        base = {True: ", 0-based indices", False: ", 1-based indices"}.get(info.get("zero_based"), "")
        return f"a LIBSVM file{base}"
    if fmt == "csv":
        layout = info["csv"]
        label = layout.get("label_column")
        if label is None:
            return f"a CSV file of {layout.get('n_columns')} columns, no label"
        name = f" ({layout['header'][label - 1]!r})" if layout.get("header") else ""
        return f"a CSV file of {layout.get('n_columns')} columns, the label in column {label}{name}"
    return "an olearn cache file"


def source_as_trained(model, model_path, file, zero_based, bits, **reading):
    """FILE read as the training data of MODEL were, and refused if its layout is not the model's.

    The index base and the CSV layout the model records are the defaults
    (``zero_based`` overrides the base; ``reading`` holds the other
    :class:`DataSource` options), and :func:`check_layout` refuses another
    format, other hashing bits or another CSV layout, which would give the
    learned weights other features. A model that does not record how its
    data were read is used with a warning. Shared by ``predict`` and ``run -i``.
    """
    trained = read_input_info(model_path)
    if zero_based is None and trained.get("zero_based") is not None:
        base = IndexBase(trained["zero_based"], f"as for the training data of {model_path}")
    else:
        base = IndexBase(zero_based)
    source = DataSource(file, bits=bits, base=base, trained_csv=trained.get("csv"), **reading)
    if source.format == "vw" and trained.get("format") == "vw":
        from ..data._namespaces import Namespaces

        source.namespaces = Namespaces.from_info(trained.get("namespaces"))
    if "format" in trained:
        check_layout(model_path, trained, source, bits is not None)
    else:
        click.echo(f"olearn: warning: {model_path} does not record how its training data were read (saved by the "
                   f"library or an older olearn): {named(file)} is read as 'olearn run' would, and cannot be checked against "
                   "the training data", err=True)
        if source.format == "vw":
            _check_named_features(model, model_path, source, bits)
        if bits is None and source.format == "vw" and _bits_of(learner_of(model)) is not None:
            source.bits = _bits_of(learner_of(model))
    return source


def _check_named_features(model, model_path, source, bits):
    """A model that learned named features (dicts, a DataFrame's columns; a pipeline's or a learner's
    :class:`~olearn._features.FeatureMap`) and a VW file: the file's names are hashed as a hashing map
    (``n_bits``) hashes them, so such a model reads the file in its own bits; a vocabulary gave each name the
    next free column instead, which no hashed column matches, so it is refused."""
    features = model.__dict__.get("feature_map_") or model.__dict__.get("_features")
    if features is None:
        return
    if features.hashing:
        if bits is not None and bits != features.n_bits:
            raise click.UsageError(f"--bits {bits} hashes the features into other columns than the model's "
                                   f"n_bits={features.n_bits}: drop --bits, or pass --bits {features.n_bits}")
        source.bits = features.n_bits
    elif features.size:
        raise ValueError(
            f"{model_path} learned its {features.size} named features as a vocabulary (n_bits=None: each name the "
            f"next free column, in the order first seen), and {named(source.path)} is a VW file, whose names are "
            "hashed into other columns, so the predictions would be meaningless. Learn with n_bits=B (names hashed as "
            "a VW file's default namespace is) to predict VW files, or predict the named rows in Python")


def check_layout(model_path, trained, source, bits_given):
    """Refuse FILE when its columns are not those the model learned: another format, hashing or CSV layout."""
    path, fmt = named(source.path), trained["format"]
    if "cache" in (fmt, source.format):
        click.echo(f"olearn: warning: {model_path} was trained on {_trained_on(trained)} and {path} is read as "
                   f"{source.format}: a cache's columns cannot be checked against the training data", err=True)
        return
    if source.format != fmt:
        why = ("a CoNLL file holds sequences, whose tokens' features are hashed" if "conll" in (fmt, source.format)
               else "VW features are hashed into columns, LIBSVM and CSV features numbered"
               if "vw" in (fmt, source.format)
               else "a CSV file's columns and a LIBSVM file's indices need not number the same features")
        raise ValueError(
            f"{model_path} was trained on {_trained_on(trained)}, and {path} is read as {source.format}: its "
            f"columns are not the model's ({why}), so the predictions would be meaningless. Predict on the data "
            f"in the training format (pass --format {fmt} if {path} is in it)")
    if fmt in ("vw", "conll") and source.bits != trained.get("bits", source.bits):
        if bits_given:
            raise click.UsageError(
                f"--bits {source.bits} hashes the features into other columns than the model's 2^{trained['bits']}: "
                f"drop --bits, or pass --bits {trained['bits']}")
        source.bits = trained["bits"]
    if fmt == "csv":
        _check_csv(model_path, trained, source.csv)


def _check_csv(model_path, trained, csv):
    layout = trained["csv"]
    expected, label = layout.get("n_columns"), layout.get("label_column")
    was = f"{model_path} was trained on {_trained_on(trained)}"
    if label is None:  # a uniclass model's file: every column a coordinate
        if csv.n_columns != expected:
            raise ValueError(f"{csv.name} has {csv.n_columns} columns ({was}): its coordinates are not the model's")
    elif not csv.labelled:
        if csv.n_columns != expected - 1:
            raise ValueError(f"{csv.name} has {csv.n_columns} columns; with --no-label it must have the "
                             f"{expected - 1} feature columns of the training file ({was})")
    elif csv.n_columns == expected - 1 and csv.defaulted:
        raise ValueError(f"{csv.name} has {csv.n_columns} columns, one fewer than the training file ({was}): if "
                         "it has no labels, pass --no-label")
    elif csv.n_columns != expected:
        raise ValueError(f"{csv.name} has {csv.n_columns} columns ({was}): its features are not the model's")
    elif csv.label != label:
        raise click.UsageError(f"--label-column reads the label from {csv.describe()} of {csv.name}, but {was}: "
                               f"the features would be the model's shifted; drop --label-column")
    names = layout.get("header")
    if names is not None and csv.header is not None:
        names = names if csv.labelled or label is None else names[: label - 1] + names[label:]
        for k, (want, found) in enumerate(zip(names, csv.header), start=1):
            if want != found:
                raise ValueError(f"column {k} of {csv.name} is named {found!r}, where the training file's is "
                                 f"{want!r} ({was}): put the columns in the training file's order")
