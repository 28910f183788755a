"""``olearn predict``: labels of a file's examples from a saved model."""

import click

from ._app import cli
from ._as_trained import source_as_trained
from ._link import check_logistic_link
from ._model_labels import ModelLabels, checked
from ._output import OutputFile
from ._scaling import learner_of, rows
from ._source import check_writable, data_options, file_argument, named


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
    labels.warn(named(file))
