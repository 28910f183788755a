"""Averaged predictions read w - U / n only for the features of the sequences predicted, and build no averaged
matrix in Python."""

import numpy as np
from numpy.testing import assert_array_equal

import olearn._averaging
from olearn.sequence import PASequence
from olearn.sequence import _pa


def _viterbi(em, transition):
    """The best labelling by exhaustive dynamic programming in NumPy (ties to the smallest label index)."""
    T, k = em.shape
    best = np.zeros((T, k))
    best[-1] = em[-1]
    for t in range(T - 2, -1, -1):
        best[t] = em[t] + (transition[:k] + best[t + 1]).max(axis=1)
    labels, previous = [], k
    for t in range(T):
        labels.append(int(np.argmax(transition[previous] + best[t])))
        previous = labels[-1]
    return labels


def test_averaged_predictions_are_viterbi_over_the_averaged_weights_without_building_them(make_sequences,
                                                                                          monkeypatch):
    X, y = make_sequences(30, d=6, labels=("a", "b", "c", "d"), lengths=(1, 5), seed=11)
    model = PASequence(average=True).partial_fit(X, y)  # with the default bias and end transition
    coef, intercept, transition, end = model.coef_, model.intercept_, model.transition_, model.end_transition_
    # the averaged weights, from the running sum: the mean of the weights left by each sequence
    plain = PASequence()
    total_coef, total_intercept, total_transition, total_end = 0.0, 0.0, 0.0, 0.0
    for x, tags in zip(X, y):
        plain.learn_one(x, tags)
        known = np.searchsorted(model.classes_, plain.classes_)
        grown = np.zeros_like(coef)
        grown[known] = plain.coef_
        total_coef = total_coef + grown
        bias = np.zeros_like(intercept)
        bias[known] = plain.intercept_
        total_intercept = total_intercept + bias
        moves = np.zeros_like(transition)
        moves[np.append(known, model.classes_.size)[:, None], known] = plain.transition_
        total_transition = total_transition + moves
        last = np.zeros_like(end)
        last[known] = plain.end_transition_
        total_end = total_end + last
    np.testing.assert_allclose(coef, total_coef / len(X), atol=1e-12)
    np.testing.assert_allclose(intercept, total_intercept / len(X), atol=1e-12)
    np.testing.assert_allclose(transition, total_transition / len(X), atol=1e-12)
    np.testing.assert_allclose(end, total_end / len(X), atol=1e-12)
    assert np.any(end != 0.0)
    shapes = []
    real_averaged = olearn._averaging.averaged

    def recorded(weights, correction, averaging):
        shapes.append(weights.shape)
        return real_averaged(weights, correction, averaging)

    monkeypatch.setattr(_pa, "averaged", recorded)
    predictions = model.predict(X)
    one = model.predict_one(X[3])
    # no averaged matrix is built in Python, of the emissions or of the transitions: the kernel reads the
    # corrections beside the weights
    assert not shapes
    for x, predicted in zip(X, predictions):
        em = x @ coef.T + intercept
        em[-1] += end
        assert_array_equal(predicted, model.classes_[_viterbi(em, transition)])
    assert_array_equal(one, predictions[3])
