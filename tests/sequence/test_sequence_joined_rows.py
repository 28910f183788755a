"""An averaged tagger keeps each row's corrections beside its weights, through growth, copies and pickles."""

import copy
import pickle

import numpy as np
from numpy.testing import assert_array_equal

from olearn._averaging import n_averaged, row_halves
from olearn.sequence import PASequence

LABELS = ("a", "b", "c", "d", "e")
D = 7


def _growing_stream(make_sequences):
    """Sequences whose width and labels grow: the first use 2 features and the label "a", the last D and all five."""
    X, y = make_sequences(40, d=D, labels=LABELS, lengths=(1, 4), seed=5)
    for i in range(len(X)):
        X[i] = X[i][:, : min(D, 2 + i // 6)]
        y[i] = np.array([LABELS[min(ord(tag) - ord("a"), i // 8)] for tag in y[i]])
    return X, y


def _learned(model, X, y):
    for lo in range(0, len(X), 7):
        model.partial_fit(X[lo : lo + 7], y[lo : lo + 7])
    return model


def _weights(model):
    return model.coef_, model.intercept_, model.transition_, model.end_transition_


def test_the_rows_hold_the_weights_then_their_corrections_and_growth_keeps_them(make_sequences):
    X, y = _growing_stream(make_sequences)
    grown = _learned(PASequence(average=True), X, y)
    plain = _learned(PASequence(), X, y)
    # room and width given up front: nothing grows, and every weight and average is the same, bit for bit
    fixed = _learned(PASequence(average=True, classes=list(LABELS), n_features=D), X, y)
    for ours, theirs in zip(_weights(grown), _weights(fixed), strict=True):
        assert_array_equal(ours, theirs)
    assert grown._emission.flags.c_contiguous and grown._transition.flags.c_contiguous
    n = n_averaged(grown._averaging)
    weights, corrections = row_halves(grown._emission)
    transition, u_transition = row_halves(grown._transition)
    # the left halves are the current weights (those of the learner without averaging), the right their corrections
    assert_array_equal(weights[:D, grown._columns].T, plain.coef_)
    assert_array_equal(transition[:-1], plain.transition_)
    assert_array_equal(grown.coef_, (weights - corrections / n)[:D, grown._columns].T)
    assert_array_equal(grown.transition_, (transition - u_transition / n)[:-1])
    assert np.abs(corrections).sum() > 0.0 and np.abs(u_transition).sum() > 0.0


def test_a_copy_and_a_pickle_go_on_as_the_original(make_sequences):
    X, y = _growing_stream(make_sequences)
    model = _learned(PASequence(average=True), X[:20], y[:20])
    copies = [copy.deepcopy(model), pickle.loads(pickle.dumps(model))]
    for learner in (model, *copies):
        learner.partial_fit(X[20:], y[20:])
    for other in copies:
        assert other._emission.flags.c_contiguous
        for ours, theirs in zip(_weights(model), _weights(other), strict=True):
            assert_array_equal(ours, theirs)
        assert all(np.array_equal(a, b) for a, b in zip(model.predict(X), other.predict(X), strict=True))
