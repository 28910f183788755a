"""The features a ``/predict`` keeps for feedback: answered once kept, before their fsync (an id answered but lost
by a crash is unknown, 404, never learned from other features); written once as JSON text, which the checkpoint and
the log record place as they are (the same JSON as before); and snapshots due by the predictions a checkpoint writes
as well as by ``--snapshot-every``, so that a predicting service does not rewrite its waiting predictions every few
requests."""

import asyncio
import json
import os
import sys
import textwrap

import pytest

import interruptible
from serve_helpers import PATIENCE, TOKEN, free_port, require_serve_extra, settled, wait_until_ready

require_serve_extra()
import httpx  # noqa: E402

import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import RawJSONItems, encode, json_bytes, read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def test_a_checkpoint_of_waiting_predictions_is_the_json_of_their_entries():
    """The waiting predictions' checkpoint reads back as ``[[ids, xs, time], ...]``, an entry per ``/predict`` with
    its predictions still waiting (what ``json`` writes of them),
    a label reads back the features kept, and a checkpoint that ``json`` must write (an integer past 64 bits
    elsewhere in it) holds the same entries."""
    pending = Pending(ttl=100.0, max_pending=10)
    xs = [{"a": 0.1, "b": -2, "c": "Paris", "d": None}, {"e": 1e-300, "f": -0.0, "g": 12345678901234567890123},
          {"caf\u00e9": True}]
    record = {"op": "predict", "ids": ["p1", "p2", "p3"], "x": pending.add(["p1", "p2", "p3"], xs, 1.5), "t": 1.5}
    assert json.loads(encode(record)[8:]) == {"op": "predict", "ids": ["p1", "p2", "p3"], "x": xs, "t": 1.5}
    pending.learned(["p2"], 7)
    state = pending.state()
    expected = {"waiting": [[["p1", "p3"], [xs[0], xs[2]], 1.5]], "labelled": [["p2", 7]]}
    assert json.loads(json_bytes(state)) == expected
    assert json.loads(json_bytes({"pending": state, "big": 2 ** 70})) == {"pending": expected, "big": 2 ** 70}
    assert pending.features(["p3", "p1"]) == [xs[2], xs[0]]
    assert pending.bytes == sum(len(json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode())
                                for x in (xs[0], xs[2]))
    restored = Pending(ttl=100.0, max_pending=10)
    restored.restore(json.loads(json_bytes(state)))
    assert json_bytes(restored.state()) == json_bytes(state)
    assert isinstance(state["waiting"], RawJSONItems)


def _writer_scenario(tmp_path, keeps, snapshot_every):
    """Keep the batches ``keeps`` (sizes) one after the other; the number of waiting predictions each snapshot
    held."""

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        taken, write = [], store.write_snapshot
        store.write_snapshot = lambda copied: taken.append(copied.waiting) or write(copied)
        writer = Writer(model, store, Metrics(), snapshot_every=snapshot_every, snapshot_seconds=3600.0)
        writer.start()
        for i, size in enumerate(keeps):
            await writer.keep([{"a": float(j)} for j in range(size)], [f"p{i}-{j}" for j in range(size)])
            await settled(writer)  # the keep's group logged, its snapshot (if due) written and its log in use
        await writer.stop()
        return taken

    return asyncio.run(scenario())


def test_snapshots_of_kept_predictions_wait_for_as_many_as_the_last_one_wrote(tmp_path):
    """--snapshot-every 4: a snapshot after 10 kept (10 >= 4), then after 10 more kept (not every 4: the last one
    wrote 10), then after 20 more; the checkpoints wrote 10 + 20 + 40 predictions for 40 logged."""
    assert _writer_scenario(tmp_path, [10] + [2] * 15, snapshot_every=4) == [10, 20, 40]


_HELD_LOG = """
import sys, threading
from olearn.serve import _wal

def held(self, records):  # the disk never answers: nothing is written after the start
    threading.Event().wait()

_wal.LogWriter.append = held
sys.argv = ["olearn", *sys.argv[1:]]
from olearn.cli import main
main()
"""


def _start(command, port, log):
    """Start ``command`` (a service on ``port``) once its /ready answers."""
    process = interruptible.Popen(command, stdout=log, stderr=log)
    try:
        wait_until_ready(process, f"http://127.0.0.1:{port}")
    except AssertionError:
        process.kill()
        raise
    return process


def test_a_prediction_is_answered_before_its_fsync_and_a_crash_before_it_leaves_its_id_unknown(tmp_path,
                                                                                           token_file):
    """A service whose log never gets written answers /predict with its ids all the same (and holds a label by id,
    unacknowledged); after kill -9 and a restart, those ids are unknown: 404, nothing learned."""
    state_dir, port = str(tmp_path / "state"), free_port()
    script = tmp_path / "held_log.py"
    script.write_text(textwrap.dedent(_HELD_LOG))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    args = ["serve", "--algo", "pa1", "--token-file", token_file, "--state-dir", state_dir, "--port", str(port)]
    with open(tmp_path / "serve.log", "ab") as log, \
            httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=PATIENCE) as client:
        process = _start([sys.executable, str(script), *args], port, log)
        try:
            answer = client.post("/predict", json={"x": [{"a": 1.0}, {"b": 2.0}], "id": ["k1", "k2"]})
            assert answer.status_code == 200 and answer.json()["id"] == ["k1", "k2"]
            assert client.post("/predict", json={"x": {"c": 1.0}, "id": "k1"}).status_code == 409
            with pytest.raises(httpx.TimeoutException):  # a label waits for its fsync, which never comes
                client.post("/learn", json={"id": "k1", "y": 1}, timeout=1.0)
        finally:
            process.kill()  # SIGKILL
            process.wait()
        restarted = _start([sys.executable, "-m", "olearn", *args], port, log)
        try:
            for key in ("k1", "k2"):
                assert client.post("/learn", json={"id": key, "y": 1}).status_code == 404
            assert client.get("/health").json()["updates"] == 0
        finally:
            restarted.kill()
            restarted.wait()
    logs = sorted(name for name in os.listdir(state_dir) if name.endswith(".wal"))
    assert [r["op"] for name in logs for r in read_log(os.path.join(state_dir, name))[0]] == ["checkpoint"]
