"""The single-prototype multiclass learners: one vector w scoring class a by ``w . Phi(x, a)``.

:class:`FeatureMapPath` is the part of
:class:`~olearn.multiclass._base.MulticlassLearner` that runs with
``feature_map`` set: the class vectors of an example as one CSR block
(:func:`~olearn.multiclass._feature_maps.phi_block`), w grown to them, and the
row kernel driven from Python.
"""

import numpy as np

from .._kernels import _codes
from .._kernels import _multiclass_codes as K
from .._lazy import LazyModule
from ._feature_maps import phi_block
from ._prototypes import grown

# the kernels of this path, which olearn's build does not compile: imported at their first call, so that a learner
# without a feature map starts no numba
_multiclass = LazyModule("olearn._kernels._multiclass")


class FeatureMapPath:
    """The feature-map path of a multiclass learner (``self._w``, ``self._wb`` and their averaged sums)."""

    def _grow_map(self, dimension):
        if dimension > self._w.size:
            size = max(dimension, 2 * self._w.size)
            self._w = grown(self._w, size)
            if self._averaging:
                self._aw = grown(self._aw, size)

    def _block(self, indices, data, n_features, n_rows, grow=True):
        """The class vectors Phi(x, a) of slots 0..n_rows-1 as one CSR block.

        Learning (``grow``) widens w to every coordinate Phi gave; prediction
        leaves w as it is and drops the coordinates past it (Phi of features
        never learned from, whose weight is 0).
        """
        pointers, bidx, bdat, widest = phi_block(
            self.feature_map, type(self).__name__, indices, data, n_features, self._labels.labels[:n_rows]
        )
        if grow:
            self._map_dim = max(self._map_dim, widest)
            self._grow_map(self._map_dim)
        else:
            seen = bidx < self._w.size
            if not seen.all():
                slots = np.repeat(np.arange(n_rows), np.diff(pointers))
                pointers[1:] = np.cumsum(np.bincount(slots[seen], minlength=n_rows))
                bidx, bdat = bidx[seen], bdat[seen]
        return pointers, bidx, bdat

    def _map_row(self, indices, data, n_features, slot, weight, margins, codes, params):
        """Learn one example of importance ``weight`` through the feature map.

        Returns (pred, loss, tau, mistake, status).
        """
        n_rows = max(int(self._n_active[0]), slot + 1)
        before = self._w, self._aw, self._map_dim
        pointers, bidx, bdat = self._block(indices, data, n_features, n_rows)
        scores, coef, work = self._scratch
        saved = np.empty(2 * (bdat.size + n_rows))
        outcome = _multiclass.feature_map_learn_row(pointers, bidx, bdat, slot, weight, self._w, self._wb, self._aw,
                                                    self._awb, self._clock, self._n_active, self._labels.ranks,
                                                    margins, params, codes, scores, coef, work, saved)
        if outcome[-1] != K.OK:
            # a refused row leaves w as wide as it was (the kernel has put back the values it wrote)
            self._w, self._aw, self._map_dim = before
        return outcome

    # -- learning -------------------------------------------------------------

    def _map_pass(self, arrays, slots, weights, margins, codes, params, out_scores, preds, losses, taus, mistakes,
                  totals):
        """The feature-map twin of ``multiclass_pass``: the same row kernel, driven from Python."""
        record = preds.size > 0
        weighted = weights.size > 0
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            known = int(self._n_active[0])
            pred, loss, tau, mistake, status = self._map_row(
                arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, int(slots[i]),
                float(weights[i]) if weighted else 1.0, margins, codes, params)
            if status != K.OK:
                totals[_codes.T_ROUNDS] += i
                return i, status
            scores, coef, _ = self._scratch
            if record:
                out_scores[i, :known] = scores[:known]
                out_scores[i, known:] = -np.inf
                preds[i], losses[i], taus[i], mistakes[i] = pred, loss, tau, mistake
            totals[_codes.T_MISTAKES] += mistake
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += bool(np.any(coef[: self._n_active[0]] != 0.0))
        totals[_codes.T_ROUNDS] += arrays.n_rows
        return -1, K.OK
