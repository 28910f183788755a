"""A ``/predict`` that keeps its features for feedback waits for nothing the writer does: neither the fsync of a group
being logged nor a snapshot being written. Its log record goes with the writer's next group; a snapshot's checkpoint
holds the predictions kept before its copy (their records logged to the log in use first), its log the records of
those kept since (none repeated)."""

import asyncio
import os
import threading

from conftest import PATIENCE, require_serve_extra, settled

require_serve_extra()

import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def _ids(prefix, n):
    return [f"{prefix}{j}" for j in range(n)]


def _features(n):
    return [{"a": float(j), "b": -1.0} for j in range(n)]


def _writer(folder, snapshot_every):
    store = Store(folder)
    model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    return store, Writer(model, store, Metrics(), snapshot_every=snapshot_every, snapshot_seconds=3600.0)


def _held(func, released, entered=None):
    """``func``, called (in the writer's thread) once ``released`` is set (PATIENCE: a hang guard only); ``entered``
    is set when a call begins to wait."""

    def held(*args):
        if entered is not None:
            entered.set()
        released.wait(PATIENCE)
        return func(*args)

    return held


def _records(folder):
    return [record for name in sorted(os.listdir(folder)) if name.endswith(".wal")
            for record in read_log(os.path.join(folder, name))[0]]


def test_kept_predictions_are_answered_while_their_groups_fsync_is_held(tmp_path):
    """The disk holds the first group's fsync: every later keep is answered all the same (before: the third waited
    for it); once released, the records are logged in the order the predictions were kept."""
    folder = tmp_path / "state"

    async def scenario():
        store, writer = _writer(folder, snapshot_every=10_000)
        released = threading.Event()
        store.append = _held(store.append, released)
        writer.start()
        for k in range(4):
            answered = await asyncio.wait_for(writer.keep(_features(3), _ids(f"k{k}-", 3)), PATIENCE)
            assert answered == _ids(f"k{k}-", 3)
            await asyncio.sleep(0)  # the writer's turn: it takes the records waiting into a group
        released.set()
        await writer.acknowledged(lambda: None)
        await writer.stop()

    asyncio.run(scenario())
    kept = [record for record in _records(folder) if record["op"] == "predict"]
    assert [key for record in kept for key in record["ids"]] == [key for k in range(4) for key in _ids(f"k{k}-", 3)]
    assert [x for record in kept for x in record["x"]] == _features(3) * 4


def test_kept_predictions_are_answered_while_a_snapshot_is_written_and_logged_once(tmp_path):
    """A snapshot is due after the first 5 kept; while it is held, 3 more are kept and answered (before: they waited
    for it). The checkpoint holds the first 5, its log the 3 others only; a restart has the 8 waiting, in order."""
    folder = tmp_path / "state"

    async def scenario():
        store, writer = _writer(folder, snapshot_every=5)
        released, entered, taken = threading.Event(), threading.Event(), []
        write = store.write_snapshot
        store.write_snapshot = _held(lambda copied: taken.append(copied.waiting) or write(copied), released, entered)
        writer.start()
        await writer.keep(_features(5), _ids("a", 5))
        # the writer logs them, then takes the snapshot, held
        assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, PATIENCE)
        answered = await asyncio.wait_for(writer.keep(_features(3), _ids("b", 3)), PATIENCE)
        assert answered == _ids("b", 3)
        released.set()
        await settled(writer)
        await writer.stop()
        return taken

    taken = asyncio.run(scenario())
    assert taken == [5]
    logged = _records(folder)
    assert [record["op"] for record in logged] == ["checkpoint", "predict"]
    assert [entry[0] for entry in logged[0]["pending"]["waiting"]] == _ids("a", 5)
    assert logged[1]["ids"] == _ids("b", 3)
    model = Store(folder).open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    assert list(model.pending.waiting) == _ids("a", 5) + _ids("b", 3)
    assert model.pending.features(_ids("b", 3)) == _features(3)
