"""Each bound on tiny streams whose R, margins and losses are worked out by hand."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import PAClassifier, Perceptron, run
from olearn.bounds import (
    novikoff_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    pa_unit_norm_bound,
    perceptron_bound,
    winnow_gamma_bound,
)


def test_novikoff_by_hand():
    X = [[3.0, 4.0], [-1.0, 0.0]]  # ||x||: 5, 1 -> R = 5
    y = [1, -1]
    # u = (1, 0): y u.x = 3, 1 -> gamma = 1 -> (5 / 1)^2
    assert novikoff_bound(X, y, [1.0, 0.0]) == 25.0
    # the bound does not depend on the scale of u
    assert novikoff_bound(X, y, [7.0, 0.0]) == pytest.approx(25.0, rel=1e-15)
    # u = (1, 1): y u.x = 7, 1, ||u|| = sqrt 2 -> gamma = 1/sqrt 2 -> 25 * 2
    assert novikoff_bound(X, y, [1.0, 1.0]) == pytest.approx(50.0, rel=1e-15)


def test_novikoff_is_inf_when_u_does_not_separate():
    X = [[3.0, 4.0], [-1.0, 0.0]]
    assert novikoff_bound(X, [1, -1], [0.0, 1.0]) == math.inf  # zero margin on row 1
    assert novikoff_bound(X, [1, -1], [-1.0, 0.0]) == math.inf  # wrong side everywhere
    assert novikoff_bound(X, [1, -1], [0.0, 0.0]) == math.inf


@pytest.mark.parametrize("scale", [1e-160, 1e-300, 1e150])
def test_novikoff_of_a_tiny_or_huge_u_is_its_plain_value(scale):
    # one row x = (3, 4), u = scale * (1, 0): R^2 = 25, ||u||^2 = scale^2, gamma = 3 scale / scale = ... the margin
    # y u.x = 3 scale; (R ||u|| / margin)^2 = 25 / 9 whatever the scale, though margin^2 and R^2 ||u||^2 under- or
    # overflow (1e-160 squares to 1e-320, below the smallest normal double; 1e-300 to 0; 1e150 squared times 25 to inf)
    assert novikoff_bound([[3.0, 4.0]], [1], [scale, 0.0]) == pytest.approx(25.0 / 9.0, rel=1e-12)
    # the same for rows of that scale: R^2 = 25 scale^2, margin 3 scale
    assert novikoff_bound([[3.0 * scale, 4.0 * scale]], [1], [1.0, 0.0]) == pytest.approx(25.0 / 9.0, rel=1e-12)
    # a margin that small against rows of norm 5 (x_2 = (scale, 1), u = (1, 0)): 25 / scale^2 is beyond any double
    if scale < 1:
        assert novikoff_bound([[3.0, 4.0], [scale, 1.0]], [1, 1], [1.0, 0.0]) == math.inf


def test_novikoff_with_intercept_uses_the_augmented_rows():
    # rows become (1, 1) and (-1, 1): R^2 = 2
    X, y = [[1.0], [-1.0]], [1, -1]
    assert novikoff_bound(X, y, [1.0, 0.0], fit_intercept=True) == pytest.approx(2.0, rel=1e-15)
    # u = (1, 0.5): margins 1.5 and 0.5, ||u||^2 = 1.25 -> 2 * 1.25 / 0.25
    assert novikoff_bound(X, y, [1.0, 0.5], fit_intercept=True) == pytest.approx(10.0, rel=1e-14)


def test_novikoff_is_attained_on_orthonormal_rows():
    # x_t = e_t, all labels +1, u = (1, ..., 1): R = 1, gamma = 1/sqrt(d) -> bound d.
    # Every score is 0 when e_t first shows up, so the Perceptron updates d times
    # (the proof bounds updates; with one class seen, olearn predicts it and counts no mistake).
    d = 6
    X, y = np.eye(d), np.ones(d)
    bound = novikoff_bound(X, y, np.ones(d))
    assert bound == pytest.approx(d, rel=1e-12)
    assert run(Perceptron(), X, y).n_updates == d


def _thm2(L, w2):
    """000 Thm. 2 as printed: L + 1/2 ||w||^2 (1 + sqrt(1 + 4 L / ||w||^2))."""
    return L + 0.5 * w2 * (1.0 + math.sqrt(1.0 + 4.0 * L / w2))


def test_perceptron_bound_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [2.0, 0.0]])
    y = np.array([1, 1, -1, -1, -1])
    res = run(Perceptron(), X, y)
    updated = res.taus > 0
    # w: 0 -> (1,0) -> (1,1) -> (0,0) -> (1,0); round 4: score 2, y = -1 -> update
    assert updated.tolist() == [True, True, True, True, True]
    u = np.array([1.0, 0.0])
    # y u.x = 1, 0, -1, 1, -2 -> hinge 0, 1, 2, 0, 3 ; R^2 = 4, ||u|| = 1: Thm. 2 on x / 2 and 2u
    assert perceptron_bound(X, y, u) == pytest.approx(_thm2(6.0, 4.0), rel=1e-15)
    assert perceptron_bound(X, y, u) == pytest.approx(6.0 + 2.0 + math.sqrt(4.0 + 24.0), rel=1e-15)
    assert res.n_mistakes <= perceptron_bound(X, y, u)
    # a mask that drops rounds 2 and 4 drops their losses
    mask = np.array([True, True, False, True, False])
    assert perceptron_bound(X, y, u, mistakes=mask) == pytest.approx(_thm2(1.0, 4.0), rel=1e-15)


def test_perceptron_bound_is_thm_2_on_a_unit_stream():
    X = np.array([[1.0, 0.0], [-0.5, 0.0]])
    y = np.array([1, 1])
    u = np.array([2.0, 0.0])  # y u.x = 2, -1 -> hinge 0, 2 ; R = 1, ||u||^2 = 4
    assert perceptron_bound(X, y, u) == pytest.approx(_thm2(2.0, 4.0), rel=1e-15)
    assert perceptron_bound(X, y, u) == pytest.approx(2.0 + 2.0 + 2.0 * math.sqrt(3.0), rel=1e-15)
    assert perceptron_bound(X, y, u, mistakes=[True, False]) == pytest.approx(4.0, rel=1e-15)


def test_perceptron_bound_is_the_minimum_of_eq_24_over_C():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(rng.random(30) < 0.5, 1, -1)
    u = rng.normal(size=3)
    L = np.maximum(0.0, 1.0 - y * (X @ u)).sum()
    C = np.linspace(1e-4, 2.0 - 1e-4, 200_001)
    grid = (0.5 * (u @ u) + C * L) / (C * (1.0 - 0.5 * C))  # Eq. (24)
    bound = perceptron_bound(X, y, u)
    assert bound <= grid.min() * (1 + 1e-12)
    assert bound == pytest.approx(grid.min(), rel=1e-6)


def test_perceptron_bound_with_zero_u_counts_every_round():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    assert perceptron_bound(X, [1, -1, 1], np.zeros(2)) == 3.0  # L = m, ||u|| = 0


def test_perceptron_bound_with_zero_loss_is_novikoff():
    X = np.array([[3.0, 4.0], [-1.0, 0.0], [2.0, -1.0]])
    y = np.array([1, -1, 1])
    u = np.array([1.0, 0.0])  # min margin 1: u has no hinge loss
    assert perceptron_bound(X, y, u) == pytest.approx(novikoff_bound(X, y, u), rel=1e-14)


def test_pa_separable_by_hand():
    X, y = [[2.0, 0.0], [0.0, -1.0]], [1, -1]
    assert pa_separable_bound(X, y, [0.5, 1.0]) == pytest.approx(1.25 * 4.0, rel=1e-15)
    assert pa_separable_bound(X, y, [1.0, 3.0]) == pytest.approx(10.0 * 4.0, rel=1e-15)
    assert pa_separable_bound(X, y, [0.4, 1.0]) == math.inf  # margin 0.8 on row 0


def test_pa_separable_is_attained_on_orthonormal_rows():
    # PA on e_1..e_d with labels +1: every loss is 1 -> sum of squares d = ||u||^2 R^2 for u = 1
    d = 5
    X, y = np.eye(d), np.ones(d)
    res = run(PAClassifier(variant="pa"), X, y)
    assert np.sum(res.losses**2) == pytest.approx(d)
    assert pa_separable_bound(X, y, np.ones(d)) == pytest.approx(d, rel=1e-15)


def test_pa_unit_norm_by_hand():
    X = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    y = [1, 1, -1]
    # u = (2, 0): y u.x = 2, 0, -1.2 -> losses 0, 1, 2.2 -> squares sum 5.84
    expected = (2.0 + 2.0 * math.sqrt(5.84)) ** 2
    assert pa_unit_norm_bound(X, y, [2.0, 0.0]) == pytest.approx(expected, rel=1e-14)
    # u = 0: every loss is 1 -> (0 + 2 sqrt 3)^2 = 12
    assert pa_unit_norm_bound(X, y, [0.0, 0.0]) == pytest.approx(12.0, rel=1e-14)


def test_pa_unit_norm_refuses_other_norms():
    with pytest.raises(ValueError, match=r"row 1 has \|\|x_t\|\| = 0\.5"):
        pa_unit_norm_bound([[1.0, 0.0], [0.5, 0.0]], [1, -1], [1.0, 0.0])
    with pytest.raises(ValueError, match="row 0"):
        # the augmented row (1, 0, 1) has norm sqrt 2
        pa_unit_norm_bound([[1.0, 0.0]], [1], [1.0, 0.0, 0.0], fit_intercept=True)
    # within the tolerance it applies; outside it does not
    X = [[1.0 + 1e-12, 0.0]]
    assert pa_unit_norm_bound(X, [1], [1.0, 0.0]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="tolerance"):
        pa_unit_norm_bound([[1.001, 0.0]], [1], [1.0, 0.0], tol=1e-6)


def test_pa1_by_hand():
    X = [[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]]
    y = [1, 1, -1]
    u = [1.0, 0.0]  # y u.x = 1, 0, -1 -> losses 0, 1, 2 (sum 3); R^2 = 4
    assert pa1_mistake_bound(X, y, u, C=0.5) == pytest.approx(4.0 * (1.0 + 2 * 0.5 * 3), rel=1e-15)
    # 1/C = 10 > R^2
    assert pa1_mistake_bound(X, y, u, C=0.1) == pytest.approx(10.0 * (1.0 + 2 * 0.1 * 3), rel=1e-15)
    assert pa1_mistake_bound(X, y, u, C=math.inf) == math.inf
    # C = inf with a loss-free u: R^2 ||u||^2
    assert pa1_mistake_bound(X[:2], y[:2], [1.0, 0.5], C=math.inf) == pytest.approx(4.0 * 1.25, rel=1e-15)


def test_pa2_by_hand():
    X = [[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]]
    y = [1, 1, -1]
    u = [1.0, 0.0]  # losses 0, 1, 2 -> squares sum 5
    assert pa2_loss_bound(X, y, u, C=0.5) == pytest.approx((4.0 + 1.0) * (1.0 + 2 * 0.5 * 5), rel=1e-15)
    assert pa2_loss_bound(X, y, u, C=2.0) == pytest.approx((4.0 + 0.25) * (1.0 + 2 * 2.0 * 5), rel=1e-15)
    assert pa2_loss_bound(X, y, u, C=math.inf) == math.inf
    assert pa2_loss_bound(X[:2], y[:2], [1.0, 0.5], C=math.inf) == pytest.approx(4.0 * 1.25, rel=1e-15)


def test_labels_are_mapped_like_the_estimators():
    # classes sorted: "ham" -> -1, "spam" -> +1
    X = np.array([[3.0, 4.0], [-1.0, 0.0]])
    named = novikoff_bound(X, ["spam", "ham"], [1.0, 0.0])
    assert named == novikoff_bound(X, [1, -1], [1.0, 0.0]) == 25.0
    assert novikoff_bound(X, [1, 0], [1.0, 0.0]) == 25.0
    assert novikoff_bound(X, ["ham", "spam"], [1.0, 0.0]) == math.inf
    # one class shown: -1 and +1 are taken literally
    # y u.x = -1 * (-0.5 * 3) = 1.5: no loss -> max(R^2, 1/C) ||u||^2 = 25 * 0.25
    assert pa1_mistake_bound(X[:1], [-1], [-0.5, 0.0], C=1.0) == pytest.approx(6.25)
    assert pa1_mistake_bound(X[:1], [1], [-0.5, 0.0], C=1.0) == pytest.approx(25.0 * (0.25 + 2 * 2.5))


def test_sparse_input_gives_the_dense_values():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 6)) * (rng.random((30, 6)) < 0.4)
    y = np.where(rng.random(30) < 0.5, 1, -1)
    u = rng.normal(size=6)
    for fn, kwargs in [
        (novikoff_bound, {}),
        (perceptron_bound, {}),
        (pa_separable_bound, {}),
        (pa1_mistake_bound, {"C": 0.3}),
        (pa2_loss_bound, {"C": 0.3}),
    ]:
        assert fn(sp.csr_matrix(X), y, u, **kwargs) == pytest.approx(fn(X, y, u, **kwargs), rel=1e-13)
        assert fn(sp.csc_matrix(X), y, u, **kwargs) == pytest.approx(fn(X, y, u, **kwargs), rel=1e-13)


def test_pa_bounds_with_C_inf_on_zero_rows_are_their_limits_not_nan():
    """R = 0 and C = inf: max{R^2, s/C}(||u||^2 + 2C L) -> 2sL and (R^2 + 1/2C)(||u||^2 + 2C L2) -> L2.

    Three zero rows: every competitor has margin 0, so hinge loss 1 a round
    (2 with the cost-sensitive margin sqrt(rho) = 2).
    """
    from olearn.bounds import (cost_sensitive_bound, multiclass_pa1_mistake_bound, multiclass_pa2_loss_bound,
                               multilabel_pa1_mistake_bound, multilabel_pa2_loss_bound, pa1_mistake_bound,
                               pa2_loss_bound)

    X, inf = np.zeros((3, 2)), float("inf")
    U = [[1.0, 0.0], [0.0, 1.0]]
    assert pa1_mistake_bound(X, [1, -1, 1], u=[1.0, 0.0], C=inf) == 6.0
    assert pa2_loss_bound(X, [1, -1, 1], u=[1.0, 0.0], C=inf) == 3.0
    assert multiclass_pa1_mistake_bound(X, ["a", "b", "a"], U=U, C=inf, classes_known=True) == 6.0
    assert multiclass_pa2_loss_bound(X, ["a", "b", "a"], U=U, C=inf) == 3.0
    assert multilabel_pa1_mistake_bound(X, [[0], [1], [0]], U, C=inf, classes=[0, 1]) == 6.0
    assert multilabel_pa2_loss_bound(X, [[0], [1], [0]], U, C=inf, classes=[0, 1]) == 3.0
    cost = [[0.0, 4.0], [4.0, 0.0]]
    assert cost_sensitive_bound(X, [0, 1, 0], U=U, cost=cost, variant="pa1", C=inf, classes_known=True) == 24.0


@pytest.mark.parametrize("gamma", [1e-200, 1e-300])
def test_winnows_gamma_bound_of_a_tiny_margin_is_inf(gamma):
    # 2 (ln 4 / gamma^2 + 0): beyond the doubles, though gamma^2 itself underflows to 0
    assert winnow_gamma_bound([[1.0, 0.0], [0.0, -1.0]], [1, 1], u=[0.5, -0.5], gamma=gamma) == math.inf
    # and a plain one still by hand: gamma = 0.5 -> 2 ln 4 / 0.25
    assert winnow_gamma_bound([[1.0, 0.0], [0.0, -1.0]], [1, 1], u=[0.5, -0.5], gamma=0.5) == pytest.approx(
        8.0 * math.log(4.0), rel=1e-15)
