"""The features a ``/predict`` keeps for feedback: written once as JSON text, which the checkpoint and the log record
place as they are (the same JSON as before)."""

import json

from conftest import require_serve_extra

require_serve_extra()
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._wal import RawJSON, encode, json_bytes  # noqa: E402


def test_a_checkpoint_of_waiting_predictions_is_the_json_of_their_entries():
    """The waiting predictions' checkpoint reads back as ``[[id, x, time], ...]`` (what ``json`` writes of them),
    a label reads back the features kept, and a checkpoint that ``json`` must write (an integer past 64 bits
    elsewhere in it) holds the same entries."""
    pending = Pending(ttl=100.0, max_pending=10)
    xs = [{"a": 0.1, "b": -2, "c": "Paris", "d": None}, {"e": 1e-300, "f": -0.0, "g": 12345678901234567890123},
          {"caf\u00e9": True}]
    record = {"op": "predict", "ids": ["p1", "p2", "p3"], "x": pending.add(["p1", "p2", "p3"], xs, 1.5), "t": 1.5}
    assert json.loads(encode(record)[8:]) == {"op": "predict", "ids": ["p1", "p2", "p3"], "x": xs, "t": 1.5}
    pending.learned(["p2"], 7)
    state = pending.state()
    expected = {"waiting": [["p1", xs[0], 1.5], ["p3", xs[2], 1.5]], "labelled": [["p2", 7]]}
    assert json.loads(json_bytes(state)) == expected
    assert json.loads(json_bytes({"pending": state, "big": 2 ** 70})) == {"pending": expected, "big": 2 ** 70}
    assert pending.features(["p3", "p1"]) == [xs[2], xs[0]]
    assert pending.bytes == sum(len(json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode())
                                for x in (xs[0], xs[2]))
    restored = Pending(ttl=100.0, max_pending=10)
    restored.restore(json.loads(json_bytes(state)))
    assert json_bytes(restored.state()) == json_bytes(state)
    assert isinstance(state["waiting"], RawJSON)
