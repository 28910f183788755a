"""Declarative checks of hyperparameters.

Estimators store their constructor arguments verbatim (scikit-learn's
convention) and check them here when learning starts, so that a bad value is
reported by name before any data is touched.
"""

import math
import numbers

import numpy as np


class Interval:
    """Real numbers between ``low`` and ``high``; ``closed`` says which ends count.

    >>> Interval(0, None, closed="neither").describe()
    'a number in (0, inf)'
    """

    def __init__(self, low=None, high=None, closed="both", integer=False):
        self.low = low
        self.high = high
        self.closed = closed
        self.integer = integer

    def accepts(self, value):
        if isinstance(value, (bool, np.bool_)):
            return False
        kind = numbers.Integral if self.integer else numbers.Real
        if not isinstance(value, kind):
            return False
        if isinstance(value, numbers.Integral):
            # an integer is never nan; a real hyperparameter is used as a float, which 10**400 is not
            if not self.integer and not _fits_a_float(value):
                return False
        elif math.isnan(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def describe(self):
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        what = "an integer" if self.integer else "a number"
        return f"{what} in {left}{low}, {high}{right}"


def _fits_a_float(integer):
    """Whether the integer converts to a float (a finite one, or the overflow of its last rounding)."""
    try:
        float(integer)
    except OverflowError:
        return False
    return True


class Options:
    """One of a fixed set of values.

    >>> Options("pa", "pa1").describe()
    "one of 'pa', 'pa1'"
    """

    def __init__(self, *values):
        self.values = values

    def accepts(self, value):
        return any(value == v and _same_kind(value, v) for v in self.values)

    def describe(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


def _same_kind(value, option):
    """True for values of the option's own type, NumPy's twins included (np.str_, np.bool_)."""
    if isinstance(option, bool):
        return isinstance(value, (bool, np.bool_))
    if isinstance(option, str):
        return isinstance(value, str)
    return type(value) is type(option)


class NoneOr:
    """None, or a value the wrapped constraint accepts."""

    def __init__(self, constraint):
        self.constraint = constraint

    def accepts(self, value):
        return value is None or self.constraint.accepts(value)

    def describe(self):
        return "None or " + self.constraint.describe()


BOOLEAN = Options(True, False)
# the largest integer a compiled kernel takes (its integer settings travel in int64 arrays)
INT64_MAX = 2**63 - 1
POSITIVE = Interval(0, None, closed="neither")
# positive and finite: a step, a variance or a regulariser that must stay a number
POSITIVE_FINITE = Interval(0, math.inf, closed="neither")


def check_params(estimator, constraints):
    """Raise ValueError naming the first hyperparameter that breaks its constraint."""
    for name, constraint in constraints.items():
        value = getattr(estimator, name)
        if not constraint.accepts(value):
            huge = isinstance(value, numbers.Integral) and not _fits_a_float(value)
            raise ValueError(
                f"{type(estimator).__name__}: parameter {name}={value!r} is invalid; expected {constraint.describe()}"
                + (" (the value is beyond the range of a float)" if huge else "")
            )
