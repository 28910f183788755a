"""A metric over the last rounds of a stream: a sliding window by revert."""

import collections
import itertools
import numbers

import numpy as np

from ._base import Metric


class Rolling(Metric):
    """``metric`` over the last ``window`` rounds.

    Each ``update`` adds the round to ``metric`` and, once the window is full,
    reverts the round that leaves it. ``metric`` is updated in place and must
    be fresh (no round seen). A window cannot take a round back: the round it
    let go of is gone, so ``revert`` raises. When the rounding that reverts
    leave could decide the value (:class:`~olearn.metrics.R2` of a window
    whose targets are constant), reading it adds the window's rounds afresh.

    >>> from olearn.metrics import Accuracy, Rolling
    >>> m = Rolling(Accuracy(), window=2)
    >>> for y, p in [(1, 0), (1, 1), (0, 0)]:
    ...     m = m.update(y, p)
    >>> m
    Rolling(Accuracy, window=2): 1.000000
    """

    def __init__(self, metric, window):
        if not isinstance(metric, Metric) or isinstance(metric, Rolling):
            raise TypeError(f"Rolling: metric must be an olearn.metrics metric (not a Rolling); got {metric!r:.100}")
        if isinstance(window, bool) or not isinstance(window, numbers.Integral) or window < 1:
            raise ValueError(f"Rolling: window must be an integer >= 1; got {window!r}")
        if metric._n:
            raise ValueError(f"Rolling: the metric must be fresh; {metric.name} has already seen {metric._n} rounds")
        self.metric = metric
        self.window = int(window)
        super().__init__()

    def _params(self):
        return {"metric": self.metric.clone(), "window": self.window}

    @property
    def name(self):
        return f"Rolling({self.metric.name}, window={self.window})"

    @property
    def consumes(self):
        return self.metric.consumes

    @property
    def bigger_is_better(self):
        return self.metric.bigger_is_better

    def _reset(self):
        super()._reset()
        self._rounds = collections.deque()

    def update(self, y_true, y_pred, sample_weight=1.0):
        self.metric.update(y_true, y_pred, sample_weight)
        self._rounds.append((y_true, y_pred, sample_weight))
        if len(self._rounds) > self.window:
            self.metric.revert(*self._rounds.popleft())
        self._n = len(self._rounds)
        return self

    def revert(self, y_true, y_pred, sample_weight=1.0):
        raise ValueError(f"{self.name}: a window cannot take a round back (the round it let go of is gone)")

    def get(self):
        if self.metric._unsettled():
            self.metric._reset()
            for round_ in self._rounds:
                self.metric.update(*round_)
        return self.metric.get()

    def _values_at(self, y_true, y_pred, ends):
        # each checkpoint's value is the metric of its window's rounds added afresh: no rounding left by reverts
        held = list(self._rounds)
        values = np.array([self._refill(self.metric.clone(), held, y_true, y_pred, end).get() for end in ends])
        self._refill(self.metric, held, y_true, y_pred, len(y_true))
        start = max(0, len(y_true) - self.window)
        recent = zip(y_true[start:].tolist(), y_pred[start:].tolist(), itertools.repeat(1.0))
        self._rounds = collections.deque((held + list(recent))[-self.window:])
        self._n = len(self._rounds)
        return values

    def _refill(self, metric, held, y_true, y_pred, end):
        """``metric`` holding the window that ends after round ``end`` of the arrays (``held``: the rounds before)."""
        metric._reset()
        start = max(0, end - self.window)
        from_held = self.window - (end - start)
        for round_ in held[len(held) - min(from_held, len(held)):]:
            metric.update(*round_)
        metric._update_many(y_true[start:end], y_pred[start:end])
        return metric
