"""An update's request body is logged as received (one record: a marker byte, a JSON header line, the body's
bytes) and replayed to the same examples as the route read; logs of JSON records, as written before, still
replay, beside the new records."""

import asyncio
import json
import struct
import zlib

import pytest

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._fast_json import parse_json_fast  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, read_labelled, read_request_id  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import LogDamaged, encode, encode_body, read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402

# bodies as clients write them: spaces, key orders, escapes, UTF-8, weights, a request id, shortest and long floats,
# a run of 19 digits (read by the strict reader), categories
BODIES = [
    b'{"x": [{"f1": 0.1, "caf\\u00e9": 1e-05}, {"f2": -3}], "y": [1, -1], "id": "req-1"}',
    b'{ "y" : -1 ,\n "x" : {"f1":2.5,"colour":"red"} }',
    b'{"x":[{"f1":1},{"f4":0.30000000000000004,"f1":-7}],"y":[-1,1],"sample_weight":[0.5,2]}',
    '{"x": {"\u00e9t\u00e9": 7.25, "f2": 1E2}, "y": 1}'.encode(),
    b'{"x": {"f5": 1234567890123456789012, "f1": 0.5}, "y": -1}',
    # a key's end in a string: the route reads it by the strict reader, the replay by orjson
    b'{"x": [{"note": "a\\": b", "f1": 1}, {"f2": 0.25}], "y": [-1, 1]}',
]


def _by_hand(header, body):
    """The documented record: length and CRC-32 of the payload (uint32 LE each), then the payload: the byte 1,
    the header as compact JSON, a newline, the body."""
    payload = b"\x01" + json.dumps(header, separators=(",", ":")).encode() + b"\n" + body
    return struct.pack("<II", len(payload), zlib.crc32(payload)) + payload


def test_a_body_record_is_a_marker_a_header_line_and_the_body_as_received(tmp_path):
    header = {"op": "learn", "seq": 2, "digest": None}
    assert encode_body(header, BODIES[1]) == _by_hand(header, BODIES[1])
    path = tmp_path / "log.wal"
    path.write_bytes(encode({"op": "checkpoint", "seq": 0}) + _by_hand(header, BODIES[1]))
    records, valid = read_log(path)
    assert records == [{"op": "checkpoint", "seq": 0}, {**header, "body": BODIES[1]}]
    assert valid == path.stat().st_size


def test_a_damaged_body_record_is_torn_at_the_end_and_damage_before_a_valid_one(tmp_path):
    whole = encode({"op": "checkpoint", "seq": 0})
    body = _by_hand({"op": "learn", "seq": 1, "digest": None}, BODIES[0])
    flipped = body[:-3] + bytes([body[-3] ^ 1]) + body[-2:]  # a bit of the body's bytes: its CRC is wrong
    path = tmp_path / "log.wal"
    path.write_bytes(whole + flipped)
    assert read_log(path) == ([{"op": "checkpoint", "seq": 0}], len(whole))
    path.write_bytes(whole + flipped + _by_hand({"op": "learn", "seq": 2, "digest": None}, BODIES[1]))
    with pytest.raises(LogDamaged) as caught:
        read_log(path)
    assert (caught.value.record, caught.value.offset, caught.value.following) == (1, len(whole), 1)


def _run(tmp_path, updates):
    """Learn ``updates`` (each a body, or None for one example logged as a JSON record, as VW's daemon
    protocol and the logs written before bodies were kept log it) through a writer: the learner it leaves."""
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        limits = Limits()
        limits.feature_keys = model.feature_keys
        writer = Writer(model, store, Metrics())
        writer.start()
        for body in updates:
            document = parse_json_fast(body or b'{"x": {"f9": 1.5, "f1": -1}, "y": 1}')
            examples = read_labelled(document, limits)
            await writer.update("learn", examples, read_request_id(document), body)
        await writer.stop()
        return model

    return asyncio.run(scenario())


def test_bodies_are_logged_as_received_and_replay_to_the_same_model(tmp_path):
    live = _run(tmp_path, [None, *BODIES])
    [log] = (tmp_path / "state").glob("log-*.wal")
    records, _ = read_log(log)
    assert [r.get("body") for r in records[1:]] == [None, *BODIES]
    assert records[1]["x"] == [{"f9": 1.5, "f1": -1}]  # the JSON record, as before
    assert [r["seq"] for r in records[1:]] == [1, 3, 4, 6, 7, 8, 10]
    store = Store(tmp_path / "state")
    replayed = store.open(lambda: pytest.fail("a fresh start"), say=lambda text: None)
    store.close()
    assert replayed.seq == live.seq == 10
    assert_same_model(replayed.estimator, live.estimator)
    assert [*replayed.recent.items()] == [*live.recent.items()] and next(iter(replayed.recent)) == "req-1"
    # the reference: the same examples learned offline, in the order sent, each batch by one partial_fit
    offline = olearn.PAClassifier()
    for body in [b'{"x": [{"f9": 1.5, "f1": -1}], "y": [1]}', *BODIES]:
        document = json.loads(body)
        xs, ys = document["x"], document["y"]
        xs, ys = (xs, ys) if isinstance(xs, list) else ([xs], [ys])
        offline.partial_fit(xs, ys, sample_weight=document.get("sample_weight"))
    assert_same_model(replayed.estimator, offline)


def test_a_service_logs_the_request_body_byte_for_byte_and_recovers_it_after_kill_9(serve, tmp_path):
    server = serve(["--algo", "pa1", "--max-pending", "0"])
    probe = {"x": [{"f1": 1.0, "colour": "red"}, {"f2": -2.0, "f5": 3.0}]}
    with server.client() as client:
        for body in BODIES:
            response = client.post("/learn", content=body, headers={"Content-Type": "application/json"})
            assert response.status_code == 200, response.text
        before = client.post("/predict", json=probe).json()
    [log] = (tmp_path / "state").glob("log-*.wal")
    assert [r["body"] for r in read_log(log)[0][1:]] == BODIES  # acknowledged: on disk as sent
    server.kill()
    server.start()
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 9
        assert client.post("/predict", json=probe).json() == before
