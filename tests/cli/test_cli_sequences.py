"""``olearn run/predict/compare`` on CoNLL files: the sequence learners against olearn.PASequence in the library."""

import csv

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn._persistence import read_input_info
from olearn.cli import cli
from olearn.data import load_conll
from olearn.sequence import hamming_errors

BITS = 12
TAGS = ("DT", "NN", "VB", "JJ")


def synthetic_conll(path, n_sequences, seed, labelled=True):
    """A CoNLL file whose tag is a function of the word (word i has tag TAGS[i % 4]); features: the word, its suffix."""
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n_sequences):
        for _ in range(rng.integers(1, 8)):
            i = int(rng.integers(60))
            fields = [f"w{i}", f"suffix={i % 7}"] + ([TAGS[i % 4]] if labelled else [])
            lines.append(" ".join(fields))
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def invoke(*args, **kwargs):
    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def library(variant="pa1", **params):
    return olearn.PASequence(variant=variant, n_features=1 << BITS, n_bits=BITS, **params)


def tag_lines(predictions, y):
    """The -p / predict output expected: one tag per token, '_' for a sequence without prediction, a blank line after each."""
    out = []
    for predicted, tags in zip(predictions, y):
        out += ["_"] * len(tags) if predicted is None else [str(t) for t in predicted]
        out.append("")
    return out


@pytest.fixture
def train(tmp_path):
    return synthetic_conll(tmp_path / "train.conll", 60, seed=1)


def test_run_table_predictions_and_model_equal_the_library(train, tmp_path):
    model, predictions = tmp_path / "model.npz", tmp_path / "tags.txt"
    result = invoke("run", "--algo", "pa1-sequence", "-C", "0.5", "--bits", BITS, "-p", predictions, "-f", model, train)
    assert result.exit_code == 0, result.output

    X, y = load_conll(train, n_bits=BITS)
    est = library(C=0.5)
    res = olearn.run(est, X, y)
    wrong = hamming_errors(y, res.predictions)
    n_tokens = sum(len(t) for t in y)
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["sequences", "tokens", "seq", "errors", "seq", "err", "rate", "token", "err", "rate",
                                "average", "loss"]
    # the rows at 1, 2, 4, ..., 32 sequences and the end, each the library's totals at that point
    shown = [line.split() for line in lines[1:8]]
    for row, n in zip(shown, [1, 2, 4, 8, 16, 32, 60]):
        assert int(row[0]) == n and int(row[1]) == sum(len(t) for t in y[:n])
        assert int(row[2]) == np.count_nonzero(wrong[:n])
        assert float(row[4]) == pytest.approx(wrong[:n].sum() / int(row[1]), abs=1e-6)
        assert float(row[5]) == pytest.approx(res.losses[:n].mean(), abs=1e-6)
    summary = dict(line.rsplit(None, 1) if " " in line else (line, "") for line in lines[9:])
    assert summary["sequences"].strip() == "60" and summary["tokens"].strip() == f"{n_tokens:,}"
    assert int(summary["seq errors"].strip()) == res.n_mistakes == np.count_nonzero(wrong)
    assert int(summary["token errors"].strip()) == wrong.sum()
    assert int(summary["updates"].strip()) == res.n_updates

    assert predictions.read_text().split("\n")[:-1] == tag_lines(res.predictions, y)
    assert res.predictions[0] is None  # the first sequence has no prediction: '_' per token
    saved = olearn.load(str(model))
    assert isinstance(saved, olearn.PASequence) and saved.get_params() == est.get_params()
    np.testing.assert_array_equal(saved.coef_, est.coef_)
    np.testing.assert_array_equal(saved.transition_, est.transition_)
    np.testing.assert_array_equal(saved.classes_, est.classes_)
    assert read_input_info(str(model)) == {"format": "conll", "bits": BITS}


@pytest.mark.parametrize("algo, variant, settings", [
    ("pa-sequence", "pa", {}),
    ("pa2-sequence", "pa2", {"C": 0.1, "update": "max-loss"}),
    ("pa1-sequence", "pa1", {"cost": "sqrt-hamming", "fit_intercept": True}),
    # the text's bare Phi: no per-tag bias, no end transition
    ("pa1-sequence", "pa1", {"fit_intercept": False, "end_transition": False}),
    ("pa2-sequence", "pa2", {"end_transition": False}),
])
def test_settings_reach_the_learner(train, tmp_path, algo, variant, settings):
    model = tmp_path / "m.npz"
    args = ["run", "--quiet", "--algo", algo, "--bits", BITS, "-f", model, train]
    for name, value in settings.items():
        args += (["-C", value] if name == "C" else [f"--{'' if value else 'no-'}fit-intercept"]
                 if name == "fit_intercept" else ["--set", f"{name}={str(value).lower()}"])
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    est = library(variant, **settings).partial_fit(X, y)
    saved = olearn.load(str(model))
    assert saved.get_params() == est.get_params()
    np.testing.assert_array_equal(saved.coef_, est.coef_)
    np.testing.assert_array_equal(saved.intercept_, est.intercept_)
    np.testing.assert_array_equal(saved.transition_, est.transition_)
    np.testing.assert_array_equal(saved.end_transition_, est.end_transition_)
    # a tagger has a per-tag bias and an end transition unless they are switched off
    assert saved.intercept_.any() == settings.get("fit_intercept", True)
    assert saved.end_transition_.any() == settings.get("end_transition", True)


def test_predictions_to_stdout_send_the_table_to_stderr(train):
    result = invoke("run", "--algo", "pa-sequence", "--bits", BITS, "-p", "-", train)
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    res = olearn.run(library("pa"), X, y)
    assert result.stdout.split("\n")[:-1] == tag_lines(res.predictions, y)
    assert "token err rate" in result.stderr


def test_resume_continues_exactly(tmp_path):
    a = synthetic_conll(tmp_path / "a.conll", 30, seed=2)
    b = synthetic_conll(tmp_path / "b.conll", 25, seed=3)
    both = tmp_path / "ab.conll"
    both.write_text((tmp_path / "a.conll").read_text() + (tmp_path / "b.conll").read_text())
    m_a, m_ab, m_once = tmp_path / "a.npz", tmp_path / "ab.npz", tmp_path / "once.npz"
    assert invoke("run", "--quiet", "-a", "pa2-sequence", "-C", "0.3", "--bits", BITS, "-f", m_a, a).exit_code == 0
    result = invoke("run", "--quiet", "-i", m_a, "-f", m_ab, b)
    assert result.exit_code == 0, result.output
    assert invoke("run", "--quiet", "-a", "pa2-sequence", "-C", "0.3", "--bits", BITS, "-f", m_once, both).exit_code == 0
    resumed, once = olearn.load(str(m_ab)), olearn.load(str(m_once))
    np.testing.assert_array_equal(resumed.coef_, once.coef_)
    np.testing.assert_array_equal(resumed.transition_, once.transition_)
    X, y = load_conll(str(both), n_bits=BITS)
    np.testing.assert_array_equal(resumed.coef_, library("pa2", C=0.3).partial_fit(X, y).coef_)
    # a resumed model keeps its hashing and its settings
    assert invoke("run", "-i", m_a, "--bits", 10, b).exit_code == 2
    assert invoke("run", "-i", m_a, "-C", "1", b).exit_code == 2


def test_passes_hold_out_every_tenth_sequence(train, tmp_path):
    model = tmp_path / "m.npz"
    result = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--passes", "2", "--no-shuffle", "-f", model,
                    train)
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    learned = [i for i in range(len(X)) if (i + 1) % 10]
    est = library()
    for _ in range(2):
        est.partial_fit([X[i] for i in learned], [y[i] for i in learned])
    np.testing.assert_array_equal(olearn.load(str(model)).coef_, est.coef_)
    assert "held out          6 sequences per pass" in result.stdout

    result = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--passes", "2", "--holdout-off", "--no-shuffle",
                    "-f", model, train)
    assert result.exit_code == 0, result.output
    est = library().partial_fit(X, y).partial_fit(X, y)
    np.testing.assert_array_equal(olearn.load(str(model)).coef_, est.coef_)


def test_passes_after_the_first_visit_the_learned_sequences_in_a_seeded_random_order(train, tmp_path):
    """Pass 1 reads the file in order; passes 2..N shuffle the learned sequences, the held-out ones kept in place."""
    model = tmp_path / "m.npz"
    result = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--passes", "3", "--random-seed", "5",
                    "-f", model, "--chunk-size", "7", train)
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    learned = np.array([i for i in range(len(X)) if (i + 1) % 10])
    rng = np.random.default_rng(5)
    est = library().partial_fit([X[i] for i in learned], [y[i] for i in learned])
    for _ in range(2):
        order = rng.permutation(learned)
        est.partial_fit([X[i] for i in order], [y[i] for i in order])
    shuffled = olearn.load(str(model))
    np.testing.assert_array_equal(shuffled.coef_, est.coef_)
    np.testing.assert_array_equal(shuffled.transition_, est.transition_)
    assert "held out          6 sequences per pass" in result.stdout
    in_order = library()
    for _ in range(3):
        in_order.partial_fit([X[i] for i in learned], [y[i] for i in learned])
    assert not np.array_equal(shuffled.coef_, in_order.coef_)
    again = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--passes", "3", "--random-seed", "5",
                   "-f", tmp_path / "again.npz", train)
    np.testing.assert_array_equal(olearn.load(str(tmp_path / "again.npz")).coef_, shuffled.coef_)
    assert again.exit_code == 0
    refused = invoke("run", "-a", "pa1-sequence", "--bits", BITS, "--passes", "2", "-p", tmp_path / "t.txt", train)
    assert refused.exit_code == 2 and "add --no-shuffle" in refused.output
    rows = tmp_path / "rows.svm"
    rows.write_text("1 1:1\n-1 2:1\n", encoding="utf-8")
    assert "--no-shuffle applies to CoNLL sequences" in invoke("run", "-a", "pa1", "--no-shuffle", rows).output


def test_declared_tags_learn_the_same_model_and_refuse_another_tag(train, tmp_path):
    model = tmp_path / "m.npz"
    result = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--tags", " ".join(reversed(TAGS)), "-f",
                    model, train)
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    declared = olearn.load(str(model))
    assert declared.classes == list(reversed(TAGS))
    np.testing.assert_array_equal(declared.coef_, library().partial_fit(X, y).coef_)
    refused = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "--tags", "DT NN VB", train)
    assert refused.exit_code == 1 and "'JJ'" in refused.output and "not one of the declared classes" in refused.output
    assert invoke("run", "-a", "pa1-sequence", "--tags", "DT DT", train).exit_code == 2


def test_test_only_counts_the_frozen_models_errors(train, tmp_path):
    model = tmp_path / "m.npz"
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "-f", model, train).exit_code == 0
    test = synthetic_conll(tmp_path / "test.conll", 20, seed=4)
    result = invoke("run", "-i", model, "-t", test)
    assert result.exit_code == 0, result.output
    X, y = load_conll(test, n_bits=BITS)
    wrong = hamming_errors(y, olearn.load(str(model)).predict(X))
    assert f"token errors      {wrong.sum()}" in result.stdout
    assert f"seq errors        {np.count_nonzero(wrong)}" in result.stdout


def test_predict_writes_tags_and_accuracy(train, tmp_path):
    model = tmp_path / "m.npz"
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "-f", model, train).exit_code == 0
    test = synthetic_conll(tmp_path / "test.conll", 200, seed=5)
    result = invoke("predict", "-m", model, "--chunk-size", "7", test)
    assert result.exit_code == 0, result.output
    X, y = load_conll(test, n_bits=BITS)
    predicted = olearn.load(str(model)).predict(X)
    assert result.stdout.split("\n")[:-1] == tag_lines(predicted, y)
    wrong = hamming_errors(y, predicted)
    n = sum(len(t) for t in y)
    assert f"({n - wrong.sum()}/{n} tokens correct)" in result.stderr
    assert f"({np.count_nonzero(wrong == 0)}/{len(y)} sequences correct)" in result.stderr


def test_a_tag_given_by_the_word_is_learned(tmp_path):
    train = synthetic_conll(tmp_path / "train.conll", 400, seed=10)
    test = synthetic_conll(tmp_path / "test.conll", 100, seed=11)
    model = tmp_path / "m.npz"
    # tags drawn independently of their neighbours and of the position: the bare features of the text,
    # learned in one pass (a bias and an end transition would only be noise to learn here)
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--no-fit-intercept", "--set", "end_transition=false",
                  "-f", model, train).exit_code == 0
    result = invoke("predict", "-m", model, test)
    assert result.exit_code == 0, result.output
    accuracy = float(result.stderr.split()[1])
    assert accuracy > 0.97, result.stderr


def test_predict_an_unlabelled_file(train, tmp_path):
    model = tmp_path / "m.npz"
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "-f", model, train).exit_code == 0
    labelled = synthetic_conll(tmp_path / "test.conll", 20, seed=6)
    unlabelled = synthetic_conll(tmp_path / "bare.conll", 20, seed=6, labelled=False)
    want = invoke("predict", "-m", model, labelled)
    result = invoke("predict", "-m", model, "--no-label", unlabelled)
    assert result.exit_code == 0, result.output
    assert result.stdout == want.stdout and result.stderr == ""
    # read as labelled, its last field (a feature) would be taken for the tag: a warning says so
    result = invoke("predict", "-m", model, unlabelled)
    assert "pass --no-label" in result.stderr


def test_predict_refuses_another_format(train, tmp_path):
    model = tmp_path / "m.npz"
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, "-f", model, train).exit_code == 0
    svm = tmp_path / "test.svm"
    svm.write_text("1 3:1\n")
    result = invoke("predict", "-m", model, svm)
    assert result.exit_code == 1
    assert "trained on a CoNLL file" in result.stderr and "--format conll" in result.stderr
    result = invoke("predict", "-m", model, "--bits", 10, train)
    assert result.exit_code == 2 and "--bits 12" in result.stderr
    # and a model of rows refuses a CoNLL file
    rows_model = tmp_path / "rows.npz"
    assert invoke("run", "--quiet", "-a", "pa1", "-f", rows_model, svm).exit_code == 0
    result = invoke("predict", "-m", rows_model, train)
    assert result.exit_code == 2 and "pa1-sequence" in result.stderr


def test_compare_runs_the_sequence_learners_on_a_conll_file(tmp_path):
    # a .txt name: the format is named, not detected
    path = synthetic_conll(tmp_path / "train.txt", 40, seed=7)
    table = tmp_path / "table.csv"
    result = invoke("compare", "--format", "conll", "--bits", BITS, "--csv", table, path)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(table.open()))
    assert [row["algorithm"] for row in rows] == ["pa-sequence", "pa1-sequence", "pa2-sequence"]
    X, y = load_conll(path, n_bits=BITS)
    for row, variant in zip(rows, ["pa", "pa1", "pa2"]):
        res = olearn.run(library(variant), X, y)
        wrong = hamming_errors(y, res.predictions)
        assert int(row["sequences"]) == 40 and int(row["tokens"]) == sum(len(t) for t in y)
        assert int(row["sequence_errors"]) == res.n_mistakes
        assert int(row["token_errors"]) == wrong.sum()
        assert float(row["average_loss"]) == pytest.approx(res.average_loss)
        assert int(row["updates"]) == res.n_updates
    plot = tmp_path / "errors.png"
    result = invoke("compare", "--algos", "pa1-sequence:C=0.1,pa2-sequence", "--bits", BITS, "--csv", table,
                    "--plot", plot, synthetic_conll(tmp_path / "t.conll", 10, seed=8))
    assert result.exit_code == 0, result.output
    assert [row["algorithm"] for row in csv.DictReader(table.open())] == ["pa1-sequence:C=0.1", "pa2-sequence"]
    assert plot.read_bytes().startswith(b"\x89PNG") and f"plot written to {plot}" in result.stdout


def test_compare_refuses_a_plot_that_is_no_image_as_on_rows(train, tmp_path):
    result = invoke("compare", "--plot", tmp_path / "errors.txt", train)
    assert result.exit_code == 2 and not (tmp_path / "errors.txt").exists()
    assert f"Invalid value for '--plot': '{tmp_path / 'errors.txt'}': name a file ending in .png, .pdf, .svg, .jpg, " \
           ".jpeg" in result.stderr


def test_input_from_stdin(train):
    with open(train, "rb") as f:
        result = invoke("run", "--quiet", "-a", "pa1-sequence", "--format", "conll", "--bits", BITS, "-", input=f.read())
    assert result.exit_code == 0, result.output
    X, y = load_conll(train, n_bits=BITS)
    assert f"token errors      {hamming_errors(y, olearn.run(library(), X, y).predictions).sum()}" in result.stdout


@pytest.mark.parametrize("extra, words", [
    (["--label-column", "1"], "--label-column does not apply to sequences"),
    (["--delimiter", ";"], "--delimiter does not apply to sequences"),
    (["--n-features", "10"], "--bits"),
    (["--zero-based"], "LIBSVM files only"),
    (["--workers", "2"], "on Dask"),
    (["-c"], "cache"),
    (["-p", "-", "--raw"], "--raw does not apply"),
    (["--set", "n_bits=5"], "--bits"),
    (["--eta", "1"], "(it applies to: perceptron"),
    (["--set", "update=sometimes"], None),
    (["--costs", "TRAIN"], "--costs does not apply to sequences"),
])
def test_options_that_do_not_apply_are_usage_errors(train, extra, words):
    extra = [train if arg == "TRAIN" else arg for arg in extra]
    result = invoke("run", "-a", "pa1-sequence", *extra, train)
    if words is None:  # a bad value of the learner's own: its message, exit 1
        assert result.exit_code == 1 and "update" in result.stderr
        return
    assert result.exit_code == 2, result.output
    assert words in result.stderr


def test_a_conll_file_needs_a_sequence_learner(train, tmp_path):
    result = invoke("run", "-a", "pa1", train)
    assert result.exit_code == 2 and "--algo pa-sequence, pa1-sequence, pa2-sequence" in result.stderr
    svm = tmp_path / "x.svm"
    svm.write_text("1 3:1\n")
    result = invoke("run", "-a", "pa1-sequence", svm)
    assert result.exit_code == 2 and "--format conll" in result.stderr
    # a CoNLL file that is not recognised by its name or a -DOCSTART- line: the format must be named
    plain = synthetic_conll(tmp_path / "train.txt", 3, seed=9)
    result = invoke("run", "-a", "pa1-sequence", plain)
    assert result.exit_code == 1 and "CoNLL" in result.stderr
    assert invoke("run", "--quiet", "-a", "pa1-sequence", "--format", "conll", plain).exit_code == 0


def test_malformed_files_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.conll"
    bad.write_text("The DT\ncat NN\n\nruns\n")
    result = invoke("run", "-a", "pa1-sequence", bad)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"olearn: error: {bad}:4:1: a token line needs its features and then its tag")
    empty = tmp_path / "empty.conll"
    empty.write_text("\n\n")
    result = invoke("run", "-a", "pa1-sequence", empty)
    assert result.exit_code == 1 and "holds no token lines" in result.stderr


def test_compare_refuses_learners_of_rows_among_sequence_learners(train):
    result = invoke("compare", "--algos", "pa1-sequence,pa1", train)
    assert result.exit_code == 2 and "learners of rows (pa1)" in result.stderr
    result = invoke("compare", "--algos", "pa1", train)
    assert result.exit_code == 2 and "pa1-sequence" in result.stderr


def test_a_model_saved_by_the_library_is_used_with_its_hashing(train, tmp_path):
    X, y = load_conll(train, n_bits=BITS)
    hashed, vocabulary = tmp_path / "hashed.npz", tmp_path / "vocabulary.npz"
    est = library().partial_fit(X, y)
    est.save(str(hashed))
    result = invoke("predict", "-m", hashed, train)
    assert result.exit_code == 0, result.output
    assert "does not record how its training data were read" in result.stderr
    assert result.stdout.split("\n")[:-1] == tag_lines(est.predict(X), y)
    # a model whose columns are a vocabulary of names cannot be given hashed columns
    olearn.PASequence().partial_fit([[{"The": 1}]], [["DT"]]).save(str(vocabulary))
    result = invoke("predict", "-m", vocabulary, train)
    assert result.exit_code == 1 and "predict with the library" in result.stderr


def test_compressed_files_and_a_docstart_line_are_recognised(train, tmp_path):
    import gzip

    text = (tmp_path / "train.conll").read_bytes()
    packed = tmp_path / "train.conll.gz"
    packed.write_bytes(gzip.compress(text.replace(b"\n", b"\r\n")))
    news = tmp_path / "news.txt"  # no telling name: the -DOCSTART- line says CoNLL
    news.write_bytes(b"-DOCSTART- -X- O\n\n" + text)
    X, y = load_conll(train, n_bits=BITS)
    want = f"token errors      {hamming_errors(y, olearn.run(library(), X, y).predictions).sum()}"
    for path in (packed, news):
        result = invoke("run", "--quiet", "-a", "pa1-sequence", "--bits", BITS, path)
        assert result.exit_code == 0, result.output
        assert want in result.stdout


def test_compare_takes_the_sequence_task_and_refuses_another_task_on_a_conll_file(train, tmp_path):
    table = tmp_path / "table.csv"
    result = invoke("compare", "--task", "sequence", "--bits", BITS, "--csv", table, train)
    assert result.exit_code == 0, result.output
    assert [row["algorithm"] for row in csv.DictReader(table.open())] == ["pa-sequence", "pa1-sequence",
                                                                           "pa2-sequence"]
    result = invoke("compare", "--task", "multilabel", train)
    assert result.exit_code == 2 and "--task multilabel does not apply to a CoNLL file" in result.stderr
    result = invoke("compare", "--costs", train, train)
    assert result.exit_code == 2 and "--costs does not apply to sequences" in result.stderr
