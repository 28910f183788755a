"""The library's contract for the kernel learners (compiled and callable kernels).

clone and get/set_params, pickle and save/load round trips that keep learning
identically, dense == sparse, learn_one == partial_fit == run, bad input and
bad hyperparameters named, a failed first call leaving the learner unfitted.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

import olearn
from olearn.exceptions import NotFittedError


def rbf_half(A, B):
    """exp(-0.5 ||a - b||^2), as a user would write it (module level, so it pickles)."""
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-0.5 * np.maximum(sq, 0.0))


def poly_2(A, B):
    return (A @ B.T + 1.0) ** 2


CASES = [
    (olearn.PAClassifier, {"variant": "pa1", "C": 0.5, "kernel": "poly", "degree": 3, "coef0": 1.0}),
    (olearn.PAClassifier, {"variant": "pa", "kernel": "rbf", "gamma": 0.5, "budget": 12, "budget_policy": "random",
                           "random_state": 0, "fit_intercept": True}),
    (olearn.Perceptron, {"kernel": "rbf", "gamma": 2.0, "budget": 8, "budget_policy": "smallest"}),
    (olearn.PARegressor, {"variant": "pa2", "C": 2.0, "kernel": "poly", "degree": 2, "budget": 10,
                          "fit_intercept": True}),
    (olearn.PAClassifier, {"variant": "pa2", "kernel": rbf_half, "budget": 9, "budget_policy": "random",
                           "random_state": 5}),
    (olearn.PARegressor, {"variant": "pa1", "kernel": poly_2}),
]


def _id(value):
    if isinstance(value, dict):
        return ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in value.items())
    return value.__name__


def _data(cls, n=60, d=6, seed=1, labels=(-1, 1)):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6) / np.sqrt(d)
    u = rng.standard_normal(d)
    if cls is olearn.PARegressor:
        return X, X @ u + 0.1 * rng.standard_normal(n)
    y = np.where(X @ u > 0, labels[1], labels[0])
    y[0], y[1] = labels[1], labels[0]
    return X, y


def _scores(est, X):
    return est.predict(X) if isinstance(est, olearn.PARegressor) else est.decision_function(X)


def _assert_same_model(a, b):
    assert_array_equal(a.support_vectors_.toarray(), b.support_vectors_.toarray())
    assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert_array_equal(a.intercept_, b.intercept_)


def _continues_identically(a, b, X, y):
    assert_array_equal(_scores(a, X), _scores(b, X))
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.scores, rb.scores)
    assert_array_equal(ra.taus, rb.taus)
    assert_array_equal(ra.support_sizes, rb.support_sizes)
    a.learn_one(X[0], y[0])
    b.learn_one(X[0], y[0])
    new_feature = {0: 0.5, X.shape[1] + 2: -1.5}
    a.learn_one(new_feature, y[1])
    b.learn_one(new_feature, y[1])
    _assert_same_model(a, b)
    assert a.n_features_in_ == b.n_features_in_ == X.shape[1] + 3


cases = pytest.mark.parametrize("cls, params", CASES, ids=_id)


@cases
def test_clone_and_params(cls, params):
    X, y = _data(cls)
    est = cls(**params).partial_fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.predict(X)
    twin.partial_fit(X, y)
    _assert_same_model(twin, est)
    fresh = cls().set_params(**est.get_params())
    assert fresh.get_params() == est.get_params()


@cases
def test_pickle_round_trip_keeps_learning_identically(cls, params):
    X, y = _data(cls)
    est = cls(**params).partial_fit(X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(est))
    _continues_identically(est, copy, X[30:], y[30:])


@cases
def test_save_load_round_trip_keeps_learning_identically(cls, params, tmp_path):
    X, y = _data(cls)
    est = cls(**params).partial_fit(X[:30], y[:30])
    path = tmp_path / "model.olearn"
    if callable(params["kernel"]):
        with pytest.raises(ValueError, match=r"kernel=.*callable.*pickle"):
            est.save(path)
        assert list(tmp_path.iterdir()) == []
        return
    loaded = olearn.load(est.save(path))
    assert loaded.get_params() == est.get_params()
    _assert_same_model(loaded, est)
    _continues_identically(est, loaded, X[30:], y[30:])


@cases
def test_dense_csr_csc_agree(cls, params):
    X, y = _data(cls)
    runs = [olearn.run(cls(**params), data, y) for data in (X, sp.csr_matrix(X), sp.csc_matrix(X))]
    for res in runs[1:]:
        assert_allclose(res.scores, runs[0].scores, rtol=1e-12, atol=1e-12)
        assert_array_equal(res.support_sizes, runs[0].support_sizes)


@cases
def test_learn_one_equals_partial_fit_equals_run(cls, params):
    X, y = _data(cls)
    batch = cls(**params).partial_fit(X, y)
    run = cls(**params)
    res = olearn.run(run, X, y)
    streamed, combined = cls(**params), cls(**params)
    predictions = []
    for row, label in zip(X, y):
        x = {j: v for j, v in enumerate(row) if v != 0}
        streamed.learn_one(x, label)
        predictions.append(combined.predict_learn_one(sp.csr_matrix(row), label))
    _assert_same_model(batch, run)
    _assert_same_model(batch, streamed)
    _assert_same_model(batch, combined)
    if cls is olearn.PARegressor:
        assert_allclose(predictions, res.predictions, rtol=1e-12)
    else:
        assert predictions[0] is None
        assert_array_equal(predictions[1:], res.predictions[1:])


@cases
def test_predict_one_agrees_with_predict(cls, params):
    X, y = _data(cls)
    est = cls(**params)
    expected_first = 0.0 if cls is olearn.PARegressor else None
    assert est.predict_one({0: 1.0}) == expected_first
    est.fit(X, y)
    for row, expected in zip(X[:10], est.predict(X[:10])):
        assert est.predict_one(row) == pytest.approx(expected, rel=1e-12)


def test_string_labels_and_a_single_first_class():
    """One class first, the other later: the dual coefficients are negated when the encoding flips."""
    X, y = _data(olearn.PAClassifier, labels=("ham", "spam"))
    y[:6] = "spam"
    params = {"kernel": "rbf", "gamma": 0.7}
    late = olearn.PAClassifier(**params).partial_fit(X[:6], y[:6]).partial_fit(X[6:], y[6:])
    declared = olearn.PAClassifier(**params).partial_fit(X, y, classes=["ham", "spam"])
    assert_array_equal(late.classes_, ["ham", "spam"])
    assert_array_equal(late.dual_coef_, declared.dual_coef_)
    assert_array_equal(late.predict(X), declared.predict(X))


# -- the callable path -------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [olearn.PAClassifier, olearn.Perceptron, olearn.PARegressor])
@pytest.mark.parametrize("callable_kernel, compiled", [
    (rbf_half, {"kernel": "rbf", "gamma": 0.5}),
    (poly_2, {"kernel": "poly", "degree": 2, "coef0": 1.0}),
])
def test_a_callable_kernel_agrees_with_the_compiled_one(cls, callable_kernel, compiled):
    X, y = _data(cls, n=50)
    params = {"budget": 15, "budget_policy": "smallest", "fit_intercept": True}
    a, b = cls(kernel=callable_kernel, **params), cls(**compiled, **params)
    ra, rb = olearn.run(a, X[:40], y[:40]), olearn.run(b, X[:40], y[:40])
    assert_allclose(ra.scores, rb.scores, rtol=1e-10, atol=1e-10)
    assert_allclose(ra.taus, rb.taus, rtol=1e-10, atol=1e-10)
    assert_array_equal(ra.support_sizes, rb.support_sizes)
    assert_allclose(_scores(a, X[40:]), _scores(b, X[40:]), rtol=1e-10, atol=1e-10)
    assert a.predict_one(X[41]) == pytest.approx(b.predict_one(X[41]), rel=1e-10)


def test_a_callable_kernel_that_returns_the_wrong_shape_is_named():
    est = olearn.PAClassifier(kernel=lambda A, B: np.ones(3))
    with pytest.raises(ValueError, match=r"kernel=.*returned shape"):
        est.fit(np.eye(3), [0, 1, 0])
    with pytest.raises(ValueError, match=r"kernel=.*non-finite"):
        olearn.PAClassifier(kernel=lambda A, B: np.full((len(A), len(B)), np.nan)).fit(np.eye(2), [0, 1])


def test_a_lambda_kernel_learns_but_does_not_pickle():
    est = olearn.PAClassifier(kernel=lambda A, B: A @ B.T).partial_fit(np.eye(3), [0, 1, 0])
    assert est.n_support_ == 3
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(est)


# -- attributes ------------------------------------------------------------------------------------------


def test_coef_only_with_the_linear_kernel():
    X, y = _data(olearn.PAClassifier)
    est = olearn.PAClassifier(kernel="rbf").partial_fit(X, y)
    with pytest.raises(AttributeError, match=r"coef_ is only available with kernel='linear'.*'rbf'"):
        _ = est.coef_
    assert not hasattr(est, "coef_")
    assert est.intercept_.shape == (1,)
    reg = olearn.PARegressor(kernel="linear").partial_fit(X, y.astype(float))
    assert reg.coef_.shape == (X.shape[1],)
    assert_allclose(reg.coef_, (reg.dual_coef_ @ reg.support_vectors_.toarray()).ravel(), rtol=1e-12)


def test_the_primal_learner_has_no_support_set():
    est = olearn.Perceptron().partial_fit(np.eye(2), [0, 1])
    for name in ("support_vectors_", "dual_coef_", "n_support_"):
        with pytest.raises(AttributeError, match=rf"kernel=None.*no {name}"):
            getattr(est, name)
    with pytest.raises(NotFittedError):
        _ = olearn.Perceptron(kernel="rbf").support_vectors_


def test_support_vectors_are_a_sparse_matrix():
    X, y = _data(olearn.Perceptron)
    est = olearn.Perceptron(kernel="poly", degree=2).partial_fit(sp.csr_matrix(X), y)
    sv = est.support_vectors_
    assert sp.issparse(sv) and sv.format == "csr"
    assert sv.shape == (est.n_support_, X.shape[1])
    assert est.dual_coef_.shape == (1, est.n_support_)


# -- hyperparameters and bad input ---------------------------------------------------------------------------

INVALID = {
    "kernel": ["RBF", "sigmoid", 3, dict],
    "degree": [0, 2.5, True, "3"],
    "gamma": [0, -1.0, float("inf"), float("nan"), "1"],
    "coef0": [float("inf"), float("nan"), "1"],
    "budget": [0, -3, 1.5, True, "10"],
    "budget_policy": ["newest", None, "Oldest"],
    "random_state": [-1, 1.5, "seed", True],
}


@pytest.mark.parametrize("cls", [olearn.PAClassifier, olearn.Perceptron, olearn.PARegressor])
@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_kernel_hyperparameters_name_the_parameter(cls, name):
    for value in INVALID[name]:
        est = cls(**{"kernel": "rbf", name: value})
        with pytest.raises(ValueError, match=rf"\b{name}="):
            est.fit(np.eye(2), [0, 1])
        assert not hasattr(est, "n_features_in_")
        with pytest.raises(ValueError, match=rf"\b{name}="):
            cls(**{"kernel": "poly", name: value}).learn_one({0: 1.0}, 1)


def test_switching_between_primal_and_dual_after_fit_is_refused():
    X, y = _data(olearn.PAClassifier)
    est = olearn.PAClassifier().partial_fit(X, y)
    est.set_params(kernel="rbf")
    with pytest.raises(ValueError, match=r"kernel='rbf' differs from the model learned so far"):
        est.partial_fit(X, y)
    with pytest.raises(ValueError, match=r"kernel="):
        est.learn_one(X[0], y[0])
    est.fit(X, y)  # fit starts over
    assert est.n_support_ > 0
    est.set_params(kernel=None)
    with pytest.raises(ValueError, match=r"kernel=None differs"):
        est.predict(X)
    # switching between two kernels keeps the support set: the function changes from the next call on
    est.set_params(kernel="poly")
    before = est.n_support_
    assert est.predict(X).shape == y.shape and est.n_support_ == before


def test_changing_gamma_mid_stream_takes_effect():
    X, y = _data(olearn.PAClassifier)
    est = olearn.PAClassifier(kernel="rbf", gamma=0.5).partial_fit(X, y)
    before = est.decision_function(X)
    est.set_params(gamma=2.0)
    assert not np.allclose(est.decision_function(X), before)


def test_a_failed_first_call_leaves_the_learner_unfitted():
    est = olearn.PAClassifier(kernel="rbf")
    with pytest.raises(ValueError, match="third class"):
        est.fit(np.eye(3), ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        est.decision_function(np.eye(3))
    est.set_params(max_iter=1, shuffle=False).fit(np.eye(3), ["a", "b", "a"])
    assert est.n_support_ == 3


def test_feature_index_past_n_features():
    est = olearn.PAClassifier(kernel="rbf", n_features=4)
    with pytest.raises(ValueError, match=r"feature index 6\b.*n_features=4"):
        est.learn_one({6: 1.0}, 1)
    est.fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"n_features=4"):
        est.predict(np.ones((1, 6)))
    with pytest.raises(ValueError, match=r"n_features=4"):
        est.predict_one({5: 1.0})


def test_prediction_on_unseen_features():
    """A feature no support vector has adds to ||x||^2 (RBF) but to no dot product."""
    est = olearn.PAClassifier(variant="pa", kernel="rbf", gamma=1.0).partial_fit(np.array([[1.0, 0.0]]), [1])
    # f(x) = alpha K(x1, x), alpha = 1 (K(x1, x1) = 1): x = (1, 0, 2) is at squared distance 4
    # (a sparse batch may name a feature never learned; a dense one must be as wide as the model)
    assert est.decision_function(sp.csr_matrix([[1.0, 0.0, 2.0]]))[0] == pytest.approx(np.exp(-4.0), rel=1e-14)
    assert est.predict_one({2: 2.0, 0: 1.0}) == 1


@pytest.mark.parametrize("kernel", ["poly", "rbf", "linear"])
def test_overflow_raises_names_the_row_and_keeps_a_finite_model(kernel):
    X = np.array([[1.0, 0.0], [1e200, 1e200], [0.0, 1.0]])
    est = olearn.PAClassifier(kernel=kernel)
    with pytest.raises(FloatingPointError, match=r"row 1"):
        est.partial_fit(X, [1, -1, 1])
    assert est.n_support_ == 1
    assert np.isfinite(est.dual_coef_).all()
    with pytest.raises(FloatingPointError, match=r"overflowed on this example"):
        est.learn_one(X[1], -1)
    est.learn_one(X[2], 1)  # still usable
    assert est.n_support_ == 2


def test_poly_scores_that_overflow_are_refused():
    est = olearn.Perceptron(kernel="poly", degree=40, eta=1e100).partial_fit(np.array([[1e3, 0.0]]), [1])
    with pytest.raises(FloatingPointError, match=r"row 0"):
        est.partial_fit(np.array([[1e4, 0.0]]), [-1])
    assert_array_equal(est.dual_coef_, [[1e100]])


def test_a_pass_made_block_by_block_is_one_pass(monkeypatch):
    """The compiled pass reserves room a block of rows at a time; block edges change nothing."""
    import olearn.linear._kernelized as base

    X, y = _data(olearn.PAClassifier, n=50)
    X[23] = 1e200  # an overflow in the fourth block of 7 rows
    whole = olearn.PAClassifier(kernel="rbf", budget=9)
    with pytest.raises(FloatingPointError, match=r"row 23"):
        olearn.run(whole, X, y)
    monkeypatch.setattr(base, "_PASS_BLOCK", 7)
    blocks = olearn.PAClassifier(kernel="rbf", budget=9)
    with pytest.raises(FloatingPointError, match=r"row 23"):
        olearn.run(blocks, X, y)
    _assert_same_model(blocks, whole)
    res_whole, res_blocks = olearn.run(whole, X[24:], y[24:]), olearn.run(blocks, X[24:], y[24:])
    assert_array_equal(res_blocks.scores, res_whole.scores)
    assert_array_equal(res_blocks.support_sizes, res_whole.support_sizes)
    assert res_blocks.n_rounds == 26 and res_blocks.n_updates == res_whole.n_updates
