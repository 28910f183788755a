"""Sparse matrices on the paths that need not import scipy: the test for one, and the rows of a parsed chunk.

Importing ``scipy.sparse`` takes about 0.2 s (it loads parts of NumPy that
nothing else here uses), a quarter of ``olearn run --algo pa1`` on a 187 MB
LIBSVM file (issue #16). So the modules of that run import it only where
they build a scipy matrix, and the command line hands its learners the rows
it parsed as :class:`CSRRows`, which :func:`olearn._validation.check_X`
checks exactly as it checks a scipy CSR matrix.
"""

import sys


def issparse(X):
    """``scipy.sparse.issparse(X)``, without importing scipy: no scipy matrix exists before scipy.sparse is loaded."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


class CSRRows:
    """Rows in CSR form, as a file's reader parsed them: sorted column indices, none repeated within a row.

    It has what :func:`olearn._validation.check_X` reads of a scipy CSR
    matrix (``shape``, ``indptr`` from 0, ``indices``, ``data``, ``format``,
    ``ndim``, ``dtype``), and a slice of its rows is a view (``X[lo:hi]``).
    Anything else it leaves to scipy: :meth:`tocsr` gives the scipy matrix of
    the same arrays, and any other index is applied to that matrix. It is not
    an array (``np.asarray`` of it is a 0-d object array, which every check
    refuses), so code that does not know it fails loudly rather than read it
    wrong.
    """

    __slots__ = ("data", "indices", "indptr", "shape")
    format = "csr"
    ndim = 2

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = (int(shape[0]), int(shape[1]))

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def nnz(self):
        return int(self.indptr[-1])

    def __repr__(self):
        return f"<CSRRows of shape {self.shape} with {self.nnz} stored entries>"

    def __getitem__(self, key):
        if isinstance(key, slice) and key.step in (None, 1):
            lo, hi, _ = key.indices(self.shape[0])
            hi = max(lo, hi)
            a, b = self.indptr[lo], self.indptr[hi]
            return CSRRows(self.data[a:b], self.indices[a:b], self.indptr[lo : hi + 1] - a, (hi - lo, self.shape[1]))
        return self.tocsr()[key]

    def tocsr(self, copy=False):
        """The scipy CSR matrix of these rows (of the same arrays unless ``copy``)."""
        import scipy.sparse as sp

        X = sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape, copy=copy)
        X.has_sorted_indices = True
        X.has_canonical_format = True
        return X
