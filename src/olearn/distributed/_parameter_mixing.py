"""Parameter mixing's entry (:func:`parameter_mixing`): its arguments checked, the shards made, and the learner
mixed over them (:mod:`._mixing`), or a pipeline's scalers and learner (:mod:`._pipelines`)."""

import numpy as np

from .._estimator import locking_its_estimator
from .._lazy import is_loaded_instance
from ._cluster import require_dask, resolve_client
from ._mixing import mix_shards
from ._models import check_supported
from ._shards import DEFAULT_CHUNK_SIZE, make_shards

WEIGHTINGS = ("uniform", "examples", "updates")


def _check_count(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}")


@locking_its_estimator
def parameter_mixing(est, data, *, epochs=1, weighting="uniform", n_shards=None, classes=None, client=None,
                     chunk_size=DEFAULT_CHUNK_SIZE, fmt="auto", n_features=None, bits=18, zero_based="auto", timeout=None,
                     holdout_every=None, label_column=None, progress=None):
    r"""Learn ``est`` from sharded data by iterative parameter mixing on a Dask cluster.

    McDonald, Hall & Mann, *Distributed Training Strategies for the Structured
    Perceptron*, NAACL 2010, Fig. 2: each epoch every shard makes one online
    pass from the current model and the models are mixed,
    :math:`w \leftarrow \sum_i \mu_i w_i`. For AROW the precisions are
    averaged and the means averaged in their weights; each family's rule
    (quasi-additive learners mix theta, AdaGrad weighs by its accumulators,
    PASequence aligns tags by name, averaged learners mix their averages)
    is in :mod:`olearn.distributed._models`. With one shard this is exactly
    ``epochs`` passes of the serial learner.

    Parameters
    ----------
    est : one of ``MIXING_LEARNERS``, or a Pipeline of scalers before one
        Learns in place from its current model (or from scratch). A
        pipeline's scalers first learn the statistics of every shard, merged
        exactly and then frozen, and its learner is mixed over the shards
        scaled by them (:mod:`olearn.distributed._pipelines`).
    data : path, glob, directory, list of paths, list of (X, y) or (X, y, sample_weight), (dask X, dask y), dask
        bag, dask DataFrame
        See :func:`make_shards`. Importance weights (of the triples, of VW
        and cache files) are honoured as the learner's ``partial_fit`` honours
        its ``sample_weight``.
    epochs : int, default=1
        With several, each shard of files is read once, into its worker's
        memory, for every epoch's pass (:mod:`olearn.distributed._kept`: while
        it takes at most half the worker's memory limit; else it is read in
        every epoch).
    weighting : {"uniform", "examples", "updates"}, default="uniform"
        mu_i uniform over the shards that learned an example in the epoch,
        proportional to each shard's examples, or to its updates. A shard
        without examples never counts.
    n_shards : int, optional
        Group the parts of ``data`` into this many shards (default: one per part).
    classes : labels, optional
        Both classes of a binary learner (default: those ``est`` learned
        already, else (-1, 1)); every class of a multiclass one. Sequence and
        multilabel learners take their labels as they come (aligned by name).
    client : dask.distributed.Client, optional
        Default: the current client.
    chunk_size : int, default=10000
        Rows read and learned at a time on a worker.
    fmt, n_features, bits, zero_based
        How to read files (format, fixed dimension, VW hash bits, LIBSVM index
        base decided once for all files: see :func:`make_shards`).
    timeout : float, optional
        Seconds to wait for one epoch before giving up.
    holdout_every : int, optional
        Hold out the rows K, 2K, 3K, ... of every shard (counted from 1 in
        each shard, alike in every epoch): predicted by the shard's learner
        at that moment, never learned, and counted apart in the result's
        ``held_out``, as ``olearn run --passes N`` holds out the examples of
        a file (from the second epoch on, the other rows measure fit, not
        generalisation).
    label_column : str or int, optional
        Tables (Parquet files, a Dask DataFrame): the column of the labels,
        by name (else an integer is its position, negative from the end).
        The other columns are features named as ``learn_many`` names a
        DataFrame's (``city=paris`` for a text value), hashed with the
        learner's ``n_bits``, else by a vocabulary gathered on the workers
        first; the learner keeps it (``vocabulary_``).
    progress : callable, optional
        Called after each epoch's mixing as ``progress(epoch, totals)``, with
        the epoch's per-shard totals (shape ``(shards, 4)``, as
        ``totals[epoch]`` of the result): the command line prints its
        progress line from it.

    Returns
    -------
    DistributedResult
        Its ``totals`` count each shard's progressive-validation mistakes per epoch.

    Raises
    ------
    DistributedError
        A worker died more often than Dask allows, or the epoch timed out;
        ``est`` is then left as it was.

    Examples
    --------
    >>> import numpy as np
    >>> from dask.distributed import Client                      # doctest: +SKIP
    >>> from olearn import PAClassifier
    >>> from olearn.distributed import parameter_mixing
    >>> client = Client(n_workers=2, threads_per_worker=1)       # doctest: +SKIP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 5)); y = np.sign(X @ np.arange(1.0, 6.0))
    >>> shards = [(X[:200], y[:200]), (X[200:], y[200:])]
    >>> res = parameter_mixing(PAClassifier(), shards, epochs=3)   # doctest: +SKIP
    >>> res.totals.shape                                          # doctest: +SKIP
    (3, 2, 4)
    """
    require_dask()
    pipeline = est if is_loaded_instance(est, "olearn.compose._pipeline", "Pipeline") else None
    if pipeline is not None:
        from ._pipelines import learner_on_shards, mix_pipeline

        est = learner_on_shards(pipeline, label_column)
    kind = check_supported(est, "parameter mixing")
    _check_count("epochs", epochs)
    if holdout_every is not None and (isinstance(holdout_every, bool) or not isinstance(holdout_every, (int, np.integer))
                                      or holdout_every < 2):
        raise ValueError(f"holdout_every must be an integer >= 2 or None; got {holdout_every!r}")
    if holdout_every is not None and getattr(est, "_estimator_type", None) not in ("classifier", "regressor"):
        raise ValueError(f"holdout_every counts the mistakes of held-out rows, and {type(est).__name__} makes none")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}; got {weighting!r}")
    shards = make_shards(data, n_shards, chunk_size, fmt, n_features, bits, zero_based, label_column)
    client = resolve_client(client)
    if pipeline is not None:
        return mix_pipeline(pipeline, kind, shards, client, epochs, weighting, classes, timeout, holdout_every,
                            progress)
    return mix_shards(est, kind, shards, client, epochs, weighting, classes, timeout, holdout_every, progress)
