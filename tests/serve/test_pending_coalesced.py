"""Small ``/predict``s' predictions are kept in an open record that later ones join: which predictions wait, their
features, their times, their order (eviction and expiry oldest first, each by its own time), the errors of
``features``, ``len`` and ``bytes`` are those of a plain model of the waiting predictions (an ordered dict), under
random sequences of keeps, labels, expiries and checkpoint round trips; each checkpoint format restores; and a
service keeping single predictions learns each once across a crash, and expires each by its own time."""

import json
import random
import time
from collections import OrderedDict

import pytest
from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()

import olearn  # noqa: E402
from olearn.serve._feedback import JSONTexts, Pending  # noqa: E402
from olearn.serve._requests import RequestError  # noqa: E402
from olearn.serve._wal import json_bytes  # noqa: E402


def _text(x):
    return json.dumps(x, separators=(",", ":")).encode()


class Reference:
    """The waiting predictions as the documentation says: id -> (features, time) in the order kept (an id kept again
    the newest), the oldest evicted past ``max_pending``, the oldest expired while older than ``ttl``; the last
    ``window`` labelled ids."""

    def __init__(self, ttl, max_pending, window):
        self.ttl, self.max_pending, self.window = ttl, max_pending, window
        self.waiting, self.labelled = OrderedDict(), OrderedDict()

    def expire(self, now):
        while self.waiting and next(iter(self.waiting.values()))[1] < now - self.ttl:
            self.waiting.popitem(last=False)

    def new(self, ids):
        return len(set(ids)) == len(ids) and not any(key in self.waiting or key in self.labelled for key in ids)

    def add(self, ids, xs, created):
        for key, x in zip(ids, xs):
            self.waiting.pop(key, None)
            self.waiting[key] = (x, created)
        while len(self.waiting) > self.max_pending:
            self.waiting.popitem(last=False)

    def features(self, ids):
        """The features, or the status of the first id at fault."""
        for i, key in enumerate(ids):
            if key in self.labelled or key in ids[:i]:
                return 409
            if key not in self.waiting:
                return 404
        return [self.waiting[key][0] for key in ids]

    def learned(self, ids, seq):
        for key in ids:
            self.waiting.pop(key, None)
            self.labelled[key] = seq
        while len(self.labelled) > self.window:
            self.labelled.popitem(last=False)

    def bytes(self):
        return sum(len(_text(x)) for x, _ in self.waiting.values())


def _texts(xs, rng):
    """The features ``xs`` as one JSON array with some whitespace between its items, as a request's body may hold
    them."""
    texts = [_text(x) for x in xs]
    body, starts, ends = bytearray(b'{"x": ['), [], []
    for i, text in enumerate(texts):
        if i:
            body += rng.choice([b",", b", ", b" ,\n "])
        starts.append(len(body))
        body += text
        ends.append(len(body))
    body += b"]}"
    body = bytes(body)
    return JSONTexts(body, starts, ends, b"[" + body[starts[0]:ends[-1]] + b"]")


def _entries(state):
    """A checkpoint's waiting predictions, one ``[id, x, time]`` each."""
    return [[key, x, created] for ids, xs, times in json.loads(state["waiting"].text)
            for key, x, created in zip(ids, xs, times if type(times) is list else [times] * len(ids))]


def _assert_same(pending, reference):
    assert list(pending.waiting) == list(reference.waiting)  # the order eviction and expiry go by
    assert len(pending) == len(reference.waiting)
    assert pending.bytes == reference.bytes()
    assert pending.labelled == reference.labelled
    ids = [key for key in reference.waiting if key not in reference.labelled]  # (a replay may keep a labelled id)
    assert pending.features(ids) == [reference.waiting[key][0] for key in ids]


def _status(call):
    try:
        call()
    except RequestError as err:
        return err.status
    return None


def _run(seed):
    rng = random.Random(seed)
    ttl, max_pending, window = rng.choice([5.0, 30.0, 1e9]), rng.randint(1, 60), rng.randint(1, 40)

    def fresh():
        pending = Pending(ttl=ttl, max_pending=max_pending, labelled_window=window)
        pending.small = rng.choice([2, 4, 16])
        pending.open_predictions = rng.randint(1, 30)
        pending.open_bytes = rng.randint(1, 600)
        return pending

    pending, reference = fresh(), Reference(ttl, max_pending, window)
    now, made, taken = 100.0, 0, None
    for _ in range(120):
        now += rng.choice([0.0, 0.0, 0.25, 1.0, 3.0, -0.5])  # times equal, apart, and a wall clock set back
        kind = rng.random()
        known = list(reference.waiting) + list(reference.labelled) + ["never"]
        if kind < 0.45:  # a /predict: expire by its time, refuse ids in use, keep
            count = rng.choice([1, 1, 1, 2, 3, 5, 16, 20])
            ids = [f"p{made + i}" for i in range(count)]
            made += count
            if rng.random() < 0.15:
                ids[rng.randrange(count)] = rng.choice(known)
            xs = [{"v": rng.randint(0, 99), "s": "x" * rng.randint(0, 12)} for _ in ids]
            pending.expire(now)
            reference.expire(now)
            refused = _status(lambda: pending.check_new(ids))
            assert refused == (None if reference.new(ids) else 409)
            if refused is None:
                record = pending.add(ids, _texts(xs, rng) if rng.random() < 0.5 else xs, now, checked=True)
                assert json.loads(record.text) == xs
                reference.add(ids, xs, now)
        elif kind < 0.55:  # a replayed keep: ids waiting (or repeated) kept again, nothing expired
            ids = [rng.choice(known + [f"p{made}"]) for _ in range(rng.choice([1, 2, 3, 17]))]
            made += 1
            xs = [{"r": rng.randint(0, 9)} for _ in ids]
            pending.add(ids, xs, now)
            reference.add(ids, xs, now)
        elif kind < 0.75:  # a label: its features, then learned
            ids = rng.sample(known, min(len(known), rng.choice([1, 1, 2, 4])))
            if rng.random() < 0.1:
                ids.append(ids[0])
            pending.expire(now)
            reference.expire(now)
            want = reference.features(ids)
            try:
                assert pending.features(ids) == want
            except RequestError as err:
                assert err.status == want
            else:
                pending.learned(ids, made)
                reference.learned(ids, made)
        elif kind < 0.85:  # the clock alone expires
            pending.expire(now)
            reference.expire(now)
        elif kind < 0.93:  # a checkpoint taken now, written later (after further changes)
            if taken is not None:
                assert taken[0]["waiting"].text == taken[1]
            state = pending.state()
            taken = (state, state["waiting"].text)
            assert _entries(state) == [[key, x, created] for key, (x, created) in reference.waiting.items()]
        else:  # a restart from a checkpoint
            state = json.loads(json_bytes(pending.state()))
            pending = fresh()
            pending.restore(state)
        _assert_same(pending, reference)
    if taken is not None:
        assert taken[0]["waiting"].text == taken[1]


@pytest.mark.parametrize("seed", range(300))
def test_pending_answers_as_a_plain_ordered_dict_of_waiting_predictions_does(seed):
    _run(seed)


def test_single_predictions_share_records_with_their_times_up_to_a_batch_or_a_snapshot():
    """a, b, c kept one by one (b and c at one time) share the open record; the batch of 16 is a record of its own
    and closes it; d then opens a record, closed by the snapshot, so that e is in another. The checkpoint writes one
    entry per record: the times of a record as a list when they differ."""
    pending = Pending(ttl=100.0, max_pending=100)
    pending.add(["a"], [{"k": 1}], 1.0)
    pending.add(["b"], [{"k": 2}], 2.0)
    pending.add(["c"], [{"k": 3}], 2.0)
    batch = [f"q{i}" for i in range(16)]
    pending.add(batch, [{"q": i} for i in range(16)], 3.0)
    pending.add(["d"], [{"k": 4}], 4.0)
    first = json.loads(pending.state()["waiting"].text)
    pending.add(["e"], [{"k": 5}], 5.0)
    assert first == [[["a", "b", "c"], [{"k": 1}, {"k": 2}, {"k": 3}], [1.0, 2.0, 2.0]],
                     [batch, [{"q": i} for i in range(16)], 3.0], [["d"], [{"k": 4}], 4.0]]
    assert json.loads(pending.state()["waiting"].text)[2:] == [[["d"], [{"k": 4}], 4.0], [["e"], [{"k": 5}], 5.0]]
    pending.learned(["a"], 1)
    assert json.loads(pending.state()["waiting"].text)[0] == [["b", "c"], [{"k": 2}, {"k": 3}], 2.0]  # equal times


def test_the_open_record_is_closed_at_its_caps():
    pending = Pending(ttl=100.0, max_pending=100)
    pending.open_predictions, pending.open_bytes = 3, 1000
    for i in range(7):
        pending.add([f"p{i}"], [{"i": i}], float(i))
    assert [len(kept.ids) for kept in pending.kept.values()] == [3, 3, 1]
    pending.open_predictions, pending.open_bytes = 100, 2 * len(_text({"i": 0})) + 1  # two texts and their comma
    pending.add(["a"], [{"i": 7}], 7.0)  # beside p6
    pending.add(["b"], [{"i": 8}], 8.0)  # a third text is over the bytes: b opens a record
    pending.add(["c"], [{"i": 9}], 9.0)
    assert [kept.ids for kept in pending.kept.values()][2:] == [["p6", "a"], ["b", "c"]]


def test_a_prediction_expires_by_its_own_time_within_a_record():
    pending = Pending(ttl=10.0, max_pending=100)
    for i, created in enumerate([1.0, 2.0, 3.0, 4.0]):
        pending.add([f"p{i}"], [{"i": i}], created)
    pending.expire(12.5)  # p0, p1 older than 10 s
    assert list(pending.waiting) == ["p2", "p3"] and pending.bytes == 2 * len(_text({"i": 0}))
    with pytest.raises(RequestError) as expired:
        pending.features(["p1"])
    assert expired.value.status == 404
    assert pending.features(["p3", "p2"]) == [{"i": 3}, {"i": 2}]


def test_each_checkpoint_format_restores_the_same_waiting_predictions():
    """Written by hand: an entry per prediction (the oldest format), an entry per record with one time, and an entry
    per record with the times of its predictions."""
    xs = [{"a": 1}, {"b": 2.5}, {"c": "three"}]
    labelled = [["z", 4]]
    formats = [
        [["p", xs[0], 1.0], ["q", xs[1], 2.0], ["r", xs[2], 2.0]],
        [[["p"], [xs[0]], 1.0], [["q", "r"], xs[1:], 2.0]],
        [[["p", "q", "r"], xs, [1.0, 2.0, 2.0]]],
    ]
    for waiting in formats:
        pending = Pending(ttl=100.0, max_pending=10)
        pending.restore(json.loads(json.dumps({"waiting": waiting, "labelled": labelled})))
        assert list(pending.waiting) == ["p", "q", "r"] and pending.labelled == {"z": 4}
        assert pending.features(["r", "p", "q"]) == [xs[2], xs[0], xs[1]]
        assert pending.bytes == sum(len(_text(x)) for x in xs)
        assert _entries(pending.state()) == [["p", xs[0], 1.0], ["q", xs[1], 2.0], ["r", xs[2], 2.0]]
        pending.expire(101.5)  # p's time was kept: it alone expires
        assert list(pending.waiting) == ["q", "r"]


def test_single_predictions_survive_a_crash_and_each_learns_once(serve, tmp_path):
    """Thirty /predict of one example each (their records coalesced, checkpointed every 5 records and replayed from
    the log), a third labelled before a kill -9 and the rest after the restart: each label learns the features its
    prediction kept, once (409 after), and the served model is the one learned offline on the same rounds."""
    server = serve(["--algo", "pa1", "-C", "0.3", "--classes", "-1,1", "--snapshot-every", "5"])
    offline = olearn.PAClassifier(variant="pa1", C=0.3)
    rng = random.Random(5)
    examples = [({"a": rng.uniform(-1, 1), "b": rng.uniform(-1, 1)}, rng.choice([-1, 1])) for _ in range(30)]

    def label(client, i):
        x, y = examples[i]
        got = client.post("/learn", json={"id": ids[i], "y": y})
        assert got.status_code == 200, got.text
        assert got.json()["y"] == offline.predict_one(x)  # predicted again on the features kept, then learned
        offline.learn_one(x, y)

    with server.client() as client:
        ids = [client.post("/predict", json={"x": x}).json()["id"] for x, _ in examples]
        for i in range(0, 30, 3):
            label(client, i)
        client.get("/model").raise_for_status()  # answered once every record before it is durable
    server.kill()
    server.start()
    with server.client() as client:
        for i in range(0, 30, 3):
            assert client.post("/learn", json={"id": ids[i], "y": 1}).status_code == 409
        for i in range(30):
            if i % 3:
                label(client, i)
        assert client.post("/learn", json={"id": ids[1], "y": 1}).status_code == 409
        path = tmp_path / "served.olearn"
        path.write_bytes(client.get("/model").content)
    assert_same_model(olearn.load(path), offline)


def test_single_predictions_kept_together_expire_each_by_its_own_time(serve):
    """Three predictions, then three more 3.5 s later (kept in one record, but for a snapshot between): 3 s after, the
    first three are over the 6 s they wait (404), the others not. The later ones are labelled first, and a machine so
    slow that their labels came 6 s or more after them skips the test rather than fail it (their age then passed the
    6 s); the first ones are over the age whatever the machine's pace."""
    server = serve(["--algo", "pa1", "--feedback-ttl", "6"])
    with server.client() as client:
        client.post("/learn", json={"x": {"a": 1.0}, "y": 1}).raise_for_status()
        first = [client.post("/predict", json={"x": {"a": float(i)}}).json()["id"] for i in range(3)]
        time.sleep(3.5)
        made = time.monotonic()
        later = [client.post("/predict", json={"x": {"a": float(i)}}).json()["id"] for i in range(3)]
        time.sleep(3.0)
        answers = [client.post("/learn", json={"id": key, "y": -1}) for key in later]
        if time.monotonic() - made >= 6.0 and any(answer.status_code == 404 for answer in answers):
            pytest.skip("the machine took 3 s more than asked between the later predictions and their labels")
        assert [answer.status_code for answer in answers] == [200] * 3
        for key in first:
            expired = client.post("/learn", json={"id": key, "y": 1})
            assert expired.status_code == 404 and "expired" in expired.json()["error"]
