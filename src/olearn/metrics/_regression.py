"""Streaming metrics of regressors: MAE, RMSE and R2."""

import math

import numpy as np

from ._base import VALUES, MeanMetric, Metric, check_real, segment_ends


class MAE(MeanMetric):
    r"""Mean absolute error :math:`\sum w |y - p| / \sum w`; NaN before any weight was seen.

    Equal to ``sklearn.metrics.mean_absolute_error(y_true, y_pred, sample_weight=w)``.

    >>> from olearn.metrics import MAE
    >>> MAE().update(1.0, 2.0).update(3.0, 3.5)
    MAE: 0.750000
    """

    consumes = VALUES
    bigger_is_better = False

    @staticmethod
    def _term(y_true, y_pred):
        return abs(check_real(y_true, "y_true") - check_real(y_pred, "y_pred"))

    @staticmethod
    def _terms(y_true, y_pred):
        return np.abs(y_true - y_pred)


class RMSE(MeanMetric):
    """Root mean squared error sqrt(sum(w (y - p)^2) / sum(w)); NaN before any weight was seen.

    A running sum of squares has no cancellation (its terms are all >= 0).
    Equal to ``sklearn.metrics.root_mean_squared_error(y_true, y_pred, sample_weight=w)``.

    >>> from olearn.metrics import RMSE
    >>> RMSE().update(1.0, 2.0).update(3.0, 4.0)
    RMSE: 1.000000
    """

    consumes = VALUES
    bigger_is_better = False

    @staticmethod
    def _term(y_true, y_pred):
        return (check_real(y_true, "y_true") - check_real(y_pred, "y_pred")) ** 2

    @staticmethod
    def _terms(y_true, y_pred):
        return (y_true - y_pred) ** 2

    @staticmethod
    def _finish(mean):
        # reverts can leave a mean square of 0 at -1e-17
        return np.sqrt(np.maximum(mean, 0.0))


class R2(Metric):
    r"""Coefficient of determination :math:`1 - \sum w (y - p)^2 / \sum w (y - \bar y)^2`.

    The spread of the targets around their weighted mean is kept by Welford's
    update (West 1979, weighted form), not as :math:`\sum w y^2 - W \bar y^2`,
    which loses every digit when the targets are large and close together;
    ``revert`` runs the update backwards. The undefined cases are
    scikit-learn's: NaN with fewer than two rounds; for a constant target
    (zero spread), 1.0 when every prediction was exact and 0.0 otherwise.

    Reverts leave rounding behind, which these degenerate cases would divide
    by, so two things are counted exactly rather than read from the sums:
    the rounds of positive weight predicted inexactly (none: the residual is
    exactly 0 and R2 is 1.0), and, after a revert, a spread no larger than
    the rounding the updates can have left in it (``64 eps`` times the sum of
    ``w |y| (|y - mean before| + |y - mean after|)`` over the updates since
    the last reset, the first round of weight excepted) is taken as zero. :class:`~olearn.metrics.Rolling`
    recomputes such a window from its rounds instead, exactly.

    Equal to ``sklearn.metrics.r2_score(y_true, y_pred, sample_weight=w)``.

    >>> from olearn.metrics import R2
    >>> R2().update(1.0, 1.5).update(3.0, 2.5)
    R2: 0.750000
    """

    consumes = VALUES

    def _reset(self):
        super()._reset()
        self._weight = 0.0
        self._mean = 0.0
        self._spread = 0.0  # sum of w (y - mean)^2
        self._residual = 0.0  # sum of w (y - p)^2
        self._weighted = 0  # rounds of positive weight
        self._inexact = 0  # rounds of positive weight whose prediction was not exact
        self._rounding = 0.0  # sum of w |y| (|y - mean before| + |y - mean after|): the spread's rounding / eps
        self._reverted = False

    def _add(self, y_true, y_pred, weight, sign):
        y = check_real(y_true, "y_true")
        error = y - check_real(y_pred, "y_pred")
        before, had_weight = self._mean, self._weight > 0.0
        self._weight += sign * weight
        if self._weight > 0.0:
            self._mean += sign * weight / self._weight * (y - before)
            self._spread += sign * weight * (y - before) * (y - self._mean)
            if had_weight:  # the first round of weight sets the mean to y exactly
                self._rounding += weight * abs(y) * (abs(y - before) + abs(y - self._mean))
        self._residual += sign * weight * error * error
        self._reverted = self._reverted or sign < 0.0
        if weight > 0.0:
            self._weighted += int(sign)
            self._inexact += int(sign) * (error != 0.0)
            if self._inexact == 0:
                self._residual = 0.0
            # with no round of positive weight left the sums are exactly 0, and with one the spread is, whatever
            # rounding the reverts left
            if self._weighted == 0:
                self._weight = self._mean = self._residual = 0.0
            if self._weighted <= 1:
                self._spread = 0.0

    def _merge(self, y_true, y_pred):
        """Add a batch of unit-weight rounds: Chan et al.'s pairwise combination of the two groups' spreads."""
        n = float(len(y_true))
        mean = y_true.mean()
        spread = ((y_true - mean) ** 2).sum()
        total = self._weight + n
        delta = mean - self._mean
        self._spread += spread + delta * delta * self._weight * n / total
        # the batch's spread about its own mean, and the pairwise term about the means' difference
        self._rounding += float(np.abs(y_true) @ np.abs(y_true - mean)) + abs(mean) * abs(delta) * self._weight * n / total
        self._mean += delta * n / total
        self._weight = total
        self._residual += ((y_true - y_pred) ** 2).sum()
        self._weighted += len(y_true)
        self._inexact += int(np.count_nonzero(y_true != y_pred))
        self._n += len(y_true)

    def _values_at(self, y_true, y_pred, ends):
        values = np.empty(len(ends))
        for j, (start, stop) in enumerate(segment_ends(ends)):
            if stop > start:
                self._merge(y_true[start:stop], y_pred[start:stop])
            values[j] = self.get()
        return values

    def _unsettled(self):
        """True when reverts may have left a spread of 0 as rounding: the value is read as a constant target's."""
        return self._reverted and self._spread <= 64.0 * np.finfo(float).eps * self._rounding

    def get(self):
        if self._n < 2:
            return math.nan
        if self._inexact == 0:
            return 1.0
        if self._spread <= 0.0 or self._unsettled():
            return 0.0
        return 1.0 - self._residual / self._spread
