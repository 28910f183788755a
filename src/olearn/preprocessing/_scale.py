"""Online scalers: running mean and variance (Welford), running largest absolute value."""

import numpy as np

from .._kernels._preprocessing import (
    maxabs_learn_row,
    maxabs_learn_rows,
    maxabs_progressive,
    maxabs_transform_row,
    standard_learn_row,
    standard_learn_rows,
    standard_progressive,
    standard_transform_row,
)
from .._params import BOOLEAN
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
    >>> scaler.transform_one({"age": 40.0, "city": "Paris"})
    {'age': 1.224744871391589, 'city=Paris': 0.0}
    """

    _constraints = {"with_mean": BOOLEAN, "with_std": BOOLEAN}
    _stats = ("_count", "_mean", "_m2")

    def __init__(self, with_mean=True, with_std=True):
        self.with_mean = with_mean
        self.with_std = with_std

    @property
    def mean_(self):
        n = self.n_seen_
        return self._stat("_count") * self._stat("_mean") / n if n else np.zeros(self.n_features_in_)

    @property
    def var_(self):
        n = self.n_seen_
        if not n:
            return np.zeros(self.n_features_in_)
        count, mean = self._stat("_count"), self._stat("_mean")
        return (self._stat("_m2") + mean * mean * count * ((n - count) / n)) / n

    @staticmethod
    def _transform_cols(indices, data, lo, hi, settings, stats, out):
        with_mean, with_std = settings
        seen, count, mean, m2 = stats
        return standard_transform_row(indices, data, lo, hi, count, mean, m2, seen, with_mean, with_std, out)

    @staticmethod
    def _learn_cols(indices, data, lo, hi, settings, stats):
        seen, count, mean, m2 = stats
        return standard_learn_row(indices, data, lo, hi, count, mean, m2, seen)

    @staticmethod
    def _progressive_cols(indptr, indices, data, settings, stats, out):
        with_mean, with_std = settings
        seen, count, mean, m2 = stats
        return standard_progressive(indptr, indices, data, count, mean, m2, seen, with_mean, with_std, out)

    @staticmethod
    def _learn_rows_cols(indptr, indices, data, settings, stats):
        seen, count, mean, m2 = stats
        return standard_learn_rows(indptr, indices, data, count, mean, m2, seen)


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

    _stats = ("_peak",)

    @property
    def max_abs_(self):
        return self._stat("_peak").copy()

    @staticmethod
    def _transform_cols(indices, data, lo, hi, settings, stats, out):
        return maxabs_transform_row(indices, data, lo, hi, stats[1], out)

    @staticmethod
    def _learn_cols(indices, data, lo, hi, settings, stats):
        return maxabs_learn_row(indices, data, lo, hi, stats[1], stats[0])

    @staticmethod
    def _progressive_cols(indptr, indices, data, settings, stats, out):
        return maxabs_progressive(indptr, indices, data, stats[1], stats[0], out)

    @staticmethod
    def _learn_rows_cols(indptr, indices, data, settings, stats):
        return maxabs_learn_rows(indptr, indices, data, stats[1], stats[0])
