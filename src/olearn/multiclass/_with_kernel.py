"""The kernel learners of the multiclass family: one prototype per class kept in dual form.

:class:`KernelPath` is the part of
:class:`~olearn.multiclass._base.MulticlassLearner` that runs with ``kernel``
set: its configuration, its pass (compiled, or row by row for a Python kernel)
over the support set (:class:`~olearn.multiclass._dual.DualModel`), and the
attributes of the dual form.
"""

import numpy as np

from .._kernels import _codes
from .._kernels import _multiclass_codes as K


class KernelPath:
    """The kernel path of a multiclass learner (``self._dual``, a :class:`~olearn.multiclass._dual.DualModel`)."""

    def _dual_config(self):
        """(codes, params, mcodes, mparams) of the kernel path."""
        codes, params, mercer = self._checked_config(self._build_config)
        return (codes, params, *mercer)

    @property
    def _python_kernel(self):
        """The user's kernel function, or None for a compiled kernel."""
        return self.kernel if callable(self.kernel) else None

    def _check_kernel(self, name):
        self._check_started()
        if not self._uses_kernel:
            raise AttributeError(f"{type(self).__name__}: {name} exists only with a kernel (kernel=None here)")

    @property
    def support_vectors_(self):
        """The support vectors, oldest first: a CSR matrix of shape ``(n_support_, n_features_in_)`` (kernel learners)."""
        self._check_kernel("support_vectors_")
        return self._dual.support_matrix(self.n_features_in_)

    @property
    def dual_coef_(self):
        """alpha: row a holds class a's coefficient of each support vector, shape ``(n_classes, n_support_)``."""
        self._check_kernel("dual_coef_")
        return self._dual.coefficients(len(self._labels))[:, self._labels.order].T.copy()

    @property
    def n_support_(self):
        """The number of support vectors (kernel learners); never above ``budget``."""
        self._check_kernel("n_support_")
        return self._dual.size


    def _dual_pass(self, arrays, dense, slots, weights, margins, outputs, totals):
        """The kernel twin of ``multiclass_pass``: compiled, or row by row for a Python kernel.

        ``dense``: the rows as a dense array when they came so (None for sparse input).
        """
        config = self._dual_config()
        kernel = self._python_kernel
        if kernel is None:
            return self._dual.compiled_pass(arrays, dense, slots, weights, self._n_active, self._labels.ranks, margins,
                                            config, self._scratch, outputs, totals)
        out_scores, preds, losses, taus, mistakes, supports = outputs
        record = preds.size > 0
        weighted = weights.size > 0
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            known = int(self._n_active[0])
            pred, loss, tau, mistake, moved, status = self._dual.learn_row(
                kernel, arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, int(slots[i]),
                float(weights[i]) if weighted else 1.0, self._n_active,
                self._labels.ranks, margins, config, self._scratch, type(self).__name__)
            if status != K.OK:
                totals[_codes.T_ROUNDS] += i
                return i
            if record:
                out_scores[i, :known] = self._scratch[0][:known]
                out_scores[i, known:] = -np.inf
                preds[i], losses[i], taus[i], mistakes[i], supports[i] = pred, loss, tau, mistake, self._dual.size
            totals[_codes.T_MISTAKES] += mistake
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += moved
        totals[_codes.T_ROUNDS] += arrays.n_rows
        return -1
