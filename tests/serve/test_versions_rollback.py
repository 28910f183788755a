"""Versions and rollback: numbered versions (at each periodic snapshot and on POST /versions), listed with their
updates and progressive metric; POST /rollback returns to one, the updates since kept in the log as history and
not replayed: a poisoned stream is undone, also across a crash."""

import glob
import json
import os
import time

import numpy as np
import pytest

from serve_helpers import PATIENCE, assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import encode, read_log  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402


def _stream(rng, n, flip=False):
    xs, ys = [], []
    for _ in range(n):
        x = {str(j): float(rng.normal()) for j in rng.choice(10, size=3, replace=False)}
        y = 1 if x.get("0", 0.0) - x.get("1", 0.0) > 0 else -1
        xs.append(x)
        ys.append(-y if flip else y)
    return xs, ys


def _served_model(client, tmp_path, name):
    path = tmp_path / name
    path.write_bytes(client.get("/model").content)
    return olearn.load(path)


def _versions_once_snapshotted(client, updates):
    """GET /versions once it lists the version of the snapshot of ``updates`` updates: a snapshot is written beside
    the requests, and takes its version once its log is in use (a hang guard, not a timing)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        listed = client.get("/versions").json()
        if any(v["updates"] == updates and not v["requested"] for v in listed["versions"]) \
                or time.monotonic() > deadline:
            return listed
        time.sleep(0.02)


def test_a_poisoned_stream_is_rolled_back_and_stays_so_after_a_crash(serve, tmp_path):
    server = serve(["--algo", "pa1", "-C", "0.3", "--snapshot-every", "20"])
    rng = np.random.default_rng(5)
    clean, poison, later = _stream(rng, 20), _stream(rng, 30, flip=True), _stream(rng, 5)
    probe = _stream(rng, 8)[0]
    offline = olearn.PAClassifier(variant="pa1", C=0.3)
    rounds = [(y, offline.predict_learn_one(x, y)) for x, y in zip(*clean)]
    with server.client() as client:
        assert client.post("/predict_learn", json={"x": clean[0], "y": clean[1]}).status_code == 200
        clean_scores = client.post("/predict", json={"x": probe}).json()["score"]
        # the snapshot of the 20 updates took version 1; version 2 is asked for
        asked = client.post("/versions")
        assert asked.status_code == 200 and asked.json()["version"] == 2 and asked.json()["requested"]
        correct = sum(y == p for y, p in rounds)
        progressive = {"metric": "accuracy", "value": correct / 20, "rounds": 20}
        assert asked.json()["progressive"] == progressive
        client.post("/predict_learn", json={"x": poison[0], "y": poison[1]}).raise_for_status()
        poisoned_scores = client.post("/predict", json={"x": probe}).json()["score"]
        assert poisoned_scores != clean_scores
        poisoned = _served_model(client, tmp_path, "poisoned.npz")  # GET /model of 50 updates, made once
        listed = _versions_once_snapshotted(client, 50)
        assert [(v["version"], v["updates"], v["requested"]) for v in listed["versions"]] == \
            [(1, 20, False), (2, 20, True), (3, 50, False)]
        assert listed["versions"][0]["progressive"] == progressive
        assert listed["current"]["progressive"]["rounds"] == 50

        answer = client.post("/rollback", json={"version": 1})
        assert answer.status_code == 200 and answer.json() == {"version": 1, "updates": 20, "seq": 50}
        assert client.post("/predict", json={"x": probe}).json()["score"] == clean_scores
        # GET /model at the same seq sends the rolled-back model, not the file made before the rollback
        assert_same_model(_served_model(client, tmp_path, "rolled-back.npz"), offline)
        assert poisoned.decision_function(probe).tolist() == poisoned_scores
        current = client.get("/versions").json()["current"]
        assert current == {"updates": 50, "rolled_back_to": 1, "progressive": progressive}
        # version 3 is still the poisoned model, although the snapshot of 50 updates is now the rolled-back one
        assert client.post("/rollback", json={"version": 3}).status_code == 200
        assert client.post("/predict", json={"x": probe}).json()["score"] == poisoned_scores
        assert client.post("/rollback", json={"version": 1}).status_code == 200

        client.post("/learn", json={"x": later[0], "y": later[1]}).raise_for_status()
        offline.partial_fit(later[0], later[1])  # a batch is learned in one pass, as partial_fit learns it
        assert_same_model(_served_model(client, tmp_path, "after.npz"), offline)
        assert client.post("/rollback", json={"version": 9}).status_code == 404
        assert client.post("/rollback", json={"version": "1"}).status_code == 422
        assert client.post("/rollback", json={"version": 1}, headers={"Authorization": ""}).status_code == 401
        assert client.post("/versions", headers={"Authorization": ""}).status_code == 401
    server.kill()
    server.start()
    with server.client() as client:
        assert_same_model(_served_model(client, tmp_path, "restarted.npz"), offline)
        assert client.get("/health").json()["updates"] == 55
        assert client.get("/versions").json()["current"]["rolled_back_to"] == 1
    # the poisoned updates are history: still in a log (their request's body, as sent), not replayed
    logged = [record for path in glob.glob(os.path.join(server.state_dir, "log-*.wal"))
              for record in read_log(path)[0] if record["op"] == "predict_learn" and record["seq"] > 20]
    assert [json.loads(record["body"])["y"] for record in logged] == [poison[1]]


def test_a_rollback_logged_but_not_yet_snapshotted_is_replayed(tmp_path):
    """A crash between a rollback's log record and its snapshot: the restart replays the record."""
    rng = np.random.default_rng(8)
    store = Store(tmp_path / "state")
    model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    offline = olearn.PAClassifier()

    def learn(xs, ys):
        examples = read_labelled({"x": xs, "y": ys}, Limits())
        answer = model.apply("learn", examples)
        store.append([encode(ServedModel.record("learn", examples, None, None, answer))])

    clean, poison, later = _stream(rng, 10), _stream(rng, 10, flip=True), _stream(rng, 4)
    learn(*clean)
    assert store.take_version(model, True)["version"] == 1
    learn(*poison)
    model.roll_back(*store.versions.load(1))
    store.append([encode({"op": "rollback", "version": 1, "seq": model.seq})])
    learn(*later)
    store.close()
    for x, y in zip(*clean):  # a first batch, before the learner has started, is learned example by example
        offline.learn_one(x, y)
    offline.partial_fit(*later)  # a batch of a started learner in one pass
    assert_same_model(model.estimator, offline)
    recovered = Store(tmp_path / "state").open(lambda: None, say=lambda text: None)
    assert recovered.seq == 24 and recovered.version == 1
    assert_same_model(recovered.estimator, offline)


def test_a_version_that_cannot_be_loaded_is_refused_and_the_model_served_stays(tmp_path):
    import asyncio

    from olearn.serve._metrics import Metrics
    from olearn.serve._requests import RequestError
    from olearn.serve._writer import Writer

    def examples(x, y):
        return read_labelled({"x": x, "y": y}, Limits())

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=1000, snapshot_seconds=60)
        writer.start()
        await writer.update("learn", examples({"a": 1.0}, 1), None)
        assert (await writer.take_version())["version"] == 1
        (tmp_path / "state" / "version-0000000001.npz").write_bytes(b"damaged")
        await writer.update("learn", examples({"b": 1.0}, -1), None)
        served = model.estimator.coef_.copy()
        with pytest.raises(RequestError) as refused:
            await writer.roll_back(1)
        unchanged = model.estimator is not None and (model.estimator.coef_ == served).all() and model.version is None
        answer = await writer.update("learn", examples({"c": 1.0}, 1), None)  # the writer goes on
        await writer.stop()
        return refused.value, unchanged, answer, writer.failure

    refused, unchanged, answer, failure = asyncio.run(scenario())
    assert refused.status == 500 and "version 1 cannot be loaded" in refused.message
    assert unchanged and answer == {"seq": 3, "learned": 1} and failure is None
