"""The one compiled call of a repeated-key dict (predict_one, learn_one, predict_learn_one) refuses what the general path refuses.

Once a stream's keys repeat, a binary linear learner reads a dict's values and
learns it in one compiled call. A value that is not a finite real number, met
on that path, must still be refused with the error naming the feature, the
learner left exactly as it was, and the path must go on learning afterwards
as a learner that never saw the refused dict.
"""

import math

import numpy as np
import pytest

import olearn

KEYS = [f"f{j}" for j in range(6)]
BAD = [
    (math.nan, ValueError, "feature 'f3' has value nan"),
    (-math.inf, ValueError, "feature 'f3' has value -inf"),
    (10**400, ValueError, "feature 'f3' has value 1000"),
    ([1.0], TypeError, "feature 'f3' has value .* of type list"),
]


def stream(n, seed=0):
    rng = np.random.default_rng(seed)
    rows = [dict(zip(KEYS, rng.normal(size=len(KEYS)).tolist())) for _ in range(n)]
    return rows, [bool(row["f0"] + row["f1"] > 0) for row in rows]


def learned(rows, labels):
    model = olearn.PAClassifier(variant="pa1", C=1.0)
    for x, y in zip(rows, labels):
        model.predict_learn_one(x, y)
    return model


def state_of(model):
    return model._w.copy(), model._state.copy(), model.n_features_in_, model.vocabulary_


@pytest.mark.parametrize("value, error, match", BAD, ids=["nan", "-inf", "past float64", "list"])
@pytest.mark.parametrize("call", ["predict_one", "learn_one", "predict_learn_one"])
def test_a_bad_value_on_the_one_call_path_is_refused_and_changes_nothing(call, value, error, match):
    rows, labels = stream(40)
    model = learned(rows[:30], labels[:30])
    assert model._features.repeated is not None  # the next dict of these keys takes the one compiled call
    before = state_of(model)
    bad = dict(rows[30])
    bad["f3"] = value  # the same key objects: the compiled read meets the value
    with pytest.raises(error, match=match):
        getattr(model, call)(bad, *([] if call == "predict_one" else [labels[30]]))
    after = state_of(model)
    assert all(np.array_equal(a, b) for a, b in zip(before[:2], after[:2])) and before[2:] == after[2:]
    # and the stream goes on as if the refused dict had never come
    reference = learned(rows[:30], labels[:30])
    for x, y in zip(rows[30:], labels[30:]):
        assert model.predict_learn_one(x, y) == reference.predict_learn_one(x, y)
    assert np.array_equal(model._w, reference._w)
    assert [model.predict_one(x) for x in rows] == [reference.predict_one(x) for x in rows]
