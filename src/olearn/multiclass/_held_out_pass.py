"""The multiclass hold-out pass of ``olearn run --passes N``: learned rows and held-out rows in one compiled pass."""

import numpy as np

from .._held_out import held_out_chunk
from .._kernels import _codes, _compiled
from .._validation import check_y
from .._weights import UNWEIGHTED


class HeldOutPass:
    """:meth:`_held_out_pass` of a multiclass learner with prototypes (no kernel, no feature map)."""

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the rows of X not ``held`` in order, and score the held-out ones on the prototypes of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:func:`~olearn._kernels._multiclass.held_out_multiclass_pass`):
        the learned rows end as ``partial_fit`` of them alone would (only their
        labels add classes), and a held-out row is predicted as ``predict``
        would predict it then (the top-scoring class known at that moment, a
        tie to the class that sorts first). Returns ``(predictions, scores,
        losses, taus, mistakes, totals)`` of every row in order, as
        :meth:`_progressive_pass` (a held-out row's mistake is a prediction
        other than its label; its loss and tau are 0) with the totals of the
        learned rows only; or None, the learner untouched, where this pass does
        not apply (a kernel, a feature map) or the chunk is refused (the
        caller then learns it by the general path, which says why). With
        ``average`` a held-out row is scored by the mean of the prototypes of
        its moment, as ``predict`` scores it, and is no round of the averaging.
        """
        if self._uses_kernel or self._uses_map:
            return None
        return held_out_chunk(self, ("_W", "_A", "_bound", "_clock", "_n_active"), ("_labels", "classes_"),
                              lambda: self._held_out_slots(X, y, held, sample_weight),
                              lambda checked: self._held_out_rows(*checked, held))

    def _held_out_slots(self, X, y, held, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, labels and weights read, and the
        learner grown to its columns and the classes of its learned rows; returns ``(arrays, y, slots, weights,
        margins, codes, params)``."""
        weights = self._row_weights(X, y, sample_weight)
        codes, params = self._config()
        arrays = self._check_X(X, learning=True)
        y = check_y(y, arrays.n_rows)
        learned = ~held
        with self._first_call_atomic(arrays):
            self._check_feature_limit(arrays.n_features, "X")
            margins = self._add_classes(y[learned])
            self._grow_features(arrays.n_features, "X")
        slots = np.zeros(arrays.n_rows, dtype=np.int64)
        slots[learned] = self._labels.slots(y[learned])
        return arrays, y, slots, weights, margins, codes, params

    def _held_out_rows(self, arrays, y, slots, weights, margins, codes, params, held):
        """:func:`~olearn._kernels._multiclass.held_out_multiclass_pass` over checked rows: the outputs of
        :meth:`_held_out_pass`, or None where an overflow stopped it."""
        n, k = arrays.n_rows, len(self._labels)
        out_scores = np.empty((n, k))
        preds = np.empty(n, dtype=np.int64)
        losses, taus = np.empty(n), np.empty(n)
        mistakes = np.empty(n, dtype=bool)
        totals = np.zeros(_codes.N_TOTALS)
        scores, coef, work = self._scratch
        stopped = _compiled.held_out_multiclass_pass(arrays.indptr, arrays.indices, arrays.data, slots,
                                                     UNWEIGHTED if weights is None else weights, held, self._W,
                                                     self._bound, self._A, self._clock, self._n_active,
                                                     self._labels.ranks, margins, params, codes, scores, coef, work,
                                                     out_scores, preds, losses, taus, mistakes, totals)
        if stopped >= 0:
            return None
        order = self._labels.order.copy()
        labels = np.asarray(self._labels.labels)
        self._after_pass()
        in_order = out_scores[:, order]
        predictions = labels[np.where(preds < 0, order[0], preds)]
        predictions[held] = labels[order[np.argmax(in_order[held], axis=1)]]
        mistakes[held] = predictions[held] != y[held]
        return predictions, in_order, losses, taus, mistakes, totals
