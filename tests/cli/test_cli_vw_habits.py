"""VW's habitual flags on ``olearn run``: the shared ones mean what they mean in VW; the others get one line."""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def data(tmp_path):
    """A stream of 200 rows labelled 0/1 and in three classes 1..3."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    s = X @ np.array([1.0, -1.0, 0.5, 0.2])
    paths = {}
    for name, y in (("b01", (s > 0).astype(int)), ("multi", np.digitize(s, [-0.5, 0.5]) + 1)):
        path = tmp_path / f"{name}.svm"
        path.write_text("".join(f"{label} " + " ".join(f"{j}:{v:.4f}" for j, v in enumerate(row, 1)) + "\n"
                                for label, row in zip(y, X)))
        paths[name] = str(path)
    return paths


def read(path):
    return load_svmlight_file(path, n_features=4, zero_based=False)


def test_oaa_learns_the_classes_1_to_k_with_pa1_multiclass(tmp_path, data):
    model = tmp_path / "m.npz"
    result = invoke("run", "--oaa", 3, "-d", data["multi"], "-f", model, "--quiet")
    assert result.exit_code == 0, result.output
    X, y = read(data["multi"])
    # the K classes are known before the first example, as in VW
    reference = olearn.PAMulticlass(variant="pa1").partial_fit(np.empty((0, 4)), [], classes=[1.0, 2.0, 3.0])
    expected = olearn.run(reference, X, y)
    learned = olearn.load(model)
    assert learned.get_params()["variant"] == "pa1" and learned.classes_.tolist() == [1, 2, 3]
    assert np.array_equal(learned.decision_function(X), reference.decision_function(X))
    assert f"mistakes      {expected.n_mistakes}\n" in result.output


def test_oaa_refuses_a_label_outside_1_to_k(data):
    result = invoke("run", "--oaa", 2, data["multi"])
    first = next(n for n, line in enumerate(open(data["multi"]), 1) if line.startswith("3 "))
    assert result.exit_code == 1
    assert f"{data['multi']}:{first}: example {first} has the label 3, which --oaa 2 (labels 1 to 2)" in result.stderr


def test_a_model_learned_with_oaa_refuses_on_resuming_the_labels_a_fresh_oaa_run_refuses(tmp_path):
    first, second, bad = tmp_path / "first.vw", tmp_path / "second.vw", tmp_path / "bad.vw"
    first.write_text("1 | a b\n2 | b c\n")  # class 3 is never seen, and still one of the model's classes
    second.write_text("3 | c d\n1 | a\n")
    bad.write_text("1 | a b\n4 | x y\n")
    model, resumed = tmp_path / "m.npz", tmp_path / "m2.npz"
    assert invoke("run", "--oaa", 3, first, "-f", model, "--quiet").exit_code == 0
    fresh = invoke("run", "--oaa", 3, bad, "--quiet")
    assert fresh.exit_code == 1
    assert f"{bad}:2: example 2 has the label 4, which --oaa 3 (labels 1 to 3) do not list" in fresh.stderr
    refused = invoke("run", "-i", model, bad, "-f", resumed, "--quiet")
    assert refused.exit_code == 1  # it learned 4 as a fourth class
    assert f"{bad}:2: example 2 has the label 4, which --oaa 3 (labels 1 to 3, kept by the model {model}) do " \
           "not list" in refused.stderr
    assert not resumed.exists()
    # the labels 1..3 resume, and the model saved again keeps refusing the others
    assert invoke("run", "-i", model, second, "-f", resumed, "--quiet").exit_code == 0
    assert olearn.load(resumed).classes_.tolist() == [1, 2, 3]
    again = invoke("run", "-i", resumed, bad, "--quiet")
    assert again.exit_code == 1 and f"kept by the model {resumed}) do not list" in again.stderr
    # -t learns nothing, and answers a label the model cannot have as predict does: counted, and warned about
    tested = invoke("run", "-i", resumed, "-t", bad, "--quiet")
    assert tested.exit_code == 0, tested.output
    assert f"1 of 2 labels of {bad} (such as 4) are none of the classes of {resumed} (1 2 3)" in tested.stderr


@pytest.mark.parametrize("oaa", [1, True, 2.0, "3"])
def test_an_oaa_entry_that_is_no_number_of_classes_is_a_model_format_error(tmp_path, oaa):
    model = tmp_path / "odd.npz"
    learned = olearn.PAMulticlass().partial_fit(np.zeros((1, 2)), [1.0], classes=[1.0, 2.0])
    olearn._persistence.save(learned, model, input_info={"format": "vw", "bits": 1, "oaa": oaa})
    with pytest.raises(olearn.exceptions.ModelFormatError, match="the metadata's input entry has oaa="):
        olearn._persistence.read_input_info(model)


def test_binary_reads_labels_as_their_sign(tmp_path, data):
    out = tmp_path / "p.txt"
    result = invoke("run", "--binary", "-d", data["b01"], "-p", out, "--quiet")
    assert result.exit_code == 0, result.output
    X, y = read(data["b01"])
    expected = olearn.run(olearn.OGDClassifier(), X, np.where(y > 0, 1, -1))
    assert [int(v) for v in out.read_text().split()] == expected.predictions.astype(int).tolist()
    assert f"mistakes      {expected.n_mistakes}" in result.output


def test_a_model_learned_with_binary_resumes_and_is_tested_with_binary_on_its_0_1_labels(tmp_path, data):
    lines = open(data["b01"]).readlines()
    first, second = tmp_path / "first.svm", tmp_path / "second.svm"
    first.write_text("".join(lines[:120]))
    second.write_text("".join(lines[120:]))
    model, resumed = tmp_path / "m.npz", tmp_path / "m2.npz"
    assert invoke("run", "--binary", first, "-f", model, "--quiet").exit_code == 0
    result = invoke("run", "-i", model, "--binary", second, "-f", resumed, "--quiet")
    assert result.exit_code == 0, result.output
    X, y = read(data["b01"])
    signs = np.where(y > 0, 1, -1)  # the 0/1 labels recoded by hand
    whole = olearn.OGDClassifier().partial_fit(X[:120], signs[:120])
    on_second = olearn.run(whole, X[120:], signs[120:])
    assert np.array_equal(olearn.load(resumed).decision_function(X), whole.decision_function(X))
    assert f"mistakes      {on_second.n_mistakes}" in result.output
    tested = invoke("run", "-i", resumed, "-t", "--binary", data["b01"], "--quiet")
    assert tested.exit_code == 0, tested.output
    mistakes = int(np.sum(np.where(whole.decision_function(X) > 0, 1, -1) != signs))
    assert f"mistakes      {mistakes}\n" in tested.output


def test_predict_on_the_0_1_labels_of_a_binary_model_names_the_way_to_read_them_as_signs(tmp_path, data):
    model = tmp_path / "m.npz"
    assert invoke("run", "--binary", data["b01"], "-f", model, "--quiet").exit_code == 0
    result = invoke("predict", "-m", model, data["b01"])
    assert result.exit_code == 1
    assert f"or read them as their signs as --binary does when it learns: olearn run -i {model} -t --binary -p " \
           "PREDICTIONS FILE" in result.stderr


def test_binary_with_a_model_of_another_task_is_a_usage_error(tmp_path, data):
    model = tmp_path / "m.npz"
    assert invoke("run", "--oaa", 3, data["multi"], "-f", model, "--quiet").exit_code == 0
    result = invoke("run", "-i", model, "--binary", data["b01"])
    assert result.exit_code == 2
    assert f"--binary reads the labels as their signs for a binary learner, and -i {model} is a model of --algo " \
           "pa1-multiclass, which learns multiclass" in result.stderr


def test_without_a_file_the_error_says_that_standard_input_is_read_as_dash(data):
    piped = CliRunner().invoke(cli, ["run", "--binary"], input=open(data["b01"]).read())
    assert piped.exit_code == 2
    assert "give the FILE to learn (as an argument, or with -d FILE); '-' is standard input" in piped.stderr
    told = CliRunner().invoke(cli, ["run", "--binary", "--quiet", "-"], input=open(data["b01"]).read())
    assert told.exit_code == 0, told.output


def test_loss_function_picks_ogd_with_that_loss(tmp_path, data):
    model, vw = tmp_path / "m.npz", tmp_path / "clicks.vw"
    vw.write_text("1 | a b:2\n-1 | c\n1 | a d\n")
    result = invoke("run", "--loss_function", "logistic", "-b", 10, "--holdout_off", "--passes", 2, "-d", vw,
                    "--final_regressor", model, "--quiet")
    assert result.exit_code == 0, result.output
    learned = olearn.load(model)
    assert type(learned).__name__ == "OGDClassifier" and learned.get_params()["loss"] == "logistic"
    assert learned.get_params()["n_features"] == 2 ** 10
    assert "held out" not in result.output


@pytest.mark.parametrize("args, named", [
    (("--oaa", "3", "-a", "pa1"), "--oaa asks for a multiclass learner, and --algo pa1 learns binary"),
    (("--binary", "-a", "mira"), "--binary asks for a binary learner, and --algo mira learns multiclass"),
    (("--binary", "--oaa", "3"), "give one of them"),
    (("--oaa", "3", "--costs", "{data}"), "--costs does not apply to --algo pa1-multiclass"),
    (("--binary", "--workers", "2"), "--binary does not apply on Dask"),
])
def test_contradicting_vw_flags_are_usage_errors(data, args, named):
    result = invoke("run", *[a.format(data=data["b01"]) for a in args], data["b01"])
    assert result.exit_code == 2 and named in result.stderr, result.stderr


@pytest.mark.parametrize("args, named", [
    (("run", "-a", "pa1", "-l", "0.5"), "-l is Vowpal Wabbit's: olearn's learning rate is --eta"),
    (("run", "-a", "ogd", "--power_t=0.5"), "--power_t is Vowpal Wabbit's: olearn's learning rate decays by --schedule"),
    (("run", "-a", "pa1", "--adaptive"), "per-feature adaptive steps are --algo adagrad"),
    (("run", "-a", "pa1", "--l2", "1e-6"), "olearn's regularised learner is svm"),
    (("predict", "-m", "m.npz", "--invert_hash", "h.txt"), "olearn inspect MODEL"),
    (("compare", "-k"), "-c rebuilds the cache itself"),
])
def test_a_vw_only_flag_is_answered_with_the_olearn_way(data, args, named):
    result = invoke(*args, data["b01"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [result.stderr.strip()] and named in result.stderr, result.stderr


def test_after_double_dash_a_vw_flag_is_a_file_name(data):
    result = invoke("run", "-a", "pa1", "--", "-l")
    assert result.exit_code == 1 and "Vowpal Wabbit" not in result.stderr
