"""What a run of an experts algorithm measured, round by round, next to its bound."""

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class ExpertsResult:
    """Per-round record of :meth:`run` of an :mod:`olearn.experts` learner.

    Cumulative quantities count from the learner's first round, so a run that
    continues an already trained learner is still compared with its bound.
    Per-round arrays have one entry per round of this run.

    Attributes
    ----------
    algorithm : str
        Name of the learner and its setting, e.g. ``"WeightedMajority(beta=0.368)"``.
    bound_formula : str
        The theorem behind ``loss_bound``, in words.
    n_rounds : int
        Rounds in this run.
    n_experts : int
    predictions : ndarray
        The learner's prediction on each round, made before the outcome was
        known (Hedge: the sampled expert when ``randomized``, else empty).
    losses : ndarray
        The learner's realised loss of each round (0/1 for the voting learners).
    expected_losses : ndarray
        Its expected loss over its own randomisation (equal to ``losses`` for
        deterministic learners); regret and bounds are stated for it.
    cumulative_losses : ndarray
        Expected loss summed from the learner's first round to each round.
    best_losses : ndarray
        The smallest cumulative loss of any single expert after each round.
    regret : ndarray
        ``cumulative_losses - best_losses``: regret to the best expert so far.
    loss_bound : ndarray
        The theorem's bound on ``cumulative_losses`` after each round (NaN
        where the theorem does not apply, e.g. a weighted average whose eta is
        above the loss's exp-concavity constant).
    regret_bound : ndarray
        ``loss_bound - best_losses``, the bound on ``regret``.
    expert_losses : ndarray
        Cumulative loss of every expert after the last round.
    learning_rates : ndarray
        The rate of each round's update: eta (Hedge: the epoch's eta under the
        doubling trick), or ln(1/beta) for the voting learners (inf for Halving).
    n_mistakes : int or None
        Realised mistakes in this run (voting learners only).
    cumulative_mistakes : ndarray or None
        Realised mistakes up to each round of this run (voting learners only).
    comparator_regret, comparator_bound : ndarray or None
        Fixed Share only, when a comparator sequence of experts was given:
        regret to that (switching) sequence and its bound.
    """

    algorithm: str
    bound_formula: str
    n_rounds: int
    n_experts: int
    predictions: np.ndarray = field(repr=False)
    losses: np.ndarray = field(repr=False)
    expected_losses: np.ndarray = field(repr=False)
    cumulative_losses: np.ndarray = field(repr=False)
    best_losses: np.ndarray = field(repr=False)
    loss_bound: np.ndarray = field(repr=False)
    expert_losses: np.ndarray = field(repr=False)
    learning_rates: np.ndarray = field(repr=False)
    n_mistakes: int | None = None
    cumulative_mistakes: np.ndarray | None = field(default=None, repr=False)
    comparator_regret: np.ndarray | None = field(default=None, repr=False)
    comparator_bound: np.ndarray | None = field(default=None, repr=False)

    @property
    def regret(self):
        """Regret to the best expert so far, after each round."""
        return self.cumulative_losses - self.best_losses

    @property
    def regret_bound(self):
        """The theorem's bound on :attr:`regret`, after each round."""
        return self.loss_bound - self.best_losses

    @property
    def cumulative_loss(self):
        """The learner's cumulative expected loss after the last round."""
        return float(self.cumulative_losses[-1]) if self.n_rounds else 0.0

    @property
    def best_expert(self):
        """Index of an expert with the smallest cumulative loss."""
        return int(np.argmin(self.expert_losses))

    @property
    def best_expert_loss(self):
        """Cumulative loss of the best expert."""
        return float(np.min(self.expert_losses))

    @property
    def bound_holds(self):
        """True when the regret never exceeded its bound (up to rounding); NaN bounds are skipped."""
        bound = self.regret_bound
        known = ~np.isnan(bound)
        # rounding grows with the cumulative losses that the regret is a difference of
        scale = np.maximum(np.abs(bound[known]), np.abs(self.cumulative_losses[known]))
        slack = 1e-9 * np.maximum(1.0, scale)
        return bool(np.all(self.regret[known] <= bound[known] + slack))
