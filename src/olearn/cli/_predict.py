"""``olearn predict``: labels of a file's examples from a saved model."""

import math
import sys

import click
import numpy as np

from ._app import cli
from .._persistence import read_input_info
from ._source import DataSource, IndexBase, check_writable, data_options, file_argument


def format_labels(labels):
    """One text label per prediction: integral floats print as integers (``1`` and ``-1``, not ``1.0``)."""
    labels = np.asarray(labels)
    if labels.dtype.kind == "f" and np.all(np.isfinite(labels)) and np.all(labels == np.round(labels)):
        labels = labels.astype(np.int64)
    return [str(label) for label in labels.tolist()]


def _bits_of(model):
    """log2 of the model's fixed dimension, if it is a power of two (a VW-hashed model)."""
    n = model.get_params().get("n_features")
    if n is not None and n > 0 and n & (n - 1) == 0:
        return int(math.log2(n))
    return None


@cli.command("predict", short_help="Predict the labels of a file with a saved model.")
@click.option("--model", "-m", "model_path", type=click.Path(dir_okay=False), required=True,
              help="A model written by 'olearn run --save'.")
@data_options(n_features=False)
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write the predictions to this file instead of stdout.")
@file_argument
def predict_command(model_path, fmt, zero_based, bits, chunk_size, output, file):
    """Predict the label of every example of FILE with a saved model.

    Prints one predicted label per line, in file order, to stdout (or to
    --output). The model does not learn. When FILE has labels, a final line
    on stderr gives the accuracy. FILE is streamed in chunks.

    For a VW file, --bits defaults to the model's dimension when that is a
    power of two (as it is for a model trained on VW data). A LIBSVM file's
    indices are read with the base the training file was read with (0- or
    1-based, stored in the model by 'olearn run --save'), so that a test
    file's column k is the training file's column k; --zero-based or
    --one-based overrides it. A model saved without it (by the library, or
    trained on VW or CSV data) reads the file as 'olearn run' would.

    \b
    Examples:
      olearn run --algo pa1 train.svm --save model.npz
      olearn predict --model model.npz test.svm > predictions.txt
      olearn predict -m model.npz -o predictions.txt test.svm.gz
    """
    import olearn

    model = olearn.load(model_path)
    trained = read_input_info(model_path).get("zero_based")
    if zero_based is None and trained is not None:
        base = IndexBase(trained, f"as for the training data of {model_path}")
    else:
        base = IndexBase(zero_based)
    if output is not None:
        check_writable(output, "--output")
    source = DataSource(file, fmt, None, bits, chunk_size, base)
    if bits is None and source.format == "vw" and _bits_of(model) is not None:
        source.bits = _bits_of(model)
    # Indices past a fixed model dimension are reported by the reader, by file, line and column.
    source.n_features = model.get_params().get("n_features") if source.format == "libsvm" else None

    correct = labelled = 0
    out = sys.stdout if output is None else open(output, "w", encoding="utf-8")
    try:
        for X, y in source.chunks():
            predictions = model.predict(X)
            if predictions.size:
                out.write("\n".join(format_labels(predictions)))
                out.write("\n")
            y = np.asarray(y)
            known = ~np.isnan(y) if y.dtype.kind == "f" else np.ones(y.shape, dtype=bool)
            labelled += int(known.sum())
            correct += int((predictions[known] == y[known]).sum())
    finally:
        if output is not None:
            out.close()
    if labelled:
        click.echo(f"accuracy: {correct / labelled:.6f} ({correct}/{labelled} correct)", err=True)
