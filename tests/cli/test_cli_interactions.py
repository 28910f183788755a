"""``olearn run -q/--cubic/--interactions/--ignore/--keep/--ngram/--skips``: VW's namespace options on the command
line, checked against the library learning the same file read by ``load_vw`` with the same options."""

import re

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
import olearn._persistence
import olearn.data
from olearn.cli import cli
from olearn.data import load_vw

BITS = 12


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def crossed_file(tmp_path):
    """A VW file whose label is the sign of the product of a namespace-a and a namespace-b number, weighted."""
    rng = np.random.default_rng(3)
    lines = []
    for _ in range(400):
        x, z = rng.normal(size=2)
        label = 1 if x * z > 0 else -1
        lines.append(f"{label} {rng.choice([0.5, 1, 2]):g} |a x:{x:.3f} u{rng.integers(4)} |b z:{z:.3f} t\n")
    path = tmp_path / "train.vw"
    path.write_text("".join(lines))
    return str(path)


def mistake_rate(output):
    return float(re.search(r"^mistake rate\s+(\S+)$", output, re.MULTILINE).group(1))


def test_quadratic_learns_the_model_of_the_library_on_the_crossed_file(crossed_file, tmp_path):
    model = tmp_path / "model.npz"
    result = invoke("run", "-a", "pa1", "-q", "ab", "--bits", BITS, "-f", model, crossed_file)
    assert result.exit_code == 0, result.output
    X, y, weight = load_vw(crossed_file, n_bits=BITS, interactions=["ab"])
    est = olearn.PAClassifier(variant="pa1", n_features=2**BITS)
    for r in range(X.shape[0]):  # the library, example by example
        est.partial_fit(X[r], y[r:r + 1], sample_weight=weight[r:r + 1], classes=[-1, 1])
    np.testing.assert_array_equal(olearn.load(model).coef_, est.coef_)
    # the product x*z is what separates: crossed, it is learned; plain, it cannot be
    plain = invoke("run", "-a", "pa1", "--bits", BITS, crossed_file)
    assert mistake_rate(result.output) < 0.25 < 0.4 < mistake_rate(plain.output)


def test_predict_crosses_as_the_model_was_learned(crossed_file, tmp_path):
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "arow", "--cubic", "abb", "-q", "ab", "--bits", BITS, "--quiet", "-f", model,
                  crossed_file).exit_code == 0
    predicted = invoke("predict", "-m", model, crossed_file)
    assert predicted.exit_code == 0, predicted.output
    X, _, _ = load_vw(crossed_file, n_bits=BITS, interactions=["ab", "abb"])
    expected = olearn.load(model).predict(X)
    assert [float(v) for v in predicted.stdout.split()] == expected.tolist()
    # -i goes on crossing as the model records
    resumed = invoke("run", "-i", model, "--quiet", "-t", crossed_file)
    assert resumed.exit_code == 0 and mistake_rate(resumed.output) < 0.25


@pytest.mark.parametrize("options, reading", [
    (("--interactions", "ab", "--ignore", "b"), {"interactions": ["ab"], "ignore": "b"}),
    (("--keep", "a", "--ngram", "a2", "--skips", "a1"), {"keep": "a", "ngram": ["a2"], "skips": ["a1"]}),
    (("-q", "::"), {"interactions": ["::"]}),
])
def test_each_option_reads_as_the_library(crossed_file, tmp_path, options, reading):
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "perceptron", *options, "--bits", BITS, "--quiet", "-f", model,
                  crossed_file).exit_code == 0
    X, y, weight = load_vw(crossed_file, n_bits=BITS, **reading)
    est = olearn.Perceptron(n_features=2**BITS).partial_fit(X, y, sample_weight=weight, classes=[-1, 1])
    np.testing.assert_array_equal(olearn.load(model).coef_, est.coef_)


def test_the_cache_is_rebuilt_when_the_namespace_options_change(crossed_file):
    crossed = invoke("run", "-a", "pa1", "-c", "-q", "ab", "--bits", BITS, "--quiet", crossed_file)
    plain = invoke("run", "-a", "pa1", "-c", "--bits", BITS, "--quiet", crossed_file)
    assert crossed.exit_code == plain.exit_code == 0
    assert "rebuilding" in plain.stderr
    assert mistake_rate(plain.output) == mistake_rate(invoke("run", "-a", "pa1", "--bits", BITS, crossed_file).output)


def test_quiet_is_spelt_out_and_q_is_vws(crossed_file):
    quiet = invoke("run", "-a", "pa1", "--quiet", crossed_file)
    assert quiet.exit_code == 0 and "since last" not in quiet.output and "mistake rate" in quiet.output
    # -q takes namespace letters (the file name after it is taken for them), and says where quiet went
    result = invoke("run", "-a", "pa1", "-q", crossed_file)
    assert result.exit_code == 2 and "give 2 namespace letters" in result.output and "--quiet" in result.output
    result = invoke("run", "-a", "pa1", "-q", crossed_file, crossed_file)
    assert result.exit_code == 2 and "give 2 namespace letters" in result.output


@pytest.mark.parametrize("args, fragment", [
    (("-q", "abc"), "give 2 namespace letters"),
    (("--cubic", "ab"), "give 3 namespace letters"),
    (("--interactions", "a"), "fewer than two namespaces"),
    (("--ignore", "a", "--keep", "b"), "--ignore and --keep are exclusive"),
    (("--skips", "1"), "give ngram as well"),
    (("-q", "a\u00e9"), "cannot name a namespace"),
])
def test_malformed_options_are_usage_errors(crossed_file, args, fragment):
    result = invoke("run", "-a", "pa1", *args, crossed_file)
    assert result.exit_code == 2 and fragment in result.output, result.output


def test_namespace_options_need_a_vw_file_learned_here(crossed_file, tmp_path):
    svm = tmp_path / "train.svm"
    svm.write_text("1 1:1\n-1 2:1\n")
    result = invoke("run", "-a", "pa1", "-q", "ab", svm)
    assert result.exit_code == 2 and "apply to VW files only" in result.output
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "pa1", "--quiet", "-f", model, crossed_file).exit_code == 0
    result = invoke("run", "-i", model, "-q", "ab", crossed_file)
    assert result.exit_code == 2 and "drop -q" in result.output


def test_a_stream_learned_in_python_is_the_model_of_the_command_line(crossed_file, tmp_path):
    """``iter_vw`` with the options of the command line, learned chunk by chunk, ends at the CLI's weights."""
    model = tmp_path / "model.npz"
    assert invoke("run", "-a", "arow", "-q", "ab", "--ngram", "a2", "--bits", BITS, "--chunk-size", 64, "--quiet",
                  "-f", model, crossed_file).exit_code == 0
    est = olearn.AROW(covariance="diag", n_features=2**BITS)
    for X, y, weight in olearn.data.iter_vw(crossed_file, chunk_size=100, n_bits=BITS, interactions=["ab"],
                                            ngram=["a2"]):
        est.partial_fit(X, y, sample_weight=weight, classes=[-1, 1])
    np.testing.assert_allclose(olearn.load(model).coef_, est.coef_, rtol=1e-12)


@pytest.mark.parametrize("namespaces", [["ab"], {"interactions": ["a"]}, {"quadratic": ["ab"]},
                                        {"ignore": "a", "keep": "b"}])
def test_a_damaged_namespace_record_is_a_model_format_error(crossed_file, tmp_path, namespaces):
    X, y, _ = load_vw(crossed_file, n_bits=BITS)
    model = tmp_path / "odd.npz"
    est = olearn.PAClassifier(n_features=2**BITS).partial_fit(X, y)
    olearn._persistence.save(est, model, input_info={"format": "vw", "bits": BITS, "namespaces": namespaces})
    result = invoke("predict", "-m", model, crossed_file)
    assert result.exit_code == 1 and "input entry has namespaces" in result.output, result.output
