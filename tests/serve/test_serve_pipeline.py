"""olearn serve serves what olearn.load loads, pipelines included: a StandardScaler | PAClassifier saved in Python
learns and predicts over HTTP exactly as the Python pipeline does, across a crash too."""

import numpy as np
import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.preprocessing import StandardScaler  # noqa: E402


def _stream(rng, n):
    for _ in range(n):
        x = {"age": float(rng.uniform(18, 80)), "income": float(rng.lognormal(10, 1)),
             "city": str(rng.choice(["Paris", "Rome", "Oslo"]))}
        yield x, "yes" if x["age"] * 1000 + x["income"] * 0.5 > 60_000 else "no"


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def test_a_saved_pipeline_is_served_and_learns_as_in_python(serve, tmp_path):
    rng = np.random.default_rng(11)
    pipeline = StandardScaler() | olearn.PAClassifier(C=0.5)
    for x, y in _stream(rng, 30):
        pipeline.learn_one(x, y)
    pipeline.save(tmp_path / "pipeline.npz")
    offline = olearn.load(tmp_path / "pipeline.npz")
    server = serve([str(tmp_path / "pipeline.npz")])
    stream = list(_stream(rng, 24))
    probe = [x for x, _ in _stream(rng, 6)]
    with server.client() as client:
        health = client.get("/health").json()
        assert health["estimator"] == "Pipeline" and health["feature_keys"] == "names"
        assert sorted(health["classes"]) == ["no", "yes"]
        for x, y in stream[:6]:
            client.post("/learn", json={"x": x, "y": y}).raise_for_status()
            offline.learn_one(x, y)
        batch = stream[6:14]
        client.post("/learn", json={"x": [x for x, _ in batch], "y": [y for _, y in batch]}).raise_for_status()
        for x, y in batch:
            offline.learn_one(x, y)
        for x, y in stream[14:18]:
            answer = client.post("/predict_learn", json={"x": x, "y": y}).json()
            assert answer["y"] == _plain(offline.predict_learn_one(x, y))
        for x, y in stream[18:]:  # feedback by id
            predicted = client.post("/predict", json={"x": x}).json()
            assert predicted["y"] == _plain(offline.predict_one(x))
            assert client.post("/learn", json={"id": predicted["id"], "y": y}).json()["y"] == \
                _plain(offline.predict_learn_one(x, y))
        # a refused example leaves the pipeline (scaler statistics too) as it was
        refused = client.post("/learn", json={"x": {"age": 200.0, "income": 1.0}, "y": "maybe"})  # a third class
        assert refused.status_code == 422, refused.text
        served = client.post("/predict", json={"x": probe}).json()
        assert served["y"] == [_plain(offline.predict_one(x)) for x in probe]
        assert served["score"] == offline.decision_function(probe).tolist()
        path = tmp_path / "served.npz"
        path.write_bytes(client.get("/model").content)
        fetched = olearn.load(path)
        assert fetched.decision_function(probe).tolist() == served["score"]
        assert fetched["standardscaler"].mean_.tolist() == offline["standardscaler"].mean_.tolist()
    server.kill()
    server.start()
    with server.client() as client:
        assert client.post("/predict", json={"x": probe}).json()["score"] == served["score"]


def test_a_pipeline_without_a_learner_is_refused(tmp_path):
    from olearn.serve._store import Store

    with pytest.raises(ValueError, match="olearn serve serves learners .* alone or after transformers in a Pipeline"):
        Store(tmp_path / "s").open(lambda: olearn.compose.Pipeline(StandardScaler()), say=lambda text: None)
