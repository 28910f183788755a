"""Identities between the multiclass learners, derived by hand, and the paper's invariants."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import multiclass as oracle
from test_multiclass_oracles import stream

import olearn
import olearn.multiclass as mc


def two_class_stream(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, "yes", "no")
    y[0], y[1] = "yes", "no"
    return X, y


@pytest.mark.parametrize("params", [{"variant": "pa"}, {"variant": "pa1", "C": 0.2},
                                    {"variant": "pa2", "C": 0.7, "fit_intercept": True}, {"variant": "pa1", "C": 5.0}])
def test_two_classes_are_binary_pa_with_C_doubled(params):
    """k = 2: ||z||^2 = 2||x||^2 and w_1 - w_0 moves by 2 tau y x, so tau_binary = 2 tau with C_binary = 2C.

    Row 0 only brings the first class (no rival), so the binary learner starts at row 1.
    """
    X, y = two_class_stream()
    multi = mc.PAMulticlass(**params)
    res = olearn.run(multi, X, y)
    binary_params = {**params, "C": 2 * params.get("C", 1.0)}
    binary = olearn.PAClassifier(**binary_params)
    res_b = olearn.run(binary, X[1:], y[1:])
    assert_allclose(multi.coef_[0], -multi.coef_[1], atol=1e-15)  # the prototypes stay opposite
    assert_allclose(multi.coef_[1] - multi.coef_[0], binary.coef_[0], rtol=1e-12, atol=1e-14)
    assert_allclose(multi.intercept_[1] - multi.intercept_[0], binary.intercept_[0], rtol=1e-12, atol=1e-14)
    assert_allclose(2 * res.taus[1:], res_b.taus, rtol=1e-12)
    assert_allclose(res.losses[1:], res_b.losses, rtol=1e-12, atol=1e-14)
    # row 1 brings the second class, which the binary learner knew from the start
    assert_array_equal(res.predictions[2:], res_b.predictions[1:])
    assert res.n_mistakes == res_b.n_mistakes + 1  # row 0: no class known yet


def test_mira_beta_1_on_two_classes_is_pa1_with_C_1():
    X, y = two_class_stream(seed=1)
    mira = mc.MIRA(beta=1.0).partial_fit(X, y)
    pa = mc.PAMulticlass(variant="pa1", C=1.0).partial_fit(X, y)
    assert_allclose(mira.coef_, pa.coef_, rtol=1e-12, atol=1e-14)


def test_perceptron_splits_agree_on_two_classes():
    X, y = two_class_stream(seed=2)
    weights = [mc.MulticlassPerceptron(update=u).partial_fit(X, y).coef_ for u in ("uniform", "max", "proportional")]
    assert_array_equal(weights[0], weights[1])
    assert_array_equal(weights[0], weights[2])


@pytest.mark.parametrize("name", ["PAMulticlass", "MulticlassPerceptron", "MIRA", "PACostSensitive"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_block_feature_map_is_multi_prototype(name, fit_intercept):
    X, y = stream(n=60, seed=3, density=0.7)
    multi = getattr(mc, name)(fit_intercept=fit_intercept)
    single = getattr(mc, name)(fit_intercept=fit_intercept, feature_map=mc.BlockFeatureMap(list("dcba"), 5))
    res_m, res_s = olearn.run(multi, X, y), olearn.run(single, X, y)
    assert_allclose(single.coef_.reshape(4, 5), multi.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(single.intercept_, multi.intercept_, rtol=1e-12, atol=1e-14)
    assert_array_equal(res_s.predictions, res_m.predictions)
    assert_allclose(res_s.taus, res_m.taus, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("variant", ["pa", "pa1", "pa2"])
def test_max_loss_with_the_0_1_cost_is_plain_multiclass(variant):
    """Margins 1: argmax_r s_r - s_y + 1 over r != y is the top wrong label, with the same loss."""
    X, y = stream(n=80, seed=4)
    plain = mc.PAMulticlass(variant=variant, C=0.4)
    cost_sensitive = mc.PACostSensitive(variant=variant, C=0.4, update="max-loss",
                                        cost=lambda t, p: float(t != p))
    res_p, res_c = olearn.run(plain, X, y), olearn.run(cost_sensitive, X, y)
    assert_array_equal(cost_sensitive.coef_, plain.coef_)
    assert_array_equal(res_c.taus, res_p.taus)


def test_prediction_based_with_the_0_1_cost_is_multiclass_pa_on_mistakes_only():
    """The prediction is the top scorer, so when it is wrong it is also the top wrong label; when right, PB rests."""
    X, y = stream(n=80, seed=5)
    rule = oracle.pa_update("pa1", 0.4)

    def on_mistakes_only(scores, label, pred, pair_sq, common_sq, weight=1.0):
        return (0.0, 0.0, {}) if pred == label else rule(scores, label, pred, pair_sq, common_sq, weight)

    trace = oracle.multi_prototype(X, y, on_mistakes_only)
    est = mc.PACostSensitive(variant="pa1", C=0.4, update="prediction")
    res = olearn.run(est, X, y)
    assert_allclose(est.coef_, trace.coef, rtol=1e-12, atol=1e-14)
    assert (res.taus[res.predictions == y] == 0).all()
    assert (res.taus[res.predictions != y] > 0).sum() > 10


def test_scaling_a_constant_cost_scales_plain_pa():
    """cost = c (1 - I): margins sqrt(c), and PA (no C) is homogeneous in the margin: w(c) = sqrt(c) w(1)."""
    X, y = stream(n=60, seed=6)
    plain = mc.PAMulticlass(variant="pa").partial_fit(X, y)
    scaled = mc.PACostSensitive(variant="pa", update="max-loss", cost=lambda t, p: 4.0 * (t != p)).partial_fit(X, y)
    assert_allclose(scaled.coef_, 2.0 * plain.coef_, rtol=1e-12, atol=1e-14)


# -- invariants --------------------------------------------------------------------------


def _step_by_step(est, X, y):
    """(scores before, scores after on the same x, prototypes before, after, tau) of every round."""
    for x, label in zip(X, y):
        known = est.classes_.copy() if hasattr(est, "classes_") else np.empty(0)
        before = est.coef_.copy() if len(known) else None
        est.learn_one(x, label)
        yield known, before, est.coef_.copy(), est.classes_


@pytest.mark.parametrize("cost", [None, lambda t, p: (1.0 + abs(ord(t) - ord(p))) * (t != p)], ids=["0/1", "graded"])
@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_after_a_pa_update_the_loss_on_the_rival_is_zero(cost, update):
    """PA (no C) reaches exactly margin sqrt(rho(y, r)) against the rival r it moved away from.

    (Only against that rival: another label's margin can still be short, Sec. 7.)
    """
    X, y = stream(n=60, seed=7)
    est = mc.PACostSensitive(variant="pa", cost=cost, update=update)
    rho = cost or (lambda t, p: float(t != p))
    checked = 0
    for (known, before, after, classes), x, label in zip(_step_by_step(est, X, y), X, y):
        if before is None or len(known) != len(classes):
            continue
        moved = np.flatnonzero(np.abs(after - before).sum(axis=1) > 0)
        if moved.size == 0:
            continue
        true = list(classes).index(label)
        rival = next(a for a in moved if a != true)
        margin = after[true] @ x - after[rival] @ x
        assert margin == pytest.approx(np.sqrt(rho(label, classes[rival])), rel=1e-9)
        checked += 1
    assert checked > 10


def test_pa1_tau_never_exceeds_C_and_pa2_steps_are_shorter_than_pa():
    X, y = stream(n=80, seed=8)
    X = X * 0.2  # short rows: l / ||z||^2 is large, so the cap binds
    res = olearn.run(mc.PAMulticlass(variant="pa1", C=0.5), X, y)
    assert res.taus.max() <= 0.5 and (res.taus == 0.5).sum() > 5
    res2 = olearn.run(mc.PAMulticlass(variant="pa2", C=0.5), X, y)
    sq = 2 * (X**2).sum(axis=1)
    assert (res2.taus <= res2.losses / sq + 1e-15).all()


@pytest.mark.parametrize("est", [mc.PAMulticlass(), mc.MulticlassPerceptron(update="uniform"),
                                 mc.MulticlassPerceptron(update="proportional"), mc.MIRA(beta=2.0),
                                 mc.PACostSensitive(update="max-loss")], ids=repr)
def test_prototypes_always_sum_to_zero(est):
    """Every rule's coefficients sum to 0 (Crammer & Singer's constraint sum_r tau_r = 0)."""
    X, y = stream(n=60, seed=9)
    est.fit(X, y)
    assert_allclose(est.coef_.sum(axis=0), 0.0, atol=1e-12)


@pytest.mark.parametrize("update", ["uniform", "max", "proportional"])
def test_perceptrons_are_ultraconservative(update):
    """Only the true prototype and prototypes that scored at least as high move."""
    X, y = stream(n=60, seed=10)
    est = mc.MulticlassPerceptron(update=update)
    for (known, before, after, classes), x, label in zip(_step_by_step(est, X, y), X, y):
        if before is None or len(known) != len(classes):
            continue
        scores = before @ x
        true = list(classes).index(label)
        moved = set(np.flatnonzero(np.abs(after - before).sum(axis=1) > 0))
        allowed = {a for a in range(len(classes)) if scores[a] >= scores[true]}
        assert moved <= allowed


def test_mira_steps_respect_the_constraints():
    X, y = stream(n=60, seed=11)
    est = mc.MIRA(beta=1.5)
    for (known, before, after, classes), x, label in zip(_step_by_step(est, X, y), X, y):
        if before is None or len(known) != len(classes):
            continue
        tau = (after - before) @ x / (x @ x)
        true = list(classes).index(label)
        assert -1e-12 <= tau[true] <= 1 + 1e-12
        assert (np.delete(tau, true) <= 1e-12).all()
        assert abs(tau.sum()) < 1e-12


def test_overflow_is_refused_and_the_model_stays_finite():
    est = mc.PAMulticlass(variant="pa", C=1.0)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1e200, 1e200], [1.0, 1.0]])
    with pytest.raises(FloatingPointError, match="row 2"):
        est.partial_fit(X, ["a", "b", "a", "b"])
    assert np.isfinite(est.coef_).all() and est.coef_.any()
    kept = est.coef_.copy()
    with pytest.raises(FloatingPointError, match="this example"):
        est.learn_one(np.array([1e200, 1e200]), "a")
    with pytest.raises(FloatingPointError):
        olearn.run(est, X[2:3], ["c"])
    assert_array_equal(est.coef_, kept)
    assert list(est.classes_) == ["a", "b"]  # the class of a refused row does not stay behind
    est.learn_one(np.array([1.0, 1.0]), "c")
    assert list(est.classes_) == ["a", "b", "c"]


def test_overflow_through_a_feature_map_is_undone():
    """Phi(x, b) = -Phi(x, a) on the same feature: the two writes add up past the largest float.

    Each write alone is finite; the second overflows, and both are undone; w is not even
    widened to the coordinate the refused example brought.
    """
    est = mc.MulticlassPerceptron(feature_map=lambda x, label: x.toarray().ravel() * (1.0 if label == "a" else -1.0))
    est.partial_fit(np.empty((0, 1)), [], classes=["a", "b"])
    with pytest.raises(FloatingPointError, match="this example"):
        est.learn_one(np.array([1e308]), "a")
    assert est.coef_.shape == (0,)
    est.learn_one(np.array([1.0]), "a")
    assert_array_equal(est.coef_, [2.0])


def _phi_by_feature(x, label):
    """Phi(x, y): feature j of x at coordinate 2 j + (label == "b"), so wider x gives a wider Phi."""
    dense = x.toarray().ravel()
    phi = np.zeros(2 * dense.size)
    phi[int(label == "b")::2] = dense
    return phi


@pytest.mark.parametrize("how", ["decision_function", "predict", "predict_one"])
def test_predicting_through_a_feature_map_on_unseen_features_leaves_the_model_alone(how):
    est = mc.PAMulticlass(variant="pa", feature_map=_phi_by_feature).partial_fit([[1.0, 0.0], [0.0, 1.0]], ["a", "b"])
    coef, wb = est.coef_.copy(), est._wb.copy()
    # features 2..4 give Phi coordinates 4..9, past w; a sparse batch may name features never learned
    # (a dense one must be as wide as the model)
    wide = sp.csr_matrix([[1.0, 0.0, 0.0, 3.0, 2.0]])
    {"decision_function": lambda: est.decision_function(wide), "predict": lambda: est.predict(wide),
     "predict_one": lambda: est.predict_one(dict(enumerate(wide.toarray()[0])))}[how]()
    assert est.coef_.shape == coef.shape and est._w.size >= coef.size
    np.testing.assert_array_equal(est.coef_, coef)
    np.testing.assert_array_equal(est._wb, wb)
    # the unseen coordinates have weight 0: w . Phi(x, y) of the seen part, by hand from coef_
    # (two classes: decision_function is the score of "b" minus that of "a")
    expected = [coef[1] * 1.0 - coef[0] * 1.0]
    np.testing.assert_allclose(est.decision_function(wide), expected)
