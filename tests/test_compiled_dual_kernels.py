"""A binary learner with a Mercer kernel learns and scores on the kernels compiled at install, as the paper says.

``dual_pass`` and ``dual_scores`` (olearn._kernels._mercer_binary) are in the
extension module (olearn._kernels._compiled.KERNELS): the learner's calls must
have the compiled argument types (else the guard sends them to numba, which
compiles on a first run), and the compiled code must learn the support set and
scores of the NumPy dual transcription of the paper (:mod:`oracles.kernel`).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from oracles import kernel as oracle

import olearn
from olearn._kernels import _compiled

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")


def stream():
    rng = np.random.default_rng(7)
    X = sp.random(300, 40, density=0.2, format="csr", random_state=3)
    y = np.where(rng.random(300) < 0.5, "spam", "ham")
    return X, y


@built
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_the_compiled_dual_kernels_take_the_learner_s_calls_and_learn_the_papers_support_set(kernel, monkeypatch):
    def no_numba(name):
        raise AssertionError(f"{name} went to numba: the learner's arguments are not the compiled types")

    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    X, y = stream()
    model = olearn.PAClassifier(variant="pa1", C=0.5, kernel=kernel, gamma=0.3, budget=60, random_state=0)
    model.partial_fit(X[:150], y[:150]).partial_fit(X[150:], y[150:])
    scores = model.decision_function(X)
    dense, labels = X.toarray(), np.where(y == "spam", 1, -1)  # classes_ sorted: "spam" the positive class
    expected = oracle.dual_learner(dense, labels, rule="pa1", C=0.5, kernel=kernel, gamma=0.3, budget=60)
    assert len(expected.removed) > 0 and len(expected.support) == 60  # the budget removed vectors
    assert_allclose(model.dual_coef_.ravel(), expected.alphas, rtol=1e-10, atol=1e-10)
    assert_allclose(model.support_vectors_.toarray(), np.array(expected.support), rtol=1e-10, atol=1e-10)
    assert_allclose(scores, expected.decision(dense, kernel=kernel, gamma=0.3), rtol=1e-10, atol=1e-10)
    assert np.isfinite(scores).all() and np.ptp(scores) > 0.0
