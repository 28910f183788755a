"""DualAscent against the NumPy/SciPy oracle, and its identities with PA-I and the Perceptron."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import dual as oracle

import olearn
from olearn.dual import DualAscent

LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix, "csc": sp.csc_matrix}
CASES = [
    {"regularizer": r, "update": u, "p": 3.0, "k": 3, "C": C, "gamma": g, "fit_intercept": fi}
    for r in ("l2", "entropy", "pnorm")
    for u, C, g, fi in (("conservative", 0.4, 1.0, False), ("aggressive", 0.8, 0.7, True),
                        ("last-k", 0.8, 1.0, True), ("all", 0.5, 1.3, False))
]


def _weights(est):
    return np.append(est.coef_.ravel(), est.intercept_)


def _case_id(case):
    return f"{case['regularizer']}-{case['update']}"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_matches_oracle(case, layout, make_stream):
    X, y = make_stream(30, 5, density=0.7, seed=7)
    X[:, -1] += 0.4  # the entropic prior counts every feature from the first round
    est = DualAscent(**case)
    res = olearn.run(est, LAYOUTS[layout](X), y)
    trace = oracle.dual_ascent(X, y, **case)
    exact = case["update"] in ("conservative", "aggressive")
    rtol, atol = (1e-10, 1e-13) if exact else (1e-5, 1e-7)
    assert_allclose(_weights(est), np.append(trace.coef, trace.intercept), rtol=rtol, atol=atol)
    assert_allclose(res.scores, trace.scores, rtol=rtol, atol=atol)
    assert_allclose(res.taus, trace.taus, rtol=rtol, atol=atol)
    assert_allclose(est.dual_objective_, trace.duals, rtol=rtol, atol=atol)


@pytest.mark.parametrize("C", [0.05, 1.0, 30.0])
def test_last_1_in_l2_is_pa1(C, make_stream):
    X, y = make_stream(80, 6, density=0.5, seed=9)
    for fit_intercept in (False, True):
        est = DualAscent(update="last-k", k=1, C=C, fit_intercept=fit_intercept)
        pa = olearn.PAClassifier(variant="pa1", C=C, fit_intercept=fit_intercept)
        a, b = olearn.run(est, X, y), olearn.run(pa, X, y)
        assert_allclose(_weights(est), _weights(pa), rtol=1e-12, atol=1e-14)
        # 000 Sec. 5: alpha_t = min(C, l_t / ||x_t||^2), which is C on a zero row (PA's tau is 0 there: no move)
        zero = ~np.asarray(abs(sp.csr_matrix(X)).sum(axis=1)).ravel().astype(bool) & (not fit_intercept)
        assert_allclose(a.taus, np.where(zero, C, b.taus), rtol=1e-12, atol=1e-14)
        assert_array_equal(a.predictions, b.predictions)


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_conservative_l2_makes_the_perceptrons_predictions(C, make_stream):
    X, y = make_stream(80, 6, seed=10)
    a = olearn.run(DualAscent(update="conservative", C=C), X, y)
    b = olearn.run(olearn.Perceptron(), X, y)
    assert_array_equal(a.predictions, b.predictions)
    assert a.n_mistakes == b.n_mistakes


@pytest.mark.parametrize("update", ["last-k", "all"])
def test_window_updates_learn_one_batches_and_run_agree(update, make_stream):
    X, y = make_stream(40, 5, seed=11)
    params = {"regularizer": "pnorm", "p": 3.0, "update": update, "k": 4, "C": 0.7}
    whole = DualAscent(**params).partial_fit(X, y)
    batches = DualAscent(**params)
    for lo, hi in [(0, 1), (1, 9), (9, 9), (9, 40)]:
        batches.partial_fit(sp.csr_matrix(X[lo:hi]), y[lo:hi])
    one = DualAscent(**params)
    for x, label in zip(X, y):
        one.learn_one({j: v for j, v in enumerate(x) if v}, label)
    for est in (batches, one):
        assert_allclose(_weights(est), _weights(whole), rtol=1e-12)
        assert_allclose(est.dual_objective_, whole.dual_objective_, rtol=1e-12)
    assert whole.alpha_.size == (4 if update == "last-k" else 40)


def test_the_other_class_first_flips_the_stored_examples(make_stream):
    X, y = make_stream(30, 4, seed=12)
    y[:5] = -1
    labels = np.where(y > 0, "b", "a")  # "b" is +1 in the end, but the stream starts with "a"
    known = DualAscent(update="all", C=0.5).partial_fit(X, labels, classes=["a", "b"])
    late = DualAscent(update="all", C=0.5).partial_fit(X[:5], labels[:5]).partial_fit(X[5:], labels[5:])
    assert_allclose(_weights(late), _weights(known), rtol=1e-12)
    assert_allclose(late.dual_objective_, known.dual_objective_, rtol=1e-12)


def test_zero_rows_take_the_top_of_their_box_in_the_window_updates():
    """Eq. (31): along a zero row's coordinate D = gamma alpha_i + const, so its alpha is C (it moves no weight).

    C = 0.5, gamma = 0.3, rows (1, 0), 0, (0, 1), labels +1, -1, -1, l2: round 1 gives PA-I's
    alpha_1 = min(C, 0.3 / 1) = 0.3, round 2 alpha_2 = C = 0.5, round 3 alpha_3 = 0.3 (w_3 . x_3 = 0);
    D after round 3 = gamma (0.3 + 0.5 + 0.3) - ||(0.3, -0.3)||^2 / 2 = 0.33 - 0.09 = 0.24.
    """
    X = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    for update in ("last-k", "all"):
        est = DualAscent(update=update, k=2, C=0.5, gamma=0.3)
        res = olearn.run(est, X, [1, -1, -1])
        assert_allclose(res.taus, [0.3, 0.5, 0.3], rtol=1e-12)
        assert_allclose(est.dual_objective_[-1], 0.24, rtol=1e-9)
    res = olearn.run(DualAscent(update="conservative", C=0.5), X, [1, -1, -1])
    assert res.taus[1] == 0.5  # a zero score is a mistake: alpha = C, Eq. (16)
    res = olearn.run(DualAscent(update="aggressive", C=0.5, gamma=0.3), X, [1, -1, -1])
    assert res.taus[1] == 0.3  # loss gamma: alpha = min(gamma, C), Eq. (28)


def test_aggressive_is_eq_28_not_pa1():
    # 000 Eq. (28): alpha_t = min(l_t, C) = min(1, 10) = 1, so w = 1 * 0.5 e_1;
    # PA-I (Eq. 31, k = 1) would take min(C, l / ||x||^2) = 4 and give w = (2, 0).
    est = DualAscent(update="aggressive", C=10.0)
    res = olearn.run(est, np.array([[0.5, 0.0]]), np.array([1]))
    assert res.taus.tolist() == [1.0]
    assert_array_equal(est.coef_, [[0.5, 0.0]])
    assert est.dual_objective_.tolist() == [1.0 - 0.5 * 0.25]  # gamma alpha - ||theta||^2 / 2
    pa1 = DualAscent(update="last-k", k=1, C=10.0).partial_fit(np.array([[0.5, 0.0]]), np.array([1]))
    assert_array_equal(pa1.coef_, [[2.0, 0.0]])


def test_window_overflow_is_refused_and_leaves_no_trace():
    est = DualAscent(update="all").partial_fit(np.eye(2), [1, -1])
    before, duals = _weights(est), est.dual_objective_
    with pytest.raises(FloatingPointError, match="row 0"):
        est.partial_fit(np.array([[1e200, 1e200]]), [1])
    assert_array_equal(_weights(est), before)
    assert_array_equal(est.dual_objective_, duals)
    assert est.alpha_.size == 2
