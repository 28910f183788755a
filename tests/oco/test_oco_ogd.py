"""Projected OGD: equals a NumPy transcription, stays feasible, and its regret stays under the bound."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from oco import _oracle as oracle
from sklearn.base import clone

from olearn.experts import Hedge
from olearn.oco import Box, ConvexLoss, L1Ball, L2Ball, ProjectedOGD, Simplex

FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**32 - 1)
SCHEDULES = st.sampled_from(["sqrt", "inverse", "constant"])
DELAYS = st.sampled_from([0, 1, 3, 10])
RATES = st.sampled_from(["current", "gradient"])


def _domain(kind, d):
    return {
        "l2": L2Ball(d, radius=1.5),
        "simplex": Simplex(d),
        "box": Box(d, low=-1.0, high=np.linspace(0.5, 2.0, d)),
        "l1": L1Ball(d, radius=2.0),
    }[kind]


DOMAINS = st.sampled_from(["l2", "simplex", "box", "l1"])


def _rate(schedule, eta):
    return {"sqrt": lambda s: eta / math.sqrt(s), "inverse": lambda s: eta / s, "constant": lambda s: eta}[schedule]


@FEW
@given(SEEDS, DOMAINS, SCHEDULES, DELAYS, st.floats(0.05, 3.0), RATES)
def test_linear_run_equals_oracle(seed, kind, schedule, delay, eta, rate_of):
    rng = np.random.default_rng(seed)
    d, T = int(rng.integers(1, 6)), int(rng.integers(1, 60))
    domain = _domain(kind, d)
    G = rng.standard_normal((T, d)) * 3
    res = ProjectedOGD(domain, eta=eta, schedule=schedule, delay=delay, delayed_rate=rate_of).run(G)
    expected = oracle.ogd(lambda t, x: G[t], T, domain.project, domain.initial_point(), _rate(schedule, eta), delay,
                          rate_of)
    assert_allclose(res.points, expected, atol=1e-10)
    assert_allclose(res.losses, np.einsum("ij,ij->i", G, expected), atol=1e-9)


@FEW
@given(SEEDS, DOMAINS, DELAYS, RATES)
def test_convex_losses_equal_oracle(seed, kind, delay, rate_of):
    """Quadratic losses: the gradient depends on the point played, through the general path."""
    rng = np.random.default_rng(seed)
    d, T = int(rng.integers(1, 5)), int(rng.integers(1, 40))
    domain = _domain(kind, d)
    centers = rng.standard_normal((T, d))
    losses = [ConvexLoss.squared_distance(c) for c in centers]
    res = ProjectedOGD(domain, delay=delay, delayed_rate=rate_of).run(losses, comparator=domain.initial_point())
    expected = oracle.ogd(lambda t, x: x - centers[t], T, domain.project, domain.initial_point(), _rate("sqrt", 1.0),
                          delay, rate_of)
    assert_allclose(res.points, expected, atol=1e-10)
    assert res.regret_kind == "exact"
    assert (res.regret <= res.linearized_regret + 1e-9).all()  # convexity


@FEW
@given(SEEDS, DOMAINS, SCHEDULES, DELAYS)
def test_iterates_stay_feasible(seed, kind, schedule, delay):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 6))
    domain = _domain(kind, d)
    res = ProjectedOGD(domain, eta=5.0, schedule=schedule, delay=delay).run(rng.standard_normal((80, d)) * 100)
    assert all(domain.contains(x, atol=1e-9) for x in res.points)


# -- the regret bound ---------------------------------------------------------------------


def _drifting(domain, rng, T, speed):
    """A random walk of comparators inside the domain."""
    z = [domain.initial_point()]
    for _ in range(T - 1):
        z.append(domain.project(z[-1] + speed * rng.standard_normal(domain.dim)))
    return np.array(z)


@FEW
@given(SEEDS, DOMAINS, SCHEDULES, DELAYS, st.floats(0.05, 3.0), st.sampled_from([None, "fixed", "drifting"]), RATES)
def test_bound_holds_on_random_losses(seed, kind, schedule, delay, eta, comparator, rate_of):
    rng = np.random.default_rng(seed)
    d, T = int(rng.integers(1, 6)), int(rng.integers(1, 150))
    domain = _domain(kind, d)
    G = rng.standard_normal((T, d)) + rng.standard_normal(d)
    z = {None: None, "fixed": domain.project(rng.standard_normal(d)), "drifting": _drifting(domain, rng, T, 0.2)}
    res = ProjectedOGD(domain, eta=eta, schedule=schedule, delay=delay, delayed_rate=rate_of).run(
        G, comparator=z[comparator])
    assert res.bound_holds


@FEW
@given(SEEDS, DOMAINS, SCHEDULES, DELAYS, st.floats(0.05, 3.0), RATES)
def test_bound_holds_against_an_adaptive_adversary(seed, kind, schedule, delay, eta, rate_of):
    """The adversary sees x_t and picks the unit gradient that makes the learner pay the most against z."""
    rng = np.random.default_rng(seed)
    d, T = int(rng.integers(1, 6)), int(rng.integers(1, 150))
    domain = _domain(kind, d)
    target = domain.project(rng.standard_normal(d) * 3)

    def adversary(t, x):
        direction = x - target if np.linalg.norm(x - target) > 1e-12 else rng.standard_normal(d)
        return direction / np.linalg.norm(direction) * (1 if t % 7 else -1)

    ogd = ProjectedOGD(domain, eta=eta, schedule=schedule, delay=delay, delayed_rate=rate_of)
    res = ogd.run([lambda x, t=t: adversary(t, x) for t in range(T)], comparator=_drifting(domain, rng, T, 0.1))
    assert res.regret_kind == "linearized"
    assert res.bound_holds


def test_bound_is_zinkevich_theorem_1_and_below_the_notes_dynamic_bound():
    rng = np.random.default_rng(0)
    domain, T = L2Ball(3), 500
    G = rng.standard_normal((T, 3))
    res = ProjectedOGD(domain, eta=1.0, schedule="sqrt").run(G, comparator=domain.project(np.ones(3)))
    D, Gmax = domain.diameter, np.linalg.norm(G, axis=1).max()
    assert res.regret_bound[-1] <= D**2 * math.sqrt(T) / 2 + (math.sqrt(T) - 0.5) * Gmax**2 + 1e-9
    z = _drifting(domain, rng, T, 0.05)
    res = ProjectedOGD(domain).run(G, comparator=z)
    L = res.path_length[-1]
    assert L > 0
    assert res.regret_bound[-1] <= D**2 * math.sqrt(T) / 2 + Gmax**2 * math.sqrt(T) + 2 * D * L * math.sqrt(T)
    assert res.bound_holds


def test_delayed_updates_apply_the_gradient_of_tau_rounds_earlier():
    G = np.eye(3)[[0, 1, 2, 0, 1]].astype(float)
    res = ProjectedOGD(L2Ball(3, radius=10.0), eta=1.0, schedule="constant", delay=2).run(G)
    assert_array_equal(res.points[:3], 0.0)  # x_1 = x_2 = x_3: nothing applied yet
    assert_array_equal(res.points[3], [-1.0, 0.0, 0.0])  # x_4 = x_3 - g_1
    assert_array_equal(res.points[4], [-1.0, -1.0, 0.0])


def test_delayed_updates_use_the_current_rounds_rate():
    # the notes' Sec. 4.3: w^{t+1} = Proj(w^t - eta_t g^{t - tau}); eta_t = 1/t, tau = 2
    G = np.eye(3)[[0, 1, 2, 0, 1]].astype(float)
    res = ProjectedOGD(L2Ball(3, radius=10.0), eta=1.0, schedule="inverse", delay=2).run(G)
    assert_allclose(res.points[3], [-1 / 3, 0.0, 0.0])  # x_4 = x_3 - eta_3 g_1
    assert_allclose(res.points[4], [-1 / 3, -1 / 4, 0.0])  # x_5 = x_4 - eta_4 g_2
    assert_allclose(res.learning_rates, [1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7])
    old = ProjectedOGD(L2Ball(3, radius=10.0), eta=1.0, schedule="inverse", delay=2, delayed_rate="gradient").run(G)
    assert_allclose(old.points[4], [-1.0, -1 / 2, 0.0])  # eta_1 g_1, then eta_2 g_2
    assert_allclose(old.learning_rates, [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5])


@pytest.mark.parametrize("rate_of", ["current", "gradient"])
def test_runs_continue_from_the_learned_state(rate_of):
    G = np.random.default_rng(1).standard_normal((100, 4))
    whole = ProjectedOGD(L1Ball(4), delay=5, delayed_rate=rate_of).run(G)
    ogd = ProjectedOGD(L1Ball(4), delay=5, delayed_rate=rate_of)
    ogd.run(G[:40])
    second = ogd.run(G[40:], comparator=whole.comparator[0])
    assert_allclose(second.points, whole.points[40:])
    assert second.bound_holds


# -- OGD on the simplex: an alternative to Hedge ------------------------------------------------


def test_ogd_on_the_simplex_competes_with_the_best_expert_like_hedge():
    losses = np.random.default_rng(2).random((400, 8))
    losses[:, 5] *= 0.6
    ogd = ProjectedOGD(Simplex(8), eta=0.2).run(losses)
    hedge = Hedge(horizon=400).run(losses)
    assert np.sum(ogd.comparator_losses) == pytest.approx(hedge.best_expert_loss)  # z* = the best expert's vertex
    assert ogd.regret[-1] < 0.2 * hedge.best_losses[-1]
    assert ogd.bound_holds and hedge.bound_holds


# -- the streaming contract -----------------------------------------------------------------------


def test_learn_one_run_and_every_kind_of_loss_agree():
    G = np.random.default_rng(3).standard_normal((50, 3))
    domain = Box(3, low=-1, high=1)
    res = ProjectedOGD(domain, delay=2).run(G)
    ogd = ProjectedOGD(domain, delay=2)
    points = []
    for g in G:
        points.append(ogd.predict_one())
        ogd.learn_one(g)
    assert_array_equal(points, res.points)
    for losses in ([g for g in G], [ConvexLoss.linear(g) for g in G], [lambda x, g=g: g for g in G], iter(G)):
        other = ProjectedOGD(domain, delay=2).run(losses)
        assert_allclose(other.points, res.points)
        assert_allclose(other.linearized_regret, res.linearized_regret)
    assert ProjectedOGD(domain).run([lambda x, g=g: g for g in G]).regret_kind == "linearized"
    assert ProjectedOGD(domain).run(list(G)).regret_kind == "exact"


def test_clone_and_pickle():
    ogd = ProjectedOGD(Simplex(4), eta=0.3, schedule="inverse", delay=3)
    twin = clone(ogd)
    assert twin.get_params() == ogd.get_params() and twin.domain is not ogd.domain
    G = np.random.default_rng(4).random((30, 4))
    ogd.run(G[:10])
    copy = pickle.loads(pickle.dumps(ogd))
    assert_array_equal(ogd.run(G[10:]).points, copy.run(G[10:]).points)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ProjectedOGD("simplex").predict_one(), "domain='simplex' is invalid"),
        (lambda: ProjectedOGD(Simplex(2), eta=0).predict_one(), "eta=0 is invalid"),
        (lambda: ProjectedOGD(Simplex(2), schedule="log").predict_one(), "schedule='log' is invalid"),
        (lambda: ProjectedOGD(Simplex(2), delay=-1).predict_one(), "delay=-1 is invalid"),
        (lambda: ProjectedOGD(Simplex(2), delayed_rate="stale").predict_one(), "delayed_rate='stale' is invalid"),
        (lambda: ProjectedOGD(Simplex(2)).learn_one([1.0, 2.0, 3.0]), r"shape \(3,\); expected \(2,\)"),
        (lambda: ProjectedOGD(Simplex(2)).learn_one([1.0, np.nan]), r"gradient\[1\] is nan"),
        (lambda: ProjectedOGD(Simplex(2)).run(np.ones((3, 3))), r"shape \(rounds, 2\)"),
        (lambda: ProjectedOGD(Simplex(2)).run([[1.0, np.inf]]), "inf at round 0, coordinate 1"),
        (lambda: ProjectedOGD(Simplex(2)).run([lambda x: [1.0]]), "gradient of round 0 has shape"),
        (lambda: ProjectedOGD(Simplex(2)).run(np.ones((3, 2)), comparator=[2.0, 2.0]), "outside Simplex"),
        (lambda: ProjectedOGD(Simplex(2)).run(np.ones((3, 2)), comparator=np.ones((2, 2)) / 2), r"has 2 points"),
        (lambda: ProjectedOGD(Simplex(2)).run(np.ones((3, 2)), comparator=[1.0]), "point of R\\^2"),
        (lambda: ProjectedOGD(Simplex(2), delay=1).learn_one([1, 0]).set_params(delay=2).learn_one([1, 0]),
         "delay changed"),
        (lambda: ProjectedOGD(Simplex(2)).learn_one([1, 0]).set_params(domain=Simplex(3)).learn_one([1, 0, 0]),
         "has dimension 3"),
    ],
)
def test_bad_input_gives_a_clear_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_bad_comparator_is_refused_before_learning():
    ogd = ProjectedOGD(L2Ball(2))
    with pytest.raises(ValueError, match="comparator point is outside"):
        ogd.run(np.ones((5, 2)), comparator=[3.0, 0.0])
    assert ogd.n_rounds_ == 0


def test_notes_bound_is_thm_4_1_3_and_only_in_its_setting():
    rng = np.random.default_rng(5)
    domain, T = L2Ball(3), 200
    G = rng.standard_normal((T, 3))
    z = _drifting(domain, rng, T, 0.05)
    res = ProjectedOGD(domain).run(G, comparator=z)
    D = domain.diameter
    Gmax = np.maximum.accumulate(np.linalg.norm(G, axis=1))
    L = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(z, axis=0), axis=1))])
    t = np.arange(1, T + 1)
    assert_allclose(res.notes_bound, D**2 / 2 * np.sqrt(t) + Gmax**2 * np.sqrt(t) + 2 * D * L * np.sqrt(t))
    assert (res.regret_bound <= res.notes_bound).all()
    for other in (ProjectedOGD(domain, eta=0.5), ProjectedOGD(domain, delay=1), ProjectedOGD(domain, schedule="inverse")):
        assert np.isnan(other.run(G).notes_bound).all()
