"""``olearn run -t``'s average loss: the loss ``olearn.run`` reports for each row, on the frozen model.

The reference loss of row i is that of ``olearn.run`` on a copy of the
model and the row alone: the loss of the round before it learns the row.
"""

import copy
import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn.cli import cli
from olearn.cli._learners import ALGORITHMS, make_estimator, task_of
from olearn.cli._resume import FrozenResult
from olearn.cli._tasks import task_named

COSTS = [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
# learners whose reported loss the frozen model's scores do not give (olearn.cli._frozen_losses): nan
NO_FROZEN_LOSS = [("pa", {"average": True}), ("arow", {"average": True}),
                  ("pa-multiclass", {"average": True}), ("pa1-regression", {"average": True})]
CASES = [*((algo, {}) for algo in ALGORITHMS if task_of(algo) != "sequence" and (algo, {}) not in NO_FROZEN_LOSS),
         ("ogd", {"loss": "logistic"}), ("ogd", {"loss": "squared"}), ("svm", {"loss": "logistic"}),
         ("perceptron", {"kernel": "rbf"}), ("pa1", {"kernel": "poly"}), ("pa1-cost-sensitive", {"update": "max-loss"}),
         ("pa-cost-sensitive", {"cost": None}), ("pa2-cost-sensitive", {"cost": None, "update": "max-loss"}),
         ("cw", {"fit_intercept": True}), ("cw-full", {"fit_intercept": True}),
         ("narow", {"fit_intercept": True}), ("fig1-arow-full", {"fit_intercept": True}),
         ("pa1", {"calibration": "platt"}), ("narow", {"calibration": "platt"})]  # --link logistic


def stream(task, n=40, d=5, seed=0):
    """X and labels of ``task`` (None for uniclass; label lists for multilabel)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = X @ rng.normal(size=d)
    if task == "binary":
        return X, np.where(s + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    if task in ("multiclass", "cost-sensitive"):
        return X, np.digitize(s + 0.5 * rng.normal(size=n), [-1.0, 1.0]).astype(np.float64)
    if task == "regression":
        return X, s + 0.3 * rng.normal(size=n)
    if task == "multilabel":
        return X, [[0] if v > 0 else [1, 2] for v in s]
    return X, None


def trained(algo, hyperparameters, X, y):
    hyperparameters = dict(hyperparameters)
    cost = hyperparameters.pop("cost", COSTS) if task_of(algo) == "cost-sensitive" else None
    model = make_estimator(algo, hyperparameters, cost=cost)
    olearn.run(model, X, y)
    return model


def reference_losses(model, X, y, weight=None):
    return np.array([olearn.run(copy.deepcopy(model), X[i:i + 1], None if y is None else y[i:i + 1],
                                sample_weight=None if weight is None else weight[i:i + 1]).losses[0]
                     for i in range(X.shape[0])])


@pytest.mark.parametrize("algo, hyperparameters", CASES, ids=lambda v: v if isinstance(v, str) else str(v or ""))
def test_frozen_losses_are_those_run_reports_before_learning_each_row(algo, hyperparameters):
    task = task_of(algo)
    X, y = stream(task)
    model = trained(algo, hyperparameters, X[:20], None if y is None else y[:20])
    before = copy.deepcopy(model)
    result = FrozenResult(model, X[20:], None if y is None else y[20:], task_named(task))
    want = reference_losses(model, X[20:], None if y is None else y[20:])
    assert want.max() > 0.0  # rows the model does not fit: the losses say something
    np.testing.assert_allclose(result.losses, want, rtol=1e-12, atol=0.0)
    assert result.cumulative_loss == pytest.approx(want.sum(), rel=1e-12)
    np.testing.assert_array_equal(model.predict(X), before.predict(X))  # learned nothing


def test_a_new_multiclass_label_scores_zero_against_every_known_class():
    X, y = stream("multiclass")
    model = trained("pa1-multiclass", {}, X[:20], y[:20])
    new = np.full(20, 7.0)  # a class the model has not seen: it joins with a zero prototype
    result = FrozenResult(model, X[20:], new, task_named("multiclass"))
    np.testing.assert_allclose(result.losses, reference_losses(model, X[20:], new), rtol=1e-12, atol=0.0)
    # by hand: max(0, 1 - (0 - max known score))
    np.testing.assert_allclose(result.losses, np.maximum(1.0 + model.decision_function(X[20:]).max(axis=1), 0.0),
                               rtol=1e-12)


@pytest.mark.parametrize("algo", ["cw", "cw-full"])
def test_cw_gives_a_feature_it_has_not_seen_its_initial_variance(algo):
    import scipy.sparse

    X, y = stream("binary", d=6)
    model = trained(algo, {}, scipy.sparse.csr_matrix(X[:20, :3]), y[:20])
    rows = scipy.sparse.csr_matrix(X[20:])
    result = FrozenResult(model, rows, y[20:], task_named("binary"))
    np.testing.assert_allclose(result.losses, reference_losses(model, rows, y[20:]), rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("algo", ["narow", "narow-full", "fig1-arow", "fig1-arow-full", "pa1", "cw"])
def test_an_importance_weight_enters_the_loss_as_run_weighs_it(algo):
    X, y = stream("binary")
    model = trained(algo, {"r": 0.5} if algo.startswith("fig1") else {}, X[:20], y[:20])
    weight = np.linspace(0.0, 3.0, 20)
    result = FrozenResult(model, X[20:], y[20:], task_named("binary"), weight)
    np.testing.assert_allclose(result.losses, reference_losses(model, X[20:], y[20:], weight), rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("algo", ["pa1", "cw", "narow-full", "mira", "pa2-regression"])
def test_a_scaled_model_is_measured_on_the_rows_its_scaler_gives(algo):
    from olearn.cli._scaling import scaled

    task = task_of(algo)
    X, y = stream(task)
    model = scaled(make_estimator(algo, {}), "standard")  # --scale standard
    olearn.run(model, X[:20], y[:20])
    result = FrozenResult(model, X[20:], y[20:], task_named(task))
    np.testing.assert_allclose(result.losses, reference_losses(model, X[20:], y[20:]), rtol=1e-12, atol=0.0)


def test_the_binary_hinge_by_hand():
    X, y = stream("binary")
    model = trained("pa1", {}, X[:20], y[:20])
    scores = X[20:] @ model.coef_[0] + model.intercept_[0]
    result = FrozenResult(model, X[20:], y[20:], task_named("binary"))
    np.testing.assert_allclose(result.losses, np.maximum(1.0 - y[20:] * scores, 0.0), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("algo, hyperparameters", NO_FROZEN_LOSS, ids=lambda v: v if isinstance(v, str) else str(v))
def test_a_loss_the_scores_do_not_give_is_nan(algo, hyperparameters):
    task = task_of(algo)
    X, y = stream(task)
    model = trained(algo, hyperparameters, X[:20], y[:20])
    result = FrozenResult(model, X[20:], y[20:], task_named(task))
    assert np.isnan(result.losses).all() and np.isnan(result.cumulative_loss)


def summary_loss(output):
    match = re.search(r"^average loss\s+(\S+)$", output, re.MULTILINE)
    assert match, output
    return float(match.group(1))


@pytest.mark.parametrize("algo", ["pa1", "ogd", "winnow", "arow", "pa1-multiclass", "mira", "pa2-regression",
                                  "pa-uniclass"])
def test_the_cli_summary_is_the_mean_of_the_reference_losses(tmp_path, algo):
    task = task_of(algo)
    X, y = stream(task, n=60)
    X = np.round(X, 3)  # as the file holds them
    labels = np.zeros(X.shape[0]) if y is None else np.round(y, 3)
    first, second, model_path = tmp_path / "a.svm", tmp_path / "b.svm", tmp_path / "m.npz"
    dump_svmlight_file(X[:30], labels[:30], str(first), zero_based=False)
    dump_svmlight_file(X[30:], labels[30:], str(second), zero_based=False)
    extra = ("--n-features", X.shape[1]) if task == "uniclass" else ()
    runner = CliRunner()
    learned = runner.invoke(cli, ["run", "-a", algo, *map(str, extra), str(first), "-f", str(model_path), "--quiet"])
    assert learned.exit_code == 0, learned.output
    result = runner.invoke(cli, ["run", "-i", str(model_path), *map(str, extra), "-t", str(second)])
    assert result.exit_code == 0, result.output
    model = olearn.load(model_path)
    want = reference_losses(model, X[30:], None if y is None else labels[30:])
    assert want.max() > 0.0
    assert summary_loss(result.stdout) == pytest.approx(want.mean(), abs=5e-7)
    assert "nan" not in result.stdout


def test_the_cli_prints_nan_for_a_loss_the_scores_do_not_give(tmp_path):
    X, y = stream("binary")
    data, model_path = tmp_path / "a.svm", tmp_path / "m.npz"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    assert CliRunner().invoke(cli, ["run", "-a", "pa", "--set", "average=true", str(data), "-f", str(model_path),
                                      "--quiet"]).exit_code == 0
    result = CliRunner().invoke(cli, ["run", "-i", str(model_path), "-t", str(data)])
    assert result.exit_code == 0, result.output
    assert np.isnan(summary_loss(result.stdout))


def test_the_cli_weighs_narows_loss_by_the_files_importance_weights(tmp_path):
    X, y = stream("binary", n=60)
    weight = np.linspace(0.5, 4.0, 60)
    lines = [f"{int(label)} {float(w)!r} | " + " ".join(f"f{j}:{float(v)!r}" for j, v in enumerate(row))
             for label, w, row in zip(y, weight, X)]
    first, second, model_path = tmp_path / "a.vw", tmp_path / "b.vw", tmp_path / "m.npz"
    first.write_text("\n".join(lines[:30]) + "\n")
    second.write_text("\n".join(lines[30:]) + "\n")
    runner = CliRunner()
    learned = runner.invoke(cli, ["run", "-a", "narow", "-b", "10", str(first), "-f", str(model_path), "--quiet"])
    assert learned.exit_code == 0, learned.output
    result = runner.invoke(cli, ["run", "-i", str(model_path), "-t", str(second)])
    assert result.exit_code == 0, result.output
    rows, labels, importance = olearn.data.load_vw(str(second), n_bits=10)
    np.testing.assert_array_equal(importance, weight[30:])
    model = olearn.load(model_path)
    want = reference_losses(model, rows, labels, importance)
    assert abs(want.mean() - reference_losses(model, rows, labels).mean()) > 1e-3  # the weights matter here
    assert summary_loss(result.stdout) == pytest.approx(want.mean(), abs=5e-7)
