"""``fit`` checks and converts its sequences once, then makes its passes over the converted batch."""

from collections.abc import Mapping

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from olearn.sequence import PASequence


class CountedRow(Mapping):
    """A dict row that counts how often its features are read."""

    reads = 0

    def __init__(self, features):
        self._features = features

    def __getitem__(self, key):
        return self._features[key]

    def __iter__(self):
        CountedRow.reads += 1
        return iter(self._features)

    def __len__(self):
        return len(self._features)


def _named(X):
    return [[{f"f{j}": v for j, v in enumerate(row) if v != 0.0} for row in s] for s in X]


def test_fit_reads_each_dict_row_once_whatever_the_number_of_passes(make_sequences):
    X, y = make_sequences(12, d=4, seed=5)
    rows = [[CountedRow(row) for row in s] for s in _named(X)]
    CountedRow.reads = 0
    PASequence().partial_fit(rows, y)
    one_pass = CountedRow.reads
    assert one_pass >= sum(len(s) for s in rows)
    CountedRow.reads = 0
    PASequence(max_iter=4, tol=None, random_state=0).fit(rows, y)
    assert CountedRow.reads == one_pass


@pytest.mark.parametrize("form", ["dense", "csr", "hashed names"])
def test_fit_learns_the_partial_fits_over_its_shuffled_orders(form, make_sequences):
    """fit's passes visit the seeded permutations of X: the same model as partial_fit over them, bit for bit."""
    X, y = make_sequences(30, d=5, seed=6, density=0.6)
    data = {"dense": X, "csr": [sp.csr_matrix(s) for s in X], "hashed names": _named(X)}[form]
    n_bits = 12 if form == "hashed names" else None
    fitted = PASequence(max_iter=3, tol=None, random_state=7, fit_intercept=True, average=True,
                        n_bits=n_bits).fit(data, y)
    stepped = PASequence(fit_intercept=True, average=True, n_bits=n_bits)
    generator = np.random.default_rng(7)
    for _ in range(3):
        order = generator.permutation(len(X))
        stepped.partial_fit([data[i] for i in order], [y[i] for i in order])
    assert_array_equal(fitted.coef_, stepped.coef_)
    assert_array_equal(fitted.transition_, stepped.transition_)
    assert_array_equal(fitted.intercept_, stepped.intercept_)


def test_fit_names_its_vocabulary_in_the_given_order(make_sequences):
    """The names are read once, in the order of X: their columns do not depend on the shuffled passes."""
    X, y = make_sequences(10, d=3, seed=8)
    named = _named(X)
    model = PASequence(max_iter=2, tol=None, random_state=3).fit(named, y)
    in_order = PASequence(max_iter=1, shuffle=False).fit(named, y)
    assert model.vocabulary_ == in_order.vocabulary_
    assert_array_equal(model.predict(named)[0].shape, (len(y[0]),))
