"""Scaling out on Dask: iterative parameter mixing and delayed updates over sharded data.

Needs Dask's distributed scheduler (``pip install "olearn[distributed]"``),
imported only when a function here is called.

* :func:`parameter_mixing`: each epoch, every shard makes an online pass from
  the current model; the models are mixed (McDonald, Hall & Mann 2010).
  Perceptron, the PA family, OGD / online SVM, AROW, NAROW, CW, the
  second-order perceptron, AdaGrad, Winnow, PNorm, PA regression, the
  multiclass, multilabel, uniclass and sequence (PASequence) learners,
  averaged or not, with importance weights; a pipeline of scalers before
  one of them (the scalers' statistics merged exactly over the shards first).
* :func:`delayed_updates`: rounds scored on stale weights by the workers and
  applied in order by a coordinator, with staleness at most tau (Langford,
  Smola & Zinkevich 2009). Perceptron, the PA family, OGD / online SVM.
* :func:`make_shards`: how data (files, globs, directories, Parquet tables,
  in-memory pairs, Dask arrays, bags and DataFrames) become shards;
  :func:`connect`: a client on a local cluster or a remote scheduler.
* :func:`predict`, :func:`decision_function`, :func:`predict_proba`: a
  learner's answers for a Dask array or DataFrame, as a Dask collection
  computed on the workers.

See docs/distributed.md for the exact semantics.
"""

from ._cluster import DistributedError, connect
from ._delayed import delayed_updates
from ._parameter_mixing import parameter_mixing
from ._predict import decision_function, predict, predict_proba
from ._models import DELAYED_LEARNERS, MIXING_LEARNERS
from ._result import DistributedResult
from ._shards import make_shards

__all__ = [
    "DELAYED_LEARNERS",
    "MIXING_LEARNERS",
    "DistributedError",
    "DistributedResult",
    "connect",
    "decision_function",
    "delayed_updates",
    "make_shards",
    "parameter_mixing",
    "predict",
    "predict_proba",
]
