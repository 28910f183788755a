"""``olearn run --workers N -p FILE``: the first epoch's progressive predictions, made on the workers, in input order.

In the first epoch of parameter mixing every shard's learner starts from the
model given (``-i``, else a fresh one) and predicts each of its examples
before it learns it: honest progressive validation, as a serial run's first
pass. From the second epoch on a shard's learner has seen its examples
before, so those predictions are written: for each shard, in the order of the
shards (files in order, byte ranges in order), the lines the serial command
line writes for that shard alone from the same model (held-out rows
predicted, not learned). They are computed by one more pass on the workers,
the serial chunk loop of ``olearn run`` (:func:`olearn.cli._run._learn_chunk`)
over each shard; only the lines come back to the client.
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
    """The prediction lines of one shard's first-epoch pass from the model of ``job`` = (model, task, raw); runs
    on a worker."""
    from ._holdout import HeldOut
    from ._report import ProgressiveTable
    from ._run import _learn_chunk

    est, task, raw = job
    est = copy.deepcopy(est)
    lines = _Lines(task, raw)
    table = ProgressiveTable(None, task)
    held_out = HeldOut(holdout_every, task)
    for X, y, weight, _, _ in shard.with_values(values).weighted_chunks():
        _learn_chunk(est, (X, y, weight), held_out, table, _NoContext, _NoContext, lines, False, None)
    return lines.lines


def write_first_epoch(client, writer, task, start, shards, holdout_every, timeout=None):
    """Write, with ``writer`` (``-p``), the lines of every shard's first-epoch pass from the model ``start``, shard
    after shard: one more pass over ``shards`` on the cluster of ``client``."""
    from ..distributed._cluster import require_dask
    from ..distributed._mixing import _Epochs

    runner = _Epochs(require_dask(), client, shards, timeout, holdout_every, task=shard_prediction_lines,
                     name="the predictions pass")
    try:
        every_shard = runner.run((start, task, writer.raw), 1)
    finally:
        runner.close()
    for lines in every_shard:
        writer.write_lines(lines)
