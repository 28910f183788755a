"""The growth of the prototype arrays, and the multiclass prototypes' saved layout.

A multiclass learner keeps its prototypes feature-major (one column per class
slot, the intercept's row last); a multilabel learner keeps one row per label
(the intercept's column last). Growth keeps the intercept last and pads with
zeros; a saved multiclass model holds the rows of the features seen and the
intercept's row (:class:`~olearn.multiclass._saved_state.SavedState`).
"""

import numpy as np


def grown(a, n):
    """``a`` with zero rows (entries) appended up to ``n`` (a new array)."""
    grown = np.zeros((n, *a.shape[1:]))
    grown[: a.shape[0]] = a
    return grown


def widened(W, capacity):
    """Label-major W with room for ``capacity`` features, the intercept's column kept last."""
    grown = np.zeros((W.shape[0], capacity + 1))
    grown[:, : W.shape[1] - 1] = W[:, :-1]
    grown[:, capacity] = W[:, -1]
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

