"""Feature maps Phi(x, y) for the single-prototype multiclass learners (Crammer et al. 2006, Sec. 7).

A feature map is any callable ``phi(x, label)`` taking the example as a 1 x d CSR
row and a class label, and returning the class vector as a 1-d array, a sparse
row or a dict ``{index: value}``. It must depend on the entries of x only (not on
its declared width), so that the same example gives the same vector whichever
way it arrives.
"""

import numpy as np
import scipy.sparse as sp


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
