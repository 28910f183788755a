"""The learned state of a kernel multiclass learner: one support set, one coefficient per (vector, class).

The support set is :class:`olearn.kernel.SupportSet` with one coefficient
column per class slot (its columns grow when classes arrive). This class
reserves room before each compiled pass, so that the passes never allocate, and
drives a Python kernel (a callable) row by row through the same compiled update.
"""

import numpy as np
import scipy.sparse as sp

from .._kernels import _codes
from .._lazy import LazyModule
from ..kernel import SupportSet
from ..kernel._hyperparameters import call_kernel, initial_seed

# the kernels of this path, which olearn's build does not compile: imported at their first call, so that a learner
# without a kernel starts no numba
D = LazyModule("olearn._kernels._mercer_multiclass")

# Rows per compiled pass: room is reserved a block at a time, so a long stream
# never needs more than the support set plus one block.
_BLOCK = 2048


def _block(arrays, dense, first, last):
    """(indptr, indices, data) of rows first..last-1: a slice of the CSR arrays, or every entry of ``dense``."""
    if dense is None:
        lo, hi = arrays.indptr[first], arrays.indptr[last]
        return arrays.indptr[first: last + 1] - lo, arrays.indices[lo:hi], arrays.data[lo:hi]
    rows, d = last - first, dense.shape[1]
    indptr = np.arange(0, rows * d + 1, d, dtype=np.int64) if d else np.zeros(rows + 1, dtype=np.int64)
    return indptr, np.tile(np.arange(d, dtype=np.int32), rows), np.ascontiguousarray(dense[first:last]).ravel()


class DualModel:
    """The support set of a multi-prototype kernel learner and its scratch space."""

    def __init__(self, random_state=None):
        self.support = SupportSet(n_outputs=0, seed=initial_seed(random_state))

    @property
    def size(self):
        return len(self.support)

    def grow_features(self, n_features):
        self.support.reserve_features(n_features)

    def grow_classes(self, capacity):
        """Room for ``capacity`` class columns (new columns are zero)."""
        coef = self.support.coef
        if capacity > coef.shape[1]:
            grown = np.zeros((coef.shape[0], capacity))
            grown[:, : coef.shape[1]] = coef
            self.support.coef = grown

    def support_matrix(self, n_features):
        """The support vectors as a CSR matrix (a copy), oldest first."""
        return self.support.rows(n_features)

    def coefficients(self, k):
        """The live coefficients of slots 0..k-1, shape (|S|, k) (a view)."""
        return self.support.coef[: self.size, :k]

    # -- learning ----------------------------------------------------------------

    def compiled_pass(self, arrays, dense, slots, weights, n_active, ranks, margins, config, scratch, outputs, totals):
        """Learn the rows of ``arrays`` block by block; return -1 or the row where an overflow stopped it.

        ``weights``: the importance weight of each row, or empty for weight 1.

        ``dense`` is the same rows as a dense array, or None: its blocks are
        passed with every entry, zeros included, so that a support vector
        taken from it is one contiguous run of features, which the compiled
        kernel reads as a slice (vectorised) instead of gathering it by index.
        """
        codes, params, mcodes, mparams = config
        budget = int(mcodes[_codes.M_BUDGET]) or None
        record = outputs[1].size > 0
        for first in range(0, arrays.n_rows, _BLOCK):
            last = min(arrays.n_rows, first + _BLOCK)
            indptr, indices, data = _block(arrays, dense, first, last)
            self.support.reserve_for_rows(indptr, budget)
            block_outputs = tuple(out[first:last] for out in outputs) if record else outputs
            stopped = D.dual_pass(indptr, indices, data, 0, last - first, slots[first:last], weights[first:last],
                                  *self.support.arrays(),
                                  n_active, ranks, margins, params, codes, mcodes, mparams, self.support.work,
                                  *scratch, *block_outputs, totals)
            if stopped >= 0:
                return first + stopped
        return -1

    def learn_row(self, kernel, indices, data, n_features, slot, weight, n_active, ranks, margins, config, scratch,
                  owner):
        """Learn one example (sorted indices) of importance ``weight``.

        Returns (prediction slot, loss, tau, mistake, moved, status). ``kernel`` is None
        for the compiled kernels, else the user's callable.
        """
        codes, params, mcodes, mparams = config
        self.support.reserve(1, indices.size, int(mcodes[_codes.M_BUDGET]) or None)
        self.grow_features(n_features)
        scores, coef, work = scratch
        if kernel is None:
            return D.dual_learn_one(indices, data, slot, weight, *self.support.arrays(), n_active, ranks, margins,
                                    params, codes, mcodes, mparams, self.support.work, scores, coef, work)
        k = int(n_active[0])
        x = np.zeros((1, self.support.work.size))
        x[0, indices] = data
        offset = mparams[_codes.M_OFFSET]
        scores[:k] = self.python_scores(kernel, offset, x, k, owner)[0]
        kxx = float(call_kernel(kernel, x, x, owner)[0, 0]) + offset
        return D.learn_with_scores_one(scores, kxx, float(data @ data), indices, data, slot, weight,
                                       *self.support.arrays(),
                                       n_active, ranks, margins, params, codes, mcodes, mparams, coef, work)

    def decision(self, arrays, k, config, kernel, owner):
        """Class scores, shape (n_rows, k), slot order."""
        mcodes, mparams = config[2], config[3]
        self.grow_features(arrays.n_features)
        if kernel is None:
            out = np.zeros((arrays.n_rows, k))
            D.dual_decision(arrays.indptr, arrays.indices, arrays.data, *self.support.arrays()[:6], mcodes, mparams,
                            self.support.work, out)
            return out
        X = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr),
                          shape=(arrays.n_rows, self.support.work.size)).toarray()
        return self.python_scores(kernel, mparams[_codes.M_OFFSET], X, k, owner)

    def python_scores(self, kernel, offset, X, k, owner):
        """Scores of slots 0..k-1 of the dense rows X under a callable kernel, shape (n, k)."""
        if self.size == 0:
            return np.zeros((X.shape[0], k))
        S = self.support_matrix(X.shape[1]).toarray()
        return (call_kernel(kernel, X, S, owner) + offset) @ self.coefficients(k)

    # -- persistence ----------------------------------------------------------------

    def to_arrays(self, k):
        arrays = self.support.to_arrays()
        arrays["support_coef"] = arrays["support_coef"][:, :k]
        return arrays

    def load_arrays(self, arrays):
        """Restore :meth:`to_arrays`'s output (classes and features already reserved)."""
        saved = np.asarray(arrays["support_coef"], dtype=np.float64)
        coef = np.zeros((saved.shape[0], self.support.coef.shape[1]))
        coef[:, : saved.shape[1]] = saved
        self.support.load_arrays({**arrays, "support_coef": coef})
