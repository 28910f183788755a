"""The support set of a kernel learner: growable CSR arrays for the compiled engine.

:class:`SupportSet` owns the arrays that :mod:`olearn._kernels._mercer`
reads and writes (rows, squared norms, coefficients, live count, generator
state, scatter workspace) and grows them before a compiled call, since the
compiled loops never allocate. Every kernel learner keeps one; a
multi-prototype learner keeps one with a coefficient column per class.
"""

import numpy as np

from .._state_schema import Array, StateSchema, csr


def _grown(array, size, limit=None):
    """``array`` with room for ``size`` entries (first axis), doubled when it grows, never past ``limit``."""
    capacity = array.shape[0]
    if size <= capacity:
        return array
    new_capacity = max(size, 2 * capacity)
    if limit is not None:
        new_capacity = max(size, min(new_capacity, limit))
    grown = np.zeros((new_capacity, *array.shape[1:]), dtype=array.dtype)
    grown[:capacity] = array
    return grown


class SupportSet:
    """Support vectors (oldest first) with ``n_outputs`` coefficients each.

    Parameters
    ----------
    n_outputs : int
        Coefficients per support vector: 1 for a binary learner or a
        regressor, one per class for a multi-prototype learner.
    seed : int
        Initial state of the SplitMix64 generator of the "random" budget policy.

    Examples
    --------
    >>> s = SupportSet()
    >>> len(s), s.nnz, s.coefficients().shape
    (0, 0, (0, 1))
    """

    def __init__(self, n_outputs=1, seed=0):
        self.indptr = np.zeros(1, dtype=np.int64)
        self.indices = np.zeros(0, dtype=np.int32)
        self.data = np.zeros(0)
        self.sqnorm = np.zeros(0)
        self.coef = np.zeros((0, n_outputs))
        self.count = np.zeros(1, dtype=np.int64)
        self.rng = np.array([seed], dtype=np.uint64)
        self.work = np.zeros(0)

    def __len__(self):
        return int(self.count[0])

    @property
    def nnz(self):
        """Non-zeros stored over all live support vectors."""
        return int(self.indptr[len(self)])

    def arrays(self):
        """(indptr, indices, data, sqnorm, coef, count, rng): the support set as the compiled engine takes it."""
        return self.indptr, self.indices, self.data, self.sqnorm, self.coef, self.count, self.rng

    # -- capacity -------------------------------------------------------------

    def reserve_features(self, n_features):
        """A zero workspace with a slot for every feature index below ``n_features``."""
        self.work = _grown(self.work, n_features)

    def reserve(self, n_rows, nnz, budget=None):
        """Room for ``n_rows`` more support vectors holding ``nnz`` more non-zeros.

        With a ``budget`` the set never holds more than ``budget`` rows, so the
        row capacity stops there.
        """
        rows = len(self) + n_rows
        if budget is not None:
            rows = min(rows, budget)
        self.indptr = _grown(self.indptr, rows + 1, None if budget is None else budget + 1)
        self.sqnorm = _grown(self.sqnorm, rows, budget)
        self.coef = _grown(self.coef, rows, budget)
        size = self.nnz + nnz
        self.indices = _grown(self.indices, size)
        self.data = _grown(self.data, size)

    def reserve_for_rows(self, indptr, budget=None):
        """Room for a pass that may add every row of a CSR matrix with this ``indptr``.

        Under a budget at most ``budget`` rows are held at once, so the
        non-zeros needed are at most ``budget`` times the longest row, seen or
        stored, whatever the length of the stream.
        """
        n_rows = indptr.size - 1
        nnz = int(indptr[-1] - indptr[0])
        if budget is not None and n_rows > 0:
            longest = int(np.diff(indptr).max())
            n = len(self)
            if n:
                longest = max(longest, int(np.diff(self.indptr[: n + 1]).max()))
            nnz = max(0, min(nnz, budget * longest - self.nnz))
        self.reserve(n_rows, nnz, budget)

    # -- views ----------------------------------------------------------------

    def rows(self, n_features):
        """The support vectors as a CSR matrix of shape (len, n_features) (a copy)."""
        import scipy.sparse as sp

        n = len(self)
        return sp.csr_matrix(
            (self.data[: self.nnz].copy(), self.indices[: self.nnz].copy(), self.indptr[: n + 1].copy()),
            shape=(n, n_features),
        )

    def coefficients(self):
        """The coefficients, shape (len, n_outputs) (a copy)."""
        return self.coef[: len(self)].copy()

    def negate(self):
        """Negate every coefficient (the function f becomes -f)."""
        self.coef[: len(self)] *= -1.0

    # -- persistence ----------------------------------------------------------

    def to_arrays(self):
        """The live contents as a dict of arrays, for a model file."""
        n = len(self)
        return {
            "support_indptr": self.indptr[: n + 1].copy(),
            "support_indices": self.indices[: self.nnz].copy(),
            "support_data": self.data[: self.nnz].copy(),
            "support_sqnorm": self.sqnorm[:n].copy(),
            "support_coef": self.coefficients(),
            "support_rng": self.rng.copy(),
        }

    @staticmethod
    def state_schema(n_outputs, budget):
        """The arrays of :meth:`to_arrays` as a :class:`~olearn._state_schema.StateSchema`.

        ``n_outputs`` is the number of coefficient columns or the name of the
        dimension that fixes it; rows index features below ``n_features_in``,
        and there are at most ``budget`` of them.
        """
        return StateSchema(
            arrays={
                "support_indptr": Array("int64", ("n_support+1",)),
                "support_indices": Array("int32", ("support_nnz",)),
                "support_data": Array("float64", ("support_nnz",)),
                "support_sqnorm": Array("float64", ("n_support",)),
                "support_coef": Array("float64", ("n_support", n_outputs)),
                "support_rng": Array("uint64", (1,)),
            },
            relations=[csr("support_indptr", "support_indices", "n_features_in")],
            limits={} if budget is None else {"n_support": (0, budget)},
        )

    def load_arrays(self, arrays):
        """Restore the contents written by :meth:`to_arrays` (checked against :meth:`state_schema`)."""
        self.indptr = np.array(arrays["support_indptr"], dtype=np.int64)
        self.indices = np.array(arrays["support_indices"], dtype=np.int32)
        self.data = np.array(arrays["support_data"], dtype=np.float64)
        self.sqnorm = np.array(arrays["support_sqnorm"], dtype=np.float64)
        self.coef = np.array(arrays["support_coef"], dtype=np.float64)
        self.rng = np.array(arrays["support_rng"], dtype=np.uint64)
        self.count = np.array([self.indptr.size - 1], dtype=np.int64)
        # the engine keeps each vector's indices ascending (see _kernels._mercer.support_insert); a file may not
        width = int(self.indices.max(initial=0)) + 1
        import scipy.sparse as sp

        rows = sp.csr_matrix((self.data, self.indices, self.indptr), shape=(self.indptr.size - 1, width))
        if not rows.has_sorted_indices:
            rows.sort_indices()
            self.indices = np.ascontiguousarray(rows.indices, dtype=np.int32)
            self.data = np.ascontiguousarray(rows.data, dtype=np.float64)
