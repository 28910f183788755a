"""Importance weights (sample_weight, class_weight) of Winnow, the p-norm algorithms and DualAscent.

References: the NumPy transcriptions of :mod:`oracles.quasi_additive` and
:mod:`oracles.dual` with each example's dual box scaled by its weight (the
dual problem of the weighted primal solved by SciPy), closed forms by hand,
and the identity "integer weight c == c copies of the example" where it holds
(the batch dual of the Online-SVM).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import dual as dual_oracle
from oracles import quasi_additive as oracle

import olearn
from olearn.dual import DualAscent
from olearn.quasi_additive import PNorm, Winnow

LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix}


def _weights(n, seed):
    """Weights in [0, 3], a fifth of them 0 and some integers."""
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.0, 3.0, size=n), 2)
    c[rng.random(n) < 0.2] = 0.0
    c[::7] = 2.0
    return c


def _coef(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _stream(make_stream, n=60, d=6, seed=3):
    X, y = make_stream(n, d, density=0.5, seed=seed)
    X[:, -1] += 0.3  # every feature from the first row: the entropic prior counts the same n as the oracle's
    return X, y


QA_CASES = [
    ("winnow", lambda: Winnow(C=0.7, fit_intercept=True), lambda X, y, c: oracle.winnow(X, y, 0.7, True, c)),
    ("winnow-simplex", lambda: Winnow(C=0.5, balanced=False, n_features=6),
     lambda X, y, c: oracle.winnow_simplex(X, y, 0.5, False, c)),
    ("pnorm", lambda: PNorm(p=3.0, C=0.4), lambda X, y, c: oracle.pnorm(X, y, 3.0, 0.4, False, c)),
    ("pnorm-aggressive", lambda: PNorm(p=2.5, aggressive=True, R=1.2, fit_intercept=True),
     lambda X, y, c: oracle.aggressive_pnorm(X, y, 2.5, 1.2, True, c)),
]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize(("make", "reference"), [case[1:] for case in QA_CASES], ids=[case[0] for case in QA_CASES])
def test_weighted_quasi_additive_learners_match_the_oracles(make, reference, layout, make_stream):
    X, y = _stream(make_stream)
    c = _weights(len(y), seed=4)
    est = make()
    res = olearn.run(est, LAYOUTS[layout](X), y, sample_weight=c)
    trace = reference(X, y, c)
    assert_allclose(_coef(est), np.append(trace.coef, trace.intercept), rtol=1e-10, atol=1e-13)
    assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-13)
    assert_allclose(res.taus, trace.taus, rtol=1e-10, atol=1e-15)
    assert not np.allclose(_coef(make().partial_fit(X, y)), _coef(est))


DUAL_CASES = [
    {"regularizer": r, "update": u, "p": 3.0, "k": 3, "C": C, "gamma": g, "fit_intercept": fi}
    for r in ("l2", "entropy", "pnorm")
    for u, C, g, fi in (("conservative", 0.4, 1.0, False), ("aggressive", 0.8, 0.7, True),
                        ("last-k", 0.8, 1.0, True), ("all", 0.5, 1.3, False))
]


@pytest.mark.parametrize("case", DUAL_CASES, ids=lambda case: f"{case['regularizer']}-{case['update']}")
def test_weighted_dual_ascent_matches_the_weighted_dual(case, make_stream):
    X, y = make_stream(24, 5, density=0.7, seed=7)
    X[:, -1] += 0.4
    c = _weights(len(y), seed=5)
    est = DualAscent(**case)
    res = olearn.run(est, sp.csr_matrix(X), y, sample_weight=c)
    trace = dual_oracle.dual_ascent(X, y, **case, sample_weight=c)
    exact = case["update"] in ("conservative", "aggressive")
    rtol, atol = (1e-10, 1e-13) if exact else (1e-5, 1e-7)
    assert_allclose(_coef(est), np.append(trace.coef, trace.intercept), rtol=rtol, atol=atol)
    assert_allclose(res.scores, trace.scores, rtol=rtol, atol=atol)
    assert_allclose(res.taus, trace.taus, rtol=rtol, atol=atol)
    assert_allclose(est.dual_objective_, trace.duals, rtol=rtol, atol=atol)
    assert np.all(res.taus <= case["C"] * c + 1e-12)


@pytest.mark.parametrize("regularizer", ["l2", "entropy"])
def test_online_svm_integer_weight_equals_copies_of_the_example(regularizer, make_stream):
    """update="all" solves the batch dual; copies' variables enter it only through their sum, in [0, c C]."""
    X, y = make_stream(12, 4, seed=8)
    X[:, -1] += 0.4
    c = np.array([1, 3, 1, 2, 1, 1, 2, 1, 1, 1, 3, 1])
    params = {"regularizer": regularizer, "update": "all", "C": 0.6, "tol": 1e-12}
    weighted = DualAscent(**params).partial_fit(X, y, sample_weight=c.astype(float))
    copies = DualAscent(**params).partial_fit(np.repeat(X, c, axis=0), np.repeat(y, c))
    assert_allclose(_coef(weighted), _coef(copies), rtol=1e-7, atol=1e-9)
    assert_allclose(weighted.dual_objective_[-1], copies.dual_objective_[-1], rtol=1e-9)
    assert not np.allclose(_coef(weighted), _coef(DualAscent(**params).partial_fit(X, y)))


def test_winnow_weighted_mistake_by_hand():
    """Balanced Winnow, x = (1, 0), y = 1, c = 2.5, C = 1: theta = (2.5, 0), w_1 = sinh(2.5) / (cosh(2.5) + 1)."""
    est = Winnow(C=1.0).partial_fit([[1.0, 0.0]], [1], classes=[-1, 1], sample_weight=[2.5])
    assert_allclose(est.coef_, [[np.sinh(2.5) / (np.cosh(2.5) + 1.0), 0.0]], rtol=1e-14)
    assert_allclose(est.theta_, [2.5, 0.0, 0.0])


ALL = [make for _, make, _ in QA_CASES] + [lambda: DualAscent(update="last-k", k=2, C=0.5),
                                           lambda: DualAscent(regularizer="entropy", update="aggressive")]
ALL_IDS = [name for name, _, _ in QA_CASES] + ["dual-last-k", "dual-entropy-aggressive"]


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_learn_one_partial_fit_and_run_agree_on_weights(make, make_stream):
    X, y = _stream(make_stream, n=30, seed=9)
    c = _weights(len(y), seed=6)
    one = make()
    for x, label, weight in zip(X, y, c):
        one.learn_one(x, label, sample_weight=weight)
    batch = make().partial_fit(X, y, sample_weight=c)
    progressive = make()
    predictions = [progressive.predict_learn_one(x, label, sample_weight=weight) for x, label, weight in zip(X, y, c)]
    assert_allclose(_coef(one), _coef(batch), rtol=1e-12)
    assert_allclose(_coef(progressive), _coef(batch), rtol=1e-12)
    assert predictions[2:] == olearn.run(make(), X, y, sample_weight=c).predictions[2:].tolist()


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_zero_weight_moves_nothing_and_weight_one_is_unweighted(make, make_stream):
    X, y = _stream(make_stream, n=30, seed=10)
    est = make().partial_fit(X[:15], y[:15])
    theta, rounds = est.theta_, est._state[0]
    res = olearn.run(est, X[15:], y[15:], sample_weight=np.zeros(15))
    assert_array_equal(est.theta_, theta)
    assert est._state[0] == rounds + 15
    assert res.n_updates == 0
    assert_array_equal(make().partial_fit(X, y, sample_weight=np.ones(30)).theta_, make().partial_fit(X, y).theta_)


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_class_weight_is_a_weight_per_class(make, make_stream):
    X, y = _stream(make_stream, n=30, seed=11)
    by_class = make().set_params(class_weight={1: 0.5, -1: 2.0}).partial_fit(X, y)
    by_row = make().partial_fit(X, y, sample_weight=np.where(y == 1, 0.5, 2.0))
    assert_array_equal(by_class.theta_, by_row.theta_)


@pytest.mark.parametrize("make", ALL[::2], ids=ALL_IDS[::2])
def test_bad_weights_are_refused_and_leave_the_learner_as_it_was(make, make_stream):
    X, y = _stream(make_stream, n=20, seed=12)
    est = make().partial_fit(X[:10], y[:10])
    theta, state = est.theta_, est._state.copy()
    for bad in ([-1.0] + [1.0] * 9, [np.nan] * 10, [1.0] * 3):
        with pytest.raises(ValueError, match=r"sample_weight"):
            est.partial_fit(X[10:], y[10:], sample_weight=bad)
        with pytest.raises(ValueError, match=r"sample_weight"):
            olearn.run(est, X[10:], y[10:], sample_weight=bad)
    with pytest.raises(ValueError, match="sample_weight"):
        est.learn_one(X[10], y[10], sample_weight=-0.5)
    with pytest.raises(ValueError, match="class_weight"):
        est.set_params(class_weight="heavy").partial_fit(X[10:], y[10:])
    assert_array_equal(est.theta_, theta)
    assert_array_equal(est._state, state)


def test_stored_weights_are_saved_and_a_store_without_them_loads(make_stream, tmp_path):
    X, y = make_stream(20, 4, seed=13)
    c = _weights(20, seed=7)
    est = DualAscent(update="last-k", k=4).partial_fit(X[:12], y[:12], sample_weight=c[:12])
    est.save(tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert_array_equal(loaded._store.weight, c[8:12])
    est.partial_fit(X[12:], y[12:], sample_weight=c[12:])
    loaded.partial_fit(X[12:], y[12:], sample_weight=c[12:])
    assert_array_equal(loaded.theta_, est.theta_)
