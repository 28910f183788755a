"""Averaging, sample weights and class weights of the multiclass and cost-sensitive learners.

The references are the NumPy transcriptions of tests/oracles/multiclass.py, run
with the weights (PA-I/PA-II with C -> v C, the Perceptron step times v, MIRA's
bound tau_y <= v, solved there by active sets) and with the naive average (the
whole model added to a sum every round), and closed forms derived by hand.
"""

import json
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from numpy.testing import assert_allclose
from oracles import multiclass as oracle

import olearn
import olearn.multiclass as mc
from olearn.exceptions import ModelFormatError

COSTS = {"a": 0.0, "b": 1.0, "c": 2.5, "d": 4.0}


def cost(true, pred):
    """An asymmetric cost: rho(y, y') = |t(y) - t(y')| + [y < y'] for y != y'."""
    return 0.0 if true == pred else abs(COSTS[true] - COSTS[pred]) + (1.0 if true < pred else 0.0)


CASES = [
    ("PAMulticlass", {"variant": "pa"}),
    ("PAMulticlass", {"variant": "pa1", "C": 0.3, "fit_intercept": True}),
    ("PAMulticlass", {"variant": "pa2", "C": 0.5}),
    ("PACostSensitive", {"variant": "pa1", "C": 2.0, "cost": cost, "update": "prediction"}),
    ("PACostSensitive", {"variant": "pa2", "C": 0.4, "cost": cost, "update": "max-loss", "fit_intercept": True}),
    ("MulticlassPerceptron", {"update": "uniform"}),
    ("MulticlassPerceptron", {"update": "proportional", "fit_intercept": True}),
    ("MIRA", {"beta": 1.0}),
    ("MIRA", {"beta": 0.3, "fit_intercept": True}),
]
def _case_id(name, params):
    return name + "-" + ",".join(f"{key}={getattr(value, '__name__', value)}" for key, value in params.items())


IDS = [_case_id(name, params) for name, params in CASES]


def stream(n=60, d=6, seed=0, density=1.0):
    """Rows from 4 random prototypes with 10% label noise; the classes appear at different times."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    if density < 1.0:
        X *= rng.random((n, d)) < density
    y = np.argmax(X @ rng.standard_normal((4, d)).T, axis=1)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, 4, flip.sum())
    return X, np.array(["c", "a", "d", "b"])[y]


def weights_for(n, seed=0):
    """Weights with zeros, fractions and integers."""
    rng = np.random.default_rng(seed + 100)
    return rng.choice([0.0, 0.25, 1.0, 1.5, 2.0, 3.0], size=n)


def rule(name, params):
    return oracle.for_estimator(name, params)


def averaged_prediction_checks(est, trace, X):
    coef, intercept = trace.averaged
    assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-9, atol=1e-12)
    scores = X @ coef.T + intercept
    assert_allclose(est.decision_function(X), scores, rtol=1e-9, atol=1e-12)
    assert list(est.predict(X)) == [trace.classes[i] for i in np.argmax(scores, axis=1)]


# -- averaging -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dense", "csr"])
@pytest.mark.parametrize("average", [True, 9])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_averaging_matches_the_naive_average(name, params, average, kind):
    """Two partial_fit calls with weights, then the averaged model against the naive O(kd)-per-round mean."""
    X, y = stream(seed=1, density=0.6 if kind == "csr" else 1.0)
    w = weights_for(len(y), seed=1)
    rows = sp.csr_matrix(X) if kind == "csr" else X
    est = getattr(mc, name)(**params, average=average)
    est.partial_fit(rows[:25], y[:25], sample_weight=w[:25])
    res = olearn.run(est, rows[25:], y[25:], sample_weight=w[25:])
    trace = oracle.multi_prototype(X, y, rule(name, params), params.get("fit_intercept", False), weights=w,
                                   average=int(average))
    # run scores each round with the current weights, the online learner's own
    assert_allclose(res.scores, trace.scores[25:], rtol=1e-9, atol=1e-12)
    assert list(res.predictions) == trace.predictions[25:]
    averaged_prediction_checks(est, trace, X)
    assert not np.allclose(est.coef_, trace.coef)  # the average is not the last model


def test_averaging_sparse_wide_rows_with_classes_arriving_late():
    """Few nonzeros among many features; classes join after averaging has started."""
    rng = np.random.default_rng(7)
    X = sp.random(80, 300, density=0.02, random_state=7, format="csr")
    y = np.array(["a", "b"] * 20 + list(rng.choice(["a", "b", "c", "d"], 40)))
    est = mc.PAMulticlass(variant="pa1", C=0.7, average=5)
    for lo in range(0, 80, 13):
        est.partial_fit(X[lo:lo + 13], y[lo:lo + 13])
    trace = oracle.multi_prototype(X.toarray(), y, oracle.pa_update("pa1", 0.7), average=5)
    averaged_prediction_checks(est, trace, X.toarray())


@pytest.mark.parametrize("average", [True, 4])
@pytest.mark.parametrize(("name", "params"), [c for c in CASES if c[0] != "MIRA"], ids=[i for i, c in zip(IDS, CASES)
                                                                                      if c[0] != "MIRA"])
def test_averaging_with_a_feature_map_matches_the_naive_average(name, params, average):
    X, y = stream(n=40, d=5, seed=3, density=0.8)
    w = weights_for(len(y), seed=3)
    shared = {"a": 1.0, "b": -0.5, "c": 2.0, "d": 0.0}

    def phi(x, label):  # class vectors that overlap: a label-scaled copy of x and a shared copy
        return np.concatenate([x * shared[label], 0.5 * x, [shared[label]]])

    est = getattr(mc, name)(**params, average=average, feature_map=lambda x, label: phi(x.toarray().ravel(), label))
    res = olearn.run(est, sp.csr_matrix(X), y, sample_weight=w)
    trace = oracle.single_prototype(X, y, rule(name, params), phi, 11, params.get("fit_intercept", False), weights=w,
                                    average=int(average))
    assert_allclose(res.scores, trace.scores, rtol=1e-9, atol=1e-12)
    coef, intercept = trace.averaged
    assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-9, atol=1e-12)
    expected = np.array([[coef @ phi(x, c) + b for c, b in zip(trace.classes, intercept)] for x in X])
    assert_allclose(est.decision_function(X), expected, rtol=1e-9, atol=1e-12)
    one = getattr(mc, name)(**params, average=average, feature_map=est.feature_map)
    for x, label, weight in zip(X, y, w):
        one.learn_one(x, label, sample_weight=weight)
    assert_allclose(one.coef_, coef, rtol=1e-9, atol=1e-12)


def test_weighted_mira_with_a_block_map_averages_as_the_oracle():
    X, y = stream(n=40, d=5, seed=4)
    w = weights_for(40, seed=4)
    est = mc.MIRA(beta=0.6, average=True, feature_map=mc.BlockFeatureMap(list("abcd"), 5))
    est.partial_fit(X, y, sample_weight=w)
    trace = oracle.single_prototype(X, y, oracle.mira_update(0.6), oracle.block_phi("abcd", 5), 20, weights=w,
                                    average=1)
    assert_allclose(est.coef_, trace.averaged[0], rtol=1e-9, atol=1e-12)


def test_a_pickled_averaged_learner_continues_as_the_original():
    X, y = stream(n=40, seed=19)
    est = mc.PAMulticlass(average=4, fit_intercept=True).partial_fit(X[:20], y[:20])
    copy = pickle.loads(pickle.dumps(est))
    for model in (est, copy):
        model.partial_fit(X[20:], y[20:])
    assert_allclose(copy.coef_, est.coef_, rtol=0, atol=0)
    assert_allclose(copy.intercept_, est.intercept_, rtol=0, atol=0)


def test_before_averaging_starts_predictions_use_the_current_weights():
    X, y = stream(n=30, seed=5)
    est = mc.PAMulticlass(average=31).partial_fit(X, y)
    assert_allclose(est.coef_, mc.PAMulticlass().partial_fit(X, y).coef_, rtol=0, atol=0)
    est.partial_fit(X[:1], y[:1])  # round 31: the mean of one model, the current one
    assert_allclose(est.coef_, mc.PAMulticlass().partial_fit(np.vstack([X, X[:1]]), np.append(y, y[0])).coef_,
                    rtol=1e-12, atol=1e-15)


def test_learn_one_and_predict_learn_one_average_as_partial_fit():
    X, y = stream(n=30, seed=6)
    w = weights_for(30, seed=6)
    batch = mc.PACostSensitive(cost=cost, update="max-loss", average=3).partial_fit(X, y, sample_weight=w)
    one = mc.PACostSensitive(cost=cost, update="max-loss", average=3)
    current = mc.PACostSensitive(cost=cost, update="max-loss")
    for x, label, weight in zip(X, y, w):
        # predict_learn_one predicts with the current weights, not the averaged ones
        assert one.predict_learn_one(x, label, sample_weight=weight) == current.predict_learn_one(x, label, weight)
    assert_allclose(one.coef_, batch.coef_, rtol=1e-12, atol=1e-15)
    assert one.predict_one(X[0]) == batch.predict(X[:1])[0]


def test_changing_average_after_learning_is_refused():
    X, y = stream(n=10)
    est = mc.PAMulticlass(average=True).partial_fit(X, y)
    before = snapshot(est)
    est.set_params(average=False)
    with pytest.raises(ValueError, match="average was changed after learning started"):
        est.partial_fit(X, y)
    est.set_params(average=True)
    assert_same(before, est, "setting average back")
    est.set_params(average=1).partial_fit(X, y)  # the same start as True


@pytest.mark.parametrize("cls", [mc.PAMulticlass, mc.MIRA])
def test_average_with_a_kernel_is_refused(cls):
    with pytest.raises(ValueError, match="average=True cannot be combined with kernel='rbf'"):
        cls(kernel="rbf", average=True).partial_fit(np.eye(2), [0, 1])


# -- saving the averaged state -------------------------------------------------------------------


def _rewrite(path, change_meta=None, change_arrays=None):
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    if change_meta:
        change_meta(meta)
    if change_arrays:
        change_arrays(arrays)
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)


def test_the_averaged_state_is_saved_and_learning_continues(tmp_path):
    X, y = stream(n=50, seed=8)
    est = mc.PAMulticlass(variant="pa2", fit_intercept=True, average=7).partial_fit(X[:30], y[:30])
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert_allclose(loaded.decision_function(X), est.decision_function(X), rtol=0, atol=0)
    for model in (est, loaded):
        model.partial_fit(X[30:], y[30:])
    assert_allclose(loaded.coef_, est.coef_, rtol=0, atol=0)
    trace = oracle.multi_prototype(X, y, oracle.pa_update("pa2", 1.0), True, average=7)
    assert_allclose(loaded.coef_, trace.averaged[0], rtol=1e-9, atol=1e-12)


def test_a_broken_averaged_state_is_refused(tmp_path):
    X, y = stream(n=20, seed=9)
    path = tmp_path / "m.npz"
    mc.MIRA(average=5).partial_fit(X, y).save(path)
    _rewrite(path, change_arrays=lambda a: a.pop("average_sum"))
    with pytest.raises(ModelFormatError, match=r"lacks arrays \['average_sum'\]"):
        olearn.load(path)
    mc.MIRA(average=5).partial_fit(X, y).save(path)
    _rewrite(path, change_arrays=lambda a: a.update(rounds=np.array([-1])))
    with pytest.raises(ModelFormatError, match="'rounds'"):
        olearn.load(path)
    mc.MIRA(average=5).partial_fit(X, y).save(path)
    _rewrite(path, change_arrays=lambda a: a.update(rounds=np.array([5])))  # the sum should then be 0
    with pytest.raises(ModelFormatError, match="'average_sum' is not 0"):
        olearn.load(path)
    mc.MIRA().partial_fit(X, y).save(path)
    _rewrite(path, change_arrays=lambda a: a.update(average_sum=a["weights"]))
    with pytest.raises(ModelFormatError, match=r"unexpected arrays \['average_sum'\]"):
        olearn.load(path)


def test_a_file_written_before_average_and_class_weight_existed_loads(tmp_path):
    X, y = stream(n=20, seed=10)
    path = tmp_path / "m.npz"
    est = mc.PACostSensitive(update="max-loss").partial_fit(X, y)
    est.save(path)

    def older(meta):
        del meta["params"]["average"], meta["params"]["class_weight"], meta["all_params"]

    _rewrite(path, change_meta=older)
    loaded = olearn.load(path)
    assert loaded.average is False and loaded.class_weight is None
    assert_allclose(loaded.coef_, est.coef_, rtol=0, atol=0)


# -- importance weights ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dense", "csr"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_weights_match_the_oracle(name, params, kind):
    X, y = stream(seed=11, density=0.7)
    w = weights_for(len(y), seed=11)
    est = getattr(mc, name)(**params)
    res = olearn.run(est, sp.csr_matrix(X) if kind == "csr" else X, y, sample_weight=w)
    trace = oracle.multi_prototype(X, y, rule(name, params), params.get("fit_intercept", False), weights=w)
    assert_allclose(res.taus, trace.taus, rtol=1e-9, atol=1e-12)
    assert_allclose(res.losses, trace.losses, rtol=1e-9, atol=1e-12)
    assert_allclose(est.coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert (res.taus[w == 0] == 0).all() and (res.losses[w == 0] > 0).any()


@pytest.mark.parametrize(("name", "params"), [
    ("PAMulticlass", {"variant": "pa1", "C": 0.2}),
    ("PACostSensitive", {"variant": "pa1", "C": 0.2, "cost": [[0, 3.0], [0.5, 0]], "update": "max-loss"}),
])
def test_pa1_integer_weight_is_the_example_repeated_with_two_classes(name, params):
    """With two classes the rival cannot change between the repeats: their steps add up to min(vC, l/||z||^2).

    Not so for the prediction-based update, whose repeats stop once the prediction is right
    (see the next test).
    """
    rng = np.random.default_rng(12)
    X = rng.standard_normal((40, 3))
    y = (X @ [1.0, -1.0, 0.5] + 0.5 * rng.standard_normal(40) > 0).astype(int)
    w = rng.integers(0, 4, 40)
    weighted = getattr(mc, name)(**params).partial_fit(X, y, classes=[0, 1], sample_weight=w)
    repeated = getattr(mc, name)(**params).partial_fit(np.repeat(X, w, axis=0), np.repeat(y, w), classes=[0, 1])
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-10, atol=1e-12)
    assert (w >= 2).sum() > 10 and np.abs(weighted.coef_).max() > 0.5


def test_prediction_based_weight_is_not_the_example_repeated():
    """Hand-derived: two classes, rho(1, 0) = 4, x = e1, y = 1, C = 0.4, all scores 0.

    The tie goes to class 0, the prediction; loss 0 - 0 + sqrt(4) = 2, ||z||^2 = 2.
    Weight 3: tau = min(1.2, 2/2) = 1. Three repeats: tau = 0.4 makes the scores
    (-0.4, 0.4), the prediction is then right and PB moves no more: 0.4 in all.
    """
    x = np.array([[1.0, 0.0]])
    est = mc.PACostSensitive(variant="pa1", C=0.4, cost=[[0, 1.0], [4.0, 0]], update="prediction")
    weighted = est.partial_fit(x, [1], classes=[0, 1], sample_weight=[3]).coef_[:, 0]
    assert_allclose(weighted, [-1.0, 1.0], rtol=1e-15)
    est = mc.PACostSensitive(variant="pa1", C=0.4, cost=[[0, 1.0], [4.0, 0]], update="prediction")
    assert_allclose(est.partial_fit(np.repeat(x, 3, axis=0), [1, 1, 1], classes=[0, 1]).coef_[:, 0], [-0.4, 0.4],
                    rtol=1e-15)


def test_pa1_weight_two_with_three_classes_is_one_step_towards_the_first_rival():
    """Hand-derived: x = e1, all scores 0, y = a, C = 0.3, ||z||^2 = 2, loss 1.

    Weight 2: tau = min(0.6, 1/2) = 0.5 against the rival b (b and c tie; b sorts first).
    The example twice: tau = 0.3 against b, then scores (0.3, -0.3, 0), rival c with
    loss 0.7, tau = min(0.3, 0.35) = 0.3: another model, so the rule is the closed form.
    """
    x = np.array([[1.0, 0.0]])
    weighted = mc.PAMulticlass(C=0.3).partial_fit(x, ["a"], classes=["a", "b", "c"], sample_weight=[2])
    assert_allclose(weighted.coef_[:, 0], [0.5, -0.5, 0.0], rtol=1e-15)
    twice = mc.PAMulticlass(C=0.3).partial_fit(np.vstack([x, x]), ["a", "a"], classes=["a", "b", "c"])
    assert_allclose(twice.coef_[:, 0], [0.6, -0.3, -0.3], rtol=1e-15)


def test_pa2_weight_scales_c_in_the_closed_form():
    """x = (1, 2): ||z||^2 = 2 * 5 = 10, loss 1; weight 3, C = 0.5: tau = 1 / (10 + 1/(2 * 3 * 0.5)) = 3/31."""
    est = mc.PAMulticlass(variant="pa2", C=0.5)
    est.partial_fit(np.zeros((0, 2)), [], classes=["a", "b"])
    res = olearn.run(est, np.array([[1.0, 2.0]]), ["b"], sample_weight=[3.0])
    assert_allclose(res.taus, [3 / 31], rtol=1e-15)
    assert_allclose(est.coef_, [[-3 / 31, -6 / 31], [3 / 31, 6 / 31]], rtol=1e-15)


def test_the_perceptron_step_is_scaled_by_the_weight():
    """Uniform split, E = {a, c} (both tie with the true b at 0): w_b += 2.5 x, w_a, w_c -= 1.25 x."""
    est = mc.MulticlassPerceptron(update="uniform")
    est.partial_fit(np.zeros((0, 2)), [], classes=["a", "b", "c"])
    res = olearn.run(est, np.array([[2.0, -1.0]]), ["b"], sample_weight=[2.5])
    assert_allclose(res.taus, [2.5])
    assert_allclose(est.coef_, [[-2.5, 1.25], [5.0, -2.5], [-2.5, 1.25]], rtol=1e-15)


def test_weighted_mira_on_two_classes_is_pa1_with_c_equal_to_the_weight():
    """MIRA(beta=1) on two classes is PA-I with C = 1; its bound tau_y <= v makes it PA-I with C = v."""
    rng = np.random.default_rng(13)
    X = rng.standard_normal((50, 4))
    y = rng.integers(0, 2, 50)
    w = rng.choice([0.0, 0.1, 0.5, 2.0, 7.0], 50)
    mira = mc.MIRA(beta=1.0).partial_fit(X, y, classes=[0, 1], sample_weight=w)
    pa1 = mc.PAMulticlass(variant="pa1", C=1.0).partial_fit(X, y, classes=[0, 1], sample_weight=w)
    assert_allclose(mira.coef_, pa1.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kernel", [None, "linear"])
def test_mira_weight_too_small_to_divide_by_takes_the_programs_limit(kernel):
    """v A below 1e-300 of the scores: MIRA's program in c' = c / v tends to the linear one.

    By hand: the limit gives c'_y = 1 and -1 shared by the top rivals when they
    violate the margin. Round 1 (all scores 0, rivals b and c tied): W_a = v x1,
    W_b = W_c = -v x1 / 2. Round 2 is worked out below in plain NumPy. Before,
    dividing the scores by v A overflowed and the example was refused.
    """
    v = 1e-310
    X = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0], [-2.0, 1.0, 1.0]])
    est = mc.MIRA(beta=1.0, kernel=kernel)
    est.partial_fit(X[:1], ["a"], classes=["a", "b", "c"], sample_weight=[v])
    W = {"a": v * X[0], "b": -0.5 * v * X[0], "c": -0.5 * v * X[0]}
    for x, label in ((X[1], "b"), (X[2], "c")):
        est.learn_one(x, label, sample_weight=v)
        scores = {c: W[c] @ x for c in W}
        rival = max((c for c in W if c != label), key=scores.get)
        assert sum(scores[c] == scores[rival] for c in W if c != label) == 1  # no tie: one top rival
        assert scores[label] - scores[rival] < 1.0  # the margin is violated: the limit moves
        W[label], W[rival] = W[label] + v * x, W[rival] - v * x
    expected = np.array([W[c] for c in "abc"])
    assert_allclose(est.decision_function(X), X @ expected.T, rtol=1e-9, atol=0.0)
    if kernel is None:
        assert_allclose(est.coef_, expected, rtol=1e-9, atol=0.0)
    # a learned model: the tiny weight moves the weights by less than their rounding, and is not refused
    learned = mc.MIRA(beta=1.0, kernel=kernel).partial_fit(*stream(n=20, d=3, seed=15))
    before = learned.decision_function(X)
    learned.learn_one(X[0], learned.classes_[0], sample_weight=1e-320)
    assert_allclose(learned.decision_function(X), before, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("geometry", ["prototypes", "kernel", "feature map"])
def test_mira_weight_times_norm_underflowing_to_zero_takes_the_programs_limit(geometry):
    """v A = 1e-10 * 1e-320 rounds to 0 although v, A > 0: the program is at its limit, not refused.

    By hand, as above: all scores 0, the rivals b and c tied, so W_a = v x and
    W_b = W_c = -v x / 2. Found by the long fuzz campaign of extreme values, where
    dividing by the 0 raised ZeroDivisionError from the kernel.
    """
    params = {"kernel": "linear"} if geometry == "kernel" else {}
    if geometry == "feature map":
        params["feature_map"] = mc.BlockFeatureMap(list("abc"), 3)
    v, x = 1e-10, np.array([1e-160, 0.0, 0.0])
    est = mc.MIRA(beta=0.5, **params)
    est.partial_fit(np.zeros((0, 3)), [], classes=list("abc"))
    est.partial_fit(x[None, :], ["a"], sample_weight=[v])
    expected = np.array([v * x, -0.5 * v * x, -0.5 * v * x])
    probe = np.array([[1e150, 0.0, 0.0]])
    assert_allclose(est.decision_function(probe), probe @ expected.T, rtol=1e-12, atol=0.0)
    assert est.decision_function(probe)[0, 0] > 0.0  # the step is not lost to the underflow
    # the campaign's example: v A and v x both underflow; learned without an error, the weights unchanged
    est.partial_fit(np.array([[0.0, 0.0, 7.072266587554642e-94]]), ["a"], sample_weight=[1e-300])
    assert_allclose(est.decision_function(probe), probe @ expected.T, rtol=1e-12, atol=0.0)


def linear_gram(A, B):
    return A @ B.T


@pytest.mark.parametrize("kernel", ["linear", "poly", "callable"])
@pytest.mark.parametrize(("name", "params"), [CASES[1], CASES[4], CASES[5], CASES[7]], ids=[IDS[1], IDS[4], IDS[5],
                                                                                              IDS[7]])
def test_kernel_learners_take_the_weights(name, params, kernel):
    X, y = stream(n=40, d=4, seed=14)
    w = weights_for(40, seed=14)
    est = getattr(mc, name)(**params, kernel=linear_gram if kernel == "callable" else kernel, degree=2, coef0=1.0)
    res = olearn.run(est, X, y, sample_weight=w)
    function = oracle.poly_kernel(2, 1.0, 1.0) if kernel == "poly" else oracle.linear_kernel
    trace, support = oracle.kernel_multi_prototype(X, y, rule(name, params), function,
                                                   params.get("fit_intercept", False), weights=w)
    assert_allclose(res.taus, trace.taus, rtol=1e-9, atol=1e-12)
    assert_allclose(est.dual_coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert est.n_support_ == support.shape[0]
    one = getattr(mc, name)(**est.get_params())
    for x, label, weight in zip(X, y, w):
        one.learn_one(x, label, sample_weight=weight)
    assert_allclose(one.dual_coef_, trace.coef, rtol=1e-9, atol=1e-12)


def test_zero_weights_leave_the_weights_as_they_were():
    X, y = stream(n=30, seed=15)
    est = mc.MIRA(beta=0.5).partial_fit(X[:20], y[:20])
    W = est.coef_
    res = olearn.run(est, X[20:], y[20:], sample_weight=np.zeros(10))
    assert_allclose(est.coef_, W, rtol=0, atol=0)
    assert res.n_updates == 0 and (res.taus == 0).all() and res.losses.sum() > 0
    assert est._clock[0] == 30  # the rounds still count (for averaging)


def test_class_weight_weighs_the_examples_of_each_true_class():
    X, y = stream(n=50, seed=16)
    w = weights_for(50, seed=16)
    table = {"a": 2.0, "c": 0.5, "d": 0.0}
    by_class = mc.PAMulticlass(variant="pa2", class_weight=table).partial_fit(X, y, sample_weight=w)
    by_row = mc.PAMulticlass(variant="pa2").partial_fit(X, y, sample_weight=w * [table.get(c, 1.0) for c in y])
    assert_allclose(by_class.coef_, by_row.coef_, rtol=0, atol=0)
    one = mc.PAMulticlass(variant="pa2", class_weight=table)
    for x, label, weight in zip(X, y, w):
        one.learn_one(x, label, sample_weight=weight)
    assert_allclose(one.coef_, by_row.coef_, rtol=1e-12, atol=1e-15)


def test_balanced_class_weight_through_the_fit_protocol():
    """``fit`` computes the weights with fitting=True and makes the weighted pass: scikit-learn's n / (k n_c)."""
    X, y = stream(n=40, seed=17)
    est = mc.MulticlassPerceptron(class_weight="balanced")
    est._progressive(X, y, record=False, sample_weight=est._row_weights(X, y, None, fitting=True))
    labels, counts = np.unique(y, return_counts=True)
    table = {label: 40 / (len(labels) * count) for label, count in zip(labels, counts)}
    expected = mc.MulticlassPerceptron(class_weight=table).partial_fit(X, y)
    assert_allclose(est.coef_, expected.coef_, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="class_weight='balanced'.*fit only"):
        est.partial_fit(X, y)


# -- refused weights -------------------------------------------------------------------------------

BAD_BATCH_WEIGHTS = [
    ("negative", lambda n: np.r_[np.ones(n - 1), -1.0], r"sample_weight\[\d+\] is -1.0"),
    ("NaN", lambda n: np.r_[np.nan, np.ones(n - 1)], r"sample_weight\[0\] is nan"),
    ("inf", lambda n: np.r_[np.ones(n - 1), np.inf], "finite"),
    ("too short", lambda n: np.ones(n - 1), "expected"),
    ("2-d", lambda n: np.ones((n, 1)), "shape"),
    ("strings", lambda n: ["1"] * n, "dtype|number"),
]


@pytest.mark.parametrize(("what", "make", "match"), BAD_BATCH_WEIGHTS, ids=[b[0] for b in BAD_BATCH_WEIGHTS])
@pytest.mark.parametrize("settings", [{}, {"average": 2}, {"feature_map": mc.BlockFeatureMap(list("abcd"), 6)},
                                      {"kernel": "poly", "degree": 2}], ids=["plain", "averaged", "map", "kernel"])
def test_bad_weights_are_refused_and_the_learner_is_unchanged(what, make, match, settings):
    X, y = stream(n=12, seed=18)
    est = mc.PAMulticlass(**settings).partial_fit(X[:6], y[:6])
    before = snapshot(est)
    with pytest.raises(ValueError, match=match):
        est.partial_fit(X[6:], y[6:], sample_weight=make(6))
    with pytest.raises(ValueError, match=match):
        olearn.run(est, X[6:], y[6:], sample_weight=make(6))
    assert_same(before, est, f"{what} weights")
    for bad in (-1.0, np.nan, np.inf, "2", [1.0]):
        with pytest.raises(ValueError, match="sample_weight"):
            est.learn_one(X[6], y[6], sample_weight=bad)
        with pytest.raises(ValueError, match="sample_weight"):
            est.predict_learn_one(X[6], "new class", sample_weight=bad)
    assert_same(before, est, "bad weights of one example")
    est.partial_fit(X[6:], y[6:])
    fresh = mc.PAMulticlass(**settings).partial_fit(X, y)
    assert_allclose(est.decision_function(X), fresh.decision_function(X), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("settings", [{}, {"feature_map": mc.BlockFeatureMap(["a", "b"], 3)}],
                         ids=["prototypes", "map"])
def test_an_averaged_sum_that_would_overflow_stops_the_pass_and_keeps_the_model(settings):
    """Rows e_1, e_2, e_3 of weight 1e308: every Perceptron step moves two prototypes by 1e308 on a
    fresh feature, so the weights stay finite, but round 3 adds 2 * 1e308 to the averaged sum."""
    X, y, w = np.eye(3), ["a", "b", "a"], np.full(3, 1e308)
    est = mc.MulticlassPerceptron(average=True, **settings)
    with pytest.raises(FloatingPointError, match="row 2"):
        est.partial_fit(X, y, classes=["a", "b"], sample_weight=w)
    two_rows = mc.MulticlassPerceptron(average=True, **settings).partial_fit(X[:2], y[:2], classes=["a", "b"],
                                                                            sample_weight=w[:2])
    assert_same(snapshot(two_rows), est, "the refused round")
    # the mean of rounds 1 and 2: the step of round 1 in full, that of round 2 halved
    assert_allclose(np.sort(np.abs(est.coef_).ravel())[-4:], [5e307, 5e307, 1e308, 1e308], rtol=1e-15)
