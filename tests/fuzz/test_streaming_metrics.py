"""Fuzzing olearn.metrics with random sequences of updates, reverts of any held round and batches.

Each example draws a metric and a stream (labels from a few classes, predictions that
are often right, sometimes None, scores with many ties, weights with zeros), then
applies a random sequence of operations: ``update`` of a new round, ``revert`` of a
round still held (any of them, not only the last), and the batch path of
:func:`olearn.run` (``_values_at`` over a few unit-weight rounds with checkpoints).
Invariant after every operation: the value equals scikit-learn's metric of the rounds
held, computed from scratch (NaN where scikit-learn's is NaN, the documented value
where scikit-learn has none: an empty stream).
"""

import math
import warnings

import numpy as np
import sklearn
from sklearn import metrics as skm

from olearn import metrics as M

NONE = -1


def _prf(fn, average, pos_label=None):
    def value(t, p, w):
        q = np.array([NONE if v is None else v for v in p])
        if average == "binary":
            return fn(t, q, labels=[pos_label], average="micro", sample_weight=w)
        labels = sorted(set(t.tolist()) | {v for v in p if v is not None})
        return fn(t, q, labels=labels, average=average, sample_weight=w)

    return value


def _auc(t, p, w):
    positive = t == 1
    if positive.all() or not positive.any():
        return math.nan
    return skm.roc_auc_score(positive, p, sample_weight=w)


KINDS = [
    ("labels", M.Accuracy, lambda t, p, w: skm.accuracy_score(t, np.array([NONE if v is None else v for v in p]),
                                                              sample_weight=w)),
    ("labels", lambda: M.Precision(average="macro"), _prf(skm.precision_score, "macro")),
    ("labels", lambda: M.Recall(average="micro"), _prf(skm.recall_score, "micro")),
    ("labels", lambda: M.F1(average="binary", pos_label=1), _prf(skm.f1_score, "binary", 1)),
    ("labels", lambda: M.F1(average="macro"), _prf(skm.f1_score, "macro")),
    ("probabilities", M.LogLoss, lambda t, p, w: skm.log_loss(t == 1, p, sample_weight=w, labels=[False, True])),
    ("scores", M.ROCAUC, _auc),
    ("values", M.MAE, lambda t, p, w: skm.mean_absolute_error(t, p, sample_weight=w)),
    ("values", M.RMSE, lambda t, p, w: skm.root_mean_squared_error(t, p, sample_weight=w)),
    ("values", M.R2, lambda t, p, w: _r2(t, p, w)),
]


def _r2(t, p, w):
    if len(t) < 2:
        return math.nan
    weighted = w > 0
    if len(set(t[weighted].tolist())) <= 1:
        # a constant target: scikit-learn's rule (1 if exact, else 0); its weighted mean of one distinct target
        # can miss it by rounding and divide by that
        return 1.0 if np.all(t[weighted] == p[weighted]) else 0.0
    return skm.r2_score(t, p, sample_weight=w)


def _round(rng, kind, k, offset=0.0, scale=1.0):
    truth = int(rng.integers(0, k))
    if kind == "labels":
        pred = None if rng.random() < 0.1 else (truth if rng.random() < 0.5 else int(rng.integers(0, k)))
    elif kind == "probabilities":
        pred = float(rng.choice([0.0, 1.0, rng.random(), rng.random()]))
    elif kind == "scores":
        pred = float(rng.integers(-3, 4)) / 2 + truth * rng.random()
    else:
        # one offset and scale per example: a large offset with a small spread is what running sums of squares
        # get wrong; a revert of rounds a million times larger than those left is another matter (see R2)
        truth = float(rng.standard_normal() * scale) + offset
        pred = truth + float(rng.standard_normal()) if rng.random() < 0.8 else truth
    weight = float(rng.choice([0.0, 1.0, rng.uniform(0.1, 5.0)]))
    return truth, pred, weight


def _expected(reference, held, kind):
    t = np.array([r[0] for r in held])
    p = [r[1] for r in held]
    w = np.array([r[2] for r in held])
    p = np.array(p, dtype=object) if kind == "labels" else np.array(p, dtype=np.float64)
    # scikit-learn's checks of its arguments (their types, their finiteness: the rounds are finite numbers) cost more
    # than its metrics on a few rounds
    with warnings.catch_warnings(), sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        warnings.simplefilter("ignore")
        return reference(t, p, w)


def _tolerance(metric, held, expected, mass):
    """1e-9 relative, plus the rounding that adding and taking back rounds may leave in running sums.

    ``mass`` holds, over every round added or taken back: sum w |y| (|y - offset| + 1) (R2: one pass stores the
    mean to an ulp of y, so the spread keeps about eps times this; two passes, as scikit-learn's, do better),
    sum w (y - p)^2 and sum w |y - p| (the running sums of RMSE and MAE keep about eps times these).
    """
    tol = 1e-9 * max(1.0, abs(expected))
    eps = np.finfo(float).eps
    t, p, w = (np.array([r[i] for r in held], dtype=float) for i in range(3)) if held and isinstance(
        metric, (M.R2, M.RMSE, M.MAE)) else (None, None, None)
    if isinstance(metric, M.R2) and not math.isnan(expected):
        spread = float(w @ (t - np.average(t, weights=w)) ** 2)
        if spread > 0.0:
            tol += 64 * eps * mass[0] * abs(1.0 - expected) / spread
    elif isinstance(metric, M.RMSE):
        # the square root of a mean square that rounding left at 1e-17 instead of 0 is 3e-9
        tol += math.sqrt(64 * eps * mass[1] / w.sum())
    elif isinstance(metric, M.MAE):
        tol += 64 * eps * mass[2] / w.sum()
    return tol


def _mass(rounds, offset):
    """What adding or taking back ``rounds`` adds to ``mass`` (see _tolerance)."""
    return np.array([[w * abs(t) * (abs(t - offset) + 1.0), w * (t - p) ** 2, w * abs(t - p)] for t, p, w in rounds]
                    ).sum(axis=0)


def _check(metric, reference, held, kind, where, mass):
    got = metric.get()
    if not held or sum(r[2] for r in held) == 0.0:
        # no weight held: NaN for the means, 0 for the confusion ratios, as documented
        if kind in ("labels",) and not isinstance(metric, M.Accuracy):
            assert got == 0.0 or not held or got == _expected(reference, held, kind), (where, got)
        return
    expected = _expected(reference, held, kind)
    if math.isnan(expected):
        assert math.isnan(got), (where, got, expected)
        return
    assert abs(got - expected) <= _tolerance(metric, held, expected, mass), (where, metric, got, expected, held)


def campaign_metrics(n_examples, seed):
    rng = np.random.default_rng(seed)
    for example in range(n_examples):
        kind, make, reference = KINDS[example % len(KINDS)]
        k = int(rng.integers(2, 5)) if kind == "labels" else 2
        metric = make()
        offset, scale = float(rng.choice([0.0, 1e6, -3e8])), float(10.0 ** rng.integers(-2, 3))
        # R2 in one pass (Welford, reverts) keeps the spread to within about eps * sum over every round added or
        # taken back of w |y| |y - mean| (the mean is stored to an ulp of y); two passes, as scikit-learn's, do
        # better. ``mass`` is that sum; the tolerance of R2 follows from it
        mass = np.zeros(3)
        held = []
        for step in range(int(rng.integers(1, 40))):
            action = rng.random()
            where = f"example {example} step {step}"
            if action < 0.25 and held:
                truth, pred, weight = held.pop(int(rng.integers(0, len(held))))
                metric.revert(truth, pred, weight)
                mass += _mass([(truth, pred, weight)], offset) if kind == "values" else 0.0
            elif action < 0.35:
                batch = [_round(rng, kind, k, offset, scale) for _ in range(int(rng.integers(1, 8)))]
                batch = [(t, p, 1.0) for t, p, _ in batch]
                n = len(batch)
                ends = np.unique(np.append(rng.integers(1, n + 1, 2), n))
                t = np.array([r[0] for r in batch])
                p = np.array([r[1] for r in batch], dtype=object if kind == "labels" else np.float64)
                values = metric._values_at(t, p, ends)
                added = _mass(batch, offset) if kind == "values" else 0.0
                for end, value in zip(ends.tolist(), values.tolist()):
                    window = held + batch[:end]
                    if sum(r[2] for r in window) > 0.0:
                        expected = _expected(reference, window, kind)
                        assert (math.isnan(value) and math.isnan(expected)) or \
                            abs(value - expected) <= _tolerance(metric, window, expected, mass + added), \
                            (where, end, value, expected)
                held.extend(batch)
                mass += added
            else:
                round_ = _round(rng, kind, k, offset, scale)
                metric.update(*round_)
                held.append(round_)
                mass += _mass([round_], offset) if kind == "values" else 0.0
            _check(metric, reference, held, kind, where, mass)
    return n_examples


def test_metrics_campaign(campaign):
    assert campaign("fuzz.test_streaming_metrics:campaign_metrics", 200) >= 200
