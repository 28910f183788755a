"""``olearn run --random-seed S`` (default 0) seeds a kernel learner's random budget: a run is reproducible.

The reference of a seed is the library's learner given ``random_state=S`` explicitly, run by ``olearn.run`` on
the same rows: the command line must score every round as it does (``-p --raw``). A budget of 5 support vectors on
160 rows that a Perceptron keeps getting wrong removes a vector at random on most mistakes, so two seeds differ.
"""

import csv

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.cli import cli

KERNEL = ["-a", "perceptron", "--set", "kernel=rbf", "--set", "budget=5", "--set", "budget_policy=random"]
N_ROWS, FIRST = 160, 100


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The rows (an XOR-like sign, 4 features, noisy), all in one file and split in two at row FIRST."""
    folder = tmp_path_factory.mktemp("rows")
    rng = np.random.default_rng(7)
    X = rng.normal(size=(N_ROWS, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=N_ROWS) > 0, 1, -1)
    lines = [f"{label:+d} " + " ".join(f"{j + 1}:{value:.3f}" for j, value in enumerate(row)) + "\n"
             for row, label in zip(X, y)]
    paths = {}
    for name, part in (("all", lines), ("first", lines[:FIRST]), ("rest", lines[FIRST:])):
        paths[name] = folder / f"{name}.svm"
        paths[name].write_text("".join(part))
    return paths


def reference(files, random_state):
    """The library's run of every row, its learner seeded explicitly."""
    X, y = load_svmlight_file(str(files["all"]))
    learner = olearn.Perceptron(kernel="rbf", budget=5, budget_policy="random", random_state=random_state)
    return olearn.run(learner, X, y)


def reference_scores(files, random_state):
    return reference(files, random_state).scores


def run_scores(tmp_path, *args):
    """The raw score of every round of ``olearn run ARGS`` (-p --raw)."""
    out = tmp_path / "scores.txt"
    result = CliRunner().invoke(cli, ["run", "--quiet", "-p", str(out), "--raw", *map(str, args)])
    assert result.exit_code == 0, result.output
    return np.loadtxt(out)


def test_a_run_without_a_seed_is_seeded_by_0_and_repeats(files, tmp_path):
    first = run_scores(tmp_path, *KERNEL, files["all"])
    np.testing.assert_array_equal(first, reference_scores(files, 0))
    np.testing.assert_array_equal(run_scores(tmp_path, *KERNEL, files["all"]), first)


def test_another_seed_removes_other_support_vectors(files, tmp_path):
    seeded = run_scores(tmp_path, *KERNEL, "--random-seed", 3, files["all"])
    np.testing.assert_array_equal(seeded, reference_scores(files, 3))
    assert not np.array_equal(seeded, reference_scores(files, 0))


def test_set_random_state_wins_over_the_random_seed(files, tmp_path):
    scores = run_scores(tmp_path, *KERNEL, "--random-seed", 3, "--set", "random_state=0", files["all"])
    np.testing.assert_array_equal(scores, reference_scores(files, 0))


def test_a_resumed_model_carries_on_its_generator_unseeded(files, tmp_path):
    model = tmp_path / "model.npz"
    run_scores(tmp_path, *KERNEL, "--random-seed", 3, files["first"], "-f", model)
    saved = model.read_bytes()
    refused = CliRunner().invoke(cli, ["run", "-i", str(model), "--random-seed", "3", str(files["rest"])])
    assert refused.exit_code == 2
    assert "--random-seed does not apply to -i" in refused.output and "generator state" in refused.output
    assert model.read_bytes() == saved
    resumed = run_scores(tmp_path, "-i", model, files["rest"])
    np.testing.assert_array_equal(resumed, reference_scores(files, 3)[FIRST:])


@pytest.mark.parametrize("args", [
    ["-a", "pa1", "--random-seed", "3"],
    ["-a", "perceptron", "--set", "kernel=rbf", "--set", "budget=5", "--random-seed", "3"],  # oldest removed
    ["-a", "pa1", "--random-seed", "0"],  # the default, given: it still seeds nothing
])
def test_a_random_seed_that_seeds_nothing_is_refused(files, args):
    result = CliRunner().invoke(cli, ["run", *args, str(files["all"])])
    assert result.exit_code == 2
    assert "draws no random numbers" in result.output



def test_compare_seeds_a_random_budget_with_0_unless_an_entry_sets_it(files, tmp_path):
    table = tmp_path / "table.csv"
    entry = "perceptron:kernel=rbf:budget=5:budget_policy=random"
    result = CliRunner().invoke(cli, ["compare", "--algos", f"{entry},{entry}:random_state=3", "--csv", str(table),
                                      str(files["all"])])
    assert result.exit_code == 0, result.output
    with table.open(newline="") as lines:
        rows = list(csv.DictReader(lines))
    assert ["random_state=0" in rows[0]["settings"], "random_state=3" in rows[1]["settings"]] == [True, True]
    references = [reference(files, seed).n_mistakes for seed in (0, 3)]
    assert [int(row["mistakes"]) for row in rows] == references and references[0] != references[1]


def test_a_seed_outside_the_generator_s_range_is_refused_naming_the_option(files, tmp_path):
    largest = 2**64 - 1  # the last state of the 64-bit generator: taken, as the library takes random_state=largest
    np.testing.assert_array_equal(run_scores(tmp_path, *KERNEL, "--random-seed", largest, files["all"]),
                                  reference_scores(files, largest))
    for seed in (-1, 2**64):
        result = CliRunner().invoke(cli, ["run", *KERNEL, "--random-seed", str(seed), str(files["all"])])
        assert result.exit_code == 2
        assert "--random-seed" in result.output and f"{seed} is not in the range 0<=x<={largest}" in result.output
