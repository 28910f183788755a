"""The log's records are read by orjson as Python's reader reads them: an integer past 64 bits (which orjson reads
as a float) stays an int, and a record orjson would not read is read by Python's reader."""

import json

from olearn.serve._wal import encode, json_bytes, json_value, read_log


def test_a_record_of_an_integer_past_64_bits_reads_back_an_int(tmp_path):
    big = 2 ** 70 + 1  # not a float: 2**70 + 1 rounds to 2**70
    records = [{"op": "learn", "seq": 1, "x": [{"a": big}], "y": [big]},
               {"op": "learn", "seq": 2, "x": [{"a": 0.1, "b": -3}], "y": ["caf\u00e9"]}]
    path = tmp_path / "log"
    path.write_bytes(b"".join(map(encode, records)))
    read, length = read_log(path)
    assert read == records and length == path.stat().st_size
    assert type(read[0]["y"][0]) is int and read[0]["y"][0] == big


def test_json_value_reads_as_pythons_reader():
    for payload in [b'{"a": 1e-320, "b": [1, 2.5, "x"], "c": null}', b'{"n": 12345678901234567890123}',
                    b'{"s": "\\ud83d\\ude00 \\u00e9"}']:
        value = json_value(payload)
        assert value == json.loads(payload)
        assert [type(v) for v in value.values()] == [type(v) for v in json.loads(payload).values()]


def test_json_bytes_writes_utf8_json_that_reads_back():
    value = {"city": "S\u00e3o Paulo", "n": 2 ** 70, "f": 0.1}
    assert json.loads(json_bytes(value)) == value
    assert json_bytes({"city": "S\u00e3o Paulo"}) == '{"city":"S\u00e3o Paulo"}'.encode()


def test_long_digits_finds_a_run_of_19_digits_anywhere():
    from olearn.serve._wal import long_digits

    nineteen = b"1234567890123456789"
    for payload in [nineteen, b'{"a":' + nineteen + b"}", nineteen + b"}", b'"' + nineteen + b'0"', b"x" + nineteen]:
        assert long_digits(payload), payload
    for payload in [b"", nineteen[1:], b'{"a":123456789012345678,"b":1.23456789012345678}', b"12345678901.23456789"]:
        assert not long_digits(payload), payload
