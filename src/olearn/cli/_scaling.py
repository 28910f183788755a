"""``olearn run --scale``: the library's online scalers before the learner, saved with it in the model file.

``--scale standard`` learns ``StandardScaler() | learner`` and ``--scale
maxabs`` ``MaxAbsScaler() | learner`` (:class:`olearn.compose.Pipeline`):
each example is scaled with the statistics of the examples before it,
predicted, learned, and only then counted in the statistics, so the table
stays honest progressive validation and the run equals
``olearn.run(StandardScaler() | learner, X, y)`` on the same rows. The
model file holds the pipeline, so ``olearn predict`` scales as the run did
and ``-i`` resumes the statistics with the weights.

A CSV file's numeric cells are all present when scaled (zeros included), as
in the array ``X`` of that call: a 0 in a cell is centred as any value. A
table's one-hot categories, LIBSVM and VW features stay sparse: only the
features a row holds are scaled (docs/preprocessing.md).
"""

import click

from .._lazy import is_loaded_instance

SCALES = ("standard", "maxabs")
# the tasks whose learners learn rows through a pipeline (binary, multiclass, regression)
SCALED_TASKS = ("binary", "multiclass", "regression")


def _scaler(scale):
    from ..preprocessing import MaxAbsScaler, StandardScaler

    return StandardScaler() if scale == "standard" else MaxAbsScaler()


def check_scale(scale, algo, task):
    """Refuse ``--scale`` for a task the command line does not scale (a usage error naming those it does)."""
    if scale is not None and task.name not in SCALED_TASKS:
        raise click.UsageError(f"--scale applies to the {', '.join(SCALED_TASKS)} learners; --algo {algo} learns "
                               f"{task.name}: scale its data before, or drop --scale")


def scaled(est, scale):
    """``est`` behind the scaler of ``--scale`` (a pipeline), or ``est`` itself without one."""
    if scale is None:
        return est
    from ..compose import Pipeline

    return Pipeline(_scaler(scale), est)


def _is_pipeline(model):
    """Whether ``model`` is a Pipeline (without loading the pipelines, and scipy, for a run that has none)."""
    return is_loaded_instance(model, "olearn.compose._pipeline", "Pipeline")


def learner_of(model):
    """The learner of a model: the last step of a scaled one, else the model itself."""
    return model.steps[-1][1] if _is_pipeline(model) else model


def scale_of(model, path):
    """The ``--scale`` a loaded model was learned with (None: none); a model file of other steps is refused."""
    if not _is_pipeline(model):
        return None
    steps = [type(step).__name__ for _, step in model.steps]
    for scale in SCALES:
        if steps[:-1] == [type(_scaler(scale)).__name__]:
            return scale
    raise click.UsageError(f"{path} is a pipeline of {', '.join(steps)}, and the command line learns a learner "
                           "alone or behind the one scaler of --scale: apply it with the library (olearn.load)")


def check_resumed_scale(model, path, scale):
    """The scale of ``-i MODEL``: ``--scale`` may repeat it, never change it (the statistics were learned so)."""
    learned = scale_of(model, path)
    if scale is not None and scale != learned:
        was = f"--scale {learned}" if learned else "no --scale"
        raise click.UsageError(f"--scale {scale} contradicts -i {path}, learned with {was}: drop --scale (a "
                               "resumed model keeps its scaling)")
    return learned


def rows(X, model, source):
    """The rows ``model`` learns or predicts: a scaled model's CSV rows hold every numeric cell, else X.

    A numeric CSV file's rows become dense; a table's one-hot categories stay
    sparse (present on their rows only) beside its numeric cells, zeros stored.
    A scaled model's LIBSVM or VW rows are handed over as a scipy CSR matrix
    (a pipeline's transformers read those, not the reader's ``CSRRows``).
    """
    if not _is_pipeline(model):
        return X
    if source.format != "csv":
        return X.tocsr()
    import numpy as np
    import scipy.sparse as sp

    layout = source.input_info()["csv"]  # the file's, or its cache's record of it
    if layout.get("features") is None:
        return X.toarray()
    # the columns of the header's names in the vocabulary: the numeric cells (the categories are name=value)
    columns = {name: column for column, name in enumerate(layout["features"])}
    numeric = sorted(columns[name] for name in layout["header"] if name in columns)
    X = X.tocsr() if hasattr(X, "tocsr") else sp.csr_matrix(X)  # a cache's rows are CSRRows
    n_rows = X.shape[0]
    categories = X.tocoo()
    keep = ~np.isin(categories.col, numeric)
    cells = np.asarray(X[:, numeric].todense()).ravel()
    row = np.concatenate([np.repeat(np.arange(n_rows), len(numeric)), categories.row[keep]])
    col = np.concatenate([np.tile(np.asarray(numeric, dtype=np.int64), n_rows), categories.col[keep]])
    data = np.concatenate([cells, categories.data[keep]])
    order = np.lexsort((col, row))
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=n_rows), out=indptr[1:])
    return sp.csr_matrix((data[order], col[order], indptr), shape=X.shape)
