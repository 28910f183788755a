"""``olearn run --passes N --link logistic -p``: the probabilities of a chunk with held-out rows in one masked pass.

Reference, computed apart: a fresh learner that learns each learned row on
its own (``olearn.run`` of one row: its probability before its update) and
gives each held-out row ``predict_proba`` at its moment; the held-out rows
teach neither the learner nor its calibration.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._calibration import probabilities
from olearn.compose import Pipeline
from olearn.preprocessing import MaxAbsScaler

LEARNERS = {
    "pa1-platt": lambda: olearn.PAClassifier(variant="pa1", C=0.5, calibration="platt"),
    "arow-platt": lambda: olearn.AROW(covariance="diag", calibration="platt"),
    "pnorm-platt": lambda: olearn.PNorm(calibration="platt"),
    "maxabs-pa1-platt": lambda: Pipeline(MaxAbsScaler(), olearn.PAClassifier(variant="pa1", calibration="platt")),
}


def stream(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    X[:, 0] = rng.normal(size=n)
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return sp.csr_matrix(X), y


@pytest.mark.parametrize("name", list(LEARNERS))
def test_held_out_probabilities_are_those_of_their_moment(name):
    X, y = stream(120, 6, seed=21)
    held = np.arange(1, 121) % 5 == 0
    reference = LEARNERS[name]().partial_fit(X[:0], y[:0], classes=[-1, 1])
    expected = []
    for i in range(120):
        if held[i]:
            expected.append(reference.predict_proba(X[i])[0, 1])
        else:
            expected.append(olearn.run(reference, X[i], y[i:i + 1]).probabilities[0, 1])

    est = LEARNERS[name]().partial_fit(X[:0], y[:0], classes=[-1, 1])
    log_odds = np.empty(120)
    for lo, hi in ((0, 47), (47, 120)):
        assert est._held_out_pass(X[lo:hi], y[lo:hi], held[lo:hi], log_odds=log_odds[lo:hi]) is not None
    np.testing.assert_array_equal(probabilities(log_odds, 2)[:, 1], expected)
    # the learner and its calibration end as the reference's, which never saw a held-out row
    np.testing.assert_array_equal(est.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(est.decision_function(X), reference.decision_function(X))
