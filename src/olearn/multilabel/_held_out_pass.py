"""The multilabel hold-out pass of ``olearn run --passes N``: learned rows and held-out rows in one compiled pass."""

import math

import numpy as np

from .._averaging import forget_average
from .._held_out import held_out_chunk
from .._kernels import _codes
from .._kernels import _multilabel as K
from .._weights import UNWEIGHTED
from ._labels import ranking_margins


class HeldOutPass:
    """:meth:`_held_out_pass` of :class:`~olearn.multilabel.PAMultilabel` without a feature map."""

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the rows of X not ``held`` in order, and rank the held-out ones with the weights of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:func:`~olearn._kernels._multilabel.held_out_multilabel_pass`):
        the learned rows end as ``partial_fit`` of them alone would (only
        their labels join), and a held-out row is scored as
        ``decision_function`` would score it then (the averaged weights with
        ``average``), its ranking margin taken over the labels known then (a
        relevant label not known scoring 0:
        :func:`~olearn.multilabel._labels.ranking_margins`), the command
        line's mistake of a held-out row. ``y`` is a 1-d object array of a
        collection of labels per row, as ``olearn run`` hands a chunk's
        (:func:`olearn.cli._holdout.label_rows`). Returns ``(predictions,
        scores, losses, taus, mistakes, totals)`` of every row in order, as
        :meth:`_progressive_pass` (a held-out row's loss and tau are 0) with
        the totals of the learned rows only; or None, the learner untouched,
        with a feature map, labels given otherwise (parameter mixing hands a
        list, and judges a held-out row by its predicted set instead) or where
        the chunk is refused (the caller then learns it by the general path,
        which says why).
        """
        if self._uses_map or not (isinstance(y, np.ndarray) and y.dtype == object and y.ndim == 1):
            return None
        return held_out_chunk(self, ("_W", "_U", "_state", "_averaging"), ("_labels",),
                              lambda: self._held_out_labels(X, y, held, sample_weight),
                              lambda checked: self._held_out_rows(*checked, y, held))

    def _held_out_labels(self, X, y, held, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, the labels of its learned rows
        (a held-out row's are not read) and its weights read, the learner grown to them; returns ``(arrays,
        label_ptr, labels, weights)``."""
        self._config_arrays()
        weights = self._row_weights(X, y, sample_weight)
        arrays = self._check_X(X, learning=True)
        learned = [() if out else labels for labels, out in zip(y, held)]
        with self._first_call_atomic(arrays):
            self._check_feature_limit(arrays.n_features, "X")
            label_ptr, labels = self._encode(learned, arrays.n_rows, None)
            self._grow_features(arrays.n_features, "X")
            self._sync_labels()
        return arrays, label_ptr, labels, weights

    def _held_out_rows(self, arrays, label_ptr, labels, weights, y, held):
        """The masked pass over checked rows: the outputs of :meth:`_held_out_pass`, or None where an overflow
        stopped it."""
        codes, params = self._config_arrays()
        n, k = arrays.n_rows, self._W.shape[0]
        margins, losses, taus = np.empty((3, n))
        round_scores = np.zeros((n, k))
        totals = np.zeros(_codes.N_TOTALS)
        forget_average(self)  # the pass writes W and U in place
        stopped = K.held_out_multilabel_pass(
            arrays.indptr, arrays.indices, arrays.data, label_ptr, labels, UNWEIGHTED if weights is None else weights,
            held, self._W, self._state, self._U, self._averaging, params, codes, np.zeros(k, dtype=np.int8),
            np.empty(k), margins, losses, taus, round_scores, totals,
        )
        if stopped >= 0:
            return None
        in_order = round_scores[:, self._labels.order]
        classes = self._labels.classes
        for i in np.flatnonzero(held):
            # ranked as predict ranks it then: among the labels known at its moment (the others score -inf here)
            known = in_order[i] > -math.inf
            margins[i] = ranking_margins(in_order[i:i + 1, known], classes[known], [y[i]])[0]
        return in_order > 0.0, margins, losses, taus, margins <= 0.0, totals
