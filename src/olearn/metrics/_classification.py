"""Streaming metrics of classifiers: accuracy, precision, recall, F1, log loss and ROC AUC."""

import math

import numpy as np

from .._kernels._auc import auc_pass
from ._base import LABELS, PROBABILITIES, SCORES, MeanMetric, Metric, add_weighted, check_real

_EPS = np.finfo(np.float64).eps
_AVERAGES = ("binary", "macro", "micro")
# the most cells of a (checkpoint, class) table that olearn.run's batch path makes at once
TABLE_CELLS = 2**18


def _check_label(value, name):
    if value is None:
        raise ValueError(f"{name} must be a class label, not None")
    hash(value)  # a TypeError names an unhashable label before anything changes
    return value


def _encode(known, y_true, y_pred):
    """(classes, codes of y_true, codes of y_pred, -1 for None): the sorted classes of the arrays and of ``known``."""
    none = np.equal(y_pred, None) if y_pred.dtype == object else np.zeros(len(y_pred), dtype=bool)
    named = np.asarray(y_pred[~none].tolist()) if none.any() else y_pred
    try:
        classes = np.unique(np.concatenate([y_true, named] + ([np.asarray(known)] if known else [])))
    except TypeError as err:
        raise ValueError(f"the labels cannot be sorted ({err}); use labels of one type") from None
    pred_codes = np.full(len(y_pred), -1, dtype=np.int64)
    pred_codes[~none] = np.searchsorted(classes, named)
    return classes, np.searchsorted(classes, y_true), pred_codes


class Accuracy(MeanMetric):
    """Share of the rounds whose prediction is the true class (weighted by ``sample_weight``).

    A prediction of None (no class named: a stream's first round, or a tie in
    :func:`olearn.run`) is wrong. NaN before any weight was seen.

    Equal to ``sklearn.metrics.accuracy_score(y_true, y_pred, sample_weight=w)``.

    >>> from olearn.metrics import Accuracy
    >>> acc = Accuracy()
    >>> for y, p in [(1, 1), (0, 1), (1, None)]:
    ...     acc = acc.update(y, p)
    >>> acc
    Accuracy: 0.333333
    """

    consumes = LABELS

    def _add(self, y_true, y_pred, weight, sign):
        _check_label(y_true, "y_true")
        super()._add(y_true, y_pred, weight, sign)

    @staticmethod
    def _term(y_true, y_pred):
        return 1.0 if y_pred is not None and y_true == y_pred else 0.0

    @staticmethod
    def _terms(y_true, y_pred):
        return np.equal(y_true, y_pred).astype(np.float64)


class _ConfusionMetric(Metric):
    """A metric of the weighted confusion counts of each class: true positives, predictions, true labels.

    ``average="binary"`` reads the class ``pos_label`` only; ``"micro"`` adds
    the counts of all classes first; ``"macro"`` is the plain mean of the
    per-class values over the classes seen in ``y_true`` or ``y_pred``. A
    ratio whose denominator is 0 is 0 (scikit-learn's ``zero_division=0``,
    its default up to the warning). A prediction of None names no class: it is
    a miss of the true class and a prediction of none.
    """

    consumes = LABELS

    def __init__(self, average="binary", pos_label=1):
        if average not in _AVERAGES:
            raise ValueError(f"{type(self).__name__}: average must be one of {list(_AVERAGES)}; got {average!r}")
        _check_label(pos_label, "pos_label")
        self.average = average
        self.pos_label = pos_label
        super().__init__()

    def _params(self):
        params = {"average": self.average}
        if self.average == "binary":
            params["pos_label"] = self.pos_label
        return params

    def clone(self):
        return type(self)(average=self.average, pos_label=self.pos_label)

    def _reset(self):
        super()._reset()
        # per class: weights of [true positives, predictions, true labels], appearances in y_true or y_pred, and
        # the rounds of positive weight in each of the three weights
        self._counts = {}

    def _add(self, y_true, y_pred, weight, sign):
        _check_label(y_true, "y_true")
        if y_pred is not None:
            hash(y_pred)
        delta = sign * weight
        if y_pred is not None and y_pred == y_true:
            add_weighted(self._row(y_true), 0, 4, delta, sign)
        self._bump(y_true, 2, delta, sign)
        if y_pred is not None:
            self._bump(y_pred, 1, delta, sign)

    def _row(self, label):
        row = self._counts.get(label)
        if row is None:
            row = self._counts[label] = [0.0, 0.0, 0.0, 0, 0, 0, 0]
        return row

    def _bump(self, label, column, delta, sign):
        row = self._row(label)
        add_weighted(row, column, column + 4, delta, sign)
        row[3] += int(sign)
        if row[3] == 0:
            # the class has left the rounds held
            del self._counts[label]

    def get(self):
        labels = list(self._counts)
        table = np.array([self._counts[label][:3] for label in labels], dtype=np.float64).reshape(len(labels), 3)
        pos = labels.index(self.pos_label) if self.average == "binary" and self.pos_label in self._counts else -1
        return float(self._value(table[None, :, 0], table[None, :, 1], table[None, :, 2],
                                 np.ones((1, len(labels)), dtype=bool), pos)[0])

    def _value(self, tp, predicted, true, present, pos):
        """The value of each row of the (checkpoint, class) count tables; ``pos``: column of pos_label, or -1."""
        if self.average == "binary":
            if pos < 0:
                return np.zeros(tp.shape[0])
            return _ratio(*self._parts(tp[:, pos], predicted[:, pos], true[:, pos]))
        if self.average == "micro":
            return _ratio(*self._parts(tp.sum(axis=1), predicted.sum(axis=1), true.sum(axis=1)))
        per_class = _ratio(*self._parts(tp, predicted, true)) * present
        n_present = present.sum(axis=1)
        return np.where(n_present > 0, per_class.sum(axis=1) / np.maximum(n_present, 1), 0.0)

    def _values_at(self, y_true, y_pred, ends):
        labels = list(self._counts)
        classes, true_codes, pred_codes = _encode(labels, y_true, y_pred)
        plain, k = classes.tolist(), len(classes)
        # the counts held, per class: the rows of _counts' layout
        state = np.zeros((7, k))
        for label in labels:
            state[:, plain.index(label)] = self._counts[label]
        pos = plain.index(self.pos_label) if self.average == "binary" and self.pos_label in plain else -1
        named = pred_codes >= 0
        hit = named & (pred_codes == true_codes)
        values = np.empty(len(ends))
        # the checkpoints in groups, so that the (checkpoint, class) tables stay small however many there are
        group = max(1, TABLE_CELLS // max(k, 1))
        start = 0
        for first in range(0, len(ends), group):
            stops = np.asarray(ends[first: first + group], dtype=np.int64)
            rows = slice(start, int(stops[-1]))
            # the checkpoint of each round of the group, then its counts per class, summed up to each checkpoint
            segment = np.repeat(np.arange(len(stops)), np.diff(np.concatenate([[start], stops])))

            def counted(mask, codes):
                mask, codes = mask[rows], codes[rows]
                counts = np.bincount(segment[mask] * k + codes[mask], minlength=len(stops) * k)
                return np.cumsum(counts.reshape(len(stops), k), axis=0)

            tp, predicted = counted(hit, true_codes), counted(named, pred_codes)
            true = counted(np.ones(len(y_true), dtype=bool), true_codes)
            # appearances: every round shows its true class, and its prediction if it names one
            seen = true + predicted
            values[first: first + len(stops)] = self._value(tp + state[0], predicted + state[1], true + state[2],
                                                            seen + state[3] > 0, pos)
            # each round weighs 1: it adds to the weights and to the counts of rounds of positive weight alike
            state += np.stack([tp[-1], predicted[-1], true[-1], seen[-1], tp[-1], predicted[-1], true[-1]])
            start = int(stops[-1])
        self._counts = {label: state[:3, c].tolist() + state[3:, c].astype(np.int64).tolist()
                        for c, label in enumerate(plain) if state[3, c] > 0}
        self._n += len(y_true)
        return values


def _ratio(numerator, denominator):
    """numerator / denominator, 0 where the denominator is 0."""
    return np.divide(numerator, denominator, out=np.zeros(np.shape(numerator)), where=denominator > 0)


class Precision(_ConfusionMetric):
    """Precision: true positives over predictions of the class (weighted).

    Equal to ``sklearn.metrics.precision_score(y_true, y_pred, average=...,
    pos_label=..., sample_weight=w)``, 0 where no prediction of the class was
    made (scikit-learn's default ``zero_division``).

    >>> from olearn.metrics import Precision
    >>> m = Precision()
    >>> for y, p in [(1, 1), (0, 1), (1, 0)]:
    ...     m = m.update(y, p)
    >>> m
    Precision(average='binary', pos_label=1): 0.500000
    """

    @staticmethod
    def _parts(tp, predicted, true):
        return tp, predicted


class Recall(_ConfusionMetric):
    """Recall: true positives over the rounds of the class (weighted).

    Equal to ``sklearn.metrics.recall_score(y_true, y_pred, average=...,
    pos_label=..., sample_weight=w)``, 0 where the class never was the true one.
    """

    @staticmethod
    def _parts(tp, predicted, true):
        return tp, true


class F1(_ConfusionMetric):
    """F1: 2 tp / (predictions + true labels) of the class (weighted); the macro average is the mean of the classes' F1.

    Equal to ``sklearn.metrics.f1_score(y_true, y_pred, average=...,
    pos_label=..., sample_weight=w)``, 0 where the class was neither predicted
    nor true.
    """

    @staticmethod
    def _parts(tp, predicted, true):
        return 2.0 * tp, predicted + true


class LogLoss(MeanMetric):
    """Mean negative log-likelihood of the true class (weighted).

    ``y_pred`` is the probability of ``pos_label`` (a number in [0, 1]) or a
    dict ``{class: probability}`` as ``predict_proba_one`` returns (a class
    missing from it has probability 0). The probability of the true class is
    clipped to ``[eps, 1 - eps]``, ``eps`` the machine epsilon of float64, as
    scikit-learn does, so that a confident mistake costs about 36, not
    infinity. NaN before any weight was seen.

    Equal to ``sklearn.metrics.log_loss(y_true, p, labels=..., sample_weight=w)``.

    >>> from olearn.metrics import LogLoss
    >>> LogLoss().update(1, 0.5).update(0, 0.5)
    LogLoss(pos_label=1): 0.693147
    """

    consumes = PROBABILITIES
    bigger_is_better = False

    def __init__(self, pos_label=1):
        self.pos_label = _check_label(pos_label, "pos_label")
        super().__init__()

    def _params(self):
        return {"pos_label": self.pos_label}

    def _term(self, y_true, y_pred):
        _check_label(y_true, "y_true")
        if isinstance(y_pred, dict):
            p = _check_probability(y_pred.get(y_true, 0.0))
        else:
            p = _check_probability(y_pred)
            p = p if y_true == self.pos_label else 1.0 - p
        return -math.log(min(max(p, _EPS), 1.0 - _EPS))

    def _terms(self, y_true, y_pred):
        p = np.where(np.equal(y_true, self.pos_label), y_pred, 1.0 - y_pred)
        return -np.log(np.clip(p, _EPS, 1.0 - _EPS))


def _check_probability(value):
    p = check_real(value, "the probability")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a probability must be in [0, 1]; got {p}")
    return p


class ROCAUC(Metric):
    """Area under the ROC curve of real-valued scores, exact.

    ``y_pred`` is a score of ``pos_label`` (higher means more likely; a
    decision value or a probability). The value is the weighted share of
    (positive, negative) pairs that the scores order correctly, a tie counting
    one half: the Mann-Whitney statistic, which is exactly the trapezoidal
    area under the ROC curve that scikit-learn computes, ties included. NaN
    while one of the two classes has no weight (scikit-learn's value too).

    The rounds are held as a table of the distinct scores, sorted, with the
    weight of each class at each; ``update`` and ``revert`` note their change
    in O(1) and ``get`` merges the changes in (O(d) for d distinct scores,
    plus sorting the new ones) and sums the table, cached until the next
    change. :func:`olearn.run` computes the value at every checkpoint in one
    compiled pass over a Fenwick tree, O(n log n).

    Equal to ``sklearn.metrics.roc_auc_score(y_true == pos_label, y_pred,
    sample_weight=w)``, not an approximation over fixed thresholds.

    >>> from olearn.metrics import ROCAUC
    >>> m = ROCAUC()
    >>> for y, s in [(1, 0.9), (0, 0.1), (1, 0.4), (0, 0.4)]:
    ...     m = m.update(y, s)
    >>> m
    ROCAUC(pos_label=1): 0.875000
    """

    consumes = SCORES

    def __init__(self, pos_label=1):
        self.pos_label = _check_label(pos_label, "pos_label")
        super().__init__()

    def _params(self):
        return {"pos_label": self.pos_label}

    def _reset(self):
        super()._reset()
        # the distinct scores, increasing, and per score: [weight of negatives, weight of positives, rounds,
        # rounds of positive weight among the negatives, among the positives]
        self._scores = np.empty(0)
        self._rows = np.empty((0, 5))
        self._changes = {}  # score -> the change of its row since the last merge
        self._cached = None

    def _add(self, y_true, y_pred, weight, sign):
        _check_label(y_true, "y_true")
        score = check_real(y_pred, "the score") + 0.0  # -0.0 and 0.0 are one score
        change = self._changes.get(score)
        if change is None:
            change = self._changes[score] = [0.0, 0.0, 0, 0, 0]
        positive = int(y_true == self.pos_label)
        change[positive] += sign * weight
        change[2] += int(sign)
        if weight != 0.0:
            change[3 + positive] += int(sign)
        self._cached = None

    def _merged(self):
        """The table with the changes merged in."""
        if self._changes:
            scores = np.concatenate([self._scores, np.fromiter(self._changes, np.float64, len(self._changes))])
            rows = np.concatenate([self._rows, np.array(list(self._changes.values()), dtype=np.float64)])
            self._changes = {}
            self._set(scores, rows)
        return self._scores, self._rows

    def _set(self, scores, rows):
        """Hold the rows of ``scores`` (repeats summed), without the scores no round holds any more."""
        distinct, inverse = np.unique(scores, return_inverse=True)
        table = np.column_stack([np.bincount(inverse, weights=rows[:, c], minlength=len(distinct)) for c in range(5)])
        # a class's weight is exactly 0 once its last round of positive weight has gone (see add_weighted)
        table[table[:, 3] == 0, 0] = 0.0
        table[table[:, 4] == 0, 1] = 0.0
        kept = table[:, 2] > 0
        self._scores, self._rows = distinct[kept], table[kept]

    def get(self):
        if self._cached is None:
            _, rows = self._merged()
            negatives, positives = rows[:, 0], rows[:, 1]
            below = np.cumsum(negatives) - negatives
            pairs = positives.sum() * negatives.sum()
            self._cached = float((positives @ (below + 0.5 * negatives)) / pairs) if pairs > 0 else math.nan
        return self._cached

    def _values_at(self, y_true, y_pred, ends):
        scores, rows = self._merged()
        negatives, positives = rows[:, 0], rows[:, 1]
        below = np.cumsum(negatives) - negatives
        totals = np.array([positives @ (below + 0.5 * negatives), positives.sum(), negatives.sum()])
        distinct, ranks = np.unique(np.concatenate([scores, y_pred + 0.0]), return_inverse=True)
        new = ranks[len(scores):].astype(np.int64)
        table = np.zeros((len(distinct), 5))
        table[ranks[: len(scores)]] = rows
        is_positive = np.equal(y_true, self.pos_label).astype(bool)
        neg_at, pos_at = table[:, 0].copy(), table[:, 1].copy()
        values = np.empty(len(ends))
        auc_pass(new, is_positive, neg_at, pos_at, totals, np.asarray(ends, dtype=np.int64), values)
        table[:, 0], table[:, 1] = neg_at, pos_at
        table[:, 2] += np.bincount(new, minlength=len(distinct))
        table[:, 3] += np.bincount(new[~is_positive], minlength=len(distinct))
        table[:, 4] += np.bincount(new[is_positive], minlength=len(distinct))
        self._scores, self._rows = distinct, table
        self._n += len(y_true)
        self._cached = None
        return values
