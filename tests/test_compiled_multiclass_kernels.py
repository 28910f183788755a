"""Multiclass learners with prototypes learn and score on the kernels compiled at install.

``pa_multiclass_pass`` (``olearn run --oaa K``, whose learner is PA-I),
``multiclass_pass`` (MIRA, the multiclass Perceptron), ``held_out_multiclass_pass``
(``--passes N``) and ``multiclass_scores`` (``olearn predict``, ``olearn run -t``)
of olearn._kernels._multiclass are in the extension module
(olearn._kernels._compiled.KERNELS): the learners' calls must have the compiled
argument types (else the guard sends them to numba, which compiled for 1-15 s on
a first run). The kernels of ``--oaa`` must give numba's prototypes and scores bit
for bit; the others, whose numba kernels take longest to compile, are checked
against the NumPy transcriptions of the papers (:mod:`oracles.multiclass`).
"""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from oracles import multiclass as oracle

from fresh_cli import loaded_by
from olearn._kernels import _compiled
from olearn.multiclass import MIRA, MulticlassPerceptron, PACostSensitive, PAMulticlass

built = pytest.mark.skipif(_compiled.EXTENSION is None, reason="olearn was installed without the compiled kernels")


def stream(n=90, d=12, k=3, seed=5):
    """Rows from k random prototypes, a third of the entries zero, labels 1..k (VW's ``--oaa`` labels)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    y = np.argmax(X @ rng.normal(size=(d, k)) + 0.3 * rng.normal(size=(n, k)), axis=1) + 1
    return X, y


def no_numba(name):
    raise AssertionError(f"{name} went to numba: the learner's arguments are not the compiled types")


def recorded(calls, name, kernel):
    def call(*args):
        calls.setdefault(name, []).append(args)
        return kernel(*args)
    return call


def types_of(name):
    return [tuple(_compiled.parse_type(code) for code in codes) for codes in _compiled.signatures(name)]


@built
def test_the_compiled_pass_and_scores_of_oaa_are_numba_s_bit_for_bit(monkeypatch):
    """PA-I (the learner of ``--oaa K``) on a dense batch, then a CSR one, and its scores: once on the extension,
    once with the same calls sent to numba's kernels; the prototypes and scores must be the same bits."""
    X, y = stream()
    kernels = ("pa_multiclass_pass", "multiclass_scores")
    learners = [PAMulticlass(variant="pa1", C=0.5, fit_intercept=True) for _ in range(2)]
    compiled_calls, numba_calls, scores = {}, {}, []
    for learner, calls, to_numba in ((learners[0], compiled_calls, False), (learners[1], numba_calls, True)):
        with monkeypatch.context() as patch:
            for name in kernels:
                kernel = _compiled._numba_kernel(name) if to_numba else getattr(_compiled, name)
                patch.setattr(_compiled, name, recorded(calls, name, kernel))
            if not to_numba:
                patch.setattr(_compiled, "_numba_kernel", no_numba)
            learner.partial_fit(X[:40], y[:40]).partial_fit(sp.csr_matrix(X[40:]), y[40:])
            scores.append(learner.decision_function(X))
    for name in kernels:
        assert len(compiled_calls[name]) == len(numba_calls[name]) > 0, name
        assert all(_compiled.accepts(types_of(name)[0], args) for args in compiled_calls[name]), name
    assert np.array_equal(learners[0].coef_, learners[1].coef_)
    assert np.array_equal(learners[0].intercept_, learners[1].intercept_)
    assert np.array_equal(scores[0], scores[1])
    assert learners[0].coef_.any() and np.unique(scores[0].argmax(axis=1)).size == 3


def _cost(true, pred):
    return 0.0 if true == pred else float(abs(true - pred)) ** 2


@built
@pytest.mark.parametrize("make, kernel", [
    (lambda: PAMulticlass(variant="pa2", C=0.3), "pa_multiclass_pass"),
    (lambda: PACostSensitive(variant="pa1", C=2.0, cost=_cost, update="max-loss"), "pa_multiclass_pass"),
    (lambda: MIRA(beta=0.7, fit_intercept=True), "multiclass_pass"),
    (lambda: MulticlassPerceptron(update="proportional"), "multiclass_pass"),
], ids=["pa2", "cost-sensitive", "mira", "perceptron"])
def test_multiclass_learners_take_the_compiled_passes_and_learn_the_papers_model(make, kernel, monkeypatch):
    X, y = stream(seed=6)
    calls = {}
    for name in (kernel, "multiclass_scores"):
        monkeypatch.setattr(_compiled, name, recorded(calls, name, getattr(_compiled, name)))
    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    learner = make()
    learner.partial_fit(X[:30], y[:30], classes=[1, 2, 3]).partial_fit(sp.csr_matrix(X[30:]), y[30:])
    scores = learner.decision_function(X)
    assert calls[kernel] and calls["multiclass_scores"], "the learner did not call its kernels through _compiled"
    update = oracle.for_estimator(type(learner).__name__, learner.get_params())
    trace = oracle.multi_prototype(X, y, update, fit_intercept=learner.fit_intercept, classes=[1, 2, 3])
    assert_allclose(learner.coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert_allclose(learner.intercept_, trace.intercept, rtol=1e-9, atol=1e-12)
    assert_allclose(scores, X @ trace.coef.T + trace.intercept, rtol=1e-9, atol=1e-12)
    assert np.count_nonzero(trace.taus) > 10


@built
def test_the_compiled_held_out_pass_learns_the_other_rows_and_scores_the_held_ones_by_their_moment(monkeypatch):
    """VW's hold-out of ``--passes N``: a held-out row is scored by the prototypes of its moment, never learned,
    and the rows learned give the transcription's model of them alone."""
    X, y = stream(n=60, seed=7)
    held = np.arange(1, 61) % 10 == 0
    monkeypatch.setattr(_compiled, "_numba_kernel", no_numba)
    learner = MIRA(beta=0.5)
    learner.partial_fit(X[:1], y[:1], classes=[1, 2, 3])
    predictions, scores, *_ = learner._held_out_pass(sp.csr_matrix(X[1:]), y[1:], held[1:])
    learned = ~held
    update = oracle.mira_update(0.5)
    trace = oracle.multi_prototype(X[learned], y[learned], update, classes=[1, 2, 3])
    assert_allclose(learner.coef_, trace.coef, rtol=1e-9, atol=1e-12)
    for i in np.flatnonzero(held):
        before = learned[:i].sum()  # the rounds learned before row i
        moment = oracle.multi_prototype(X[learned][:before], y[learned][:before], update, classes=[1, 2, 3])
        assert_allclose(scores[i - 1], moment.coef @ X[i], rtol=1e-9, atol=1e-12)
        assert predictions[i - 1] == 1 + np.argmax(moment.coef @ X[i])
    assert held.sum() == 6 and np.count_nonzero(trace.taus) > 10


def _olearn(*args):
    """The modules loaded by ``olearn ARGS`` in a fresh process, where the compiled kernels may be used."""
    return loaded_by(*args, env={**os.environ, "OLEARN_KERNELS": ""})


@built
def test_an_oaa_run_its_passes_its_test_and_predictions_start_no_numba(tmp_path):
    """``olearn run --oaa 3`` (one pass, then three from a cache with a hold-out), ``olearn run -t`` and ``olearn
    predict`` of its model: every kernel they call is the extension's (a first run compiled them for seconds)."""
    X, y = stream()
    data = tmp_path / "train.vw"
    data.write_text("".join(f"{label} |f " + " ".join(f"x{j}:{float(row[j])!r}" for j in np.flatnonzero(row)) + "\n"
                            for row, label in zip(X, y)))
    model = tmp_path / "model.npz"
    outputs = [_olearn("run", "--oaa", "3", "--quiet", "-f", model, data)]
    outputs.append(_olearn("run", "--oaa", "3", "--passes", "3", "-c", "--quiet", data))
    outputs.append(_olearn("run", "-t", "-i", model, data))
    outputs.append(_olearn("predict", "-m", model, "-o", tmp_path / "labels.txt", data))
    for _, loaded in outputs:
        assert "numba" not in loaded and _compiled.EXTENSION.__name__ in loaded
    labels = np.array((tmp_path / "labels.txt").read_text().split(), dtype=float)
    assert set(labels) <= {1.0, 2.0, 3.0} and np.mean(labels == y) > 0.6

