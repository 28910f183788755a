"""One chunk of ``olearn run``: its rows predicted then learned in order, the held-out ones only predicted.

Shared by the serial run (:mod:`olearn.cli._run`) and the shards' prediction pass on the Dask workers
(:mod:`olearn.cli._dask_predictions`).
"""

import numpy as np

from .._labels import distinct_labels
from ._holdout import label_rows
from ._resume import FrozenResult


def _learn_chunk(est, chunk, held_out, table, source, interrupts, writer, test_only, costs):
    """Predict then learn the rows of a chunk in order; held-out rows are only predicted, and counted apart.

    A learner whose pass takes the held-out rows as a mask learns the chunk in
    one pass (:meth:`HeldOut.learn_masked`); the others, one run of rows
    between two held-out ones at a time.

    ``y`` is None for a uniclass learner, whose examples are the rows of X.
    """
    import olearn

    X, y, weight = chunk
    n = X.shape[0]
    first = held_out.position
    learned = held_out.learned_rows(n)
    if costs is not None:
        with source.locating(first):
            costs.check_labels(y)
    if not test_only:
        _declare_binary_classes(est, y, learned)
    if learned is not None and not test_only:
        y = label_rows(y)
        with interrupts.held(), source.locating(first):
            masked = held_out.learn_masked(est, X, y, weight)
            if masked is not None:
                result, every_row = masked
                table.add(result, None if y is None else y[learned], est)
                if writer is not None:
                    writer.write(every_row, est)
                return
    for lo, hi, held in held_out.segments(n):
        if held:
            with interrupts.held(), source.locating(first + lo):
                y_held = None if y is None else y[lo:hi]
                result = FrozenResult(est, X[lo:hi], y_held, table.task)
                held_out.add(result, y_held, est)
                if writer is not None:
                    writer.write(result, est)
            continue
        segment = (X, y, weight) if (lo, hi) == (0, n) else (
            X[lo:hi], None if y is None else y[lo:hi], None if weight is None else weight[lo:hi])
        for X_piece, y_piece, weight_piece in table.pieces(*segment):
            with interrupts.held(), source.locating(first + lo):
                if test_only:
                    result = FrozenResult(est, X_piece, y_piece, table.task, weight_piece)
                else:
                    result = olearn.run(est, X_piece, y_piece, sample_weight=weight_piece)
                table.add(result, y_piece, est)
                if writer is not None:
                    writer.write(result, est)
            lo += X_piece.shape[0]


def _declare_binary_classes(est, y, learned):
    """Let a binary learner know both classes of a chunk before its first row, as ``olearn.run`` on the chunk does.

    The chunk is learned in pieces cut at the table's rows (1, 2, 4, ...
    examples), and ``olearn.run`` on a piece would know only the classes of
    that piece: before the second class arrives, its predictions and scores
    would be those of a learner that knows one class (docs/streams.md), and
    the file's results would depend on where the rows of the table fall.
    """
    if getattr(est, "_task", None) != "binary":
        return
    y = y if learned is None else y[learned]  # the rows learned, not held out
    known = getattr(est, "classes_", np.empty(0))
    classes = distinct_labels(np.concatenate((known, y)) if len(known) else y)
    if len(known) < 2 and len(classes) == 2:
        est.partial_fit(np.empty((0, getattr(est, "n_features_in_", 0))), [], classes=classes)
