"""Online scalers: running mean and variance (Welford), running largest absolute value."""

import numpy as np

from .._kernels._preprocessing import (
    MA_PEAK,
    N_MAXABS_STATS,
    N_STANDARD_STATS,
    SS_COUNT,
    SS_M2,
    SS_MEAN,
    maxabs_learn,
    maxabs_learn_rows,
    maxabs_progressive,
    maxabs_transform,
    standard_learn,
    standard_learn_rows,
    standard_progressive,
    standard_transform,
)
from .._params import BOOLEAN
from .._state_schema import COUNT, FINITE, NONNEGATIVE
from ._base import ColumnTransformer


class StandardScaler(ColumnTransformer):
    """Scale each feature by its running mean and standard deviation.

    Per column ``j``, after ``n`` examples, ``mean_j`` and the population
    variance ``var_j`` (``ddof=0``) of the values the examples gave it, an
    example that lacks the feature counting as a 0 there (the convention of a
    sparse matrix and of scikit-learn's scalers on one; River's scaler instead
    skips an absent key, so that its statistics of a feature count only the
    examples that hold it). A value becomes

        (x - mean_j) / sqrt(var_j)

    without ``- mean_j`` when ``with_mean=False`` and without the division
    when ``with_std=False``; a column of variance 0 maps to 0 (River's choice:
    scikit-learn would divide by 1 instead), so the first example of a
    column, which has nothing before it, gives 0. Only the features an example
    holds are transformed (a dict's keys, a sparse row's stored entries, every
    entry of a dense row): an absent feature stays absent, rather than
    becoming ``-mean_j / sqrt(var_j)``, which keeps sparse rows sparse. On
    sparse streams, use ``with_mean=False`` for a transform that is the same
    whether a 0 is stored or not.

    The statistics are Welford's running count, mean and sum of squared
    deviations of the entries present (Technometrics 4(3), 1962), merged with
    the absent zeros by Chan, Golub and LeVeque's pairwise formula (The
    American Statistician 37(3), 1983), both in the compiled
    :mod:`olearn._kernels._preprocessing`; each update costs the entries of
    the example, whatever the number of columns.

    Parameters
    ----------
    with_mean : bool, default=True
        Centre by the running mean.
    with_std : bool, default=True
        Divide by the running standard deviation.

    Attributes
    ----------
    mean_, var_ : ndarray
        The running mean and population variance of each column learned
        (``n_features_in_`` of them).
    n_seen_ : int
        The number of examples learned.
    feature_map_ : FeatureMap
        The columns of the names of the dicts learned.

    Examples
    --------
    >>> from olearn.preprocessing import StandardScaler
    >>> scaler = StandardScaler()
    >>> for x in [{"age": 20.0}, {"age": 30.0}, {"age": 40.0}]:
    ...     _ = scaler.learn_one(x)
    >>> scaler.mean_.tolist(), scaler.var_.round(4).tolist()
    ([30.0], [66.6667])
    >>> {key: round(value, 6) for key, value in scaler.transform_one({"age": 40.0, "city": "Paris"}).items()}
    {'age': 1.224745, 'city=Paris': 0.0}
    """

    _constraints = {"with_mean": BOOLEAN, "with_std": BOOLEAN}
    _n_stats = N_STANDARD_STATS
    _transform_kernel = staticmethod(standard_transform)
    _learn_kernel = staticmethod(standard_learn)
    _progressive_kernel = staticmethod(standard_progressive)
    _learn_rows_kernel = staticmethod(standard_learn_rows)

    # saved: per column, the count of the examples that held it, and the mean and sum of squared deviations
    # (Welford's M2) of the values they gave it
    _saved_stats = {"count": (SS_COUNT, COUNT), "mean": (SS_MEAN, FINITE), "m2": (SS_M2, NONNEGATIVE)}

    def __init__(self, with_mean=True, with_std=True):
        self.with_mean = with_mean
        self.with_std = with_std

    def _stats_relations(self):
        return [_welford_consistent]

    @property
    def mean_(self):
        n = self.n_seen_
        return self._stat(SS_COUNT) * self._stat(SS_MEAN) / n if n else np.zeros(self.n_features_in_)

    @property
    def var_(self):
        n = self.n_seen_
        if not n:
            return np.zeros(self.n_features_in_)
        count, mean = self._stat(SS_COUNT), self._stat(SS_MEAN)
        return (self._stat(SS_M2) + mean * mean * count * ((n - count) / n)) / n


class MaxAbsScaler(ColumnTransformer):
    """Divide each feature by the largest absolute value it has taken so far.

    Per column ``j``, ``max_abs_j`` is the largest ``|x|`` of the examples
    learned (an absent feature, a 0, does not raise it), and a value becomes
    ``x / max_abs_j``, or 0 while ``max_abs_j`` is 0 (River's choice), so the
    first nonzero value of a column, with nothing before it, gives 0. Zeros
    stay zeros: the scaler keeps sparse rows sparse and does not centre.
    A value larger than every one before it gives a result outside [-1, 1].

    Attributes
    ----------
    max_abs_ : ndarray
        The largest absolute value of each column learned.
    n_seen_ : int
        The number of examples learned.
    feature_map_ : FeatureMap
        The columns of the names of the dicts learned.

    Examples
    --------
    >>> from olearn.preprocessing import MaxAbsScaler
    >>> scaler = MaxAbsScaler().learn_one({"a": -4.0, "b": 2.0}).learn_one({"a": 1.0})
    >>> scaler.max_abs_.tolist(), scaler.transform_one({"a": 2.0, "b": -1.0})
    ([4.0, 2.0], {'a': 0.5, 'b': -0.5})
    """

    _n_stats = N_MAXABS_STATS
    _transform_kernel = staticmethod(maxabs_transform)
    _learn_kernel = staticmethod(maxabs_learn)
    _progressive_kernel = staticmethod(maxabs_progressive)
    _learn_rows_kernel = staticmethod(maxabs_learn_rows)

    _saved_stats = {"max_abs": (MA_PEAK, NONNEGATIVE)}

    def _stats_relations(self):
        return [_none_before_the_first]

    @property
    def max_abs_(self):
        return self._stat(MA_PEAK).copy()


def _welford_consistent(arrays, dims):
    """Relation of a saved StandardScaler: counts within the examples seen, nothing learned in a column no example
    held, and a finite sum of squares (the bound the kernel keeps, see ``welford_fails``)."""
    seen, count, mean, m2 = arrays["seen"][0], arrays["count"], arrays["mean"], arrays["m2"]
    if count.size and count.max() > seen:
        return f"array 'count' has {count.max():g} > seen = {seen:g} (more examples in a column than in all)"
    empty = (count == 0) & ((mean != 0) | (m2 != 0))
    if empty.any():
        j = int(np.argmax(empty))
        return f"column {j} has count 0, yet mean {mean[j]!r} and m2 {m2[j]!r} (expected 0 for a column never held)"
    with np.errstate(over="ignore", invalid="ignore"):
        total = m2 + count * mean * mean
    if not np.isfinite(total).all():
        j = int(np.argmax(~np.isfinite(total)))
        return f"column {j} has a sum of squares m2 + count * mean**2 that overflows"
    return None


def _none_before_the_first(arrays, dims):
    """Relation of a saved MaxAbsScaler: no largest value before any example."""
    if arrays["seen"][0] == 0 and arrays["max_abs"].any():
        return "array 'max_abs' is not 0 though no example was seen"
    return None
