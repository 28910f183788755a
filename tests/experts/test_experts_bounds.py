"""Each theorem's bound holds after every round, on random and on adversarial sequences.

Adversaries see the learner's state before choosing the outcome (or loss
vector) of a round: they force a mistake when they can, push the weighted
average away from the outcome, or give loss to the heavy experts.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olearn.experts import (
    FixedShare,
    Halving,
    Hedge,
    RandomizedWeightedMajority,
    WeightedAverage,
    WeightedMajority,
)

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**32 - 1)
BETAS = st.floats(0.01, 0.99)


def _holds(res):
    assert res.bound_holds, f"{res.algorithm}: regret {res.regret.max()} above bound"


# -- Halving: log2 n mistakes with a perfect expert ------------------------------


@FEW
@given(SEEDS, st.integers(1, 32), st.integers(1, 80))
def test_halving_random(seed, n, m):
    rng = np.random.default_rng(seed)
    advice = rng.integers(0, 2, (m, n)).astype(float)
    y = advice[:, rng.integers(n)]  # one expert is perfect
    res = Halving().run(advice, y)
    assert res.n_mistakes <= math.log2(n)
    _holds(res)


@FEW
@given(SEEDS, st.integers(1, 32), st.integers(1, 80))
def test_halving_adversarial(seed, n, m):
    """The last expert is built round by round to be perfect while forcing a mistake whenever possible."""
    rng = np.random.default_rng(seed)
    others = rng.integers(0, 2, (m, n - 1)).astype(float)
    halving, rows, outcomes = Halving(), [], []
    for t in range(m):
        for vote in (0.0, 1.0):
            row = np.append(others[t], vote)
            if halving.predict_one(row) != vote:
                break
        rows.append(row)
        outcomes.append(vote)
        halving.learn_one(row, vote)
    res = Halving().run(np.array(rows), outcomes)
    assert res.n_mistakes <= math.log2(n)


def test_halving_meets_its_bound_on_all_binary_sequences():
    """2^k experts spelling every binary string, outcome = not the prediction: exactly k mistakes."""
    k = 5
    experts = np.array([[(i >> (k - 1 - t)) & 1 for i in range(2**k)] for t in range(k)], dtype=float)
    halving = Halving()
    for row in experts:
        halving.learn_one(row, 1.0 - halving.predict_one(row))
    assert halving.n_rounds_ == k and halving.consistent_.size == 1
    assert halving.realized_loss_ == halving.cumulative_loss_ == k  # every round was a mistake


# -- Weighted Majority and its randomized version -------------------------------


@FEW
@given(SEEDS, st.integers(1, 12), st.integers(1, 80), BETAS)
def test_weighted_majority_random(seed, n, m, beta):
    rng = np.random.default_rng(seed)
    advice = (rng.random((m, n)) < rng.random(n)).astype(float)
    y = rng.integers(0, 2, m).astype(float)
    _holds(WeightedMajority(beta=beta).run(advice, y))


@FEW
@given(SEEDS, st.integers(1, 12), st.integers(1, 80), BETAS)
def test_weighted_majority_adversarial(seed, n, m, beta):
    rng = np.random.default_rng(seed)
    advice = rng.integers(0, 2, (m, n)).astype(float)
    wm, y = WeightedMajority(beta=beta), []
    for row in advice:
        y.append(1.0 - wm.predict_one(row))
        wm.learn_one(row, y[-1])
    res = WeightedMajority(beta=beta).run(advice, y)
    assert res.n_mistakes == m
    _holds(res)


@FEW
@given(SEEDS, st.integers(1, 12), st.integers(1, 80), BETAS)
def test_randomized_weighted_majority_random_and_adversarial(seed, n, m, beta):
    rng = np.random.default_rng(seed)
    advice = rng.integers(0, 2, (m, n)).astype(float)
    _holds(RandomizedWeightedMajority(beta=beta, random_state=seed).run(advice, rng.integers(0, 2, m)))
    # adversary: the outcome that the larger share of weight gets wrong
    rwm, y = RandomizedWeightedMajority(beta=beta, random_state=seed), []
    for row in advice:
        share_on_one = rwm.weights_ @ row if hasattr(rwm, "n_experts_") else row.mean()
        y.append(0.0 if share_on_one >= 0.5 else 1.0)
        rwm.learn_one(row, y[-1])
    _holds(RandomizedWeightedMajority(beta=beta, random_state=seed).run(advice, y))


# -- Weighted average: ln(n)/eta for exp-concave losses -----------------------------

WA_SETTINGS = st.sampled_from([("entropic", 1.0), ("entropic", 0.4), ("square", 0.5), ("square", 0.2),
                               ("absolute", 1.0), ("absolute", 3.0)])


@FEW
@given(SEEDS, st.integers(1, 8), st.integers(1, 60), WA_SETTINGS)
def test_weighted_average_random(seed, n, m, setting):
    loss, eta = setting
    rng = np.random.default_rng(seed)
    advice = rng.uniform(0.001, 0.999, (m, n))
    y = rng.random(m) if loss != "entropic" else rng.integers(0, 2, m).astype(float)
    _holds(WeightedAverage(eta=eta, loss=loss).run(advice, y))


@FEW
@given(SEEDS, st.integers(1, 8), st.integers(1, 60), WA_SETTINGS)
def test_weighted_average_adversarial(seed, n, m, setting):
    loss, eta = setting
    advice = np.random.default_rng(seed).uniform(0.001, 0.999, (m, n))
    wa, y = WeightedAverage(eta=eta, loss=loss), []
    for row in advice:
        y.append(1.0 if wa.predict_one(row) < 0.5 else 0.0)
        wa.learn_one(row, y[-1])
    _holds(WeightedAverage(eta=eta, loss=loss).run(advice, y))


def test_weighted_average_bound_is_not_claimed_above_the_concavity_limit():
    res = WeightedAverage(eta=2.0, loss="square").run([[0.0, 1.0]], [1.0])
    assert np.isnan(res.loss_bound).all() and res.bound_holds


# -- Hedge and Fixed Share --------------------------------------------------------

HEDGES = st.sampled_from(["eta", "horizon", "doubling", "randomized"])


def _hedge(kind, m, seed):
    return {
        "eta": Hedge(eta=0.7),
        "horizon": Hedge(horizon=m),
        "doubling": Hedge(),
        "randomized": Hedge(randomized=True, random_state=seed),
    }[kind]


@FEW
@given(SEEDS, st.integers(1, 10), st.integers(1, 120), HEDGES)
def test_hedge_random(seed, n, m, kind):
    rng = np.random.default_rng(seed)
    losses = rng.random((m, n)) * rng.random(n)  # experts of different quality
    _holds(_hedge(kind, m, seed).run(losses))


@FEW
@given(SEEDS, st.integers(2, 10), st.integers(1, 120), HEDGES)
def test_hedge_adversarial(seed, n, m, kind):
    """Loss 1 for the expert with the largest weight, 0 for the others."""
    hedge, rows = _hedge(kind, m, seed).set_params(n_experts=n), []
    for _ in range(m):
        weights = hedge.weights_ if hasattr(hedge, "n_experts_") else np.full(n, 1 / n)
        rows.append(np.eye(n)[int(np.argmax(weights))])
        hedge.learn_one(rows[-1])
    res = _hedge(kind, m, seed).run(np.array(rows))
    _holds(res)
    assert res.regret[-1] >= 0  # the leader always pays: no expert beats the learner by much


def test_hedge_horizon_bound_is_sqrt_2_m_ln_n():
    m, n = 400, 7
    losses = np.random.default_rng(0).random((m, n))
    res = Hedge(horizon=m).run(losses)
    assert res.regret_bound[-1] == pytest.approx(math.sqrt(2 * m * math.log(n)))
    _holds(res)


def test_hedge_doubling_bound_at_epoch_ends():
    """After 2^(R+1) - 1 rounds the doubling bound is sum_{r <= R} sqrt(2 * 2^r * ln n)."""
    n = 5
    res = Hedge().run(np.random.default_rng(1).random((63, n)))
    expected = sum(math.sqrt(2 * 2**r * math.log(n)) for r in range(6))
    assert res.regret_bound[-1] == pytest.approx(expected)
    assert expected <= math.sqrt(2) / (math.sqrt(2) - 1) * math.sqrt(2 * 63 * math.log(n))


@FEW
@given(SEEDS, st.integers(2, 6), st.integers(2, 100), st.floats(0.05, 2.0), st.floats(0.001, 0.5))
def test_fixed_share_tracking_bound(seed, n, m, eta, alpha):
    rng = np.random.default_rng(seed)
    comparator = np.repeat(rng.integers(0, n, 4), -(-m // 4))[:m]  # up to 3 switches
    losses = rng.random((m, n))
    losses[np.arange(m), comparator] *= 0.2  # the comparator is good, the rest random
    res = FixedShare(eta=eta, alpha=alpha).run(losses, comparator=comparator)
    _holds(res)
    assert np.all(res.comparator_regret <= res.comparator_bound + 1e-9)


@FEW
@given(SEEDS, st.integers(1, 6), st.integers(1, 60), st.floats(-5, 5), st.floats(0.1, 10))
def test_hedge_bound_scales_with_the_loss_range(seed, n, m, low, width):
    losses = low + width * np.random.default_rng(seed).random((m, n))
    _holds(Hedge(loss_range=(low, low + width)).run(losses))
