"""Durability under kill -9: every acknowledged update survives, in its order, and nothing else is learned.

A subprocess server learns under a concurrent client load (single updates,
batches, /predict_learn, sample weights, feature names of words and of digits, refused
updates, predictions) and is killed with SIGKILL at random moments, many times:
after a random number of answers, while other requests are in flight (a count,
not a duration, so that a busy machine runs the same test).
After each restart:

* ``/health`` counts at least every acknowledged update (none is missing);
* each request that got no answer is retried with its id: it is either
  found (learned before the kill, answered as a duplicate with its position)
  or learned now; the positions of all the updates then tile 1..M exactly;
* the served model (``GET /model``) equals, bit for bit, a learner that
  learned those updates offline in that order, and every prediction a
  ``/predict_learn`` answered equals the offline learner's.
"""

import asyncio
import os
import random
import signal
import tempfile

import pytest

import olearn
from serve_helpers import TOKEN, assert_same_model, require_serve_extra

require_serve_extra()
import httpx  # noqa: E402

PATIENCE = 600


def _features(rng):
    x = {str(j): round(rng.gauss(0, 1), 6) for j in rng.sample(range(40), rng.randint(1, 6))}
    for name in rng.sample(["age", "income", "clicks", "score"], rng.randint(0, 2)):
        x[name] = rng.gauss(0, 1)
    if rng.random() < 0.3:
        x["color"] = rng.choice(["red", "green", "blue"])
    return x


class Load:
    """The requests of a run, what they were answered, and the offline learner that follows them."""

    def __init__(self, labels, estimator, seed):
        self.rng = random.Random(seed)
        self.labels = labels
        self.offline = estimator
        self.sent = {}        # id -> (route, body)
        self.answers = {}     # id -> answer (learned updates)
        self.unanswered = set()
        self.refused = 0
        self.replayed = 0     # updates the offline learner has learned
        self.count = 0

    def next_request(self):
        rng = self.rng
        self.count += 1
        request_id = f"r{self.count}"
        kind = rng.random()
        if kind < 0.1:
            n = 5
            body = {"x": [_features(rng) for _ in range(n)], "y": [rng.choice(self.labels) for _ in range(n)]}
            if rng.random() < 0.5:
                body["sample_weight"] = [round(rng.uniform(0.1, 2), 3) for _ in range(n)]
        else:
            body = {"x": _features(rng), "y": rng.choice(self.labels)}
            if rng.random() < 0.2:
                body["sample_weight"] = round(rng.uniform(0.1, 2), 3)
        if kind > 0.95:
            body["y"] = [[1, 2]] * len(body["x"]) if isinstance(body["x"], list) else {"not": "a label"}
        route = "/predict_learn" if 0.1 <= kind < 0.25 else "/learn"
        body["id"] = request_id
        self.sent[request_id] = (route, body)
        return request_id, route, body

    def settle(self, request_id, response):
        if response.status_code == 200:
            self.answers[request_id] = response.json()
        else:
            assert response.status_code == 422, response.text
            self.refused += 1
        self.unanswered.discard(request_id)

    def check_positions(self):
        """The updates' positions tile 1..M; returns M."""
        spans = sorted((a["seq"] - a["learned"] + 1, a["seq"], i) for i, a in self.answers.items())
        expected = 1
        for first, last, request_id in spans:
            assert first == expected, f"update {request_id} takes positions {first}..{last}; expected {expected}"
            expected = last + 1
        return expected - 1

    def replay_offline(self):
        """Learn offline the updates not learned yet, in their positions' order."""
        for answer, request_id in sorted((a["seq"], i) for i, a in self.answers.items()):
            if answer <= self.replayed:
                continue
            route, body = self.sent[request_id]
            batch = isinstance(body["x"], list)
            xs = body["x"] if batch else [body["x"]]
            ys = body["y"] if batch else [body["y"]]
            weights = body.get("sample_weight")
            if not isinstance(weights, list):
                weights = [weights] * len(xs)
            predictions = []
            if route == "/learn" and batch:  # a batch to learn is learned by one pass over its rows
                self.offline.partial_fit(xs, ys, sample_weight=body.get("sample_weight"))
            for x, y, w in zip(xs, ys, weights):
                if route == "/learn" and batch:
                    continue
                if route == "/learn":
                    self.offline.learn_one(x, y, sample_weight=w)
                else:
                    predicted = self.offline.predict_learn_one(x, y, sample_weight=w)
                    predictions.append(predicted.item() if hasattr(predicted, "item") else predicted)
            if route == "/predict_learn":
                assert self.answers[request_id]["y"] == (predictions if batch else predictions[0]), request_id
            self.replayed = answer


async def _drive(server, load, answers, workers=6):
    """Send requests from ``workers`` concurrent clients, and one predicting client, until a kill -9 once ``answers``
    more updates are answered."""
    killed, enough = asyncio.Event(), asyncio.Event()
    target = len(load.answers) + answers
    # the predictions' rows come from a generator of their own: the updates' sequence stays that of the load's seed
    queries = random.Random(len(load.sent))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    limits = httpx.Limits(max_connections=workers + 1)
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=30.0, limits=limits) as client:

        async def update():
            while not killed.is_set():
                request_id, route, body = load.next_request()
                load.unanswered.add(request_id)
                try:
                    response = await client.post(route, json=body)
                except httpx.TransportError:
                    return
                load.settle(request_id, response)
                if len(load.answers) >= target:
                    enough.set()

        async def predict():
            while not killed.is_set():
                try:
                    response = await client.post("/predict", json={"x": _features(queries)})
                except httpx.TransportError:
                    return
                assert response.status_code == 200, response.text

        async def kill():
            try:
                await asyncio.wait_for(enough.wait(), PATIENCE)  # a hang guard: the server stopped answering
            except asyncio.TimeoutError:
                pass
            os.kill(server.process.pid, signal.SIGKILL)
            killed.set()

        await asyncio.gather(kill(), predict(), *(update() for _ in range(workers)))
    server.process.wait()


def _crash_run(serve, tmp_path, args, load, kills, seed):
    rng = random.Random(seed)
    server = serve(args + ["--snapshot-every", "40", "--snapshot-seconds", "0.3"], tmp_path / "state")
    # one update per label first, so that every class is known before the load (a refused label stays refused)
    with server.client() as client:
        for y in load.labels:
            request_id, route, body = load.next_request()
            body.update(x={"39": 0.5}, y=y)
            body.pop("sample_weight", None)
            load.settle(request_id, client.post(route, json=body))
    acknowledged = 0
    for _ in range(kills):
        asyncio.run(_drive(server, load, answers=rng.randint(12, 40)))
        acknowledged_before_kill = max((a["seq"] for a in load.answers.values()), default=0)
        server.start()
        with server.client() as client:
            recovered = client.get("/health").json()["updates"]
            assert recovered >= acknowledged_before_kill, "an acknowledged update is missing after the restart"
            for request_id in sorted(load.unanswered):
                route, body = load.sent[request_id]
                response = client.post(route, json=body)
                load.settle(request_id, response)
                answer = load.answers.get(request_id)
                if answer is not None and answer.get("duplicate"):
                    assert answer["seq"] <= recovered
            total = load.check_positions()
            load.replay_offline()
            response = client.get("/model")
            assert response.status_code == 200, response.text
            assert int(response.headers["X-Olearn-Updates"]) == total
        with tempfile.NamedTemporaryFile(suffix=".npz", dir=tmp_path, delete=False) as fh:
            fh.write(response.content)
        assert_same_model(olearn.load(fh.name), load.offline)
        os.unlink(fh.name)
        assert total > acknowledged
        acknowledged = total
    assert not load.unanswered
    return acknowledged


def test_kill_9_at_random_moments_loses_no_acknowledged_update(serve, tmp_path, request):
    # three kills here (FACTOR times more with --fuzz-long FACTOR); the slow test below kills sixty times
    kills = max(3, int(3 * request.config.getoption("--fuzz-long")))
    load = Load([-1, 1], olearn.PAClassifier(variant="pa1", C=0.5), seed=1)
    total = _crash_run(serve, tmp_path, ["--algo", "pa1", "-C", "0.5"], load, kills=kills, seed=2)
    # the kills come after 39, 39 and 13 more answers; the load's 18th request (seed 1) has a label refused
    assert load.refused > 0 and total > 90


@pytest.mark.slow
def test_kill_9_multiclass_and_regression_many_times(serve, tmp_path):
    load = Load(["a", "b", "c"], olearn.PAMulticlass(variant="pa2", C=0.1), seed=3)
    _crash_run(serve, tmp_path / "multiclass", ["--algo", "pa2-multiclass", "-C", "0.1"], load, kills=30, seed=4)
    start = olearn.PARegressor(epsilon=0.1)
    start.learn_one({"0": 1.0}, 0.5)  # a model of names: served with every key a name
    os.makedirs(tmp_path / "regression")
    start.save(tmp_path / "regression" / "start.npz")
    offline = olearn.load(tmp_path / "regression" / "start.npz")
    load = Load([-1.5, 0.25, 2.0], offline, seed=5)
    _crash_run(serve, tmp_path / "regression", [str(tmp_path / "regression" / "start.npz")], load, kills=30, seed=6)
