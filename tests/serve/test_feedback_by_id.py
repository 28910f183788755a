"""Feedback by id: /predict keeps the features it predicted on under an id, /learn {"id", "y"} learns them once
(404 unknown or expired, 409 a second label), the waiting predictions are bounded and survive a crash, and the
progressive metric equals the one computed by hand and by olearn.metrics on the same rounds."""

import glob
import json
import os
import time

import numpy as np
import pytest

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.metrics import MAE, Accuracy  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._requests import RequestError  # noqa: E402
from olearn.serve._wal import read_log  # noqa: E402


def _stream(rng, n):
    for _ in range(n):
        x = {str(j): float(rng.normal()) for j in rng.choice(12, size=3, replace=False)}
        x["city"] = str(rng.choice(["Paris", "Rome"]))
        yield x, 1 if x.get("0", 0.0) + x.get("1", 0.0) + (x["city"] == "Paris") > 0.5 else -1


def _metrics(client):
    values = {}
    for line in client.get("/metrics").text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def _size(x):
    return len(json.dumps(x, separators=(",", ":")))


def _served_model(client, tmp_path, name):
    path = tmp_path / name
    path.write_bytes(client.get("/model").content)
    return olearn.load(path)


def test_feedback_by_id_learns_once_survives_a_crash_and_its_progressive_accuracy_is_run_s(serve, tmp_path):
    server = serve(["--algo", "pa1", "-C", "0.3", "--classes", "-1,1", "--snapshot-every", "7"])
    offline = olearn.PAClassifier(variant="pa1", C=0.3)
    rng = np.random.default_rng(3)
    rounds = []  # (y, prediction before learning) of every feedback, made offline
    with server.client() as client:
        first = client.post("/predict", json={"x": {"city": "Paris", "0": 1.0}, "id": "caller-1"}).json()
        assert first == {"y": None, "score": None, "id": "caller-1"}
        # the caller's id names one prediction: a second /predict with it is refused
        assert client.post("/predict", json={"x": {"0": 2.0}, "id": "caller-1"}).status_code == 409
        examples = list(_stream(rng, 24))
        answer = client.post("/predict", json={"x": [x for x, _ in examples]}).json()
        ids = answer["id"]
        assert len(set(ids)) == len(examples) and len(answer["y"]) == len(examples)
        # labels arrive in another order than the predictions, some in a batch: each learns its own features
        order = rng.permutation(len(examples)).tolist()
        pending = set(range(len(examples)))
        for i in order[:10]:
            x, y = examples[i]
            rounds.append((y, offline.predict_one(x)))
            offline.learn_one(x, y)
            got = client.post("/learn", json={"id": ids[i], "y": y})
            assert got.status_code == 200, got.text
            assert got.json()["y"] == rounds[-1][1]  # the prediction just before learning
            pending.discard(i)
        batch = order[10:16]
        for i in batch:
            x, y = examples[i]
            rounds.append((y, offline.predict_one(x)))
            offline.learn_one(x, y)
            pending.discard(i)
        got = client.post("/learn", json={"id": [ids[i] for i in batch], "y": [examples[i][1] for i in batch]})
        assert got.status_code == 200 and got.json()["learned"] == len(batch) and got.json()["seq"] == 16
        # a second label: 409, whatever the label; an id never given: 404; the model did not move
        assert client.post("/learn", json={"id": ids[order[0]], "y": -examples[order[0]][1]}).status_code == 409
        assert client.post("/learn", json={"id": ids[order[0]], "y": examples[order[0]][1]}).status_code == 409
        assert client.post("/learn", json={"id": "never-given", "y": 1}).status_code == 404
        # a batch with one bad id is refused whole
        bad = client.post("/learn", json={"id": [ids[order[16]], "never-given"], "y": [1, 1]})
        assert bad.status_code == 404 and "never-given" in bad.json()["error"]
        assert client.post("/learn", json={"id": ids[order[16]], "y": "spam"}).status_code == 422  # --classes
        assert client.get("/health").json()["updates"] == 16
        metrics = _metrics(client)
        waiting = [examples[i][0] for i in pending] + [{"city": "Paris", "0": 1.0}]
        assert metrics["olearn_feedback_pending"] == len(waiting)
        assert metrics["olearn_feedback_pending_bytes"] == sum(_size(x) for x in waiting)
    server.kill()  # a crash: the waiting predictions and the labelled ids are in the log and its checkpoints
    server.start()
    with server.client() as client:
        assert client.post("/learn", json={"id": ids[order[0]], "y": 1}).status_code == 409
        for i in order[16:]:
            x, y = examples[i]
            rounds.append((y, offline.predict_one(x)))
            offline.learn_one(x, y)
            assert client.post("/learn", json={"id": ids[i], "y": y}).status_code == 200
        rounds.append((1, offline.predict_one({"city": "Paris", "0": 1.0})))
        offline.learn_one({"city": "Paris", "0": 1.0}, 1)
        assert client.post("/learn", json={"id": "caller-1", "y": 1}).json()["seq"] == 25
        assert_same_model(_served_model(client, tmp_path, "served.npz"), offline)
        correct = sum(y == predicted for y, predicted in rounds)  # by hand: None (nothing learned) is wrong
        accuracy = Accuracy()
        for y, predicted in rounds:
            accuracy.update(y, predicted)
        assert accuracy.get() == correct / len(rounds)
        progressive = client.get("/versions").json()["current"]["progressive"]
        assert progressive == {"metric": "accuracy", "value": correct / len(rounds), "rounds": len(rounds)}
        metrics = _metrics(client)
        assert metrics["olearn_progressive_accuracy_since_start"] == correct / len(rounds)
        assert metrics["olearn_progressive_rounds_since_start"] == len(rounds)
        assert metrics["olearn_feedback_pending"] == 0 and metrics["olearn_feedback_pending_bytes"] == 0


def test_a_regressor_s_progressive_mae_counts_predict_learn_and_feedback(serve):
    server = serve(["--algo", "pa-regression"])
    offline = olearn.PARegressor(variant="pa")  # as --algo pa-regression makes it
    stream = [({"a": 1.0}, 2.0), ({"a": 0.5, "b": 1.0}, 1.0), ({"b": 2.0}, -1.0), ({"a": -1.0}, 0.5)]
    rounds = []  # (y, prediction before learning): 0 before anything is learned, as olearn.run counts it
    with server.client() as client:
        for k, (x, y) in enumerate(stream):
            rounds.append((y, float(offline.predict_learn_one(x, y))))
            if k % 2:
                key = client.post("/predict", json={"x": x}).json()["id"]
                client.post("/learn", json={"id": key, "y": y}).raise_for_status()
            else:
                client.post("/predict_learn", json={"x": x, "y": y}).raise_for_status()
        progressive = client.get("/versions").json()["current"]["progressive"]
    by_hand = sum(abs(y - predicted) for y, predicted in rounds) / len(rounds)
    mae = MAE()
    for y, predicted in rounds:
        mae.update(y, predicted)
    assert rounds[0] == (2.0, 0.0) and mae.get() == pytest.approx(by_hand, rel=1e-12)
    xs = np.array([[x.get("a", 0.0), x.get("b", 0.0)] for x, _ in stream])
    ys = np.array([y for _, y in stream])
    ran = olearn.run(olearn.PARegressor(variant="pa"), xs, ys, metrics=[MAE()])
    assert ran.metrics[0].get() == pytest.approx(by_hand)
    assert progressive == {"metric": "mae", "value": mae.get(), "rounds": len(rounds)}


def test_waiting_predictions_are_bounded_by_count_and_age(serve):
    server = serve(["--algo", "pa1", "--max-pending", "2", "--feedback-ttl", "0.5"])
    with server.client() as client:
        client.post("/learn", json={"x": {"a": 1.0}, "y": 1}).raise_for_status()
        ids = client.post("/predict", json={"x": [{"a": 1.0}, {"a": 2.0}, {"a": 3.0}]}).json()["id"]
        assert client.post("/learn", json={"id": ids[0], "y": 1}).status_code == 404  # the oldest went first
        assert client.post("/learn", json={"id": ids[1], "y": 1}).status_code == 200
        time.sleep(1.0)  # past the time a prediction waits
        expired = client.post("/learn", json={"id": ids[2], "y": 1})
        assert expired.status_code == 404 and "expired" in expired.json()["error"]
        assert _metrics(client)["olearn_feedback_pending"] == 0


def test_without_waiting_predictions_predict_names_none(serve):
    server = serve(["--algo", "pa1", "--max-pending", "0"])
    with server.client() as client:
        assert client.post("/predict", json={"x": {"a": 1.0}}).json() == {"y": None, "score": None}
        assert client.post("/predict", json={"x": {"a": 1.0}, "id": "a"}).status_code == 422
        assert client.post("/learn", json={"id": "a", "y": 1}).status_code == 404


def test_pending_replayed_without_expiry_then_expired_by_the_clock_keeps_what_the_live_service_kept():
    live, replayed = Pending(ttl=10.0, max_pending=3), Pending(ttl=10.0, max_pending=3)
    events = [("add", "a", 0.0), ("add", "b", 1.0), ("learn", "b", None), ("add", "c", 12.0), ("add", "d", 13.0),
              ("add", "e", 14.0), ("add", "f", 15.0)]
    for kind, key, created in events:
        if kind == "add":
            live.expire(created)
            live.add([key], [{"k": key}], created)
            replayed.add([key], [{"k": key}], created)  # a replay adds what the log holds, expiring nothing
        else:
            assert live.features([key]) == [{"k": key}]
            live.learned([key], 1)
            replayed.learned([key], 1)
    for pending in (live, replayed):
        pending.expire(20.0)
    assert list(live.waiting) == list(replayed.waiting) == ["d", "e", "f"]
    assert live.bytes == replayed.bytes == 3 * len('{"k":"d"}')
    with pytest.raises(RequestError) as second:
        live.features(["b"])
    assert second.value.status == 409
    with pytest.raises(RequestError) as expired:
        live.features(["c"])
    assert expired.value.status == 404


def test_predictions_alone_take_snapshots_so_that_the_log_stays_bounded(serve):
    server = serve(["--algo", "pa1", "--snapshot-every", "4"])
    with server.client() as client:
        client.post("/learn", json={"x": {"a": 1.0}, "y": 1}).raise_for_status()
        ids = [client.post("/predict", json={"x": {"a": float(i)}}).json()["id"] for i in range(9)]
        client.get("/model").raise_for_status()  # answered once every group before it is durable (the 9th kept)
        assert client.get("/health").json()["snapshot"]["updates"] == 1
    server.kill()
    logs = sorted(glob.glob(os.path.join(server.state_dir, "log-*.wal")))
    records = read_log(logs[-1])[0]
    # every 4 examples logged (the update, then the predictions) and as many as the last checkpoint wrote, a
    # snapshot, at the seq of the update: the last log's checkpoint holds the predictions kept before its copy (3 at
    # least), its records those kept since (which depends on how long the snapshots before it took to write, beside
    # the predictions), each once and in order
    assert logs[-1].endswith("log-0000000000000001.wal")
    assert records[0]["op"] == "checkpoint" and all(record["op"] == "predict" for record in records[1:])
    waiting = [key for entry in records[0]["pending"]["waiting"] for key in entry[0]]  # [ids, xs, time] each
    assert waiting + [key for record in records[1:] for key in record["ids"]] == ids
    assert len(waiting) >= 3
    server.start()
    with server.client() as client:
        for key in ids:
            assert client.post("/learn", json={"id": key, "y": -1}).status_code == 200


def test_a_multilabel_round_counts_when_its_label_set_is_exact():
    from olearn.serve._model import ServedModel
    from olearn.serve._requests import Limits, read_features

    model = ServedModel(olearn.PAMultilabel(), pending=Pending())
    offline = olearn.PAMultilabel()
    stream = [({"a": 1.0}, ["x"]), ({"b": 1.0}, ["y"]), ({"a": 1.0, "b": 1.0}, ["x", "y"]), ({"a": 2.0}, ["x"]),
              ({"b": 0.5}, ["y"]), ({"a": 1.0, "b": 0.2}, ["x"])]
    exact = []
    for i, (x, y) in enumerate(stream):
        predicted = offline.predict_learn_one(x, y)
        exact.append(predicted is not None and set(predicted) == set(y))
        model.keep([f"p{i}"], read_features({"x": x}, Limits()).xs, 0.0)
        model.feedback([f"p{i}"], [y], None, False, 0.0)
    assert 0 < sum(exact) < len(exact)  # some rounds right, some wrong: the count is tested
    assert model.progress.summary() == {"metric": "accuracy", "value": sum(exact) / len(exact),
                                        "rounds": len(exact)}
