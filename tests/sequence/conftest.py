"""Seeded random streams of labelled sequences for the sequence tests."""

import numpy as np
import pytest


def _make_sequences(n, d=3, labels=("a", "b", "c"), lengths=(0, 4), seed=0, density=1.0):
    """``n`` sequences with lengths drawn in ``lengths`` (inclusive), dense (T, d) rows, random labels.

    Rows have squared norm about 1; a fraction ``density`` of the entries is nonzero.
    The first sequence is never empty, so that the stream starts with labels.
    """
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    X, y = [], []
    for i in range(n):
        T = int(rng.integers(max(lengths[0], 1 if i == 0 else 0), lengths[1] + 1))
        rows = rng.standard_normal((T, d)) / np.sqrt(d * density)
        if density < 1.0:
            rows *= rng.random((T, d)) < density
        X.append(rows)
        y.append(labels[rng.integers(labels.size, size=T)])
    return X, y


@pytest.fixture
def make_sequences():
    """``make_sequences(n, d=3, labels=("a", "b", "c"), lengths=(0, 4), seed=0, density=1.0) -> (X, y)``."""
    return _make_sequences
