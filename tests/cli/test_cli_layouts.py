"""The command line never learns or predicts silently wrong from a file read in the wrong layout.

CSV label columns and delimiters, the input layout a saved model records and ``predict`` checks, VW
importance weights and unlabelled VW lines, and options the chosen learner would ignore. References:
the same data written as LIBSVM by scikit-learn, and the library's estimators given the arrays (and
the weights, as ``sample_weight``) in memory.
"""

import gzip
import json
import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olearn
from olearn.cli import cli
from olearn.data import load_vw


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def olearn_process(*args):
    """``python -m olearn ARGS`` in a fresh interpreter: the real entry point."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("CI", None)
    return subprocess.run([sys.executable, "-m", "olearn", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def mistakes(output):
    return int(re.search(r"^mistakes\s+([\d,]+)", output, re.M).group(1).replace(",", ""))


def stored_input(model):
    with zipfile.ZipFile(model) as archive, archive.open("__meta__.npy") as f:
        return json.loads(np.lib.format.read_array(f).item()).get("input")


def write_csv(path, rows, delimiter=",", header=None):
    with open(path, "w") as f:
        if header:
            f.write(delimiter.join(header) + "\n")
        for row in rows:
            f.write(delimiter.join(f"{v:g}" for v in row) + "\n")
    return str(path)


@pytest.fixture
def label_first(tmp_path, make_stream):
    """A CSV file with the label first and a constant last feature, and the same data as LIBSVM."""
    X, y = make_stream(500, 4, seed=5, noise=0.05)
    X = np.round(X, 3)
    X[:, -1] = 1.0  # a constant feature last: read as the label, it is one class, learned with ~no mistake
    csv = write_csv(tmp_path / "first.csv", np.column_stack([y, X]))
    svm = tmp_path / "same.svm"
    dump_svmlight_file(X, y, str(svm), zero_based=False)
    return csv, str(svm), X, y


# -- CSV: the label column -----------------------------------------------------------------


def test_a_label_first_csv_is_refused_by_default_and_learned_with_label_column(label_first, tmp_path):
    csv, svm, X, y = label_first
    refused = olearn_process("run", "--algo", "perceptron", "--quiet", csv)
    assert refused.returncode == 2
    assert "the last column, column 5, which holds the single value 1" in refused.stderr
    assert "--label-column" in refused.stderr

    model = tmp_path / "m.npz"
    learned = olearn_process("run", "--algo", "perceptron", "--quiet", "--label-column", "1", "--save", model, csv)
    assert learned.returncode == 0, learned.stderr
    on_libsvm = olearn_process("run", "--algo", "perceptron", "--quiet", svm)
    X_svm, y_svm = load_svmlight_file(svm)
    reference = olearn.run(olearn.Perceptron(), X_svm, y_svm).n_mistakes
    assert mistakes(learned.stdout) == mistakes(on_libsvm.stdout) == reference > 5
    assert stored_input(model) == {"format": "csv", "csv": {"label_column": 1, "delimiter": ",", "n_columns": 5,
                                                            "header": None}}


def test_label_column_by_name_and_a_header_that_names_another_label(tmp_path, make_stream):
    X, y = make_stream(200, 3, seed=6)
    path = write_csv(tmp_path / "named.csv", np.column_stack([y, np.round(X, 3)]), header=["label", "a", "b", "c"])
    refused = invoke("run", "--algo", "pa", "--quiet", path)
    assert refused.exit_code == 2
    assert "column 1 ('label') looks like the label" in refused.output and "--label-column 1" in refused.output
    by_name = invoke("run", "--algo", "pa", "--quiet", "--label-column", "label", path)
    by_number = invoke("run", "--algo", "pa", "--quiet", "--label-column", "1", path)
    reference = olearn.run(olearn.PAClassifier(variant="pa"), np.round(X, 3), y).n_mistakes
    assert mistakes(by_name.output) == mistakes(by_number.output) == reference


@pytest.mark.parametrize("last, algo, message", [
    (lambda rng, n: rng.normal(size=n), "pa", "non-integer values"),
    (lambda rng, n: rng.integers(0, 5, size=n), "pa", "5 distinct values, more than the 2 classes"),
    (lambda rng, n: rng.integers(0, 40, size=n), "mira", "40 distinct values, more than the 32 classes"),
])
def test_an_implausible_default_label_column_is_refused(tmp_path, make_stream, last, algo, message):
    X, y = make_stream(300, 3, seed=7)
    rng = np.random.default_rng(0)
    path = write_csv(tmp_path / "f.csv", np.column_stack([y, X, last(rng, 300)]))
    result = invoke("run", "--algo", algo, "--quiet", path)
    assert result.exit_code == 2
    assert message in result.output and "--label-column" in result.output


def test_a_binary_learner_on_a_label_of_many_classes_is_shown_the_multiclass_way(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 10, size=300)
    X = rng.normal(size=(300, 3)) + y[:, None]
    path = write_csv(tmp_path / "digits.csv", np.column_stack([X, y]))
    refused = invoke("run", "--algo", "pa1", "--quiet", path)
    assert refused.exit_code == 2
    assert "10 distinct values" in refused.output and "--algo pa1-multiclass" in refused.output
    hinted = invoke("run", "--algo", "pa1-multiclass", "--quiet", path)
    assert hinted.exit_code == 0, hinted.output
    as_written = np.vectorize(lambda v: float(f"{v:g}"))(X)  # the values the file holds
    reference = olearn.run(olearn.PAMulticlass(variant="pa1"), as_written, y.astype(float)).n_mistakes
    assert mistakes(hinted.output) == reference
    many = invoke("run", "--algo", "mira", "--quiet", path)  # a multiclass learner takes them as they are
    assert many.exit_code == 0, many.output


def test_a_named_label_column_is_taken_as_given(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 40, size=300)
    X = rng.normal(size=(300, 3)) + y[:, None]
    path = write_csv(tmp_path / "many.csv", np.column_stack([X, y]))
    result = invoke("run", "--algo", "mira", "--quiet", "--label-column", "4", path)
    assert result.exit_code == 0, result.output
    assert mistakes(result.output) == olearn.run(olearn.MIRA(), X, y.astype(float)).n_mistakes


def test_delimiter(tmp_path, make_stream):
    X, y = make_stream(200, 3, seed=8)
    X = np.round(X, 3)
    semicolons = write_csv(tmp_path / "semi.csv", np.column_stack([X, y]), delimiter=";")
    result = invoke("run", "--algo", "pa1", "--quiet", "--delimiter", ";", semicolons)
    assert result.exit_code == 0, result.output
    assert mistakes(result.output) == olearn.run(olearn.PAClassifier(variant="pa1"), X, y).n_mistakes
    unread = invoke("run", "--algo", "pa1", "--quiet", semicolons)  # read with ',': one column, a number with ';'
    assert unread.exit_code != 0


@pytest.mark.parametrize("args, message", [
    (("--label-column", "1"), "--label-column applies to CSV files only"),
    (("--delimiter", ";"), "--delimiter applies to CSV files only"),
])
def test_csv_options_on_other_formats_are_usage_errors(label_first, args, message):
    result = invoke("run", "--algo", "pa", "--quiet", *args, label_first[1])
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize("column, message", [("6", "has columns 1 to 5"), ("0", "has columns 1 to 5"),
                                             ("price", "has no header")])
def test_a_label_column_the_file_lacks(label_first, column, message):
    result = invoke("run", "--algo", "pa", "--quiet", "--label-column", column, label_first[0])
    assert result.exit_code == 2 and message in result.output


# -- predict: the layout the model records -------------------------------------------------


@pytest.fixture
def csv_model(label_first, tmp_path):
    csv, _, X, y = label_first
    model = tmp_path / "csv.npz"
    assert invoke("run", "--algo", "pa1", "--quiet", "--label-column", "1", "--save", model, csv).exit_code == 0
    want = olearn.PAClassifier(variant="pa1").partial_fit(X, y).predict(X).astype(int)
    return model, X, y, want


def test_predict_reads_the_label_column_of_training(csv_model, label_first):
    model, X, y, want = csv_model
    result = olearn_process("predict", "-m", model, label_first[0])
    assert result.returncode == 0, result.stderr
    assert [int(v) for v in result.stdout.split()] == want.tolist()
    correct = int((want == y).sum())
    assert f"({correct}/{len(y)} correct)" in result.stderr


def test_predict_on_an_unlabelled_csv_needs_no_label(csv_model, tmp_path):
    model, X, y, want = csv_model
    unlabelled = write_csv(tmp_path / "features.csv", X)
    refused = olearn_process("predict", "-m", model, unlabelled)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "has 4 columns, one fewer than the training file" in refused.stderr and "--no-label" in refused.stderr
    result = olearn_process("predict", "-m", model, "--no-label", unlabelled)
    assert result.returncode == 0, result.stderr
    assert [int(v) for v in result.stdout.split()] == want.tolist()
    assert "accuracy" not in result.stderr
    wrong = invoke("predict", "-m", model, "--no-label", write_csv(tmp_path / "wide.csv", np.column_stack([X, X])))
    assert wrong.exit_code == 1 and "with --no-label it must have the 4 feature columns" in wrong.output


def test_predict_refuses_another_label_column_or_header(tmp_path, make_stream):
    X, y = make_stream(100, 2, seed=9)
    train = write_csv(tmp_path / "train.csv", np.column_stack([X, y]), header=["a", "b", "y"])
    model = tmp_path / "m.npz"
    assert invoke("run", "--algo", "pa", "--quiet", "--save", model, train).exit_code == 0
    assert stored_input(model)["csv"] == {"label_column": 3, "delimiter": ",", "n_columns": 3,
                                          "header": ["a", "b", "y"]}
    swapped = write_csv(tmp_path / "swapped.csv", np.column_stack([X[:, ::-1], y]), header=["b", "a", "y"])
    result = invoke("predict", "-m", model, swapped)
    assert result.exit_code == 1
    assert "column 1 of" in result.output and "is named 'b', where the training file's is 'a'" in result.output
    other = invoke("predict", "-m", model, "--label-column", "1", train)
    assert other.exit_code == 2 and "drop --label-column" in other.output


@pytest.fixture
def vw_and_libsvm(tmp_path, make_stream):
    """The same examples as a VW file (features named by their index) and as a LIBSVM file."""
    X, y = make_stream(300, 6, seed=10)
    X = np.round(X, 3)
    vw, svm = tmp_path / "data.vw", tmp_path / "data.svm"
    with open(vw, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} | " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v) + "\n")
    dump_svmlight_file(X, y, str(svm), zero_based=False)
    return str(vw), str(svm)


def test_a_vw_model_refuses_a_libsvm_file_and_the_reverse(vw_and_libsvm, tmp_path):
    vw, svm = vw_and_libsvm
    vw_model, svm_model = tmp_path / "vw.npz", tmp_path / "svm.npz"
    assert invoke("run", "--algo", "pa", "--quiet", "--bits", "12", "--save", vw_model, vw).exit_code == 0
    assert invoke("run", "--algo", "pa", "--quiet", "--save", svm_model, svm).exit_code == 0
    assert stored_input(vw_model) == {"format": "vw", "bits": 12}
    result = olearn_process("predict", "-m", vw_model, svm)
    assert result.returncode == 1 and result.stdout == ""
    assert "was trained on a VW file hashed into 2^12 columns" in result.stderr
    assert "--format vw" in result.stderr
    reverse = invoke("predict", "-m", svm_model, vw)
    assert reverse.exit_code == 1
    assert "trained on a LIBSVM file, 1-based indices, and" in reverse.output and "--format libsvm" in reverse.output
    bits = invoke("predict", "-m", vw_model, "--bits", "10", vw)
    assert bits.exit_code == 2 and "drop --bits, or pass --bits 12" in bits.output
    same = invoke("predict", "-m", vw_model, vw)
    assert same.exit_code == 0


def test_a_model_without_the_record_is_used_with_a_warning(vw_and_libsvm, tmp_path):
    _, svm = vw_and_libsvm
    X, y = load_svmlight_file(svm)
    model = tmp_path / "old.npz"
    # what an olearn older than the record wrote: the index base only
    olearn._persistence.save(olearn.PAClassifier().partial_fit(X, y), model, input_info={"zero_based": False})
    result = olearn_process("predict", "-m", model, svm)
    assert result.returncode == 0, result.stderr
    assert "warning: " in result.stderr and "does not record how its training data were read" in result.stderr
    assert [int(v) for v in result.stdout.split()] == olearn.PAClassifier().partial_fit(X, y).predict(X).tolist()


@pytest.mark.parametrize("entry", [{"format": "arff"}, {"format": "vw", "bits": 40},
                                   {"format": "csv", "csv": {"label_column": 4, "n_columns": 3}}])
def test_a_bad_input_record_is_a_model_format_error(vw_and_libsvm, tmp_path, entry):
    X, y = load_svmlight_file(vw_and_libsvm[1])
    model = tmp_path / "odd.npz"
    olearn._persistence.save(olearn.PAClassifier().partial_fit(X, y), model, input_info=entry)
    result = invoke("predict", "-m", model, vw_and_libsvm[1])
    assert result.exit_code == 1 and "input entry" in result.output


# -- VW importance weights and labels ------------------------------------------------------

BINARY = {
    "perceptron": lambda d: olearn.Perceptron(n_features=d),
    "pa": lambda d: olearn.PAClassifier(variant="pa", n_features=d),
    "pa1": lambda d: olearn.PAClassifier(variant="pa1", n_features=d),
    "pa2": lambda d: olearn.PAClassifier(variant="pa2", n_features=d),
    "ogd": lambda d: olearn.OGDClassifier(n_features=d),
    "svm": lambda d: olearn.OnlineSVM(n_features=d),
    "winnow": lambda d: olearn.Winnow(n_features=d),
    "pnorm": lambda d: olearn.PNorm(n_features=d),
    "dual": lambda d: olearn.DualAscent(n_features=d),
    "arow": lambda d: olearn.AROW(covariance="diag", n_features=d),
    "narow": lambda d: olearn.NAROW(covariance="diag", n_features=d),
    "cw": lambda d: olearn.CW(covariance="diag", n_features=d),
    "adagrad": lambda d: olearn.AdaGrad(n_features=d),
    "arow-full": lambda d: olearn.AROW(covariance="full", n_features=d),
    "narow-full": lambda d: olearn.NAROW(covariance="full", n_features=d),
    "cw-full": lambda d: olearn.CW(covariance="full", n_features=d),
    "sop": lambda d: olearn.SecondOrderPerceptron(n_features=d),
    "fig1-arow": lambda d: olearn.Fig1AROW(covariance="diag", n_features=d),
    "fig1-arow-full": lambda d: olearn.Fig1AROW(covariance="full", n_features=d),
}
MULTICLASS = {
    "pa-multiclass": lambda d: olearn.PAMulticlass(variant="pa", n_features=d),
    "pa1-multiclass": lambda d: olearn.PAMulticlass(variant="pa1", n_features=d),
    "pa2-multiclass": lambda d: olearn.PAMulticlass(variant="pa2", n_features=d),
    "perceptron-multiclass": lambda d: olearn.MulticlassPerceptron(n_features=d),
    "mira": lambda d: olearn.MIRA(n_features=d),
}
BITS = 5


def test_every_classifier_of_the_command_line_is_covered():
    from olearn.cli._learners import ALGORITHM_NAMES, task_of

    # the learners of the other tasks are covered by test_cli_tasks.py and (sequences) test_cli_sequences.py
    assert {a for a in ALGORITHM_NAMES if task_of(a) in ("binary", "multiclass")} == set(BINARY) | set(MULTICLASS)


@pytest.fixture
def weighted_vw(tmp_path):
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(80, 4)), 2)
    binary = np.where(X @ [1.0, -1.0, 0.5, 0.2] + 0.3 * rng.normal(size=80) > 0, 1, -1)
    classes = np.argmax(X[:, :3], axis=1) + 1
    weights = np.round(rng.choice([0.0, 0.5, 1.0, 3.0], size=80), 1)

    def write(labels, name):
        path = tmp_path / name
        with open(path, "w") as f:
            for row, label, w in zip(X, labels, weights):
                f.write(f"{label} {w:g} | " + " ".join(f"f{j}:{v:g}" for j, v in enumerate(row)) + "\n")
        return str(path)

    return write(binary, "binary.vw"), write(classes, "multiclass.vw"), binary, classes, weights


@pytest.mark.parametrize("algo", [*BINARY, *MULTICLASS])
def test_importance_weights_are_the_sample_weight_of_partial_fit(weighted_vw, tmp_path, algo):
    binary_path, multiclass_path, binary, classes, weights = weighted_vw
    path, labels, make = ((multiclass_path, classes, MULTICLASS[algo]) if algo in MULTICLASS
                          else (binary_path, binary, BINARY[algo]))
    X = load_vw(path, n_bits=BITS)[0]  # the features, hashed; the weights come from the test's own array
    model = tmp_path / f"{algo}.npz"
    result = invoke("run", "--algo", algo, "--quiet", "--bits", BITS, "--chunk-size", 30, "--save", model, path)
    assert result.exit_code == 0, result.output
    weighted = make(2**BITS).partial_fit(X, labels.astype(float), sample_weight=weights)
    unweighted = make(2**BITS).partial_fit(X, labels.astype(float))
    learned = olearn.load(model)
    np.testing.assert_allclose(learned.decision_function(X), weighted.decision_function(X), rtol=1e-10, atol=1e-12)
    assert not np.allclose(unweighted.decision_function(X), weighted.decision_function(X))


def test_bound_refuses_importance_weights(weighted_vw):
    result = invoke("run", "--algo", "pa", "--bound", "--bits", BITS, weighted_vw[0])
    assert result.exit_code == 2
    assert "gives importance weights, and --bound states the bounds of unweighted rounds" in result.output


def test_an_unlabelled_vw_line_is_an_error_to_learn_and_predicted(tmp_path):
    path = tmp_path / "mixed.vw"
    path.write_text("1 | a b\n-1 | c\n\n | a\n1 | b\n")
    result = olearn_process("run", "--algo", "perceptron", "--quiet", path)
    assert result.returncode == 1
    assert result.stderr.strip() == (f"olearn: error: {path}:4:1: the line has no label, and learning needs one "
                                     "('label [importance] | features'); unlabelled lines can only be predicted")
    model = tmp_path / "m.npz"
    train = tmp_path / "train.vw"
    train.write_text("1 | a b\n-1 | c\n1 | b\n")
    assert invoke("run", "--algo", "perceptron", "--quiet", "--save", model, train).exit_code == 0
    predicted = olearn_process("predict", "-m", model, path)
    assert predicted.returncode == 0, predicted.stderr
    assert len(predicted.stdout.split()) == 4
    assert "(4 correct)" not in predicted.stderr and re.search(r"\(\d/3 correct\)", predicted.stderr)


# -- options the chosen learner would ignore -----------------------------------------------


@pytest.mark.parametrize("args, message", [
    (("--algo", "pa", "-C", "0.1"), "-C does not apply to --algo pa (it applies to: pa1, pa2,"),
    (("--algo", "arow", "--set", "covariance=full"), "which is covariance=diag: use --algo arow-full"),
    (("--algo", "pa", "--set", "variant=pa1"), "use --algo pa1"),
    (("--algo", "pa1", "--set", "gamma=0.5"), "--set gamma is ignored by --algo pa1 unless --set kernel=poly|rbf"),
    (("--algo", "pa1", "--set", "kernel=rbf", "--set", "degree=3"), "unless --set kernel=poly is given"),
])
def test_an_option_the_algorithm_ignores_is_a_usage_error(label_first, args, message):
    result = olearn_process("run", *args, "--quiet", label_first[1])
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr


def test_compare_refuses_an_entry_setting_that_does_not_apply(label_first):
    result = invoke("compare", "--algos", "pa:C=1,pa1", label_first[1])
    assert result.exit_code == 2 and "C=1 does not apply to pa (it applies to: pa1, pa2" in result.output


def test_set_covariance_diag_for_arow_is_arow(label_first):
    _, svm, _, _ = label_first
    result = invoke("run", "--algo", "arow", "--quiet", "--set", "covariance=diag", svm)
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(svm)
    assert mistakes(result.output) == olearn.run(olearn.AROW(covariance="diag"), X, y).n_mistakes


def test_compare_learns_with_the_importance_weights(weighted_vw, tmp_path):
    binary_path, _, binary, _, weights = weighted_vw
    table = tmp_path / "table.csv"
    result = invoke("compare", "--algos", "pa1,arow", "--bits", BITS, "--chunk-size", 30, "--csv", table, binary_path)
    assert result.exit_code == 0, result.output
    X = load_vw(binary_path, n_bits=BITS)[0]
    rows = {line.split(",")[0]: int(line.split(",")[3]) for line in table.read_text().splitlines()[1:]}
    for name, est in (("pa1", olearn.PAClassifier(variant="pa1")), ("arow", olearn.AROW(covariance="diag"))):
        assert rows[name] == olearn.run(est, X, binary.astype(float), sample_weight=weights).n_mistakes


def test_an_empty_csv_holds_no_examples(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    result = invoke("run", "--algo", "pa", "--quiet", path)
    assert result.exit_code == 1 and "holds no examples" in result.output


def test_a_csv_model_refuses_a_libsvm_file(csv_model, label_first):
    model = csv_model[0]
    result = invoke("predict", "-m", model, label_first[1])
    assert result.exit_code == 1
    assert "trained on a CSV file of 5 columns, the label in column 1, and" in result.output
    assert "need not number the same features" in result.output and "--format csv" in result.output


@pytest.mark.parametrize("name, text, args, line, example", [
    ("three.vw", "1 | a\n\n-1 | b\n2 | c\n", ("--chunk-size", "2"), 4, 3),
    ("half.svm", "# comment\n1 1:1\n-1 2:1\n\n0.5 1:1\n", (), 5, 3),
    ("three.csv", "y,a\n1,2\n\n-1,3\n# note\n3,4\n", ("--label-column", "y"), 6, 3),
])
@pytest.mark.parametrize("command", ["run", "compare"])
def test_a_label_error_names_the_file_line(tmp_path, name, text, args, line, example, command):
    path = tmp_path / name
    path.write_text(text)
    algo = ("--algo", "pa") if command == "run" else ("--algos", "pa,pa1")
    result = invoke(command, *algo, *args, path)
    assert result.exit_code == 1
    # (run's table shows the rows of the examples learned before the error)
    error = result.output.splitlines()[-1]
    assert error.startswith(f"olearn: error: {path}:{line}: ") and f"at example {example}" in error
    assert "row " not in result.output


def test_a_bad_delimiter_is_a_usage_error_and_a_damaged_csv_a_file_error(tmp_path, label_first):
    result = invoke("run", "--algo", "pa", "--quiet", "--delimiter", ".", label_first[0])
    assert result.exit_code == 2 and "could be part of a number" in result.output
    damaged = tmp_path / "damaged.csv.gz"
    damaged.write_bytes(gzip.compress(open(label_first[0], "rb").read())[:100])
    result = invoke("run", "--algo", "pa", "--quiet", damaged)
    assert result.exit_code == 1 and "truncated gzip stream" in result.output
