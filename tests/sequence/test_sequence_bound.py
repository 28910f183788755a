"""The sequence bound of Crammer et al. (2006), Sec. 9 (the cost-sensitive analysis of Sec. 8, Lemma 9).

The competitor's max-loss is checked against a brute force over every labelling with Phi written out
from Eq. (59); the bound against hand values and against PASequence's runs.
"""

import itertools
import math

import numpy as np
import pytest

import olearn
from olearn.bounds import sequence_loss_bound
from olearn.sequence import HammingCost, PASequence

SLACK = 1 + 1e-9


def _phi(x, labels, k):
    """Eq. (59) with a start state: emissions x_j (x) e_{y_j}, transitions e_{y_{j-1}} (x) e_{y_j}, start row k,
    then the end transition e_{y_n} of the last label."""
    emission = np.zeros((k, x.shape[1]))
    transition = np.zeros((k + 1, k))
    end = np.zeros(k)
    previous = k
    for row, label in zip(x, labels):
        emission[label] += row
        transition[previous, label] += 1.0
        previous = label
    end[previous] = 1.0
    return np.concatenate([emission.ravel(), transition.ravel(), end])


def _brute_max_loss(x, labels, E, T, end, rho):
    """max over all k^n labellings r of u.(Phi(r) - Phi(y)) + sqrt(rho(h(r, y)))."""
    k = E.shape[0]
    u = np.concatenate([E.ravel(), T.ravel(), end])
    truth = _phi(x, labels, k)
    return max(
        float(u @ (_phi(x, r, k) - truth)) + math.sqrt(rho(int(np.sum(np.array(r) != labels)), len(labels)))
        for r in itertools.product(range(k), repeat=len(labels))
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rho", [lambda h, n: float(h), lambda h, n: h / max(n, 1) * 4.0], ids=["hamming", "scaled"])
@pytest.mark.parametrize("with_end", [False, True])
def test_max_loss_matches_a_brute_force_over_all_labellings(seed, rho, with_end):
    rng = np.random.default_rng(seed)
    k = 3
    X = [rng.normal(size=(n, 2)) for n in (1, 3, 4, 2)]
    y = [rng.integers(0, k, size=x.shape[0]) for x in X]
    E, T, end = rng.normal(size=(k, 2)), rng.normal(size=(k + 1, k)), rng.normal(size=k) * with_end
    expected = sum(_brute_max_loss(x, labels, E, T, end, rho) for x, labels in zip(X, y))
    C = 0.25
    got = sequence_loss_bound(X, y, E, T, variant="pa1", C=C, cost=HammingCost(rho), classes=range(k),
                              end_transition=end if with_end else None)
    u2 = float((E**2).sum() + (T**2).sum() + (end**2).sum())
    assert got == pytest.approx(u2 + 2 * C * expected, rel=1e-12)


def test_values_by_hand():
    """x = (1), (2); y = (a, a); u: emission a = 1, b = 0; no transitions. Rivals and their score - score(y) +
    sqrt(h): (a, a) 0; (a, b) -2 + 1; (b, a) -1 + 1; (b, b) -3 + sqrt 2. So l* = 0 and Thm. 2 applies:
    R^2 = 2 (1 + 2 + 2)^2 = 50, ||u||^2 = 1."""
    X, y = [np.array([[1.0], [2.0]])], [["a", "a"]]
    E, T = np.array([[1.0], [0.0]]), np.zeros((3, 2))
    assert sequence_loss_bound(X, y, E, T, variant="pa", classes=["a", "b"]) == pytest.approx(50.0)
    assert sequence_loss_bound(X, y, E, T, variant="pa2", C=0.5, classes=["a", "b"]) == pytest.approx(51.0)
    # with u = 0 every rival scores 0: l* = sqrt(2) (both positions wrong); PA-II: (50 + 1)(0 + 2 * 0.5 * 2) = 102
    zero = np.zeros((2, 1))
    assert sequence_loss_bound(X, y, zero, T, variant="pa2", C=0.5, classes=["a", "b"]) == pytest.approx(102.0)
    assert sequence_loss_bound(X, y, zero, T, variant="pa", classes=["a", "b"]) == math.inf
    # with an end transition (u's end weights 0: the same l* = 0) R grows by one sqrt 2: 2 (1 + 2 + 2 + 1)^2 = 72
    assert sequence_loss_bound(X, y, E, T, variant="pa", classes=["a", "b"], end_transition=[0.0, 0.0]) == (
        pytest.approx(72.0))
    # end weights (1, 0) favour a last: every rival loses 1 more where it ends in b, ||u||^2 = 2
    assert sequence_loss_bound(X, y, E, T, variant="pa", classes=["a", "b"], end_transition=[1.0, 0.0]) == (
        pytest.approx(144.0))


def test_bad_inputs_are_named():
    X, y = [np.ones((2, 1))], [["a", "b"]]
    with pytest.raises(ValueError, match=r"emission must have shape \(2, n_features\)"):
        sequence_loss_bound(X, y, np.zeros((3, 1)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"transition must have shape \(3, 2\)"):
        sequence_loss_bound(X, y, np.zeros((2, 1)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"end_transition must have shape \(2,\)"):
        sequence_loss_bound(X, y, np.zeros((2, 1)), np.zeros((3, 2)), end_transition=np.zeros(3))
    with pytest.raises(ValueError, match="Hamming distance only"):
        sequence_loss_bound(X, y, np.zeros((2, 1)), np.zeros((3, 2)), cost=lambda a, b: 1.0)
    with pytest.raises(ValueError, match="variant"):
        sequence_loss_bound(X, y, np.zeros((2, 1)), np.zeros((3, 2)), variant="pa3")
    with pytest.raises(ValueError, match="not one of classes"):
        sequence_loss_bound(X, y, np.zeros((2, 1)), np.zeros((3, 2)), classes=["a", "c"])


def _stream(seed, n=25, k=3, d=4, noise=0.0):
    """Sequences whose labels follow a hidden chain model, with a fraction ``noise`` of labels replaced."""
    rng = np.random.default_rng(seed)
    E, T = rng.normal(size=(k, d)) * 2, rng.normal(size=(k + 1, k))
    X, y = [], []
    for _ in range(n):
        x = rng.normal(size=(int(rng.integers(1, 6)), d))
        labels = np.argmax(x @ E.T, axis=1)
        flip = rng.random(labels.size) < noise
        labels[flip] = rng.integers(0, k, size=int(flip.sum()))
        X.append(x)
        y.append(labels)
    return X, y, E, T


def _sorted_competitor(model, k):
    """The learner's own final weights as a competitor, rows in sorted label order (they already are)."""
    E = np.hstack([model.coef_, model.intercept_[:, None]]) if model.fit_intercept else model.coef_
    E = np.vstack([E, np.zeros((k - E.shape[0], E.shape[1]))])
    T = np.zeros((k + 1, k))
    known = model.transition_.shape[1]
    T[:known, :known] = model.transition_[:known]
    T[k, :known] = model.transition_[known]
    end = np.zeros(k)
    end[:known] = model.end_transition_
    return E, T, end


@pytest.mark.parametrize("update", ["prediction", "max-loss"])
@pytest.mark.parametrize("variant, C", [("pa", 1.0), ("pa1", 0.1), ("pa1", 5.0), ("pa2", 0.2), ("pa2", 10.0)])
@pytest.mark.parametrize("noise", [0.0, 0.3])
@pytest.mark.parametrize("fit_intercept,end_transition", [(False, False), (True, False), (True, True)])
def test_the_bound_holds_for_pasequence(update, variant, C, noise, fit_intercept, end_transition):
    X, y, E, T = _stream(seed=int(noise * 10) + 3, noise=noise)
    k = 3
    phi = {"fit_intercept": fit_intercept, "end_transition": end_transition}
    res = olearn.run(PASequence(variant=variant, C=C, update=update, **phi), X, y)
    measured = float((res.taus * res.losses).sum()) if variant == "pa1" else float((res.losses**2).sum())
    trained = PASequence(variant="pa", **phi)
    for _ in range(5):
        trained.partial_fit(X, y)
    extra = [np.zeros(1)] if fit_intercept else []
    competitors = [_sorted_competitor(trained, k), (np.zeros((k, 4 + len(extra))), np.zeros((k + 1, k)), np.zeros(k))]
    if not fit_intercept:
        competitors.append((E, T * 0.0, np.zeros(k)))
    for U, V, end in competitors:
        bound = sequence_loss_bound(X, y, U, V, variant=variant, C=C, fit_intercept=fit_intercept, classes=range(k),
                                    end_transition=end if end_transition else None)
        assert measured <= bound * SLACK


@pytest.mark.parametrize("with_bias_and_end", [False, True])
def test_the_bound_holds_against_an_adaptive_adversary(with_bias_and_end):
    """Each new sequence is labelled with the learner's current prediction reversed: a rival it must fix."""
    rng = np.random.default_rng(5)
    phi = {"fit_intercept": with_bias_and_end, "end_transition": with_bias_and_end}
    est = PASequence(variant="pa2", C=1.0, cost="sqrt-hamming", **phi)
    X, y = [], []
    for t in range(30):
        x = rng.normal(size=(3, 2))
        labels = np.array([0, 1, 2]) if t < 2 else (2 - np.asarray(est.predict([x])[0]))
        est.learn_one(x, labels)
        X.append(x)
        y.append(labels)
    res = olearn.run(PASequence(variant="pa2", C=1.0, cost="sqrt-hamming", **phi), X, y)
    width = 3 if with_bias_and_end else 2
    for U, V, end in ((np.zeros((3, width)), np.zeros((4, 3)), np.zeros(3)),
                      (rng.normal(size=(3, width)), rng.normal(size=(4, 3)), rng.normal(size=3))):
        assert float((res.losses**2).sum()) <= sequence_loss_bound(
            X, y, U, V, variant="pa2", C=1.0, cost="sqrt-hamming", classes=range(3), fit_intercept=with_bias_and_end,
            end_transition=end if with_bias_and_end else None) * SLACK
