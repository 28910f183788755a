"""What a distributed run returns."""

from dataclasses import dataclass, field

import numpy as np

from .._kernels import _codes
from .._rates import RunRates


@dataclass(frozen=True)
class DistributedResult(RunRates):
    """The learned model and the progressive-validation totals of a distributed run.

    Attributes
    ----------
    estimator : olearn estimator
        The learner passed in, now holding the final model.
    mode : str
        ``"mixing"`` or ``"delayed"``.
    n_shards : int
    totals : ndarray, shape (epochs, shards, 4)
        Per epoch and shard: mistakes, cumulative loss, updates, rounds (the
        columns ``T_MISTAKES``, ``T_LOSS``, ``T_UPDATES``, ``T_ROUNDS`` of
        :mod:`olearn._kernels._codes`). The delayed mode has one epoch.
        Each round is predicted before it is learned, on the weights the
        round was learned from (a shard's own model when mixing; the stale
        snapshot in the delayed mode).
    mixing_weights : ndarray, shape (epochs, shards)
        The weights mu of each mixing (empty for the delayed mode).
    tau : int or None
        The staleness bound of the delayed mode.
    rows_per_step : int or None
        Rows each shard scores per step of the delayed mode.
    held_out : ndarray, shape (epochs, shards, 2)
        Per epoch and shard: the rows held out (``holdout_every``) and the
        mistakes of their predictions (zeros when none are held out; a
        regressor makes no mistakes).
    held_out_sums : ndarray, shape (epochs, shards, 3) for a regressor, else (epochs, shards, 0)
        Per epoch and shard, a regressor's held-out rows: the sums of their
        absolute errors, squared errors and (epsilon-insensitive) losses, which
        give their MAE, RMSE and average loss as a serial ``olearn run
        --passes N`` reports them.
    """

    estimator: object
    mode: str
    n_shards: int
    totals: np.ndarray = field(repr=False)
    mixing_weights: np.ndarray = field(repr=False)
    tau: object = None
    rows_per_step: object = None
    held_out: np.ndarray = field(default=None, repr=False)
    held_out_sums: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        if self.held_out is None:
            object.__setattr__(self, "held_out", np.zeros((*self.totals.shape[:2], 2)))
        if self.held_out_sums is None:
            object.__setattr__(self, "held_out_sums", np.zeros((*self.totals.shape[:2], 0)))

    def held_out_rates(self):
        """The held-out mistake rate of each epoch (nan for an epoch without held-out rows)."""
        examples, mistakes = self.held_out.sum(axis=1).T
        return np.where(examples > 0, mistakes / np.maximum(examples, 1), np.nan)

    def _total(self, column):
        return self.totals[:, :, column].sum()

    @property
    def n_rounds(self):
        return int(self._total(_codes.T_ROUNDS))

    @property
    def n_mistakes(self):
        return int(self._total(_codes.T_MISTAKES))

    @property
    def n_updates(self):
        return int(self._total(_codes.T_UPDATES))

    @property
    def cumulative_loss(self):
        return float(self._total(_codes.T_LOSS))
