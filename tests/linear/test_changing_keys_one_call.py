"""A binary linear learner's learn_one on dicts whose keys change from row to row (a service's JSON objects): the
one compiled call of a converted row learns what the general path learns, bit for bit, and refuses as it does.

The general path is forced by a sample weight of 1 (the same update: weight 1 is the default)."""

import math
import random

import numpy as np
import pytest

import olearn
from olearn.linear._base import LinearLearner


def _stream(n, seed=5):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        x = {str(j): round(rng.gauss(0, 1), 3) for j in rng.sample(range(60), 6)}  # JSON's keys: digits too
        x.update({f"f{j}": rng.randint(-3, 3) for j in rng.sample(range(20), 3)})  # integer values too
        rows.append(x)
    return rows, [rng.choice(("no", "yes")) for _ in rows]


def _pair():
    return olearn.PAClassifier(variant="pa1", C=0.5), olearn.PAClassifier(variant="pa1", C=0.5)


def test_rows_of_changing_keys_learn_what_the_general_path_learns(monkeypatch):
    rows, labels = _stream(120)
    fast, general = _pair()
    taken = []  # the rows of `fast` that went the general way
    general_way = LinearLearner.predict_learn_one
    monkeypatch.setattr(LinearLearner, "predict_learn_one",
                        lambda model, *args, **kwargs: taken.append(model is fast) or general_way(model, *args, **kwargs))
    growing = 0  # the rows naming a new feature, or of the first labels: the general path's
    for x, y in zip(rows, labels):  # new names and columns early on, then only known ones
        known = len(fast.vocabulary_) if fast._is_started() else -1
        assert fast.predict_learn_one(x, y) == general.predict_learn_one(x, y, sample_weight=1)
        growing += len(fast.vocabulary_) != known or len(fast.classes_) < 2
    assert 0 < taken.count(True) == growing < 40  # every other row in one compiled call
    assert np.array_equal(fast._w, general._w) and np.array_equal(fast._state, general._state)
    assert fast.vocabulary_ == general.vocabulary_ and fast.n_features_in_ == general.n_features_in_


@pytest.mark.parametrize("bad, error", [({"f1": math.inf}, ValueError), ({"f1": 1e300, "f2": 1e300}, None),
                                        ("label", ValueError)], ids=["inf", "overflow", "new label of 3"])
def test_a_refused_row_is_refused_as_the_general_path_refuses_it(bad, error):
    rows, labels = _stream(60)
    fast, general = _pair()
    for x, y in zip(rows, labels):
        fast.learn_one(x, y)
        general.learn_one(x, y, sample_weight=1)
    x, y = (dict(rows[0]), "maybe") if bad == "label" else (bad, "yes")
    outcomes = []
    for model, weight in ((fast, None), (general, 1)):
        before = model._w.copy()
        with pytest.raises(Exception) as refused:
            model.learn_one(x, y, sample_weight=weight)
        outcomes.append((type(refused.value), str(refused.value)))
        assert np.array_equal(model._w, before)  # the model as it was
    assert outcomes[0] == outcomes[1] and (error is None or issubclass(outcomes[0][0], error))
