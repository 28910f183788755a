"""Batches read from their body's bytes (olearn.serve._packed_batch) in the service: learned, predicted, kept for
feedback and replayed as the library learns and predicts the same examples as dicts (the reference), with no
decoding of the body on the way; the bodies the reading leaves to the route get the route's answers."""

import copy
import json
import random

import pytest

import olearn
from olearn.serve._feedback import Pending
from olearn.serve._model import ServedModel
from olearn.serve._packed_batch import read_packed_features, read_packed_labelled
from olearn.serve._requests import Limits

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()

NAMES = [f"f{i}" for i in range(12)]


def _batch_body(rng, n, labelled=True, ids=None, precise=False):
    """A batch body as clients write it, spaced otherwise from one example to the next, its numbers of all
    spellings the reading takes: rounded to 4 decimals, or ``precise``, the full ``repr`` of a float."""
    literals = ["-0", "-0.0", "1e2", "2.5E-1", "3", "-1.25"]
    xs = []
    for i in range(n):
        pairs = [f'"{name}"{" " * (i % 3)}:{rng.choice(literals) if rng.random() < 0.3 else _number(rng, precise)}'
                 for name in rng.sample(NAMES, rng.randrange(1, 6))]
        xs.append("{" + (",\n " if i % 2 else ", ").join(pairs) + "}")
    entries = ['"x": [' + ",\n".join(xs) + "]"]
    if labelled:
        entries.append('"y": ' + json.dumps([rng.choice((-1, 1)) for _ in range(n)]))
    if ids is not None:
        entries.append('"id": ' + json.dumps(ids))
    return ("{" + ", ".join(entries) + "}").encode()


def _number(rng, precise):
    if precise:
        return repr(rng.gauss(0, 1) * 10.0**rng.randrange(-4, 3))
    return round(rng.gauss(0, 1), 4)


def _started():
    learner = olearn.PAClassifier()
    learner.partial_fit([{name: 1.0 for name in NAMES}, {"f0": -1.0}], [1, -1])
    return learner


@pytest.mark.parametrize("precise", [False, True])
def test_a_packed_batch_learns_predicts_and_is_fed_back_as_the_library_does_with_its_dicts(precise):
    rng = random.Random(1)
    model = ServedModel(_started(), pending=Pending())
    offline = _started()
    for _ in range(3):
        body = _batch_body(rng, 20, precise=precise)
        examples = read_packed_labelled(body, Limits())
        model.apply("learn", examples)
        offline.partial_fit(json.loads(body)["x"], json.loads(body)["y"])
        assert examples._decoded is None  # learned from the rows of its bytes, not from dicts
    assert_same_model(model.estimator, offline)

    ids = [f"p{i}" for i in range(8)]
    body = _batch_body(rng, 8, labelled=False, ids=ids, precise=precise)
    examples, document = read_packed_features(body, Limits(), ("x", "id"))
    answer = model.predict(examples)
    xs = json.loads(body)["x"]
    assert answer["y"] == [offline.predict_one(x) for x in xs]
    assert answer["score"] == offline.decision_function(xs).tolist()
    model.keep(document["id"], examples.kept_features(), 0.0)
    assert examples._decoded is None

    # names the learner never learned are left out of a prediction, still from the body's bytes
    unknown = body.replace(b'"f3"', b'"unseen"').replace(b'"f5"', b'"also unseen"')
    assert unknown != body
    partly_known, _ = read_packed_features(unknown, Limits(), ("x", "id"))
    answer = model.predict(partly_known)
    unknown_xs = json.loads(unknown)["x"]
    assert answer["y"] == [offline.predict_one(x) for x in unknown_xs]
    assert answer["score"] == offline.decision_function(unknown_xs).tolist()
    assert partly_known._decoded is None
    labels = [rng.choice((-1, 1)) for _ in ids]
    fed, _ = model.feedback(ids[::-1], labels, None, True, 0.0)
    assert fed["y"] == [offline.predict_learn_one(xs[i], y) for i, y in zip(range(7, -1, -1), labels)]
    assert_same_model(model.estimator, offline)


def test_a_packed_batch_the_vocabulary_lacks_or_a_rollback_changes_is_learned_as_its_dicts():
    rng = random.Random(2)
    model = ServedModel(_started())
    offline = _started()
    body = _batch_body(rng, 5).replace(b'"f3"', b'"new"')  # a name learned by this batch
    assert b'"new"' in body
    model.apply("learn", read_packed_labelled(body, Limits()))
    offline.partial_fit(json.loads(body)["x"], json.loads(body)["y"])
    assert_same_model(model.estimator, offline)
    # another learner served whole (a rollback): the rows are of its vocabulary, not of the one read before
    older = _started()
    older.partial_fit([{"zz": 1.0, "f3": 2.0}], [1])
    model.estimator, offline = copy.deepcopy(older), older
    body = _batch_body(rng, 5)
    model.apply("learn", read_packed_labelled(body, Limits()))
    offline.partial_fit(json.loads(body)["x"], json.loads(body)["y"])
    assert_same_model(model.estimator, offline)


def test_a_service_learning_packed_batches_replays_them_into_the_same_model(serve, tmp_path):
    rng = random.Random(3)
    server = serve(["--algo", "pa1"])
    offline = _started()
    with server.client() as client:
        start = {"x": [{name: 1.0 for name in NAMES}, {"f0": -1.0}], "y": [1, -1]}
        client.post("/learn", json=start).raise_for_status()
        ids = [f"p{i}" for i in range(6)]
        shown = _batch_body(rng, 6, labelled=False, ids=ids)  # kept as each example's bytes, newlines included
        assert client.post("/predict", content=shown).json()["id"] == ids  # logged before the updates below, durable with them
        for precise in (False, True, True):
            body = _batch_body(rng, 30, precise=precise)
            assert client.post("/learn", content=body).json()["learned"] == 30
            offline.partial_fit(json.loads(body)["x"], json.loads(body)["y"])
        repeated = client.post("/learn", content=b'{"x": [{"f1": 1, "f1": 2}], "y": [1]}')
        assert repeated.status_code == 422 and "repeats the key" in repeated.json()["error"]
        short = client.post("/learn", content=b'{"x": [{"f1": 1}, {"f2": 2}], "y": [1]}')
        assert short.status_code == 422 and "'y' must be an array of 2 labels" in short.json()["error"]
        (tmp_path / "live.npz").write_bytes(client.get("/model").content)
    assert_same_model(olearn.load(tmp_path / "live.npz"), offline)
    server.kill()
    server.start()  # after kill -9, the model and the waiting predictions are the log's replay
    xs, labels = json.loads(shown)["x"], [1, -1, -1, 1, 1, -1]
    with server.client() as client:
        (tmp_path / "replayed.npz").write_bytes(client.get("/model").content)
        assert_same_model(olearn.load(tmp_path / "replayed.npz"), offline)
        fed = client.post("/learn", json={"id": ids, "y": labels}).json()
        assert fed["y"] == [offline.predict_learn_one(x, y) for x, y in zip(xs, labels)]
        (tmp_path / "fed.npz").write_bytes(client.get("/model").content)
    assert_same_model(olearn.load(tmp_path / "fed.npz"), offline)
