"""A snapshot's files are written from a copy of the model while the writer learns on: the updates that arrive
meanwhile are applied and acknowledged (logged to the log in use), then appended to the snapshot's log after its
checkpoint when it takes over. A stop before that leaves a partial log, which recovery removes: the log in use holds
every acknowledged update."""

import asyncio
import os
import threading

from serve_helpers import PATIENCE, require_serve_extra, settled

require_serve_extra()

import numpy as np  # noqa: E402

import olearn  # noqa: E402
from olearn.serve import _store  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import encode, read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402

_XS = [{"a": 1.0, "b": -0.5}, {"a": -1.0, "c": 2.0}, {"b": 1.5}, {"c": -1.0, "d": 0.5}, {"a": 0.5, "d": 1.0},
       {"b": -2.0, "c": 0.25}]
_YS = [1, -1, 1, -1, 1, -1]


def _examples(start, stop):
    return read_labelled({"x": _XS[start:stop], "y": _YS[start:stop]}, Limits())


def _open(folder, messages=None):
    say = (lambda text: None) if messages is None else messages.append
    return Store(folder).open(lambda: olearn.PAClassifier(), pending=Pending(), say=say)


def _log(folder, seq):
    return [(record["op"], record["seq"]) for record in read_log(os.path.join(folder, f"log-{seq:016d}.wal"))[0]]


def test_updates_are_acknowledged_while_a_snapshot_is_written_and_its_log_holds_them(tmp_path, monkeypatch):
    """--snapshot-every 3: the first 3 examples make a snapshot due, whose model file is held; a 4th is learned and
    acknowledged meanwhile (before: they waited for it). Its log then holds it after its checkpoint, a 5th goes to
    it, and a restart from it replays them to the model served."""
    folder = str(tmp_path / "state")
    order, entered, released = [], threading.Event(), threading.Event()
    save = _store.save

    def held_save(estimator, path, input_info=None):
        entered.set()
        released.wait(PATIENCE)  # a hang guard only
        order.append("snapshot saved")
        return save(estimator, path, input_info)

    monkeypatch.setattr(_store, "save", held_save)

    async def scenario():
        store = Store(folder)
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=3, snapshot_seconds=3600.0)
        writer.start()
        try:
            assert (await writer.update("learn", _examples(0, 3), None))["seq"] == 3
            assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, PATIENCE)
            assert (await writer.update("learn", _examples(3, 4), None))["seq"] == 4
            order.append("acknowledged")
            released.set()
            await settled(writer)
            assert (await writer.update("learn", _examples(4, 5), None))["seq"] == 5
            return model.estimator.decision_function(_XS)
        finally:
            await writer.stop()

    served = asyncio.run(scenario())
    assert order == ["acknowledged", "snapshot saved"]
    assert _log(folder, 0) == [("checkpoint", 0), ("learn", 3), ("learn", 4)]
    assert _log(folder, 3) == [("checkpoint", 3), ("learn", 4), ("learn", 5)]
    monkeypatch.setattr(_store, "save", save)
    messages = []
    recovered = _open(folder, messages)
    assert recovered.seq == 5
    assert "snapshot of 3 updates and 2 logged update(s) replayed" in messages[0]
    np.testing.assert_array_equal(recovered.estimator.decision_function(_XS), served)


def test_a_snapshot_stopped_before_its_log_took_over_leaves_the_log_in_use_whole(tmp_path):
    """The files of a snapshot of 3 updates are written, then 2 more examples are logged to the log in use, and the
    service stops before the snapshot's log takes over: recovery removes the partial log and the snapshot file
    without a log, and replays the 5 from the log in use."""
    folder = str(tmp_path / "state")
    store = Store(folder)
    model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    for start, stop in ((0, 3), (3, 5)):
        examples = _examples(start, stop)
        answer = model.apply("learn", examples)
        store.append([encode(model.record("learn", examples, None, None, answer))])
        if stop == 3:
            partial = store.write_snapshot(model.snapshot_copy())
    store.close()
    assert os.path.exists(partial) and os.path.exists(os.path.join(folder, f"snapshot-{3:016d}.npz"))
    recovered = _open(folder)
    assert recovered.seq == 5
    assert sorted(os.listdir(folder)) == ["lock", f"log-{0:016d}.wal"]
    np.testing.assert_array_equal(recovered.estimator.decision_function(_XS), model.estimator.decision_function(_XS))
