"""``olearn predict``: labels of a file's examples from a saved model."""

import math

import click

from ._app import cli
from ._link import check_logistic_link
from ._model_labels import ModelLabels, checked
from ._output import OutputFile
from ._scaling import learner_of, rows
from .._persistence import read_input_info
from ._source import DataSource, IndexBase, check_writable, data_options, file_argument


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
                   f"library or an older olearn): {file} is read as 'olearn run' would, and cannot be checked against "
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
            f"next free column, in the order first seen), and {source.path} is a VW file, whose names are hashed "
            "into other columns, so the predictions would be meaningless. Learn with n_bits=B (names hashed as "
            "a VW file's default namespace is) to predict VW files, or predict the named rows in Python")


def check_layout(model_path, trained, source, bits_given):
    """Refuse FILE when its columns are not those the model learned: another format, hashing or CSV layout."""
    path, fmt = source.path, trained["format"]
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
            raise ValueError(f"{csv.path} has {csv.n_columns} columns ({was}): its coordinates are not the model's")
    elif not csv.labelled:
        if csv.n_columns != expected - 1:
            raise ValueError(f"{csv.path} has {csv.n_columns} columns; with --no-label it must have the "
                             f"{expected - 1} feature columns of the training file ({was})")
    elif csv.n_columns == expected - 1 and csv.defaulted:
        raise ValueError(f"{csv.path} has {csv.n_columns} columns, one fewer than the training file ({was}): if "
                         "it has no labels, pass --no-label")
    elif csv.n_columns != expected:
        raise ValueError(f"{csv.path} has {csv.n_columns} columns ({was}): its features are not the model's")
    elif csv.label != label:
        raise click.UsageError(f"--label-column reads the label from {csv.describe()} of {csv.path}, but {was}: "
                               f"the features would be the model's shifted; drop --label-column")
    names = layout.get("header")
    if names is not None and csv.header is not None:
        names = names if csv.labelled or label is None else names[: label - 1] + names[label:]
        for k, (want, found) in enumerate(zip(names, csv.header), start=1):
            if want != found:
                raise ValueError(f"column {k} of {csv.path} is named {found!r}, where the training file's is "
                                 f"{want!r} ({was}): put the columns in the training file's order")


@cli.command("predict", short_help="Predict a file's labels, values or tags with a saved model.")
@click.option("--model", "-m", "model_path", type=click.Path(dir_okay=False), required=True,
              help="A model written by 'olearn run --save'.")
@data_options(n_features=False, predict=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write the predictions to this file instead of stdout.")
@click.option("--link", type=click.Choice(("identity", "logistic")), default="identity", show_default=True,
              help="logistic: write the probability of the larger label (+1 of -1/+1) instead of the label, as "
                   "Vowpal Wabbit's --link logistic; the model must have probabilities (learned with --link logistic, "
                   "or ogd --loss logistic).")
@file_argument
def predict_command(model_path, fmt, zero_based, bits, chunk_size, label_column, delimiter, no_label, output, link,
                    file):
    """Predict the label of every example of FILE with a saved model.

    Prints one prediction per line, in file order, to stdout (or to
    --output). The model does not learn. When FILE has labels, a final line
    on stderr gives the accuracy. FILE is streamed in chunks.

    The model's task says what a prediction is: a label (binary, multiclass
    and cost-sensitive models; the last line adds the average cost), a value
    (regression: the last line gives MAE and RMSE), 1 inside the ball and -1
    outside (uniclass: the last line gives the fraction outside; labels are
    ignored), or the labels predicted relevant, comma-separated, an empty
    line for none (multilabel: FILE is LIBSVM with comma-separated labels, a
    single label being a set of one; the last line gives the fraction of
    label sets predicted exactly).

    A model saved by 'olearn run --save' records how its training file was
    read, and FILE is read alike: a LIBSVM file with the same index base (0-
    or 1-based; --zero-based or --one-based overrides it), a VW file hashed
    into the same 2^BITS columns, a CSV file with its label in the same
    column and the same delimiter (--label-column, --delimiter override them;
    --no-label reads a CSV file that has every column but the label). A file
    of another format, other hashing bits or another CSV layout is refused,
    since its columns are not the model's. A model saved without that record
    (by the library, or by an older olearn) is used with a warning, FILE read
    as 'olearn run' would.

    A sequence model (pa-sequence, pa1-sequence, pa2-sequence) reads a
    CoNLL file and writes one tag per token line, a blank line after each
    sequence; the accuracy line gives the tokens and the sequences right.

    \b
    Examples:
      olearn run --algo pa1 train.svm --save model.npz
      olearn predict --model model.npz test.svm > predictions.txt
      olearn predict -m model.npz -o predictions.txt test.svm.gz
      olearn predict -m model.npz --no-label unlabelled.csv
    """
    import olearn

    from ._tasks import fixed_dimension, task_of_model

    model = olearn.load(model_path)
    if getattr(model, "_task", None) == "sequence":  # not isinstance(model, olearn.PASequence): that loads the family
        from ._sequences import predict_sequences

        return predict_sequences(model, model_path, click.get_current_context().params)
    task = task_of_model(model)
    if link == "logistic":
        check_logistic_link(None, task, {}, model, False)
    if output is not None:
        check_writable(output, "--output")
    source = source_as_trained(model, model_path, file, zero_based, bits, fmt=fmt, chunk_size=chunk_size,
                               label_column=label_column, delimiter=delimiter, labelled=not no_label, learning=False,
                               multilabel=task.multilabel, unlabelled=not task.reads_labels)
    # Indices past a fixed model dimension are reported by the reader, by file, line and column.
    source.n_features = fixed_dimension(learner_of(model), task) if source.format == "libsvm" else None

    labels = ModelLabels(model, model_path, task)
    sums, counted = 0, 0
    out = OutputFile("-" if output is None else output)
    try:
        for X, y, _ in checked(source, labels).chunks():
            X = rows(X, model, source)
            lines, predictions = task.predict_lines(model, X)
            if link == "logistic" and X.shape[0]:
                lines = [repr(float(p)) for p in model.predict_proba(X)[:, -1]]
            if lines:
                out.write("\n".join(lines) + "\n")
            if y is None and task.reads_labels:
                continue
            chunk_sums, count = task.predict_score(model, predictions, y)
            sums, counted = sums + chunk_sums, counted + count
    finally:
        out.close()
    if counted:
        click.echo(task.predict_report(sums, counted), err=True)
    labels.warn(file)
