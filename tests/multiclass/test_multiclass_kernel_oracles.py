"""The kernel (dual) multiclass learners against the primal learners and the NumPy dual transcription.

The linear kernel must learn exactly what the primal multi-prototype learner
learns; polynomial and RBF kernels must follow ``kernel_multi_prototype`` of
tests/oracles/multiclass.py (plain loops over a list of support vectors),
including the budget's evictions; tau uses K(x, x).
"""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import multiclass as oracle
from test_multiclass_oracles import asymmetric_cost, layout, stream

import olearn
import olearn.multiclass as mc

LEARNERS = [
    ("PAMulticlass", {"variant": "pa1", "C": 100.0}),
    ("PAMulticlass", {"variant": "pa", "fit_intercept": True}),
    ("PAMulticlass", {"variant": "pa2", "C": 0.5}),
    ("PACostSensitive", {"variant": "pa1", "C": 2.0, "cost": asymmetric_cost, "update": "max-loss"}),
    ("PACostSensitive", {"variant": "pa", "update": "prediction", "fit_intercept": True}),
    ("MulticlassPerceptron", {"update": "uniform"}),
    ("MulticlassPerceptron", {"update": "max", "fit_intercept": True}),
    ("MulticlassPerceptron", {"update": "proportional"}),
    ("MIRA", {"beta": 0.01}),
    ("MIRA", {"beta": 0.5, "fit_intercept": True}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(LEARNERS)]
by_learner = pytest.mark.parametrize(("name", "params"), LEARNERS, ids=IDS)

KERNELS = {
    "poly3": ({"kernel": "poly", "degree": 3}, oracle.poly_kernel(3)),
    "poly5-shifted": ({"kernel": "poly", "degree": 5, "coef0": 0.5, "gamma": 0.7}, oracle.poly_kernel(5, 0.7, 0.5)),
    "rbf": ({"kernel": "rbf", "gamma": 0.4}, oracle.rbf_kernel(0.4)),
}


def make(name, params, **kernel):
    return getattr(mc, name)(**params, **kernel)


def assert_dual_matches(est, res, trace, support):
    # a round with no class known yet (None in the transcription) shows classes_[0] in run
    assert list(res.predictions) == [est.classes_[0] if p is None else p for p in trace.predictions]
    assert_array_equal(res.cumulative_mistakes, np.cumsum(trace.mistakes))
    assert_allclose(res.losses, trace.losses, rtol=1e-9, atol=1e-12)
    assert_allclose(res.taus, trace.taus, rtol=1e-9, atol=1e-12)
    assert_allclose(res.scores, trace.scores, rtol=1e-9, atol=1e-12)
    assert list(est.classes_) == trace.classes
    assert est.n_support_ == support.shape[0]
    assert_allclose(est.dual_coef_, trace.coef, rtol=1e-9, atol=1e-12)
    assert_array_equal(est.support_vectors_.toarray(), support)


@pytest.mark.parametrize("kind", ["dense", "csr", "csc"])
@by_learner
def test_linear_kernel_learns_what_the_primal_learner_learns(name, params, kind):
    X, y = stream(n=80, seed=3, density=0.7)
    primal, dual = make(name, params), make(name, params, kernel="linear")
    rp, rd = olearn.run(primal, layout(X, kind), y), olearn.run(dual, layout(X, kind), y)
    assert list(rd.predictions) == list(rp.predictions)
    assert_array_equal(rd.cumulative_mistakes, rp.cumulative_mistakes)
    assert_allclose(rd.scores, rp.scores, rtol=1e-10, atol=1e-12)
    assert_allclose(rd.taus, rp.taus, rtol=1e-10, atol=1e-12)
    assert_allclose(dual.coef_, primal.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(dual.intercept_, primal.intercept_, rtol=1e-10, atol=1e-12)
    assert_array_equal(dual.predict(X), primal.predict(X))
    # the primal prototypes are the support vectors weighted by the dual coefficients
    assert_allclose(dual.dual_coef_ @ dual.support_vectors_.toarray(), primal.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kernel", list(KERNELS))
@by_learner
def test_kernel_learner_matches_the_numpy_dual_transcription(name, params, kernel):
    settings, function = KERNELS[kernel]
    X, y = stream(n=60, seed=5, density=0.8)
    est = make(name, params, **settings)
    res = olearn.run(est, X, y)
    trace, support = oracle.kernel_multi_prototype(X, y, oracle.for_estimator(name, params), function,
                                                   fit_intercept=params.get("fit_intercept", False))
    assert_dual_matches(est, res, trace, support)
    # decision_function after learning: sum_i alpha_ia K'(x_i, x)
    offset = 1.0 if params.get("fit_intercept", False) else 0.0
    gram = np.array([[function(s, x) + offset for s in support] for x in X[:7]]).reshape(7, len(support))
    assert_allclose(est.decision_function(X[:7]), gram @ trace.coef.T, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("policy", ["oldest", "smallest"])
@pytest.mark.parametrize("name, params", [LEARNERS[0], LEARNERS[5], LEARNERS[9]], ids=["PA-I", "Perceptron", "MIRA"])
def test_budget_evictions_match_the_transcription(name, params, policy):
    X, y = stream(n=90, seed=8)
    est = make(name, params, kernel="poly", degree=2, coef0=1.0, budget=7, budget_policy=policy)
    res = olearn.run(est, sp.csr_matrix(X), y)
    trace, support = oracle.kernel_multi_prototype(X, y, oracle.for_estimator(name, params),
                                                   oracle.poly_kernel(2, 1.0, 1.0),
                                                   fit_intercept=params.get("fit_intercept", False), budget=7,
                                                   policy=policy)
    assert res.n_updates > 20  # the budget was hit many times
    assert_dual_matches(est, res, trace, support)


@pytest.mark.parametrize("policy", ["oldest", "random", "smallest"])
@pytest.mark.parametrize("budget", [1, 4, 25])
def test_the_support_set_never_exceeds_the_budget(policy, budget):
    X, y = stream(n=120, seed=2)
    est = mc.MulticlassPerceptron(update="uniform", kernel="rbf", gamma=2.0, budget=budget, budget_policy=policy,
                                  random_state=0)
    sizes = []
    for x, label in zip(X, y):
        est.learn_one(x, label)
        sizes.append(est.n_support_)
    assert max(sizes) == budget
    assert all(b - a in (0, 1) or (a == budget and b == budget) for a, b in itertools.pairwise(sizes))
    twin = mc.MulticlassPerceptron(update="uniform", kernel="rbf", gamma=2.0, budget=budget, budget_policy=policy,
                                   random_state=0)
    assert olearn.run(twin, X, y).support_sizes.tolist() == sizes
    assert olearn.run(mc.MulticlassPerceptron(), X, y).support_sizes.size == 0  # the primal form has none
    rows = {tuple(row) for row in X}
    assert all(tuple(row) in rows for row in est.support_vectors_.toarray())
    assert est.dual_coef_.shape == (len(est.classes_), est.n_support_)


def test_random_evictions_are_seeded():
    X, y = stream(n=100, seed=4)

    def learn(seed):
        est = mc.PAMulticlass(kernel="poly", degree=2, budget=5, budget_policy="random", random_state=seed)
        return est.partial_fit(X, y).support_vectors_.toarray()

    assert_array_equal(learn(3), learn(3))
    assert not np.array_equal(learn(3), learn(4))


def test_tau_uses_the_kernel_norm_of_x():
    # row 0 (label a): no rival. Row 1 (label b): scores 0, loss 1, K(x, x) = (0 + 4 + 1)^2 = 25,
    # ||z||^2 = 2 K(x, x) = 50, so PA's tau is 1/50 (the linear norm would give 1/8).
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    est = mc.PAMulticlass(variant="pa", kernel="poly", degree=2, coef0=1.0)
    res = olearn.run(est, X, ["a", "b"])
    assert_allclose(res.taus, [0.0, 1.0 / 50.0])
    assert_allclose(est.dual_coef_, [[-1.0 / 50.0], [1.0 / 50.0]])
    # MIRA's A is K(x, x) + 1 with the intercept: theta solves the 2-class program in closed form,
    # tau_y = min(1, beta / (2 A)) with A = 26
    mira = mc.MIRA(beta=1.0, kernel="poly", degree=2, coef0=1.0, fit_intercept=True)
    assert_allclose(olearn.run(mira, X, ["a", "b"]).taus, [0.0, 1.0 / 52.0])
    # PA-I clips at C
    capped = mc.PAMulticlass(variant="pa1", C=0.001, kernel="poly", degree=2, coef0=1.0)
    assert_allclose(olearn.run(capped, X, ["a", "b"]).taus, [0.0, 0.001])


def test_a_callable_kernel_learns_what_the_compiled_kernel_learns():
    X, y = stream(n=40, seed=6, density=0.7)
    compiled = mc.MIRA(beta=0.3, kernel="poly", degree=3, coef0=0.5, fit_intercept=True, budget=9)
    python = mc.MIRA(beta=0.3, kernel=lambda A, B: (A @ B.T + 0.5) ** 3, fit_intercept=True, budget=9)
    rc, rp = olearn.run(compiled, X, y), olearn.run(python, sp.csr_matrix(X), y)
    assert list(rc.predictions) == list(rp.predictions)
    assert_allclose(rp.scores, rc.scores, rtol=1e-9, atol=1e-12)
    assert_allclose(python.dual_coef_, compiled.dual_coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(python.decision_function(X), compiled.decision_function(X), rtol=1e-9, atol=1e-12)
    python.learn_one(X[0], y[0])
    compiled.learn_one(X[0], y[0])
    assert_allclose(python.dual_coef_, compiled.dual_coef_, rtol=1e-9, atol=1e-12)
