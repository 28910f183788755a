"""A body with entries a route does not read is refused (422), every unknown entry named, sorted."""

import pytest

from olearn.serve._requests import Limits, RequestError, read_features, read_feedback, read_labelled


@pytest.mark.parametrize("read, document, named", [
    (read_labelled, {"x": {"a": 1.0}, "y": 1, "z": 0, "label": 1}, "['label', 'z']"),
    (read_labelled, {"x": {"a": 1.0}, "y": 1, "X": {}}, "['X']"),
    (lambda d, limits: read_features(d, limits), {"x": {"a": 1.0}, "y": 1}, "['y']"),
    (read_feedback, {"id": "p-1", "y": 1, "x": {}}, "['x']"),
])
def test_an_unknown_entry_is_refused_by_name(read, document, named):
    with pytest.raises(RequestError) as refused:
        read(document, Limits())
    assert refused.value.status == 422 and f"unknown entries {named}" in refused.value.message


def test_the_known_entries_are_read():
    examples = read_labelled({"x": {"a": 1.0}, "y": 1, "sample_weight": 2.0, "id": "r-1"}, Limits())
    assert examples.dicts == [{"a": 1.0}] and examples.ys == [1] and examples.weights == [2.0]
