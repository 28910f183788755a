"""The bounds on rows, competitors and margins so small or large that their squares leave the doubles.

Each reference is the closed form worked out by hand on the unscaled stream. A scale of 2^-565 (about 1.5e-170)
or 2^565 multiplies exactly, so rows times c and u divided by c keep every margin; R^2 then under- or overflows
(c^2 is about 2e-340 or 5e339) while R^2 ||u||^2 stays a plain number.
"""

import math

import numpy as np
import pytest

from olearn.bounds import (
    aggressive_dual_loss_bound,
    aggressive_dual_mistake_bound,
    aggressive_pnorm_bound,
    aggressive_pnorm_mistake_bound,
    arow_mistake_bound,
    cost_sensitive_bound,
    multiclass_pa1_mistake_bound,
    multiclass_pa2_loss_bound,
    multiclass_pa_bound,
    multilabel_pa1_mistake_bound,
    multilabel_pa2_loss_bound,
    multilabel_pa_separable_bound,
    ogd_hinge_regret_bound,
    orabona2010_arow_bound,
    pa1_mistake_bound,
    pa2_loss_bound,
    pa_separable_bound,
    perceptron_bound,
    pnorm_mistake_bound,
    regression_pa1_bound,
    regression_pa2_loss_bound,
    regression_pa_separable_bound,
    sequence_loss_bound,
    sop_mistake_bound,
    uniclass_pa1_bound,
    winnow_mistake_bound,
)

TINY, HUGE = 2.0**-565, 2.0**565

# ||x||: 5, 2 -> R^2 = 25
X = [[3.0, 4.0], [0.0, -2.0]]
Y = [1, -1]


def scaled(rows, c):
    return [[c * v for v in row] for row in rows]


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_perceptron_bound_is_invariant_to_rows_times_c_and_u_over_c(c):
    # u = (0.2, 0.2): margins 1.4, 0.4 -> L = 0.6; R^2 ||u||^2 = 25 * 0.08 = 2
    # -> L + (b^2 + b sqrt(b^2 + 4L)) / 2 = 0.6 + (2 + sqrt(2) sqrt(4.4)) / 2
    expected = 0.6 + 0.5 * (2.0 + math.sqrt(8.8))
    assert perceptron_bound(X, Y, [0.2, 0.2]) == pytest.approx(expected, rel=1e-14)
    assert perceptron_bound(scaled(X, c), Y, [0.2 / c, 0.2 / c]) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_pa_separable_bound_is_invariant_to_rows_times_c_and_u_over_c(c):
    # u = (1, 1): margins 7, 2 >= 1 -> ||u||^2 R^2 = 2 * 25
    assert pa_separable_bound(scaled(X, c), Y, [1.0 / c, 1.0 / c]) == pytest.approx(50.0, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE])
def test_pa1_and_pa2_with_C_inf_are_r2_u2_at_any_scale(c):
    # no loss (margins 7, 2): both bounds are R^2 ||u||^2 = 50 whatever the scale
    assert pa1_mistake_bound(scaled(X, c), Y, [1.0 / c, 1.0 / c], C=math.inf) == 50.0
    assert pa2_loss_bound(scaled(X, c), Y, [1.0 / c, 1.0 / c], C=math.inf) == 50.0


def test_pa1_and_pa2_of_tiny_rows_and_a_huge_u_are_plain_numbers():
    # rows times 2^-565, u = (0.5, 0.5) * 2^565 (margins 3.5, 1: no loss), C = 1e300:
    # R^2 = 25 * 2^-1130 < 1/C, so Thm. 4 gives ||u||^2 / C = 0.5 * 2^1130 / 1e300 (about 7e39),
    # Thm. 5 (R^2 + 1/2C) ||u||^2 = 12.5 + 0.25 * 2^1130 / 1e300; the float R^2 is 0 and ||u||^2 inf
    rows, u, C = scaled(X, TINY), [0.5 * HUGE, 0.5 * HUGE], 1e300
    pa1 = math.ldexp(0.5 / C, 1130)
    assert pa1_mistake_bound(rows, Y, u, C=C) == pytest.approx(pa1, rel=1e-12)
    assert pa2_loss_bound(rows, Y, u, C=C) == pytest.approx(12.5 + pa1 / 2.0, rel=1e-12)


def test_pa1_of_a_huge_bound_is_inf():
    # rows of norm 5 * 2^565, u = (1, 1), C = 1: R^2 ||u||^2 = 50 * 2^1130 is beyond the doubles
    assert pa1_mistake_bound(scaled(X, HUGE), Y, [1.0, 1.0], C=1.0) == math.inf
    assert pa_separable_bound(scaled(X, HUGE), Y, [1.0, 1.0]) == math.inf


def test_margins_of_huge_rows_and_u_with_opposite_terms_are_not_nan():
    # x = (2^565, 2^565), u = (2^500, -2^500) * 1.5: the terms of u.x overflow with opposite signs, the margin is 0
    # -> hinge loss 1; R^2 ||u||^2 = 2^1131 * 2 * 2.25 * 2^1000 is beyond the doubles, so the bound is inf; with
    # u = (2^-600, -2^-600) R^2 ||u||^2 = 2^1131 * 2^-1199 = 2^-68 and L = 1
    rows = [[HUGE, HUGE]]
    assert perceptron_bound(rows, [1], [1.5 * 2.0**500, -1.5 * 2.0**500]) == math.inf
    b2 = 2.0**-68
    expected = 1.0 + 0.5 * (b2 + math.sqrt(b2) * math.sqrt(b2 + 4.0))
    assert perceptron_bound(rows, [1], [2.0**-600, -(2.0**-600)]) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_regression_pa_bounds_are_invariant_to_rows_times_c_and_u_over_c(c):
    # X = (2, 0), (0, 1), y = (2, -1), u = (1, -1): predictions 2, -1 (no loss at epsilon 0.1); ||u||^2 R^2 = 2 * 4
    rows, u = scaled([[2.0, 0.0], [0.0, 1.0]], c), [1.0 / c, -1.0 / c]
    assert regression_pa_separable_bound(rows, [2.0, -1.0], u, epsilon=0.1) == pytest.approx(8.0, rel=1e-12)
    assert regression_pa1_bound(rows, [2.0, -1.0], u, epsilon=0.1, C=math.inf) == pytest.approx(8.0, rel=1e-12)
    assert regression_pa2_loss_bound(rows, [2.0, -1.0], u, epsilon=0.1, C=math.inf) == pytest.approx(8.0, rel=1e-12)


def test_regression_pa1_of_tiny_rows_and_a_huge_u_is_a_plain_number():
    # rows (2, 0), (0, 1) times 2^-565, u = (1, -1) * 2^565, y = (2, -1.5): losses 0, 0.4 at epsilon 0.1; C = 1e300:
    # R^2 = 4 * 2^-1130 < 1/C -> Thm. 4: ||u||^2 / C + 2 L = 2 * 2^1130 / 1e300 + 0.8
    rows, u = scaled([[2.0, 0.0], [0.0, 1.0]], TINY), [HUGE, -HUGE]
    expected = math.ldexp(2.0 / 1e300, 1130) + 0.8
    assert regression_pa1_bound(rows, [2.0, -1.5], u, epsilon=0.1, C=1e300) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_multiclass_bounds_are_invariant_to_rows_times_c_and_U_over_c(c):
    # X = I, U = ((1, -1), (-1, 1)): margins 2 (no loss); ||U||^2 R^2 = 4 * 2 (R^2 = 2 max ||x||^2)
    rows, U = scaled([[1.0, 0.0], [0.0, 1.0]], c), [[1.0 / c, -1.0 / c], [-1.0 / c, 1.0 / c]]
    assert multiclass_pa_bound(rows, ["a", "b"], U=U) == pytest.approx(8.0, rel=1e-12)
    assert multiclass_pa1_mistake_bound(rows, ["a", "b"], U=U, C=math.inf, classes_known=True) == pytest.approx(
        8.0, rel=1e-12)
    assert multiclass_pa2_loss_bound(rows, ["a", "b"], U=U, C=math.inf) == pytest.approx(8.0, rel=1e-12)
    # cost 4 off the diagonal: margins sqrt 4 = 2 needed; U doubled has margin 4: ||U||^2 R^2 = 16 * 2
    cost = [[0.0, 4.0], [4.0, 0.0]]
    U2 = [[2.0 * v for v in row] for row in U]
    assert cost_sensitive_bound(rows, [0, 1], U=U2, cost=cost, variant="pa", classes_known=True) == pytest.approx(
        32.0, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_multilabel_bounds_are_invariant_to_rows_times_c_and_U_over_c(c):
    # X = I, label 0 on x_1 and 1 on x_2, U = ((1, -1), (-1, 1)): margins 2; R^2 ||U||^2 = 2 * 4
    rows, U = scaled([[1.0, 0.0], [0.0, 1.0]], c), [[1.0 / c, -1.0 / c], [-1.0 / c, 1.0 / c]]
    assert multilabel_pa_separable_bound(rows, [[0], [1]], U) == pytest.approx(8.0, rel=1e-12)
    assert multilabel_pa1_mistake_bound(rows, [[0], [1]], U, C=math.inf) == pytest.approx(8.0, rel=1e-12)
    assert multilabel_pa2_loss_bound(rows, [[0], [1]], U, C=math.inf) == pytest.approx(8.0, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_pnorm_mistake_bound_is_invariant_to_rows_times_c_and_u_over_c(c):
    # p = 3, q = 3/2, u = (0.5, 0.5): margins 3.5, 1 -> L = 0, so the bound is
    # b^2 = (p - 1) R_3^2 ||u||_{3/2}^2 with R_3 = max(91^(1/3), 2), ||u||_{3/2} = (2 * 0.5^1.5)^(2/3)
    expected = 2.0 * 91.0 ** (2.0 / 3.0) * (2.0 * 0.5**1.5) ** (4.0 / 3.0)
    assert pnorm_mistake_bound(X, Y, [0.5, 0.5], p=3.0) == pytest.approx(expected, rel=1e-14)
    assert pnorm_mistake_bound(scaled(X, c), Y, [0.5 / c, 0.5 / c], p=3.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE])
def test_aggressive_pnorm_mistake_bound_with_C_inf_is_s_u_q2_at_any_scale(c):
    # X = I, u = (1, 1) (margins 1: no loss), p = 2: a = 1/s, lambda = 1/2s -> s ||u||^2 = c^2 * 2 / c^2 = 2
    rows = scaled([[1.0, 0.0], [0.0, 1.0]], c)
    assert aggressive_pnorm_mistake_bound(rows, [1, 1], [1.0 / c, 1.0 / c], p=2.0, C=math.inf) == pytest.approx(
        2.0, rel=1e-12)


def test_aggressive_pnorm_mistake_bound_of_tiny_rows_and_a_huge_u_is_a_plain_number():
    # X = I * 2^-565, u = (1, 1) * 2^565, p = 2, C = 1e300: s = 2^-1130 < 1/C, so a = C and
    # lambda = C - C^2 s / 2 = 1e300 (1 - 4e-41); no loss -> ||u||^2 / 2 / lambda = 2^1130 / 1e300 (about 1.4e40)
    rows = scaled([[1.0, 0.0], [0.0, 1.0]], TINY)
    expected = math.ldexp(1.0 / 1e300, 1130)
    assert aggressive_pnorm_mistake_bound(rows, [1, 1], [HUGE, HUGE], p=2.0, C=1e300) == pytest.approx(
        expected, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1.0])
def test_aggressive_pnorm_bound_of_scaled_rows_R_and_u_by_hand(c):
    # X = I * c, R = c, u = (1, 1) / c (margins 1: L = 0), p = q = 2; row 0 a mistake (score 0, eta 1), row 1 a
    # margin error (score 0.5, eta 0.5): A = ||u||^2 R^2 = 2, D = (0.25 c^2 + 2 * 0.5 * 0.5) / c^2 - 0.5
    # -> L + A/2 + sqrt(A) sqrt(A/4 + L + D) - 0.5 = 0.5 + sqrt(2 (0.25 + 0.5 / c^2)) = 0.5 + sqrt(0.5 + 1/c^2)
    rows, u = scaled([[1.0, 0.0], [0.0, 1.0]], c), [1.0 / c, 1.0 / c]
    expected = 0.5 + math.sqrt(0.5 + 1.0 / c / c) if c != TINY else 0.5 + HUGE * math.sqrt(1.0 + 0.5 * c * c)
    bound = aggressive_pnorm_bound(rows, [1, 1], u, 2.0, c, [1.0, 0.5], [0.0, 0.5])
    assert bound == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("c", [TINY, HUGE, 1e-170, 1e170])
def test_ogd_regret_bound_of_rows_times_c_and_U_over_c(c):
    # rows (3, 4), (0, 1) times c: R = 5 c, m = 2; U = 2 / c: sqrt(U^2 R^2 m) = sqrt(200) at every scale
    rows, U = scaled([[3.0, 4.0], [0.0, 1.0]], c), 2.0 / c
    assert ogd_hinge_regret_bound(rows, [1, -1], U=U) == pytest.approx(math.sqrt(200.0), rel=1e-12)


def test_ogd_regret_bound_whose_U_squared_overflows_is_a_plain_number():
    # U = 2^600, eta = 2^300, rows (3, 4), (0, 1) times 2^-565: U^2 / (2 eta) = 2^899 and eta m R^2 / 2 = 25 * 2^-830
    rows = scaled([[3.0, 4.0], [0.0, 1.0]], TINY)
    assert ogd_hinge_regret_bound(rows, [1, -1], U=2.0**600, eta=2.0**300) == pytest.approx(2.0**899, rel=1e-15)


def test_winnow_mistake_bound_with_a_tiny_margin_and_step():
    # u = 0 (F = 0, the uniform lift), rows of sup-norm 1, gamma = 2^-530, C = 2^-565: L = 2 gamma, and
    # C L / (gamma C - C^2 / 2) = 2 / (1 - C / 2 gamma) = 2 / (1 - 2^-36); gamma C = 2^-1095 is below the doubles
    X1 = [[1.0, 0.0], [0.0, -1.0]]
    assert winnow_mistake_bound(X1, [1, 1], u=[0.0, 0.0], C=TINY, gamma=2.0**-530) == pytest.approx(
        2.0 / (1.0 - 2.0**-36), rel=1e-15)


def test_aggressive_dual_bounds_of_a_huge_or_tiny_u():
    X1 = [[1.0, 0.0], [0.0, -1.0]]
    # u = (1, -1) * 2^565: margins 2^565, no loss; F(u) = ||u||^2 / 2 = 2^1130 -> F / C = 2^530 for C = 2^600
    assert aggressive_dual_loss_bound(X1, [1, 1], u=[HUGE, -HUGE], C=2.0**600) == pytest.approx(2.0**530, rel=1e-15)
    # u = (1, -1) * 2^-500, gamma = 2^-540 (margins above it, no loss), C = 1 > gamma:
    # C mu(gamma) = gamma^2 / 2 = 2^-1081 (below the doubles) -> F(u) / 2^-1081 = 2^-1000 / 2^-1081 = 2^81
    tiny_u = [2.0**-500, -(2.0**-500)]
    assert aggressive_dual_mistake_bound(X1, [1, 1], u=tiny_u, C=1.0, gamma=2.0**-540) == pytest.approx(
        2.0**81, rel=1e-15)


def test_uniclass_pa1_of_tiny_or_huge_distances():
    # Y = (2^-565, 0), u = 0, epsilon = 2^-566: loss 2^-566; C = 2^600 -> 0 + 2 C L = 2^35 (the float square of the
    # distance, 2^-1130, is 0, which made the loss 0)
    assert uniclass_pa1_bound([[TINY, 0.0]], u=[0.0, 0.0], epsilon=TINY / 2, C=2.0**600) == pytest.approx(
        2.0**35, rel=1e-15)
    # Y = (2^565, 2^565), u = 0, epsilon = 0: loss sqrt(2) 2^565; C = 2^-600 -> 2 C L = sqrt(2) 2^-34
    assert uniclass_pa1_bound([[HUGE, HUGE]], u=[0.0, 0.0], epsilon=0.0, C=2.0**-600) == pytest.approx(
        math.sqrt(2.0) * 2.0**-34, rel=1e-15)


SECOND_ORDER_X = [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def _arow_and_sop_by_hand(r):
    # rows (1, 0), (0, 2), (1, 1), y = (1, 1, -1), u = (1, 0.5): margins 1, 1, -1.5 -> hinge 0, 0, 2.5;
    # X_S = [[2, 1], [1, 5]], u^T X_S u = 1 + 1 + 2.25 = 4.25, ||u||^2 = 1.25;
    # det(I + X_S / r) = (1 + 2/r)(1 + 5/r) - 1/r^2. AROW: every round an update, rounds 0 and 2 mistakes (U = 1);
    # SOP: the mistakes 0 and 2 only, X_M = [[2, 1], [1, 1]], u^T X_M u = 1 + 2.25 = 3.25
    arow = 2.5 + math.sqrt((1.25 * r + 4.25) * (math.log((1 + 2 / r) * (1 + 5 / r) - 1 / r**2) + 1)) - 1
    sop = 2.5 + math.sqrt((1.25 * r + 3.25) * math.log((1 + 2 / r) * (1 + 1 / r) - 1 / r**2))
    return arow, sop


@pytest.mark.parametrize("c", [2.0**-520, 2.0**-300, 2.0**300])
def test_arow_and_sop_bounds_are_invariant_to_rows_times_c_u_over_c_and_r_times_c2(c):
    # x -> c x, u -> u / c, r -> c^2 r leaves r ||u||^2, u^T X_S u and X_S / r as they are; at c = 2^-520,
    # ||u||^2 = 1.25 * 2^1040 overflows and r = 2^-1040 is subnormal
    rows, u = scaled(SECOND_ORDER_X, c), [1.0 / c, 0.5 / c]
    arow, sop = _arow_and_sop_by_hand(1.0)
    updated, mistaken = [True, True, True], [True, False, True]
    assert arow_mistake_bound(rows, [1, 1, -1], u, c * c, updated, mistaken) == pytest.approx(arow, rel=1e-12)
    assert sop_mistake_bound(rows, [1, 1, -1], u, c * c, mistaken) == pytest.approx(sop, rel=1e-12)


def test_sequence_bound_of_huge_rows_and_a_tiny_competitor():
    # one sequence x = (2^565), (2^565), labels (a, a); emission (10, -10) * 2^-565, no transition weights: label
    # scores 10 and -10 at each position, the true labelling beats every rival by 20 or 40 > sqrt(Hamming): no loss.
    # R = sqrt 2 (||x_1|| + ||x_2|| + 2) = sqrt 2 (2^566 + 2), ||u||^2 = 200 * 2^-1130
    # -> R^2 ||u||^2 = 2 (2^566 + 2)^2 * 200 * 2^-1130 = 1600 (1 + 2^-565)^2
    X1 = [np.full((2, 1), HUGE)]
    E, T = np.array([[10.0 * TINY], [-10.0 * TINY]]), np.zeros((3, 2))
    assert sequence_loss_bound(X1, [["a", "a"]], E, T, variant="pa", classes=["a", "b"]) == pytest.approx(
        1600.0, rel=1e-15)


@pytest.mark.parametrize("c", [2.0**-520, 2.0**-300, 2.0**300, 1.0])
def test_orabona2010_arow_bound_is_invariant_to_rows_times_c_u_over_c_and_r_times_c2(c):
    # replay with r = 1 on the rows of SECOND_ORDER_X, all updates: chi = 1, 4, 0.7 and m = 0, 0, -0.9
    # (A_1 = diag(2, 1), A_2 = diag(2, 5), theta_2 = (1, 2)); A_3 = [[3, 1], [1, 6]], ln det = ln 17;
    # sum m (2r - m) / (r (r + chi)) = -0.9 * 2.9 / 1.7; r ||u||^2 + sum (u.x)^2 = 1.25 + 4.25; L = 2.5
    expected = 2.5 + math.sqrt(5.5 * (math.log(17.0) - 0.9 * 2.9 / 1.7))
    rows, u = scaled(SECOND_ORDER_X, c), [1.0 / c, 0.5 / c]
    assert orabona2010_arow_bound(rows, [1, 1, -1], u, c * c, [True, True, True]) == pytest.approx(expected, rel=1e-12)
