"""A snapshot copied while the open group holds updates applied before the copy, and written before that group is
logged: those updates belong to the log in use (the copy holds them), not to the snapshot's new log."""

import asyncio
import os
import threading

from serve_helpers import PATIENCE, require_serve_extra, settled

require_serve_extra()

import numpy as np  # noqa: E402

import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402

_XS = [{"a": 1.0, "b": -0.5}, {"a": -1.0, "c": 2.0}, {"b": 1.5}]
_YS = [1, -1, 1]


def _records(folder, seq):
    return [(record["op"], record.get("seq")) for record in read_log(os.path.join(folder, f"log-{seq:016d}.wal"))[0]]


def test_updates_applied_before_a_snapshot_copy_are_logged_before_its_log_takes_over(tmp_path, monkeypatch):
    """--snapshot-every 2: update 1's group is being logged (held) when update 2 is applied, which makes the
    snapshot of 2 due: the model is copied with update 2 in the open group. The snapshot's files are written before
    the log of update 1 is released. Update 2 must then be logged to the log in use before the new log takes over
    (the new log holding it after the checkpoint of 2 made a state that no restart could replay: "the log's update
    2 replays as update 3")."""
    folder = str(tmp_path / "state")
    appending, released, written = threading.Event(), threading.Event(), threading.Event()
    append, write_snapshot = Store.append, Store.write_snapshot

    def held_append(store, records):
        if not appending.is_set():  # the first group: held until the snapshot's files are written
            appending.set()
            released.wait(PATIENCE)  # a hang guard only
        return append(store, records)

    def noted_write(store, copied):
        partial = write_snapshot(store, copied)
        written.set()
        return partial

    monkeypatch.setattr(Store, "append", held_append)
    monkeypatch.setattr(Store, "write_snapshot", noted_write)

    def one(i):
        return read_labelled({"x": [_XS[i]], "y": [_YS[i]]}, Limits())

    async def scenario():
        loop = asyncio.get_running_loop()
        store = Store(folder)
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=2, snapshot_seconds=3600.0)
        writer.start()
        try:
            first = asyncio.ensure_future(writer.update("learn", one(0), None))
            assert await loop.run_in_executor(None, appending.wait, PATIENCE)  # group 1 is being logged
            second = asyncio.ensure_future(writer.update("learn", one(1), None))  # taken; a snapshot of 2 copied
            assert await loop.run_in_executor(None, written.wait, PATIENCE)
            await asyncio.wait([writer._snapshot[1]])  # the snapshot's task done: its log may take over next
            released.set()
            assert (await first)["seq"] == 1 and (await second)["seq"] == 2
            assert (await writer.update("learn", one(2), None))["seq"] == 3
            await settled(writer)
            return model.estimator.decision_function(_XS)
        finally:
            released.set()
            await writer.stop()

    served = asyncio.run(scenario())
    monkeypatch.setattr(Store, "append", append)
    monkeypatch.setattr(Store, "write_snapshot", write_snapshot)
    assert _records(folder, 0) == [("checkpoint", 0), ("learn", 1), ("learn", 2)]  # update 2 in the log in use
    assert _records(folder, 2) == [("checkpoint", 2), ("learn", 3)]  # the new log: after its copy only
    recovered = Store(folder).open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    assert recovered.seq == 3
    np.testing.assert_array_equal(recovered.estimator.decision_function(_XS), served)
