"""``olearn run``/``predict`` refuse what they cannot answer honestly, in one line naming the way out."""

import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn.cli import cli
from olearn.compose import Pipeline

# olearn.cli.main with Dask's modules unimportable, as on an installation without the extra
WITHOUT_DASK = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None; "
                "from olearn.cli import main; main(sys.argv[1:])")


def test_workers_without_dask_is_one_line_naming_the_extra(tmp_path):
    data = tmp_path / "a.vw"
    data.write_text("1 | a:1\n-1 | b:1\n")
    done = subprocess.run([sys.executable, "-c", WITHOUT_DASK, "run", "-a", "pa1", "--workers", "2", str(data)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ['olearn: error: olearn.distributed needs Dask\'s distributed scheduler: '
                                        'pip install "olearn[distributed]"']


def test_a_vw_label_that_is_a_word_is_not_a_number(tmp_path):
    data = tmp_path / "words.vw"
    data.write_text("1 | a:1\nyes | a:1 b:2\n")
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", str(data)])
    assert result.exit_code == 1
    assert f"{data}:2:1: the label 'yes' is not a number" in result.stderr


def test_a_vw_line_with_only_a_tag_still_has_no_label(tmp_path):
    data = tmp_path / "tagged.vw"
    data.write_text("1 | a:1\n'row2 | b:1\n")
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", str(data)])
    assert result.exit_code == 1
    assert f"{data}:2:1: the line has no label" in result.stderr


def write_svm(path, X, y):
    path.write_text("".join(f"{label:g} " + " ".join(f"{j}:{v:.4f}" for j, v in enumerate(row, start=1)) + "\n"
                            for label, row in zip(y, X)))
    return str(path)


@pytest.fixture
def files(tmp_path):
    """One stream of 200 rows labelled four ways: 0/1, -1/+1, four classes, real values."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    s = X @ np.array([1.0, -1.0, 0.5, 0.0])
    labels = {"b01": (s > 0).astype(int), "bpm": np.where(s > 0, 1, -1), "multi": np.digitize(s, [-1, 0, 1]) + 1,
              "reg": s}
    return {name: write_svm(tmp_path / f"{name}.svm", X, y) for name, y in labels.items()}


def trained(tmp_path, algo, data):
    model = tmp_path / f"{algo}.npz"
    assert CliRunner().invoke(cli, ["run", "-a", algo, "--quiet", data, "-f", str(model)]).exit_code == 0
    return str(model)


def predict(model, data):
    return CliRunner().invoke(cli, ["predict", "-m", model, data])


def test_a_binary_model_refuses_labels_outside_its_classes(tmp_path, files):
    model = trained(tmp_path, "pa1", files["b01"])
    assert predict(model, files["b01"]).exit_code == 0
    result = predict(model, files["bpm"])
    # the first -1/+1 row whose label is not 0 or 1: its line is named
    first = next(n for n, line in enumerate(open(files["bpm"]), start=1) if line.startswith("-1 "))
    assert result.exit_code == 1
    assert f"{files['bpm']}:{first}: example {first} has the label -1, and {model} is a binary model of the " \
           "classes 0 1" in result.stderr
    assert "accuracy:" not in result.stderr
    regression = predict(model, files["reg"])
    assert regression.exit_code == 1 and "is a binary model" in regression.stderr


def test_a_multiclass_model_says_which_labels_it_cannot_predict(tmp_path, files):
    model = trained(tmp_path, "pa1-multiclass", files["multi"])
    assert "warning" not in predict(model, files["multi"]).stderr
    result = predict(model, files["bpm"])
    assert result.exit_code == 0
    negatives = sum(line.startswith("-1 ") for line in open(files["bpm"]))
    assert (f"olearn: warning: {negatives} of 200 labels of {files['bpm']} (such as -1) are none of the classes of "
            f"{model} (1 2 3 4)") in result.stderr


def test_a_regression_model_on_class_labels_says_so(tmp_path, files):
    model = trained(tmp_path, "pa1-regression", files["reg"])
    assert "warning" not in predict(model, files["reg"]).stderr
    result = predict(model, files["bpm"])
    assert result.exit_code == 0
    assert (f"every label of {files['bpm']} is -1 or 1, as in a file of two classes, and {model} is a regression "
            "model") in result.stderr


@pytest.fixture
def named(tmp_path):
    """A VW file of 300 rows whose features are named a and b (default namespace), and the same rows as dicts."""
    rng = np.random.default_rng(5)
    rows, labels, lines = [], [], []
    for a, b in rng.normal(size=(300, 2)).round(4):
        label = 1 if a - 0.5 * b > 0 else -1
        rows.append({"a": float(a), "b": float(b)})
        labels.append(label)
        lines.append(f"{label} | a:{a} b:{b}\n")
    path = tmp_path / "named.vw"
    path.write_text("".join(lines))
    return str(path), rows, labels


def learned_in_python(model, rows, labels, path):
    for x, label in zip(rows, labels):
        model.learn_one(x, label)
    model.save(path)
    return [model.predict_one(x) for x in rows]


@pytest.mark.parametrize("make", [lambda: olearn.PAClassifier(variant="pa1"),
                                  lambda: Pipeline(olearn.PAClassifier(variant="pa1"))], ids=["learner", "pipeline"])
def test_names_learned_as_a_vocabulary_are_refused_on_a_vw_file(tmp_path, named, make):
    path, rows, labels = named
    model = str(tmp_path / "m.npz")
    learned_in_python(make(), rows, labels, model)
    result = predict(model, path)
    assert result.exit_code == 1 and result.stdout == ""
    assert f"{model} learned its 2 named features as a vocabulary" in result.stderr


@pytest.mark.parametrize("make", [lambda: olearn.PAClassifier(variant="pa1", n_bits=12),
                                  lambda: Pipeline(olearn.PAClassifier(variant="pa1"), n_bits=12)],
                         ids=["learner", "pipeline"])
def test_names_hashed_in_python_predict_a_vw_file_as_in_python(tmp_path, named, make):
    path, rows, labels = named
    model = str(tmp_path / "m.npz")
    expected = learned_in_python(make(), rows, labels, model)
    assert len(set(expected)) == 2
    result = predict(model, path)
    assert result.exit_code == 0, result.stderr
    assert [int(v) for v in result.stdout.split()] == expected


def test_testing_a_model_with_t_checks_the_labels_as_predict_does(tmp_path, files):
    binary = trained(tmp_path, "pa1", files["b01"])
    result = CliRunner().invoke(cli, ["run", "-i", binary, "-t", files["bpm"]])
    assert result.exit_code == 1 and "is a binary model of the classes 0 1" in result.stderr
    multiclass = trained(tmp_path, "pa1-multiclass", files["multi"])
    result = CliRunner().invoke(cli, ["run", "-i", multiclass, "-t", "--quiet", files["bpm"]])
    assert result.exit_code == 0 and f"none of the classes of {multiclass} (1 2 3 4)" in result.stderr
