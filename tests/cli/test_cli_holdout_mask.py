"""The hold-out of ``olearn run --passes N`` in one compiled pass per chunk, the held-out rows given as a mask.

References: a plain Python transcription of PA-I (classification, Crammer et
al. 2006 Sec. 3; regression, Sec. 5) for the masked kernel; and, for the
learners' masked chunk, the semantics it replaces, computed apart: a fresh
learner that learns each learned row on its own (``olearn.run`` of one row)
and predicts each held-out row with ``predict`` at its moment.
"""

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from click.testing import CliRunner
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn._kernels import _binary_linear, _codes
from olearn.cli import cli


def sparse_rows(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.4)
    X[:, 0] = rng.normal(size=n)  # no empty row
    return sp.csr_matrix(X), X


def held_mask(n, every, first=0):
    """VW's rule: the rows first+1, first+2, ... (counted from 1 in the pass) held out when divisible by ``every``."""
    return np.arange(first + 1, first + n + 1) % every == 0


def pa1_by_hand(X, y, held, C, epsilon=None):
    """PA-I row by row in plain Python: (weights, score of each row, learned rounds, mistakes, loss, updates).

    ``epsilon`` None: classification (hinge at margin y w.x); else regression
    (epsilon-insensitive loss, the step towards y). A held-out row is scored
    and nothing else.
    """
    n, d = X.shape
    w = [0.0] * d
    scores, rounds, mistakes, loss_sum, updates = [], 0, 0, 0.0, 0
    for i in range(n):
        score = 0.0
        for j in range(d):
            if X[i, j] != 0.0:
                score += w[j] * X[i, j]
        scores.append(score)
        if held[i]:
            continue
        rounds += 1
        sqnorm = sum(v * v for v in X[i] if v != 0.0)
        if epsilon is None:
            loss = max(0.0, 1.0 - y[i] * score)
            direction = y[i]
            mistakes += y[i] * score <= 0.0
        else:
            loss = max(0.0, abs(y[i] - score) - epsilon)
            direction = 1.0 if y[i] - score >= 0.0 else -1.0
        tau = min(C, loss / sqnorm) if loss > 0.0 else 0.0
        loss_sum += loss
        updates += tau != 0.0
        for j in range(d):
            if X[i, j] != 0.0:
                w[j] += tau * direction * X[i, j]
    return np.array(w), np.array(scores), rounds, mistakes, loss_sum, updates


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_masked_linear_pass_is_pa1_row_by_row(task):
    Xs, X = sparse_rows(120, 9, seed=1)
    rng = np.random.default_rng(2)
    truth = rng.normal(size=9)
    if task == "binary":
        y = np.where(X @ truth > 0, 1.0, -1.0)
        est, epsilon = olearn.PAClassifier(variant="pa1", C=0.7), None
    else:
        y = X @ truth + 0.1 * rng.normal(size=120)
        est, epsilon = olearn.PARegressor(variant="pa1", C=0.7, epsilon=0.05), 0.05
    codes, params = est._config_arrays()
    held = held_mask(120, 7)
    w = np.zeros(10)  # the last entry is the intercept's (fit_intercept=False: its feature is 0)
    state = np.array([0.0, 1.0, 0.0])
    scores, losses, taus = np.empty((3, 120))
    totals = np.zeros(_codes.N_TOTALS)
    stopped = _binary_linear.held_out_linear_pass(Xs.indptr.astype(np.int64), Xs.indices, Xs.data, y, np.empty(0),
                                                  held, w, state, params, codes, scores, losses, taus, totals)
    assert stopped == -1
    w_ref, scores_ref, rounds, mistakes, loss_sum, updates = pa1_by_hand(X, y, held, 0.7, epsilon)
    np.testing.assert_allclose(state[_codes.S_SCALE] * w[:9], w_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(scores, scores_ref, rtol=1e-12, atol=1e-14)
    assert (losses[held] == 0.0).all() and (taus[held] == 0.0).all()
    # the held-out rows are no rounds: not counted, and not in the round counter of a step schedule
    assert totals[_codes.T_ROUNDS] == rounds == state[_codes.S_T] == (~held).sum()
    assert totals[_codes.T_MISTAKES] == mistakes
    assert totals[_codes.T_UPDATES] == updates
    assert math.isclose(totals[_codes.T_LOSS], loss_sum, rel_tol=1e-12)


def learned_apart(make, X, y, held, classes):
    """The semantics the mask replaces: each learned row learned alone by ``olearn.run``, each held-out row
    predicted by ``predict`` at its moment. Returns (learner, per-row predictions, learned rows' (scores,
    losses, mistakes))."""
    est = make()
    est.partial_fit(X[:0], y[:0], classes=classes)
    predictions, scores, losses, mistakes, held_scores = [], [], [], [], []
    for i in range(X.shape[0]):
        if held[i]:
            predictions.append(est.predict(X[i])[0])
            held_scores.append(est.decision_function(X[i])[0])
        else:
            result = olearn.run(est, X[i], y[i:i + 1])
            predictions.append(result.predictions[0])
            scores.append(result.scores[0] if result.scores.ndim == 1 else by_class(est.classes_, result.scores[0]))
            losses.append(result.losses[0])
            mistakes.append(result.n_mistakes)
    return est, np.array(predictions), (scores, np.array(losses), np.array(mistakes, dtype=bool), held_scores)


def by_class(classes, scores):
    """{class: score} of the classes known at a round (a class not known yet scores -inf)."""
    return {c: s for c, s in zip(classes.tolist(), scores.tolist()) if s != -math.inf}


LEARNERS = {
    "pa1": (lambda: olearn.PAClassifier(variant="pa1", C=0.5), "binary"),
    "perceptron": (olearn.Perceptron, "binary"),
    "ogd-sqrt": (lambda: olearn.OGDClassifier(schedule="sqrt", fit_intercept=True), "binary"),
    "arow-diag": (lambda: olearn.AROW(covariance="diag", fit_intercept=True), "binary"),
    "adagrad": (olearn.AdaGrad, "binary"),
    "arow-full": (lambda: olearn.AROW(covariance="full", fit_intercept=True), "binary"),
    "cw-full": (lambda: olearn.CW(covariance="full"), "binary"),
    # a held-out row is scored by the averaged weights (of the rounds learned so far: from round 40 on, or all)
    "pa1-averaged": (lambda: olearn.PAClassifier(variant="pa1", C=0.5, average=True), "binary"),
    "ogd-averaged-from-40": (lambda: olearn.OGDClassifier(schedule="sqrt", fit_intercept=True, average=40), "binary"),
    # the weight of a learned row's class scales its step; a held-out row's class weighs nothing
    "pa1-class-weight": (lambda: olearn.PAClassifier(variant="pa1", C=0.5, class_weight={1: 3.0}), "binary"),
    "arow-diag-class-weight": (lambda: olearn.AROW(covariance="diag", class_weight={-1: 0.25}), "binary"),
    # the calibration (--link logistic) learns the learned rows' scores, and nothing of a held-out row
    "pa1-platt": (lambda: olearn.PAClassifier(variant="pa1", C=0.5, calibration="platt"), "binary"),
    "perceptron-platt": (lambda: olearn.Perceptron(calibration="platt"), "binary"),
    # quasi-additive: a held-out row is scored by w = g(theta), and moves neither theta nor the dual objective
    "winnow": (olearn.Winnow, "binary"),
    "pnorm": (lambda: olearn.PNorm(p=3.0, fit_intercept=True), "binary"),
    "dual-ascent": (olearn.DualAscent, "binary"),
    # averaging second-order and quasi-additive learners: a held-out row is scored by the average of its moment
    # (w - U / k of the rounds learned so far: from round 40 on, or all) and is no tick of it
    "arow-diag-averaged": (lambda: olearn.AROW(covariance="diag", average=True, fit_intercept=True), "binary"),
    "adagrad-averaged-from-40": (lambda: olearn.AdaGrad(average=40), "binary"),
    "cw-full-averaged": (lambda: olearn.CW(covariance="full", average=True), "binary"),
    "sop-averaged-from-40": (lambda: olearn.SecondOrderPerceptron(average=40), "binary"),
    "winnow-averaged": (lambda: olearn.Winnow(average=True), "binary"),
    "pnorm-averaged-from-40": (lambda: olearn.PNorm(p=3.0, fit_intercept=True, average=40), "binary"),
    "dual-ascent-averaged": (lambda: olearn.DualAscent(average=True), "binary"),
    # a kernel: a held-out row is scored by the support set of its moment and joins it never, under a budget
    # too (the random policy draws nothing for it)
    "pa1-linear-kernel": (lambda: olearn.PAClassifier(variant="pa1", C=0.5, kernel="linear", fit_intercept=True),
                          "binary"),
    "perceptron-linear-kernel-budget": (lambda: olearn.Perceptron(kernel="linear", budget=15, budget_policy="random",
                                                                  random_state=3), "binary"),
    # the window updates: the learned rows alone are stored and solved over
    "dual-ascent-last-k": (lambda: olearn.DualAscent(update="last-k", k=3, fit_intercept=True), "binary"),
    "dual-ascent-all-entropy-averaged": (lambda: olearn.DualAscent(update="all", regularizer="entropy", average=20),
                                         "binary"),
    "pa1-multiclass": (lambda: olearn.PAMulticlass(variant="pa1", C=0.5, fit_intercept=True), "multiclass"),
    "pa1-multiclass-class-weight": (lambda: olearn.PAMulticlass(variant="pa1", C=0.5, class_weight={20: 4.0}),
                                    "multiclass"),
    "mira": (olearn.MIRA, "multiclass"),
    # a held-out row is scored by the mean of the prototypes of its moment, and is no round of the averaging
    "pa1-multiclass-averaged": (lambda: olearn.PAMulticlass(variant="pa1", C=0.5, average=True), "multiclass"),
    "mira-averaged-from-40": (lambda: olearn.MIRA(fit_intercept=True, average=40), "multiclass"),
    "perceptron-multiclass": (olearn.MulticlassPerceptron, "multiclass"),
}


@pytest.mark.parametrize("name", list(LEARNERS))
def test_masked_chunks_equal_the_rows_learned_apart(name):
    make, task = LEARNERS[name]
    Xs, X = sparse_rows(150, 8, seed=3)
    rng = np.random.default_rng(4)
    if task == "binary":
        y = np.where(X @ rng.normal(size=8) + 0.3 * rng.normal(size=150) > 0, 1, -1)
        classes = [-1, 1]
    else:
        y = np.array([10, 20, 30])[np.argmax(X @ rng.normal(size=(8, 3)) + 0.3 * rng.normal(size=(150, 3)), axis=1)]
        classes = None  # the classes join as the learned rows bring them
    held = held_mask(150, 6)
    reference, expected, (scores, losses, mistakes, held_scores) = learned_apart(make, Xs, y, held, classes)

    est = make()
    est.partial_fit(Xs[:0], y[:0], classes=classes)
    outputs = [est._held_out_pass(Xs[lo:hi], y[lo:hi], held[lo:hi]) for lo, hi in ((0, 64), (64, 150))]
    predictions, _, got_losses, _, got_mistakes, _ = (np.concatenate(parts) for parts in zip(*outputs))
    got_scores = np.concatenate([out[1] for out in outputs]) if task == "binary" else np.concatenate(
        [np.pad(out[1], ((0, 0), (0, 3 - out[1].shape[1])), constant_values=-math.inf) for out in outputs])
    # a multiclass round before any class is known (the first) names none: its shown label depends on how much
    # of the stream one call sees (olearn.RunResult), and -p writes it as an empty line
    shown = slice(1, None) if task == "multiclass" else slice(None)
    np.testing.assert_array_equal(predictions[shown], expected[shown])
    # the held-out mistakes are the predictions other than the label, as predict is judged
    np.testing.assert_array_equal(got_mistakes[held], expected[held] != y[held])
    np.testing.assert_array_equal(got_mistakes[~held], mistakes)
    np.testing.assert_array_equal(got_losses[~held], losses)
    if task == "binary":
        np.testing.assert_array_equal(got_scores[~held], scores)
        np.testing.assert_array_equal(got_scores[held], held_scores)
    else:
        assert [by_class(est.classes_, row) for row in got_scores[~held]] == scores
    np.testing.assert_array_equal(est.coef_, reference.coef_)
    np.testing.assert_array_equal(est.intercept_, reference.intercept_)
    if hasattr(reference, "predict_proba"):
        np.testing.assert_array_equal(est.predict_proba(Xs), reference.predict_proba(Xs))
    totals = sum(out[5] for out in outputs)
    assert totals[_codes.T_ROUNDS] == (~held).sum()
    assert totals[_codes.T_MISTAKES] == mistakes.sum()


@pytest.mark.parametrize("make", [lambda: olearn.PAClassifier(kernel=lambda A, B: A @ B.T)])
def test_learners_whose_pass_takes_no_mask_say_so_untouched(make):
    Xs, _ = sparse_rows(20, 4, seed=5)
    y = np.tile([1, -1], 10)
    est = make().partial_fit(Xs[:5], y[:5])
    before = est.decision_function(Xs)
    assert est._held_out_pass(Xs[5:], y[5:], held_mask(15, 10, first=5)) is None
    np.testing.assert_array_equal(est.decision_function(Xs), before)


def test_a_refused_chunk_leaves_the_learner_as_it_was():
    Xs, _ = sparse_rows(30, 4, seed=6)
    y = np.tile([1.0, -1.0], 15)
    y[13] = np.nan  # a learned row's label is refused
    est = olearn.PAClassifier(variant="pa1").partial_fit(Xs[:10], y[:10])
    coef, state = est.coef_.copy(), est._state.copy()
    assert est._held_out_pass(Xs[10:], y[10:], held_mask(20, 10, first=10)) is None
    np.testing.assert_array_equal(est.coef_, coef)
    np.testing.assert_array_equal(est._state, state)


def test_cli_multiclass_hold_out(tmp_path):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(203, 5))
    y = np.argmax(X @ rng.normal(size=(5, 3)) + 0.5 * rng.normal(size=(203, 3)), axis=1) + 1
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    result = CliRunner().invoke(cli, ["run", "-a", "pa1-multiclass", "--passes", "2", "--chunk-size", "45", str(path),
                                      "-p", str(tmp_path / "p.txt")])
    assert result.exit_code == 0, result.output
    held = held_mask(203, 10)
    est = olearn.PAMulticlass(variant="pa1")
    predicted, wrong = [], []
    for _ in range(2):
        wrong.append(0)
        for i in range(203):
            if held[i]:
                predicted.append(est.predict(X[i:i + 1])[0])
                wrong[-1] += int(predicted[-1] != y[i])
            else:
                est.partial_fit(X[i:i + 1], y[i:i + 1])
    lines = (tmp_path / "p.txt").read_text().splitlines()
    assert [int(line) for i, line in enumerate(lines) if held[i % 203]] == predicted
    for p, mistakes in enumerate(wrong, start=1):
        assert f"pass {p} held out: 20 examples, {mistakes} mistakes" in result.output
    assert re.search(r"^examples\s+366$", result.output, re.MULTILINE)


# the masked kernels, each where its learner's chunk calls it
MASKED_KERNELS = {
    "pa1": ("olearn.linear._base._compiled", "held_out_linear_pass", lambda: olearn.PAClassifier(variant="pa1")),
    "arow-diag": ("olearn.second_order._base._compiled", "held_out_diagonal_pass",
                  lambda: olearn.AROW(covariance="diag")),
    "pa1-multiclass": ("olearn.multiclass._held_out_pass._compiled", "held_out_multiclass_pass", olearn.PAMulticlass),
}


def learned_state(est):
    """Everything of a learner a chunk may change, as plain copies."""
    return est.coef_.copy(), est.intercept_.copy(), list(est.classes_), est.get_params()


def assert_same_state(before, after):
    for a, b in zip(before, after):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


@pytest.mark.parametrize("name", list(MASKED_KERNELS))
def test_a_fault_of_the_masked_kernel_surfaces_with_the_learner_put_back(monkeypatch, name):
    where, kernel, make = MASKED_KERNELS[name]

    def broken(*args):
        # a ValueError, the type of the checks' refusals: raised by the kernel, it is a fault all the same
        args[6][...] = 7.0  # the kernel wrote into the learner's weights before it failed
        raise ValueError("fault inside the masked kernel")

    monkeypatch.setattr(where + "." + kernel, broken)
    Xs, _ = sparse_rows(30, 4, seed=8)
    y = np.tile([1, 2, 2], 10) if name == "pa1-multiclass" else np.tile([1, -1], 15)
    est = make().partial_fit(Xs[:10], y[:10])
    before = learned_state(est)
    with pytest.raises(ValueError, match="fault inside the masked kernel"):
        est._held_out_pass(Xs[10:], y[10:], held_mask(20, 10, first=10))
    assert_same_state(before, learned_state(est))


def test_a_fault_of_the_masked_kernel_stops_olearn_run(monkeypatch, tmp_path):
    def broken(*args):
        raise RuntimeError("fault inside the masked kernel")

    monkeypatch.setattr("olearn.linear._base._compiled.held_out_linear_pass", broken)
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 3))
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(path), zero_based=False)
    result = CliRunner().invoke(cli, ["run", "-a", "pa1", "--passes", "2", str(path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, RuntimeError) and "fault inside the masked kernel" in str(result.exception)


@pytest.mark.parametrize("name", list(MASKED_KERNELS))
@pytest.mark.parametrize("refusal", ["label", "value", "overflow"])
def test_a_refused_chunk_falls_back_with_the_learner_as_it_was(name, refusal):
    _, _, make = MASKED_KERNELS[name]
    Xs, X = sparse_rows(30, 4, seed=10)
    y = np.tile([1.0, 2.0, 2.0], 10) if name == "pa1-multiclass" else np.tile([1.0, -1.0], 15)
    est = make().partial_fit(Xs[:10], y[:10])
    before = learned_state(est)
    if refusal == "label":
        y[13] = np.nan  # a learned row's label
    elif refusal == "value":
        X[14, 2] = np.inf
    else:
        X[15] = 1e200  # its update overflows: the pass stops part way
    assert est._held_out_pass(sp.csr_matrix(X[10:]), y[10:], held_mask(20, 10, first=10)) is None
    assert_same_state(before, learned_state(est))


@pytest.mark.parametrize("average", [False, 30])
def test_plain_winnow_masked_while_it_knows_one_class(average):
    # the first 40 rows are of one class: the plain form learns the model of the other encoding beside its own,
    # the held-out rows left out of both; the second class comes with the second chunk's first row
    X = np.abs(sparse_rows(150, 8, seed=13)[1])
    rng = np.random.default_rng(14)
    y = np.where(X @ rng.normal(size=8) > 0, 1, -1)
    y[:40], y[40] = -1, 1
    held = held_mask(150, 6)
    make = lambda: olearn.Winnow(balanced=False, C=0.5, average=average)  # noqa: E731
    reference, expected, (scores, _, _, held_scores) = learned_apart(make, sp.csr_matrix(X), y, held, None)
    est = make()
    outputs = [est._held_out_pass(sp.csr_matrix(X[lo:hi]), y[lo:hi], held[lo:hi]) for lo, hi in ((0, 40), (40, 150))]
    assert est._other is None and list(est.classes_) == [-1, 1]
    predictions = np.concatenate([out[0] for out in outputs])
    got_scores = np.concatenate([out[1] for out in outputs])
    np.testing.assert_array_equal(predictions, expected)
    np.testing.assert_array_equal(got_scores[~held], scores)
    np.testing.assert_array_equal(got_scores[held], held_scores)
    np.testing.assert_array_equal(est.coef_, reference.coef_)
    np.testing.assert_array_equal(est._theta, reference._theta)
