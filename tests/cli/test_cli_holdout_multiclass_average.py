"""``olearn run --passes N`` of an averaging multiclass or cost-sensitive learner: the masked pass against the
general path, byte for byte (``test_cli_holdout_families.run_cli``), and its held-out rows scored by the mean
of the prototypes of their moment, computed here from the weights after each learned round."""

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file
from test_cli_holdout_families import RAW, assert_masked_equals_general

import olearn
from olearn.cli import cli

RUNS = {
    "pa1-multiclass averaged": ["-a", "pa1-multiclass", "--set", "average=true"],
    "mira averaged from 50": ["-a", "mira", "--fit-intercept", "--set", "average=50"],
    "perceptron-multiclass averaged": ["-a", "perceptron-multiclass", "--set", "average=true"],
    "pa1-multiclass averaged --scale standard": ["-a", "pa1-multiclass", "--set", "average=true", "--scale",
                                                 "standard"],
    "pa2-cost-sensitive averaged": ["-a", "pa2-cost-sensitive", "--costs", "COSTS", "--set", "average=true"],
}


@pytest.fixture(scope="module")
def multiclass_file(tmp_path_factory):
    rng = np.random.default_rng(31)
    X = rng.normal(size=(200, 6)) * (rng.random((200, 6)) < 0.6)
    X[:, 0] = rng.normal(size=200)  # no empty row
    y = np.argmax(X @ rng.normal(size=(6, 3)) + 0.4 * rng.normal(size=(200, 3)), axis=1) + 1
    folder = tmp_path_factory.mktemp("multiclass")
    dump_svmlight_file(X, y, str(folder / "train.svm"), zero_based=False)
    (folder / "costs.txt").write_text("1 2 3\n0 1 2\n1 0 1\n2 1 0\n")
    return folder / "train.svm", folder / "costs.txt", X, y


@pytest.mark.parametrize("name", list(RUNS))
def test_masked_averaged_pass_equals_the_general_path(name, multiclass_file, tmp_path, monkeypatch):
    path, costs = multiclass_file[:2]
    args = ([str(costs) if a == "COSTS" else a for a in RUNS[name]], RAW)
    assert_masked_equals_general(args, path, tmp_path, monkeypatch)


def test_held_out_rows_are_scored_by_the_mean_of_the_prototypes(multiclass_file, tmp_path):
    path, _, X, y = multiclass_file
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-multiclass", "--set", "average=true", "--passes", "2",
                                      "--holdout-every", "7", "--chunk-size", "37", str(path),
                                      "-p", str(tmp_path / "p.txt"), "--raw"])
    assert result.exit_code == 0, result.output
    held = np.arange(1, 201) % 7 == 0
    est = olearn.PAMulticlass(variant="pa1")  # the current prototypes, not averaged: their mean is taken here
    after_rounds, expected = [], []
    for _ in range(2):
        for i in range(200):
            if held[i]:
                # the mean over the rounds learned so far of the prototypes after each (classes in sorted order)
                mean = np.mean(after_rounds, axis=0)
                expected.append(mean @ X[i])
                continue
            est.partial_fit(X[i:i + 1], y[i:i + 1])
            prototypes = np.zeros((3, 6))  # a class not known yet has a prototype of zeros
            prototypes[est.classes_ - 1] = est.coef_
            after_rounds.append(prototypes)
    lines = (tmp_path / "p.txt").read_text().splitlines()
    got = [dict(item.split(":") for item in line.split()) for i, line in enumerate(lines) if held[i % 200]]
    assert len(got) == len(expected) == 56
    for scores, reference in zip(got, expected):
        labels = sorted(int(label) for label in scores)
        np.testing.assert_allclose([float(scores[str(c)]) for c in labels], reference[np.array(labels) - 1],
                                   rtol=1e-9, atol=1e-12)
