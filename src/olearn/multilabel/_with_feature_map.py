"""The single-prototype multilabel learner: one vector w scoring label r by ``w . Phi(x, r)`` (Sec. 7)."""

import numpy as np

from .._kernels import _codes
from .._kernels import _multilabel as K
from .._kernels._codes import A_ROUNDS
from .._kernels._lazy_average import round_age
from ..multiclass._feature_maps import phi_block
from ..multiclass._prototypes import grown


class FeatureMapPath:
    """The feature-map path of :class:`~olearn.multilabel.PAMultilabel` (``self._w``, ``self._wb`` and their
    averaging corrections)."""

    def _block(self, indices, data, n_features, n_labels, grow=True):
        """Phi(x, r) of the labels r < n_labels (by index) as one CSR block (pointers, indices, data).

        With ``grow`` (learning) w is widened to every coordinate Phi gave, once
        all the labels' vectors are in; prediction passes ``grow=False`` and
        leaves w as it is.
        """
        pointers, bidx, bdat, widest = phi_block(
            self.feature_map, type(self).__name__, indices, data, n_features, self._labels.labels[:n_labels]
        )
        if grow:
            self._map_dim = max(self._map_dim, widest)
        if self._map_dim > self._w.size:
            size = max(self._map_dim, 2 * self._w.size)
            self._w = grown(self._w, size)
            if self._averages:
                self._uw = grown(self._uw, size)
        return pointers, bidx, bdat

    def _map_pass(self, indptr, indices, data, n_features, label_ptr, labels, weights, margins, losses, taus,
                  round_scores, totals, commit):
        """The feature-map twin of ``multilabel_pass``, driven from Python; returns the stopped row or -1.

        ``commit()`` is called once the first row's Phi vectors are in, before
        any weight moves: a map failing on that row leaves the caller free to
        undo the whole call.
        """
        codes, params = self._config_arrays()
        record = margins.size > 0
        k = self._wb.size
        relevant, scores = np.zeros(k, dtype=np.int8), np.empty(k)
        n_labels = int(self._state[K.M_ACTIVE])
        for i in range(indptr.size - 1):
            lo, hi = indptr[i], indptr[i + 1]
            named = labels[label_ptr[i] : label_ptr[i + 1]]
            active = max(n_labels, int(named.max()) + 1 if named.size else 0)
            try:
                pointers, bidx, bdat = self._block(indices[lo:hi], data[lo:hi], n_features, active)
            except ValueError as err:
                self._state[K.M_ACTIVE] = n_labels
                kept = f"the model keeps the updates of rows 0..{i - 1}" if i else "the model is unchanged"
                raise ValueError(f"{err} (at row {i}; {kept})") from None
            if i == 0:
                commit()
            margin, loss, tau, ok = K.multilabel_map_round(
                pointers, bidx, bdat, labels, label_ptr[i], label_ptr[i + 1], weights[i] if weights.size else 1.0,
                self._w, self._wb, self._uw, self._uwb, round_age(self._averaging, 0), active,
                codes[K.M_STEP], params[K.M_C], params[K.M_BIAS], relevant, scores,
                np.empty(bdat.size, dtype=np.int64), np.empty(bdat.size), np.zeros(self._w.size),
            )
            if not ok:
                totals[_codes.T_ROUNDS] += i
                self._state[K.M_ACTIVE] = n_labels
                return i
            self._averaging[A_ROUNDS] += 1
            n_labels = active
            if record:
                margins[i], losses[i], taus[i] = margin, loss, tau
                round_scores[i, :n_labels] = scores[:n_labels]
            totals[_codes.T_MISTAKES] += margin <= 0.0
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += tau != 0.0
        totals[_codes.T_ROUNDS] += indptr.size - 1
        self._state[K.M_ACTIVE] = n_labels
        return -1
