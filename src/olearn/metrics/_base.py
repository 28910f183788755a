"""What every streaming metric shares: update, revert, get, and the batch paths that :func:`olearn.run` uses."""

import math

import numpy as np

from .._weights import check_weight_one

# what a metric reads from a round, so that olearn.run knows what to feed it
LABELS = "labels"  # the predicted class (None: no class was named)
VALUES = "values"  # a regressor's predicted value
SCORES = "scores"  # a real-valued score of the positive class (a decision value or a probability)
PROBABILITIES = "probabilities"  # the probability of the positive class, or a dict {class: probability}


def check_real(value, name):
    """``value`` as a finite float; ValueError naming it otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a real number; got {type(value).__name__} {value!r:.80}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}")
    return value


def add_weighted(row, at, count_at, delta, sign):
    """Add ``delta`` (a weight times ``sign``) to ``row[at]``; ``row[count_at]`` counts its rounds of positive weight.

    When the last round of positive weight leaves, the sum is set to 0 exactly:
    add-then-subtract leaves rounding (1e-17, say) that a ratio would divide by.
    """
    row[at] += delta
    if delta != 0.0:
        row[count_at] += int(sign)
        if row[count_at] == 0:
            row[at] = 0.0


def segment_ends(ends):
    """The (start, stop) row ranges between consecutive checkpoints."""
    starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
    return zip(starts.tolist(), np.asarray(ends, dtype=np.int64).tolist())


class Metric:
    """Base class: a value computed from a stream of ``(y_true, y_pred, sample_weight)`` rounds.

    ``update`` adds a round, ``revert`` takes one back (so that :class:`Rolling`
    can slide a window), ``get`` reads the value. ``consumes`` says what
    ``y_pred`` is (``"labels"``, ``"values"``, ``"scores"`` or
    ``"probabilities"``), for :func:`olearn.run` to feed each metric what it
    reads; ``bigger_is_better`` says which way is good.

    A subclass keeps its state in running sums. ``_n`` counts the rounds held
    (updates minus reverts); when it returns to 0 the state is reset exactly,
    so that rounding left by reverts does not outlive the rounds. A weighted
    sum is kept with the count of the rounds of positive weight in it
    (:func:`add_weighted`), and is exactly 0 when that count is.
    """

    consumes = LABELS
    bigger_is_better = True

    def __init__(self):
        self._reset()

    def _reset(self):
        self._n = 0

    def _params(self):
        """The constructor's arguments, shown in the name."""
        return {}

    def clone(self):
        """A fresh metric with the same parameters, as if no round had been seen."""
        return type(self)(**self._params())

    @property
    def name(self):
        params = ", ".join(f"{key}={value!r}" for key, value in self._params().items())
        return f"{type(self).__name__}({params})" if params else type(self).__name__

    def __repr__(self):
        return f"{self.name}: {self.get():.6f}"

    def update(self, y_true, y_pred, sample_weight=1.0):
        """Add one round; returns self."""
        self._add(y_true, y_pred, check_weight_one(sample_weight), 1.0)
        self._n += 1
        return self

    def revert(self, y_true, y_pred, sample_weight=1.0):
        """Take back one round added by :meth:`update` with the same arguments; returns self."""
        if self._n == 0:
            raise ValueError(f"{self.name}: revert called with no round to take back")
        self._add(y_true, y_pred, check_weight_one(sample_weight), -1.0)
        self._n -= 1
        if self._n == 0:
            self._reset()
        return self

    def get(self):
        """The current value."""
        raise NotImplementedError

    def _add(self, y_true, y_pred, weight, sign):
        """Add (sign 1) or remove (sign -1) one checked round."""
        raise NotImplementedError

    def _unsettled(self):
        """True when the rounding reverts left may decide the value (:class:`Rolling` then adds its rounds afresh)."""
        return False

    # -- the batch path of olearn.run ---------------------------------------------

    def _values_at(self, y_true, y_pred, ends):
        """Add the rounds of the arrays in order, each of weight 1; return the value after each round count of ``ends``.

        The arrays come checked from :func:`olearn.run`; ``ends`` is increasing
        and ends with ``len(y_true)``. This fallback adds the rounds one by one;
        a metric with running sums overrides it with array operations.
        """
        values = np.empty(len(ends))
        for j, (start, stop) in enumerate(segment_ends(ends)):
            for truth, pred in zip(y_true[start:stop].tolist(), y_pred[start:stop].tolist()):
                self._add(truth, pred, 1.0, 1.0)
            self._n += stop - start
            values[j] = self.get()
        return values

    def _update_many(self, y_true, y_pred):
        """Add the rounds of the arrays in order, each of weight 1."""
        if len(y_true):
            self._values_at(y_true, y_pred, np.array([len(y_true)]))


class MeanMetric(Metric):
    """A weighted mean of a per-round term: sum(w t) / sum(w), NaN while the weight is 0.

    ``_term`` gives one round's term, ``_terms`` the terms of arrays of rounds
    (the same function); ``_finish`` maps the mean to the value.
    """

    def _reset(self):
        super()._reset()
        self._state = [0.0, 0.0, 0]  # sum of w t, sum of w, rounds of positive weight

    def _add(self, y_true, y_pred, weight, sign):
        term = self._term(y_true, y_pred)
        state = self._state
        state[0] += sign * weight * term
        add_weighted(state, 1, 2, sign * weight, sign)
        if state[2] == 0:
            state[0] = 0.0

    def get(self):
        total, weight, _ = self._state
        if weight <= 0.0:
            return math.nan
        return float(self._finish(total / weight))

    def _finish(self, mean):
        return mean

    def _values_at(self, y_true, y_pred, ends):
        # a cumulative sum adds in order, as update would, round after round
        sums = np.cumsum(np.concatenate([[self._state[0]], self._terms(y_true, y_pred)]))
        weights = self._state[1] + np.arange(len(y_true) + 1, dtype=np.float64)
        self._state = [float(sums[-1]), float(weights[-1]), self._state[2] + len(y_true)]
        self._n += len(y_true)
        ends = np.asarray(ends, dtype=np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums[ends] / weights[ends]
        return np.where(weights[ends] > 0.0, self._finish(means), np.nan)
