"""Predictions on a Dask collection, computed block by block on the workers (as dask-ml's ``ParallelPostFit``)."""

import copy

import numpy as np

METHODS = ("predict", "decision_function", "predict_proba")


def _block_predictions(block, est, method):
    return getattr(est, method)(block)


def predict(est, X, method="predict"):
    """``est.<method>`` of every row of a Dask array or DataFrame, as a lazy Dask array.

    Nothing is computed on the client: each row block is scored by a worker,
    with a copy of ``est`` taken now (learning on afterwards does not change
    the result). A DataFrame's columns are the features, in order; its
    partitions' lengths are computed first (on the workers) to give the
    array its chunks.

    Parameters
    ----------
    est : a fitted olearn estimator
    X : dask.array.Array (2-d) or dask.dataframe.DataFrame
    method : {"predict", "decision_function", "predict_proba"}, default="predict"

    Returns
    -------
    dask.array.Array
        One row per row of X: 1-d for labels or a binary score, 2-d for
        per-class scores or probabilities.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from olearn import PAClassifier
    >>> from olearn.distributed import predict
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> est = PAClassifier().fit(X, [1, -1])
    >>> predict(est, da.from_array(X, chunks=1)).compute().tolist()
    [1, -1]
    """
    import dask.array as da
    import dask.dataframe as dd

    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if isinstance(X, dd.DataFrame):
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError(f"X must be a 2-d Dask array or a Dask DataFrame; got {type(X).__name__}")
    frozen = copy.deepcopy(est)
    X = X.rechunk({1: -1})
    sample = getattr(frozen, method)(np.zeros((1, X.shape[1]), dtype=X.dtype))  # its shape and type; also checks est
    if sample.ndim == 1:
        return X.map_blocks(_block_predictions, frozen, method, drop_axis=1, dtype=sample.dtype,
                            meta=np.empty((0,), dtype=sample.dtype))
    return X.map_blocks(_block_predictions, frozen, method, chunks=(X.chunks[0], (sample.shape[1],)),
                        dtype=sample.dtype, meta=np.empty((0, 0), dtype=sample.dtype))
