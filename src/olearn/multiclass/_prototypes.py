"""The multiclass prototypes' memory layout: feature-major, one column per class slot, the intercept's row last.

Growth keeps the intercept's row last and pads with zeros; a saved model holds
the rows of the features seen and the intercept's row
(:class:`~olearn.multiclass._saved_state.SavedState`).
"""

import numpy as np


def grown(vector, size):
    """``vector`` zero-padded to ``size`` entries (a new array)."""
    grown = np.zeros(size)
    grown[: vector.size] = vector
    return grown


def grown_rows(W, capacity):
    """Feature-major prototypes with room for ``capacity`` features; the intercept's row stays last."""
    grown = np.zeros((capacity + 1, W.shape[1]))
    grown[: W.shape[0] - 1] = W[:-1]
    grown[capacity] = W[-1]
    return grown


def grown_columns(W, capacity):
    """Prototypes with room for ``capacity`` class slots (new columns are zero)."""
    grown = np.zeros((W.shape[0], capacity))
    grown[:, : W.shape[1]] = W
    return grown


def saved_prototypes(W, n_features, k):
    """The first k prototypes of feature-major W as saved: the feature rows, then the intercept's row."""
    return np.vstack([W[:n_features, :k], W[-1:, :k]])


def restore_prototypes(W, saved):
    """Write saved prototypes (:func:`saved_prototypes`'s layout) into W."""
    W[: saved.shape[0] - 1, : saved.shape[1]] = saved[:-1]
    W[-1, : saved.shape[1]] = saved[-1]

