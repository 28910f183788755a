"""``olearn run --passes N`` of a regressor holds examples out, as Vowpal Wabbit does for regression.

The reference is a plain NumPy transcription of PA-I regression (Crammer et
al. 2006, Sec. 5): the rows not held out are learned in order, pass after
pass; each held-out row is predicted with the weights of its moment, and its
absolute error, squared error and epsilon-insensitive loss are averaged over
the pass. The masked pass is also compared byte for byte with the general
path (``test_cli_holdout_families.run_cli``).
"""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file
from test_cli_holdout_families import assert_masked_equals_general

import olearn
from olearn.cli import cli

C, EPSILON, EVERY, PASSES = 0.5, 0.05, 7, 3


@pytest.fixture(scope="module")
def regression_file(tmp_path_factory):
    rng = np.random.default_rng(21)
    X = rng.normal(size=(200, 6)) * (rng.random((200, 6)) < 0.6)
    X[:, 0] = rng.normal(size=200)  # no empty row
    y = X @ rng.normal(size=6) + 0.3 * rng.normal(size=200)
    path = tmp_path_factory.mktemp("regression") / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


def pa1_regression_by_hand(X, y, held, passes):
    """PA-I regression over ``passes`` passes, the ``held`` rows predicted only: (weights, per pass the held-out
    (MAE, RMSE, loss), the held-out predictions of every pass in order)."""
    w = np.zeros(X.shape[1])
    measured, predicted = [], []
    for _ in range(passes):
        errors = []
        for x, target, out in zip(X, y, held):
            score = float(w @ x)
            if out:
                errors.append(score - target)
                predicted.append(score)
                continue
            loss = max(0.0, abs(target - score) - EPSILON)
            tau = min(C, loss / float(x @ x)) if loss > 0.0 else 0.0
            w = w + (1.0 if target - score >= 0.0 else -1.0) * tau * x
        errors = np.array(errors)
        if errors.size:
                measured.append((np.abs(errors).mean(), np.sqrt((errors * errors).mean()),
                             np.maximum(np.abs(errors) - EPSILON, 0.0).mean()))
    return w, measured, predicted


def test_held_out_regression_rows_are_predicted_and_measured_never_learned(regression_file, tmp_path):
    path, X, y = regression_file
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-regression", "-C", str(C), "--set", f"epsilon={EPSILON}",
                                      "--passes", str(PASSES), "--holdout-every", str(EVERY), "--chunk-size", "37",
                                      str(path), "-f", str(tmp_path / "m.npz"), "-p", str(tmp_path / "p.txt")])
    assert result.exit_code == 0, result.output
    held = np.arange(1, 201) % EVERY == 0
    w, measured, predicted = pa1_regression_by_hand(X, y, held, PASSES)
    lines = re.findall(r"^pass (\d) held out: 28 examples, MAE (\S+), RMSE (\S+), loss (\S+) h$", result.output,
                       re.MULTILINE)
    assert [int(p) for p, *_ in lines] == list(range(1, PASSES + 1))
    for (_, *got), expected in zip(lines, measured):
        np.testing.assert_allclose([float(v) for v in got], expected, atol=1e-6)
    assert f"held-out loss {measured[-1][2]:.6f} h (last pass)" in result.output
    # the saved weights are those of the learned rows alone: learning a held-out row would move them
    np.testing.assert_allclose(olearn.load(tmp_path / "m.npz").coef_, w, rtol=1e-10, atol=1e-12)
    w_all, _, _ = pa1_regression_by_hand(X, y, np.zeros(200, dtype=bool), PASSES)
    assert not np.allclose(w_all, w, rtol=1e-6)
    # -p writes every row of every pass; the held-out rows' predictions are those of their moment
    written = np.array([float(v) for v in (tmp_path / "p.txt").read_text().split()])
    np.testing.assert_allclose(written[np.tile(held, PASSES)], predicted, rtol=1e-10, atol=1e-12)
    # the table counts the learned rows only
    assert re.search(rf"^examples\s+{PASSES * 172}$", result.output, re.MULTILINE)


REGRESSION_RUNS = {
    "pa1-regression": ["-a", "pa1-regression", "--set", f"epsilon={EPSILON}"],
    "pa2-regression averaged": ["-a", "pa2-regression", "--fit-intercept", "--set", "average=true"],
    "pa-regression averaged from 50": ["-a", "pa-regression", "--set", "average=50"],
    "pa1-regression --scale standard": ["-a", "pa1-regression", "--scale", "standard"],
}


@pytest.mark.parametrize("name", list(REGRESSION_RUNS))
def test_masked_regression_pass_equals_the_general_path(name, regression_file, tmp_path, monkeypatch):
    # a regressor's -p writes its prediction, its raw score already: no --raw
    table = assert_masked_equals_general((REGRESSION_RUNS[name], []), regression_file[0], tmp_path, monkeypatch)
    assert "pass 3 held out: 28 examples, MAE" in table


@pytest.mark.parametrize("refusal", ["target", "overflow"])
def test_a_refused_regression_chunk_leaves_the_learner_as_it_was(refusal):
    rng = np.random.default_rng(22)
    X = rng.normal(size=(30, 4))
    y = X @ rng.normal(size=4)
    est = olearn.PARegressor(variant="pa1", average=True).partial_fit(X[:10], y[:10])
    coef, intercept, rounds = est.coef_.copy(), est.intercept_.copy(), est._state.copy()
    if refusal == "target":
        y[13] = np.nan  # a learned row's target
    else:
        X[15] = 1e200  # its score overflows: the pass stops part way
    held = np.arange(11, 31) % 10 == 0
    assert est._held_out_pass(X[10:], y[10:], held) is None
    np.testing.assert_array_equal(est.coef_, coef)
    np.testing.assert_array_equal(est.intercept_, intercept)
    np.testing.assert_array_equal(est._state, rounds)
