"""A service reads every key of its examples one way (``--feature-keys``), so that no update is refused for the
kind of key another client sent first: names (digits too) or indices (anything else refused up front).

The issue's sequence, ``{"3": 0.5, "city": "Paris"}`` then ``{"4": 1.0}``,
used to be accepted in one order and refused in the other: the name
``city=Paris`` took column 4. The references are plain learners fed the
dicts the JSON stands for (str keys for names, int keys for indices).
"""

import json
import subprocess
import sys

import pytest

from serve_helpers import assert_same_model, require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._model import ServedModel, feature_keys_for  # noqa: E402
from olearn.serve._requests import Limits, RequestError, parse_json, read_features, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import encode, read_log  # noqa: E402

MIXED = ({"3": 0.5, "city": "Paris"}, 1)
INDEXED = ({"4": 1.0}, -1)


def _update(model, x, y, feature_keys):
    limits = Limits(max_index=100, feature_keys=feature_keys)
    return model.apply("learn", read_labelled(parse_json(json.dumps({"x": x, "y": y})), limits))


@pytest.mark.parametrize("order", [(MIXED, INDEXED), (INDEXED, MIXED)])
def test_names_take_the_issue_sequence_in_either_order(order):
    model = ServedModel(olearn.PAClassifier(), feature_keys="names")
    offline = olearn.PAClassifier()
    for x, y in order:
        assert _update(model, x, y, "names")["learned"] == 1
        offline.learn_one(x, y)  # every key a str: a name
    assert sorted(model.estimator.vocabulary_) == ["3", "4", "city=Paris"]
    assert_same_model(model.estimator, offline)


@pytest.mark.parametrize("order", [(MIXED, INDEXED), (INDEXED, MIXED)])
def test_indices_refuse_the_name_of_the_issue_sequence_in_either_order(order):
    model = ServedModel(olearn.PAClassifier(), feature_keys="indices")
    offline = olearn.PAClassifier()
    for x, y in order:
        if x is MIXED[0]:
            with pytest.raises(RequestError) as refused:
                _update(model, x, y, "indices")
            assert refused.value.status == 422
            assert "'city'" in refused.value.message and "--feature-keys indices" in refused.value.message
        else:
            _update(model, x, y, "indices")
            offline.learn_one({4: 1.0}, y)
    assert model.seq == 1
    assert_same_model(model.estimator, offline)  # the refused update left nothing, in either order
    assert offline.n_features_in_ == 5 and offline.vocabulary_ == {}


def test_the_rules_of_each_kind_of_key():
    names, indices = Limits(max_index=100, feature_keys="names"), Limits(max_index=100, feature_keys="indices")
    # names: a key is a name as written ("01" and "1" are two names; no index range applies)
    x = {"01": 1.0, "1": 2.0, "-0": 3.0, "101": 4.0, "99999999999999999999999": 5.0, "city": "Paris"}
    assert read_features({"x": x}, names).dicts == [x]
    # indices: digits only, each written one way, within --max-index, numbers only
    assert read_features({"x": {"3": 0.5, "100": 1.0}}, indices).dicts == [{3: 0.5, 100: 1.0}]
    for bad, named in [({"01": 1.0}, "plain number"), ({"101": 1.0}, "out of range"), ({"-1": 1.0}, "out of range"),
                       ({"3": "Paris"}, "category"), ({"3": 1.0, "a": 1.0}, "'a' is not a column index")]:
        with pytest.raises(RequestError, match=named) as refused:
            read_features({"x": bad}, indices)
        assert refused.value.status == 422


def test_the_default_follows_the_model_and_a_contradiction_is_refused():
    assert feature_keys_for(olearn.PAClassifier()) == "names"  # an empty learner: names, what JSON clients send
    assert feature_keys_for(olearn.PAClassifier(n_bits=8)) == "names"  # names are hashed
    named = olearn.PAClassifier().learn_one({"city": "Paris"}, 1)
    indexed = olearn.PAClassifier().learn_one({0: 1.0, 3: 2.0}, 1)
    assert feature_keys_for(named) == "names" and feature_keys_for(indexed) == "indices"
    assert feature_keys_for(olearn.PAClassifier(), "indices") == "indices"
    with pytest.raises(ValueError, match=r"--feature-keys indices: the model learned 1 named features .*'city=Paris'"):
        feature_keys_for(named, "indices")
    with pytest.raises(ValueError, match="--feature-keys names: the model learned 4 columns by index and no names"):
        feature_keys_for(indexed, "names")


def _open(folder, feature_keys=None):
    store = Store(folder)
    return store, store.open(lambda: olearn.PAClassifier(), say=lambda text: None, feature_keys=feature_keys)


def _learn(store, model, x, y):
    limits = Limits(feature_keys=model.feature_keys)
    examples = read_labelled(parse_json(json.dumps({"x": x, "y": y})), limits)
    answer = model.apply("learn", examples)
    store.append([encode(ServedModel.record("learn", examples, None, None, answer))])


@pytest.mark.parametrize("feature_keys", ["names", "indices"])
def test_a_restart_keeps_the_feature_keys_and_refuses_others(tmp_path, feature_keys):
    store, model = _open(tmp_path / "state", feature_keys)
    _learn(store, model, {"3": 0.5}, 1)
    _learn(store, model, {"4": 1.0}, -1)
    served = model.estimator
    store.snapshot(model)  # a new log: its checkpoint keeps the keys too
    _learn(store, model, {"3": 1.0}, -1)
    store.close()
    store, model = _open(tmp_path / "state")  # no option: the kept keys, not the default
    assert model.feature_keys == feature_keys and model.seq == 3
    assert list(model.estimator.vocabulary_) == (["3", "4"] if feature_keys == "names" else [])
    assert model.estimator.n_features_in_ == (2 if feature_keys == "names" else 5)
    assert model.estimator is not served
    store.close()
    other = "indices" if feature_keys == "names" else "names"
    with pytest.raises(ValueError, match=f"reads feature keys as {feature_keys} .*--feature-keys {other}"):
        _open(tmp_path / "state", other)


def test_a_state_logged_before_the_keys_were_kept_replays_digits_as_indices(tmp_path):
    store, model = _open(tmp_path / "state", "indices")
    _learn(store, model, {"3": 0.5}, 1)
    store.close()
    # the checkpoint as it was written before: without the feature keys
    (path,) = (tmp_path / "state").glob("log-*.wal")
    records, _ = read_log(path)
    del records[0]["feature_keys"]
    path.write_bytes(b"".join(encode(record) for record in records))
    offline = olearn.PAClassifier().learn_one({3: 0.5}, 1)
    store, model = _open(tmp_path / "state")
    assert model.feature_keys == "indices"  # the default of the model it replayed: columns by index
    assert_same_model(model.estimator, offline)
    store.close()
    assert len(list((tmp_path / "state").glob("log-*.wal"))) == 2  # a snapshot now keeps the keys
    store, model = _open(tmp_path / "state")
    assert model.feature_keys == "indices"
    assert_same_model(model.estimator, offline)
    store.close()


def _run_cli(args, timeout=120):
    """``olearn serve ARGS`` to its end (a hang guard, not a timing); its exit status and stderr."""
    done = subprocess.run([sys.executable, "-m", "olearn", "serve", *args], capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stderr


def test_a_model_of_names_is_served_with_names_and_refuses_indices(serve, tmp_path):
    start = olearn.PAClassifier()
    start.learn_one({"city": "Rome", "age": 0.5}, -1)
    start.save(tmp_path / "named.npz")
    offline = olearn.load(tmp_path / "named.npz")
    server = serve([str(tmp_path / "named.npz")])
    with server.client() as client:
        assert client.get("/health").json()["feature_keys"] == "names"
        for x, y in (MIXED, INDEXED):
            assert client.post("/learn", json={"x": x, "y": y}).status_code == 200
            offline.learn_one(x, y)
        (tmp_path / "served.npz").write_bytes(client.get("/model").content)
    assert_same_model(olearn.load(tmp_path / "served.npz"), offline)
    status, err = _run_cli([str(tmp_path / "named.npz"), "--feature-keys", "indices", "--public-reads",
                            "--state-dir", str(tmp_path / "other"), "--port", "0"])
    assert status == 1
    assert "--feature-keys indices: the model learned 2 named features" in err and "--feature-keys names" in err


def test_a_service_of_indices_refuses_names_up_front_and_keeps_its_keys_on_restart(serve, tmp_path):
    server = serve(["--algo", "pa1", "--feature-keys", "indices"])
    with server.client() as client:
        refused = client.post("/learn", json={"x": MIXED[0], "y": MIXED[1]})
        assert refused.status_code == 422 and "--feature-keys indices" in refused.json()["error"]
        assert client.post("/learn", json={"x": INDEXED[0], "y": INDEXED[1]}).json()["seq"] == 1
    assert server.stop() == 130
    restarted = serve(["--algo", "pa1"], server.state_dir)  # the option is not given again
    with restarted.client() as client:
        assert client.get("/health").json()["feature_keys"] == "indices"
        assert client.post("/predict", json={"x": {"city": "Paris"}}).status_code == 422
    assert restarted.stop() == 130
    status, err = _run_cli(["--algo", "pa1", "--feature-keys", "names", "--public-reads", "--state-dir",
                            server.state_dir, "--port", "0"])
    assert status == 1 and "reads feature keys as indices" in err, err
