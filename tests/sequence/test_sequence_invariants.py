"""The paper's invariants for sequences, and the agreement of every way of feeding the learner."""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from oracles.sequence import brute_force_argmax, chain_score, hamming, loss_against

import olearn
from olearn.sequence import PASequence, hamming_errors


def _weights(est):
    return np.concatenate([est.coef_.ravel(), est.intercept_, est.transition_.ravel(), est.end_transition_])


def _index_labels(est, labels):
    return tuple(int(np.searchsorted(est.classes_, label)) for label in labels)


@pytest.mark.parametrize("fit_intercept,end_transition", [(False, False), (True, False), (True, True), (False, True)])
def test_after_a_pa_update_the_loss_against_the_prediction_is_zero(fit_intercept, end_transition, make_sequences):
    """PA (C = inf) moves w just enough: w'.Phi(y) - w'.Phi(yhat) = sqrt(rho(y, yhat)) (Sec. 8)."""
    X, y = make_sequences(40, d=4, labels=("a", "b", "c", "d"), lengths=(1, 5), seed=3)
    est = PASequence(variant="pa", fit_intercept=fit_intercept, end_transition=end_transition).partial_fit(
        X[:10], y[:10])
    checked = 0
    for x, labels in zip(X[10:], y[10:]):
        predicted = est.predict_one(x)
        est.learn_one(x, labels)
        truth, rival = _index_labels(est, labels), _index_labels(est, predicted)
        if truth == rival:
            continue
        loss = loss_against(est.coef_, est.intercept_, est.transition_, x, truth, rival,
                            math.sqrt(hamming(truth, rival)), fit_intercept,
                            est.end_transition_ if end_transition else None)
        assert abs(loss) < 1e-9
        checked += 1
    assert checked > 10


def test_after_a_max_loss_pa_update_the_loss_against_the_exhaustive_rival_is_zero(make_sequences):
    X, y = make_sequences(30, d=3, labels=("a", "b", "c"), lengths=(1, 4), seed=8)
    est = PASequence(variant="pa", update="max-loss", cost="sqrt-hamming").partial_fit(X[:8], y[:8])
    checked = 0
    for x, labels in zip(X[8:], y[8:]):
        truth = _index_labels(est, labels)
        em = x @ est.coef_.T + est.intercept_
        transition, end = est.transition_, est.end_transition_

        def augmented(r, em=em, transition=transition, end=end, truth=truth):
            return chain_score(em, transition, r, end) + hamming(truth, r) ** 0.25

        rival = brute_force_argmax(augmented, len(truth), range(est.classes_.size))
        loss_before = augmented(rival) - chain_score(em, transition, truth, end)
        est.learn_one(x, labels)
        loss_after = loss_against(est.coef_, est.intercept_, est.transition_, x, truth, rival,
                                  hamming(truth, rival) ** 0.25, True, est.end_transition_)
        if loss_before > 1e-12:
            assert abs(loss_after) < 1e-9
            checked += 1
    assert checked > 10


def test_the_max_loss_is_at_least_the_prediction_based_loss(make_sequences):
    """On the same weights, l_ML = max_r l(r) >= l(yhat) = l_PB (Sec. 8)."""
    X, y = make_sequences(40, d=3, lengths=(1, 5), seed=5)
    est = PASequence(variant="pa1", C=0.5).partial_fit(X[:20], y[:20])
    larger = 0
    for x, labels in zip(X[20:], y[20:]):
        by_prediction = olearn.run(pickle.loads(pickle.dumps(est)), [x], [labels])
        max_loss = olearn.run(pickle.loads(pickle.dumps(est)).set_params(update="max-loss"), [x], [labels])
        assert max_loss.losses[0] >= by_prediction.losses[0] - 1e-12
        larger += max_loss.losses[0] > by_prediction.losses[0] + 1e-9
    assert larger > 3


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_pa1_steps_never_exceed_C(update, make_sequences):
    X, y = make_sequences(80, d=3, lengths=(1, 5), seed=6)
    res = olearn.run(PASequence(variant="pa1", C=0.02, update=update), X, y)
    assert res.taus.max() == pytest.approx(0.02)
    assert (res.taus <= 0.02).all()


def test_pa1_with_infinite_C_is_pa(make_sequences):
    X, y = make_sequences(40, d=3, seed=1)
    a = PASequence(variant="pa1", C=math.inf).partial_fit(X, y)
    b = PASequence(variant="pa").partial_fit(X, y)
    assert_array_equal(_weights(a), _weights(b))


def test_pa2_step_is_the_loss_over_the_norm_plus_half_inverse_C():
    """One hand-derived round: the first sequence, rival 'aa' for truth 'ab' (all scores 0)."""
    X = [np.array([[1.0, 0.0], [0.0, 2.0]])]
    res = olearn.run(PASequence(variant="pa2", C=0.25, fit_intercept=False, end_transition=False), X, [["a", "b"]])
    # the bare Phi, z: emission b: +x_2, a: -x_2 (||.||^2 = 4 + 4); transitions (a,b) +1, (a,a) -1 (1 + 1)
    assert res.losses[0] == pytest.approx(1.0)  # sqrt(hamming) = 1
    assert res.taus[0] == pytest.approx(1.0 / (10.0 + 2.0))
    # the defaults add the biases of b (+1) and a (-1) and the end transitions of b (+1) and a (-1)
    res = olearn.run(PASequence(variant="pa2", C=0.25), X, [["a", "b"]])
    assert res.taus[0] == pytest.approx(1.0 / (14.0 + 2.0))


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_learn_one_partial_fit_and_run_agree(update, make_sequences):
    X, y = make_sequences(40, d=4, lengths=(0, 5), seed=11)
    batch = PASequence(update=update, fit_intercept=True).partial_fit(X, y)
    one = PASequence(update=update, fit_intercept=True)
    predictions = []
    for x, labels in zip(X, y):
        predictions.append(one.predict_one(x))
        one.learn_one(x, labels)
    ran = PASequence(update=update, fit_intercept=True)
    res = olearn.run(ran, X, y)
    assert_array_equal(_weights(one), _weights(batch))
    assert_array_equal(_weights(ran), _weights(batch))
    for got, expected in zip(res.predictions, predictions):
        if expected is None:
            assert got is None
        else:
            assert_array_equal(got, expected)


def test_splitting_the_stream_into_batches_changes_nothing(make_sequences):
    X, y = make_sequences(30, d=3, labels=("x", "y", "z"), seed=12)
    whole = PASequence(variant="pa2").partial_fit(X, y)
    pieces = PASequence(variant="pa2")
    for lo, hi in [(0, 1), (1, 7), (7, 8), (8, 30)]:
        pieces.partial_fit(X[lo:hi], y[lo:hi])
    assert_array_equal(_weights(pieces), _weights(whole))


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
def test_dense_and_sparse_sequences_learn_identically(update, make_sequences):
    X, y = make_sequences(30, d=5, lengths=(0, 4), seed=13, density=0.4)
    dense = PASequence(update=update).partial_fit(X, y)
    for convert in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        sparse = PASequence(update=update).partial_fit([convert(s) for s in X], y)
        assert_array_equal(_weights(sparse), _weights(dense))
        assert_array_equal(np.concatenate(sparse.predict([convert(s) for s in X])),
                           np.concatenate(dense.predict(X)))
    mixed = [sp.csr_matrix(s) if i % 2 else s for i, s in enumerate(X)]
    assert_array_equal(_weights(PASequence(update=update).partial_fit(mixed, y)), _weights(dense))


def test_run_reports_the_rounds_and_the_hamming_errors(make_sequences):
    X, y = make_sequences(50, d=4, lengths=(0, 5), seed=14)
    res = olearn.run(PASequence(), X, y)
    errors = hamming_errors(y, res.predictions)
    assert res.n_rounds == 50
    assert res.predictions[0] is None and errors[0] == len(y[0])
    assert_array_equal(res.cumulative_mistakes, np.cumsum(errors > 0))
    assert res.n_mistakes == np.count_nonzero(errors > 0)
    assert res.n_updates == np.count_nonzero(res.taus)
    assert res.cumulative_loss == pytest.approx(res.losses.sum())
    empty = [i for i, labels in enumerate(y) if len(labels) == 0]
    assert empty and all(res.predictions[i].size == 0 and res.losses[i] == 0.0 for i in empty)
    quiet = olearn.run(PASequence(), X, y, record=False)
    assert (quiet.n_rounds, quiet.n_mistakes, quiet.cumulative_loss) == (res.n_rounds, res.n_mistakes,
                                                                        res.cumulative_loss)
    assert quiet.predictions.size == 0


def test_a_separable_chain_is_learned():
    """Labels given by the sign of the first feature, kept away from 0: a few passes leave no training error."""
    rng = np.random.default_rng(0)
    X = [rng.standard_normal((int(rng.integers(2, 6)), 3)) for _ in range(60)]
    for s in X:
        s[:, 0] += np.sign(s[:, 0])
    y = [np.where(s[:, 0] > 0, "pos", "neg") for s in X]
    est = PASequence(variant="pa")
    for _ in range(5):
        est.partial_fit(X, y)
    assert est.score(X, y) == 1.0
