"""The compiled experts learners equal plain NumPy transcriptions of their pseudo-code."""

import math

import numpy as np
from experts import _oracle as oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from olearn.experts import (
    FixedShare,
    Halving,
    Hedge,
    RandomizedWeightedMajority,
    WeightedAverage,
    WeightedMajority,
)

FEW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
UNIT = st.floats(0, 1, allow_subnormal=False)


@st.composite
def loss_matrices(draw, max_rounds=40, max_experts=6):
    m = draw(st.integers(1, max_rounds))
    n = draw(st.integers(1, max_experts))
    return draw(arrays(np.float64, (m, n), elements=UNIT))


@st.composite
def binary_rounds(draw, max_rounds=40, max_experts=6):
    m = draw(st.integers(1, max_rounds))
    n = draw(st.integers(1, max_experts))
    advice = draw(arrays(np.float64, (m, n), elements=st.sampled_from([0.0, 1.0])))
    y = draw(arrays(np.float64, m, elements=st.sampled_from([0.0, 1.0])))
    return advice, y


@st.composite
def unit_rounds(draw, max_rounds=30, max_experts=5, open_interval=False):
    m = draw(st.integers(1, max_rounds))
    n = draw(st.integers(1, max_experts))
    inner = st.floats(0.01, 0.99) if open_interval else UNIT
    advice = draw(arrays(np.float64, (m, n), elements=inner))
    y = draw(arrays(np.float64, m, elements=UNIT))
    return advice, y


@FEW
@given(loss_matrices(), st.floats(0.01, 5.0))
def test_hedge_fixed_eta_equals_oracle(losses, eta):
    res = Hedge(eta=eta).run(losses)
    allocations, paid, final = oracle.hedge(losses, lambda t: eta)
    assert_allclose(res.expected_losses, paid, rtol=1e-10, atol=1e-12)
    hedge = Hedge(eta=eta)
    for t, row in enumerate(losses):
        if t:
            assert_allclose(hedge.weights_, allocations[t], rtol=1e-10, atol=1e-14)
        hedge.learn_one(row)
    assert_allclose(hedge.weights_, final, rtol=1e-10, atol=1e-14)


@FEW
@given(loss_matrices(max_rounds=70))
def test_hedge_doubling_trick_equals_oracle(losses):
    n = losses.shape[1]
    rate = lambda t: math.sqrt(2 * math.log(n) / 2 ** math.floor(math.log2(t)))
    restarts = {2**r for r in range(8)}
    _, paid, final = oracle.hedge(losses, rate, restart_at=restarts)
    res = Hedge().run(losses)
    assert_allclose(res.expected_losses, paid, rtol=1e-10, atol=1e-12)
    assert_allclose(res.learning_rates, [rate(t) for t in range(1, losses.shape[0] + 1)])


@FEW
@given(loss_matrices(), st.integers(1, 200))
def test_hedge_horizon_tuning(losses, horizon):
    n = losses.shape[1]
    eta = math.sqrt(2 * math.log(n) / horizon)
    _, paid, _ = oracle.hedge(losses, lambda t: eta)
    assert_allclose(Hedge(horizon=horizon).run(losses).expected_losses, paid, rtol=1e-10, atol=1e-12)


@FEW
@given(loss_matrices(), st.floats(-3.0, 3.0), st.floats(0.5, 4.0), st.floats(0.05, 3.0))
def test_hedge_loss_range_is_an_affine_change_of_units(losses, low, width, eta):
    """Hedge on losses in [low, low + width] moves exactly as on the rescaled losses in [0, 1]."""
    scaled = low + width * losses
    res = Hedge(eta=eta, loss_range=(low, low + width)).run(scaled)
    unit = Hedge(eta=eta).run(losses)
    assert_allclose(res.expected_losses, low + width * unit.expected_losses, rtol=1e-9, atol=1e-9)
    assert_allclose(res.regret, width * unit.regret, rtol=1e-8, atol=1e-8)


@FEW
@given(loss_matrices(max_experts=5).filter(lambda L: L.shape[1] >= 2), st.floats(0.05, 3.0), st.floats(0.0, 0.5))
def test_fixed_share_equals_oracle(losses, eta, alpha):
    paid, final = oracle.fixed_share(losses, eta, alpha)
    fs = FixedShare(eta=eta, alpha=alpha)
    res = fs.run(losses)
    assert_allclose(res.expected_losses, paid, rtol=1e-10, atol=1e-12)
    assert_allclose(fs.weights_, final, rtol=1e-9, atol=1e-14)


@FEW
@given(loss_matrices(), st.floats(0.05, 3.0))
def test_fixed_share_with_alpha_zero_is_hedge(losses, eta):
    assert_allclose(
        FixedShare(eta=eta, alpha=0.0).run(losses).expected_losses, Hedge(eta=eta).run(losses).expected_losses
    )


@FEW
@given(unit_rounds(), st.floats(0.05, 2.0), st.sampled_from(["square", "absolute"]))
def test_weighted_average_equals_oracle(rounds, eta, loss):
    advice, y = rounds
    predictions, losses, final = oracle.weighted_average(advice, y, eta, loss)
    wa = WeightedAverage(eta=eta, loss=loss)
    res = wa.run(advice, y)
    assert_allclose(res.predictions, predictions, rtol=1e-10, atol=1e-12)
    assert_allclose(res.losses, losses, rtol=1e-9, atol=1e-12)
    assert_allclose(wa.weights_, final, rtol=1e-9, atol=1e-14)


@FEW
@given(unit_rounds(open_interval=True), st.floats(0.05, 1.0))
def test_weighted_average_entropic_equals_oracle(rounds, eta):
    advice, y = rounds
    predictions, losses, _ = oracle.weighted_average(advice, y, eta, "entropic")
    res = WeightedAverage(eta=eta, loss="entropic").run(advice, y)
    assert_allclose(res.predictions, predictions, rtol=1e-10, atol=1e-12)
    assert_allclose(res.losses, losses, rtol=1e-9, atol=1e-12)


def test_weighted_average_entropic_with_eta_one_is_the_bayes_mixture():
    """With eta = 1 and outcomes 0/1 the weights are the posterior, and L_A = -ln(sum_i prod_t p_i(y_t)) / n."""
    rng = np.random.default_rng(3)
    advice = rng.uniform(0.05, 0.95, (25, 4))
    y = rng.integers(0, 2, 25).astype(float)
    res = WeightedAverage(eta=1.0, loss="entropic").run(advice, y)
    likelihood = np.prod(np.where(y[:, None] == 1, advice, 1 - advice), axis=0)
    assert_allclose(res.cumulative_loss, -np.log(likelihood.mean()), rtol=1e-10)


@FEW
@given(binary_rounds(), st.floats(0.01, 0.99))
def test_weighted_majority_equals_oracle(rounds, beta):
    advice, y = rounds
    predictions, final = oracle.weighted_majority(advice, y, beta)
    wm = WeightedMajority(beta=beta)
    res = wm.run(advice, y)
    assert_array_equal(res.predictions, predictions)
    assert_allclose(wm.weights_, final, rtol=1e-9, atol=1e-300)


@FEW
@given(binary_rounds(), st.integers(0, 2**32 - 1))
def test_randomized_weighted_majority_equals_oracle(rounds, seed):
    advice, y = rounds
    uniforms = np.random.default_rng(seed).random(y.size)
    predictions, mistake_probability = oracle.randomized_weighted_majority(advice, y, 0.5, uniforms)
    res = RandomizedWeightedMajority(beta=0.5, random_state=seed).run(advice, y)
    assert_array_equal(res.predictions, predictions)
    assert_allclose(res.expected_losses, mistake_probability, rtol=1e-10, atol=1e-12)



def test_halving_replays_the_slides_run():
    """The UCL slides' run of the Halving algorithm, 8 experts: the first vote is a 4-4 tie, predicted 1 as in the
    slides' table; the predictions 1, 1, 0 cost losses 1, 0, 1 and leave E_4 the one consistent expert."""
    advice = np.array([[1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 0, 0, 1, 1], [0, 0, 0, 1, 0, 0, 0, 0]])
    halving = Halving()
    res = halving.run(advice, [0, 1, 1])
    assert_array_equal(res.predictions, [1, 1, 0])
    assert_array_equal(res.losses, [1, 0, 1])
    assert_array_equal(halving.consistent_, [3])

@FEW
@given(binary_rounds(max_experts=8))
def test_halving_equals_weighted_majority_with_beta_zero(rounds):
    advice, y = rounds
    perfect = np.append(advice, y[:, None], axis=1)  # add a perfect expert
    predictions, final = oracle.weighted_majority(perfect, y, 0.0)
    halving = Halving()
    res = halving.run(perfect, y)
    assert_array_equal(res.predictions, predictions)
    assert_allclose(halving.weights_, final)
    assert_array_equal(halving.consistent_, np.flatnonzero(final > 0))
