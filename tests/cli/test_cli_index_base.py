"""LIBSVM index base on the command line: decided once per run, stored in the model, reused by predict.

References: scikit-learn's reader (``load_svmlight_file(zero_based=True)``) for what the files
hold, and olearn's estimators fitted on those arrays in memory for the expected predictions.
"""

import json
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olearn
from olearn.cli import cli
from olearn.data._libsvm import detect_zero_based


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def error_line(result):
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("olearn: error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def stored_input(model):
    with zipfile.ZipFile(model) as archive, archive.open("__meta__.npy") as f:
        meta = json.loads(np.lib.format.read_array(f).item())
    return meta.get("input")


@pytest.fixture
def zero_based_pair(tmp_path, make_stream):
    """A 0-based train file that never uses feature 0 and a 0-based test file that does."""
    X, y = make_stream(600, 6, seed=11, noise=0.0)
    X[:400, 0] = 0.0
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:400], y[:400], str(train), zero_based=True)
    dump_svmlight_file(X[400:], y[400:], str(test), zero_based=True)
    return str(train), str(test)


def test_the_reproducer_no_longer_shifts_the_test_file(zero_based_pair, tmp_path):
    # train decided 1-based (no index 0 in it), test 0-based: predict read test one column off (46% accuracy)
    train, test = zero_based_pair
    model = tmp_path / "model.npz"
    assert invoke("run", "--algo", "pa1", "--quiet", "--save", model, train).exit_code == 0
    assert stored_input(model) == {"format": "libsvm", "zero_based": False}
    line = error_line(invoke("predict", "--model", model, test))
    assert "test.svm:1:" in line and "feature index 0" in line
    assert f"as for the training data of {model}" in line and "--zero-based" in line


def test_zero_based_training_is_reused_by_predict(zero_based_pair, tmp_path):
    train, test = zero_based_pair
    model = tmp_path / "model.npz"
    assert invoke("run", "--algo", "pa1", "--quiet", "--zero-based", "--save", model, train).exit_code == 0
    assert stored_input(model) == {"format": "libsvm", "zero_based": True}
    result = invoke("predict", "--model", model, test)
    assert result.exit_code == 0, result.output

    X_train, y_train = load_svmlight_file(train, zero_based=True, n_features=6)
    X_test, _ = load_svmlight_file(test, zero_based=True, n_features=6)
    want = olearn.PAClassifier(variant="pa1").partial_fit(X_train, y_train).predict(X_test)
    assert [int(v) for v in result.stdout.split()] == want.astype(int).tolist()


def test_an_option_at_predict_overrides_the_model(zero_based_pair, tmp_path):
    train, test = zero_based_pair
    model = tmp_path / "model.npz"
    assert invoke("run", "--algo", "perceptron", "--quiet", "--save", model, train).exit_code == 0
    result = invoke("predict", "--model", model, "--zero-based", test)
    assert result.exit_code == 0, result.output
    X_train, y_train = load_svmlight_file(train, zero_based=False)  # the run read train 1-based: columns shifted
    X_test, _ = load_svmlight_file(test, zero_based=True, n_features=X_train.shape[1] + 1)
    est = olearn.Perceptron().partial_fit(X_train, y_train)
    want = est.predict(X_test[:, : est.n_features_in_])
    assert [int(v) for v in result.stdout.split()] == want.astype(int).tolist()


def test_a_model_saved_without_the_entry_reads_the_file_as_run_would(tmp_path, make_stream):
    X, y = make_stream(50, 3, seed=12)
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    model = tmp_path / "library.npz"
    olearn.PAClassifier().partial_fit(X, y).save(model)
    assert stored_input(model) is None
    result = invoke("predict", "--model", model, path)
    assert result.exit_code == 0, result.output
    assert [int(v) for v in result.stdout.split()] == olearn.PAClassifier().partial_fit(X, y).predict(X).astype(int).tolist()


def test_a_bad_input_entry_is_a_model_format_error(tmp_path, make_stream):
    X, y = make_stream(20, 3, seed=13)
    model = tmp_path / "odd.npz"
    olearn._persistence.save(olearn.PAClassifier().partial_fit(X, y), model, input_info={"zero_based": "yes"})
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path))
    line = error_line(invoke("predict", "--model", model, path))
    assert "input entry" in line


def test_a_run_decides_once_an_index_0_after_the_first_4_mib_is_an_error(tmp_path):
    # the decision is made on the first 4 MiB; a later chunk may not silently change it
    path = tmp_path / "long.svm"
    row = "1 1:0.5 2:0.25 3:0.125 4:1\n"
    n = (4 << 20) // len(row) + 10
    path.write_text(row * n + "-1 0:1 2:1\n")
    result = invoke("run", "--algo", "pa1", "--quiet", "--chunk-size", 1000, path)
    line = error_line(result)
    assert result.exit_code == 1
    assert f"long.svm:{n + 1}:4: feature index 0" in line
    assert "decided from the first 4 MiB of" in line and "--zero-based" in line
    assert invoke("run", "--algo", "pa1", "--quiet", "--zero-based", path).exit_code == 0


def test_one_based_option_names_itself_and_compare_takes_it(tmp_path):
    path = tmp_path / "zero.svm"
    path.write_text("1 0:1 1:1\n-1 1:1\n")
    line = error_line(invoke("compare", "--algos", "pa,perceptron", "--one-based", path))
    assert "zero.svm:1:3: feature index 0" in line and "(as --one-based says)" in line
    assert invoke("compare", "--algos", "pa,perceptron", "--zero-based", path).exit_code == 0


def test_the_base_options_are_for_libsvm_files(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("1,2,1\n2,1,-1\n")
    result = invoke("run", "--algo", "pa", "--zero-based", path)
    assert result.exit_code == 2
    assert "--zero-based/--one-based apply to LIBSVM files only" in result.output


def test_detect_zero_based_reads_files_in_order_as_one_stream(tmp_path):
    empty, one, zero = tmp_path / "empty.svm", tmp_path / "one.svm", tmp_path / "zero.svm"
    empty.write_text("1\n-1\n")
    one.write_text("1 1:1\n")
    zero.write_text("1 0:1\n")
    assert detect_zero_based([empty, zero, one]) is True
    assert detect_zero_based([empty, one, zero]) is False
    assert detect_zero_based(empty) is None
    # only the first block holding a feature counts
    late = tmp_path / "late.svm"
    late.write_text("1 3:1\n" * 5 + "1 0:1\n")
    assert detect_zero_based(late, block_size=8) is False
    assert detect_zero_based(late) is True


def test_out_of_memory_is_one_line_that_names_the_dimension(tmp_path, monkeypatch):
    path = tmp_path / "data.svm"
    path.write_text("1 1:1\n-1 2:1\n")

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(olearn, "run", no_memory)
    result = invoke("run", "--algo", "arow-full", path)
    assert result.exit_code == 1
    line = error_line(result)
    assert "out of memory" in line and "largest feature index" in line
    assert "--n-features" in line and "d x d" in line
