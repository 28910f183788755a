"""Every task olearn learns online is served: cost-sensitive multiclass and multilabel here (binary,
multiclass and regression in test_routes.py and test_crash.py), against offline learners."""

import numpy as np

import olearn

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()


def _stream(rng, n, labels):
    for _ in range(n):
        x = {str(j): float(rng.normal()) for j in rng.choice(10, size=3, replace=False)}
        x["kind"] = str(rng.choice(["a", "b"]))
        yield x, labels(rng)


def _serve_and_compare(serve, tmp_path, start, labels, name):
    start.save(tmp_path / f"{name}.npz")
    offline = olearn.load(tmp_path / f"{name}.npz")
    server = serve([str(tmp_path / f"{name}.npz")], tmp_path / f"{name}-state")
    rng = np.random.default_rng(1)
    with server.client() as client:
        for x, y in _stream(rng, 40, labels):
            answer = client.post("/predict_learn", json={"x": x, "y": y})
            assert answer.status_code == 200, answer.text
            predicted = offline.predict_learn_one(x, y)  # a model of names: every key is read as a name
            assert answer.json()["y"] == (predicted.item() if hasattr(predicted, "item") else predicted)
        probe = [x for x, _ in _stream(rng, 3, labels)]
        answer = client.post("/predict", json={"x": probe}).json()
        assert answer["score"] == offline.decision_function(probe).tolist()
        assert client.get("/health").json()["classes"] == offline.classes_.tolist()
        (tmp_path / "served.npz").write_bytes(client.get("/model").content)
    assert_same_model(olearn.load(tmp_path / "served.npz"), offline)
    return answer


def test_cost_sensitive(serve, tmp_path):
    cost = [[0, 1, 4], [1, 0, 1], [4, 1, 0]]
    start = olearn.PACostSensitive(cost=cost, update="max-loss")
    start.partial_fit([{"9": 0.0, "kind": "a"}], [0], classes=[0, 1, 2])  # the cost needs every class known
    answer = _serve_and_compare(serve, tmp_path, start, lambda rng: int(rng.integers(3)), "cost")
    assert all(y in (0, 1, 2) for y in answer["y"])


def test_multilabel(serve, tmp_path):
    start = olearn.PAMultilabel(variant="pa1", C=0.5)
    start.learn_one({"9": 0.0}, ["news"])
    topics = np.array(["news", "sport", "tech", "art"])

    def labels(rng):
        return sorted(topics[rng.random(4) < 0.4].tolist())

    answer = _serve_and_compare(serve, tmp_path, start, labels, "multilabel")
    assert all(isinstance(y, list) for y in answer["y"])
