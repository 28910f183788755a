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
shards send back their lines (with ``-p``) and totals. Their labels are
checked against the model as the serial ``-t`` checks a file's
(:class:`~olearn.cli._model_labels.ModelLabels`): a label a binary model
cannot have is an error naming its example, and a multiclass model's unknown
classes (a regressor's labels of two classes) are counted on the workers and
reported in one warning.
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
    """One shard's pass from the model of ``job`` = (model, task, raw, tested), learning unless ``tested`` (the path
    of the model of ``-t -i``, whose labels it checks); runs on a worker. Returns (its prediction lines, its totals:
    mistakes, loss, updates, rounds, and the :class:`ModelLabels` of its labels, None when learning)."""
    from ..distributed._mixing import located
    from ..distributed._parts import rows_of
    from ._holdout import HeldOut
    from ._model_labels import ModelLabels
    from ._report import ProgressiveTable
    from ._chunk_learning import _learn_chunk

    est, task, raw, tested = job
    est = copy.deepcopy(est)
    labels = None if tested is None else ModelLabels(est, tested, task)
    lines = _Lines(task, raw)
    table = ProgressiveTable(None, task)
    held_out = HeldOut(holdout_every, task)
    row = 0
    for X, y, weight, part, first in shard.with_values(values).weighted_chunks():
        if labels is not None:
            try:
                labels.check(y)
            except ValueError as err:
                raise ValueError(f"{shard.describe()}: {located(str(err), part, first, row)}") from None
        _learn_chunk(est, (X, y, weight), held_out, table, _NoContext, _NoContext, lines, tested is not None, None)
        row += rows_of(X)
    return lines.lines, (table.mistakes, table.loss, table.updates, table.examples), labels


def tested_shards(client, task, model, model_path, shards, raw=False, timeout=None):
    """``-t -i MODEL_PATH`` on Dask: each shard's (prediction lines, totals) of :func:`shard_prediction_lines` from
    the frozen ``model``, one pass over ``shards`` on the cluster of ``client``; and the :class:`ModelLabels` of
    every shard's labels, added up (its :meth:`~ModelLabels.warn` says what the model could not predict)."""
    from ..distributed._mixing import pass_over_shards
    from ._model_labels import ModelLabels

    answers = pass_over_shards(client, shards, shard_prediction_lines, (model, task, raw, model_path),
                               "the predictions pass", timeout=timeout)
    labels = ModelLabels(model, model_path, task)
    for _, _, shard_labels in answers:
        labels.add(shard_labels)
    return [(lines, totals) for lines, totals, _ in answers], labels


def write_first_epoch(client, writer, task, start, shards, holdout_every, timeout=None):
    """Write, with ``writer`` (``-p``), the lines of every shard's first-epoch pass from the model ``start``, shard
    after shard: one more pass over ``shards`` on the cluster of ``client``."""
    from ..distributed._mixing import pass_over_shards

    for lines, _, _ in pass_over_shards(client, shards, shard_prediction_lines, (start, task, writer.raw, None),
                                        "the predictions pass", holdout_every=holdout_every, timeout=timeout):
        writer.write_lines(lines)
