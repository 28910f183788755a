"""The bounds of Sec. 7 hold for PAMultilabel on random and adversarial streams."""

import numpy as np
import pytest

import olearn
from olearn.bounds._uniclass_multilabel import (
    multilabel_pa1_mistake_bound,
    multilabel_pa2_loss_bound,
    multilabel_pa_separable_bound,
)
from olearn.multilabel import PAMultilabel

K = 4


def _relevant(U, x, threshold=0.0):
    return sorted(np.flatnonzero(U @ x > threshold).tolist())


def _separable(n, d, seed, noise=0.0):
    """Label sets of a competitor U with margin >= 1 on every row that has something to rank."""
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((K, d))
    X = rng.standard_normal((n, d))
    sets = [_relevant(U, x) for x in X]
    margins = []
    for x, labels in zip(X, sets):
        s = U @ x
        rel = np.isin(np.arange(K), labels)
        if rel.any() and not rel.all():
            margins.append(s[rel].min() - s[~rel].max())
    U /= min(margins)  # now every margin is >= 1
    flip = rng.random(n) < noise
    sets = [sorted(set(labels) ^ {int(rng.integers(K))}) if f else labels for labels, f in zip(sets, flip)]
    return X, sets, U


def _measured(res, variant):
    return res.n_mistakes if variant == "pa1" else float((res.losses**2).sum())


def _bound(variant, X, sets, U, C, fit_intercept=False):
    kwargs = {"classes": range(K), "fit_intercept": fit_intercept}
    if variant == "pa":
        return multilabel_pa_separable_bound(X, sets, U, **kwargs)
    if variant == "pa1":
        return multilabel_pa1_mistake_bound(X, sets, U, C, **kwargs)
    return multilabel_pa2_loss_bound(X, sets, U, C, **kwargs)


CASES = [("pa", float("inf")), ("pa1", 0.1), ("pa1", 2.0), ("pa2", 0.1), ("pa2", 10.0)]


@pytest.mark.parametrize("variant,C", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_bounds_hold_on_random_separable_streams(variant, C, seed):
    X, sets, U = _separable(300, 5, seed)
    res = olearn.run(PAMultilabel(variant=variant, C=C).partial_fit(X[:0], [], classes=range(K)), X, sets)
    assert res.n_mistakes > 0
    assert _measured(res, variant) <= _bound(variant, X, sets, U, C)
    # labels joining the ranking as they appear: the bound still holds
    joined = olearn.run(PAMultilabel(variant=variant, C=C), X, sets)
    assert _measured(joined, variant) <= _bound(variant, X, sets, U, C)


@pytest.mark.parametrize("variant,C", [c for c in CASES if c[0] != "pa"])
@pytest.mark.parametrize("seed", range(3))
def test_bounds_hold_on_noisy_streams(variant, C, seed):
    X, sets, U = _separable(300, 5, seed, noise=0.15)
    res = olearn.run(PAMultilabel(variant=variant, C=C, fit_intercept=True), X, sets)
    U1 = np.hstack([U, np.zeros((K, 1))])
    assert _measured(res, variant) <= _bound(variant, X, sets, U1, C, fit_intercept=True)
    assert multilabel_pa_separable_bound(X, sets, U, classes=range(K)) == np.inf


@pytest.mark.parametrize("variant,C", CASES)
def test_bounds_hold_against_an_adaptive_adversary(variant, C):
    """Each round, of 30 candidate rows labelled by U, the one on which the learner's loss is largest."""
    rng = np.random.default_rng(7)
    _, _, U = _separable(300, 5, 0)
    est = PAMultilabel(variant=variant, C=C).partial_fit(np.empty((0, 5)), [], classes=range(K))
    X, sets = [], []
    for _ in range(150):
        pool = rng.standard_normal((30, 5))
        labels = [_relevant(U, x) for x in pool]
        scores = est.decision_function(pool)
        losses = []
        for s, rel in zip(scores, labels):
            mask = np.isin(np.arange(K), rel)
            losses.append(-np.inf if mask.all() or not mask.any() else 1 - (s[mask].min() - s[~mask].max()))
        pick = int(np.argmax(losses))
        est.learn_one(pool[pick], labels[pick])
        X.append(pool[pick])
        sets.append(labels[pick])
    X = np.array(X)
    # U's margin on this stream may be below 1: rescale to the stream's smallest margin
    margins = []
    for x, rel in zip(X, sets):
        mask = np.isin(np.arange(K), rel)
        if mask.any() and not mask.all():
            margins.append((U @ x)[mask].min() - (U @ x)[~mask].max())
    U = U / min(margins)
    res = olearn.run(PAMultilabel(variant=variant, C=C).partial_fit(X[:0], [], classes=range(K)), X, sets)
    assert res.n_mistakes > 10
    assert _measured(res, variant) <= _bound(variant, X, sets, U, C)


def test_bound_inputs_are_checked():
    X = np.eye(2)
    with pytest.raises(ValueError, match=r"U must have shape \(3, 2\)"):
        multilabel_pa_separable_bound(X, [[0], [1]], np.zeros((2, 2)), classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"U must have shape \(2, 3\).*intercept"):
        multilabel_pa_separable_bound(X, [[0], [1]], np.zeros((2, 2)), fit_intercept=True)
    with pytest.raises(ValueError, match="C must be"):
        multilabel_pa1_mistake_bound(X, [[0], [1]], np.zeros((2, 2)), C=-1)
    with pytest.raises(ValueError, match="no rows"):
        multilabel_pa2_loss_bound(np.empty((0, 2)), [], np.zeros((0, 2)), C=1.0)
