"""A body's strings are Unicode text: a lone surrogate is refused wherever it is, however it is written, while
the body is read once (an ASCII body without a surrogate's escape is not walked)."""

import pytest

from olearn.serve._requests import Limits, RequestError, parse_json, read_labelled


@pytest.mark.parametrize("body", [
    b'{"x": {"\\ud800": 1.0}, "y": 1}',                 # a key
    b'{"x": {"city": "\\uDFFF"}, "y": 1}',              # a category, upper-case escape
    b'{"x": [{"a": 1.0}, {"a": 2.0}], "y": [1, "\\udc00z"]}',  # a label in a batch
    b'{"x": {"a": 1.0}, "y": 1, "id": "\\ud83d"}',      # half of a pair
    b'{"x": {"\xed\xa0\x80": 1.0}, "y": 1}',            # a surrogate's UTF-8 bytes, which Python's reader passes
])
def test_a_lone_surrogate_is_refused(body):
    with pytest.raises(RequestError) as refused:
        read_labelled(parse_json(body), Limits())
    assert refused.value.status == 422 and "lone surrogate" in refused.value.message


def test_text_that_looks_like_a_surrogate_is_read():
    # a pair of escapes is one character; an escaped backslash before "ud800" is text
    document = parse_json(b'{"x": {"smile": "\\ud83d\\ude00", "path": "\\\\ud800"}, "y": "\xc3\xa9t\xc3\xa9"}')
    examples = read_labelled(document, Limits())
    assert examples.dicts == [{"smile": "\U0001f600", "path": "\\ud800"}] and examples.ys == ["\u00e9t\u00e9"]
