"""PASequence against the exhaustive-search NumPy transcription of Crammer et al. (2006), Sec. 8-9."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles.sequence import pa_sequence

import olearn
from olearn.sequence import HammingCost, PASequence


def _normalized_hamming(h, T):
    return h / T


def _weighted_cost(y_true, y_pred):
    """A cost that is not a function of the Hamming distance: confusing "a" with "c" costs 3."""
    cost = 0.0
    for u, v in zip(y_true, y_pred):
        if u != v:
            cost += 3.0 if {u, v} == {"a", "c"} else 1.0
    return cost


# the text's bare Phi (Eq. 59 with a start state): no per-label bias, no end transition
BARE = {"fit_intercept": False, "end_transition": False}
# (estimator parameters, rho for the oracle on label values); the defaults have the bias and the end transition
SETTINGS = [
    ({"variant": "pa"}, None),
    ({"variant": "pa", **BARE}, None),
    ({"variant": "pa1", "C": 0.05}, None),
    ({"variant": "pa1", "C": 0.05, "end_transition": False}, None),
    ({"variant": "pa2", "C": 0.5, "fit_intercept": False}, None),
    ({"variant": "pa", "cost": "sqrt-hamming", **BARE}, lambda a, b: math.sqrt(np.sum(a != b))),
    ({"variant": "pa1", "C": 2.0, "cost": HammingCost(_normalized_hamming)}, lambda a, b: np.mean(a != b)),
    ({"variant": "pa", "cost": _weighted_cost, **BARE}, _weighted_cost),
    ({"variant": "pa2", "C": 0.3, "cost": _weighted_cost}, _weighted_cost),
    ({"variant": "pa", "update": "max-loss", **BARE}, None),
    ({"variant": "pa", "update": "max-loss"}, None),
    ({"variant": "pa1", "C": 0.1, "update": "max-loss", "cost": "sqrt-hamming"},
     lambda a, b: math.sqrt(np.sum(a != b))),
    ({"variant": "pa2", "C": 1.0, "update": "max-loss", "cost": HammingCost(_normalized_hamming), **BARE},
     lambda a, b: np.mean(a != b)),
]


def _label(value):
    """A test-id label that is the same in every process (a function's repr holds its address)."""
    return getattr(value, "__name__", None) or str(value)


IDS = ["-".join(f"{k}={_label(v)}" for k, v in params.items()) for params, _ in SETTINGS]


def _formats(X):
    yield "dense", X
    yield "csr", [sp.csr_matrix(s) for s in X]
    yield "csc", [sp.csc_matrix(s) for s in X]
    yield "dict rows", [[{j: v for j, v in enumerate(row) if v != 0.0} for row in s] for s in X]


def _check_against(trace, est, res, classes):
    k = len(classes)
    assert_array_equal(est.classes_, classes)
    assert est.coef_.shape == (k, trace.coef.shape[1])
    assert_allclose(est.coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.intercept_, trace.intercept, rtol=1e-9, atol=1e-12)
    assert_allclose(est.transition_, trace.transition, rtol=1e-9, atol=1e-12)
    assert_allclose(est.end_transition_, trace.end_transition, rtol=1e-9, atol=1e-12)
    assert_allclose(res.losses, trace.losses, rtol=1e-9, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-9, atol=1e-12)
    assert_allclose(res.scores, trace.scores, rtol=1e-9, atol=1e-12)
    for got, expected in zip(res.predictions, trace.predictions):
        if expected is None:
            assert got is None
        else:
            assert_array_equal(got, np.asarray(classes)[list(expected)].reshape(-1))


@pytest.mark.parametrize(("params", "rho"), SETTINGS, ids=IDS)
def test_run_matches_the_oracle_on_every_input_format(params, rho, make_sequences):
    X, y = make_sequences(25, d=3, seed=4, density=0.7)
    classes = ["a", "b", "c"]
    trace = pa_sequence(X, y, classes, rho=rho, **{k: v for k, v in params.items() if k != "cost"})
    assert np.count_nonzero(trace.taus) > 5
    for name, data in _formats(X):
        est = PASequence(**params)
        res = olearn.run(est, data, y)
        _check_against(trace, est, res, classes)


def test_labels_arriving_in_later_batches_match_the_oracle(make_sequences):
    """A label first seen in the second call, and one first seen mid-batch, are handled as in one stream."""
    X, y = make_sequences(24, d=4, labels=(10, 20, 30, 40), seed=9)
    y = [np.where(labels == 40, 30, labels) if i < 16 else labels for i, labels in enumerate(y)]
    y = [np.where(labels == 10, 20, labels) if i < 5 else labels for i, labels in enumerate(y)]
    assert 40 not in np.concatenate(y[:16]) and 40 in np.concatenate(y[16:])
    trace = pa_sequence(X, y, [10, 20, 30, 40], variant="pa1", C=0.5)
    est = PASequence(variant="pa1", C=0.5)
    first = olearn.run(est, X[:16], y[:16])
    assert first.predictions[0] is None
    assert est.classes_.tolist() == [10, 20, 30]
    second = olearn.run(est, X[16:], y[16:])
    assert_allclose(np.concatenate([first.taus, second.taus]), trace.taus, rtol=1e-9, atol=1e-12)
    assert_allclose(est.coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert_allclose(est.transition_, trace.transition, rtol=1e-9, atol=1e-12)


def test_longer_sequences_with_more_labels_match_the_oracle(make_sequences):
    X, y = make_sequences(12, d=5, labels=("p", "q", "r", "s"), lengths=(3, 5), seed=2)
    for update in ("prediction", "max-loss"):
        trace = pa_sequence(X, y, ["p", "q", "r", "s"], variant="pa1", C=1.0, update=update)
        est = PASequence(update=update)
        _check_against(trace, est, olearn.run(est, X, y), ["p", "q", "r", "s"])
