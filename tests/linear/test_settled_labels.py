"""A binary learner that knows both classes changes nothing in its labels when a call begins, so it copies none.

Once both classes are known a batch's labels are either known classes or
refused before anything changes (``BinaryLabels.settled``): a batch, or an
example that grows the model, is then learned without a copy of the labels,
and a refused one still leaves the learner exactly as it was.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import olearn
from olearn._labels import BinaryLabels

X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, -1.0, 0.5], [3.0, 1.0, 0.0], [0.0, 0.0, -2.0]]))


def no_copy(self, memo):
    raise AssertionError("the labels were copied")


def test_a_learner_with_both_classes_learns_without_copying_its_labels(monkeypatch):
    est = olearn.PAClassifier().partial_fit(X, [0, 1, 1, 0])
    monkeypatch.setattr(BinaryLabels, "__deepcopy__", no_copy, raising=False)
    est.partial_fit(X, [1, 0, 0, 1])
    est.learn_one({"new": 1.0, 7: 2.0}, 1)  # a new name and a wider model: the atomic block of one example
    assert_array_equal(est.classes_, [0, 1])


def test_a_refused_batch_leaves_the_known_classes_as_they_were():
    est = olearn.PAClassifier().partial_fit(X, [0, 1, 1, 0])
    untouched = pickle.loads(pickle.dumps(est))
    # the declared classes are the known ones (as floats), the labels bring a third class: refused
    with pytest.raises(ValueError, match=r"label 2 at row 3 is a third class \(classes so far: \[0, 1\]\)"):
        est.partial_fit(X, [0, 1, 1, 2], classes=[0.0, 1.0])
    for model in (est, untouched):  # the classes as learned, ints, and the weights as they were
        assert model.classes_.dtype == model._labels.classes.dtype == np.int64
    assert_array_equal(est.coef_, untouched.coef_)
    assert_array_equal(est.partial_fit(X, [1, 0, 0, 1]).decision_function(X),
                       untouched.partial_fit(X, [1, 0, 0, 1]).decision_function(X))


def test_a_second_class_in_a_later_batch_is_still_learned():
    # the class 1 first, alone (+1), then 0: the model is the one learned knowing both from the start
    est = olearn.PAClassifier().partial_fit(X[:2], [1, 1]).partial_fit(X, [0, 1, 1, 0])
    declared = olearn.PAClassifier().partial_fit(X[:2], [1, 1], classes=[0, 1]).partial_fit(X, [0, 1, 1, 0])
    assert_array_equal(est.classes_, [0, 1])
    assert_array_equal(est.decision_function(X), declared.decision_function(X))
