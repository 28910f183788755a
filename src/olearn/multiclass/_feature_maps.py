"""Feature maps Phi(x, y) for the single-prototype multiclass learners (Crammer et al. 2006, Sec. 7).

A feature map is any callable ``phi(x, label)`` taking the example as a 1 x d CSR
row and a class label, and returning the class vector as a 1-d array, a sparse
row or a dict ``{index: value}``. It must depend on the entries of x only (not on
its declared width), so that the same example gives the same vector whichever
way it arrives.
"""

import numpy as np
import scipy.sparse as sp

from .._validation import INDEX_LIMIT, check_row


class BlockFeatureMap:
    r"""The block map that turns one weight vector into k prototypes.

    With the classes sorted, class number c gets the block
    :math:`[c\,d, (c + 1)\,d)` of a vector of length :math:`k d`, and
    :math:`\Phi(x, y) = e_{c(y)} \otimes x` puts x there. Then
    :math:`w \cdot \Phi(x, y) = w_y \cdot x` for the prototype
    :math:`w_y` = block c(y) of w, and :math:`\|\Phi(x, y) - \Phi(x, r)\|^2 = 2\|x\|^2`:
    a single-prototype learner with this map is the multi-prototype one
    (Crammer et al. 2006, Sec. 7), which the tests check.

    Parameters
    ----------
    classes : array-like
        Every class label (any order; they are sorted).
    n_features : int
        d, the width of x; a feature index >= d is an error.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> phi = BlockFeatureMap(["a", "b", "c"], n_features=2)
    >>> phi(sp.csr_matrix([[1.0, 2.0]]), "b").toarray()
    array([[0., 0., 1., 2., 0., 0.]])
    """

    def __init__(self, classes, n_features):
        self.classes = classes
        self.n_features = n_features

    def _positions(self):
        positions = getattr(self, "_position_of", None)
        if positions is None:
            classes = np.unique(np.asarray(self.classes))
            positions = {label: c for c, label in enumerate(classes.tolist())}
            self._position_of = positions
        return positions

    def __call__(self, x, label):
        positions = self._positions()
        label = label.item() if isinstance(label, np.generic) else label
        if label not in positions:
            raise ValueError(f"BlockFeatureMap: label {label!r} is not one of its classes {list(positions)}")
        x = sp.csr_matrix(x)
        if x.nnz and x.indices.max() >= self.n_features:
            raise ValueError(
                f"BlockFeatureMap: feature index {int(x.indices.max())} is past n_features={self.n_features}"
            )
        offset = positions[label] * self.n_features
        return sp.csr_matrix(
            (x.data, x.indices + offset, np.array([0, x.nnz])), shape=(1, len(positions) * self.n_features)
        )

    def __getstate__(self):
        return {"classes": self.classes, "n_features": self.n_features}

    def __repr__(self):
        return f"BlockFeatureMap(classes={self.classes!r}, n_features={self.n_features!r})"


def phi_block(feature_map, owner, indices, data, n_features, labels):
    """Phi(x, y) for each y of ``labels`` as one CSR block: ``(pointers, indices, data, widest)``.

    x (the row ``indices``/``data``) reaches ``feature_map`` as a 1-row CSR
    matrix; ``widest`` is the largest dimension Phi gave. A map that fails or
    returns a bad vector is a ValueError naming ``owner`` and the label.
    """
    if n_features > INDEX_LIMIT:
        raise ValueError(
            f"{owner}: feature index {n_features - 1} is too large to give to feature_map as a sparse row; "
            "indices must be below 2**31 - 1"
        )
    x = sp.csr_matrix((data, indices, np.array([0, indices.size])), shape=(1, max(n_features, 1)))
    pointers = np.zeros(len(labels) + 1, dtype=np.int64)
    parts_i, parts_d = [], []
    widest = 0
    for r, label in enumerate(labels):
        try:
            phi_i, phi_d, dimension = check_row(feature_map(x, label))
        except ValueError as err:
            shown = label.item() if isinstance(label, np.generic) else label
            raise ValueError(f"{owner}: feature_map(x, {shown!r}): {err}") from None
        parts_i.append(phi_i)
        parts_d.append(phi_d)
        pointers[r + 1] = pointers[r] + phi_i.size
        widest = max(widest, dimension)
    bidx = np.concatenate(parts_i).astype(np.int64) if parts_i else np.empty(0, dtype=np.int64)
    bdat = np.concatenate(parts_d) if parts_d else np.empty(0)
    return pointers, bidx, bdat, widest


class CallableOrNone:
    """None or a callable (a feature map)."""

    def accepts(self, value):
        return value is None or callable(value)

    def describe(self):
        return "None, or a callable Phi(x, label) such as olearn.multiclass.BlockFeatureMap"
