"""The predictions of one ``/predict`` are kept as one record: labelled, evicted, repeated or compacted, the waiting
ones keep their features, their order (the order they were kept in, a prediction kept again the newest), their bytes
and their checkpoint entries, as they did when each was kept on its own."""

import json

import pytest
from serve_helpers import require_serve_extra

require_serve_extra()

from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._wal import json_bytes  # noqa: E402
from olearn.serve._packed_batch import read_packed_features  # noqa: E402
from olearn.serve._requests import Limits  # noqa: E402


def _by_request(ttl=100.0, max_pending=10):
    """Pending keeping each ``/predict``'s predictions as one record of their own, however few (none coalesced)."""
    pending = Pending(ttl=ttl, max_pending=max_pending)
    pending.small = 1
    return pending


def _size(x):
    return len(json.dumps(x, separators=(",", ":")))


def _entries(pending):
    """The checkpoint's waiting predictions, one ``[id, x, time]`` each (its entries are one per record, with one time,
    or a list of the times of its predictions)."""
    return [[key, x, created] for ids, xs, times in json.loads(pending.state()["waiting"].text)
            for key, x, created in zip(ids, xs, times if type(times) is list else [times] * len(ids))]


def test_a_record_mostly_labelled_is_compacted_and_its_waiting_predictions_keep_their_features():
    """a..f kept together, g and h later; b, c, d, e labelled: a and f are left (2 of 6, fewer than half), and their
    record then holds their two texts only, in an array: 2 + the texts' bytes + 1 comma + 2 brackets."""
    pending = _by_request()
    xs = {key: {"f": float(i), "name": key * (i + 1)} for i, key in enumerate("abcdefgh")}
    pending.add([*"abcdef"], [xs[key] for key in "abcdef"], 1.0)
    pending.add([*"gh"], [xs["g"], xs["h"]], 2.0)
    pending.learned([*"bcde"], 7)
    assert list(pending.waiting) == [*"afgh"]
    assert pending.features(["f", "a", "h"]) == [xs["f"], xs["a"], xs["h"]]
    assert pending.bytes == sum(_size(xs[key]) for key in "afgh")
    first = next(iter(pending.kept.values()))
    assert first.ids == ("a", "f") and len(first.text) == _size(xs["a"]) + _size(xs["f"]) + 3
    assert _entries(pending) == [["a", xs["a"], 1.0], ["f", xs["f"], 1.0], ["g", xs["g"], 2.0], ["h", xs["h"], 2.0]]
    pending.learned(["a", "f"], 8)
    assert len(pending.kept) == 1  # a record none of whose predictions waits is dropped


def test_a_batch_read_from_its_body_keeps_the_body_until_most_of_it_is_labelled():
    body = b'{"x": [{"a": 1.5}, {"b": -2},\n {"c": 3e2}, {"d": 0.25}], "id": ["p", "q", "r", "s"]}'
    examples, document = read_packed_features(body, Limits(), ("x", "id"))
    pending = _by_request()
    record = pending.add(document["id"], examples.kept_features(), 5.0, checked=True)
    assert json.loads(record.text) == [{"a": 1.5}, {"b": -2}, {"c": 300.0}, {"d": 0.25}]
    assert next(iter(pending.kept.values())).text is body  # no copy of the examples' bytes
    pending.learned(["p", "r"], 1)
    assert next(iter(pending.kept.values())).text is body  # half still wait
    pending.learned(["s"], 2)
    assert next(iter(pending.kept.values())).text == b'[{"b": -2}]'  # copied out: the body is released
    assert pending.features(["q"]) == [{"b": -2}] and pending.bytes == len('{"b": -2}')
    assert _entries(pending) == [["q", {"b": -2}, 5.0]]


def test_a_checkpoint_has_an_entry_per_record_and_restores_as_one_of_entries_per_prediction_did():
    """The entries of records all of whose predictions wait, of a record compacted and of one partly labelled (its
    waiting ones only); restored, the same predictions wait in the same order with the same features, as they do
    from a checkpoint written before records (an entry per prediction)."""
    body = b'{"x":[{"a":1}, {"b":2},{"c":3}]}'
    examples, _ = read_packed_features(body, Limits(), ("x",))
    pending = _by_request()
    pending.add(["p", "q", "r"], examples.kept_features(), 1.0, checked=True)
    pending.add(["s", "t", "u", "v"], [{"d": 4}, {"e": 5}, {"f": 6}, {"g": 7}], 2.0)
    pending.add(["w"], [{"h": 8}], 2.5)
    pending.learned(["q", "t"], 1)
    entries = [[["p", "r"], [{"a": 1}, {"c": 3}], 1.0], [["s", "u", "v"], [{"d": 4}, {"f": 6}, {"g": 7}], 2.0],
               [["w"], [{"h": 8}], 2.5]]
    assert json.loads(pending.state()["waiting"].text) == entries
    per_prediction = [[key, x, created] for ids, xs, created in entries for key, x in zip(ids, xs)]
    for waiting in (entries, per_prediction):
        for restored in (_by_request(), Pending(ttl=100.0, max_pending=10)):
            restored.restore(json.loads(json_bytes({"waiting": waiting, "labelled": [["q", 1], ["t", 1]]})))
            assert list(restored.waiting) == [*"prsuvw"] and restored.labelled == {"q": 1, "t": 1}
            assert restored.features([*"prsuvw"]) == [{"a": 1}, {"c": 3}, {"d": 4}, {"f": 6}, {"g": 7}, {"h": 8}]
            assert _entries(restored) == per_prediction
    restored = _by_request()
    restored.restore(json.loads(json_bytes({"waiting": entries, "labelled": []})))
    assert json.loads(restored.state()["waiting"].text) == entries  # an entry per record, as it was


@pytest.mark.parametrize("small", [1, 16], ids=["by request", "coalesced"])
def test_the_oldest_predictions_past_max_pending_go_first_within_a_record_too(small):
    pending = Pending(ttl=100.0, max_pending=5)
    pending.small = small
    pending.add([*"abc"], [{"k": key} for key in "abc"], 1.0)
    pending.add([*"defg"], [{"k": key} for key in "defg"], 2.0)
    assert list(pending.waiting) == [*"cdefg"] and pending.bytes == 5 * _size({"k": "a"})
    pending.add(["h"], [{"k": "h"}], 3.0)
    assert list(pending.waiting) == [*"defgh"]
    assert _entries(pending) == [[key, {"k": key}, 2.0] for key in "defg"] + [["h", {"k": "h"}, 3.0]]


@pytest.mark.parametrize("small", [1, 16], ids=["by request", "coalesced"])
def test_an_id_kept_again_takes_its_newest_place_as_when_each_was_kept_on_its_own(small):
    """A replay keeps a waiting id again (its place the newest, its features the new ones), and an id repeated
    within one record keeps its last place."""
    pending = Pending(ttl=100.0, max_pending=10)
    pending.small = small
    pending.add([*"abc"], [{"v": 1}, {"v": 2}, {"v": 3}], 1.0)
    pending.add(["b", "d"], [{"v": 4}, {"v": 5}], 2.0)
    assert list(pending.waiting) == [*"acbd"]
    assert pending.features(["b"]) == [{"v": 4}]
    pending.add(["e", "f", "e"], [{"v": 6}, {"v": 7}, {"v": 8}], 3.0)
    assert list(pending.waiting) == [*"acbdfe"]
    assert pending.features(["e", "f"]) == [{"v": 8}, {"v": 7}]
    assert pending.bytes == 6 * _size({"v": 1})
    assert _entries(pending) == [["a", {"v": 1}, 1.0], ["c", {"v": 3}, 1.0], ["b", {"v": 4}, 2.0],
                                 ["d", {"v": 5}, 2.0], ["f", {"v": 7}, 3.0], ["e", {"v": 8}, 3.0]]
