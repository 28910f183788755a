"""parse_json_fast (the reading of a request body by orjson) returns what parse_json returns, or refuses what it
refuses: a key repeated in any object, however the body is spaced, is a 422; integers past 64 bits stay ints.

The expected documents are Python's own reader's (json.loads, which keeps the last of a repeated key)."""

import json
import random

import pytest

from olearn.serve._fast_json import parse_json_fast as decode_body
from olearn.serve._requests import RequestError


def _batch(rng, n):
    xs = [{f"f{j}": round(rng.gauss(0, 1), 4) for j in rng.sample(range(60), 12)} for _ in range(n)]
    return {"x": xs, "y": [rng.choice((-1, 1)) for _ in xs]}


@pytest.mark.parametrize("dumps", [
    lambda d: json.dumps(d),                              # ", " and ": "
    lambda d: json.dumps(d, separators=(",", ":")),       # compact
    lambda d: json.dumps(d, indent=2),                    # newlines after the quotes of string values
    lambda d: json.dumps(d, separators=(" ,", " : ")),    # a space before every colon
])
def test_a_body_reads_as_pythons_reader_reads_it(dumps):
    rng = random.Random(3)
    for document in [_batch(rng, 50), {"x": {"a": 1.5, "b": -2}, "y": "spam", "sample_weight": 0.5},
                     {"x": {"city": "Paris", "age": 30}, "y": [1, 2], "id": "req-1"}]:
        body = dumps(document).encode()
        decoded = decode_body(body)
        assert decoded == json.loads(body)
        assert [type(v) for v in decoded["y"]] == [type(v) for v in json.loads(body)["y"]] \
            if isinstance(decoded["y"], list) else type(decoded["y"]) is type(json.loads(body)["y"])


@pytest.mark.parametrize("body", [
    b'{"x": {"a": 1.0, "a": 2.0}, "y": 1}',
    b'{"x": {"a": 1.0}, "y": 1, "y": -1}',
    b'{"x": {"a": 1.0}, "y" : 1, "y"\n: -1}',                             # whitespace before the colons
    b'{"x": [{"a": 1.0}, {"b": 1.0}, {"c": 2.0, "d": 0.5, "c": 2.0}], "y": [1, 1, 1]}',
    b'{"x": {"a\\":b": 1.0, "a\\":b": 2.0}, "y": 1}',                       # a key holding '":'
    b'{"x": {"a": 1.0, "z": 2.0, "a": 1.0}, "y": 1, "note": "{{"}',        # braces in a string
    b'{"x": {"a": {"b": 1, "b": 2}}, "y": 1}',                            # a nested object
    b'{"x": {"a": 1.0}, "y": [{"k": 1, "k": 2}]}',                        # an object in the labels
    b'{"x": [{"a": 1.0}, {"b": {"c": 1, "c": 2}}], "y": [1, 1]}',         # an object a level below a batch's
    b'{"x": [{"a": 1.0, "b": 2.0, "a": 1.0}], "y": ["a:b"]}',              # a colon in a string, in a batch
])
def test_a_repeated_key_is_refused_wherever_it_is(body):
    with pytest.raises(RequestError) as refused:
        decode_body(body)
    assert refused.value.status == 422 and "repeats the key" in refused.value.message


def test_strings_that_look_like_keys_or_objects_are_text():
    body = b'{"x": {"a\\":": 1.0, "{b}": 2.0, "c": "\\":{"}, "y": "\\":\\""}'
    assert decode_body(body) == {"x": {'a":': 1.0, "{b}": 2.0, "c": '":{'}, "y": '":"'}


@pytest.mark.parametrize("entries", ['"y": B', '"y": [1, B]', '"y": [[1], [B]]', '"y": 1, "sample_weight": B',
                                     '"y": 1, "id": B'])
def test_integers_past_64_bits_besides_the_features_stay_integers(entries):
    big = 123456789012345678901234567890
    body = ('{"x": {"a": 1.0}, ' + entries.replace("B", str(big)) + "}").encode()
    assert decode_body(body) == json.loads(body)
    assert repr(decode_body(body)) == repr(json.loads(body))  # ints, not floats


def test_an_integer_past_64_bits_among_the_features_is_read_as_pythons_reader_reads_it():
    big = 2 ** 70 + 1
    body = f'{{"x": {{"a": {big}}}, "y": 1}}'.encode()
    assert repr(decode_body(body)) == repr(json.loads(body))  # the int, exact: orjson would read a float


def test_colons_in_strings_do_not_hide_a_repeated_key():
    body = b'{"x": {"t": "12:30", "u": "http://a", "t": "13:00"}, "y": 1}'
    with pytest.raises(RequestError, match="repeats the key"):
        decode_body(body)
    assert decode_body(b'{"x": {"t": "12:30", "u": "http://a"}, "y": 1}') == {"x": {"t": "12:30", "u": "http://a"},
                                                                                "y": 1}


@pytest.mark.parametrize("body, status, words", [
    (b'{"x": {"a": NaN}, "y": 1}', 400, "not JSON"),
    (b'{"x": {"a": 1.0}, "y": 1', 400, "not valid JSON"),
    (b'[{"x": {"a": 1.0}, "y": 1}]', 400, "expected an object"),
    (b'{"x": {"\\ud800": 1.0}, "y": 1}', 422, "lone surrogate"),
])
def test_a_body_orjson_refuses_gets_the_strict_readers_answer(body, status, words):
    with pytest.raises(RequestError) as refused:
        decode_body(body)
    assert refused.value.status == status and words in refused.value.message


def test_a_number_past_a_float_reads_as_pythons_reader_reads_it():
    assert decode_body(b'{"x": {"a": 1e400}, "y": 1}')["x"]["a"] == float("inf")  # refused later, by the checks


@pytest.mark.parametrize("separators", [(", ", ": "), (",", ":"), (" ,", " : ")])
def test_a_plain_batch_is_decoded_by_orjson_alone(monkeypatch, separators):
    def strict(body):
        raise AssertionError("read by parse_json")

    monkeypatch.setattr("olearn.serve._fast_json.parse_json", strict)
    body = json.dumps(_batch(random.Random(5), 100), separators=separators).encode()
    assert decode_body(body) == json.loads(body)


@pytest.mark.parametrize("examples", [1, 60, 70, 400])  # bodies of 0.1, 3.8, 4.4 and 25 kB
def test_a_repeated_key_is_refused_in_a_small_body_and_in_a_large_one(examples):
    # the braces and colons of a body under 4 kB are counted byte by byte, those of a larger one by NumPy: the last
    # example repeats its key "a" (a 422 in either), and the same body without the repetition decodes as json reads it
    rng = random.Random(examples)
    xs = [{f"f{j}": round(rng.gauss(0, 1), 4) for j in range(4)} for _ in range(examples)]
    plain = json.dumps({"x": xs + [{"a": 1.0, "b": 2.0}], "y": [1] * (examples + 1)}).encode()
    repeated = plain.replace(b'{"a": 1.0, "b": 2.0}', b'{"a": 1.0, "a": 2.0}')
    assert repeated != plain and len(repeated) == len(plain)
    assert decode_body(plain) == json.loads(plain)
    with pytest.raises(RequestError) as refused:
        decode_body(repeated)
    assert refused.value.status == 422 and "repeats the key" in refused.value.message
