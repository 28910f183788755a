"""A batch to learn is learned in one pass of the learner (``partial_fit``, its dicts converted once): for every
served algorithm, the model is then bit for bit the one ``partial_fit`` makes offline, which holds the updates of
``learn_one`` of each example in turn (within rounding: a pass reads a row's columns in sorted order)."""

import copy

import numpy as np
import pytest

from olearn.cli._learners import make_estimator, task_of
from olearn.cli._serve import SERVED_ALGORITHMS
from olearn.serve._model import ServedModel
from olearn.serve._requests import Limits, read_features, read_labelled

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()

LABELS = {"binary": [1, -1, -1, 1, 1, -1], "multiclass": ["a", "b", "c", "b", "a", "c"],
          "regression": [0.5, -1.25, 2.0, 0.0, 1.5, -0.5], "multilabel": [["p"], ["q", "p"], [], ["q"], ["p"], ["r"]],
          "cost-sensitive": [0, 1, 2, 1, 0, 2]}
BATCH = [{"a": 0.5, "b": -1.0}, {"a": -0.25, "city": "Paris", "c": 2.0}, {"b": 1.5, "new": 0.75},
         {"a": 1.0, "city": "Rome"}, {"c": -0.5, "b": 0.25, "a": 2.0}, {"new": -1.0, "a": 0.5}]


def _estimator(algo):
    cost = [[0, 1, 2], [1, 0, 1], [2, 1, 0]] if task_of(algo) == "cost-sensitive" else None
    return make_estimator(algo, {}, cost=cost)


@pytest.mark.parametrize("algo", SERVED_ALGORITHMS)
def test_a_batch_learns_what_learn_one_in_turn_learns(algo):
    labels = LABELS[task_of(algo)]
    served, offline = ServedModel(_estimator(algo)), _estimator(algo)
    classes = {"classes": [0, 1, 2]} if task_of(algo) == "cost-sensitive" else {}
    for est in (served.estimator, offline):  # started with every label of the batch known
        est.partial_fit(BATCH[:3], labels[:3], **classes)
    served.apply("learn", read_labelled({"x": BATCH, "y": labels}, Limits()))
    one_by_one = copy.deepcopy(offline)
    offline.partial_fit(BATCH, labels)
    assert_same_model(served.estimator, offline)
    for x, y in zip(BATCH, labels):
        one_by_one.learn_one(x, y)
    arrays, state = served.estimator._get_state()
    want_arrays, want_state = one_by_one._get_state()
    assert state == want_state and sorted(arrays) == sorted(want_arrays)
    for name in arrays:
        got, want = np.asarray(arrays[name]), np.asarray(want_arrays[name])
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=name)
        else:
            assert got.tolist() == want.tolist(), name


@pytest.mark.parametrize("algo", SERVED_ALGORITHMS)
def test_a_batch_is_predicted_as_predict_one_predicts_each_example(algo):
    labels = LABELS[task_of(algo)]
    served = ServedModel(_estimator(algo))
    classes = {"classes": [0, 1, 2]} if task_of(algo) == "cost-sensitive" else {}
    served.estimator.partial_fit(BATCH, labels, **classes)
    probe = [{"a": 1.0, "b": 0.5}, {"city": "Paris", "unknown": 3.0}, {"c": -2.0, "new": 1.0}, {}]
    answer = served.predict(read_features({"x": probe}, Limits()))
    est = served.estimator
    want = [est.predict_one(x) for x in probe]
    assert answer["y"] == [[str(label) for label in y] if isinstance(y, list) else y.item() if hasattr(y, "item")
                           else y for y in want]
    assert answer["score"] == np.asarray(est.decision_function(probe) if hasattr(est, "decision_function")
                                         else est.predict(probe)).tolist()
