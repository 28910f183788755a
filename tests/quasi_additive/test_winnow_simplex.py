"""Winnow on the n-simplex (000 Eq. 25-26) against its NumPy transcription and a hand-derived round."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from oracles import quasi_additive as oracle

import olearn
from olearn.quasi_additive import Winnow

LAYOUTS = {"dense": np.asarray, "csr": sp.csr_matrix}


def test_one_mistake_by_hand():
    # uniform w = (1/3, 1/3, 1/3) scores 1/3 on e_1, y = -1: a mistake, theta = (-1, 0, 0)
    est = Winnow(balanced=False, C=1.0, n_features=3).partial_fit(np.zeros((1, 3)), [1], classes=[-1, 1])
    assert est.decision_function([[1.0, 0.0, 0.0]])[0] == pytest.approx(1 / 3, rel=1e-15)
    est.partial_fit(np.array([[1.0, 0.0, 0.0]]), np.array([-1]))
    z = math.exp(-1.0) + 2.0
    assert_allclose(est.coef_, [[math.exp(-1.0) / z, 1 / z, 1 / z]], rtol=1e-14)
    assert_allclose(est.coef_, [[0.1554, 0.4223, 0.4223]], atol=5e-5)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("C", [0.3, 2.0])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_matches_the_transcription(layout, C, fit_intercept, make_stream):
    X, y = make_stream(80, 6, density=0.5, seed=5)
    X[:, -1] += 0.3  # every feature from the first row: the prior counts the same n as the oracle's
    est = Winnow(balanced=False, C=C, fit_intercept=fit_intercept)
    res = olearn.run(est, LAYOUTS[layout](X), y)
    trace = oracle.winnow_simplex(X, y, C, fit_intercept)
    assert_allclose(est.coef_.ravel(), trace.coef, rtol=1e-10, atol=1e-13)
    assert est.intercept_[0] == pytest.approx(trace.intercept, rel=1e-10, abs=1e-13)
    assert_allclose(res.scores, trace.scores, rtol=1e-10, atol=1e-13)
    assert_allclose(res.taus, trace.taus)


def test_a_late_second_class_negates_theta_and_keeps_the_dual_variables():
    # "a" alone is encoded +1: (-1, 0) scores -1/2, a mistake, theta = (-1, 0).
    # "b" then sorts last and becomes +1: theta = (1, 0), w = (e, 1) / (e + 1);
    # (0, 1) labelled "b" scores 1 / (e + 1) > 0: no mistake.
    est = Winnow(balanced=False, n_features=2).partial_fit([[-1.0, 0.0]], ["a"])
    assert_allclose(est.theta_, [-1.0, 0.0, 0.0])
    est.partial_fit([[0.0, 1.0]], ["b"])
    assert_allclose(est.theta_, [1.0, 0.0, 0.0])
    e = math.e
    assert_allclose(est.coef_, [[e / (e + 1), 1 / (e + 1)]], rtol=1e-14)


def test_weights_stay_on_the_simplex_under_huge_steps(make_stream):
    X, y = make_stream(200, 5, seed=6)
    est = Winnow(balanced=False, C=1e4).fit(X * 100.0, y)
    w = est.coef_.ravel()
    assert np.all(w >= 0.0) and w.sum() == pytest.approx(1.0, rel=1e-12)


def test_the_plain_form_is_not_the_balanced_one(make_stream):
    X, y = make_stream(60, 4, seed=7)
    plain = Winnow(balanced=False).fit(X, y)
    balanced = Winnow().fit(X, y)
    assert np.all(plain.coef_ >= 0.0)
    assert np.any(balanced.coef_ < 0.0)
