"""Streams: standard input ("-", /dev/stdin), FIFOs and process substitution are read exactly once, as the file is.

Each stream's result (the table, the summary, the saved model) is compared
with the same bytes read from a file; real subprocesses, real pipes.
"""

import gzip
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import olearn

# the lines of the summary that do not depend on time
_STABLE = ("examples", "passes", "mistakes", "mistake rate", "average loss", "updates")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A 1-based LIBSVM file of 3,000 noisy separable examples (far more than the 8 KiB a reader buffers):
    its path and bytes."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3000, 20)) * (rng.random((3000, 20)) < 0.5)
    y = np.where(X @ rng.normal(size=20) > 0, 1, -1)
    y[rng.random(3000) < 0.1] *= -1
    path = tmp_path_factory.mktemp("streams") / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path), path.read_bytes()


def olearn_process(*args, stdin=None, input=None):
    """``python -m olearn ARGS`` in a fresh interpreter; ``input`` (bytes) is written to its standard input."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("CI", None)
    return subprocess.run([sys.executable, "-m", "olearn", *map(str, args)], input=input, stdin=stdin,
                          capture_output=True, timeout=300, env=env)


def stable_output(stdout):
    """The table and the summary without the lines that measure time, and the name of the model."""
    lines = stdout.decode().splitlines()
    return [line for line in lines if not line.startswith(("wall time", "throughput", "model"))]


def learned(model_path):
    model = olearn.load(model_path)
    return np.asarray(model.coef_).ravel(), np.ravel(getattr(model, "intercept_", 0.0))


@pytest.fixture(scope="module")
def from_file(data, tmp_path_factory):
    """``olearn run`` on the file itself: the reference every stream must reproduce."""
    path, _ = data
    model = tmp_path_factory.mktemp("reference") / "model.npz"
    result = olearn_process("run", "--algo", "pa1", "-C", "0.5", "--chunk-size", "700", path, "--save", model)
    assert result.returncode == 0, result.stderr.decode()
    return stable_output(result.stdout), learned(model)


def check_same_as_file(result, model, from_file):
    assert result.returncode == 0, result.stderr.decode()
    output, (coef, intercept) = from_file
    assert stable_output(result.stdout) == output
    assert any(line.split()[:2] == ["examples", "3,000"] for line in output)
    got_coef, got_intercept = learned(model)
    np.testing.assert_array_equal(got_coef, coef)
    np.testing.assert_array_equal(got_intercept, intercept)


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
@pytest.mark.parametrize("fmt", [(), ("--format", "libsvm")])
def test_standard_input_learns_as_the_file(data, from_file, tmp_path, name, fmt):
    if name == "/dev/stdin" and not os.path.exists("/dev/stdin"):
        pytest.skip("no /dev/stdin on this system")
    model = tmp_path / "model.npz"
    result = olearn_process("run", "--algo", "pa1", "-C", "0.5", "--chunk-size", "700", *fmt, name,
                            "--save", model, input=data[1])
    check_same_as_file(result, model, from_file)


def test_compressed_standard_input_learns_as_the_file(data, from_file, tmp_path):
    model = tmp_path / "model.npz"
    result = olearn_process("run", "--algo", "pa1", "-C", "0.5", "--chunk-size", "700", "-", "--save", model,
                            input=gzip.compress(data[1]))
    check_same_as_file(result, model, from_file)


def test_pipe_from_another_process_learns_as_the_file(data, from_file, tmp_path):
    model = tmp_path / "model.npz"
    writer = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb')"
                               ".read())", data[0]], stdout=subprocess.PIPE)
    try:
        result = olearn_process("run", "--algo", "pa1", "-C", "0.5", "--chunk-size", "700", "-", "--save", model,
                                stdin=writer.stdout)
    finally:
        writer.stdout.close()
        writer.wait(timeout=60)
    check_same_as_file(result, model, from_file)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_learns_as_the_file(data, from_file, tmp_path):
    fifo = tmp_path / "train.fifo"
    os.mkfifo(fifo)
    model = tmp_path / "model.npz"

    def write():
        with open(fifo, "wb") as f:
            for start in range(0, len(data[1]), 5000):
                f.write(data[1][start : start + 5000])

    writer = threading.Thread(target=write)
    writer.start()
    result = olearn_process("run", "--algo", "pa1", "-C", "0.5", "--chunk-size", "700", fifo, "--save", model)
    writer.join(timeout=60)
    check_same_as_file(result, model, from_file)


@pytest.mark.skipif(shutil.which("bash") is None or not os.path.exists("/dev/fd"), reason="needs bash and /dev/fd")
def test_process_substitution_learns_as_the_file(data, from_file, tmp_path):
    model = tmp_path / "model.npz"
    command = (f'"{sys.executable}" -m olearn run --algo pa1 -C 0.5 --chunk-size 700 <(cat "{data[0]}") '
               f'--save "{model}"')
    result = subprocess.run(["bash", "-c", command], capture_output=True, timeout=300,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    check_same_as_file(result, model, from_file)


def test_predict_reads_standard_input(data, tmp_path, from_file):
    model = tmp_path / "model.npz"
    assert olearn_process("run", "--algo", "pa1", data[0], "--save", model).returncode == 0
    from_path = olearn_process("predict", "--model", model, data[0])
    from_pipe = olearn_process("predict", "--model", model, "-", input=data[1])
    assert from_pipe.returncode == 0, from_pipe.stderr.decode()
    assert len(from_pipe.stdout.splitlines()) == 3000
    assert from_pipe.stdout == from_path.stdout
    assert from_pipe.stderr == from_path.stderr  # the accuracy line


def test_error_in_standard_input_names_its_line(data):
    lines = data[1].splitlines(keepends=True)
    lines[2499] = b"1 3:abc\n"
    result = olearn_process("run", "--algo", "pa1", "-", input=b"".join(lines))
    assert result.returncode == 1
    assert result.stderr.decode().strip() == (
        "olearn: error: <stdin>:2500:5: expected a numeric feature value after ':', found 'abc'")


def test_several_passes_over_a_stream_are_refused(data):
    result = olearn_process("run", "--algo", "pa1", "--passes", "2", "-", input=data[1])
    assert result.returncode == 2
    assert "standard input is a stream, read once: save it to a file first" in result.stderr.decode()
    assert b"Traceback" not in result.stderr


# messages that name standard input without a line of it say so in words; a parse error keeps <stdin>:LINE:COL
ROWS = b"1,2,1\n3,4,-1\n"
MANY_CLASSES = "".join(f"{k} 1:{k}\n" for k in range(1, 41)).encode()  # 40 integer labels: neither classes nor values


@pytest.mark.parametrize("args, text, message", [
    (("--keep-names", "--save", "{tmp}/k.npz"), b"1 | a\n-1 | b\n",
     "--keep-names and --invert_hash name the hashed columns of a VW text file; standard input is a stream, read once"),
    (("--format", "cache"), ROWS, "standard input is a stream, and an olearn cache is read from a file"),
    (("--bits", "10", "--format", "libsvm"), b"1 1:1\n", "--bits applies to VW files only; standard input is read as "
                                                        "libsvm"),
    (("-q", "ab", "--format", "libsvm"), b"1 1:1\n", "apply to VW files only; standard input is read as libsvm"),
    (("--zero-based", "--format", "vw"), b"1 | a\n", "--zero-based/--one-based apply to LIBSVM files only; standard "
                                                     "input is read as vw"),
    (("--format", "csv", "--label-column", "5"), ROWS, "5: standard input has columns 1 to 3"),
    (("--n-features", "1", "--format", "csv"), ROWS, "standard input: has 2 features, more than --n-features 1"),
    (("--format", "csv"), b"a,b\n1,0.5\n2,1.5\n", "standard input: the label is read from the last column, column 2 "
                                                  "('b'), which holds non-integer values (such as 0.5)"),
    (("--format", "libsvm"), b"1 1:1\n-1 2:1\n3 1:1\n", "olearn: error: standard input: PAClassifier: Only binary "
                                                         "classification is supported; label 3.0 at example 3"),
    (("-i", "{tmp}/svm.npz", "--format", "vw"), b"1 | a\n",
     "and standard input is read as vw: its columns are not the model's (VW features are hashed into columns, LIBSVM "
     "and CSV features numbered), so the predictions would be meaningless. Predict on the data in the training format "
     "(pass --format libsvm if standard input is in it)"),
    (("-i", "{tmp}/csv.npz", "--format", "csv"), ROWS, "standard input has 3 columns, one fewer than the training file "
                                                      "({tmp}/csv.npz was trained on"),
    (("--format", "conll"), b"a b X\n", "standard input is a CoNLL file of sequences: learn it with --algo"),
    (("--algo", "pa-sequence", "--format", "csv"), ROWS,
     "--algo pa-sequence learns sequences from CoNLL files, and standard input is read as csv"),
    (("compare", "--format", "libsvm"), MANY_CLASSES, "standard input: the first chunk has 40 distinct integer labels"),
], ids=["keep-names", "cache", "bits", "namespaces", "index-base", "label-column", "n-features", "csv-label",
        "refused-label", "layout", "csv-layout", "conll", "sequences", "compare-task"])
def test_messages_without_a_line_name_standard_input_in_words(tmp_path, args, text, message):
    from olearn._persistence import save

    save(olearn.PAClassifier().partial_fit(np.array([[1.0], [-1.0]]), [1, -1]), tmp_path / "svm.npz",
         {"format": "libsvm", "zero_based": False})
    save(olearn.PAClassifier().partial_fit(np.array([[1.0, 2.0, 3.0]]), [1], classes=[-1, 1]), tmp_path / "csv.npz",
         {"format": "csv", "csv": {"n_columns": 4, "label_column": 4, "delimiter": ",", "header": None}})
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    message = message.replace("{tmp}", str(tmp_path))
    if args[0] != "compare":
        args = ["run", *(() if "-i" in args or "--algo" in args else ("--algo", "pa1")), *args]
    result = olearn_process(*args, "-", input=text)
    assert result.returncode in (1, 2) and b"Traceback" not in result.stderr
    assert message in result.stderr.decode() and "<stdin>" not in result.stderr.decode()


def test_a_parse_error_keeps_its_location_and_names_standard_input_in_words_in_its_explanation():
    # the index base is decided from the first 4 MiB, all 1-based; the index 0 after them is a located error
    result = olearn_process("run", "--algo", "pa1", "--quiet", "-", input=b"1 1:1\n" * 750_000 + b"1 0:1\n")
    assert result.returncode == 1
    assert result.stderr.decode().strip() == (
        "olearn: error: <stdin>:750001:3: feature index 0 is invalid with 1-based indices (zero_based=False); feature "
        "indices are read as 1-based (decided from the first 4 MiB of standard input, where no index 0 occurs): pass "
        "--zero-based if the data are 0-based")


def test_a_closed_standard_input_is_a_usage_error():
    # with file descriptor 0 closed, Python has no sys.stdin: "-" names nothing to read
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    result = subprocess.run(["bash", "-c", f'"{sys.executable}" -m olearn run --algo pa1 - <&-'], capture_output=True,
                            timeout=300, env=env)
    assert result.returncode == 2
    assert "FILE is '-', but there is no standard input to read" in result.stderr.decode()
    assert b"Traceback" not in result.stderr


def test_a_stream_without_a_recognisable_first_line_asks_for_the_format():
    result = olearn_process("run", "--algo", "pa1", "-", input=b"hello world\n1 1:1\n")
    assert result.returncode == 1
    assert "<stdin>:1:1: cannot detect the format from 'hello world'" in result.stderr.decode()
    assert "name the format explicitly" in result.stderr.decode()


def test_compare_reads_standard_input(data):
    from_path = olearn_process("compare", "--algos", "pa1,perceptron", data[0])
    from_pipe = olearn_process("compare", "--algos", "pa1,perceptron", "-", input=data[1])
    assert from_pipe.returncode == 0, from_pipe.stderr.decode()

    def counts(stdout):  # the learners' rows without their timings
        return [line.split("│")[1:6] for line in stdout.decode().splitlines() if "pa1" in line or "perceptron" in line]

    assert counts(from_pipe.stdout) == counts(from_path.stdout) and len(counts(from_path.stdout)) == 2


@pytest.mark.parametrize("args", [("run", "--algo", "pa1", "--format", "libsvm"), ("run", "--algo", "pa1", "--format",
                                  "vw"), ("run", "--algo", "pa1", "--format", "csv"), ("compare", "--format", "vw")],
                         ids=" ".join)
def test_an_empty_standard_input_is_named_standard_input(args):
    result = olearn_process(*args, "-", input=b"")
    assert result.returncode == 1
    assert result.stderr.decode().strip() == "olearn: error: standard input: holds no examples"


def test_predict_warns_of_the_labels_of_standard_input_by_that_name(tmp_path):
    model = tmp_path / "m.npz"
    olearn.PAMulticlass().partial_fit(np.array([[1.0], [-1.0]]), [1, 2], classes=[1, 2, 3]).save(model)
    result = olearn_process("predict", "--model", model, "--format", "libsvm", "-", input=b"1 1:1\n7 1:-1\n")
    assert "standard input is read as 'olearn run' would, and cannot be checked" in result.stderr.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert "olearn: warning: 1 of 2 labels of standard input (such as 7) are none of the classes of" \
           in result.stderr.decode()
