"""Importance weights (sample_weight, class_weight) of the second-order learners.

References: the NumPy transcriptions of :mod:`oracles.second_order`, which
apply each docstring's rule in the papers' own variables (matrix inverses, the
dual vector theta or v), and closed forms derived by hand from the objectives.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import second_order as oracle
from scipy.optimize import minimize

import olearn
from olearn.second_order import AROW, CW, NAROW, AdaGrad, SecondOrderPerceptron

CASES = [
    (AROW, {"r": 0.5}),
    (AROW, {"r": 2.0, "covariance": "diag", "fit_intercept": True}),
    (NAROW, {"b": 2.0}),
    (NAROW, {"b": 0.5, "fit_intercept": True}),
    (NAROW, {"b": 2.0, "covariance": "diag"}),
    (SecondOrderPerceptron, {"a": 0.5}),
    (CW, {"eta": 0.8, "covariance": "full"}),
    (CW, {"eta": 0.7}),
    (AdaGrad, {"eta": 0.5, "delta": 0.1, "fit_intercept": True}),
]
IDS = [cls.__name__ + "-" + ",".join(f"{k}={v}" for k, v in params.items()) for cls, params in CASES]


def _close(actual, expected, rtol=1e-9):
    expected = np.asarray(expected, dtype=float)
    assert_allclose(actual, expected, rtol=rtol, atol=1e-12 * max(1.0, float(np.max(np.abs(expected), initial=0.0))))


def _weights(n, seed):
    """Weights in [0, 3], a fifth of them 0 and some integers."""
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.0, 3.0, size=n), 2)
    c[rng.random(n) < 0.2] = 0.0
    c[::7] = 2.0
    return c


def _covariance_of(est):
    return est.accumulator_ if isinstance(est, AdaGrad) else est.covariance_


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_weighted_run_matches_the_oracle(cls, params, layout, make_stream):
    X, y = make_stream(90, 6, density=0.5, seed=3)
    c = _weights(len(y), seed=1)
    data = sp.csr_matrix(X) if layout == "csr" else X
    est = cls(**params)
    res = olearn.run(est, data, y, sample_weight=c)
    trace = oracle.for_estimator(cls.__name__, est.get_params(), X, y, sample_weight=c)
    _close(res.scores, trace.scores)
    _close(res.losses, trace.losses)
    _close(res.taus, trace.taus)
    _close(est.coef_.ravel(), trace.coef)
    _close(est.intercept_, [trace.intercept])
    _close(_covariance_of(est), trace.covariance)
    # the weights matter: the unweighted learner ends elsewhere
    assert not np.allclose(cls(**params).partial_fit(X, y).coef_, est.coef_)


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_learn_one_partial_fit_and_run_agree_on_weights(cls, params, make_stream):
    X, y = make_stream(40, 5, density=0.6, seed=5)
    c = _weights(len(y), seed=2)
    one = cls(**params)
    for x, label, weight in zip(X, y, c):
        one.learn_one(x, label, sample_weight=weight)
    batch = cls(**params).partial_fit(X, y, sample_weight=c)
    progressive = cls(**params)
    predictions = [progressive.predict_learn_one(x, label, sample_weight=weight) for x, label, weight in zip(X, y, c)]
    res = olearn.run(cls(**params), X, y, sample_weight=c)
    assert_array_equal(one.coef_, batch.coef_)
    assert_array_equal(progressive.coef_, batch.coef_)
    assert_array_equal(predictions[1:], res.predictions[1:])


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_zero_weight_changes_nothing_but_the_round_counter(cls, params, make_stream):
    X, y = make_stream(20, 4, seed=6)
    est = cls(**params).partial_fit(X[:10], y[:10])
    w, cov, rounds = est._w.copy(), est._cov.copy(), est._state[0]
    res = olearn.run(est, X[10:], y[10:], sample_weight=np.zeros(10))
    assert_array_equal(est._w, w)
    assert_array_equal(est._cov, cov)
    assert est._state[0] == rounds + 10
    assert res.n_updates == 0


@pytest.mark.parametrize(("cls", "params"), [c for c in CASES if c[0] in (AROW, SecondOrderPerceptron)],
                         ids=[i for i, c in zip(IDS, CASES) if c[0] in (AROW, SecondOrderPerceptron)])
def test_a_weight_whose_c_over_2r_underflows_moves_nothing(cls, params, make_stream):
    """The smallest subnormal weight: c / (2r) is 0, so PA-II's 1/(2C) would divide by zero; it moves nothing."""
    X, y = make_stream(20, 4, seed=16)
    est = cls(**params).partial_fit(X[:10], y[:10])
    w, cov, rounds = est._w.copy(), est._cov.copy(), est._state[0]
    res = olearn.run(est, X[10:], y[10:], sample_weight=np.full(10, 5e-324))
    est.learn_one(X[0], y[0], sample_weight=5e-324)
    assert_array_equal(est._w, w)
    assert_array_equal(est._cov, cov)
    assert est._state[0] == rounds + 11
    assert res.n_updates == 0 and res.losses.any()


def test_weight_one_is_the_unweighted_learner_bit_for_bit(make_stream):
    X, y = make_stream(50, 5, density=0.5, seed=7)
    for cls, params in CASES:
        plain = cls(**params).partial_fit(X, y)
        ones = cls(**params).partial_fit(X, y, sample_weight=np.ones(len(y)))
        assert_array_equal(plain._w, ones._w)
        assert_array_equal(plain._cov, ones._cov)


def test_arow_weighted_round_minimizes_the_weighted_objective(make_stream):
    """AROW's round minimizes KL + c/(2r) (hinge^2 + x^T Sigma x): the weight takes r/c.

    The mean part, 1/2 (mu - mu_t)^T Sigma_t^{-1} (mu - mu_t) + c/(2r) hinge(mu)^2, is
    minimized numerically; the covariance part's stationary point is
    Sigma^{-1} = Sigma_t^{-1} + (c/r) x x^T.
    """
    X, y = make_stream(12, 3, seed=8)
    r, c = 0.7, 2.5
    est = AROW(r=r).partial_fit(X[:-1], y[:-1])
    mu_t, sigma_t = est.coef_.ravel(), est.covariance_
    x, label = X[-1], y[-1]
    precision = np.linalg.inv(sigma_t)

    def objective(mu):
        hinge = max(0.0, 1.0 - label * mu @ x)
        return 0.5 * (mu - mu_t) @ precision @ (mu - mu_t) + c / (2.0 * r) * hinge**2

    assert 1.0 - label * mu_t @ x > 0  # the round updates
    best = minimize(objective, mu_t, method="BFGS", options={"gtol": 1e-12}).x
    est.partial_fit(X[-1:], y[-1:], sample_weight=[c])
    assert_allclose(est.coef_.ravel(), best, rtol=1e-6, atol=1e-8)
    assert_allclose(est.covariance_, np.linalg.inv(precision + c / r * np.outer(x, x)), rtol=1e-10)


def test_adagrad_weighted_first_round_by_hand():
    """x = (2, 0), y = 1, c = 3: g = -3 x, G = (36, 0), w_1 = 1 * 3 * 2 / (1 + 6) = 6/7."""
    est = AdaGrad(eta=1.0, delta=1.0).partial_fit([[2.0, 0.0]], [1], classes=[-1, 1], sample_weight=[3.0])
    assert_allclose(est.coef_, [[6.0 / 7.0, 0.0]])
    assert_allclose(est.accumulator_, [36.0, 0.0])


def test_sop_weight_counts_the_mistake_in_the_papers_sums():
    """A mistaken example of weight c adds c y x to v and c x x^T to A: w = A^{-1} v in closed form."""
    a, c = 0.5, 3.0
    X = np.array([[1.0, 0.0], [1.0, 2.0]])
    est = SecondOrderPerceptron(a=a).partial_fit(X, [1, -1], sample_weight=[c, 1.0])
    # round 1 is a mistake (score 0): A = a I + c x1 x1^T, v = c x1; round 2: w.x2 = c/(a + c) > 0, a mistake
    A = a * np.eye(2) + c * np.outer(X[0], X[0]) + np.outer(X[1], X[1])
    v = c * X[0] - X[1]
    assert_allclose(est.coef_.ravel(), np.linalg.solve(A, v), rtol=1e-12)


def test_cw_positive_weights_make_the_plain_update(make_stream):
    X, y = make_stream(40, 4, seed=9)
    plain = CW(eta=0.8).partial_fit(X, y)
    weighted = CW(eta=0.8).partial_fit(X, y, sample_weight=np.linspace(0.1, 5.0, len(y)))
    assert_array_equal(plain._w, weighted._w)


@pytest.mark.parametrize(("cls", "params"), CASES, ids=IDS)
def test_class_weight_is_a_weight_per_class(cls, params, make_stream):
    X, y = make_stream(40, 4, seed=10)
    by_class = cls(**params, class_weight={1: 2.5, -1: 0.5}).partial_fit(X, y)
    by_row = cls(**params).partial_fit(X, y, sample_weight=np.where(y == 1, 2.5, 0.5))
    assert_array_equal(by_class._w, by_row._w)
    # times sample_weight; a class missing from the dict weighs 1
    c = _weights(len(y), seed=3)
    both = cls(**params, class_weight={1: 2.5}).partial_fit(X, y, sample_weight=c)
    assert_array_equal(both._w, cls(**params).partial_fit(X, y, sample_weight=c * np.where(y == 1, 2.5, 1.0))._w)
    one = cls(**params, class_weight={1: 2.5})
    for x, label, weight in zip(X, y, c):
        one.learn_one(x, label, sample_weight=weight)
    assert_array_equal(one._w, both._w)


def test_balanced_class_weight_is_refused_on_a_stream(make_stream):
    X, y = make_stream(10, 3, seed=11)
    est = AROW(class_weight="balanced")
    with pytest.raises(ValueError, match="balanced"):
        est.partial_fit(X, y)
    assert not est._is_started()


@pytest.mark.parametrize(
    "bad", [[-1.0] + [1.0] * 9, [np.nan] + [1.0] * 9, [1.0] * 9, [np.inf] * 10, "heavy"],
    ids=["negative", "nan", "short", "inf", "string"],
)
@pytest.mark.parametrize(("cls", "params"), CASES[::2], ids=IDS[::2])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(cls, params, bad, make_stream):
    X, y = make_stream(20, 4, seed=12)
    est = cls(**params, average=True).partial_fit(X[:10], y[:10])
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in est.__dict__.items()}
    for call in (lambda: est.partial_fit(X[10:], y[10:], sample_weight=bad),
                 lambda: olearn.run(est, X[10:], y[10:], sample_weight=bad)):
        with pytest.raises(ValueError, match="sample_weight"):
            call()
    with pytest.raises(ValueError, match="sample_weight"):
        est.learn_one(X[10], y[10], sample_weight=bad[0] if isinstance(bad, list) and len(bad) == 10 else bad)
    with pytest.raises(ValueError, match="class_weight"):
        est.set_params(class_weight={1: -2.0}).partial_fit(X[10:], y[10:])
    est.set_params(class_weight=None)
    assert est.__dict__.keys() == before.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert_array_equal(est.__dict__[key], value)
