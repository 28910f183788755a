"""The write-ahead log's format and its recovery from torn writes, and the state folder's recovery between
the steps of a snapshot (in process: no server)."""

import asyncio
import json
import os
import struct
import zlib

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, parse_json, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import LogWriter, encode, read_log  # noqa: E402


def _by_hand(record):
    """The documented format: length (uint32 LE), CRC-32 of the payload (uint32 LE), the JSON payload."""
    payload = json.dumps(record, separators=(",", ":")).encode()
    return struct.pack("<II", len(payload), zlib.crc32(payload)) + payload


def test_records_are_length_crc_and_json(tmp_path):
    records = [{"op": "checkpoint", "seq": 0}, {"op": "learn", "x": [{"1": 0.5}], "y": [1]}]
    assert [encode(r) for r in records] == [_by_hand(r) for r in records]
    path = tmp_path / "log.wal"
    path.write_bytes(b"".join(_by_hand(r) for r in records))
    assert read_log(path) == (records, path.stat().st_size)


@pytest.mark.parametrize("damage", ["cut in the payload", "cut in the header", "flipped byte"])
def test_a_torn_last_record_is_dropped_and_overwritten(tmp_path, damage):
    whole = [_by_hand({"seq": i}) for i in range(3)]
    torn = _by_hand({"seq": 3, "x": "a longer record"})
    if damage == "cut in the payload":
        torn = torn[:-5]
    elif damage == "cut in the header":
        torn = torn[:6]
    else:
        torn = torn[:12] + bytes([torn[12] ^ 1]) + torn[13:]
    path = tmp_path / "log.wal"
    path.write_bytes(b"".join(whole) + torn)
    records, valid = read_log(path)
    assert records == [{"seq": i} for i in range(3)] and valid == len(b"".join(whole))
    writer = LogWriter(str(path), valid_length=valid)
    writer.append([encode({"seq": 4})])
    writer.close()
    assert read_log(path)[0] == [{"seq": i} for i in (0, 1, 2, 4)]


def _learn(model, store, body):
    examples = read_labelled(parse_json(json.dumps(body)), Limits())
    answer = model.apply("learn", examples)
    store.append([encode(ServedModel.record("learn", examples, None, None, answer))])


def _reopen(folder, keep=1):
    store = Store(folder, keep=keep)
    model = store.open(lambda: pytest.fail("a fresh start"), say=lambda text: None)
    return store, model


def _state(folder):
    """The snapshots and logs in ``folder`` (not its lock)."""
    return sorted(name for name in os.listdir(folder) if name != "lock")


def test_recovery_between_the_steps_of_a_snapshot(tmp_path):
    folder = tmp_path / "state"
    store = Store(folder, keep=1)
    model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
    assert _state(folder) == ["log-0000000000000000.wal"]  # nothing learned: no snapshot yet
    for i in range(3):
        _learn(model, store, {"x": {"1": 1.0, "name": i}, "y": (-1) ** i})
    store.snapshot(model)
    assert _state(folder) == ["log-0000000000000003.wal", "snapshot-0000000000000003.npz"]
    _learn(model, store, {"x": {"other": 1.0, "1": 0.5}, "y": 1})
    expected = model.estimator.coef_.copy()
    store.close()
    # a crash after the next snapshot's model file, before its log: the older pair is used, the orphan removed
    olearn.PAClassifier().learn_one({0: 1.0}, 1).save(folder / "snapshot-0000000000000009.npz")
    (folder / "log-0000000000000009.wal").write_bytes(encode({"op": "checkpoint", "seq": 9})[:-3])
    store, model = _reopen(folder)
    assert model.seq == 4 and (model.estimator.coef_ == expected).all()
    assert _state(folder) == ["log-0000000000000003.wal", "snapshot-0000000000000003.npz"]
    # a crash after the new log, before the old pair is removed: the newer pair is used
    store.snapshot(model)
    store.close()
    olearn.PAClassifier().learn_one({0: 1.0}, 1).save(folder / "snapshot-0000000000000003.npz")
    store, model = _reopen(folder)
    assert model.seq == 4 and (model.estimator.coef_ == expected).all()
    assert _state(folder) == ["log-0000000000000004.wal", "snapshot-0000000000000004.npz"]
    store.close()


def test_a_folder_without_a_usable_log_is_refused(tmp_path):
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "log-0000000000000000.wal").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="no usable log"):
        Store(folder).open(lambda: olearn.PAClassifier(), say=lambda text: None)


def test_the_writer_snapshots_after_t_seconds_and_then_sleeps(tmp_path):
    from olearn.serve._metrics import Metrics
    from olearn.serve._writer import Writer

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=1000, snapshot_seconds=0.05)
        writer.start()
        examples = read_labelled(parse_json('{"x": {"1": 1.0}, "y": 1}'), Limits())
        assert await writer.update("learn", examples, None) == {"seq": 1, "learned": 1}
        await asyncio.sleep(0.5)
        snapshots = _state(tmp_path / "state")
        turns = []
        original = writer._snapshot_due  # asked once at the end of every turn of the writer

        def counted():
            turns.append(1)
            return original()

        writer._snapshot_due = counted
        await asyncio.sleep(0.5)  # idle, its state all in the snapshot: the writer waits, it does not spin
        await writer.stop()
        return snapshots, turns

    snapshots, turns = asyncio.run(scenario())
    # the first state (a checkpoint naming the learner) is kept too: the last 3 are; the snapshot took a version
    assert snapshots == ["log-0000000000000000.wal", "log-0000000000000001.wal", "snapshot-0000000000000001.npz",
                         "version-0000000001.npz", "versions.json"]
    assert turns == []


def test_a_log_that_cannot_be_written_stops_the_writer(tmp_path):
    from olearn.serve._metrics import Metrics
    from olearn.serve._writer import Writer, WriterStopped

    failures = []

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)

        def full_disk(records):
            raise OSError(28, "No space left on device")

        store.append = full_disk
        writer = Writer(model, store, Metrics(), on_failure=failures.append)
        writer.start()
        examples = read_labelled(parse_json('{"x": {"1": 1.0}, "y": 1}'), Limits())
        with pytest.raises(WriterStopped, match="No space left on device"):
            await writer.update("learn", examples, None)
        with pytest.raises(WriterStopped):
            await writer.update("learn", examples, None)
        await writer.stop()

    asyncio.run(scenario())
    assert len(failures) == 1 and isinstance(failures[0], OSError)


def test_records_read_back_every_number_exactly(tmp_path):
    """A record's floats come back bit for bit (shortest round-trip text), and an integer past 64 bits (a label a
    request may carry) whole."""
    import numpy as np

    rng = np.random.default_rng(0)
    floats = [5e-324, 2.2250738585072014e-308, 1e16, 1e-05, 0.1, -0.0, 1.7976931348623157e308,
              *rng.standard_normal(50).tolist(), *(10.0 ** rng.uniform(-300, 300, 50)).tolist()]
    record = {"op": "learn", "x": [{f"f{i}": value for i, value in enumerate(floats)}, {"été": 1, "k": "ü"}],
              "y": [2 ** 70 + 1, -(2 ** 63)], "w": None, "batch": True}
    path = tmp_path / "log.wal"
    writer = LogWriter(str(path))
    writer.append([encode(record)])
    writer.close()
    [back], _ = read_log(path)
    assert back == record
    assert [struct.pack("<d", v) for v in back["x"][0].values()] == [struct.pack("<d", v) for v in floats]


@pytest.mark.parametrize("most", [None, 7])
def test_buffers_are_written_whole_and_in_order(tmp_path, monkeypatch, most):
    """More buffers than one writev takes (IOV_MAX), empty ones and views of bytes among them, after bytes already
    in the file; with ``most``, a system call that writes at most 7 bytes each time (a partial write, cutting
    buffers anywhere): the file holds the bytes before, then every buffer's bytes, in order."""
    from olearn.serve import _wal

    calls = []
    if most is not None:
        def partial(fd, views):
            calls.append(len(views))
            return os.write(fd, b"".join(views)[:most])

        monkeypatch.setattr(_wal, "_writev", partial)
    buffers = [bytes([i % 251]) * (i % 13) for i in range(3000)]
    buffers[5::7] = [memoryview(b"ab" + bytes(i) + b"cd")[1:-1] for i in range(len(buffers[5::7]))]
    path = tmp_path / "file"
    path.write_bytes(b"before")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        _wal.write_all(fd, buffers)
    finally:
        os.close(fd)
    assert path.read_bytes() == b"before" + b"".join(bytes(b) for b in buffers)
    assert calls == [] if most is None else max(calls) == 1024
