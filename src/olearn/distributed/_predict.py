"""Predictions on Dask collections, computed on the workers (what dask-ml's ``ParallelPostFit`` offers).

:func:`predict`, :func:`decision_function` and :func:`predict_proba` return a
lazy Dask collection of the learner's answers, block by block (a Dask array)
or partition by partition (a Dask DataFrame): the model, a copy taken at the
call (learning on afterwards does not change the answers), travels to the
cluster once, as one node of the graph, and the rows never reach the client. Each block is
answered by the learner's own ``predict`` / ``decision_function``, so the
answers are those of the learner on the whole collection in memory.

A DataFrame's rows are read as the learner reads them: as named examples
(:meth:`olearn.OnlineLearner.predict_many`: a numeric column is the feature of
its name, a text value ``v`` of column ``c`` the feature ``c=v``) when it names
its features (a vocabulary or hashing: the naming of a model learned from
tables on Dask), else by the learner's own ``predict`` of a DataFrame (by its
column names when it was fitted on a DataFrame of numbers, the columns in
order when it was fitted on arrays).
"""

import copy

import numpy as np

from .._learner import frame_rows
from ._cluster import require_dask


def predict(est, X):
    """The labels ``est`` predicts for the rows of the Dask array or DataFrame ``X``, as a lazy Dask collection.

    A Dask array gives a Dask array (one block per row block of ``X``), a
    Dask DataFrame a Dask Series on its index (a DataFrame of one column per
    class when the answers are rows, as a multilabel learner's).

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from olearn import PAClassifier
    >>> from olearn.distributed import predict
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    >>> est = PAClassifier().fit(X, [1, -1, -1])
    >>> predict(est, da.from_array(X, chunks=2)).compute()  # on the current Dask client, else in threads
    array([ 1, -1, -1])
    """
    return _answers(est, X, "predict")


def decision_function(est, X):
    """The scores ``est`` gives the rows of the Dask array or DataFrame ``X``, as a lazy Dask collection (see
    :func:`predict`)."""
    return _answers(est, X, "decision_function")


def predict_proba(est, X):
    """The class probabilities of ``est`` for the rows of the Dask array or DataFrame ``X`` (a learner with
    ``predict_proba``), as a lazy Dask collection of one column per class (see :func:`predict`)."""
    return _answers(est, X, "predict_proba")


def _answers(est, X, method):
    require_dask()
    import dask
    import dask.array as da
    import dask.dataframe as dd
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est)
    if not hasattr(est, method):
        raise AttributeError(f"{type(est).__name__} has no {method}")
    est = copy.deepcopy(est)
    model = dask.delayed(est, pure=True)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d Dask array; got {X.ndim} dimensions")
        X = X.rechunk({1: -1})
        empty = getattr(est, method)(np.zeros((0, X.shape[1])))
        if empty.ndim == 1:
            return X.map_blocks(_block, model, method, drop_axis=1, dtype=empty.dtype, meta=empty)
        return X.map_blocks(_block, model, method, chunks=(X.chunks[0], (empty.shape[1],)), dtype=empty.dtype,
                            meta=empty)
    if isinstance(X, dd.DataFrame):
        meta = _partition(X._meta, est, method)
        return X.map_partitions(_partition, model, method, meta=meta)
    raise TypeError(f"X must be a Dask array or a Dask DataFrame; got {type(X).__name__} (answer an array in "
                    f"memory with est.{method}(X))")


def _block(block, est, method):
    return getattr(est, method)(block)


def _reads_names(est):
    """Whether ``est`` reads a DataFrame's rows as named examples: it names its features (hashing, or a
    vocabulary) and was not fitted on a DataFrame of numbers; a learner of plain arrays reads the columns in
    order, as its own ``predict`` of a DataFrame does."""
    features = est.__dict__.get("_features")
    named = features is not None and (features.hashing or features.size > 0)
    return named and getattr(est, "feature_names_in_", None) is None


def _partition(frame, est, method):
    """The answers for a pandas DataFrame's rows, on its index: a Series, or a DataFrame for rows of answers."""
    import pandas as pd

    if len(frame) == 0:
        answers = getattr(est, method)(np.zeros((0, getattr(est, "n_features_in_", 0))))
    elif _reads_names(est):
        answers = getattr(est, method)(frame_rows(frame))
    else:
        answers = getattr(est, method)(frame)
    answers = np.asarray(answers)
    if answers.ndim == 1:
        return pd.Series(answers, index=frame.index)
    return pd.DataFrame(answers, index=frame.index, columns=getattr(est, "classes_", None))
