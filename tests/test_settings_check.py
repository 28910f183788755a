"""The per-call settings check: O(1) per example, and still every change of a hyperparameter is seen.

A learner builds its kernel settings from its hyperparameters once, and again
only after a change: a change by attribute or ``set_params`` drops them
(``__setattr__``), and a value that can change in place (a list, dict, set
or array) is compared by content on every call. The references are the PA-I
step written out by hand (Crammer et al. 2006, Eq. 6 for PA-I's tau).
"""

import copy
import pickle

import numpy as np
import pytest

import olearn
from olearn._learner import OnlineLearner
from olearn._settings import changes_in_place, freeze
from olearn._params import Interval


def pa1_weights_after_one(x, y, C):
    """w after one PA-I round from w = 0: tau = min(C, 1 / ||x||^2) (the hinge loss at w = 0 is 1), w = tau y x."""
    x = np.asarray(x, dtype=float)
    return min(C, 1.0 / float(x @ x)) * y * x


def count_builds(est, monkeypatch):
    """A list that grows by one each time ``est`` builds its kernel settings."""
    builds = []
    original = type(est)._kernel_config

    def counted(self):
        builds.append(1)
        return original(self)

    monkeypatch.setattr(type(est), "_kernel_config", counted)
    return builds


def test_settings_are_built_once_for_a_stream(monkeypatch):
    est = olearn.PAClassifier(C=0.5)
    builds = count_builds(est, monkeypatch)
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = dict(enumerate(rng.normal(size=5).tolist()))
        est.predict_one(x)
        est.learn_one(x, int(rng.random() < 0.5))
        est.predict_learn_one(x, 1)
    assert len(builds) == 1


@pytest.mark.parametrize("how", ["attribute", "set_params"])
def test_a_change_is_seen_by_the_next_learn_one(how, monkeypatch):
    x = np.array([3.0, 4.0])  # ||x||^2 = 25
    est = olearn.PAClassifier(C=1.0)
    builds = count_builds(est, monkeypatch)
    # w = (1, 0) after the first row; the second has margin 1 (no step), the third is 0 (no step): both
    # classes known, the settings built once, and the one-call path from here on
    est.learn_one({0: 1.0, 1: 0.0}, 1).learn_one({0: -1.0, 1: 0.0}, 0).learn_one({0: 0.0, 1: 0.0}, 1)
    assert len(builds) == 1
    before = est.coef_.ravel().copy()
    np.testing.assert_array_equal(before, [1.0, 0.0])
    if how == "attribute":
        est.C = 0.01
    else:
        est.set_params(C=0.01)
    est.learn_one(dict(enumerate(x.tolist())), 0)  # class 0 is the target -1: margin -3, hinge loss 4
    assert len(builds) == 2
    tau = min(0.01, 4.0 / 25.0)
    np.testing.assert_allclose(est.coef_.ravel(), before - tau * x, rtol=1e-12)
    # an invalid value is refused by the next call, by name, and the model is left as it was
    learned = est.coef_.copy()
    if how == "attribute":
        est.C = -1.0
    else:
        est.set_params(C=-1.0)
    for call in (lambda: est.learn_one({0: 1.0}, 1), lambda: est.predict_learn_one({0: 1.0}, 1),
                 lambda: est.predict_one({0: 1.0})):
        with pytest.raises(ValueError, match="parameter C=-1.0"):
            call()
    np.testing.assert_array_equal(est.coef_, learned)


def test_the_first_step_follows_a_change_made_before_learning():
    x = [1.0, 2.0]
    est = olearn.PAClassifier(C=1.0)
    est.predict_one(dict(enumerate(x)))  # builds the settings with C = 1
    est.C = 0.05
    est.learn_one(dict(enumerate(x)), 1)
    np.testing.assert_allclose(est.coef_.ravel(), pa1_weights_after_one(x, 1.0, 0.05), rtol=1e-12)


def test_class_weight_changed_in_place_is_seen():
    est = olearn.PAClassifier(class_weight={0: 1.0, 1: 1.0})
    est.learn_one({0: 1.0}, 1).learn_one({0: -1.0}, 0)
    learned = est.coef_.copy()
    est.class_weight[1] = -2.0  # in place: no assignment tells the learner
    with pytest.raises(ValueError, match="parameter class_weight="):
        est.learn_one({0: 2.0}, 1)
    np.testing.assert_array_equal(est.coef_, learned)
    est.class_weight[1] = 1.0
    est.learn_one({0: 2.0}, 1)


class _Listed(OnlineLearner):
    """A learner whose settings come from a list and an array, counting how often it builds them."""

    def __init__(self, scales=None, table=None, rate=1.0, max_iter=1, tol=None, n_iter_no_change=1,
                 shuffle=False, random_state=None):
        self.scales = scales
        self.table = table
        self.rate = rate
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.builds = 0

    def _all_constraints(self):
        return {"rate": Interval(0, None, closed="neither")}

    def settings(self):
        return self._checked_config(self._build)

    def _build(self):
        self.builds += 1
        return (list(self.scales), None if self.table is None else self.table.copy(), self.rate)


def test_values_changed_in_place_are_compared_by_content():
    table = np.eye(2)
    est = _Listed(scales=[1.0, 2.0], table=table)
    assert est.settings()[0] == [1.0, 2.0] and est.builds == 1
    est.settings()
    assert est.builds == 1  # nothing changed: nothing rebuilt
    est.scales.append(3.0)
    assert est.settings()[0] == [1.0, 2.0, 3.0] and est.builds == 2
    table[0, 1] = 5.0
    np.testing.assert_array_equal(est.settings()[1], [[1.0, 5.0], [0.0, 1.0]])
    assert est.builds == 3
    est.settings()
    assert est.builds == 3
    # a value set to the same content is still a new value: built again, once
    est.rate = 1.0
    est.settings()
    est.settings()
    assert est.builds == 4
    est.rate = 0.0
    with pytest.raises(ValueError, match="rate"):
        est.settings()
    est.rate = 2.0
    assert est.settings()[2] == 2.0


def test_the_content_comparison_is_for_values_that_change_in_place_only():
    assert changes_in_place([1]) and changes_in_place({1: 2}) and changes_in_place(np.zeros(2))
    assert changes_in_place((1, [2])) and changes_in_place({1})
    assert not any(changes_in_place(v) for v in (1, 1.5, "pa1", None, True, (1, "a"), len, olearn.PAClassifier))
    # a snapshot is a copy: changing the value afterwards does not change it
    value = [1, {2: [3]}]
    before = freeze(value)
    value[1][2].append(4)
    assert freeze(value) != before
    assert freeze([1]) != freeze([True]) and freeze((1,)) != freeze([1])


def test_pickle_copy_and_clone_keep_working():
    sklearn_base = pytest.importorskip("sklearn.base")
    rng = np.random.default_rng(1)
    rows = [dict(enumerate(rng.normal(size=4).tolist())) for _ in range(60)]
    labels = [int(v) for v in rng.random(60) < 0.5]
    est = olearn.PAClassifier(C=0.3, average=True)
    for x, y in zip(rows[:30], labels[:30]):
        est.learn_one(x, y)
    assert "_config_cache" not in pickle.loads(pickle.dumps(est)).__dict__
    copies = [pickle.loads(pickle.dumps(est)), copy.deepcopy(est)]
    for x, y in zip(rows[30:], labels[30:]):
        est.learn_one(x, y)
    for other in copies:
        for x, y in zip(rows[30:], labels[30:]):
            other.learn_one(x, y)
        np.testing.assert_array_equal(other.coef_, est.coef_)
        # the copy's settings follow its own hyperparameters
        other.C = -1.0
        with pytest.raises(ValueError, match="C"):
            other.learn_one(rows[0], 1)
    fresh = sklearn_base.clone(est)
    assert fresh.get_params() == est.get_params() and not hasattr(fresh, "coef_")
    fresh.set_params(C=2.0)
    assert fresh.learn_one(rows[0], 1).C == 2.0
    assert est.C == 0.3  # the original's settings are its own
