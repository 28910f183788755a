"""000's bounds as the text states them: Ex. 2 (Winnow, both forms), Ex. 3 (p-norm, minimised
over C), Thm. 3 and Eq. (30) (the aggressive update). References are written from the formulas."""

import math

import numpy as np
import pytest

import olearn
from olearn.bounds import (
    aggressive_dual_loss_bound,
    aggressive_dual_mistake_bound,
    mitigating_function,
    pnorm_mistake_bound,
    winnow_gamma_bound,
    winnow_mistake_bound,
)
from olearn.dual import DualAscent
from olearn.quasi_additive import Winnow


def _stream(seed, n, d, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < noise] *= -1
    y[:2] = [1, -1]
    return X, y


def _s(X, regularizer, p):
    """<x, H x> <= s_t: ||x||^2 (Ex. 1), ||x||_inf^2 (Ex. 2), (p - 1) ||x||_p^2 (Ex. 3)."""
    if regularizer == "l2":
        return (X**2).sum(1)
    if regularizer == "entropy":
        return np.abs(X).max(1) ** 2
    return (p - 1) * np.linalg.norm(X, p, axis=1) ** 2


def _F(u, regularizer, p):
    if regularizer == "l2":
        return 0.5 * u @ u
    if regularizer == "pnorm":
        return 0.5 * np.linalg.norm(u, p / (p - 1)) ** 2
    raise ValueError(regularizer)


# -- Ex. 3: the p-norm bound is the minimum over C of Thm. 1 -----------------------------------


@pytest.mark.parametrize("p", [2.0, 3.0, 5.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_pnorm_bound_is_the_minimum_over_C(p, seed):
    X, y = _stream(seed, 40, 4, noise=0.2)
    u = np.random.default_rng(seed).standard_normal(4) * 2
    s = (p - 1) * np.linalg.norm(X, p, axis=1).max() ** 2
    L = np.maximum(0.0, 1.0 - y * (X @ u)).sum()
    # Thm. 1 with the conservative step: M (C - C^2 s / 2) <= F(u) + C L, over a fine grid of C in (0, 2/s)
    C = np.linspace(1e-6, 2.0 / s - 1e-6, 400_001)
    grid = (_F(u, "pnorm", p) + C * L) / (C - 0.5 * C * C * s)
    bound = pnorm_mistake_bound(X, y, u, p)
    assert bound <= grid.min() * (1 + 1e-12)
    assert bound == pytest.approx(grid.min(), rel=1e-6)
    # and it is below the form L + b sqrt(L) + b^2 it replaced
    b2 = (p - 1) * np.linalg.norm(X, p, axis=1).max() ** 2 * np.linalg.norm(u, p / (p - 1)) ** 2
    assert bound < L + math.sqrt(b2 * L) + b2


# -- Sec. 5: mu, Thm. 3, Eq. (30) -------------------------------------------------------------


def test_mitigating_function_by_hand():
    # below C: x^2 / (2C); above: x - C / 2
    assert mitigating_function(0.3, 1.0) == pytest.approx(0.045, rel=1e-15)
    assert mitigating_function(3.0, 1.0) == pytest.approx(2.5, rel=1e-15)
    assert mitigating_function(1.0, 1.0) == pytest.approx(0.5, rel=1e-15)
    x = np.linspace(0, 5, 11)
    C = 0.7
    expected = np.minimum(x, C) * (x - 0.5 * np.minimum(x, C)) / C
    np.testing.assert_allclose(mitigating_function(x, C), expected, rtol=1e-15)


@pytest.mark.parametrize("C, gamma, lam", [(0.5, 1.0, 0.375), (2.0, 1.0, 0.5), (0.2, 0.5, 0.08)])
def test_eq_30_by_hand(C, gamma, lam):
    # lambda >= gamma C - C^2 / 2 (C <= gamma), gamma^2 / 2 (C > gamma)
    X = np.array([[0.6, 0.0], [0.0, 0.8]])
    u = np.array([3.0, 0.0])  # margins 1.8, 0 -> hinge at gamma: 0, gamma
    expected = (0.5 * 9.0 + C * gamma) / lam
    assert aggressive_dual_mistake_bound(X, [1, 1], u, C=C, gamma=gamma) == pytest.approx(expected, rel=1e-14)
    assert aggressive_dual_loss_bound(X, [1, 1], u, C=C, gamma=gamma) == pytest.approx(4.5 / C + gamma, rel=1e-14)


@pytest.mark.parametrize("regularizer", ["l2", "entropy", "pnorm"])
@pytest.mark.parametrize("update", ["aggressive", "last-k"])
@pytest.mark.parametrize("C", [0.3, 3.0])
def test_thm_3_and_eq_30_hold(regularizer, update, C):
    p = 3.0
    X, y = _stream(7, 150, 5, noise=0.1)
    X = X / np.sqrt(_s(X, regularizer, p).max())  # Thm. 3's condition
    gamma = 0.8
    est = DualAscent(regularizer=regularizer, p=p, update=update, k=2, C=C, gamma=gamma)
    res = olearn.run(est, X, y)
    measured = mitigating_function(res.losses, C).sum()
    rng = np.random.default_rng(0)
    for _ in range(5):
        u = rng.standard_normal(5)
        if regularizer == "entropy":
            u /= np.abs(u).sum()
        loss_bound = aggressive_dual_loss_bound(X, y, u, C, regularizer, p, gamma)
        mistake_bound = aggressive_dual_mistake_bound(X, y, u, C, regularizer, p, gamma)
        assert measured <= loss_bound * (1 + 1e-9)
        assert res.n_mistakes <= mistake_bound * (1 + 1e-9)
        hinge = np.maximum(0.0, gamma - y * (X @ u)).sum()
        if regularizer != "entropy":
            assert loss_bound == pytest.approx(_F(u, regularizer, p) / C + hinge, rel=1e-12)


def test_thm_3_refuses_instances_beyond_its_assumption():
    X = np.array([[0.5, 0.5], [1.0, 0.5]])
    with pytest.raises(ValueError, match="row 1"):
        aggressive_dual_loss_bound(X, [1, -1], [1.0, 0.0], C=1.0)
    with pytest.raises(ValueError, match=r"\|\|x_t\|\|_inf\^2 <= 1.*row 0"):
        aggressive_dual_mistake_bound([[2.0, 0.0]], [1], [0.5, 0.0], C=1.0, regularizer="entropy")


# -- Ex. 2: Winnow, both forms -----------------------------------------------------------------


def test_winnow_bounds_by_hand():
    X = [[1.0, 0.0], [0.0, -1.0]]
    # n-simplex: u = (1, 0) -> F = ln 2; margins 1, 0 -> hinge at gamma 0.5: 0, 0.5
    C, gamma = 0.5, 0.5
    expected = (math.log(2) + C * 0.5) / (gamma * C - C * C / 2)
    assert winnow_mistake_bound(X, [1, 1], [1.0, 0.0], C=C, gamma=gamma, balanced=False) == pytest.approx(expected)
    # off the simplex the bound says nothing
    assert winnow_mistake_bound(X, [1, 1], [0.5, -0.5], C=C, gamma=gamma, balanced=False) == math.inf
    # the C = gamma form: 2 (ln n / gamma^2 + L / gamma)
    assert winnow_gamma_bound(X, [1, 1], [1.0, 0.0], gamma, balanced=False) == pytest.approx(
        2 * (math.log(2) / 0.25 + 0.5 / 0.5))
    assert winnow_gamma_bound(X, [1, 1], [1.0, 0.0], gamma) == pytest.approx(2 * (math.log(4) / 0.25 + 0.5 / 0.5))


def test_winnow_gamma_bound_needs_unit_infinity_norms():
    with pytest.raises(ValueError, match=r"row 1 has \|\|x_t\|\|_inf = 1.5"):
        winnow_gamma_bound([[1.0, 0.0], [0.0, 1.5]], [1, 1], [1.0, 0.0], 0.5)


@pytest.mark.parametrize("balanced", [True, False])
@pytest.mark.parametrize("gamma", [0.2, 0.6])
def test_winnow_bounds_hold(balanced, gamma):
    rng = np.random.default_rng(4)
    n, d = 300, 6
    X = rng.uniform(-1, 1, size=(n, d))
    target = np.array([0.6, 0.4, 0, 0, 0, 0]) if not balanced else np.array([0.6, -0.4, 0, 0, 0, 0])
    y = np.where(X @ target > 0, 1, -1)
    y[rng.random(n) < 0.05] *= -1
    est = Winnow(C=gamma, balanced=balanced)
    res = olearn.run(est, X, y)
    for u in (target, np.full(d, 1.0 / d)):
        assert res.n_mistakes <= winnow_mistake_bound(X, y, u, C=gamma, gamma=gamma, balanced=balanced)
        assert res.n_mistakes <= winnow_gamma_bound(X, y, u, gamma, balanced=balanced)
        assert winnow_mistake_bound(X, y, u, C=gamma, gamma=gamma, balanced=balanced) <= winnow_gamma_bound(
            X, y, u, gamma, balanced=balanced) * (1 + 1e-12)
