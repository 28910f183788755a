"""PAMultilabel with a joint feature map Phi(x, y) (Crammer et al. 2006, Sec. 7, single-prototype).

Against a NumPy transcription of Eq. (36)-(38) with a general Phi, and the reduction of Sec. 7:
with the block map the single-prototype learner is the multi-prototype one.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from fuzz._learners import assert_same, snapshot
from oracles.multilabel import pa_multilabel_joint

import olearn
from olearn.multiclass import BlockFeatureMap
from olearn.multilabel import PAMultilabel

VARIANTS = [("pa", 1.0), ("pa1", 0.05), ("pa1", 3.0), ("pa2", 0.5)]
K, D = 4, 5
# A label-dependent map that is no block map: shared coordinates reweighted per label (as the TF-IDF
# example of Sec. 7), plus a coordinate of its own per label holding x's first entry.
WEIGHTS = np.random.default_rng(42).uniform(0.2, 2.0, size=(K, D))


def _phi_dense(x, r):
    own = np.zeros(K)
    own[r] = x[0]
    return np.concatenate([WEIGHTS[r] * x, own])


def _phi(x, label):
    """The same map in the form olearn takes: x a 1 x d CSR row, the label an int."""
    return _phi_dense(x.toarray().ravel(), int(label))


def _stream(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    scores = X @ rng.standard_normal((K, D)).T + 0.3 * rng.standard_normal((n, K))
    sets = [set(np.flatnonzero(s > 0.2).tolist()) for s in scores]
    sets[3] = set()
    sets[7] = set(range(K))
    return X, sets


def _indicator(sets):
    Y = np.zeros((len(sets), K), dtype=int)
    for i, labels in enumerate(sets):
        Y[i, sorted(labels)] = 1
    return Y


@pytest.mark.parametrize("variant, C", VARIANTS)
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_a_general_map_matches_the_transcription_of_sec_7(variant, C, fit_intercept, layout):
    X, sets = _stream()
    w, intercept, margins, losses, taus = pa_multilabel_joint(X, sets, K, _phi_dense, variant, C, fit_intercept)
    est = PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept, feature_map=_phi)
    res = olearn.run(est, X if layout == "dense" else sp.csr_matrix(X), _indicator(sets))
    assert_allclose(res.losses, losses, rtol=1e-10, atol=1e-12)
    assert_allclose(res.taus, taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, margins, rtol=1e-10, atol=1e-12)
    assert_allclose(est.coef_, w, rtol=1e-10, atol=1e-12)
    assert_allclose(est.intercept_, intercept, rtol=1e-10, atol=1e-12)
    expected_scores = np.array([[w @ _phi_dense(x, r) + intercept[r] for r in range(K)] for x in X])
    assert_allclose(est.decision_function(X), expected_scores, rtol=1e-10, atol=1e-12)


def test_labels_joining_mid_stream_match_the_transcription():
    X, sets = _stream(seed=3)
    _, _, margins, _, taus = pa_multilabel_joint(X, sets, K, _phi_dense, "pa1", 0.7, ranked=[])
    est = PAMultilabel(variant="pa1", C=0.7, feature_map=_phi)
    res = olearn.run(est, X, [sorted(s) for s in sets])
    assert_allclose(res.taus, taus, rtol=1e-10, atol=1e-12)
    assert_allclose(res.scores, margins, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("variant, C", VARIANTS)
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
def test_the_block_map_is_the_multi_prototype_learner(variant, C, fit_intercept):
    """Sec. 7's reduction, Eq. (39)-(41): Phi(x, y) = x in block y turns one w into k prototypes."""
    X, sets = _stream(seed=5)
    labels = ["a", "b", "c", "d"]
    y = [[labels[j] for j in sorted(s)] for s in sets]
    plain = PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept)
    mapped = PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept,
                          feature_map=BlockFeatureMap(labels, n_features=D))
    a, b = olearn.run(plain, X, y), olearn.run(mapped, X, y)
    for field in ("losses", "taus", "scores"):
        assert_allclose(getattr(b, field), getattr(a, field), rtol=1e-12, atol=1e-12)
    assert_array_equal(b.predictions, a.predictions)
    assert_allclose(mapped.coef_.reshape(K, D), plain.coef_, rtol=1e-12, atol=1e-12)  # blocks in sorted order
    assert_allclose(mapped.intercept_, plain.intercept_, rtol=1e-12, atol=1e-12)
    assert_allclose(mapped.decision_function(X), plain.decision_function(X), rtol=1e-12, atol=1e-12)
    assert mapped.predict_one(X[0]) == plain.predict_one(X[0])


def test_pa_puts_the_chosen_pair_one_apart_through_the_map():
    """After a PA step the pair (r_t, s_t) of Eq. (36) has margin exactly 1 (Eq. (37)'s constraint, active)."""
    X, sets = _stream(seed=9)
    est = PAMultilabel(variant="pa", feature_map=_phi).partial_fit(X[:1], [sorted(sets[0])], classes=range(K))
    for x, relevant in zip(X[1:], sets[1:]):
        scores = est.decision_function(x[None, :])[0]
        rel, irr = sorted(relevant), [r for r in range(K) if r not in relevant]
        if not rel or not irr:
            continue
        r_t = rel[int(np.argmin(scores[rel]))]
        s_t = irr[int(np.argmax(scores[irr]))]
        before = scores[r_t] - scores[s_t]
        est.learn_one(x, rel)
        after = est.decision_function(x[None, :])[0]
        assert after[r_t] - after[s_t] == pytest.approx(max(1.0, before), abs=1e-9)


def test_learn_one_partial_fit_and_run_agree_and_pickle_keeps_the_model():
    X, sets = _stream(seed=2)
    y = [sorted(s) for s in sets]
    one = PAMultilabel(variant="pa2", C=0.3, feature_map=_phi)
    for x, labels in zip(X, y):
        one.learn_one(x, labels)
    batch = PAMultilabel(variant="pa2", C=0.3, feature_map=_phi).partial_fit(X, y)
    assert_allclose(one.coef_, batch.coef_, rtol=1e-12)
    again = pickle.loads(pickle.dumps(batch))
    assert_allclose(again.decision_function(X), batch.decision_function(X))


def test_a_model_with_a_map_refuses_to_be_saved_and_the_map_cannot_be_switched(tmp_path):
    X, sets = _stream()
    est = PAMultilabel(feature_map=_phi).partial_fit(X, [sorted(s) for s in sets])
    with pytest.raises(ValueError, match="feature_map cannot be saved portably"):
        est.save(tmp_path / "m.olearn")
    est.set_params(feature_map=None)
    with pytest.raises(ValueError, match="feature_map was changed after learning started"):
        est.partial_fit(X, [sorted(s) for s in sets])


def test_a_bad_map_value_names_the_label():
    def broken(x, label):
        return np.array([np.nan]) if label == 2 else np.ones(2)

    with pytest.raises(ValueError, match=r"feature_map\(x, 2\)"):
        PAMultilabel(feature_map=broken).partial_fit(np.ones((1, 2)), [[0]], classes=[0, 1, 2])


def test_a_bad_map_value_mid_batch_names_the_row_and_keeps_the_rows_before():
    def broken_on_big_x(x, label):
        dense = x.toarray().ravel()
        return np.array([np.inf, 0.0]) if dense[0] > 5 else np.concatenate([dense, [float(label)]])

    X = np.array([[1.0, 0.0], [0.0, 1.0], [9.0, 0.0]])
    est = PAMultilabel(variant="pa", feature_map=broken_on_big_x)
    with pytest.raises(ValueError, match=r"feature_map\(x, 0\).*at row 2; the model keeps the updates of rows 0..1"):
        est.partial_fit(X, [[0], [1], [0]], classes=[0, 1])
    kept = PAMultilabel(variant="pa", feature_map=broken_on_big_x).partial_fit(X[:2], [[0], [1]], classes=[0, 1])
    assert_allclose(est.coef_, kept.coef_)


def _phi_by_feature(x, label):
    """Phi of width 2 * (largest feature index + 1): unseen features reach coordinates w never had."""
    out = {}
    for j, v in zip(x.indices, x.data):
        out[2 * int(j) + int(label)] = float(v)
    return out


@pytest.mark.parametrize("how", ["decision_function", "predict", "predict_ranking", "predict_one", "score"])
def test_predicting_through_the_map_on_unseen_features_leaves_the_model_alone(how):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = [[0], [1], [0, 1]]
    est = PAMultilabel(variant="pa", feature_map=_phi_by_feature).partial_fit(X, y)
    before = snapshot(est)
    # features 2..4 give Phi coordinates 4..9, past w; a sparse batch may name features never learned
    # (a dense one must be as wide as the model)
    wide = sp.csr_matrix([[1.0, 0.0, 0.0, 3.0, 2.0]])
    result = {
        "decision_function": lambda: est.decision_function(wide),
        "predict": lambda: est.predict(wide),
        "predict_ranking": lambda: est.predict_ranking(wide),
        "predict_one": lambda: est.predict_one(dict(enumerate(wide.toarray()[0]))),
        "score": lambda: est.score(wide, [[0]]),
    }[how]()
    assert_same(before, est, f"{how} on unseen features")
    if how == "decision_function":
        # the unseen coordinates have weight 0: the scores are those of the seen features alone
        assert_array_equal(result, est.decision_function(wide[:, :2].toarray()))


def test_a_feature_index_past_what_a_sparse_row_holds_is_refused_before_the_map_sees_it():
    """As PAMulticlass does: the map gets x as a CSR row, whose indices stop below 2**31 - 1."""
    seen = []

    def recording(x, label):
        seen.append(x.shape)
        return _phi_by_feature(x, label)

    est = PAMultilabel(feature_map=recording).partial_fit(np.eye(2), [[0], [1]])
    before, calls = snapshot(est), len(seen)
    for call in (lambda: est.predict_one({0: 1.0, 2**40: 3.0}),
                 lambda: est.decision_function(sp.csr_matrix(([1.0], [2**31], [0, 1]), shape=(1, 2**31 + 1)))):
        with pytest.raises(ValueError, match=r"(too large to give to feature_map|indices) .*below 2\*\*31 - 1"):
            call()
    assert len(seen) == calls
    assert_same(before, est, "predicting on a huge feature index")


def test_a_map_failing_on_the_first_row_leaves_the_model_exactly_as_it_was():
    def fails_on_new_label(x, label):
        if label == "z":
            raise ValueError("no features for z")
        return np.concatenate([x.toarray().ravel(), [1.0 if label == "a" else 0.0] * 3])

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    est = PAMultilabel(variant="pa", feature_map=fails_on_new_label).partial_fit(X, [["a"], ["b"]])
    before = snapshot(est)
    with pytest.raises(ValueError, match=r"feature_map\(x, 'z'\).*at row 0; the model is unchanged"):
        est.partial_fit(X, [["z"], ["a"]])
    assert_same(before, est, "a batch refused on its first row")
    fresh = PAMultilabel(variant="pa", feature_map=fails_on_new_label)
    with pytest.raises(ValueError, match="the model is unchanged"):
        fresh.partial_fit(X, [["z"], ["a"]])
    assert not hasattr(fresh, "classes_")
    # a row that fails half-way through its labels does not widen the model either
    before = snapshot(est)
    with pytest.raises(ValueError, match="at row 1; the model keeps the updates of rows 0..0"):
        est.partial_fit(X, [["a"], ["z"]], classes=["a", "b"])
    kept = PAMultilabel(variant="pa", feature_map=fails_on_new_label).partial_fit(X, [["a"], ["b"]])
    kept.partial_fit(X[:1], [["a"]], classes=["a", "b"])
    assert_array_equal(est.coef_, kept.coef_)


# -- Corollary 8 and Thms. 4-5 for the single-prototype learner ------------------------------


def test_corollary_8_value_by_hand():
    """Phi(x, 0) = (x1, 0), Phi(x, 1) = (0, x1) with x1 = 1, 2: max ||Phi|| = 2 = R/2, so R^2 = 16.
    u = (1, -1): margins 2 and 4 when label 0 is the relevant one; Thm. 2: ||u||^2 R^2 = 32."""
    from olearn.bounds import multilabel_pa2_loss_bound, multilabel_pa_separable_bound

    def phi(x, label):
        first = x.toarray().ravel()[0]
        return np.array([first, 0.0]) if label == 0 else np.array([0.0, first])

    X, y = np.array([[1.0], [2.0]]), [[0], [0]]
    assert multilabel_pa_separable_bound(X, y, [1.0, -1.0], classes=[0, 1], feature_map=phi) == pytest.approx(32.0)
    # u = (0.5, 0): margins 0.5 and 1: losses 0.5, 0; Thm. 5 with C = 1: (16 + 0.5)(0.25 + 2 * 0.25) = 12.375
    assert multilabel_pa2_loss_bound(X, y, [0.5, 0.0], C=1.0, classes=[0, 1], feature_map=phi) == pytest.approx(
        12.375)
    # with intercepts: ||Phi||^2 + 1 = 5, R^2 = 20; u = (1, -1, 0, 0) keeps the margins: 2 * 20 = 40
    assert multilabel_pa_separable_bound(X, y, [1.0, -1.0, 0.0, 0.0], classes=[0, 1], fit_intercept=True,
                                         feature_map=phi) == pytest.approx(40.0)


@pytest.mark.parametrize("variant, C", VARIANTS)
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
def test_the_bounds_hold_for_the_single_prototype_learner(variant, C, fit_intercept):
    from olearn.bounds import multilabel_pa1_mistake_bound, multilabel_pa2_loss_bound, multilabel_pa_separable_bound

    X, sets = _stream(seed=11)
    y = [sorted(s) for s in sets]
    res = olearn.run(PAMultilabel(variant=variant, C=C, fit_intercept=fit_intercept, feature_map=_phi), X, y)
    trained = PAMultilabel(variant="pa", fit_intercept=fit_intercept, feature_map=_phi)
    for _ in range(4):
        trained.partial_fit(X, y, classes=range(K))
    size = D + K
    u_trained = np.concatenate([trained.coef_, trained.intercept_]) if fit_intercept else trained.coef_
    rng = np.random.default_rng(1)
    for u in (u_trained, np.zeros(size + (K if fit_intercept else 0)), rng.normal(size=size + (K if fit_intercept else 0))):
        kw = {"classes": range(K), "fit_intercept": fit_intercept, "feature_map": _phi}
        squared = float((res.losses**2).sum())
        if variant == "pa":
            assert squared <= multilabel_pa_separable_bound(X, y, u, **kw) * (1 + 1e-9)
        elif variant == "pa1":
            assert res.n_mistakes <= multilabel_pa1_mistake_bound(X, y, u, C, **kw) * (1 + 1e-9)
        else:
            assert squared <= multilabel_pa2_loss_bound(X, y, u, C, **kw) * (1 + 1e-9)
