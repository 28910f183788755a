"""A batch is learned whole or not at all, and putting it back costs what it touches: a batch the learner
will take is learned without copying the model; one it may refuse is learned on a copy."""

import copy
import json
from unittest import mock

import pytest

import olearn
from olearn._features import FeatureMap
from olearn._learner import OnlineLearner
from olearn.exceptions import PartialUpdateError
from olearn.serve._model import HalfLearned, ServedModel
from olearn.serve._requests import Limits, RequestError, parse_json, read_labelled

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()

WIDE = (1 << 20) - 1  # one large index: a model of 8 MiB of weights


def _no_copy_of_a_learner():
    """copy.deepcopy, refusing to copy a learner (the learners' own copies of small parts are theirs)."""
    real = copy.deepcopy

    def deepcopy(value, *args):
        if isinstance(value, OnlineLearner):
            raise AssertionError("the model was copied")
        return real(value, *args)

    return mock.patch("copy.deepcopy", deepcopy)


def _examples(text):
    return read_labelled(parse_json(text), Limits())


def _started(est, first_y):
    est.learn_one({WIDE: 1.0, "a": 1.0}, first_y[0])
    for y in first_y[1:]:
        est.learn_one({"b": 1.0}, y)
    return est


@pytest.mark.parametrize("make, ys, batch", [
    (lambda: olearn.PAClassifier(variant="pa1"), (1, -1), '{"x": [{"a": 0.5, "7": 2}, {"c": "red"}], "y": [-1, 1]}'),
    (lambda: olearn.AROW(covariance="diag"), (1, -1), '{"x": [{"a": 0.5}, {"b": 1, "d": -3}], "y": [1, 1]}'),
    (lambda: olearn.PAMulticlass(), ("x", "y"), '{"x": [{"a": 0.5}, {"c": "red"}], "y": ["y", "x"]}'),
    (lambda: olearn.PARegressor(), (0.5,), '{"x": [{"a": 0.5}, {"b": 2}], "y": [1.5, -2]}'),
    (lambda: olearn.PAMultilabel(), (["p", "q"],), '{"x": [{"a": 0.5}, {"b": 2}], "y": [["p"], ["q", "p"]]}'),
    (lambda: olearn.PAClassifier(average=True), (1, -1), '{"x": [{"a": 0.5, "7": 2}, {"a": -1}], "y": [-1, 1]}'),
    (lambda: olearn.AdaGrad(), (1, -1), '{"x": [{"a": 0.5}, {"b": 1, "d": -3}], "y": [-1, 1]}'),
    (lambda: olearn.PAClassifier(n_bits=20), (1, -1), '{"x": [{"a": 0.5, "q": 1}, {"b": 1, "d": -3}], "y": [-1, 1]}'),
    (lambda: olearn.PAClassifier(kernel="rbf", random_state=0), (1, -1), '{"x": [{"a": 0.5}, {"b": 1, "d": -3}], "y": [-1, 1]}'),
])
def test_a_batch_the_learner_takes_is_learned_without_a_copy(make, ys, batch):
    served, offline = ServedModel(_started(make(), ys)), _started(make(), ys)
    examples = _examples(batch)
    with _no_copy_of_a_learner():
        assert served.apply("learn", examples) == {"seq": 2, "learned": 2}
    offline.partial_fit(examples.dicts, examples.ys)
    assert_same_model(served.estimator, offline)


@pytest.mark.parametrize("batch", [
    '{"x": [{"a": 1.0}, {"b": 1.0}], "y": [1, 7]}',                 # a third class for a binary learner
    '{"x": [{"a": 1.0}, {"b": [1]}], "y": [1, -1]}',                # a value the learner refuses
    '{"x": [{"new": 1.0}, {"1048575": "red", "a": {}}], "y": [1, -1]}',
])
def test_a_batch_refused_midway_leaves_the_model_as_it_was(batch):
    served = ServedModel(_started(olearn.PAClassifier(), (1, -1)))
    before = copy.deepcopy(served.estimator)
    with pytest.raises(RequestError) as refused:
        served.apply("learn", _examples(batch))
    assert refused.value.status == 422 and refused.value.message.startswith("example 1: ")
    assert_same_model(served.estimator, before)
    assert served.seq == 0


@pytest.mark.parametrize("op, method, overflow", [
    # a batch to learn is learned by one partial_fit, which keeps the rows before an overflow
    ("learn", "partial_fit", PartialUpdateError("overflow at row 1", rows_kept=1)),
    # a batch to predict and learn, example by example
    ("predict_learn", "predict_learn_one", [1, FloatingPointError("overflow")]),
])
def test_an_overflow_midway_that_no_check_foresaw_stops_rather_than_half_learns(op, method, overflow):
    served = ServedModel(_started(olearn.PAClassifier(), (1, -1)))
    examples = _examples('{"x": [{"a": 1.0}, {"b": 1e90, "c": 1e90}], "y": [1, -1]}')
    # the second example's step overflows after all (as a model of huge weights may)
    with mock.patch.object(type(served.estimator), method, side_effect=overflow):
        with pytest.raises(HalfLearned, match="example 1 was refused after its checks"):
            served.apply(op, examples)


def test_a_batch_to_learn_reads_each_example_once():
    """A batch is converted once, by the learner's pass (before: once to vouch for it, once per learn_one)."""
    served = ServedModel(_started(olearn.PAClassifier(), (1, -1)))
    batch = [{"a": 0.5 * i, "b": -1.0, "7": float(i)} for i in range(1, 6)]
    examples = _examples(json.dumps({"x": batch, "y": [1, -1, 1, -1, 1]}))
    # a row is read by FeatureMap.row, or by _named_entries from FeatureMap.rows (which row() then calls no more)
    with mock.patch.object(FeatureMap, "row", autospec=True, side_effect=FeatureMap.row) as row, \
            mock.patch.object(FeatureMap, "_named_entries", autospec=True,
                              side_effect=FeatureMap._named_entries) as named:
        served.apply("learn", examples)
    assert row.call_count + named.call_count == len(batch)
