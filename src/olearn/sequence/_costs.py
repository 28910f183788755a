"""Costs rho(y, y') of predicting the labelling y' of a sequence whose true labelling is y.

The cost-sensitive PA updates (Crammer et al. 2006, Sec. 8) ask the model to
separate y from a rival y' by a margin of ``sqrt(rho(y, y'))``. A cost that
depends on the two labellings only through their Hamming distance ``h`` (the
number of positions where they differ) and the length ``T`` is declared as a
:class:`HammingCost`; its margins become a table indexed by ``h``, which the
compiled learner reads directly, and for which the max-loss rival can be found
exactly. Any other cost is a plain callable ``rho(y_true, y_pred)``.
"""

import math

import numpy as np


class HammingCost:
    """A cost ``rho(y, y') = function(h, T)`` of the Hamming distance ``h`` between two labellings of length ``T``.

    ``function(h, T)`` must return a finite number >= 0 for h = 0 .. T, and 0
    for h = 0 (a correct labelling costs nothing). ``name`` is what ``repr``
    shows.

    >>> cost = HammingCost(lambda h, T: h / T, name="normalized-hamming")
    >>> cost(["a", "b", "c", "d"], ["a", "x", "c", "y"])
    0.5
    >>> cost
    HammingCost('normalized-hamming')
    """

    def __init__(self, function, name=None):
        self.function = function
        self.name = name

    def __call__(self, y_true, y_pred):
        y_true = np.asarray(y_true)
        distance = int(np.count_nonzero(y_true != np.asarray(y_pred)))
        return float(self.function(distance, y_true.size))

    def margins(self, length):
        """sqrt(rho) at h = 0 .. length for labellings of that length, as a float64 array.

        An empty labelling costs nothing: ``function`` is not called for length 0.
        """
        if length == 0:
            return np.zeros(1)
        values = np.array([self.function(h, length) for h in range(length + 1)], dtype=np.float64)
        bad = np.flatnonzero(~(values >= 0.0) | ~np.isfinite(values))
        if bad.size:
            h = int(bad[0])
            raise ValueError(f"cost {self!r} gives {values[h]} at h={h}, T={length}; expected a finite number >= 0")
        if values[0] != 0.0:
            raise ValueError(f"cost {self!r} gives {values[0]} at h=0, T={length}; a correct labelling must cost 0")
        return np.sqrt(values)

    def __eq__(self, other):
        return type(other) is type(self) and (other.function, other.name) == (self.function, self.name)

    def __hash__(self):
        return hash((self.function, self.name))

    def __repr__(self):
        if self.name is not None:
            return f"HammingCost({self.name!r})"
        return f"HammingCost({getattr(self.function, '__qualname__', repr(self.function))})"


def _hamming(h, length):
    return float(h)


def _sqrt_hamming(h, length):
    return math.sqrt(h)


NAMED_COSTS = {
    "hamming": HammingCost(_hamming, name="hamming"),
    "sqrt-hamming": HammingCost(_sqrt_hamming, name="sqrt-hamming"),
}


class CostConstraint:
    """The values the ``cost`` hyperparameter accepts."""

    def accepts(self, value):
        if isinstance(value, str):
            return value in NAMED_COSTS
        return isinstance(value, HammingCost) or (callable(value) and not isinstance(value, type))

    def describe(self):
        names = ", ".join(repr(name) for name in NAMED_COSTS)
        return f"one of {names}, a HammingCost, or a callable rho(y_true, y_pred)"


def resolve_cost(cost):
    """The cost as a :class:`HammingCost` when it is one, else the callable itself."""
    return NAMED_COSTS[cost] if isinstance(cost, str) else cost


def margin_table(cost, offsets):
    """The margins of every sequence of a batch, concatenated: sequence i's margin at h is [offsets[i] + i + h]."""
    lengths = np.diff(offsets)
    tables = {length: cost.margins(int(length)) for length in np.unique(lengths)}
    if not tables:
        return np.empty(0)
    return np.concatenate([tables[length] for length in lengths])


def check_cost_value(value, index):
    """sqrt(rho) of a callable cost's answer for sequence ``index``, or a clear error."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"the cost returned {value!r} for sequence {index}; expected a number >= 0") from None
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"the cost returned {value} for sequence {index}; expected a finite number >= 0")
    return math.sqrt(value)
