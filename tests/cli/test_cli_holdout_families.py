"""``olearn run --passes N`` with a hold-out: each learner's masked pass against the general path, byte for byte.

The reference semantics is the general path of :func:`olearn.cli._chunk_learning._learn_chunk`
(each run of learned rows learned by ``olearn.run``, each held-out row
predicted by ``predict`` at its moment; :mod:`olearn.cli._holdout`), taken by
the same command with :meth:`HeldOut.learn_masked` declining every chunk. The
table, the ``-p --raw`` scores and the saved weights must be identical, and
the masked pass must have learned every chunk.
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.cli import cli
from olearn.cli._holdout import HeldOut
from olearn.compose import Pipeline
from olearn.preprocessing import StandardScaler

# a held-out row of every chunk of 37 rows, and several runs of learned rows between two held-out ones
COMMAND = ["run", "--passes", "3", "--chunk-size", "37", "--holdout-every", "7"]
# each run, and what -p writes: the raw scores, or with --link logistic the probabilities (of each held-out row
# the calibration of its moment: a held-out row taught it nothing)
RAW, PROBABILITIES = ["--raw"], []
KERNEL_SEED = ["--set", "budget_policy=random", "--set", "random_state=0", "--set"]
RUNS = {
    "pa1 averaged": (["-a", "pa1", "--set", "average=true"], RAW),
    "ogd averaged from 50": (["-a", "ogd", "--fit-intercept", "--set", "average=50"], RAW),
    "pa1 --link logistic": (["-a", "pa1", "--link", "logistic"], PROBABILITIES),
    # the logistic loss's score is the log-odds: no calibration
    "ogd logistic --link logistic": (["-a", "ogd", "--loss", "logistic", "--link", "logistic"], PROBABILITIES),
    # the scaler learns the learned rows only, and scales a held-out row by the statistics of its moment
    "pa1 --scale standard": (["-a", "pa1", "--scale", "standard"], RAW),
    "pa1 --scale maxabs --link logistic": (["-a", "pa1", "--scale", "maxabs", "--link", "logistic"], PROBABILITIES),
    "arow --scale maxabs": (["-a", "arow", "--scale", "maxabs"], RAW),
    "arow-full": (["-a", "arow-full"], RAW),
    "sop": (["-a", "sop"], RAW),
    "winnow": (["-a", "winnow"], RAW),
    "pnorm": (["-a", "pnorm"], RAW),
    "dual": (["-a", "dual"], RAW),
    "dual aggressive": (["-a", "dual", "--set", "update=aggressive"], RAW),
    # averaging: a held-out row is scored by the average of its moment, and is no tick of it
    "arow averaged": (["-a", "arow", "--set", "average=true"], RAW),
    "sop averaged from 50": (["-a", "sop", "--set", "average=50"], RAW),
    "winnow averaged": (["-a", "winnow", "--set", "average=true"], RAW),
    "dual averaged from 50": (["-a", "dual", "--set", "average=50"], RAW),
    # the window updates store and solve over the learned rows only
    "dual last-k": (["-a", "dual", "--set", "update=last-k", "--set", "k=3"], RAW),
    "dual all --link logistic": (["-a", "dual", "--set", "update=all", "--link", "logistic"], PROBABILITIES),
    # kernels: a held-out row is scored by the support set of its moment, and never joins it (the seed of the
    # support set's random budget policy, saved with it, is set explicitly, so that the library's reference run
    # draws the same; a budget of 1,000 never removes a vector here)
    "pa1 rbf kernel": (["-a", "pa1", "--set", "kernel=rbf", "--set", "gamma=0.5", *KERNEL_SEED, "budget=1000"], RAW),
    "perceptron poly kernel, random budget": (["-a", "perceptron", "--set", "kernel=poly", *KERNEL_SEED, "budget=40"],
                                              RAW),
    "pa2 rbf kernel --link logistic": (["-a", "pa2", "--set", "kernel=rbf", *KERNEL_SEED, "budget=1000", "--link",
                                        "logistic"], PROBABILITIES),
    # the other families' calibration learns the learned rows' scores in the shared masked path too
    "arow --link logistic": (["-a", "arow", "--link", "logistic"], PROBABILITIES),
    "pnorm --link logistic": (["-a", "pnorm", "--link", "logistic"], PROBABILITIES),
    "svm --link logistic": (["-a", "svm", "--link", "logistic"], PROBABILITIES),
}


# runs on a file whose first chunk holds one class: the plain Winnow learns the model of the other encoding
# beside its own until the second class comes (in the second chunk)
ONE_CLASS_FIRST = {
    "winnow plain": (["-a", "winnow", "--set", "balanced=false"], RAW),
    "winnow plain averaged": (["-a", "winnow", "--set", "balanced=false", "--set", "average=true"], RAW),
}


def binary_stream(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 6)) * (rng.random((200, 6)) < 0.6)
    X[:, 0] = rng.normal(size=200)
    y = np.where(X @ rng.normal(size=6) + 0.4 * rng.normal(size=200) > 0, 1, -1)
    return X, y


@pytest.fixture(scope="module")
def binary_file(tmp_path_factory):
    X, y = binary_stream(11)
    path = tmp_path_factory.mktemp("holdout") / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


@pytest.fixture(scope="module")
def one_class_first_file(tmp_path_factory):
    X, y = binary_stream(15)
    X, y[:37] = np.abs(X), -1  # the plain form's weights are positive; the first chunk (37 rows) of one class
    path = tmp_path_factory.mktemp("holdout") / "one_class_first.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def run_cli(args, path, folder, masked, monkeypatch):
    """The command's output (without its timings), its -p lines and its saved model's arrays; and how many
    chunks the masked pass learned."""
    learned = []
    original = HeldOut.learn_masked

    def learn_masked(self, est, X, y, weight):
        out = original(self, est, X, y, weight) if masked else None
        learned.append(out is not None)
        return out

    monkeypatch.setattr(HeldOut, "learn_masked", learn_masked)
    args, written = args
    predictions, model = folder / f"p{masked}.txt", folder / f"m{masked}.npz"
    result = CliRunner().invoke(cli, [*COMMAND, *args, "-p", str(predictions), *written, "-f", str(model), str(path)])
    assert result.exit_code == 0, result.output
    table = re.sub(r"^(wall time|throughput|model) .*$", "", result.output, flags=re.MULTILINE)
    with np.load(model) as saved:
        arrays = {name: saved[name] for name in saved.files}
    return table, predictions.read_text(), arrays, learned


@pytest.mark.parametrize("name", list(RUNS))
def test_masked_pass_equals_the_general_path(name, binary_file, tmp_path, monkeypatch):
    assert_masked_equals_general(RUNS[name], binary_file, tmp_path, monkeypatch)


@pytest.mark.parametrize("name", list(ONE_CLASS_FIRST))
def test_masked_pass_while_one_class_is_known(name, one_class_first_file, tmp_path, monkeypatch):
    assert_masked_equals_general(ONE_CLASS_FIRST[name], one_class_first_file, tmp_path, monkeypatch)


def assert_masked_equals_general(run, path, folder, monkeypatch):
    """The masked pass learned every chunk, and the table, the -p lines and the saved arrays are those of the
    general path; returns the table."""
    table, lines, arrays, learned = run_cli(run, path, folder, True, monkeypatch)
    assert learned and all(learned)  # every chunk was learned by the masked pass
    table_ref, lines_ref, arrays_ref, _ = run_cli(run, path, folder, False, monkeypatch)
    assert table == table_ref
    assert "pass 3 held out: 28 examples" in table
    assert lines == lines_ref and len(lines.splitlines()) == 600
    assert arrays.keys() == arrays_ref.keys()
    for key in arrays:
        np.testing.assert_array_equal(arrays[key], arrays_ref[key], err_msg=key)
    return table


@pytest.mark.parametrize("refusal", ["label", "overflow"])
def test_a_refused_scaled_chunk_leaves_the_pipeline_as_it_was(refusal):
    rng = np.random.default_rng(12)
    X = rng.normal(size=(30, 3))
    y = np.tile([1.0, -1.0], 15)
    est = Pipeline(StandardScaler(), olearn.PAClassifier()).partial_fit(X[:10], y[:10])
    mean, var, coef = est[0].mean_.copy(), est[0].var_.copy(), est[-1].coef_.copy()
    if refusal == "label":
        y[13] = np.nan
    else:
        X[14, 1] = 1e300  # its square overflows the scaler's statistics
    held = np.arange(11, 31) % 10 == 0
    assert est._held_out_pass(sp.csr_matrix(X[10:]), y[10:], held) is None
    np.testing.assert_array_equal(est[0].mean_, mean)
    np.testing.assert_array_equal(est[0].var_, var)
    np.testing.assert_array_equal(est[-1].coef_, coef)
    assert est[0].n_seen_ == 10
