"""What the service refuses: requests without the token, oversized ones, and every kind of malformed input.

Each refusal must be a 4xx with a JSON error, leave the model exactly as it
was (checked by the predictions of a probe and, after one more valid update,
by the served model against an offline learner that learned only the valid
updates), and leave the server up.
"""

import json

import numpy as np
import pytest

import olearn

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()

CAPS = ["--max-body-bytes", "2000", "--max-batch", "3", "--max-features", "5", "--max-index", "100"]
# the rules of index keys apply to a service reading every key as an index (names are refused there too)
PROBE = {"x": [{"0": 1.0, "4": 1.0}, {"1": -1.0, "5": 2.0}, {"6": 1.0, "2": 0.5}]}


def _refused(response, status):
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"} and response.json()["error"]


@pytest.fixture
def started(serve):
    server = serve(["--algo", "pa1", "--feature-keys", "indices"] + CAPS)
    offline = olearn.PAClassifier(variant="pa1")
    with server.client() as client:
        for x, y in (({"100": 0.5, "4": 1.0}, 1), ({"1": 1.0, "5": -1.0, "6": 1.0}, -1)):
            assert client.post("/learn", json={"x": x, "y": y}).status_code == 200
            offline.learn_one({int(k): v for k, v in x.items()}, y)
    return server, offline


def test_writes_need_the_bearer_token(started):
    server, _ = started
    body = {"x": {"1": 1.0}, "y": 1}
    for route in ("/learn", "/predict_learn"):
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": f"Basic {TOKEN}"},
                        {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": "Bearer"}):
            with server.client(token=None) as client:
                response = client.post(route, json=body, headers=headers)
            _refused(response, 401)
            assert response.headers["WWW-Authenticate"] == "Bearer"
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 2


def test_without_a_token_file_the_service_is_read_only(serve, tmp_path):
    server = serve(["--algo", "pa1", "--public-reads"], token=False)
    with server.client(token=None) as client:
        _refused(client.post("/learn", json={"x": {"1": 1.0}, "y": 1}), 403)
        answer = client.post("/predict", json={"x": {"1": 1.0}}).json()
        assert answer.pop("id") and answer == {"y": None, "score": None}


BAD = [
    # (body as text, status)
    ("not json", 400),
    ("[1, 2]", 400),
    ('{"x": {"1": NaN}, "y": 1}', 400),
    ('{"x": {"1": Infinity}, "y": 1}', 400),
    ('{"x": {"1": -Infinity}, "y": 1}', 400),
    ('{"x": {"1": 1.0}, "y": 1', 400),
    ('{"x": {"1": 1e999}, "y": 1}', 422),
    ('{"x": {"1": 1.0}, "y": 1e999}', 422),
    ('{"x": {"1": [1.0]}, "y": 1}', 422),
    ('{"x": {"1": {"a": 1}}, "y": 1}', 422),
    ('{"x": {"1": 1.0, "2": 1e999}, "y": 1}', 422),
    ('{"x": {"1": 1.0, "2": 1' + "0" * 400 + '}, "y": 1}', 422),
    ('{"x": [1.0, 2.0], "y": [1, 1]}', 422),
    ('{"x": "1:1.0", "y": 1}', 422),
    ('{"x": {"-1": 1.0}, "y": 1}', 422),
    ('{"x": {"101": 1.0}, "y": 1}', 422),
    ('{"x": {"99999999999999999999999": 1.0}, "y": 1}', 422),
    ('{"x": {"1": 1.0}}', 422),
    ('{"y": 1}', 422),
    ('{"x": {"1": 1.0}, "y": {"a": 1}}', 422),
    ('{"x": {"1": 1.0}, "y": null}', 422),
    ('{"x": {"1": 1.0}, "y": 7}', 422),                       # a third class for a binary learner
    ('{"x": {"1": 1.0}, "y": [1, -1]}', 422),                 # a label set for a binary learner
    ('{"x": {"1": 1.0}, "y": 1, "sample_weight": -1}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "sample_weight": "2"}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "sample_weight": 1e999}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "extra": 1}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "id": "has space"}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "id": 17}', 422),
    ('{"x": [], "y": []}', 422),
    ('{"x": [{"1": 1.0}, {"2": 1.0}], "y": [1]}', 422),
    ('{"x": [{"1": 1.0}, {"2": 1.0}], "y": [1, 1], "sample_weight": [1]}', 422),
    ('{"x": [{"1": 1.0}, {"2": 1.0}, {"3": 1.0}], "y": [1, -1, 5]}', 422),   # the last refused: none learned
    ('{"x": [{"1": 1.0}, {"new": 1.0}, {"a": 1.0, "2": 1}], "y": [1, -1, "x"]}', 422),
    ('{"x": {"1": 1.0, "2": 1.0, "3": 1.0, "4": 1.0, "5": 1.0, "6": 1.0}, "y": 1}', 413),
    ('{"x": [{"1": 1.0}, {"1": 1.0}, {"1": 1.0}, {"1": 1.0}], "y": [1, 1, 1, 1]}', 413),
    ('{"x": {"a": "' + "z" * 3000 + '"}, "y": 1}', 413),
    # one spelling for each key: a repeated key, an index written with leading zeros, a lone surrogate
    ('{"x": {"1": 1.0, "1": 5.0}, "y": 1}', 422),
    ('{"x": {"1": 1.0}, "y": 1, "y": -1}', 422),
    ('{"x": [{"a": 1.0}, {"b": 1.0, "b": 2.0}], "y": [1, 1]}', 422),
    ('{"x": {"01": 1.0}, "y": 1}', 422),
    ('{"x": {"001": 1.0, "2": 1.0}, "y": 1}', 422),
    ('{"x": {"-0": 1.0}, "y": 1}', 422),
    ('{"x": {"1": 1.0, "' + "0" * 1900 + '1": 1.0}, "y": 1}', 422),
    ('{"x": {"\\ud800": 1.0}, "y": 1}', 422),
    ('{"x": {"c": "red\\udc00"}, "y": 1}', 422),
]


@pytest.mark.parametrize("route", ["/learn", "/predict_learn"])
def test_malformed_updates_are_refused_and_leave_the_model_untouched(started, route, tmp_path):
    server, offline = started
    with server.client() as client:
        before = client.post("/predict", json=PROBE).json()["score"]
        for body, status in BAD:
            response = client.post(route, content=body.encode(), headers={"Content-Type": "application/json"})
            _refused(response, status)
            assert client.post("/predict", json=PROBE).json()["score"] == before, body
            assert client.get("/health").json()["updates"] == 2, body
        # one more valid update, then the served model must be the offline learner's, bit for bit
        assert client.post(route, json={"x": {"2": 1.0, "7": 0.5}, "y": 1}).json()["seq"] == 3
        offline.learn_one({2: 1.0, 7: 0.5}, 1)
        (tmp_path / "m.npz").write_bytes(client.get("/model").content)
    served = olearn.load(tmp_path / "m.npz")
    assert served.vocabulary_ == offline.vocabulary_
    assert np.array_equal(served.coef_, offline.coef_)


def test_malformed_predictions_are_refused(started):
    server, _ = started
    with server.client() as client:
        for body, status in [("nope", 400), ('{"x": {"1": NaN}}', 400), ('{"x": {"1": "a", "2": [1]}}', 422),
                             ('{"x": {"-3": 1.0}}', 422), ('{"x": {"1": 1.0}, "y": 1}', 422), ("{}", 422),
                             ('{"x": [{"1": 1}, {"1": 1}, {"1": 1}, {"1": 1}]}', 413),
                             ('{"x": {"01": 1.0}}', 422), ('{"x": {"1": 1.0, "1": 2.0}}', 422),
                             ('{"x": {"\\udfff": 1.0}}', 422)]:
            _refused(client.post("/predict", content=body.encode()), status)
        assert client.get("/health").status_code == 200


def test_a_body_past_the_cap_is_refused_before_it_is_read_whole(started):
    server, _ = started
    big = json.dumps({"x": {"a": "z" * 5000}, "y": 1}).encode()

    def chunks():  # no Content-Length: the cap is counted while reading
        for start in range(0, len(big), 500):
            yield big[start:start + 500]

    with server.client() as client:
        _refused(client.post("/learn", content=big), 413)
        _refused(client.post("/learn", content=chunks()), 413)
        _refused(client.post("/predict", content=big), 413)
        assert client.get("/health").json()["updates"] == 2


def test_a_retried_id_is_learned_once_even_across_a_restart(started):
    server, offline = started
    body = {"x": {"3": 1.0}, "y": -1, "id": "update-1"}
    with server.client() as client:
        first = client.post("/predict_learn", json=body).json()
        assert first == {"seq": 3, "learned": 1, "y": offline.predict_learn_one({3: 1.0}, -1)}
        assert client.post("/predict_learn", json=body).json() == {**first, "duplicate": True}
        _refused(client.post("/predict_learn", json={**body, "y": 1}), 409)
        _refused(client.post("/learn", json=body), 409)  # the same example, learned by another route
    server.kill()
    server.start()
    with server.client() as client:
        assert client.post("/predict_learn", json=body).json() == {**first, "duplicate": True}
        assert client.get("/health").json()["updates"] == 3


def test_frozen_features_refuse_unknown_names_and_indices(serve, tmp_path):
    start = olearn.PAClassifier(n_features=10)
    start.learn_one({0: 1.0}, 1)
    start.learn_one({9: 1.0}, -1)
    start.save(tmp_path / "fixed.npz")
    server = serve([str(tmp_path / "fixed.npz")])
    with server.client() as client:
        _refused(client.post("/predict", json={"x": {"10": 1.0}}), 422)
        _refused(client.post("/learn", json={"x": {"10": 1.0}, "y": 1}), 422)
        assert client.post("/predict", json={"x": {"9": 1.0}}).json()["y"] == -1
    named = olearn.PAClassifier()
    named.learn_one({"a": 1.0, "c": "red"}, 1)
    named.learn_one({"b": 1.0}, -1)
    named.save(tmp_path / "named.npz")
    server = serve([str(tmp_path / "named.npz"), "--freeze-features"], tmp_path / "frozen")
    with server.client() as client:
        for x in ({"z": 1.0}, {"c": "blue"}, {"3": 1.0}):
            _refused(client.post("/predict", json={"x": x}), 422)
            _refused(client.post("/learn", json={"x": x, "y": 1}), 422)
        assert client.post("/learn", json={"x": {"a": 0.5, "c": "red", "b": None}, "y": -1}).status_code == 200
        assert client.get("/health").json()["updates"] == 1


def test_classes_fix_the_label_set(serve, tmp_path):
    server = serve(["--algo", "pa1", "--classes", "1,-1"])
    with server.client() as client:
        assert client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).status_code == 200
        for y in (1e308, 2, True, "1", [2]):
            response = client.post("/learn", json={"x": {"1": 1.0}, "y": y})
            _refused(response, 422)
            assert "this service takes the labels 1, -1 (--classes)" in response.json()["error"]
        _refused(client.post("/learn", json={"x": [{"1": 1.0}, {"2": 1.0}], "y": [-1, 0]}), 422)
        assert client.post("/predict_learn", json={"x": {"2": 1.0}, "y": -1.0}).status_code == 200
        assert client.get("/health").json() == {"status": "ok", "updates": 2, "estimator": "PAClassifier",
                                                "feature_keys": "names", "snapshot": {"ok": True, "updates": 0},
                                                "classes": [-1, 1]}
    server = serve(["--algo", "pa1-multiclass", "--classes", "spam, ham,eggs"], tmp_path / "multiclass")
    with server.client() as client:
        for y in ("spam", "ham", "eggs"):
            assert client.post("/learn", json={"x": {"1": 1.0}, "y": y}).status_code == 200, y
        for y in ("bacon", True, 1):
            _refused(client.post("/learn", json={"x": {"1": 1.0}, "y": y}), 422)


def test_a_model_learned_with_oaa_takes_the_labels_1_to_k_only(serve, tmp_path):
    # as olearn run -i MODEL refuses a label outside 1..K, rather than learning it as a new class
    from click.testing import CliRunner

    from olearn.cli import cli

    (tmp_path / "train.vw").write_text("1 | a\n2 | b\n")
    model = tmp_path / "m.npz"
    learned = CliRunner().invoke(cli, ["run", "--oaa", "3", str(tmp_path / "train.vw"), "-f", str(model), "--quiet"])
    assert learned.exit_code == 0, learned.output
    server = serve([str(model)])
    with server.client() as client:
        assert client.post("/learn", json={"x": {"5": 1.0}, "y": 3}).status_code == 200  # known from the start
        response = client.post("/learn", json={"x": {"5": 1.0}, "y": 4})
        _refused(response, 422)
        assert "this service takes the labels 1, 2, 3 (--oaa 3, which the model was learned with)" in \
            response.json()["error"]
        assert client.get("/health").json()["classes"] == [1, 2, 3]


def test_the_labels_of_oaa_k_are_1_to_k_and_classes_may_name_no_others():
    from olearn.serve._requests import LabelSet, trained_labels

    taken = trained_labels({"format": "vw", "bits": 18, "oaa": 3}, None)
    assert taken.labels == [1, 2, 3] and taken.origin == "--oaa 3, which the model was learned with"
    assert trained_labels({"oaa": 3}, LabelSet("3,2.0,1")).labels == [1, 2, 3]
    with pytest.raises(ValueError, match=r"--classes names other labels than 1\.\.3, those of the --oaa 3"):
        trained_labels({"oaa": 3}, LabelSet("1,2"))  # what olearn serve answers at start, before serving
    asked = LabelSet("spam,ham")
    assert trained_labels({"format": "libsvm"}, asked) is asked and trained_labels({}, None) is None


def test_classes_of_several_kinds_are_refused_at_start():
    from olearn.serve._requests import LabelSet

    for text in ("spam, ham,true", "1,a", "true,0"):
        with pytest.raises(ValueError, match="mixes"):
            LabelSet(text)
    assert LabelSet("spam, ham, eggs").labels == ["spam", "ham", "eggs"]
    assert LabelSet("true,false").labels == [True, False]


def test_an_update_past_max_state_bytes_is_refused_and_the_log_replays_past_a_lower_cap(serve):
    # a full covariance takes 8 d^2 bytes: 300 names take 720,000 bytes, 400 names 1,280,000
    server = serve(["--algo", "arow-full", "--max-state-bytes", "1000000"])
    with server.client() as client:
        assert client.post("/learn", json={"x": {f"a{i}": 1.0 for i in range(300)}, "y": 1}).status_code == 200
        response = client.post("/learn", json={"x": {f"b{i}": 1.0 for i in range(100)}, "y": -1})
        _refused(response, 422)
        assert "would grow the learned state to 1.2 MiB, past max_state_bytes=976.6 KiB" in response.json()["error"]
        assert client.get("/health").json()["updates"] == 1
        assert client.post("/learn", json={"x": {"a3": 1.0}, "y": -1}).status_code == 200
    server.kill()
    server.args = ["--algo", "arow-full", "--max-state-bytes", "1000"]  # lower than the model: it still recovers
    server.start()
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 2
        _refused(client.post("/learn", json={"x": {"c": 1.0}, "y": 1}), 422)
        assert client.post("/learn", json={"x": {"a4": 1.0}, "y": 1}).status_code == 200
