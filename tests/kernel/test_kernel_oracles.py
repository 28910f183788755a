"""The kernel learners against independent references.

* ``kernel="linear"`` against the primal learner (a different compiled
  kernel, and an identity of the paper: w = sum_i alpha_i x_i);
* the polynomial and RBF kernels against the plain-NumPy dual transcription
  of tests/oracles/kernel.py, on dense, CSR and CSC input;
* tau uses K(x, x), on a case worked by hand where K(x, x) != ||x||^2.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from oracles import kernel as oracle

import olearn

TOL = {"rtol": 1e-10, "atol": 1e-10}


def _stream(n=80, d=7, seed=0, density=0.6, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    X /= np.sqrt(d * density)
    u = rng.standard_normal(d)
    if regression:
        return X, X @ u + 0.1 * rng.standard_normal(n)
    y = np.where(X @ u > 0, 1, -1)
    y[rng.random(n) < 0.15] *= -1
    y[0], y[1] = 1, -1
    return X, y


def _layout(X, layout):
    return {"dense": X, "csr": sp.csr_matrix(X), "csc": sp.csc_matrix(X)}[layout]


# -- kernel="linear" is the primal learner ----------------------------------------------------------------

PRIMAL_CASES = [
    ("PAClassifier", {"variant": "pa"}),
    ("PAClassifier", {"variant": "pa1", "C": 0.3}),
    ("PAClassifier", {"variant": "pa1", "C": 5.0, "fit_intercept": True}),
    ("PAClassifier", {"variant": "pa2", "C": 0.5}),
    ("PAClassifier", {"variant": "pa2", "C": 2.0, "fit_intercept": True}),
    ("Perceptron", {}),
    ("Perceptron", {"eta": 0.3, "fit_intercept": True}),
    ("PARegressor", {"variant": "pa", "epsilon": 0.0}),
    ("PARegressor", {"variant": "pa1", "C": 0.2, "epsilon": 0.05, "fit_intercept": True}),
    ("PARegressor", {"variant": "pa2", "C": 1.0, "epsilon": 0.1}),
]


@pytest.mark.parametrize("name, params", PRIMAL_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_linear_kernel_reproduces_the_primal_learner(name, params, layout):
    cls = getattr(olearn, name)
    X, y = _stream(regression=name == "PARegressor")
    data = _layout(X, layout)
    primal, dual = cls(**params), cls(kernel="linear", **params)
    rp, rd = olearn.run(primal, data[:60], y[:60]), olearn.run(dual, data[:60], y[:60])
    assert_allclose(rd.scores, rp.scores, **TOL)
    assert_allclose(rd.taus, rp.taus, **TOL)
    assert_allclose(rd.losses, rp.losses, **TOL)
    if name == "PARegressor":
        assert_allclose(rd.predictions, rp.predictions, **TOL)
    else:
        assert_array_equal(rd.predictions, rp.predictions)
    assert rd.n_updates == rp.n_updates > 10
    assert_array_equal(rd.support_sizes, np.cumsum(rp.taus != 0))
    assert rp.support_sizes.size == 0
    # w = sum_i alpha_i x_i, and the models keep agreeing on unseen rows
    assert_allclose(dual.coef_, primal.coef_, **TOL)
    assert_allclose(dual.intercept_, primal.intercept_, **TOL)
    assert_allclose(dual.predict(data[60:]), primal.predict(data[60:]), **TOL)
    if name != "PARegressor":
        assert_allclose(dual.decision_function(data[60:]), primal.decision_function(data[60:]), **TOL)


# -- poly and rbf against the NumPy dual transcription ------------------------------------------------------

ORACLE_CASES = [
    ("PAClassifier", "pa", {"kernel": "poly", "degree": 3, "gamma": 1.0, "coef0": 0.0}),
    ("PAClassifier", "pa1", {"kernel": "poly", "degree": 2, "gamma": 0.7, "coef0": 1.0, "C": 0.5}),
    ("PAClassifier", "pa2", {"kernel": "rbf", "gamma": 0.8, "C": 2.0}),
    ("PAClassifier", "pa1", {"kernel": "rbf", "gamma": 2.0, "C": 1.0, "fit_intercept": True}),
    ("PAClassifier", "pa2", {"kernel": "poly", "degree": 4, "gamma": 0.5, "coef0": 0.5, "C": 0.3,
                             "fit_intercept": True}),
    ("Perceptron", "perceptron", {"kernel": "rbf", "gamma": 1.5, "eta": 0.5}),
    ("Perceptron", "perceptron", {"kernel": "poly", "degree": 2, "coef0": 1.0, "fit_intercept": True}),
    ("PARegressor", "pa", {"kernel": "rbf", "gamma": 1.0, "epsilon": 0.05}),
    ("PARegressor", "pa1", {"kernel": "poly", "degree": 2, "coef0": 1.0, "C": 0.4, "epsilon": 0.1}),
    ("PARegressor", "pa2", {"kernel": "rbf", "gamma": 0.3, "C": 3.0, "epsilon": 0.0, "fit_intercept": True}),
]


def _oracle_args(name, rule, params):
    args = dict(params)
    args["rule"] = rule
    args["policy"] = args.pop("budget_policy", "oldest")
    args["seed"] = args.pop("random_state", 0)
    if name == "PARegressor":
        args["task"] = "regression"
    return args


def _estimator(name, rule, params):
    params = dict(params)
    if name != "Perceptron":
        params["variant"] = rule
    return getattr(olearn, name)(**params)


@pytest.mark.parametrize("name, rule, params", ORACLE_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("layout", ["dense", "csr", "csc"])
def test_kernel_learner_matches_the_dual_transcription(name, rule, params, layout):
    X, y = _stream(n=70, seed=4, regression=name == "PARegressor")
    args = _oracle_args(name, rule, params)
    expected = oracle.dual_learner(X, y, **args)
    est = _estimator(name, rule, params)
    res = olearn.run(est, _layout(X, layout), y)
    assert_allclose(res.scores, expected.scores, **TOL)
    assert_allclose(res.losses, expected.losses, **TOL)
    assert_allclose(res.taus, expected.taus, **TOL)
    assert_array_equal(res.support_sizes, expected.sizes)
    assert sum(t != 0 for t in expected.taus) > 10
    assert_allclose(est.dual_coef_.ravel(), expected.alphas, **TOL)
    assert_allclose(est.support_vectors_.toarray(), np.array(expected.support), **TOL)
    kernel_params = {k: v for k, v in params.items() if k in ("kernel", "degree", "gamma", "coef0", "fit_intercept")}
    scores = est.predict(X) if name == "PARegressor" else est.decision_function(X)
    assert_allclose(scores, expected.decision(X, **kernel_params), **TOL)


@pytest.mark.parametrize("policy", ["oldest", "random", "smallest"])
@pytest.mark.parametrize("name, rule, params", ORACLE_CASES[1::3], ids=lambda v: str(v))
def test_budgeted_learner_matches_the_dual_transcription(policy, name, rule, params):
    X, y = _stream(n=90, seed=8, regression=name == "PARegressor")
    params = {**params, "budget": 6, "budget_policy": policy, "random_state": 12345}
    expected = oracle.dual_learner(X, y, **_oracle_args(name, rule, params))
    est = _estimator(name, rule, params)
    res = olearn.run(est, sp.csr_matrix(X), y)
    assert len(expected.removed) > 10
    assert_allclose(res.scores, expected.scores, **TOL)
    assert_allclose(res.taus, expected.taus, **TOL)
    assert_array_equal(res.support_sizes, expected.sizes)
    assert_allclose(est.dual_coef_.ravel(), expected.alphas, **TOL)
    assert_allclose(est.support_vectors_.toarray(), np.array(expected.support), **TOL)


def test_splitmix64_matches_its_published_output():
    # the first outputs of SplitMix64 from state 0 (the reference generator of Steele, Lea & Flood)
    state, first = oracle.splitmix64(0)
    _, second = oracle.splitmix64(state)
    assert (first, second) == (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4)


# -- tau uses K(x, x) ----------------------------------------------------------------------------------------


def test_pa_tau_uses_the_kernel_norm_worked_by_hand():
    """x1 = (1, 1), y1 = +1, then x2 = (1, 0), y2 = -1, with K(x, x') = (x.x' + 1)^2.

    K(x1, x1) = 9 while ||x1||^2 = 2; K(x1, x2) = 4; K(x2, x2) = 4 while ||x2||^2 = 1.
    PA: tau1 = 1/9; f(x2) = 4/9, loss 13/9, tau2 = 13/36.
    PA-I, C = 0.1: tau1 = min(0.1, 1/9) = 0.1; f(x2) = 0.4, tau2 = min(0.1, 1.4/4) = 0.1.
    PA-II, C = 1: tau1 = 1/(9 + 1/2) = 2/19; f(x2) = 8/19, tau2 = (27/19)/(4 + 1/2) = 6/19.
    """
    X = np.array([[1.0, 1.0], [1.0, 0.0]])
    cases = {
        ("pa", 1.0): (1 / 9, 4 / 9, 13 / 36),
        ("pa1", 0.1): (0.1, 0.4, 0.1),
        ("pa2", 1.0): (2 / 19, 8 / 19, 6 / 19),
    }
    for (variant, C), (tau1, score2, tau2) in cases.items():
        est = olearn.PAClassifier(variant=variant, C=C, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
        res = olearn.run(est, X, [1, -1])
        assert_allclose(res.taus, [tau1, tau2], rtol=1e-14)
        assert_allclose(res.scores, [0.0, score2], rtol=1e-14)
        assert_allclose(est.dual_coef_, [[tau1, -tau2]], rtol=1e-14)


def test_rbf_has_unit_kernel_norm_whatever_the_scale_of_x():
    """K(x, x) = 1 for the RBF kernel: PA's first step is the loss itself, 1, even for a long x."""
    res = olearn.run(olearn.PAClassifier(variant="pa", kernel="rbf", gamma=0.1), np.array([[30.0, 40.0]]), [1])
    assert res.taus[0] == pytest.approx(1.0, rel=1e-15)
    res = olearn.run(olearn.PAClassifier(variant="pa"), np.array([[30.0, 40.0]]), [1])
    assert res.taus[0] == pytest.approx(1 / 2500, rel=1e-15)


def test_pa_makes_zero_loss_on_the_example_it_learned():
    """PA's invariant (Crammer et al. 2006, Eq. 3) in the kernel's feature space: after the update y f(x) = 1."""
    X, y = _stream(n=40, seed=3)
    for kernel in ("poly", "rbf"):
        est = olearn.PAClassifier(variant="pa", kernel=kernel, degree=3, coef0=1.0, gamma=0.5)
        for row, label in zip(X, y):
            est.learn_one(row, label)
            assert label * est.decision_function(row[None, :])[0] >= 1 - 1e-9
