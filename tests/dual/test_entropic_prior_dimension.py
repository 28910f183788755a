"""The entropic prior's dimension n is fixed, as Shalev-Shwartz & Singer (2006) write Eq. (25) and (28).

The uniform vector (1/n, ..., 1/n) enters the normalizer of w = g(theta); the
aggressive (Eq. (28)) and window (Eq. (31)) updates depend on the scale of w,
so n cannot grow once learning has started. Against ``oracles.dual.dual_ascent``,
which transcribes the text with n the width of X.
"""

import copy

import numpy as np
import pytest
from numpy.testing import assert_allclose
from oracles import dual as oracle

from olearn import DualAscent, Winnow
from olearn.exceptions import FeatureLimitError


def _stream(seed=3, n=40, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    X[:10, 3:] = 0.0  # the last features appear only later: a dict stream grows
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    return X, y


def _dicts(X):
    return [{j: float(v) for j, v in enumerate(x) if v != 0.0} for x in X]


@pytest.mark.parametrize("update", ["aggressive", "last-k", "all"])
def test_with_n_features_a_growing_dict_stream_is_eq_28_with_fixed_n(update):
    X, y = _stream()
    est = DualAscent(regularizer="entropy", update=update, k=2, C=0.5, n_features=X.shape[1])
    est.partial_fit(X[:0], y[:0], classes=[-1, 1])
    scores = []
    for t, (x, label) in enumerate(zip(_dicts(X), y)):  # the scores of the rounds, before each update
        scores.append(est.decision_function(X[t:t + 1])[0])
        est.learn_one(x, label)
    trace = oracle.dual_ascent(X, y, regularizer="entropy", update=update, k=2, C=0.5)
    assert_allclose(scores, trace.scores, atol=1e-6)
    assert_allclose(est.coef_.ravel(), trace.coef, atol=1e-6)


@pytest.mark.parametrize("update", ["aggressive", "last-k", "all"])
def test_without_n_features_the_prior_cannot_grow_after_learning_started(update):
    """The old behaviour counted n as the features seen so far: on this stream the scores then left Eq. (28)'s."""
    X, y = _stream()
    est = DualAscent(regularizer="entropy", update=update, k=2, C=0.5)
    rows = _dicts(X)
    for x, label in zip(rows[:10], y[:10]):
        est.learn_one(x, label)
    width = est.n_features_in_
    assert 0 < width < X.shape[1]
    before = copy.deepcopy(est.__dict__)
    wider = next(x for x in rows[10:] if max(x) >= width)
    with pytest.raises(FeatureLimitError, match=rf"past the {width} features this DualAscent started with.*"
                                                r"Eq\. \(25\) and \(28\).*set n_features"):
        est.learn_one(wider, 1)
    assert est.n_features_in_ == width
    assert all(np.array_equal(est.__dict__[k], v) if isinstance(v, np.ndarray) else True for k, v in before.items())


@pytest.mark.parametrize("update", ["aggressive", "all"])
def test_an_array_fixes_n_at_its_width(update):
    X, y = _stream(seed=5)
    est = DualAscent(regularizer="entropy", update=update, C=0.5).partial_fit(X, y)
    assert est.n_features_in_ == X.shape[1]
    trace = oracle.dual_ascent(X, y, regularizer="entropy", update=update, C=0.5)
    assert_allclose(est.coef_.ravel(), trace.coef, atol=1e-6)


def test_the_conservative_entropic_learners_may_still_grow():
    """Eq. (16) looks only at the sign of the score, which the prior's n does not change."""
    X, y = _stream()
    for est in (Winnow(C=0.5), DualAscent(regularizer="entropy", C=0.5)):
        for x, label in zip(_dicts(X), y):
            est.learn_one(x, label)
        assert est.n_features_in_ == X.shape[1]
