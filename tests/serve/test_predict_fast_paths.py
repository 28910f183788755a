"""The fast paths of a batch ``/predict`` give what the plain ones give: the body decoded by orjson is the document
(or the error) of :func:`parse_json`, a batch of named rows read at once is the matrix of its known names, and an
answer encoded by orjson refuses what JSON cannot hold instead of writing a null."""

import json
import math
import random
import struct

import numpy as np
import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

import olearn  # noqa: E402
from olearn._features import FeatureMap  # noqa: E402
from olearn.serve._fast_json import parse_json_fast  # noqa: E402
from olearn.serve._json_route import json_content  # noqa: E402
from olearn.serve._feedback import new_ids  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, RequestError, parse_json, read_features  # noqa: E402


def _outcome(parse, body):
    try:
        return parse(body)
    except RequestError as err:
        return err.status, err.message


@pytest.mark.parametrize("body", [
    b'{"x": {"a": 1, "a": 2}}',                         # a repeated key
    b'{"x": {"a" : 1, "a":2}}',                         # ... one with a space before its colon
    b'{"x": [{"a": 1.0}, {"b": 2.0, "c": 3, "b": 4}]}',  # ... in a batch's row
    b'{"x": {"a": 1}, "id": "p\\":", "x": {"b": 1}}',   # ... with a key's end spelled in a string
    b'{"x": {"t": "12:30", "u": {"v": 1, "v": 2}}}',    # ... nested, a colon in a string
    b'{"x": {"a": 18446744073709551616}}',              # an integer past 64 bits, which orjson reads as a float
    b'{"x": {"a": -9223372036854775809, "b": 12345678901234567890123}}',
    b'{"x": {"a": NaN}}', b'{"x": {"a": Infinity}}', b'{"x": {"a": 1e400}}',
    b'{"x": {"a": "\\ud800"}}', b'{"x": {"\xed\xa0\x80": 1}}',  # lone surrogates, escaped and as UTF-8 bytes
    b'{"x": {"smile": "\\ud83d\\ude00", "caf\xc3\xa9": 1}}',
    b'\xef\xbb\xbf{"x": {"a": 1}}', b'[{"x": 1}]', b'{"x": ', b'', b'{"x": {"a": 01}}',
    b'{"x": [{}, {"a": -0, "b": -0.0, "c": true, "d": null}]}',
    b'{"x":{"a\\"":1,"b":[{"c":1}],"d":{}}}',
])
def test_the_fast_decode_answers_what_parse_json_answers(body):
    assert repr(_outcome(parse_json_fast, body)) == repr(_outcome(parse_json, body))


def test_a_repeated_key_is_refused_and_long_integers_stay_exact():
    for body in (b'{"x": {"a": 1, "a": 2}}', b'{"x": [{"a": 1}, {"b" :1, "b": 2}]}'):
        with pytest.raises(RequestError) as refused:
            parse_json_fast(body)
        assert refused.value.status == 422 and "repeats the key" in refused.value.message
    document = parse_json_fast(b'{"x": {"a": 18446744073709551616, "b": -9223372036854775809}}')
    assert document["x"] == {"a": 2 ** 64, "b": -2 ** 63 - 1} and type(document["x"]["a"]) is int


def test_the_fast_decode_reads_every_float_exactly():
    rng = random.Random(7)
    values = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values = [v for v in values if math.isfinite(v)] + [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]
    body = ("{" + ",".join(f'"f{i}":{v!r}' for i, v in enumerate(values)) + "}").encode()
    document = parse_json_fast(body)
    assert [document[f"f{i}"] for i in range(len(values))] == values  # float(repr(v)) == v in Python


def _vocabulary(names):
    features = FeatureMap()
    features.add([(name, column) for column, name in enumerate(names)])
    return features


def test_a_batch_of_named_rows_is_read_at_once_into_its_known_names():
    features = _vocabulary(["a", "b", "c"])
    rows = [{"a": 1.0, "unknown": 5, "c": 2}, {}, {"b": -3}, {"nothing": 1.0}]
    indptr, indices, data, width = features.known_rows(rows, drop_unknown=True)
    assert indptr.tolist() == [0, 2, 2, 3, 3]
    assert indices.tolist() == [0, 2, 1] and data.tolist() == [1.0, 2.0, -3.0] and width == 3
    assert features.known_rows(rows) is None  # to learn: a new name is placed row by row
    indptr, indices, data, width = features.known_rows([{"c": 2, "a": 1.0}, {"b": -3}])
    assert indptr.tolist() == [0, 2, 3] and indices.tolist() == [2, 0, 1] and data.tolist() == [2.0, 1.0, -3.0]


@pytest.mark.parametrize("row", [{"a": "Paris"}, {"a": None}, {"a": True}, {0: 1.0}, {"a": math.nan},
                                 {"a": 2 ** 1100}])
def test_a_batch_the_fast_reading_cannot_take_is_left_to_the_row_by_row_reading(row):
    assert _vocabulary(["a"]).known_rows([{"a": 1.0}, row]) is None
    assert FeatureMap(n_bits=4).known_rows([{"a": 1.0}]) is None  # hashing: names may share a column


def test_a_batch_prediction_is_the_scores_of_its_known_names():
    rng = random.Random(3)
    learner = olearn.PAClassifier()
    for _ in range(60):
        x = {f"f{j}": rng.gauss(0, 1) for j in rng.sample(range(12), 5)}
        learner.learn_one(x, 1 if x.get("f0", 0) + x.get("f1", 0) > 0 else -1)
    model = ServedModel(learner)
    batch = [{f"f{j}": rng.gauss(0, 1) for j in rng.sample(range(15), 6)} for _ in range(30)]  # f12-f14 unknown
    answer = model.predict(read_features({"x": batch}, Limits()))
    # plain NumPy: w.x over the names the model knows, plus the intercept; the class by the sign
    weights = dict(zip(learner.vocabulary_, learner.coef_.ravel()[list(learner.vocabulary_.values())]))
    expected = np.array([sum(weights[k] * v for k, v in x.items() if k in weights) for x in batch])
    expected += float(np.ravel(learner.intercept_)[0])
    np.testing.assert_allclose(answer["score"], expected, rtol=1e-12, atol=1e-12)
    assert answer["y"] == [1 if s > 0 else -1 for s in answer["score"]]


def test_an_answer_is_json_and_a_score_json_cannot_hold_is_an_error_not_a_null():
    answer = {"y": ["caf\u00e9", 2 ** 70, True], "score": [0.25, -1e-7, None], "id": ["a", "b", "c"]}
    assert json.loads(json_content(answer)) == answer
    assert json.loads(json_content({"y": [1, -1], "score": [1.5, -2.0]})) == {"y": [1, -1], "score": [1.5, -2.0]}
    for bad in (math.inf, math.nan):
        with pytest.raises(ValueError):
            json_content({"y": 1, "score": bad})


def test_made_ids_are_distinct_32_hexadecimal_digits():
    ids = new_ids(500)
    assert len(set(ids)) == 500 and all(len(key) == 32 and int(key, 16) >= 0 for key in ids)


def test_the_features_kept_by_predictions_waiting_together_share_one_fsync(tmp_path):
    """Fifteen batch predictions of 100 arriving while the log is busy are logged by one write and fsync (a group
    counts the examples it learns, up to 1000, and a keep learns none), each answered once it is durable."""
    import asyncio

    from olearn.serve._feedback import Pending
    from olearn.serve._metrics import Metrics
    from olearn.serve._store import Store
    from olearn.serve._wal import read_log
    from olearn.serve._writer import Writer

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        appended, append = [], store.append
        store.append = lambda records: appended.append(len(records)) or append(records)
        writer = Writer(model, store, Metrics())
        writer.start()
        batches = [[{"a": float(i), "b": float(j)} for j in range(100)] for i in range(15)]
        # queued before the writer runs: one group takes them all
        kept = [writer.keep(xs, [f"p{i}-{j}" for j in range(100)]) for i, xs in enumerate(batches)]
        answers = await asyncio.gather(*kept)
        await writer.stop()
        return answers, appended, len(model.pending)

    answers, appended, waiting = asyncio.run(scenario())
    assert appended == [15] and waiting == 1500
    assert answers[3] == [f"p3-{j}" for j in range(100)]
    records, _ = read_log(next((tmp_path / "state").glob("log-*.wal")))
    assert [len(r["ids"]) for r in records if r["op"] == "predict"] == [100] * 15


def test_a_kernel_batch_prediction_never_changes_the_served_vocabulary(monkeypatch):
    """A kernel reads a name it never learned as a column it never learned; the batch's names take those columns in
    a copy of the vocabulary, never in the model's, which a snapshot may be saving in another thread meanwhile."""
    learner = olearn.PAClassifier(kernel="rbf")
    for i in range(8):
        learner.learn_one({"a": float(i), "b": 1.0 - i}, 1 if i % 2 else -1)
    model = ServedModel(learner)
    served = learner._feature_map()
    vocabulary = served.vocabulary()
    changes = []
    for method in ("add", "truncate"):
        original = getattr(FeatureMap, method)

        def recorded(self, *args, _original=original, _method=method):
            if self is served:
                changes.append(_method)
            return _original(self, *args)

        monkeypatch.setattr(FeatureMap, method, recorded)
    batch = [{"a": 1.0, "new": 2.0}, {"b": 0.5, "other": -1.0}, {"a": 2.0}]
    answer = model.predict(read_features({"x": batch}, Limits()))
    assert changes == [] and served.vocabulary() == vocabulary
    assert answer["y"] == [learner.predict_one(x) for x in batch]
    np.testing.assert_allclose(answer["score"], [learner.decision_function([x])[0] for x in batch], rtol=1e-12)


def test_a_batch_of_known_names_is_one_matrix_whose_rows_list_their_columns_in_order():
    """The batch's matrix comes in the canonical form of the learner's check (each row's columns in order, which
    the check would otherwise sort by a copy through scipy), with the values of the same names, and the same
    answer."""
    learner = olearn.PAClassifier()
    learner.learn_one({"a": 1.0, "b": -1.0, "c": 0.5, "d": 2.0}, 1)
    learner.learn_one({"d": 1.0, "a": -0.5}, -1)
    model = ServedModel(learner)
    batch = [{"d": 4.0, "b": 2.0, "a": -1.0}, {"c": 3.0, "zz": 1.0, "a": 0.25}, {}, {"b": 1.5}]
    matrix = model._matrix(read_features({"x": batch}, Limits()))
    columns = learner.vocabulary_
    for i, x in enumerate(batch):
        row = matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]]
        known = sorted((columns[k], v) for k, v in x.items() if k in columns)
        assert row.tolist() == [c for c, _ in known]
        assert matrix.data[matrix.indptr[i]:matrix.indptr[i + 1]].tolist() == [v for _, v in known]
    answer = model.predict(read_features({"x": batch}, Limits()))
    assert answer["y"] == [learner.predict_one(x) for x in batch]
    np.testing.assert_allclose(answer["score"], [learner.decision_function([x])[0] for x in batch], rtol=1e-12)
