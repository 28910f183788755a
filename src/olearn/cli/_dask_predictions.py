"""``olearn run --workers N -p FILE`` and ``-t``: predictions made on the workers, written in input order.

In the first epoch of parameter mixing every shard's learner starts from the
model given (``-i``, else a fresh one) and predicts each of its examples
before it learns it: honest progressive validation, as a serial run's first
pass. From the second epoch on a shard's learner has seen its examples
before, so those predictions are written: for each shard, in the order of the
shards (files in order, byte ranges in order), the lines the serial command
line writes for that shard alone from the same model (held-out rows
predicted, not learned). They are computed by one more pass on the workers,
the serial chunk loop of ``olearn run`` (:func:`olearn.cli._chunk_learning._learn_chunk`)
over each shard; only the lines come back to the client.

``-t -i MODEL`` (test only) runs the same loop with the model frozen: each
shard's rows are predicted by the model of ``-i``, learning nothing, and the
shards send back their lines (with ``-p``) and totals.
"""

import contextlib
import copy


class _NoContext:
    """Where a serial run names the example being learned or holds Ctrl-C: nothing to do on a worker."""

    @staticmethod
    def locating(first):
        return contextlib.nullcontext()

    @staticmethod
    def held():
        return contextlib.nullcontext()


class _Lines:
    """A prediction writer that keeps the lines of a shard (as ``PredictionWriter`` writes them) in memory."""

    probabilities = False

    def __init__(self, task, raw):
        self.task, self.raw, self.lines = task, raw, []

    def write(self, result, model):
        if result.n_rounds:
            self.lines += self.task.prediction_lines(result, model, self.raw)


def shard_prediction_lines(job, shard, values=(), holdout_every=None):
    """One shard's pass from the model of ``job`` = (model, task, raw, test_only), learning unless ``test_only``;
    runs on a worker. Returns (its prediction lines, its totals: mistakes, loss, updates, rounds)."""
    from ._holdout import HeldOut
    from ._report import ProgressiveTable
    from ._chunk_learning import _learn_chunk

    est, task, raw, test_only = job
    est = copy.deepcopy(est)
    lines = _Lines(task, raw)
    table = ProgressiveTable(None, task)
    held_out = HeldOut(holdout_every, task)
    for X, y, weight, _, _ in shard.with_values(values).weighted_chunks():
        _learn_chunk(est, (X, y, weight), held_out, table, _NoContext, _NoContext, lines, test_only, None)
    return lines.lines, (table.mistakes, table.loss, table.updates, table.examples)


def predicted_shards(client, task, model, shards, holdout_every=None, raw=False, test_only=False, timeout=None):
    """Each shard's (prediction lines, totals) of :func:`shard_prediction_lines` from ``model``, one pass over
    ``shards`` on the cluster of ``client``."""
    from ..distributed._cluster import require_dask
    from ..distributed._mixing import _Epochs

    runner = _Epochs(require_dask(), client, shards, timeout, holdout_every, task=shard_prediction_lines,
                     name="the predictions pass")
    try:
        return runner.run((model, task, raw, test_only), 1)
    finally:
        runner.close()


def write_first_epoch(client, writer, task, start, shards, holdout_every, timeout=None):
    """Write, with ``writer`` (``-p``), the lines of every shard's first-epoch pass from the model ``start``, shard
    after shard: one more pass over ``shards`` on the cluster of ``client``."""
    for lines, _ in predicted_shards(client, task, start, shards, holdout_every, writer.raw, timeout=timeout):
        writer.write_lines(lines)
