"""The bound report of a PASequence run (olearn run --bound on CoNLL files), against a brute-force evaluation.

The reference evaluates Crammer et al. 2006, Sec. 9 (the bounds of Sec. 8 for
sequences) from its definitions on tiny streams: the competitor's max-loss
l*_t is a maximum over every labelling of the sequence, R^2 is the module's
2 max_t (sum_j ||x_tj|| + T_t + e)^2 (the constant 1 appended to x_tj with a
per-label bias, e = 1 with an end transition), and the bound is PA-I's ||u||^2 + 2C sum l*_t
or PA-II's (R^2 + 1/2C)(||u||^2 + 2C sum l*_t^2), at the competitor the report
chose (the learner's weights times a factor).
"""

import itertools
import math

import numpy as np
import pytest
from click.testing import CliRunner

import olearn
from olearn.bounds._report_sequence import sequence_bound_report
from olearn.cli import cli


def _tiny_stream(seed, n=12, k=3, d=3, noise=0.2):
    rng = np.random.default_rng(seed)
    hidden = rng.normal(size=(k, d)) * 2
    X = [rng.normal(size=(int(rng.integers(1, 5)), d)) for _ in range(n)]
    y = []
    for x in X:
        tags = np.argmax(x @ hidden.T, axis=1)
        swap = rng.random(tags.size) < noise
        tags[swap] = rng.integers(0, k, size=int(swap.sum()))
        y.append(tags)
    return X, y


def _labelling_score(x, tags, E, T, end):
    """u.Phi(x, tags): E the emission weights (the bias column last when E is one wider than x)."""
    k = E.shape[0]
    x = np.hstack([x, np.ones((len(x), E.shape[1] - x.shape[1]))])
    score = T[k, tags[0]] + end[tags[-1]]
    for j, tag in enumerate(tags):
        score += E[tag] @ x[j] + (T[tags[j - 1], tag] if j else 0.0)
    return score


def _max_loss(x, tags, E, T, end):
    """max over the k^n labellings r of score(r) - score(y) + sqrt(Hamming(r, y)), clipped at 0."""
    truth = _labelling_score(x, tags, E, T, end)
    return max(0.0, max(_labelling_score(x, r, E, T, end) - truth + math.sqrt(sum(a != b for a, b in zip(r, tags)))
                        for r in itertools.product(range(E.shape[0]), repeat=len(tags))))


@pytest.mark.parametrize("variant, C", [("pa1", 0.5), ("pa1", 4.0), ("pa2", 0.3), ("pa2", 2.0)])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("bare", [False, True])
def test_the_bound_is_the_theorem_at_the_chosen_competitor(variant, C, seed, bare):
    X, y = _tiny_stream(seed)
    est = olearn.PASequence(variant=variant, C=C, fit_intercept=not bare, end_transition=not bare)
    result = olearn.run(est, X, y)
    (row,) = sequence_bound_report(est, X, y, result).rows
    k, d = est.coef_.shape
    weights = est.coef_ if bare else np.column_stack([est.coef_, est.intercept_])
    width = weights.shape[1]
    E, T = row.u[: k * width].reshape(k, width), row.u[k * width: k * width + (k + 1) * k].reshape(k + 1, k)
    end = np.zeros(k) if bare else row.u[k * width + (k + 1) * k:]
    assert row.u.size == k * width + (k + 1) * k + (0 if bare else k)
    # the competitor is a multiple of the learner's final weights
    factor = row.u_norm / math.sqrt((weights**2).sum() + (est.transition_**2).sum() + (est.end_transition_**2).sum())
    np.testing.assert_allclose(E, factor * weights, rtol=1e-12)
    np.testing.assert_allclose(T, factor * est.transition_, rtol=1e-12)
    np.testing.assert_allclose(end, factor * est.end_transition_, rtol=1e-12, atol=0.0)
    stars = np.array([_max_loss(x, tags, E, T, end) for x, tags in zip(X, y)])
    u2 = float((E**2).sum() + (T**2).sum() + (end**2).sum())
    bias, ends = (0.0, 0) if bare else (1.0, 1)
    r2 = 2 * max(sum(np.sqrt(np.linalg.norm(x, axis=1) ** 2 + bias)) + len(x) + ends for x in X) ** 2
    expected = u2 + 2 * C * stars.sum() if variant == "pa1" else (r2 + 1 / (2 * C)) * (u2 + 2 * C * stars @ stars)
    assert row.bound == pytest.approx(expected, rel=1e-9)
    measured = result.taus @ result.losses if variant == "pa1" else result.losses @ result.losses
    assert row.measured == pytest.approx(measured, rel=1e-12)
    assert row.holds and row.measured <= row.bound
    # the factor was chosen well: neither half nor twice of it gives a smaller bound
    for other in (0.5, 2.0):
        s2 = [_max_loss(x, tags, other * E, other * T, other * end) for x, tags in zip(X, y)]
        worse = other**2 * u2 + 2 * C * sum(s2) if variant == "pa1" else \
            (r2 + 1 / (2 * C)) * (other**2 * u2 + 2 * C * float(np.dot(s2, s2)))
        assert row.bound <= worse * (1 + 1e-6)


def test_pa_is_reported_when_a_multiple_of_the_weights_separates_and_skipped_otherwise():
    X = [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[0.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 0.0]])]
    y = [np.array([0, 1]), np.array([1]), np.array([0, 0])]
    bare = {"fit_intercept": False, "end_transition": False}  # the text's Phi
    est = olearn.PASequence(variant="pa", **bare)
    for _ in range(5):  # learned until the weights separate these three sequences
        est.partial_fit(X, y)
    # the run bounded is a fresh learner's; its competitor the trained learner's weights
    report = sequence_bound_report(est, X, y, olearn.run(olearn.PASequence(variant="pa", **bare), X, y))
    (row,) = report.rows
    assert row.competitor_loss == 0.0 and row.holds
    noisy_X, noisy_y = _tiny_stream(3, noise=0.6)
    noisy = olearn.PASequence(variant="pa", **bare)
    skipped = sequence_bound_report(noisy, noisy_X, noisy_y, olearn.run(noisy, noisy_X, noisy_y))
    assert skipped.rows == () and "no multiple of the learner's weights" in skipped.skipped[0][1]


def _conll(path, seed):
    rng = np.random.default_rng(seed)
    words = {"the": "DT", "a": "DT", "dog": "NN", "cat": "NN", "runs": "VB", "sees": "VB"}
    with open(path, "w") as f:
        for _ in range(60):
            for _ in range(int(rng.integers(2, 6))):
                word = rng.choice(list(words))
                f.write(f"{word} end={word[-1]} {words[word]}\n")
            f.write("\n")
    return str(path)


@pytest.mark.parametrize("algo", ["pa1-sequence", "pa2-sequence"])
def test_olearn_run_bound_prints_the_report_of_the_library(tmp_path, algo):
    path = _conll(tmp_path / "tags.conll", 4)
    result = CliRunner().invoke(cli, ["run", "--quiet", "-a", algo, "-C", "0.5", "--bits", "10", "--bound", path])
    assert result.exit_code == 0, result.output
    X, y = olearn.data.load_conll(path, n_bits=10)
    est = olearn.PASequence(variant=algo.split("-")[0], C=0.5, n_bits=10, n_features=1024)
    (row,) = sequence_bound_report(est, X, y, olearn.run(est, X, y)).rows
    line = next(line for line in result.output.splitlines() if line.startswith(row.theorem))
    cells = [cell.strip() for cell in line.split("|")]
    assert float(cells[2]) == pytest.approx(row.measured, rel=1e-5)
    assert float(cells[3]) == pytest.approx(row.bound, rel=1e-5) and cells[-1] == "yes"


def test_bound_with_passes_is_a_usage_error(tmp_path):
    path = _conll(tmp_path / "tags.conll", 5)
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-sequence", "--passes", "2", "--bound", path])
    assert result.exit_code == 2 and "--bound describes one pass" in result.output


def test_bound_report_replays_a_fresh_sequence_learner_and_refuses_another_run():
    X, y = _tiny_stream(6)
    est = olearn.PASequence(variant="pa2", C=0.5)
    result = olearn.run(olearn.PASequence(variant="pa2", C=0.5), X, y)
    report = olearn.bounds.bound_report(est, X, y, result)  # est itself never learned: its clone replays the run
    trained = olearn.PASequence(variant="pa2", C=0.5).partial_fit(X, y)
    assert report.rows == sequence_bound_report(trained, X, y, result).rows
    other = olearn.run(olearn.PASequence(variant="pa2", C=5.0), X, y)
    with pytest.raises(ValueError, match="result is not the run of this estimator"):
        olearn.bounds.bound_report(est, X, y, other)
