"""A binary learner with a Mercer kernel learns and scores on the kernels compiled at install, as numba's do.

``dual_pass`` and ``dual_scores`` (olearn._kernels._mercer_binary) are in the
extension module (olearn._kernels._compiled.KERNELS): the learner's calls must
have the compiled argument types (else the guard sends them to numba, which
compiles on a first run), and the compiled code must answer bit for bit as
numba's kernel of the same source.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._kernels import _compiled, _mercer_binary

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")


def stream():
    rng = np.random.default_rng(7)
    X = sp.random(300, 40, density=0.2, format="csr", random_state=3)
    y = np.where(rng.random(300) < 0.5, "spam", "ham")
    return X, y


def learned(kernel):
    X, y = stream()
    model = olearn.PAClassifier(variant="pa1", C=0.5, kernel=kernel, gamma=0.3, budget=60, random_state=0)
    model.partial_fit(X[:150], y[:150]).partial_fit(X[150:], y[150:])
    return model, model.decision_function(X)


@built
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_the_compiled_dual_kernels_take_the_learner_s_calls_and_answer_as_numba(kernel, monkeypatch):
    def no_numba(name):
        raise AssertionError(f"{name} went to numba: the learner's arguments are not the compiled types")

    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "_numba_kernel", no_numba)
        compiled, compiled_scores = learned(kernel)
    monkeypatch.setattr(_compiled, "dual_pass", _mercer_binary.dual_pass)
    monkeypatch.setattr(_compiled, "dual_scores", _mercer_binary.dual_scores)
    jitted, jitted_scores = learned(kernel)
    assert len(compiled._support) == len(jitted._support) <= 60
    assert np.array_equal(compiled._support.coefficients(), jitted._support.coefficients())
    assert np.array_equal(compiled_scores, jitted_scores)
    assert np.isfinite(compiled_scores).all() and np.ptp(compiled_scores) > 0.0
