"""PASequence's averaging and importance weights (issue #13) against plain NumPy transcriptions.

The averaged weights are checked against the naive mean of the brute-force
oracle's weights after each sequence (the oracle run on every prefix), the
weights against the oracle with C scaled per sequence and hand-derived values.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from numpy.testing import assert_allclose, assert_array_equal
from oracles.sequence import chain_score, pa_sequence
from test_persistence_checks import _members, _write

import olearn
from olearn.exceptions import ModelFormatError
from olearn.sequence import PASequence

CLASSES = ["a", "b", "c"]


def _naive_average(X, y, start, **kw):
    """Mean of the oracle's (coef, intercept, transition, end_transition) after sequences start..n (n < start:
    the last ones)."""
    n = len(y)
    ends = range(start, n + 1) if n >= start else [n]
    traces = [pa_sequence(X[:t], y[:t], CLASSES, d=X[0].shape[1], **kw) for t in ends]
    return tuple(np.mean([getattr(tr, name) for tr in traces], axis=0) for name in ("coef", "intercept", "transition",
                                                                               "end_transition"))


def _as(layout, X):
    return [sp.csr_matrix(x) for x in X] if layout == "csr" else X


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("update,variant,C,fit_intercept,end_transition", [
    ("prediction", "pa1", 0.4, False, False), ("max-loss", "pa2", 0.8, True, True), ("prediction", "pa", 1.0, True, True),
    ("prediction", "pa1", 0.4, False, True),
])
@pytest.mark.parametrize("average", [True, 6])
def test_averaged_weights_match_the_naive_mean(make_sequences, layout, update, variant, C, fit_intercept,
                                               end_transition, average):
    X, y = make_sequences(16, seed=1, density=0.5 if layout == "csr" else 1.0)
    start = 1 if average is True else average
    coef, intercept, transition, end = _naive_average(X, y, start, variant=variant, C=C, update=update,
                                                      fit_intercept=fit_intercept, end_transition=end_transition)
    est = PASequence(variant=variant, C=C, update=update, fit_intercept=fit_intercept, average=average,
                     end_transition=end_transition)
    rows = _as(layout, X)
    est.partial_fit(rows[:4], y[:4]).partial_fit(rows[4:], y[4:])
    assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-9, atol=1e-12)
    assert_allclose(est.transition_, transition, rtol=1e-9, atol=1e-12)
    assert_allclose(est.end_transition_, end, rtol=1e-9, atol=1e-12)
    assert np.any(end != 0.0) == end_transition
    # predictions are the Viterbi labellings of the averaged weights: check their scores by brute force
    for x, predicted in zip(X[:5], est.predict(rows[:5])):
        em = x @ coef.T + (intercept if fit_intercept else 0.0)
        codes = [CLASSES.index(label) for label in predicted]
        best = max(chain_score(em, transition, labelling, end)
                   for labelling in np.ndindex(*(3,) * len(x))) if len(x) else 0.0
        assert chain_score(em, transition, codes, end) == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_averaging_not_started_yet_uses_the_current_weights(make_sequences):
    X, y = make_sequences(8, seed=2)
    est = PASequence(average=9).partial_fit(X, y)
    trace = pa_sequence(X, y, CLASSES)
    assert_allclose(est.coef_, trace.coef, rtol=1e-12, atol=1e-14)
    assert_allclose(est.transition_, trace.transition, rtol=1e-12, atol=1e-14)


def test_run_scores_with_the_current_weights(make_sequences):
    X, y = make_sequences(14, seed=3)
    trace = pa_sequence(X, y, CLASSES, variant="pa2", C=0.5)
    est = PASequence(variant="pa2", C=0.5, average=True)
    res = olearn.run(est, X, y)
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    fitted = PASequence(variant="pa2", C=0.5, average=True).partial_fit(X, y)
    ones = PASequence(variant="pa2", C=0.5, average=True)
    for x, labels in zip(X, y):
        ones.learn_one(x, labels)
    assert_array_equal(est.coef_, fitted.coef_)
    assert_allclose(ones.coef_, fitted.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(ones.transition_, fitted.transition_, rtol=1e-12, atol=1e-14)


def test_callable_cost_averages_and_weighs_as_the_compiled_pass(make_sequences):
    """A cost given as a Python callable takes the other pass: the same averaging and weights."""
    X, y = make_sequences(12, seed=4)
    weights = np.random.default_rng(0).choice([0.0, 0.5, 2.0], size=len(y))

    def cost(truth, predicted):
        return float(np.sum(truth != predicted))

    compiled = PASequence(average=2).partial_fit(X, y, sample_weight=weights)
    called = PASequence(average=2, cost=cost).partial_fit(X, y, sample_weight=weights)
    assert_allclose(called.coef_, compiled.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(called.transition_, compiled.transition_, rtol=1e-12, atol=1e-14)


def test_averaged_model_saves_and_loads(make_sequences, tmp_path):
    X, y = make_sequences(12, seed=5)
    est = PASequence(fit_intercept=True, average=3).partial_fit(X[:8], y[:8])
    est.save(tmp_path / "m.olearn")
    loaded = olearn.load(tmp_path / "m.olearn")
    assert_array_equal(loaded.coef_, est.coef_)
    loaded.partial_fit(X[8:], y[8:])
    est.partial_fit(X[8:], y[8:])
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.transition_, est.transition_)


def test_saved_averaging_must_match_the_hyperparameter(make_sequences, tmp_path):
    X, y = make_sequences(6, seed=6)
    path = tmp_path / "plain.olearn"
    PASequence().partial_fit(X, y).save(path)
    meta, members = _members(path)
    del meta["params"]["average"], meta["all_params"]
    _write(path, meta, members)
    assert olearn.load(path).average is False  # a file from before average existed
    averaged = {"average_emission": np.zeros_like(members["emission"]),
                "average_transition": np.zeros_like(members["transition"]), "averaging": np.array([6, 2])}
    for name, average, arrays in [("lacking", True, {}), ("other-start", True, averaged),
                                  ("extra", False, averaged)]:
        bad = tmp_path / f"{name}.olearn"
        _write(bad, {**meta, "params": {**meta["params"], "average": average}}, {**members, **arrays})
        with pytest.raises(ModelFormatError, match="averag"):
            olearn.load(bad)


def test_changing_average_after_learning_started_is_refused(make_sequences):
    X, y = make_sequences(6, seed=7)
    est = PASequence(average=2).partial_fit(X, y)
    before = snapshot(est)
    est.set_params(average=True)
    with pytest.raises(ValueError, match="average=True was set after learning started"):
        est.learn_one(X[0], y[0])
    est.set_params(average=2)
    assert_same(before, est, "a refused change of average")


# -- importance weights ---------------------------------------------------------


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("update,variant,C", [("prediction", "pa1", 0.3), ("max-loss", "pa2", 0.6),
                                              ("max-loss", "pa", 1.0)])
def test_weighted_stream_matches_the_oracle(make_sequences, layout, update, variant, C):
    X, y = make_sequences(15, seed=8, density=0.5 if layout == "csr" else 1.0)
    weights = np.random.default_rng(1).choice([0.0, 0.25, 1.0, 3.0], size=len(y))
    trace = pa_sequence(X, y, CLASSES, variant=variant, C=C, update=update, weights=weights)
    est = PASequence(variant=variant, C=C, update=update)
    res = olearn.run(est, _as(layout, X), y, sample_weight=weights)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(est.coef_, trace.coef, rtol=1e-10, atol=1e-12)
    assert_allclose(est.transition_, trace.transition, rtol=1e-10, atol=1e-12)
    one = PASequence(variant=variant, C=C, update=update)
    for x, labels, w in zip(X, y, weights):
        one.learn_one(x, labels, sample_weight=w)
    assert_allclose(one.coef_, est.coef_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_pa1_weight_two_is_the_sequence_twice(update):
    """PA-I, C = 0.01, after a warm start on (e1, e2) -> (a, b) with weight 100 (C = 1): on (e1, e2) -> (b, a) both
    steps are clipped at C and the rival (a, b) scores far above the others, so it is the rival of the repeat too,
    the identity's condition (checked on the oracle)."""
    X = [np.eye(2), np.eye(2)[::-1], np.eye(2)]
    y = [["a", "b"], ["a", "b"], ["b", "a"]]
    trace = pa_sequence(X + X[-1:], y + y[-1:], CLASSES[:2], C=0.01, update=update, weights=[100, 100, 1, 1])
    assert trace.rivals[2] == trace.rivals[3] == (0, 1) and trace.taus[2] == trace.taus[3] == 0.01
    twice = PASequence(C=0.01, update=update).partial_fit(X + X[-1:], y + y[-1:], sample_weight=[100, 100, 1, 1])
    weighted = PASequence(C=0.01, update=update).partial_fit(X, y, sample_weight=[100, 100, 2])
    assert_allclose(weighted.coef_, twice.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(weighted.transition_, twice.transition_, rtol=1e-12, atol=1e-14)
    assert_allclose(twice.coef_, trace.coef, rtol=1e-12, atol=1e-14)


def test_pa2_weight_is_the_closed_form():
    """X = (e1, e2), y = (a, b), w = 0: the rival is (a, a) (ties to the first labelling), Hamming 1, loss 1;
    bare Phi: z = +x2 (x) e_b - x2 (x) e_a + e_(a,b) - e_(a,a): ||z||^2 = 4; PA-II, C = 0.5, weight 3:
    tau = 1 / (4 + 1/3)."""
    est = PASequence(variant="pa2", C=0.5, fit_intercept=False, end_transition=False).partial_fit(
        [np.eye(2)], [["a", "b"]], sample_weight=[3.0])
    tau = 1.0 / (4.0 + 1.0 / 3.0)
    assert_allclose(est.coef_, [[0.0, -tau], [0.0, tau]], rtol=1e-12)
    assert_allclose(est.transition_, [[-tau, tau], [0.0, 0.0], [0.0, 0.0]], rtol=1e-12)


def test_pa2_weight_is_the_closed_form_with_the_default_bias_and_end():
    """As above, with the defaults' features: z also holds +1 for b's bias and b's end transition and -1 for
    a's, so ||z||^2 = 4 + 2 + 2 = 8 and tau = 1 / (8 + 1/3)."""
    est = PASequence(variant="pa2", C=0.5).partial_fit([np.eye(2)], [["a", "b"]], sample_weight=[3.0])
    tau = 1.0 / (8.0 + 1.0 / 3.0)
    assert_allclose(est.coef_, [[0.0, -tau], [0.0, tau]], rtol=1e-12)
    assert_allclose(est.intercept_, [-tau, tau], rtol=1e-12)
    assert_allclose(est.transition_, [[-tau, tau], [0.0, 0.0], [0.0, 0.0]], rtol=1e-12)
    assert_allclose(est.end_transition_, [-tau, tau], rtol=1e-12)


@pytest.mark.parametrize("average", [False, True])
def test_zero_weight_changes_nothing_but_the_round(make_sequences, average):
    X, y = make_sequences(10, seed=10)
    est = PASequence(variant="pa", average=average).partial_fit(X[:6], y[:6])
    emission, transition = est._emission.copy(), est._transition.copy()
    res = olearn.run(est, X[6:], y[6:], sample_weight=0.0)
    assert_array_equal(est._emission, emission)
    assert_array_equal(est._transition, transition)
    assert res.n_rounds == 4 and not res.taus.any()
    if average:
        coef, _, trans, _ = _naive_average(X, y, 1, variant="pa", weights=np.r_[np.ones(6), np.zeros(4)])
        assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)
        assert_allclose(est.transition_, trans, rtol=1e-9, atol=1e-12)


BAD_WEIGHTS = [("negative", [1.0, -1.0, 1.0]), ("NaN", [1.0, math.nan, 1.0]), ("inf", [math.inf, 1.0, 1.0]),
               ("long", [1.0] * 4), ("text", "heavy")]


@pytest.mark.parametrize("what,weights", BAD_WEIGHTS, ids=[w for w, _ in BAD_WEIGHTS])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(make_sequences, what, weights):
    X, y = make_sequences(9, seed=11)
    est = PASequence(average=True).partial_fit(X[:6], y[:6])
    before = snapshot(est)
    with pytest.raises(ValueError, match="sample_weight"):
        est.partial_fit(X[6:], y[6:], sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight"):
        olearn.run(est, X[6:], y[6:], sample_weight=weights)
    for bad in (-0.5, math.inf, "2"):
        with pytest.raises(ValueError, match="sample_weight"):
            est.learn_one(X[6], y[6], sample_weight=bad)
    assert_same(before, est, f"{what} weights")

