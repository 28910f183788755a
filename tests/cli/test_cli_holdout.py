"""``olearn run --passes N --holdout-every K``: held-out examples are predicted, never learned, and counted apart.

The reference is the library: an estimator that learns only the other rows
(``partial_fit``, N passes) must end with the CLI's weights, and the held-out
mistakes are counted here by hand from the library's predictions at the
moment each held-out row comes.
"""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olearn
from olearn.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, ["run", *map(str, args)])


@pytest.fixture
def svm(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(257, 6))
    y = np.where(X @ rng.normal(size=6) + 0.8 * rng.normal(size=257) > 0, 1, -1)
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path)


def by_hand(path, make, passes, every):
    """(learned weights, held-out mistakes of each pass, number of held-out rows, the held-out predictions of
    every pass in order) of the library."""
    X, y = load_svmlight_file(path, n_features=6, zero_based=False)
    held = np.arange(1, len(y) + 1) % every == 0
    final = make()
    for _ in range(passes):
        final.partial_fit(X[~held], y[~held], classes=[-1, 1])
    stepwise = make()
    mistakes, predicted = [], []
    for _ in range(passes):
        wrong = 0
        for i in range(len(y)):
            if held[i]:  # the first held-out row comes after learned ones: the model is fitted
                predicted.append(stepwise.predict(X[i])[0])
                wrong += int(predicted[-1] != y[i])
            else:
                stepwise.partial_fit(X[i], y[i:i + 1], classes=[-1, 1])
        mistakes.append(wrong)
    np.testing.assert_array_equal(np.ravel(stepwise.coef_), np.ravel(final.coef_))
    return np.ravel(final.coef_), mistakes, int(held.sum()), predicted


@pytest.mark.parametrize("every", [10, 3])
@pytest.mark.parametrize("cache", [False, True])
def test_held_out_rows_are_never_learned_and_counted_apart(svm, tmp_path, every, cache):
    passes = 3
    options = [] if every == 10 else ["--holdout-every", every]  # 10 is the default with several passes
    result = invoke("-a", "pa1", "-C", "0.5", "--passes", passes, "--chunk-size", 40, *options,
                    *(["-c"] if cache else []), svm, "-f", tmp_path / "m.npz", "-p", tmp_path / "p.txt")
    assert result.exit_code == 0, result.output
    coef, mistakes, n_held, predicted = by_hand(svm, lambda: olearn.PAClassifier(variant="pa1", C=0.5), passes,
                                                every)
    # -p writes every example of every pass, held out or not, in file order
    lines = (tmp_path / "p.txt").read_text().splitlines()
    assert len(lines) == passes * 257
    held_lines = [line for i, line in enumerate(lines) if (i % 257 + 1) % every == 0]
    assert [float(line) for line in held_lines] == [float(label) for label in predicted]
    np.testing.assert_allclose(np.ravel(olearn.load(tmp_path / "m.npz").coef_), coef, rtol=1e-12, atol=1e-12)
    for p, wrong in enumerate(mistakes, start=1):
        assert (f"pass {p} held out: {n_held:,} examples, {wrong:,} mistakes, "
                f"mistake rate {wrong / n_held:.6f} h") in result.output
    # the table and the summary count the learned examples only
    assert re.search(rf"^examples\s+{passes * (257 - n_held)}$", result.output, re.MULTILINE)
    assert f"held-out rate {mistakes[-1] / n_held:.6f} h (last pass)" in result.output


def test_holdout_off_learns_every_example(svm, tmp_path):
    result = invoke("-a", "pa1", "--passes", 2, "--holdout-off", svm, "-f", tmp_path / "m.npz")
    assert result.exit_code == 0, result.output
    X, y = load_svmlight_file(svm, n_features=6, zero_based=False)
    reference = olearn.PAClassifier(variant="pa1")
    for _ in range(2):
        reference.partial_fit(X, y, classes=[-1, 1])
    np.testing.assert_allclose(np.ravel(olearn.load(tmp_path / "m.npz").coef_), np.ravel(reference.coef_),
                               rtol=1e-12, atol=1e-12)
    assert "held out" not in result.output
    assert re.search(r"^examples\s+514$", result.output, re.MULTILINE)


def test_one_pass_holds_nothing_out(svm):
    result = invoke("-a", "pa1", svm)
    assert "held out" not in result.output and re.search(r"^examples\s+257$", result.output, re.MULTILINE)


@pytest.mark.parametrize("args, message", [
    (["--holdout-every", 5], "with one pass every example is predicted"),
    (["--passes", 2, "--holdout-every", 5, "--holdout-off"], "contradict each other"),
    (["--passes", 2, "--holdout-every", 1], "--holdout-every"),
])
def test_holdout_options_that_cannot_apply_are_usage_errors(svm, args, message):
    result = invoke("-a", "pa1", *args, svm)
    assert result.exit_code == 2
    assert message in result.output
