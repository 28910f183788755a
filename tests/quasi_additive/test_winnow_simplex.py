"""Winnow on the n-simplex (000 Eq. 25-26) against its NumPy transcription and a hand-derived round."""

import math
import pickle

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


def test_a_late_second_class_gives_the_model_of_the_final_encoding():
    # "a" alone is encoded +1: (-1, 0) scores -1/2, a mistake, theta = (-1, 0).
    # With "a" encoded -1 (as it is once "b" arrives) the same row scores -1/2 with y = -1:
    # no mistake, theta = (0, 0); then (0, 1) labelled "b" scores 1/2 > 0: no mistake.
    est = Winnow(balanced=False, n_features=2).partial_fit([[-1.0, 0.0]], ["a"])
    assert_allclose(est.theta_, [-1.0, 0.0, 0.0])
    assert est.predict([[-1.0, 0.0]]).tolist() == ["a"]
    est.partial_fit([[0.0, 1.0]], ["b"])
    assert_allclose(est.theta_, [0.0, 0.0, 0.0])
    assert_allclose(est.coef_, [[0.5, 0.5]], rtol=1e-15)
    assert est.predict([[-1.0, 0.0], [0.0, 1.0]]).tolist() == ["a", "b"]


@pytest.mark.parametrize("first", ["a", "b"])
def test_one_class_first_equals_both_classes_known(first, make_stream, tmp_path):
    """learn_one, batches, a pickle and a saved file while one class is known: all give the model of
    the final encoding, which the transcription computes with "b" as +1 from the start."""
    X, y = make_stream(40, 4, seed=9)
    y[:7] = 1 if first == "a" else -1
    labels = np.where(y > 0, "a", "b")
    trace = oracle.winnow_simplex(X, np.where(labels == "b", 1, -1), 0.7)
    one = Winnow(balanced=False, C=0.7)
    for x, label in zip(X, labels):
        one.learn_one(x, label)
    assert_allclose(one.coef_.ravel(), trace.coef, rtol=1e-12)
    early = Winnow(balanced=False, C=0.7).partial_fit(X[:7], labels[:7])
    path = early.save(tmp_path / "one_class.npz")
    for copy in (pickle.loads(pickle.dumps(early)), olearn.load(path), early):
        copy.partial_fit(X[7:], labels[7:])
        assert_allclose(copy.coef_.ravel(), trace.coef, rtol=1e-12)


def test_one_class_first_with_the_dimension_growing():
    # "a" first on feature 0 only, then "b" on feature 1: the kept model grows too (sparse batches
    # name their features by index, so the second may be wider)
    first, second = sp.csr_matrix([[-1.0], [0.5]]), sp.csr_matrix([[0.0, 1.0], [1.0, -1.0]])
    known = Winnow(balanced=False).partial_fit(first, ["a", "a"], classes=["a", "b"])
    known.partial_fit(second, ["b", "a"])
    late = Winnow(balanced=False).partial_fit(first, ["a", "a"])
    late.partial_fit(second, ["b", "a"])
    assert_allclose(late.theta_, known.theta_, rtol=1e-15)
    assert_allclose(late.coef_, known.coef_, rtol=1e-15)


def test_weights_stay_on_the_simplex_under_huge_steps(make_stream):
    X, y = make_stream(200, 5, seed=6)
    est = Winnow(balanced=False, C=1e4).partial_fit(X * 100.0, y)
    w = est.coef_.ravel()
    assert np.all(w >= 0.0) and w.sum() == pytest.approx(1.0, rel=1e-12)


def test_the_plain_form_is_not_the_balanced_one(make_stream):
    X, y = make_stream(60, 4, seed=7)
    plain = Winnow(balanced=False).partial_fit(X, y)
    balanced = Winnow().partial_fit(X, y)
    assert np.all(plain.coef_ >= 0.0)
    assert np.any(balanced.coef_ < 0.0)


@pytest.mark.parametrize("x", [[1e10, 0.0], [-1e10, 0.0]], ids=["other_overflows", "own_overflows"])
def test_one_class_first_both_models_stop_at_a_row_either_refuses(x):
    # C x = 1e310 overflows. (1e10, 0) is no mistake with "a" encoded +1 but one with "a" encoded -1;
    # (-1e10, 0) the reverse. Either way the batch stops there for both models: they keep row 0 of
    # it, not row 2 (a mistake for both encodings).
    rows = [[0.0, -1.0], x, [-1.0, 1.0]]
    est = Winnow(balanced=False, C=1e300).partial_fit([[0.0, 1.0]], ["a"])
    with pytest.raises(FloatingPointError, match="at row 1"):
        est.partial_fit(rows, ["a", "a", "a"])
    kept = Winnow(balanced=False, C=1e300).partial_fit([[0.0, 1.0], [0.0, -1.0]], ["a", "a"])
    assert_allclose(est.theta_, kept.theta_)
    est.partial_fit([[0.5, 0.5]], ["b"])
    known = Winnow(balanced=False, C=1e300).partial_fit([[0.0, 1.0], [0.0, -1.0], [0.5, 0.5]], ["a", "a", "b"])
    assert_allclose(est.theta_, known.theta_)
