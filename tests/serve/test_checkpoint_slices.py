"""A checkpoint's waiting predictions are taken on the event loop as references to their records' texts, and
written in the snapshot's thread (an entry per record) a slice at a time (:func:`~olearn.serve._wal.write_in_slices`),
each slice written before the next is made: the record's bytes are those of the whole record framed as before,
and hold the predictions waiting when the copy was taken, not those kept or labelled after."""

import json
import os
import struct
import zlib

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve import _wal  # noqa: E402
from olearn.serve._wal import _SLICE_BYTES, RawJSON, RawJSONItems, read_checkpoint, read_log  # noqa: E402
from olearn.serve._wal import write_in_slices  # noqa: E402


def _written(path, record, before=b""):
    """The bytes of the file ``path`` once ``before`` and then ``record`` (by write_in_slices) are written to it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, before)
        write_in_slices(fd, record)
    finally:
        os.close(fd)
    with open(path, "rb") as fh:
        return fh.read()


def _framed(document):
    """A record as the log's format frames it (``<length> <crc32> <payload>``, little-endian uint32), its payload
    the compact JSON Python's writer makes of ``document``."""
    payload = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return struct.pack("<II", len(payload), zlib.crc32(payload)) + payload


@pytest.mark.parametrize("count", [0, 1, 3500])
def test_a_record_written_in_slices_is_the_record_framed_whole(count, tmp_path, monkeypatch):
    """Arrays of no item, one, and of more than three slices' bytes (their items' texts joined across the slices'
    edges; every other item given as its pieces, one a view of bytes), one nested in a dict and one at the top,
    among other values, written after other bytes of the file: the bytes of the framed record, after those."""
    items = [[f"p{i}", {"a": i % 7, "b": "caf\u00e9", "c": "x" * 1000}, 1.5] for i in range(count)]
    texts = [json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode() for item in items]
    given = [(text[:5], memoryview(text)[5:-3], text[-3:]) if i % 2 else text for i, text in enumerate(texts)]
    record = {"op": "checkpoint", "seq": 3, "pending": {"waiting": RawJSONItems(given), "labelled": [("q", 2)]},
              "window": [["r", 1, None, {"y": 1}]], "kept": RawJSONItems(given[:2]), "version": None}
    expected = _framed({"op": "checkpoint", "seq": 3, "pending": {"waiting": items, "labelled": [["q", 2]]},
                        "window": [["r", 1, None, {"y": 1}]], "kept": items[:2], "version": None})
    writes, write_all = [], _wal.write_all
    monkeypatch.setattr(_wal, "write_all", lambda fd, buffers: writes.append(sum(map(len, buffers)))
                        or write_all(fd, buffers))
    assert _written(tmp_path / "log", record, before=b"head") == b"head" + expected
    if count > 1:  # no write holds the whole array
        assert sum(map(len, texts)) > 3 * _SLICE_BYTES and max(writes) < sum(map(len, texts)) / 2


def test_each_slice_is_written_before_the_next_is_made(tmp_path):
    """The items of an array of three slices' bytes, made one by one: when the last is made, the slices before it
    are in the file already (the bytes of the record's start), and the header is written once they all are (zeros
    until then: a file cut there holds no whole checkpoint)."""
    path = tmp_path / "log"
    texts = [json.dumps(["x" * 1000, i], separators=(",", ":")).encode() for i in range(3 * _SLICE_BYTES // 1000)]
    seen = []

    def items():
        yield from texts[:-1]
        seen.append(path.read_bytes())  # the file when the last item is made
        yield texts[-1]

    data = _written(path, {"op": "checkpoint", "waiting": RawJSONItems(items())})
    assert data == _framed({"op": "checkpoint", "waiting": [json.loads(text) for text in texts]})
    assert len(seen[0]) > 2 * _SLICE_BYTES
    assert seen[0][:8] == bytes(8) and seen[0][8:] == data[8:len(seen[0])]
    (tmp_path / "cut").write_bytes(seen[0])
    assert read_checkpoint(tmp_path / "cut") is None


@pytest.mark.parametrize("other", [2 ** 70, RawJSON(b'"a\x00b"')])
def test_a_record_whose_json_cannot_hold_a_slot_is_framed_whole(other, tmp_path):
    """An integer past 64 bits (written by Python's writer) or a NUL byte placed elsewhere: the same bytes."""
    record = {"waiting": RawJSONItems([b"[1]", b"[2]"]), "other": other}
    payload = b'{"waiting":[[1],[2]],"other":' + (b"1180591620717411303424" if other == 2 ** 70 else other.text) \
        + b"}"
    assert _written(tmp_path / "log", record) == struct.pack("<II", len(payload), zlib.crc32(payload)) + payload


def test_a_snapshot_copy_holds_the_predictions_waiting_when_it_was_taken(tmp_path):
    """Predictions kept, then a copy taken; more kept and some labelled afterwards (while its files would be
    written): its checkpoint, written after, holds exactly those waiting at the copy, in order, with the ids
    labelled by then."""
    model = ServedModel(olearn.PAClassifier(), pending=Pending(ttl=1e9, max_pending=100))
    model.keep(["a", "b", "c"], [{"x": 1.0}, {"y": 2.0}, {"x": -1.0}], 10.0)
    model.pending.learned(["b"], 1)
    copied = model.snapshot_copy()
    model.keep(["d"], [{"z": 3.0}], 11.0)
    model.pending.learned(["a"], 2)
    path = tmp_path / "log"
    _written(path, copied.checkpoint)
    pending = read_log(path)[0][0]["pending"]
    assert pending == {"waiting": [[["a", "c"], [{"x": 1.0}, {"x": -1.0}], 10.0]], "labelled": [["b", 1]]}


def test_a_checkpoint_holds_the_waiting_predictions_and_the_labelled_ids_oldest_first():
    """Kept a, b, c, d; b labelled, then a kept again (a replay's id: its place is the newest), c expired, more
    labelled than the window holds: the checkpoint's order is that of the predictions' life, d then a, and the
    last two labelled, in the order they were."""
    pending = Pending(ttl=10.0, max_pending=10, labelled_window=2)
    pending.add(["c"], [{"x": 3.0}], 1.0)
    pending.add(["a", "b", "d"], [{"x": 1.0}, {"x": 2.0}, {"x": 4.0}], 5.0)
    pending.learned(["b"], 1)
    pending.add(["a"], [{"x": 5.0}], 6.0)
    pending.expire(12.0)
    pending.add(["e", "f"], [{}, {}], 7.0)
    pending.learned(["f", "e"], 2)
    state = json.loads(json.dumps({"waiting": json.loads(pending.state()["waiting"].text),
                                   "labelled": pending.state()["labelled"]}))
    # the keeps of fewer than 16 predictions share a record: d and a in one entry, with their times
    assert state == {"waiting": [[["d", "a"], [{"x": 4.0}, {"x": 5.0}], [5.0, 6.0]]],
                     "labelled": [["f", 2], ["e", 2]]}


def test_a_snapshot_copy_holds_the_recent_update_ids_of_when_it_was_taken(tmp_path):
    """Two update ids remembered, then a copy taken; a third remembered after it pushes the first out of a window of
    two: the checkpoint, written after, holds the two of the copy, oldest first, with their seqs, digests and
    answers."""
    model = ServedModel(olearn.PAClassifier(), window=2)
    model.remember("u1", 1, "d1", {"seq": 1, "learned": 1})
    model.remember("u2", 3, "d2", {"seq": 3, "learned": 2})
    copied = model.snapshot_copy()
    model.remember("u3", 4, "d3", {"seq": 4, "learned": 1})
    assert list(model.recent) == ["u2", "u3"]
    path = tmp_path / "log"
    _written(path, copied.checkpoint)
    assert read_log(path)[0][0]["window"] == [["u1", 1, "d1", {"seq": 1, "learned": 1}],
                                              ["u2", 3, "d2", {"seq": 3, "learned": 2}]]
