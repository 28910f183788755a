r"""Pipelines on Dask: the scalers' statistics of every shard merged exactly, then the learner mixed over scaled shards.

A serial :class:`~olearn.compose.Pipeline` scales each example by the
statistics of the examples before it, which needs the examples in one
stream. On shards learned at once, :func:`mix_pipeline` makes instead:

1. for each scaler of the pipeline, in order, a first pass on the workers:
   every shard learns a fresh copy of the scaler from its rows (the held-out
   rows left out, as a serial run leaves them out), each row scaled by the
   scalers before it, frozen; the shards' statistics are merged exactly into
   those of all the rows (and of what the pipeline had learned before), and
   the scaler keeps them, frozen from then on;
2. iterative parameter mixing of the learner (:func:`mix_shards`) over the
   shards scaled by the frozen scalers.

The merges are exact. A :class:`~olearn.preprocessing.StandardScaler` keeps,
per column, the count of the rows that held it, the mean of their values and
their sum of squared deviations ``M2``; two sets of rows merge by Chan, Golub
& LeVeque's pairwise formula (The American Statistician 37(3), 1983, eq. 2.1):

.. math:: n = n_a + n_b,\quad \delta = \bar x_b - \bar x_a,\quad
    \bar x = \bar x_a + \delta\, n_b / n,\quad
    M_2 = M_{2,a} + M_{2,b} + \delta^2 n_a n_b / n,

the number of rows seen adding up. A
:class:`~olearn.preprocessing.MaxAbsScaler`'s largest absolute values merge
by their maximum. So the statistics are those of one scaler that learned
every row, up to the rounding of the sums.
"""

import copy
import dataclasses

import numpy as np
from sklearn.base import clone

from .._sparse import CSRRows
from ..preprocessing import MaxAbsScaler, StandardScaler
from ._mixing import mix_shards, pass_over_shards
from ._parts import rows_of
from ._shards import Shard


def learner_on_shards(pipeline, label_column):
    """The learner of a pipeline that runs on shards: scalers, then a learner; else a ValueError saying why."""
    plan = pipeline._plan()
    if plan.learner is None:
        raise ValueError("parameter mixing learns a pipeline that ends with a learner; this one ends with a "
                         "transformer")
    if plan.features or plan.n_bits is not None:
        raise ValueError("parameter mixing takes a pipeline of scalers (StandardScaler, MaxAbsScaler) before its "
                         "learner: the shards give numbered columns, not the named features that one-hot encoding, "
                         "crossing and hashing act on (tables are named by label_column= without such steps)")
    if label_column is not None:
        raise ValueError("parameter mixing of a pipeline takes shards of numbered columns (files, arrays); a table's "
                         "named columns are learned by the learner alone (its vocabulary or n_bits)")
    for step in plan.scalers:
        if type(step) not in _MERGES:
            raise ValueError(f"parameter mixing merges the statistics of {', '.join(t.__name__ for t in _MERGES)}; "
                             f"not {type(step).__name__}")
    return plan.learner


def mix_pipeline(pipeline, kind, shards, client, epochs, weighting, classes, timeout, holdout_every, progress):
    """:func:`parameter_mixing` of a pipeline (its learner's state mixes as ``kind``): its scalers' statistics
    merged over the shards, one pass each, then its learner mixed over the scaled shards; the pipeline is left as
    it was on any error."""
    plan = pipeline._plan()
    scalers, learner = plan.scalers, plan.learner
    saved = [(part, dict(part.__dict__)) for part in (pipeline, *scalers)]
    learner_before = copy.deepcopy(learner.__dict__)
    try:
        if not pipeline._is_started():
            pipeline._start(plan)
        for k, scaler in enumerate(scalers):
            states = pass_over_shards(client, shards, shard_statistics, (scalers[:k], clone(scaler)),
                                      "the statistics pass of step", k + 1, holdout_every, timeout)
            _keep_merged(scaler, [s for s in states if s is not None], pipeline.feature_map_)
        width = max([pipeline.n_features_in_, *(scaler.n_features_in_ for scaler in scalers)])
        pipeline.n_features_in_ = width
        # copies: on a cluster of threads the scalers themselves would be shared, and their locks are held by the
        # caller for the whole run
        scaled_shards = [ScaledShard(shard, copy.deepcopy(scalers)) for shard in shards]
        result = mix_shards(learner, kind, scaled_shards, client, epochs, weighting, classes, timeout, holdout_every,
                            progress)
        pipeline.n_features_in_ = max(width, learner.n_features_in_)
    except BaseException:
        for part, state in saved:
            part.__dict__.clear()
            part.__dict__.update(state)
        learner.__dict__.clear()
        learner.__dict__.update(learner_before)
        raise
    return dataclasses.replace(result, estimator=pipeline)


def scaled(scalers, X):
    """The rows of X through the frozen ``scalers``, in order (X itself without any); a file's rows are handed to
    them as a scipy CSR matrix, as the command line's ``--scale`` does (:func:`olearn.cli._scaling.rows`)."""
    if scalers and isinstance(X, CSRRows):
        X = X.tocsr()
    for scaler in scalers:
        X = scaler.transform(X)
    return X


def shard_statistics(job, shard, values=(), holdout_every=None):
    """The statistics (a saved state) of a fresh scaler that learned the rows of ``shard`` scaled by frozen ones;
    runs on a worker. ``job`` is (the frozen scalers, the fresh scaler); the held-out rows (K, 2K, ... with
    ``holdout_every`` K) are left out. None for a shard without a row learned."""
    from ..cli._holdout import HeldOut

    front, scaler = job
    scaler = copy.deepcopy(scaler)
    held_out = HeldOut(holdout_every)
    for X, _, _, _, _ in shard.with_values(values).weighted_chunks():
        for lo, hi, is_held in held_out.segments(rows_of(X)):
            if not is_held:
                try:
                    scaler.partial_fit(scaled(front, X[lo:hi]))
                except ValueError as err:
                    raise ValueError(f"{shard.describe()}: {err}") from err
    return scaler._get_state() if scaler._is_started() else None


def _merged_welford(states, n):
    """Chan, Golub & LeVeque's pairwise merge of StandardScaler states (count, mean, M2 per column), in order."""
    count, mean, m2 = np.zeros(n), np.zeros(n), np.zeros(n)
    for arrays, _ in states:
        c_b, mean_b, m2_b = (_widened(arrays[name], n) for name in ("count", "mean", "m2"))
        total = count + c_b
        delta = mean_b - mean
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(total > 0, c_b / total, 0.0)
        mean = mean + delta * share
        m2 = m2 + m2_b + delta * delta * count * share
        count = total
    return {"count": count, "mean": mean, "m2": m2}


def _merged_peaks(states, n):
    """MaxAbsScaler states merged: the largest absolute value of each column over all of them."""
    return {"max_abs": np.max([_widened(arrays["max_abs"], n) for arrays, _ in states], axis=0)}


_MERGES = {StandardScaler: _merged_welford, MaxAbsScaler: _merged_peaks}


def _widened(column_values, n):
    """A statistic of each column widened to ``n`` columns, 0 for the columns a shard never met."""
    out = np.zeros(n)
    out[: column_values.size] = column_values
    return out


def _keep_merged(scaler, states, feature_map):
    """Give ``scaler`` (of a pipeline whose names are ``feature_map``) the merge of its own statistics, if it has
    learned, and the shards' ``states``."""
    if scaler._is_started():
        states = [scaler._get_state(), *states]
    if not states:
        return
    n = max(scalars["n_features_in"] for _, scalars in states)
    arrays = _MERGES[type(scaler)](states, n)
    arrays["seen"] = np.array([sum(float(a["seen"][0]) for a, _ in states)])
    scaler._set_state(arrays, {"n_features_in": n})
    scaler.feature_map_ = feature_map


@dataclasses.dataclass(frozen=True)
class ScaledShard:
    """A shard whose rows reach the learner through frozen scalers (the parts are read as the shard's)."""

    shard: Shard
    scalers: tuple

    @property
    def number(self):
        return self.shard.number

    @property
    def parts(self):
        return self.shard.parts

    @property
    def chunk_size(self):
        return self.shard.chunk_size

    def in_chunks_of(self, rows):
        return ScaledShard(self.shard.in_chunks_of(rows), self.scalers)

    def weighted_chunks(self):
        for X, y, weight, part, first in self.shard.weighted_chunks():
            yield scaled(self.scalers, X), y, weight, part, first

    def graphs(self):
        return self.shard.graphs()

    def without_graphs(self):
        return ScaledShard(self.shard.without_graphs(), self.scalers)

    def with_values(self, values):
        return ScaledShard(self.shard.with_values(values), self.scalers)

    def describe(self):
        return self.shard.describe()
