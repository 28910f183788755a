"""A batch's labels and features, read at once when every one is plain: the same examples, and the same
refusals, naming the example, as read one by one."""

import pytest

import olearn
from olearn.preprocessing import StandardScaler
from olearn.serve._feedback import Pending
from olearn.serve._model import ServedModel
from olearn.serve._requests import LabelSet, Limits, RequestError, parse_json, read_features, read_labelled


def test_plain_labels_and_features_are_read_as_sent():
    body = b'{"x": [{"a": 1.5, "b": "red"}, {"c": null}, {}], "y": [-1, "spam", true]}'
    examples = read_labelled(parse_json(body), Limits())
    assert examples.ys == [-1, "spam", True] and examples.batch
    assert examples.dicts == [{"a": 1.5, "b": "red"}, {"c": None}, {}]
    assert all(d is x for d, x in zip(examples.dicts, examples.xs))  # the JSON objects, not copied


@pytest.mark.parametrize("make", [lambda: olearn.PAClassifier(),
                                  lambda: olearn.compose.Pipeline(StandardScaler(), olearn.PAClassifier())],
                         ids=["learner", "pipeline"])
def test_learning_and_predicting_leave_the_json_objects_as_sent(make):
    # the batch's dicts are the JSON objects themselves: nothing that reads them may write into them
    body = b'{"x": [{"a": 1.5, "b": "red"}, {"a": -2.0, "c": null}, {"b": "blue", "d": 3}], "y": [1, -1, 1]}'
    model = ServedModel(make(), pending=Pending(max_pending=0))
    limits = Limits()
    limits.feature_keys = model.feature_keys
    for _ in range(2):  # the first batch starts the learner, the second takes the batch paths of a started one
        examples = read_labelled(parse_json(body), limits)
        model.apply("learn", examples)
        model.apply("predict_learn", examples)
        model.predict(examples)
        assert examples.xs == parse_json(body)["x"] and examples.ys == [1, -1, 1]


@pytest.mark.parametrize("ys, where", [
    ("[1, 2, 1e400]", "y[2]"),                  # past float64 (Python reads it as inf)
    ("[1, 2, " + "9" * 400 + "]", "y[2]"),      # an integer past float64
    ("[1, null, 2]", "y[1]"),
    ("[1, {}, 2]", "y[1]"),
])
def test_a_label_that_is_not_one_is_refused_by_its_place(ys, where):
    body = ('{"x": [{"a": 1.0}, {"a": 2.0}, {"a": 3.0}], "y": ' + ys + "}").encode()
    with pytest.raises(RequestError) as refused:
        read_labelled(parse_json(body), Limits())
    assert refused.value.status == 422 and refused.value.message.startswith(where)


def test_labels_are_checked_against_the_classes():
    body = b'{"x": [{"a": 1.0}, {"a": 2.0}], "y": [1, 3]}'
    with pytest.raises(RequestError, match=r"y\[1\] is 3; this service takes the labels 1, -1"):
        read_labelled(parse_json(body), Limits(classes=LabelSet("1,-1")))


def test_an_example_past_the_feature_cap_is_refused_by_its_place():
    body = b'{"x": [{"a": 1.0}, {"a": 1.0, "b": 2.0, "c": 3.0}]}'
    with pytest.raises(RequestError) as refused:
        read_features(parse_json(body), Limits(max_features=2))
    assert refused.value.status == 413 and refused.value.message.startswith("x[1] has 3 features")
    body = b'{"x": [{"a": 1.0}, [1.0]]}'
    with pytest.raises(RequestError) as refused:
        read_features(parse_json(body), Limits())
    assert refused.value.status == 422 and refused.value.message.startswith("x[1] is a JSON array")
