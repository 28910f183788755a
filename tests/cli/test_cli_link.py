"""``--link logistic``: ``olearn run`` and ``olearn predict`` write class probabilities, as VW's ``--link logistic -p``."""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.cli import cli


@pytest.fixture
def train(tmp_path, make_stream):
    X, y = make_stream(300, 6, seed=3, noise=0.1)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), X, y


def _invoke(*args):
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return result


def test_run_writes_each_rows_probability_before_learning_it(train, tmp_path):
    path, X, y = train
    probs, model = tmp_path / "probs.txt", tmp_path / "model.npz"
    result = _invoke("run", "-a", "pa1", "-C", "0.1", "--link", "logistic", "-p", probs, "-f", model, path)
    assert result.exit_code == 0, result.output
    written = np.array([float(line) for line in probs.read_text().splitlines()])
    # the library's calibrated learner on the same rows, row by row: its probability of +1 before each update
    want = olearn.run(olearn.PAClassifier(C=0.1, calibration="platt"), X, y).probabilities[:, 1]
    np.testing.assert_allclose(written, want, rtol=1e-12)
    # the model keeps its calibration: predict and run -t write its probabilities
    loaded = olearn.load(model)
    assert loaded.calibration == "platt"
    result = _invoke("predict", "-m", model, "--link", "logistic", path)
    assert result.exit_code == 0, result.output
    predicted = np.array([float(line) for line in result.stdout.splitlines()])
    np.testing.assert_allclose(predicted, loaded.predict_proba(X)[:, 1], rtol=1e-12)
    tested = tmp_path / "tested.txt"
    assert _invoke("run", "-i", model, "-t", "--link", "logistic", "-p", tested, path).exit_code == 0
    np.testing.assert_allclose([float(line) for line in tested.read_text().splitlines()], predicted, rtol=1e-12)


def test_logistic_ogd_writes_the_sigmoid_of_its_score(train, tmp_path):
    path, X, y = train
    probs = tmp_path / "probs.txt"
    result = _invoke("run", "-a", "ogd", "--loss", "logistic", "--link", "logistic", "-p", probs, path)
    assert result.exit_code == 0, result.output
    scores = olearn.run(olearn.OGDClassifier(loss="logistic"), X, y).scores
    written = np.array([float(line) for line in probs.read_text().splitlines()])
    np.testing.assert_allclose(written, 1.0 / (1.0 + np.exp(-scores)), rtol=1e-12)


@pytest.mark.parametrize("algo, cls, params", [
    ("arow", "AROW", {"covariance": "diag"}), ("sop", "SecondOrderPerceptron", {}), ("pnorm", "PNorm", {}),
    ("svm", "OnlineSVM", {}),
])
def test_every_margin_learner_writes_its_calibrated_probabilities(train, tmp_path, algo, cls, params):
    path, X, y = train
    probs = tmp_path / "probs.txt"
    result = _invoke("run", "-a", algo, "--link", "logistic", "-p", probs, path)
    assert result.exit_code == 0, result.output
    want = olearn.run(getattr(olearn, cls)(calibration="platt", **params), X, y).probabilities[:, 1]
    np.testing.assert_allclose([float(line) for line in probs.read_text().splitlines()], want, rtol=1e-12)


@pytest.mark.parametrize("args, message", [
    (["-a", "ogd"], "needs --loss logistic"),
    (["-a", "pa1", "--raw", "-p", "-"], "give one of them"),
    (["-a", "pa1-regression"], "probabilities of two classes"),
    (["-a", "pa1", "--workers", "2"], "--link does not apply on Dask"),
])
def test_refused_where_it_does_not_apply(train, args, message):
    result = _invoke("run", "--link", "logistic", *args, train[0])
    assert result.exit_code == 2
    assert message in result.output


def test_predict_refuses_a_model_without_probabilities(train, tmp_path):
    model = tmp_path / "model.npz"
    assert _invoke("run", "-a", "pa1", "-f", model, train[0]).exit_code == 0
    result = _invoke("predict", "-m", model, "--link", "logistic", train[0])
    assert result.exit_code == 2
    assert "has no probabilities" in result.output
