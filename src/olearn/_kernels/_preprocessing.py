"""Online transformers' statistics and the scaling of a row, over (indices, data) rows and CSR batches.

A row is ``indices`` (int64 columns, distinct) and ``data`` (float64 values);
a feature a row does not hold is 0 there. The statistics of a column count
every example learned, those that lack the column as a 0 (the convention of a
sparse matrix, and of scikit-learn's scalers on one): they equal NumPy's
statistics of the dense prefix. Only the entries a row holds are
transformed; an absent feature stays absent.

The standard scaler keeps, per column ``j``, Welford's running count
``c_j``, mean ``m_j`` and sum of squared deviations ``M2_j`` over the entries
present (B. P. Welford, Technometrics 4(3), 1962), and the number ``n`` of
examples learned. The ``n - c_j`` absent zeros are a second group of mean 0
and no spread; Chan, Golub and LeVeque's merge of the two groups (The
American Statistician 37(3), 1983, eq. 2.1b) gives the statistics over all
``n`` examples without touching the absent columns:

    mean_j = c_j m_j / n,        var_j = (M2_j + m_j^2 c_j (n - c_j) / n) / n.

A value is refused when ``M2_j + c_j m_j^2``, the column's sum of squares,
would overflow: every statistic then stays finite.

Each learning kernel first computes every new value and returns the position
of the first that is not finite (or -1) without writing anything, so that a
refused example leaves the statistics as they were; the transforms return the
position of the first non-finite output (or -1).

A transformer's state is ``seen`` (a 1-array: the number of examples learned)
and ``stats``, one row per statistic and one column per feature column; its
settings travel as a float64 array of flags. Few arguments, all arrays: a
pipeline calls these kernels on every example, and numba's dispatch costs
per argument.
"""

import math

from ._jit import njit

# the rows of a standard scaler's statistics
SS_COUNT = 0
SS_MEAN = 1
SS_M2 = 2
N_STANDARD_STATS = 3
# its settings (float64 flags)
SS_WITH_MEAN = 0
SS_WITH_STD = 1
# the row of a max-abs scaler's statistics
MA_PEAK = 0
N_MAXABS_STATS = 1


@njit(cache=True, inline="always")
def column_moments(j, stats, n, inv_n):
    """Mean and (population) variance of column ``j`` over the ``n`` examples learned; (0, 0) before any.

    ``inv_n`` is ``1 / n``, one division per row rather than two per entry;
    ``n - c`` stays exact, so a column every example holds keeps a variance
    of exactly ``M2 / n`` (0 for a constant).
    """
    if n <= 0.0 or j >= stats.shape[1]:
        return 0.0, 0.0
    c = stats[SS_COUNT, j]
    m = stats[SS_MEAN, j]
    average = c * m / n
    variance = (stats[SS_M2, j] + m * m * c * ((n - c) * inv_n)) * inv_n
    return average, variance


@njit(cache=True, inline="always")
def standard_value(x, average, variance, with_mean, with_std):
    """One entry scaled: centred by the mean (``with_mean``), divided by the deviation (``with_std``).

    A zero variance maps the entry to 0, as River's scaler does.
    """
    value = x - average if with_mean else x
    if with_std:
        if variance > 0.0:
            return value / math.sqrt(variance)
        return 0.0
    return value


@njit(cache=True, inline="always")
def welford_fails(j, x, stats):
    """Whether learning the value ``x`` in column ``j`` would make its statistics overflow.

    Beyond Welford's own mean and ``M2``, ``M2 + c m^2`` (the sum of squares)
    must stay finite: it bounds the merged variance's numerator however many
    absent zeros later join the column (``(n - c) / n < 1``).
    """
    if j >= stats.shape[1]:
        return not math.isfinite(x * x)
    c = stats[SS_COUNT, j] + 1.0
    delta = x - stats[SS_MEAN, j]
    moved = stats[SS_MEAN, j] + delta / c
    spread = stats[SS_M2, j] + delta * (x - moved)
    return not math.isfinite(spread + moved * moved * c)


@njit(cache=True, inline="always")
def standard_transform_span(indices, data, lo, hi, stats, seen, flags, out):
    n = seen[0]
    inv_n = 1.0 / n if n > 0.0 else 0.0
    with_mean = flags[SS_WITH_MEAN] != 0.0
    with_std = flags[SS_WITH_STD] != 0.0
    bad = -1
    for k in range(lo, hi):
        j = indices[k]
        average, variance = column_moments(j, stats, n, inv_n)
        out[k] = standard_value(data[k], average, variance, with_mean, with_std)
        if bad < 0 and (not math.isfinite(out[k]) or welford_fails(j, data[k], stats)):
            bad = k
    return bad


@njit(cache=True, inline="always")
def standard_learn_span(indices, data, lo, hi, stats, seen):
    for k in range(lo, hi):
        if welford_fails(indices[k], data[k], stats):
            return k
    for k in range(lo, hi):
        j = indices[k]
        stats[SS_COUNT, j] += 1.0
        delta = data[k] - stats[SS_MEAN, j]
        stats[SS_MEAN, j] += delta / stats[SS_COUNT, j]
        stats[SS_M2, j] += delta * (data[k] - stats[SS_MEAN, j])
    seen[0] += 1.0
    return -1


@njit(cache=True)
def standard_transform(indices, data, stats, seen, flags, out):
    """Scale every entry into ``out``.

    Returns the position of the first entry whose output is not finite or
    whose learning would overflow the statistics, or -1: a row this transform
    accepts can then be learned (a pipeline learns it after its learner has).
    """
    return standard_transform_span(indices, data, 0, data.size, stats, seen, flags, out)


@njit(cache=True)
def standard_learn(indices, data, stats, seen):
    """Welford's update of the columns of one row (``stats`` wide enough).

    Returns -1, or the position of the first entry whose update would not be
    finite, in which case nothing is changed.
    """
    return standard_learn_span(indices, data, 0, data.size, stats, seen)


@njit(cache=True)
def standard_progressive(indptr, indices, data, stats, seen, flags, out, held=None):
    """Each row scaled by the statistics of the rows before it, then learned; (row, position) of a failure or (-1, -1).

    On a failure the statistics hold the rows before that row. ``held``: a
    boolean per row, the held-out rows of a multi-pass run (``olearn run
    --passes N --scale standard``): such a row is scaled as
    :func:`standard_transform` scales it then, and not learned.
    """
    for i in range(indptr.size - 1):
        lo = indptr[i]
        hi = indptr[i + 1]
        bad = standard_transform_span(indices, data, lo, hi, stats, seen, flags, out)
        if bad >= 0:
            return i, bad
        if held is not None and held[i]:
            continue
        bad = standard_learn_span(indices, data, lo, hi, stats, seen)
        if bad >= 0:
            return i, bad
    return -1, -1


@njit(cache=True)
def standard_learn_rows(indptr, indices, data, stats, seen):
    """Learn every row in order; (row, position) of the first refused update or (-1, -1)."""
    for i in range(indptr.size - 1):
        bad = standard_learn_span(indices, data, indptr[i], indptr[i + 1], stats, seen)
        if bad >= 0:
            return i, bad
    return -1, -1


@njit(cache=True, inline="always")
def maxabs_transform_span(indices, data, lo, hi, stats, out):
    for k in range(lo, hi):
        j = indices[k]
        top = stats[MA_PEAK, j] if j < stats.shape[1] else 0.0
        out[k] = data[k] / top if top > 0.0 else 0.0


@njit(cache=True, inline="always")
def maxabs_learn_span(indices, data, lo, hi, stats, seen):
    for k in range(lo, hi):
        j = indices[k]
        size = abs(data[k])
        if size > stats[MA_PEAK, j]:
            stats[MA_PEAK, j] = size
    seen[0] += 1.0


@njit(cache=True)
def maxabs_transform(indices, data, stats, seen, flags, out):
    """Divide every entry by its column's largest absolute value so far (0 where it is 0); -1 (nothing fails)."""
    maxabs_transform_span(indices, data, 0, data.size, stats, out)
    return -1


@njit(cache=True)
def maxabs_learn(indices, data, stats, seen):
    """Raise each column's largest absolute value to its entry's; -1 (nothing fails)."""
    maxabs_learn_span(indices, data, 0, data.size, stats, seen)
    return -1


@njit(cache=True)
def maxabs_progressive(indptr, indices, data, stats, seen, flags, out, held=None):
    """Each row divided by the largest absolute values of the rows before it, then learned; (-1, -1).

    ``held``: see :func:`standard_progressive` (a held-out row is divided, not learned).
    """
    for i in range(indptr.size - 1):
        maxabs_transform_span(indices, data, indptr[i], indptr[i + 1], stats, out)
        if held is not None and held[i]:
            continue
        maxabs_learn_span(indices, data, indptr[i], indptr[i + 1], stats, seen)
    return -1, -1


@njit(cache=True)
def maxabs_learn_rows(indptr, indices, data, stats, seen):
    """Learn every row in order; (-1, -1)."""
    for i in range(indptr.size - 1):
        maxabs_learn_span(indices, data, indptr[i], indptr[i + 1], stats, seen)
    return -1, -1
