"""``olearn run --passes N`` of a multilabel learner: the masked pass against the general path, byte for byte
(``test_cli_holdout_families.run_cli``), and its held-out rows ranked as ``predict`` ranks them at their moment,
computed here with the library: the rows not held out learned one at a time, each held-out row's ranking margin
taken from ``decision_function`` over the labels known then."""

import numpy as np
import pytest
from click.testing import CliRunner
from test_cli_holdout_families import RAW, assert_masked_equals_general

import olearn
from olearn.cli import cli
from olearn.cli._holdout import label_rows


@pytest.fixture(scope="module")
def multilabel_file(tmp_path_factory):
    rng = np.random.default_rng(51)
    X = rng.normal(size=(200, 5))
    scores = X @ rng.normal(size=(5, 4))
    # label 4 first appears late, after held-out rows: they must not rank it before it is learned
    sets = [[j + 1 for j in range(4 if i > 120 else 3) if s[j] > 0.3] or [1] for i, s in enumerate(scores)]
    path = tmp_path_factory.mktemp("multilabel") / "labels.svm"
    path.write_text("".join(",".join(map(str, labels)) + " " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x))
                            + "\n" for labels, x in zip(sets, X)))
    return path, np.round(X, 6), sets


def test_held_out_rows_are_ranked_with_the_labels_of_their_moment(multilabel_file, tmp_path):
    path, X, sets = multilabel_file
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-multilabel", "--set", "average=true", "--passes", "2",
                                      "--holdout-every", "7", "--chunk-size", "37", str(path),
                                      "-p", str(tmp_path / "p.txt"), "--raw"])
    assert result.exit_code == 0, result.output
    held = np.arange(1, 201) % 7 == 0
    est = olearn.PAMultilabel(variant="pa1", average=True)
    margins = []
    for _ in range(2):
        for i in range(200):
            if not held[i]:
                est.partial_fit(X[i:i + 1], [sets[i]])
                continue
            scores = dict(zip(est.classes_.tolist(), est.decision_function(X[i:i + 1])[0]))
            low = min(scores.get(label, 0.0) for label in sets[i])  # a relevant label not known yet scores 0
            irrelevant = [s for label, s in scores.items() if label not in sets[i]]
            margins.append(low - max(irrelevant) if irrelevant else np.inf)
    lines = (tmp_path / "p.txt").read_text().splitlines()
    got = [float(line) for i, line in enumerate(lines) if held[i % 200]]
    np.testing.assert_allclose(got, margins, rtol=1e-9, atol=1e-12)
    wrong = sum(m <= 0.0 for m in margins[28:])
    assert f"pass 2 held out: 28 examples, {wrong} mistakes" in result.output


RUNS = {
    "pa1-multilabel": ["-a", "pa1-multilabel"],
    "pa2-multilabel averaged from 50": ["-a", "pa2-multilabel", "--fit-intercept", "--set", "average=50"],
}


@pytest.mark.parametrize("name", list(RUNS))
def test_masked_multilabel_pass_equals_the_general_path(name, multilabel_file, tmp_path, monkeypatch):
    path = multilabel_file[0]
    assert_masked_equals_general((RUNS[name], RAW), path, tmp_path, monkeypatch)


def test_a_refused_multilabel_chunk_leaves_the_learner_as_it_was():
    rng = np.random.default_rng(52)
    X = rng.normal(size=(30, 3))
    sets = [[1], [2, 3]] * 15
    est = olearn.PAMultilabel(variant="pa", average=True).partial_fit(X[:10], sets[:10])
    coef, classes = est.coef_.copy(), est.classes_.copy()
    sets[14] = [7]  # a new label, that the refused chunk must not leave behind
    X[15] = 1e200  # a score overflows: the pass stops part way
    assert est._held_out_pass(X[10:], label_rows(sets[10:]), np.arange(11, 31) % 10 == 0) is None
    np.testing.assert_array_equal(est.coef_, coef)
    np.testing.assert_array_equal(est.classes_, classes)
