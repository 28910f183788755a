"""Every binary linear learner against the plain-NumPy transcription of its paper.

The oracles (tests/oracles/binary.py) are written from the papers' pseudo-code;
here olearn's compiled kernel must reproduce their final weights and, round by
round, their scores, losses, step sizes and mistakes, on dense and CSR input.
"""

import itertools
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import binary as oracle

import olearn

RTOL = 1e-10


def _atol(*arrays):
    # tiny absolute slack for entries that cancel to ~0 (relative error is meaningless there)
    return 1e-12 * max(1.0, *(float(np.max(np.abs(a), initial=0.0)) for a in arrays))


def _grid(**axes):
    keys = list(axes)
    return [dict(zip(keys, values)) for values in itertools.product(*axes.values())]


CASES = (
    [("Perceptron", p) for p in _grid(eta=[1.0, 0.3], fit_intercept=[False, True])]
    + [("PAClassifier", {"variant": "pa", "C": 1.0, "fit_intercept": fi}) for fi in (False, True)]
    + [
        ("PAClassifier", p)
        for p in _grid(variant=["pa1", "pa2"], C=[0.05, 1.0, 20.0], fit_intercept=[False, True])
    ]
    + [
        ("OGDClassifier", p)
        for p in _grid(
            loss=["hinge", "logistic", "squared"],
            schedule=["constant", "sqrt", "inverse"],
            radius=[None, 0.6],
            conservative=[False, True],
            fit_intercept=[False, True],
            eta=[0.5],
        )
    ]
    + [("OGDClassifier", {"loss": "logistic", "schedule": "sqrt", "eta": 3.0, "radius": 2.0, "conservative": False,
                          "fit_intercept": True})]
    + [
        ("OnlineSVM", p)
        for p in _grid(radius=[0.4, 10.0], schedule=["constant", "sqrt", "inverse"], eta=[1.0, 0.2],
                       fit_intercept=[True, False])
    ]
)


def _id(case):
    name, params = case
    return name + "-" + ",".join(f"{k}={v}" for k, v in params.items())


def _make(name, params):
    return dict(olearn.all_estimators())[name](**params)


def _check_against(est, trace, res):
    ref_w = np.append(trace.coef, trace.intercept)
    got_w = np.append(est.coef_.ravel(), est.intercept_)
    assert_allclose(got_w, ref_w, rtol=RTOL, atol=_atol(ref_w))
    assert_allclose(res.scores, trace.scores, rtol=RTOL, atol=_atol(trace.scores))
    assert_allclose(res.losses, trace.losses, rtol=RTOL, atol=_atol(trace.losses))
    assert_allclose(res.taus, trace.taus, rtol=RTOL, atol=_atol(trace.taus))
    assert_array_equal(res.cumulative_mistakes, np.cumsum(trace.mistakes))
    assert res.n_mistakes == int(trace.mistakes.sum())
    assert res.n_updates == int(np.count_nonzero(trace.taus))
    assert res.n_rounds == trace.scores.size
    assert_allclose(res.cumulative_loss, trace.losses.sum(), rtol=1e-9)


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("density", [1.0, 0.3])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_matches_oracle(case, density, layout, make_stream):
    name, params = case
    X, y = make_stream(120, 10, density=density, seed=zlib.crc32(f"{name}{density}".encode()) % 1000)
    trace = oracle.for_estimator(name, params, X, y)
    est = _make(name, params)
    res = olearn.run(est, sp.csr_matrix(X) if layout == "csr" else X, y)
    _check_against(est, trace, res)
    # predictions follow the documented rule: classes_[1] iff score > 0
    assert_array_equal(res.predictions, np.where(trace.scores > 0, 1, -1))


@pytest.mark.parametrize("case", CASES[::5], ids=_id)
def test_partial_fit_and_fit_match_oracle(case, make_stream):
    name, params = case
    X, y = make_stream(80, 6, density=0.5, seed=3)
    trace = oracle.for_estimator(name, params, X, y)
    for learn in (lambda e: e.partial_fit(X, y), lambda e: e.set_params(max_iter=1, shuffle=False).fit(sp.csr_matrix(X), y)):
        est = learn(_make(name, params))
        ref_w = np.append(trace.coef, trace.intercept)
        assert_allclose(np.append(est.coef_.ravel(), est.intercept_), ref_w, rtol=RTOL, atol=_atol(ref_w))
        assert_allclose(est.decision_function(X), X @ trace.coef + trace.intercept, rtol=1e-9, atol=_atol(ref_w))


def test_every_registered_binary_linear_estimator_has_an_oracle():
    """A new preset of the binary linear engine must come with its oracle."""
    X, y = np.eye(3), np.array([1, -1, 1])
    for name, cls in olearn.all_estimators():
        if not issubclass(cls, olearn.linear.BinaryLinearClassifier):
            continue
        params = cls().get_params()
        oracle.for_estimator(name, params, X, y)  # KeyError names the estimator without an oracle


def test_papers_worked_example_by_hand():
    """PA on x1 = (2, 0), y1 = +1 then x2 = (0, 1), y2 = -1, derived by hand.

    Round 1: w = 0, l = 1, ||x||^2 = 4, tau = 1/4, w = (0.5, 0).
    Round 2: w.x = 0, l = 1, ||x||^2 = 1, tau = 1, w = (0.5, -1).
    """
    X = np.array([[2.0, 0.0], [0.0, 1.0]])
    y = np.array([1, -1])
    trace = oracle.passive_aggressive(X, y, variant="pa")
    assert_allclose(trace.coef, [0.5, -1.0])
    assert_allclose(trace.taus, [0.25, 1.0])
    res = olearn.run(olearn.PAClassifier(variant="pa"), X, y)
    assert_allclose(res.taus, [0.25, 1.0])
