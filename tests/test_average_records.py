"""The averaged learners keep each weight and its running correction side by side (issue #34, issue #38).

An averaged score reads, for every entry of a row, the weight and its running
correction; kept in two arrays of the model's size, the two reads are two cache
misses, which made averaged batches up to 1.8x slower than plain ones at 2**20
columns. The learners keep them as the two halves of one array of records
``(weight, correction)``: these tests check that layout directly from the
arrays' addresses and strides, after every way a learner gets its state
(learning, growing, a second class that flips the encoding, loading a file,
pickle, deepcopy), and that the averaged scores are still those of the mean
of the iterates.
"""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import olearn
from olearn.linear import PAClassifier, PARegressor
from olearn.multiclass import PAMulticlass
from olearn.multilabel import PAMultilabel
from olearn.quasi_additive import PNorm, Winnow


def _address(array):
    return array.__array_interface__["data"][0]


def _side_by_side(weights, correction):
    """Whether the two arrays are the interleaved halves of one buffer: record j = (weights[j], correction[j])."""
    return (weights.shape == correction.shape
            and weights.strides[-1] == correction.strides[-1] == 16
            and _address(correction) - _address(weights) == 8
            and np.shares_memory(weights, correction) is False
            and weights.base is correction.base is not None)


def _records(learner):
    """(weights, correction) of a learner's averaged state: (W, U) of the multilabel learner, one row per label;
    (W, A) of the multiclass one, one column per class slot; (w, U) of the quasi-additive ones."""
    if isinstance(learner, PAMultilabel):
        return learner._W, learner._U
    if isinstance(learner, PAMulticlass):
        return learner._W, learner._A
    if isinstance(learner, (PNorm, Winnow)):
        return learner._w, learner._avg_sum
    return learner._w, learner._avg


def _rows(n, width, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n, width, density=0.2, format="csr", random_state=rng, data_rvs=lambda k: rng.uniform(-1, 1, k))
    X.sort_indices()
    return X, X @ rng.standard_normal(width)


LEARNERS = [
    ("PAClassifier", lambda: PAClassifier(C=0.5, fit_intercept=True, average=True), lambda y: np.where(y > 0, 1, -1)),
    ("PARegressor", lambda: PARegressor(C=0.5, fit_intercept=True, average=3), lambda y: y),
    ("PAMultilabel", lambda: PAMultilabel(C=0.5, fit_intercept=True, average=True),
     lambda y: [{int(v > 0), 2 + int(v > 1)} for v in y]),
    ("PAMulticlass", lambda: PAMulticlass(C=0.5, fit_intercept=True, average=True),
     lambda y: np.digitize(y, [-0.5, 0.5])),
    ("PNorm", lambda: PNorm(p=3.0, fit_intercept=True, average=True), lambda y: np.where(y > 0, 1, -1)),
]


@pytest.mark.parametrize("name,make,target", LEARNERS, ids=[case[0] for case in LEARNERS])
def test_weights_and_corrections_stay_side_by_side(name, make, target, tmp_path):
    X, y = _rows(60, 12, 0)
    y = target(y)
    learner = make().fit(X[:, :5], y)
    assert _side_by_side(*_records(learner)), "after fit"
    learner.partial_fit(X, y)  # new columns: the records grow
    assert learner.n_features_in_ == 12
    assert _side_by_side(*_records(learner)), "after growing"
    learner.learn_one({3: 0.5, 11: -1.0}, y[0])
    assert _side_by_side(*_records(learner)), "after learn_one"
    if isinstance(learner, PAMultilabel):
        learner.partial_fit(X[:3], [{7}, {7, 0}, {1}])  # a new label: a row of records more
        assert learner._W.shape[0] == 5
        assert _side_by_side(*_records(learner)), "after a new label"
    learner.save(tmp_path / "model.npz")
    for how, copied in (("load", olearn.load(tmp_path / "model.npz")), ("pickle", pickle.loads(pickle.dumps(learner))),
                        ("deepcopy", copy.deepcopy(learner))):
        # a loaded binary linear learner keeps the file's two arrays (loading holds one copy of the model)
        loaded_apart = how == "load" and isinstance(learner, (PAClassifier, PARegressor))
        assert _side_by_side(*_records(copied)) != loaded_apart, f"after {how}"
        assert_array_equal(copied.coef_, learner.coef_, err_msg=how)
        assert_array_equal(_scores(copied, X), _scores(learner, X), err_msg=how)


def _scores(learner, X):
    """What the learner predicts from its averaged weights: decision values, or the regressor's predictions."""
    return learner.predict(X) if isinstance(learner, PARegressor) else learner.decision_function(X)


def test_a_second_class_that_flips_the_encoding_keeps_the_records_and_the_mean():
    """The first class is +1 while it is the only one; a second class that sorts after it makes it -1, and the
    learner negates its state (the records with it). The average is then the mean of the iterates in the new
    encoding: the twin's weights read before the flip count negated."""
    X, y = _rows(40, 8, 1)
    labels = np.where(y > 0, "b", "a")
    assert labels[0] == "a" and labels[1] == "a" and labels[2] == "b", "the data must flip the encoding at row 2"
    learner = PAClassifier(C=0.5, average=True)
    twin = PAClassifier(C=0.5)  # the same iterates, read after every round
    iterates = []
    for i in range(X.shape[0]):
        for model in (learner, twin):
            model.partial_fit(X[i], labels[i:i + 1])
        if i == 2:
            iterates = [-w for w in iterates]
        iterates.append(twin.coef_.ravel().copy())
        assert _side_by_side(*_records(learner)), f"round {i}"
        np.testing.assert_allclose(learner.coef_.ravel(), np.mean(iterates, axis=0), rtol=1e-12, atol=1e-14,
                                   err_msg=f"round {i}")


def test_plain_winnow_takes_the_records_of_its_other_encoding_when_the_second_class_arrives():
    """Unbalanced Winnow's link is not odd: while one class is known it also learns the model of the other
    encoding (two arrays of its own), and takes it when the second class arrives."""
    X, _ = _rows(12, 6, 2)
    learner = Winnow(balanced=False, average=True)
    learner.partial_fit(X[:4], ["a"] * 4)
    assert learner._other is not None
    assert _side_by_side(*_records(learner)), "one class known"
    twin = copy.deepcopy(learner)  # laid out again, and learns on as the original does
    learner.partial_fit(X[4:8], ["b", "a", "b", "b"])
    assert _side_by_side(*_records(learner)), "after the flip"
    twin.partial_fit(X[4:8], ["b", "a", "b", "b"])
    assert_array_equal(learner.decision_function(X), twin.decision_function(X))
