"""PAMultilabel's averaging and importance weights (issue #13) against plain NumPy transcriptions.

The averaged weights are checked against the naive O(d)-per-round mean of the
oracle's weights after each round (the oracle run on every prefix of the
stream), the weights against the oracle with C scaled per row and against
hand-derived closed forms.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, snapshot
from numpy.testing import assert_allclose, assert_array_equal
from oracles.multilabel import pa_multilabel
from test_persistence_checks import _members, _write

import olearn
from olearn.exceptions import ModelFormatError
from olearn.multiclass import BlockFeatureMap
from olearn.multilabel import PAMultilabel
from olearn.sequence import PASequence

K = 4


def _stream(n=40, d=6, seed=0, density=1.0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((n, d)) * (rng.random((n, d)) < density), 3)
    scores = X @ rng.standard_normal((K, d)).T + 0.4 * rng.standard_normal((n, K))
    sets = [set(np.flatnonzero(s > 0.2).tolist()) for s in scores]
    sets[3] = set()
    return X, sets


def _naive_average(X, sets, start, **kw):
    """Mean of the oracle's (coef, intercept) after rounds start..T, every round counting once (T < start: the last)."""
    n = len(sets)
    if n < start:
        trace = pa_multilabel(X, sets, K, **kw)
        return trace.coef, trace.intercept
    coefs, intercepts = [], []
    for t in range(start, n + 1):
        trace = pa_multilabel(X[:t], sets[:t], K, **kw)
        coefs.append(trace.coef)
        intercepts.append(trace.intercept)
    return np.mean(coefs, axis=0), np.mean(intercepts, axis=0)


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("variant,C,fit_intercept", [("pa1", 0.3, False), ("pa2", 0.8, True), ("pa", 1.0, True)])
@pytest.mark.parametrize("average", [True, 7])
def test_averaged_weights_match_the_naive_mean(layout, variant, C, fit_intercept, average):
    X, sets = _stream(density=0.4 if layout == "csr" else 1.0)
    start = 1 if average is True else average
    coef, intercept = _naive_average(X, sets, start, variant=variant, C=C, fit_intercept=fit_intercept)
    est = PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept, average=average)
    rows = sp.csr_matrix(X) if layout == "csr" else X
    # in three calls: the running sum carries over
    for lo, hi in [(0, 5), (5, 22), (22, 40)]:
        est.partial_fit(rows[lo:hi], [sorted(s) for s in sets[lo:hi]], classes=range(K))
    assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-9, atol=1e-12)
    assert_allclose(est.decision_function(X), X @ coef.T + intercept, rtol=1e-9, atol=1e-12)
    assert_array_equal(est.predict(X), X @ coef.T + intercept > 0)
    assert_array_equal(est.predict_ranking(X[:1])[0], np.argsort(-(X[0] @ coef.T + intercept), kind="stable"))


def test_averaging_not_started_yet_uses_the_current_weights():
    X, sets = _stream(n=10)
    trace = pa_multilabel(X, sets, K, variant="pa1", C=0.5)
    est = PAMultilabel(C=0.5, average=11).partial_fit(X, [sorted(s) for s in sets], classes=range(K))
    assert_allclose(est.coef_, trace.coef, rtol=1e-12, atol=1e-14)
    # the 11th example starts the mean: it is then the weights after that round alone
    x11 = np.ones((1, X.shape[1]))
    est.partial_fit(x11, [[0]])
    after = pa_multilabel(np.vstack([X, x11]), sets + [{0}], K, variant="pa1", C=0.5)
    assert_allclose(est.coef_, after.coef, rtol=1e-12, atol=1e-14)


def test_run_scores_with_the_current_weights_and_learns_as_partial_fit():
    X, sets = _stream(density=0.5)
    y = [sorted(s) for s in sets]
    trace = pa_multilabel(X, sets, K, variant="pa2", C=0.4, ranked=[])
    ran = PAMultilabel(variant="pa2", C=0.4, average=True)
    res = olearn.run(ran, sp.csr_matrix(X), y)
    assert_allclose(res.scores, trace.margins, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    fitted = PAMultilabel(variant="pa2", C=0.4, average=True).partial_fit(X, y)
    assert_allclose(ran.coef_, fitted.coef_, rtol=1e-12, atol=1e-14)
    ones = PAMultilabel(variant="pa2", C=0.4, average=True)
    for x, labels in zip(X, y):
        ones.learn_one(x, labels)
    assert_allclose(ones.coef_, fitted.coef_, rtol=1e-12, atol=1e-14)


def test_feature_map_averages_as_the_prototypes():
    """The block map is the multi-prototype learner (Sec. 7, Eq. 39-41): so are their averages."""
    X, sets = _stream(n=25, density=0.6)
    y = [sorted(s) for s in sets]
    coef, intercept = _naive_average(X, sets, 3, variant="pa1", C=0.6, fit_intercept=True)
    est = PAMultilabel(C=0.6, fit_intercept=True, average=3,
                       feature_map=BlockFeatureMap(list(range(K)), X.shape[1]))
    est.partial_fit(X, y, classes=range(K))
    assert_allclose(est.coef_, coef.ravel(), rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-9, atol=1e-12)
    assert_allclose(est.decision_function(X), X @ coef.T + intercept, rtol=1e-9, atol=1e-12)


def test_labels_and_features_met_mid_stream_average_from_zero():
    """A label or a feature that appears later had weight 0 in the rounds before: the mean counts those zeros."""
    X, sets = _stream(n=20)
    X[:10, 4:] = 0.0
    names = np.array(list("abcd"))
    y = [[names[j] for j in sorted(s)] for s in sets]
    order = []
    for labels in sets:
        order += [j for j in sorted(labels) if j not in order]
    coef, _ = _naive_average(X, sets, 1, variant="pa1", C=0.5, ranked=[])
    est = PAMultilabel(C=0.5, average=True)
    # sparse batches: a dense batch must keep the model's width, a sparse one may name new features
    est.partial_fit(sp.csr_matrix(X[:10, :4]), y[:10]).partial_fit(sp.csr_matrix(X[10:]), y[10:])
    assert_allclose(est.coef_, coef[sorted(order)], rtol=1e-9, atol=1e-12)


def test_averaged_model_saves_and_loads(tmp_path):
    X, sets = _stream(density=0.5)
    y = [sorted(s) for s in sets]
    est = PAMultilabel(variant="pa2", fit_intercept=True, average=5).partial_fit(X[:30], y[:30])
    est.save(tmp_path / "m.olearn")
    loaded = olearn.load(tmp_path / "m.olearn")
    assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    loaded.partial_fit(X[30:], y[30:])
    est.partial_fit(X[30:], y[30:])
    assert_array_equal(loaded.coef_, est.coef_)
    assert_array_equal(loaded.intercept_, est.intercept_)


def test_saved_averaging_must_match_the_hyperparameter(tmp_path):
    X, sets = _stream(n=10)
    plain = tmp_path / "plain.olearn"
    PAMultilabel().partial_fit(X, [sorted(s) for s in sets]).save(plain)
    meta, members = _members(plain)
    correction = np.zeros_like(members["weights"])
    for name, average, arrays in [
        ("lacking", True, {}),
        ("other-start", 3, {"average_correction": correction, "averaging": np.array([10, 1])}),
        ("extra", False, {"average_correction": correction, "averaging": np.array([10, 0])}),
        ("bad-shape", True, {"average_correction": correction[:, 1:], "averaging": np.array([10, 1])}),
    ]:
        path = tmp_path / f"{name}.olearn"
        _write(path, {**meta, "params": {**meta["params"], "average": average}}, {**members, **arrays})
        with pytest.raises(ModelFormatError, match="averag|shape"):
            olearn.load(path)


def test_a_file_saved_before_average_existed_loads(tmp_path):
    X, sets = _stream(n=10)
    est = PAMultilabel().partial_fit(X, [sorted(s) for s in sets])
    path = tmp_path / "old.olearn"
    est.save(path)
    meta, members = _members(path)
    del meta["params"]["average"], meta["all_params"]
    _write(path, meta, members)
    loaded = olearn.load(path)
    assert loaded.average is False
    assert_array_equal(loaded.coef_, est.coef_)


def test_changing_average_after_learning_started_is_refused():
    X, sets = _stream(n=10)
    y = [sorted(s) for s in sets]
    est = PAMultilabel(average=True).partial_fit(X, y)
    before = snapshot(est)
    est.set_params(average=False)
    with pytest.raises(ValueError, match="average=False was set after learning started"):
        est.partial_fit(X, y)
    est.set_params(average=True)
    assert_same(before, est, "a refused change of average")


# -- importance weights ---------------------------------------------------------


@pytest.mark.parametrize("variant,C", [("pa1", 0.2), ("pa2", 0.7), ("pa", 1.0)])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_weighted_stream_matches_the_oracle(variant, C, layout):
    X, sets = _stream(density=0.5 if layout == "csr" else 1.0, seed=3)
    weights = np.random.default_rng(4).choice([0.0, 0.5, 1.0, 2.0, 3.5], size=len(sets))
    trace = pa_multilabel(X, sets, K, variant=variant, C=C, ranked=[], weights=weights)
    est = PAMultilabel(variant=variant, C=C)
    rows = sp.csr_matrix(X) if layout == "csr" else X
    res = olearn.run(est, rows, [sorted(s) for s in sets], sample_weight=weights)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.losses, trace.losses, rtol=1e-10, atol=1e-12)
    assert_allclose(est.coef_, trace.coef, rtol=1e-10, atol=1e-12)
    again = PAMultilabel(variant=variant, C=C).partial_fit(rows, [sorted(s) for s in sets], sample_weight=weights)
    assert_array_equal(again.coef_, est.coef_)
    one = PAMultilabel(variant=variant, C=C)
    for x, labels, w in zip(X, sets, weights):
        one.learn_one(x, sorted(labels), sample_weight=w)
    assert_allclose(one.coef_, est.coef_, rtol=1e-12, atol=1e-14)


def test_pa1_weight_two_is_the_example_twice():
    """x = (1, 2), Y = {a}, labels a, b: l = 1, ||z||^2 = 2 * 5 = 10; PA-I with C = 0.02: tau = 0.02 twice = 0.04."""
    x = np.array([1.0, 2.0])
    twice = PAMultilabel(C=0.02).partial_fit([x, x], [["a"], ["a"]], classes=["a", "b"])
    weighted = PAMultilabel(C=0.02).partial_fit([x], [["a"]], classes=["a", "b"], sample_weight=[2])
    assert_allclose(weighted.coef_, twice.coef_, rtol=1e-12)
    assert_allclose(weighted.coef_, [[0.04, 0.08], [-0.04, -0.08]], rtol=1e-12)


def test_pa2_weight_is_the_closed_form():
    """PA-II: tau = l / (||z||^2 + 1/(2 w C)); x = (1, 2), l = 1, ||z||^2 = 10, C = 0.5, w = 3: tau = 1 / (10 + 1/3)."""
    x = np.array([1.0, 2.0])
    est = PAMultilabel(variant="pa2", C=0.5).partial_fit([x], [["a"]], classes=["a", "b"], sample_weight=3.0)
    tau = 1.0 / (10.0 + 1.0 / 3.0)
    assert_allclose(est.coef_, [[tau, 2 * tau], [-tau, -2 * tau]], rtol=1e-12)
    twice = PAMultilabel(variant="pa2", C=0.5).partial_fit([x, x, x], [["a"]] * 3, classes=["a", "b"])
    assert not np.allclose(twice.coef_, est.coef_)  # PA-II has no repetition identity


@pytest.mark.parametrize("average", [False, True])
def test_zero_weight_changes_nothing_but_the_round(average):
    X, sets = _stream(n=12)
    y = [sorted(s) for s in sets]
    est = PAMultilabel(variant="pa", average=average).partial_fit(X[:8], y[:8])
    current = est._W.copy()
    res = olearn.run(est, X[8:], y[8:], sample_weight=np.zeros(4))
    assert_array_equal(est._W, current)
    assert res.taus.tolist() == [0.0] * 4 and res.n_rounds == 4
    if average:
        # the mean now also counts four rounds of the same weights
        coef, _ = _naive_average(X, sets, 1, variant="pa", ranked=[], weights=np.r_[np.ones(8), np.zeros(4)])
        assert_allclose(est.coef_, coef, rtol=1e-9, atol=1e-12)


BAD_WEIGHTS = [("negative", [1.0, -1.0, 1.0]), ("NaN", [1.0, math.nan, 1.0]), ("inf", [math.inf, 1.0, 1.0]),
               ("short", [1.0, 1.0]), ("text", "heavy"), ("2-d", [[1.0, 1.0, 1.0]])]


@pytest.mark.parametrize("what,weights", BAD_WEIGHTS, ids=[w for w, _ in BAD_WEIGHTS])
@pytest.mark.parametrize("average", [False, True])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(what, weights, average):
    X, sets = _stream(n=13)
    y = [sorted(s) for s in sets]
    est = PAMultilabel(average=average).partial_fit(X[:10], y[:10])
    before = snapshot(est)
    with pytest.raises(ValueError, match="sample_weight"):
        est.partial_fit(X[10:], y[10:], sample_weight=weights)
    with pytest.raises(ValueError, match="sample_weight"):
        olearn.run(est, X[10:], y[10:], sample_weight=weights)
    assert_same(before, est, f"{what} weights")
    for bad in (-1.0, math.nan, "1", True):
        with pytest.raises(ValueError, match="sample_weight"):
            est.learn_one(X[10], y[10], sample_weight=bad)
    assert_same(before, est, "a bad weight of learn_one")


def test_weights_through_a_feature_map_are_the_prototypes_weights():
    X, sets = _stream(n=20, seed=5)
    y = [sorted(s) for s in sets]
    weights = np.random.default_rng(6).choice([0.0, 0.5, 2.0], size=len(y))
    trace = pa_multilabel(X, sets, K, variant="pa2", C=0.3, ranked=range(K), weights=weights)
    est = PAMultilabel(variant="pa2", C=0.3, feature_map=BlockFeatureMap(list(range(K)), X.shape[1]))
    est.partial_fit(X, y, classes=range(K), sample_weight=weights)
    assert_allclose(est.coef_, trace.coef.ravel(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", [PAMultilabel, PASequence])
@pytest.mark.parametrize("bad", [-1, 1.5, "yes", None, 2**63])
def test_average_must_be_a_boolean_or_a_non_negative_integer(cls, bad):
    est = cls(average=bad)
    X, y = ([np.eye(2)], [["a", "b"]]) if cls is PASequence else (np.eye(2), [["a"], ["b"]])
    with pytest.raises(ValueError, match="average"):
        est.partial_fit(X, y)
    assert not hasattr(est, "classes_")


@pytest.mark.parametrize("cls", [PAMultilabel, PASequence])
def test_average_zero_averages_nothing_as_in_scikit_learn(cls):
    X, y = ([np.eye(2), np.ones((1, 2))], [["a", "b"], ["b"]]) if cls is PASequence else (
        np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), [["a"], ["b"], ["a", "b"]])
    zero, plain = cls(average=0).partial_fit(X, y), cls().partial_fit(X, y)
    assert_array_equal(zero.coef_, plain.coef_)
