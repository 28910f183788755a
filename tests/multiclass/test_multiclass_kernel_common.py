"""Common checks of the kernel form of the multiclass learners: the API, persistence, input layouts, errors."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from test_multiclass_oracles import stream

import olearn
import olearn.multiclass as mc
from olearn.exceptions import NotFittedError

SETTINGS = [
    (mc.PAMulticlass, {"kernel": "poly", "degree": 3, "C": 100.0}),
    (mc.PAMulticlass, {"kernel": "rbf", "gamma": 0.5, "fit_intercept": True, "budget": 12, "budget_policy": "random",
                       "random_state": 3}),
    (mc.PACostSensitive, {"kernel": "poly", "degree": 2, "coef0": 1.0, "update": "max-loss",
                          "cost": [[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]]}),
    (mc.MulticlassPerceptron, {"kernel": "linear", "update": "uniform", "budget": 10, "budget_policy": "smallest"}),
    (mc.MulticlassPerceptron, {"kernel": "rbf", "update": "proportional", "n_features": 9}),
    (mc.MIRA, {"kernel": "poly", "degree": 5, "coef0": 0.5, "beta": 0.01, "budget": 15}),
]
IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(SETTINGS)]
by_setting = pytest.mark.parametrize(("cls", "params"), SETTINGS, ids=IDS)


def data(n=60, seed=12):
    return stream(n=n, seed=seed, density=0.6)


def prime(est, X, y):
    return est.partial_fit(X[:0], y[:0], classes=np.unique(y)).partial_fit(X, y)


def state(est):
    return est.n_support_, est.dual_coef_, est.support_vectors_.toarray(), est.intercept_


def assert_same_state(a, b):
    for left, right in zip(state(a), state(b)):
        assert_array_equal(left, right)


def assert_equivalent_state(a, b):
    """The same support set and, up to rounding, the same coefficients.

    Rows from dense input are stored with their zeros and read as contiguous
    runs (a vectorised sum), sparse rows by index: the sums round differently.
    """
    assert a.n_support_ == b.n_support_
    assert_array_equal(a.support_vectors_.toarray(), b.support_vectors_.toarray())
    assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-12, atol=1e-15)
    assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-15)


def continues_identically(a, b, X, y):
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    ra, rb = olearn.run(a, X, y), olearn.run(b, X, y)
    assert_array_equal(ra.scores, rb.scores)
    a.learn_one({0: 0.5, X.shape[1] - 1: -1.5}, y[0])
    b.learn_one({0: 0.5, X.shape[1] - 1: -1.5}, y[0])
    assert_same_state(a, b)


@by_setting
def test_clone_and_params(cls, params):
    X, y = data()
    est = prime(cls(**params), X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.decision_function(X)
    assert_same_state(prime(twin, X, y), est)


@by_setting
def test_pickle_and_save_load_round_trips_keep_learning_identically(cls, params, tmp_path):
    X, y = data()
    est = prime(cls(**params), X[:30], y[:30])
    continues_identically(est, pickle.loads(pickle.dumps(est)), X[30:], y[30:])
    loaded = olearn.load(est.save(tmp_path / "model.npz"))
    assert type(loaded) is cls and loaded.get_params() == est.get_params()
    assert_same_state(loaded, est)
    continues_identically(est, loaded, X[30:], y[30:])


@by_setting
@pytest.mark.parametrize("kind", ["csr", "csc"])
def test_dense_and_sparse_input_learn_the_same(cls, params, kind):
    X, y = data()
    dense = prime(cls(**params), X, y)
    sparse = prime(cls(**params), getattr(sp, f"{kind}_matrix")(X), y)
    assert_equivalent_state(dense, sparse)
    # sums of terms of order 1 that round differently (see assert_equivalent_state): a score near 0 keeps
    # their absolute rounding, not a relative one
    assert_allclose(dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)), rtol=1e-12, atol=1e-15)
    assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


@by_setting
def test_learn_one_partial_fit_and_run_agree(cls, params):
    X, y = data()
    a, b, c = (cls(**params).partial_fit(X[:0], y[:0], classes=np.unique(y)) for _ in range(3))
    predictions = [a.predict_learn_one(dict(enumerate(x)), label) for x, label in zip(X, y)]
    for start in range(0, len(y), 17):
        b.partial_fit(X[start: start + 17], y[start: start + 17])
    res = olearn.run(c, X, y)
    assert_equivalent_state(a, b)  # dict rows are sparse, X is dense
    assert_same_state(b, c)
    assert list(res.predictions) == predictions


def test_support_vectors_and_dual_coefficients_describe_the_scores():
    X, y = data()
    est = mc.PAMulticlass(kernel="poly", degree=2, coef0=1.0, fit_intercept=True).partial_fit(X, y)
    S = est.support_vectors_.toarray()
    gram = (X @ S.T + 1.0) ** 2 + 1.0  # the intercept is a constant feature 1 inside the kernel
    assert est.dual_coef_.shape == (4, est.n_support_) and S.shape == (est.n_support_, X.shape[1])
    assert_allclose(est.decision_function(X), gram @ est.dual_coef_.T, rtol=1e-10)
    assert_allclose(est.intercept_, est.dual_coef_.sum(axis=1))
    assert_array_equal(est.predict(X), est.classes_[np.argmax(gram @ est.dual_coef_.T, axis=1)])


def test_attributes_that_only_one_form_has():
    X, y = data()
    with pytest.raises(AttributeError, match="coef_ exists only for kernel=None or 'linear'"):
        _ = mc.MIRA(kernel="rbf").partial_fit(X, y).coef_
    for name in ("support_vectors_", "dual_coef_", "n_support_"):
        with pytest.raises(AttributeError, match=f"{name} exists only with a kernel"):
            _ = getattr(mc.MIRA().partial_fit(X, y), name)
    with pytest.raises(NotFittedError):
        _ = mc.MIRA(kernel="rbf").n_support_


def test_bad_combinations_and_switches_are_refused():
    X, y = data()
    with pytest.raises(ValueError, match="kernel='rbf' and feature_map cannot be combined"):
        mc.PAMulticlass(kernel="rbf", feature_map=mc.BlockFeatureMap(list("abcd"), 5)).fit(X, y)
    est = mc.PAMulticlass().partial_fit(X, y)
    est.set_params(kernel="poly")
    with pytest.raises(ValueError, match="kernel was changed after learning started"):
        est.partial_fit(X, y)
    assert est.fit(X, y).n_support_ > 0  # fit starts over
    with pytest.raises(ValueError, match="callable kernel cannot be saved portably"):
        mc.MIRA(kernel=lambda A, B: A @ B.T).fit(X, y).save("unused.npz")


def test_a_bad_callable_kernel_is_named():
    X, y = data()
    with pytest.raises(ValueError, match="kernel=.*returned shape"):
        mc.MIRA(kernel=lambda A, B: np.ones(3)).fit(X[:3], y[:3])


def test_overflow_stops_with_the_row_named_and_the_model_unchanged():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1e70, 1e70], [1.0, 1.0]])
    y = ["a", "b", "a", "b"]
    est = mc.PAMulticlass(kernel="poly", degree=5, max_iter=1, shuffle=False)
    with pytest.raises(FloatingPointError, match="row 2"):
        est.fit(X, y)
    assert est.n_support_ == 1 and np.isfinite(est.dual_coef_).all()
    before = est.dual_coef_
    with pytest.raises(FloatingPointError, match="this example"):
        est.learn_one(X[2], "a")
    assert_array_equal(est.dual_coef_, before)


def test_a_failed_first_call_leaves_it_unfitted():
    est = mc.MIRA(kernel="rbf", n_features=2)
    with pytest.raises(ValueError):
        est.fit(np.eye(3), ["a", "b", "c"])
    with pytest.raises(NotFittedError):
        _ = est.n_support_
    assert est.predict_one({0: 1.0}) is None


def test_zero_rows_and_new_classes_mid_stream():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    est = mc.PAMulticlass(variant="pa", kernel="rbf", gamma=1.0)
    res = olearn.run(est, X, ["a", "a", "b", "c"])
    # rows 0-1: one class, no rival. Row 2: b joins, loss 1, K(0, 0) = 1 (a zero row is not a zero
    # vector in the rbf feature space), tau = 1/2. Row 3: s = (-1/2, 1/2) exp(-1), c joins, the rival
    # is b, loss 1 + exp(-1)/2, tau = loss / 2.
    # row 0: no class known yet, shown as classes_[0] and counted as a mistake
    assert res.predictions.tolist() == ["a", "a", "a", "b"]
    assert res.cumulative_mistakes[0] == 1
    assert_allclose(res.taus, [0.0, 0.0, 0.5, (1.0 + 0.5 / np.e) / 2.0])
    assert est.n_support_ == 2
    assert_array_equal(est.support_vectors_.toarray(), X[2:])
