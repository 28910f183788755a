"""Checks and conversion of a list of sequences into one CSR matrix plus sequence offsets.

A batch of sequences reaches the kernels as the rows of one CSR matrix (the
positions of all the sequences, one after the other) and ``offsets``: sequence
i is rows ``offsets[i] .. offsets[i + 1] - 1``. Errors name the sequence by its
index in the list and the position within it.
"""

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .._features import FeatureMap
from .._validation import INDEX_LIMIT, CSRArrays, check_X


def _picked_rows(offsets, order):
    """The rows of the sequences ``order`` (in that order), and the offsets of the sequences they then make."""
    lengths = np.diff(offsets)[order]
    picked_offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=picked_offsets[1:])
    return _ranges(offsets[:-1][order], lengths, picked_offsets), picked_offsets


def _ranges(starts, lengths, ends_before):
    """The concatenated ranges ``starts[i] .. starts[i] + lengths[i] - 1``; ``ends_before`` their cumulated lengths."""
    return np.repeat(starts - ends_before[:-1], lengths) + np.arange(ends_before[-1])


class Sequences:
    """A checked batch: all positions as CSR arrays, the offsets, and each sequence's width.

    ``fit`` checks its sequences once and makes its passes over this batch:
    :meth:`reordered` picks sequences (a shuffled pass), a slice the first
    ones, without reading the caller's sequences again; ``features`` is then
    the vocabulary that read their names (None otherwise).
    """

    __slots__ = ("arrays", "offsets", "widths", "new_names", "features")

    def __init__(self, arrays, offsets, widths, new_names=None, features=None):
        self.arrays = arrays
        self.offsets = offsets
        self.widths = widths
        # the (name, column) pairs that dict rows added to the FeatureMap, or None
        self.new_names = new_names
        self.features = features

    @property
    def n_sequences(self):
        return self.offsets.size - 1

    def __len__(self):
        return self.n_sequences

    def __getitem__(self, part):
        return self.reordered(np.arange(self.n_sequences)[part])

    def reordered(self, order):
        """The sequences ``order`` (indices into this batch), in that order, as a batch."""
        a = self.arrays
        rows, offsets = _picked_rows(self.offsets, order)
        counts = np.diff(a.indptr)[rows]
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        entries = _ranges(a.indptr[:-1][rows], counts, indptr)
        arrays = CSRArrays(indptr.astype(a.indptr.dtype, copy=False), a.indices[entries], a.data[entries], rows.size,
                           a.n_features)
        return Sequences(arrays, offsets, self.widths[order], self.new_names, self.features)


class LabelSequences:
    """The label sequences of a :class:`Sequences` batch, concatenated: what ``fit``'s passes take as y."""

    __slots__ = ("labels", "offsets")

    def __init__(self, labels, offsets):
        self.labels = labels
        self.offsets = offsets

    def __len__(self):
        return self.offsets.size - 1

    def __iter__(self):
        for lo, hi in zip(self.offsets[:-1], self.offsets[1:]):
            yield self.labels[lo:hi]

    def __getitem__(self, part):
        return self.reordered(np.arange(len(self))[part])

    def reordered(self, order):
        """The label sequences ``order``, in that order."""
        rows, offsets = _picked_rows(self.offsets, order)
        return LabelSequences(self.labels[rows], offsets)


class _Names:
    """How the dict rows of a batch of sequences are read: a FeatureMap, and where new names start."""

    def __init__(self, features, learning, base, grow):
        self.features = features
        self.learning = learning
        self.base = base
        self.grow = grow
        self.new = []


def _dict_rows(rows, where, names):
    """A sequence given as a list of dict rows, as a CSR matrix (its names read by ``names``)."""
    for t, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ValueError(f"{where}: position {t} is a {type(row).__name__}, but position 0 is a dict; "
                             "give every position of a sequence the same form")
    try:
        indptr, indices, data, width, new = names.features.rows(rows, names.base, names.learning, names.grow,
                                                                 name=where)
    except (ValueError, TypeError) as err:
        raise type(err)(str(err).replace(": row ", ", position ", 1)) from None
    if width > INDEX_LIMIT:
        raise ValueError(
            f"{where}: feature index {width - 1} is too large; a sequence's feature "
            "indices must be below 2**31 - 1 (hash the features into fewer indices)"
        )
    if new:
        names.new.extend(new)
    if names.grow:
        # the names of the next sequence start after this one's columns, as they would when learned one by one
        names.base = max(names.base, width)
    matrix = sp.csr_matrix((data, indices, indptr), shape=(len(rows), width))
    matrix.sort_indices()
    return matrix


def _one_sequence(sequence, where, names):
    """One sequence as a sparse matrix or a 2-d float64 array (not yet checked for finiteness)."""
    if sp.issparse(sequence):
        return sequence
    if isinstance(sequence, (list, tuple)) and sequence and isinstance(sequence[0], Mapping):
        return _dict_rows(sequence, where, names)
    try:
        array = np.asarray(sequence, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where} could not be read as an array of numbers: {err}") from None
    if array.ndim == 1 and array.size == 0:
        return array.reshape(0, 0)
    if array.ndim != 2:
        raise ValueError(
            f"{where} must be 2-d (sequence length, n_features), a sparse matrix or a list of dict rows; "
            f"got shape {array.shape}"
        )
    return array


def listed(X, name, what, min_ndim):
    """X as a list (read once if it is an iterator), or ValueError for what is not a list of sequences."""
    if X is None:
        raise ValueError(f"{name} is missing: this learner needs one {what} per sequence")
    if sp.issparse(X) or (isinstance(X, np.ndarray) and X.ndim < min_ndim):
        shape = X.shape if hasattr(X, "shape") else ()
        raise ValueError(
            f"{name} must be a list of sequences; got one {'sparse matrix' if sp.issparse(X) else 'array'} "
            f"of shape {shape}. Wrap a single sequence in a list."
        )
    if isinstance(X, (str, bytes, Mapping)):
        raise ValueError(f"{name} must be a list of sequences; got a {type(X).__name__}")
    try:
        return list(X)
    except TypeError:
        raise ValueError(f"{name} must be a list of sequences; got a {type(X).__name__}") from None


def check_sequences(X, name="X", features=None, learning=False, base=0, grow=True):
    """Check a list of sequences (each a 2-d array, a sparse matrix or a list of dict rows).

    Every sequence has shape (T, n_features) for its own length T >= 0.
    Widths may differ: missing columns are zeros, as everywhere in olearn.
    Dict rows are read by ``features`` (a :class:`~olearn._features.FeatureMap`;
    a fresh vocabulary when None), with ``learning``, ``base`` and ``grow`` as
    in :meth:`~olearn._features.FeatureMap.rows`: the names added are left in
    ``features`` and listed in the result's ``new_names``.
    Returns a :class:`Sequences`.
    """
    names = _Names(FeatureMap() if features is None else features, learning, base, grow)
    sequences = [_one_sequence(s, f"{name}[{i}]", names) for i, s in enumerate(listed(X, name, "2-d array", 3))]
    lengths = np.array([s.shape[0] for s in sequences], dtype=np.int64)
    widths = np.array([s.shape[1] for s in sequences], dtype=np.int64)
    offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    width = int(widths.max()) if widths.size else 0
    if all(isinstance(s, np.ndarray) for s in sequences) and np.all(widths == width):
        # one conversion for the whole batch; a bad value is then traced back to its sequence
        stacked = np.concatenate(sequences) if sequences else np.empty((0, 0))
        if not np.isfinite(stacked).all():
            row, column = np.argwhere(~np.isfinite(stacked))[0]
            i = int(np.searchsorted(offsets, row, side="right") - 1)
            raise ValueError(
                f"{name}[{i}] contains {stacked[row, column]} at row {row - offsets[i]}, column {column}; "
                "expected finite values"
            )
        arrays = check_X(stacked, name=name)
        return Sequences(arrays, offsets, widths, names.new or None)
    parts = [check_X(s, name=f"{name}[{i}]") for i, s in enumerate(sequences)]
    indptr = np.zeros(offsets[-1] + 1, dtype=np.int64)
    for part, start in zip(parts, offsets[:-1]):
        indptr[start + 1 : start + 1 + part.n_rows] = part.indptr[1:] + indptr[start]
    indices = np.concatenate([p.indices for p in parts]) if parts else np.empty(0, dtype=np.int32)
    data = np.concatenate([p.data for p in parts]) if parts else np.empty(0)
    return Sequences(CSRArrays(indptr, indices, data, int(offsets[-1]), width), offsets, widths, names.new or None)


def check_label_sequences(y, offsets, name="y"):
    """The labels of every sequence, concatenated into one 1-d array (one label per row of X).

    Each entry of ``y`` is a 1-d array-like with one label per position of the
    matching sequence of X.
    """
    n_sequences = offsets.size - 1
    if isinstance(y, LabelSequences):
        return y.labels  # checked once, by fit
    labels = listed(y, name, "1-d array of labels", 2)
    if len(labels) != n_sequences:
        raise ValueError(f"X has {n_sequences} sequences but {name} has {len(labels)}")
    parts = []
    for i, sequence in enumerate(labels):
        if isinstance(sequence, str):
            raise ValueError(f"{name}[{i}] is a string; give a list of labels, e.g. list({sequence!r})")
        array = np.asarray(sequence)
        if array.ndim != 1:
            raise ValueError(f"{name}[{i}] must be a 1-d sequence of labels; got shape {array.shape}")
        length = offsets[i + 1] - offsets[i]
        if array.size != length:
            raise ValueError(f"sequence {i}: X[{i}] has {length} positions but {name}[{i}] has {array.size} labels")
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            t = int(np.flatnonzero(~np.isfinite(array))[0])
            raise ValueError(f"{name}[{i}] contains {array[t]} at position {t}; expected a class label")
        if array.size:
            parts.append(array)
    return np.concatenate(parts) if parts else np.empty(0)


def hamming_errors(y_true, y_pred):
    """Number of wrongly labelled positions of each sequence, as an int64 array.

    ``y_pred`` is what :meth:`PASequence.predict` returns, or the
    ``predictions`` of :func:`olearn.run` on a sequence learner, where a
    sequence without a prediction (None: no label was known yet) has all its
    positions wrong.

    >>> hamming_errors([["a", "b", "c"], ["a"]], [["a", "c", "b"], None]).tolist()
    [2, 1]
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} sequences but y_pred has {len(y_pred)}")
    errors = np.empty(len(y_true), dtype=np.int64)
    for i, (truth, predicted) in enumerate(zip(y_true, y_pred)):
        truth = np.asarray(truth)
        if predicted is None:
            errors[i] = truth.size
            continue
        predicted = np.asarray(predicted)
        if predicted.shape != truth.shape:
            raise ValueError(f"sequence {i}: y_true has {truth.size} labels but y_pred has {predicted.size}")
        errors[i] = np.count_nonzero(truth != predicted)
    return errors
