"""The experts learners' contract: run == stream == learn_one, seeds, persistence, clear errors."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

import olearn
from olearn.exceptions import NotFittedError
from olearn.experts import (
    ExpertsResult,
    FixedShare,
    Halving,
    Hedge,
    LearnerEnsemble,
    RandomizedWeightedMajority,
    WeightedAverage,
    WeightedMajority,
)

FEW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RNG = np.random.default_rng(42)
BINARY = RNG.integers(0, 2, (300, 6)).astype(float)
OUTCOMES = RNG.integers(0, 2, 300).astype(float)
UNIT = RNG.random((300, 6))
LOSSES = RNG.random((300, 6))

ADVICE_LEARNERS = [
    (WeightedMajority(beta=0.3), BINARY),
    (RandomizedWeightedMajority(beta=0.6, random_state=5), BINARY),
    (WeightedAverage(loss="square"), UNIT),
    (WeightedAverage(loss="absolute", eta=2.0), UNIT),
    (WeightedAverage(loss="entropic"), np.clip(UNIT, 0.01, 0.99)),
]
ALLOCATION_LEARNERS = [
    Hedge(eta=0.4),
    Hedge(),
    Hedge(horizon=300, randomized=True, random_state=9),
    FixedShare(eta=0.3, alpha=0.05),
]
ALL = [est for est, _ in ADVICE_LEARNERS] + ALLOCATION_LEARNERS


def _ids(cases):
    return [repr(c[0] if isinstance(c, tuple) else c) for c in cases]


def _run(est, data=None):
    return est.run(data, OUTCOMES) if data is not None else est.run(LOSSES)


# -- run == stream == learn_one -----------------------------------------------------


@pytest.mark.parametrize("case", ADVICE_LEARNERS, ids=_ids(ADVICE_LEARNERS))
def test_advice_run_equals_stream_and_learn_one(case):
    template, advice = case
    res = clone(template).run(advice, OUTCOMES)
    streamed = clone(template).run((row for row in advice), iter(OUTCOMES.tolist()))
    one_by_one = clone(template)
    predictions = []
    for row, y in zip(advice, OUTCOMES):
        predictions.append(one_by_one.predict_one(row))
        one_by_one.learn_one(row, y)
    for other in (streamed,):
        assert_array_equal(other.predictions, res.predictions)
        assert_array_equal(other.cumulative_losses, res.cumulative_losses)
        assert_array_equal(other.loss_bound, res.loss_bound)
    assert_array_equal(predictions, res.predictions)
    assert one_by_one.cumulative_loss_ == pytest.approx(res.cumulative_loss)
    assert_array_equal(one_by_one.expert_losses_, res.expert_losses)


@pytest.mark.parametrize("template", ALLOCATION_LEARNERS, ids=_ids(ALLOCATION_LEARNERS))
def test_allocation_run_equals_stream_and_learn_one(template):
    res = clone(template).run(LOSSES)
    streamed = clone(template).run(row for row in LOSSES)
    one_by_one = clone(template).set_params(n_experts=LOSSES.shape[1])
    choices = []
    for row in LOSSES:
        choices.append(one_by_one.predict_one())
        one_by_one.learn_one(row)
    assert_array_equal(streamed.expected_losses, res.expected_losses)
    assert_array_equal(streamed.predictions, res.predictions)
    if template.get_params().get("randomized"):
        assert_array_equal(choices, res.predictions)
    else:
        assert_allclose(np.array(choices) @ np.ones(6), 1.0)
    assert one_by_one.cumulative_loss_ == pytest.approx(res.cumulative_loss)


def test_long_stream_is_read_in_blocks():
    """A generator longer than one block gives the same run as the matrix."""
    losses = np.random.default_rng(0).random((9000, 3))
    a = Hedge().run(losses)
    b = Hedge().run(iter(losses))
    assert_array_equal(a.expected_losses, b.expected_losses)
    assert_array_equal(a.loss_bound, b.loss_bound)


def test_runs_continue_from_the_learned_state():
    """Two runs over halves equal one run over the whole: cumulative values count from the first round."""
    whole = WeightedMajority(beta=0.5).run(BINARY, OUTCOMES)
    wm = WeightedMajority(beta=0.5)
    wm.run(BINARY[:100], OUTCOMES[:100])
    second = wm.run(BINARY[100:], OUTCOMES[100:])
    assert_array_equal(second.cumulative_losses, whole.cumulative_losses[100:])
    assert_array_equal(second.loss_bound, whole.loss_bound[100:])


# -- randomness ----------------------------------------------------------------------


def test_randomized_learners_are_reproducible_with_a_seed():
    a = RandomizedWeightedMajority(random_state=3).run(BINARY, OUTCOMES)
    b = RandomizedWeightedMajority(random_state=3).run(BINARY, OUTCOMES)
    c = RandomizedWeightedMajority(random_state=4).run(BINARY, OUTCOMES)
    assert_array_equal(a.predictions, b.predictions)
    assert not np.array_equal(a.predictions, c.predictions)
    assert_array_equal(a.expected_losses, c.expected_losses)  # the weights do not depend on the draws
    h1 = Hedge(randomized=True, random_state=3).run(LOSSES)
    h2 = Hedge(randomized=True, random_state=3).run(LOSSES)
    assert_array_equal(h1.predictions, h2.predictions)
    assert_array_equal(h1.losses, LOSSES[np.arange(300), h1.predictions])


def test_predict_one_keeps_its_draw_for_the_round():
    rwm = RandomizedWeightedMajority(random_state=0).learn_one(BINARY[0], 1)
    first = [rwm.predict_one([1, 0, 1, 0, 1, 0]) for _ in range(5)]
    assert len(set(first)) == 1


# -- weights ----------------------------------------------------------------------------


@FEW
@given(st.integers(0, 2**32 - 1), st.floats(0.01, 50.0))
def test_weights_sum_to_one(seed, eta):
    losses = np.random.default_rng(seed).random((30, 4))
    for est in (Hedge(eta=eta), FixedShare(eta=eta, alpha=0.1)):
        for row in losses:
            est.learn_one(row)
            assert est.weights_.sum() == pytest.approx(1.0)
            assert (est.weights_ >= 0).all()


def test_log_domain_weights_survive_long_streams():
    """exp(-eta L) underflows after a few hundred rounds; the log-weights never do."""
    losses = np.tile([[1.0, 0.999, 0.0]], (20000, 1))
    hedge = Hedge(eta=5.0)
    res = hedge.run(losses)
    assert np.isfinite(res.expected_losses).all()
    assert_allclose(hedge.weights_, [0.0, 0.0, 1.0])
    assert np.isfinite(hedge.log_weights_[:2]).all() and hedge.log_weights_[2] == 0.0
    wm = WeightedMajority(beta=1e-9).run(np.tile([[1.0, 0.0]], (5000, 1)), np.ones(5000))
    assert np.isfinite(wm.loss_bound).all() and wm.n_mistakes <= 1


def test_halving_weights_are_uniform_on_the_consistent_experts():
    halving = Halving().learn_one([1, 1, 0, 0], 1)
    assert_array_equal(halving.weights_, [0.5, 0.5, 0.0, 0.0])
    assert_array_equal(halving.consistent_, [0, 1])


# -- results --------------------------------------------------------------------------------


def test_result_fields():
    res = WeightedMajority(beta=0.5).run(BINARY, OUTCOMES)
    assert isinstance(res, ExpertsResult)
    assert res.n_rounds == 300 and res.n_experts == 6
    assert res.best_expert == int(np.argmin(res.expert_losses))
    assert res.best_expert_loss == res.best_losses[-1]
    assert res.cumulative_loss == res.n_mistakes == res.cumulative_mistakes[-1]
    assert_array_equal(res.regret, res.cumulative_losses - res.best_losses)
    assert_array_equal(res.regret_bound, res.loss_bound - res.best_losses)
    assert "ln(2/(1+beta))" in res.bound_formula
    assert WeightedAverage().run(UNIT, OUTCOMES).n_mistakes is None


# -- scikit-learn contract and persistence ------------------------------------------------------


@pytest.mark.parametrize("template", ALL, ids=_ids(ALL))
def test_clone_and_params(template):
    twin = clone(template)
    assert twin.get_params() == template.get_params()
    assert not any(k.endswith("_") for k in vars(twin))
    with pytest.raises(NotFittedError):
        twin.weights_


def _continue_identically(a, b, template):
    advice = dict((id(e), d) for e, d in ADVICE_LEARNERS).get(id(template))
    ra = a.run(advice[200:], OUTCOMES[200:]) if advice is not None else a.run(LOSSES[200:])
    rb = b.run(advice[200:], OUTCOMES[200:]) if advice is not None else b.run(LOSSES[200:])
    assert_array_equal(ra.predictions, rb.predictions)
    assert_array_equal(ra.cumulative_losses, rb.cumulative_losses)
    assert_array_equal(a.weights_, b.weights_)


@pytest.mark.parametrize("template", ALL, ids=_ids(ALL))
def test_pickle_and_save_load_round_trip(template, tmp_path):
    advice = dict((id(e), d) for e, d in ADVICE_LEARNERS).get(id(template))
    est = clone(template)
    if advice is not None:
        est.run(advice[:200], OUTCOMES[:200])
        if isinstance(est, RandomizedWeightedMajority):
            est.predict_one(advice[200])  # a pending draw is part of the state
    else:
        est.run(LOSSES[:200])
    copy = pickle.loads(pickle.dumps(est))
    loaded = olearn.load(est.save(tmp_path / "model.npz"))
    assert type(loaded) is type(est) and loaded.get_params() == est.get_params()
    reference = pickle.loads(pickle.dumps(est))
    _continue_identically(reference, copy, template)
    _continue_identically(est, loaded, template)


# -- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: WeightedMajority(beta=1.0).run(BINARY, OUTCOMES), "beta=1.0 is invalid"),
        (lambda: WeightedMajority().run(BINARY[:, :3] * 0.5, OUTCOMES), "binary advice"),
        (lambda: WeightedMajority().run(BINARY, OUTCOMES + 2), r"y has 2\.0 at round 0"),
        (lambda: WeightedMajority().run(np.where(BINARY == 1, np.nan, 0), OUTCOMES), "nan at round 0, expert"),
        (lambda: WeightedMajority().run(BINARY, OUTCOMES[:10]), "more rounds than y has outcomes"),
        (lambda: WeightedMajority().run(BINARY[:10], OUTCOMES), "more outcomes than the advice"),
        (lambda: WeightedMajority().run(BINARY[0], OUTCOMES[:1]), "must be 2-d"),
        (lambda: WeightedMajority().learn_one([1, 0], 1).learn_one([1, 0, 1], 1), "has 3 experts; this"),
        (lambda: WeightedMajority().run(iter([]), []), "no rounds"),
        (lambda: Halving().run([[1, 0], [1, 0]], [1, 0]), "no expert is perfect"),
        (lambda: WeightedAverage(loss="hinge").run(UNIT, OUTCOMES), "loss='hinge' is invalid"),
        (lambda: WeightedAverage().run(UNIT + 0.5, OUTCOMES), r"in \[0, 1\]"),
        (lambda: WeightedAverage(eta=-1.0).run(UNIT, OUTCOMES), "eta=-1.0 is invalid"),
        (lambda: Hedge().run(LOSSES * 2), r"assumes losses in \[0, 1\].*loss_range"),
        (lambda: Hedge(loss_range=(1, 0)).run(LOSSES), "loss_range=\\(1, 0\\) is invalid"),
        (lambda: Hedge(horizon=0).run(LOSSES), "horizon=0 is invalid"),
        (lambda: Hedge().learn_one([0.5, np.inf]), r"loss_vector\[1\] is inf"),
        (lambda: Hedge().predict_one(), "number of experts"),
        (lambda: FixedShare(alpha=1.0).run(LOSSES), "alpha=1.0 is invalid"),
        (lambda: FixedShare().run(LOSSES, comparator=[0] * 10), "comparator has 10 entries"),
        (lambda: FixedShare().run(LOSSES, comparator=[7] * 300), "names expert 7"),
        (lambda: FixedShare().run(LOSSES, comparator=[0.5] * 300), "expert indices"),
    ],
)
def test_bad_input_gives_a_clear_error(make, message):
    with pytest.raises((ValueError, NotFittedError), match=message):
        make()


def test_fixed_share_comparator_needs_a_fresh_learner():
    fs = FixedShare()
    fs.run(LOSSES[:5])
    with pytest.raises(ValueError, match="has not learned any round"):
        fs.run(LOSSES[5:], comparator=np.zeros(295, dtype=int))


def test_halving_failure_keeps_the_rounds_before():
    halving = Halving()
    with pytest.raises(ValueError, match="at round 2"):
        halving.run([[1, 0], [1, 1], [0, 1]], [1, 1, 1])
    assert halving.n_rounds_ == 2 and halving.consistent_.tolist() == [0]


# -- an ensemble of online learners ----------------------------------------------------------------------


def test_learner_ensemble_mixes_olearn_learners(make_stream):
    X, y = make_stream(400, 5, seed=3, noise=0.05)
    labels = np.where(y > 0, "spam", "ham")
    learners = [olearn.Perceptron(), olearn.PAClassifier(variant="pa1", C=0.05), olearn.OGDClassifier(eta=0.1)]
    ensemble = LearnerEnsemble(learners, mixer=WeightedMajority(beta=np.exp(-1)))
    res = ensemble.run(X, labels)
    solo = [olearn.run(clone(est), X, labels).n_mistakes for est in learners]
    assert_array_equal(res.expert_losses, solo)
    assert res.n_mistakes <= res.loss_bound[-1]
    assert ensemble.classes_.tolist() == ["ham", "spam"]
    assert ensemble.weights_.sum() == pytest.approx(1.0)
    assert ensemble.predict_one(X[0]) in ("ham", "spam")
    ensemble.learn_one(X[1], labels[1])
    assert ensemble.mixer.n_rounds_ == 401


def test_learner_ensemble_errors(make_stream):
    X, y = make_stream(20, 3)
    with pytest.raises(ValueError, match="binary classifiers"):
        LearnerEnsemble([olearn.Perceptron()]).run(X, np.arange(20) % 3)
    with pytest.raises(ValueError, match="mixer="):
        LearnerEnsemble([olearn.Perceptron()], mixer=Hedge()).run(X, y)
    with pytest.raises(ValueError, match="non-empty list"):
        LearnerEnsemble([]).run(X, y)
    with pytest.raises(NotFittedError):
        LearnerEnsemble([olearn.Perceptron()]).predict_one(X[0])
