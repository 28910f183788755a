"""The routes of ``olearn serve`` against an offline learner fed the same examples.

The reference is the learner's own streaming API (``learn_one``,
``predict_learn_one``, ``predict_one``, ``decision_function``, and ``partial_fit`` for a batch to learn) called with
the dicts the JSON stands for: every key a name, digits too (the feature keys of a service of an empty
learner or of a model that learned names).
"""

import subprocess
import sys

import numpy as np
import pytest

import olearn

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()


def _stream(rng, labels, n):
    for _ in range(n):
        x = {str(j): float(rng.normal()) for j in rng.choice(20, size=3, replace=False)}
        x["city"] = str(rng.choice(["Paris", "Rome"]))
        x["age"] = float(rng.uniform(0, 1))
        yield x, labels[int(rng.integers(len(labels)))]


def _check_service(server, offline, labels, tmp_path):
    rng = np.random.default_rng(0)
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 0
        first = client.post("/predict", json={"x": {"0": 1.0}}).json()
        assert isinstance(first.pop("id"), str)  # the prediction's id, for feedback
        assert first == {"y": None, "score": None}
        examples = list(_stream(rng, labels, 30))
        seq = 0
        for i, (x, y) in enumerate(examples[:10]):
            answer = client.post("/learn", json={"x": x, "y": y})
            seq += 1
            assert answer.status_code == 200 and answer.json() == {"seq": seq, "learned": 1}
            offline.learn_one(x, y)
        batch = examples[10:20]
        weights = [0.5 + i / 10 for i in range(10)]
        answer = client.post("/learn", json={"x": [x for x, _ in batch], "y": [y for _, y in batch],
                                             "sample_weight": weights}).json()
        seq += 10
        assert answer == {"seq": seq, "learned": 10}
        # a batch is learned by one pass of the learner over its rows
        offline.partial_fit([x for x, _ in batch], [y for _, y in batch], sample_weight=weights)
        for x, y in examples[20:25]:
            answer = client.post("/predict_learn", json={"x": x, "y": y}).json()
            seq += 1
            assert answer == {"seq": seq, "learned": 1, "y": _plain(offline.predict_learn_one(x, y))}
        batch = examples[25:]
        answer = client.post("/predict_learn", json={"x": [x for x, _ in batch], "y": [y for _, y in batch]})
        seq += len(batch)
        assert answer.json()["y"] == [_plain(offline.predict_learn_one(x, y)) for x, y in batch]
        probe = [x for x, _ in _stream(rng, labels, 4)]
        one = client.post("/predict", json={"x": probe[0]}).json()
        assert one["y"] == _plain(offline.predict_one(probe[0]))
        many = client.post("/predict", json={"x": probe}).json()
        assert len(set(many.pop("id"))) == len(probe)
        assert many["y"] == [_plain(offline.predict_one(x)) for x in probe]
        scores = getattr(offline, "decision_function", offline.predict)([x for x in probe])
        assert many["score"] == scores.tolist()
        assert one["score"] == scores.tolist()[0]
        response = client.get("/model")
        assert response.status_code == 200 and response.headers["X-Olearn-Updates"] == str(seq)
        path = tmp_path / "served.npz"
        path.write_bytes(response.content)
        served = olearn.load(path)
        assert served.vocabulary_ == offline.vocabulary_
        assert np.array_equal(served.coef_, offline.coef_)
        health = client.get("/health").json()
        assert health.pop("snapshot")["ok"]
        assert health == {"status": "ok", "updates": seq, "estimator": type(offline).__name__,
                          "feature_keys": "names", "classes": offline.classes_.tolist()}
    assert server.stop() == 130  # Ctrl-C, as olearn reports it; the state is kept
    server.start()
    with server.client() as client:
        assert client.get("/health").json()["updates"] == seq
        again = client.post("/predict", json={"x": probe}).json()
        again.pop("id")
        assert again == many
    return seq


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def test_binary_from_an_algorithm(serve, tmp_path):
    server = serve(["--algo", "pa1", "-C", "0.3"])
    _check_service(server, olearn.PAClassifier(variant="pa1", C=0.3), ["spam", "ham"], tmp_path)


def test_multiclass_from_an_algorithm(serve, tmp_path):
    server = serve(["--algo", "mira"])
    _check_service(server, olearn.MIRA(), [0, 1, 2, 3], tmp_path)


def test_regression_from_a_model_file(serve, tmp_path):
    start = olearn.PARegressor(variant="pa2", C=0.5, epsilon=0.05)
    start.learn_one({"age": 1.0}, 0.25)
    start.save(tmp_path / "start.npz")
    server = serve([str(tmp_path / "start.npz")])
    offline = olearn.load(tmp_path / "start.npz")
    with server.client() as client:
        # a model file starts the count at 0: it counts the updates learned here
        assert client.get("/health").json()["updates"] == 0
        x = {"age": 0.5, "3": 2.0}
        answer = client.post("/predict_learn", json={"x": x, "y": 1.5, "sample_weight": 2}).json()
        assert answer["y"] == offline.predict_learn_one(x, 1.5, sample_weight=2)
        assert client.post("/predict", json={"x": x}).json()["y"] == offline.predict_one(x)


def test_serve_without_a_starting_model_is_a_usage_error(tmp_path):
    from click.testing import CliRunner

    from olearn.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--state-dir", str(tmp_path / "s")])
    assert result.exit_code == 2 and "give a MODEL file or --algo" in result.output


@pytest.mark.parametrize("make", [lambda: olearn.PAUniclass(), lambda: olearn.PASequence()])
def test_learners_without_features_per_example_are_refused(tmp_path, make):
    from olearn.serve._store import Store

    with pytest.raises(ValueError, match="olearn serve serves learners of examples with features"):
        Store(tmp_path / "s").open(make, say=lambda text: None)


@pytest.mark.parametrize("token", ["short"])
def test_a_short_token_is_refused(tmp_path, token):
    from click.testing import CliRunner

    from olearn.cli import cli

    (tmp_path / "t").write_text(token)
    result = CliRunner().invoke(cli, ["serve", "--algo", "pa", "--token-file", str(tmp_path / "t")])
    assert result.exit_code == 1 and "at least 16" in result.output
    assert TOKEN not in result.output


def test_import_olearn_loads_no_web_stack():
    code = ("import sys, olearn, olearn.cli; "
            "print(sorted(m for m in ('starlette', 'uvicorn', 'httpx', 'prometheus_client') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_serve_without_the_extra_names_it(tmp_path):
    code = ("import sys; sys.modules['uvicorn'] = None; from olearn.cli import main; "
            "main(['serve', '--algo', 'pa', '--state-dir', sys.argv[1]])")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True)
    assert result.returncode == 1
    assert 'olearn serve needs uvicorn: pip install "olearn[serve]"' in result.stderr
