"""Feedback by id on the batch paths: a batch /predict (one matrix of its rows) keeps each example's own features
under its id, and a batch of feedback by ids learns those features, each predicted just before it is learned, as
the Python learner does example by example; the waiting predictions of a batch survive a crash."""

import numpy as np

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402


def _stream(rng, n):
    for _ in range(n):
        x = {str(j): float(rng.normal()) for j in rng.choice(10, size=3, replace=False)}
        x["city"] = str(rng.choice(["Paris", "Rome", "Oslo"]))
        yield x, 1 if x.get("0", 0.0) - x.get("1", 0.0) + (x["city"] == "Paris") > 0.3 else -1


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def _fetched(client, path):
    path.write_bytes(client.get("/model").content)
    return olearn.load(path)


def test_a_predicted_batch_keeps_each_example_and_its_feedback_learns_them_as_python_does(serve, tmp_path):
    rng = np.random.default_rng(5)
    start, later = list(_stream(rng, 12)), list(_stream(rng, 8))
    server = serve(["--algo", "pa1"])
    with server.client() as client:
        client.post("/learn", json={"x": [x for x, _ in start], "y": [y for _, y in start]}).raise_for_status()
        offline = _fetched(client, tmp_path / "start.npz")  # the reference, driven example by example below
        ids = [f"order-{i}" for i in range(len(later))]
        shown = client.post("/predict", json={"x": [x for x, _ in later], "id": ids}).json()
        assert shown["id"] == ids
        assert shown["y"] == [_plain(offline.predict_one(x)) for x, _ in later]
        assert shown["score"] == [_plain(offline.decision_function([x])[0]) for x, _ in later]
        # the labels come back in another order, in two batches: each id learns the features it was shown with
        order = [5, 0, 7, 2, 3]
        got = client.post("/learn", json={"id": [ids[i] for i in order], "y": [later[i][1] for i in order]}).json()
        assert got["learned"] == len(order) and got["seq"] == len(start) + len(order)
        assert got["y"] == [_plain(offline.predict_learn_one(*later[i])) for i in order]
        assert_same_model(_fetched(client, tmp_path / "fed.npz"), offline)
    server.kill()
    server.start()  # after kill -9, the predictions still waiting are the log's
    rest = [1, 4, 6]
    with server.client() as client:
        got = client.post("/learn", json={"id": [ids[i] for i in rest], "y": [later[i][1] for i in rest]}).json()
        assert got["y"] == [_plain(offline.predict_learn_one(*later[i])) for i in rest]
        assert client.post("/learn", json={"id": ids[0], "y": 1}).status_code == 409  # labelled before the crash
        assert_same_model(_fetched(client, tmp_path / "after.npz"), offline)
