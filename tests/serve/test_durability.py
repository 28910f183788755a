"""Acknowledged updates stay durable in every case: one service per state folder, a damaged log refused
(or recovered on request, keeping a copy), the last snapshots kept to fall back on, and a snapshot that
cannot be written reported and retried while the log keeps every update."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from serve_helpers import TOKEN, free_port, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, parse_json, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import LogDamaged, encode, read_log  # noqa: E402

# an empty learner's service reads every key as a name, digits too
STREAM = [({"1": 1.0, "3": 0.5, "city": "Paris"}, 1), ({"2": 1.0}, -1), ({"1": 0.5, "2": 2.0}, 1),
          ({"city": "Rome"}, -1), ({"3": 1.0, "1": -1.0}, -1), ({"2": 0.5, "city": "Paris"}, 1), ({"3": 2.0}, 1)]


def _offline(stream):
    """A learner that learned ``stream`` directly (the reference of the served one)."""
    est = olearn.PAClassifier(variant="pa1", C=0.5)
    for x, y in stream:
        est.learn_one(x, y)
    return est


def _learn(model, store, x, y):
    examples = read_labelled(parse_json(json.dumps({"x": x, "y": y})), Limits())
    answer = model.apply("learn", examples)
    store.append([encode(ServedModel.record("learn", examples, None, None, answer))])


def _quiet(folder, keep=3, recover_log=False, said=None):
    store = Store(folder, keep=keep, recover_log=recover_log)
    model = store.open(lambda: olearn.PAClassifier(variant="pa1", C=0.5),
                       say=(said.append if said is not None else lambda text: None))
    return store, model


def _run_cli(args, timeout=120):
    """``olearn serve ARGS`` to its end (a hang guard, not a timing); its exit status and stderr."""
    done = subprocess.run([sys.executable, "-m", "olearn", "serve", *args], capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stderr


# -- one service per state folder ------------------------------------------------------------------------


def test_a_second_service_on_the_same_folder_exits_naming_the_first(serve, tmp_path, token_file):
    first = serve(["--algo", "pa1"])
    with first.client() as client:
        for i, (x, y) in enumerate(STREAM[:3]):
            assert client.post("/learn", json={"x": x, "y": y}).json()["seq"] == i + 1
    state = tmp_path / "state"
    logs = {name: (state / name).read_bytes() for name in os.listdir(state) if name.endswith(".wal")}
    for port in (free_port(), first.port):  # another port: both would take writes; the same: the log was cut
        status, err = _run_cli(["--algo", "pa1", "--state-dir", str(state), "--port", str(port),
                                "--token-file", token_file])
        assert status == 1 and f"pid {first.process.pid}" in err and str(state) in err, err
        assert {name: (state / name).read_bytes() for name in logs} == logs
    with first.client() as client:
        assert client.post("/learn", json={"x": STREAM[3][0], "y": STREAM[3][1]}).json()["seq"] == 4
    first.kill()  # the lock dies with its process: a restart takes it
    first.start()
    with first.client() as client:
        assert client.get("/health").json()["updates"] == 4


def test_the_lock_is_taken_before_anything_is_read(tmp_path):
    store, model = _quiet(tmp_path / "state")
    with pytest.raises(olearn.exceptions.OlearnError, match=f"pid {os.getpid()}"):
        _quiet(tmp_path / "state")
    store.close()
    _quiet(tmp_path / "state")[0].close()  # closed, the folder is free again


# -- a damaged log -----------------------------------------------------------------------------------------


def _damaged_folder(folder):
    """A folder whose log holds the checkpoint and STREAM's updates, the third's payload with a flipped bit;
    the log's bytes and the offset of the damaged record."""
    store, model = _quiet(folder)
    for x, y in STREAM:
        _learn(model, store, x, y)
    store.close()
    (log,) = [folder / name for name in os.listdir(folder) if name.endswith(".wal")]
    content = bytearray(log.read_bytes())
    offset = 0
    for _ in range(3):  # the checkpoint and updates 1 and 2
        offset += 8 + int.from_bytes(content[offset:offset + 4], "little")
    content[offset + 20] ^= 0x04
    log.write_bytes(bytes(content))
    return log, bytes(content), offset


def test_a_damaged_log_is_refused_and_left_as_it_is_until_recover_log(tmp_path):
    folder = tmp_path / "state"
    log, content, offset = _damaged_folder(folder)
    with pytest.raises(LogDamaged, match=f"record 3 \\(at byte {offset}\\) is damaged and 4 valid record"):
        _quiet(folder)
    assert log.read_bytes() == content
    # the command says so, and names the way out
    status, err = _run_cli(["--algo", "pa1", "--public-reads", "--state-dir", str(folder), "--port",
                            str(free_port())])
    assert status == 1 and "record 3" in err and "--recover-log" in err, err
    assert log.read_bytes() == content and sorted(os.listdir(folder)) == ["lock", log.name]
    # --recover-log starts it, after keeping a copy
    command = [sys.executable, "-m", "olearn", "serve", "--algo", "pa1", "-C", "0.5", "--public-reads",
               "--state-dir", str(folder), "--port", "0", "--recover-log"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        said = []
        for line in process.stderr:  # hang guard: the process is killed below if this never ends
            said.append(line)
            if "serving" in line:
                break
    finally:
        process.kill()
        process.wait()
    assert any("record 3" in line and "are dropped" in line for line in said), said
    assert any("2 updates in all" in line for line in said), said
    (copy,) = [folder / name for name in os.listdir(folder) if ".damaged-" in name]
    assert copy.read_bytes() == content and log.read_bytes() == content[:offset]


def test_recover_log_keeps_a_copy_and_cuts_at_the_damage(tmp_path):
    folder = tmp_path / "state"
    log, content, offset = _damaged_folder(folder)
    said = []
    store, model = _quiet(folder, recover_log=True, said=said)
    assert model.seq == 2 and np.array_equal(model.estimator.coef_, _offline(STREAM[:2]).coef_)
    (copy,) = [folder / name for name in os.listdir(folder) if ".damaged-" in name]
    assert copy.read_bytes() == content and log.read_bytes() == content[:offset]
    assert any("record 3" in text and "the 4 valid record(s) after it are dropped" in text for text in said), said
    _learn(model, store, *STREAM[2])  # the log takes updates again, after the cut
    store.close()
    assert [r["seq"] for r in read_log(log)[0]] == [0, 1, 2, 3]


def test_a_torn_tail_is_still_a_crash_artefact(tmp_path):
    folder = tmp_path / "state"
    store, model = _quiet(folder)
    for x, y in STREAM[:3]:
        _learn(model, store, x, y)
    store.close()
    (log,) = [folder / name for name in os.listdir(folder) if name.endswith(".wal")]
    whole = log.read_bytes()
    log.write_bytes(whole + encode({"op": "learn", "seq": 4})[:-3])
    store, model = _quiet(folder)
    assert model.seq == 3 and log.read_bytes() == whole
    store.close()


# -- the last snapshots are kept ---------------------------------------------------------------------------


def _snapshots(folder, count, keep=3):
    """A folder whose model learned STREAM, with a snapshot after each of the first ``count`` updates."""
    store, model = _quiet(folder, keep=keep)
    for i, (x, y) in enumerate(STREAM):
        _learn(model, store, x, y)
        if i < count:
            store.snapshot(model)
    store.close()
    return sorted(name for name in os.listdir(folder) if name.startswith("snapshot-"))


def test_the_last_snapshots_are_kept_with_their_logs(tmp_path):
    assert _snapshots(tmp_path / "three", 5) == [f"snapshot-{s:016d}.npz" for s in (3, 4, 5)]
    assert sorted(n for n in os.listdir(tmp_path / "three") if n.endswith(".wal")) == \
        [f"log-{s:016d}.wal" for s in (3, 4, 5)]
    assert _snapshots(tmp_path / "one", 5, keep=1) == ["snapshot-0000000000000005.npz"]


@pytest.mark.parametrize("damage", ["overwritten", "removed"])
def test_a_damaged_newest_snapshot_falls_back_to_the_one_before_loudly(tmp_path, damage):
    folder = tmp_path / "state"
    _snapshots(folder, 5)
    newest = folder / "snapshot-0000000000000005.npz"
    if damage == "removed":
        newest.unlink()
    else:
        content = bytearray(newest.read_bytes())
        content[len(content) // 2:len(content) // 2 + 64] = bytes(64)
        newest.write_bytes(bytes(content))
    said = []
    store, model = _quiet(folder, said=said)
    assert model.seq == len(STREAM)
    reference = _offline(STREAM)
    assert np.array_equal(model.estimator.coef_, reference.coef_)
    assert model.estimator.vocabulary_ == reference.vocabulary_
    assert any("warning" in text and newest.name in text and "snapshot of 4 updates" in text for text in said)
    store.close()


# -- a snapshot that cannot be written ----------------------------------------------------------------------


def _wait_for(client, condition, what, timeout=120.0):
    """Poll /health until ``condition(answer)`` (a hang guard, not a timing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get("/health").json()
        if condition(answer):
            return answer
        time.sleep(0.05)
    raise AssertionError(f"/health never showed {what}: {answer}")


def _failures(client):
    lines = client.get("/metrics").text.splitlines()
    return float(next(line.split()[1] for line in lines if line.startswith("olearn_snapshot_failures_total")))


def test_a_snapshot_that_cannot_be_written_is_reported_and_retried(serve, tmp_path):
    state = tmp_path / "state"
    server = serve(["--algo", "pa1", "-C", "0.5", "--snapshot-every", "2", "--snapshot-seconds", "0.2"], state)
    blocker = state / "snapshot-0000000000000002.npz"
    blocker.mkdir()  # the snapshot after the first two updates cannot be written: a folder has its name
    xs, ys = [x for x, _ in STREAM[:2]], [y for _, y in STREAM[:2]]
    with server.client() as client:
        assert client.post("/learn", json={"x": xs, "y": ys}).json()["seq"] == 2
        answer = _wait_for(client, lambda a: not a["snapshot"]["ok"], "a failed snapshot")
        assert answer["status"] == "degraded" and "snapshot of 2 updates" in answer["snapshot"]["error"]
        assert answer["snapshot"]["updates"] == 0 and _failures(client) >= 1
        # reads and writes go on, the log keeping every update
        for i, (x, y) in enumerate(STREAM[2:4]):
            assert client.post("/learn", json={"x": x, "y": y}).json()["seq"] == 3 + i
        assert client.post("/predict", json={"x": STREAM[0][0]}).status_code == 200
    server.kill()
    server.start()  # a restart does not trip on the folder in the way
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 4
        assert client.post("/learn", json={"x": STREAM[4][0], "y": STREAM[4][1]}).json()["seq"] == 5
        _wait_for(client, lambda a: a["snapshot"]["ok"] and a["snapshot"]["updates"] == 5, "the snapshot taken")
        response = client.get("/model")
    path = tmp_path / "served.npz"
    path.write_bytes(response.content)
    assert np.array_equal(olearn.load(path).coef_, _offline(STREAM[:5]).coef_)
    assert blocker.is_dir()  # reported, not removed, and not in the way


def test_a_failed_snapshot_is_retried_until_it_succeeds(serve, tmp_path):
    state = tmp_path / "state"
    server = serve(["--algo", "pa1", "-C", "0.5", "--snapshot-every", "2", "--snapshot-seconds", "0.2"], state)
    blocker = state / "snapshot-0000000000000002.npz"
    blocker.mkdir()
    xs, ys = [x for x, _ in STREAM[:2]], [y for _, y in STREAM[:2]]
    with server.client(TOKEN) as client:
        client.post("/learn", json={"x": xs, "y": ys})
        _wait_for(client, lambda a: not a["snapshot"]["ok"], "a failed snapshot")
        blocker.rmdir()
        _wait_for(client, lambda a: a["snapshot"]["ok"] and a["snapshot"]["updates"] == 2, "the retried snapshot")
    assert (state / "snapshot-0000000000000002.npz").is_file()
