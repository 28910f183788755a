"""``olearn inspect MODEL``: the hyperparameters, classes, input layout and largest weights of a saved model.

The reference of each description is the model object the test built: its
``get_params``, ``classes_``, ``coef_`` (weights ranked here with plain NumPy)
and the names it was given.
"""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn.cli import cli
from olearn.preprocessing import StandardScaler


def inspect(*args):
    result = CliRunner().invoke(cli, ["inspect", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def described(path, top=20):
    return json.loads(inspect(path, "--json", "--top", top))


def largest(coef, top):
    """(row, column, weight) of the ``top`` non-zero entries by |weight|, a plain transcription."""
    coef = np.atleast_2d(coef)
    entries = [(i, j, coef[i, j]) for i in range(coef.shape[0]) for j in range(coef.shape[1]) if coef[i, j] != 0]
    entries.sort(key=lambda e: -abs(e[2]))
    return entries[:top]


@pytest.fixture
def named(tmp_path):
    """A binary learner of dict examples: a vocabulary of names, one a category."""
    model = olearn.PAClassifier(variant="pa1", C=0.5)
    rows = [({"age": 2.0, "city": "Paris"}, 1), ({"age": -1.0, "income": 3.0}, -1),
            ({"city": "Rome", "income": -0.5}, 1), ({"age": 0.5, "city": "Paris"}, -1)]
    for x, y in rows:
        model.learn_one(x, y)
    path = tmp_path / "named.npz"
    model.save(path)
    return model, path


def test_json_describes_a_named_binary_model(named):
    model, path = named
    d = described(path, top=3)
    assert d["learner"] == "PAClassifier" and d["task"] == "binary"
    assert d["hyperparameters"]["C"] == 0.5 and d["hyperparameters"]["variant"] == "pa1"
    assert d["classes"] == [-1, 1]
    assert d["input"] == {"n_features": 4, "names": "vocabulary", "vocabulary_size": 4}
    columns = model.vocabulary_
    names = {column: name for name, column in columns.items()}
    expected = [{"feature": names[j], "column": j, "class": None, "weight": w}
                for _, j, w in largest(model.coef_, 3)]
    assert d["weights"] == expected
    assert {"age", "city=Paris", "income", "city=Rome"} == set(columns)


def test_table_names_the_features(named):
    model, path = named
    out = inspect(path, "--top", 2)
    assert "PAClassifier (binary)" in out and "vocabulary" in out
    for _, j, w in largest(model.coef_, 2):
        name = {c: n for n, c in model.vocabulary_.items()}[j]
        line = next(line for line in out.splitlines() if f" {name} " in line)
        assert f"{w:.6g}" in line


def test_multiclass_weights_name_their_class(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    model = olearn.PAMulticlass().partial_fit(X, y)
    model.save(tmp_path / "m.npz")
    d = described(tmp_path / "m.npz", top=4)
    assert d["task"] == "multiclass" and d["classes"] == ["a", "b", "c"]
    assert d["input"] == {"n_features": 5, "names": "columns"}
    assert d["weights"] == [{"feature": None, "column": j, "class": "abc"[i], "weight": w}
                            for i, j, w in largest(model.coef_, 4)]


def test_regression_and_pipeline(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3)) * [1.0, 10.0, 100.0]
    regressor = olearn.PARegressor().partial_fit(X, X[:, 0])
    regressor.save(tmp_path / "r.npz")
    d = described(tmp_path / "r.npz", top=1)
    assert d["task"] == "regression" and d["classes"] is None
    (_, j, w), = largest(regressor.coef_, 1)
    assert d["weights"] == [{"feature": None, "column": j, "class": None, "weight": w}]

    pipeline = StandardScaler() | olearn.AROW(covariance="diag")
    pipeline.partial_fit(X, np.where(X[:, 1] > 0, 1, -1))
    pipeline.save(tmp_path / "p.npz")
    d = described(tmp_path / "p.npz")
    assert d["learner"] == "AROW" and d["hyperparameters"]["covariance"] == "diag"
    assert [step["step"] for step in d["input"]["pipeline"]] == ["StandardScaler", "AROW"]
    learner = pipeline.steps[-1][1]
    assert [e["weight"] for e in d["weights"]] == [w for _, _, w in largest(learner.coef_, 20)]


def test_a_model_of_olearn_run_records_how_its_file_was_read(tmp_path):
    path = tmp_path / "train.svm"
    path.write_text("1 1:0.5 3:1\n-1 2:1\n1 1:1 2:-0.5\n")
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", str(path), "-f", str(tmp_path / "m.npz")])
    assert result.exit_code == 0, result.output
    d = described(tmp_path / "m.npz")
    assert d["input"]["read_as"]["format"] == "libsvm" and d["input"]["names"] == "columns"
    coef = np.ravel(olearn.load(tmp_path / "m.npz").coef_)
    assert [e["column"] for e in d["weights"]] == [j for _, j, _ in largest(coef, 20)]


def test_hashed_names_are_not_kept_and_the_table_says_so(tmp_path):
    model = olearn.PAClassifier(n_bits=8)
    model.learn_one({"word": 1.0}, 1)
    model.learn_one({"other": 1.0}, -1)
    model.save(tmp_path / "h.npz")
    d = described(tmp_path / "h.npz")
    assert d["input"]["names"] == "hashed" and d["input"]["n_bits"] == 8
    assert all(e["feature"] is None for e in d["weights"]) and len(d["weights"]) == 2
    assert "keep no names" in inspect(tmp_path / "h.npz")


def test_uniclass_center_and_kernel_support_set(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    uniclass = olearn.PAUniclass().partial_fit(X)
    uniclass.save(tmp_path / "u.npz")
    d = described(tmp_path / "u.npz", top=2)
    assert d["task"] == "uniclass"
    assert [e["weight"] for e in d["weights"]] == [w for _, _, w in largest(uniclass.center_, 2)]
    olearn.PAClassifier(kernel="rbf").partial_fit(X, np.where(X[:, 0] > 0, 1, -1)).save(tmp_path / "k.npz")
    assert described(tmp_path / "k.npz")["weights"] is None
    assert "no weight vector to show" in inspect(tmp_path / "k.npz")
