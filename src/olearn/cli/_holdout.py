"""``olearn run --passes N --holdout-every K``: Vowpal Wabbit's held-out examples of a multi-pass run.

As in Vowpal Wabbit (``--holdout_period``, default 10 when there is more than
one pass), the examples K, 2K, 3K, ... of the file (counted from 1, in every
pass alike) are held out: predicted with the weights of that moment, never
learned, in every pass including the first. The progressive table counts the
other examples only; the held-out mistake rate of each pass is printed after it
(a regressor's held-out MAE, RMSE and average loss: ``RegressionTask.held_out_sums``).

A learner with a pass that takes the held-out rows as a mask (``_held_out_pass``:
the binary linear (kernel learners included), second-order, quasi-additive,
multiclass, cost-sensitive, regression, uniclass and multilabel learners, and a
``--scale`` pipeline of one of them; see
:mod:`olearn._held_out`) learns a chunk in one compiled pass
(:meth:`HeldOut.learn_masked`); the others learn each run of rows between two
held-out ones apart (:meth:`HeldOut.segments`), with the same results.
"""

import click
import numpy as np

DEFAULT_HOLDOUT_PERIOD = 10


def _holdout_period(every, off, passes):
    """The K of ``--holdout-every`` that applies (None: no example is held out), as Vowpal Wabbit decides it."""
    if passes == 1:
        if every is not None:
            raise click.UsageError("--holdout-every holds examples out of --passes N > 1; with one pass every "
                                   "example is predicted before it is learned (progressive validation)")
        return None
    if off:
        if every is not None:
            raise click.UsageError("--holdout-every and --holdout-off contradict each other")
        return None
    return DEFAULT_HOLDOUT_PERIOD if every is None else every


class HeldOut:
    """The held-out examples of one pass (none if ``every`` is None): which rows they are, and their mistakes
    (``task`` names them: mistakes, or vectors outside the ball; None: binary) or a regressor's errors and losses."""

    def __init__(self, every, task=None):
        from ._tasks import task_named

        self.every = every
        self.task = task_named("binary") if task is None else task
        self.position = 0  # rows of the pass already given to segments(), held out or not
        self.examples = 0
        self.mistakes = 0
        self.sums = np.zeros(self.task.n_held_out_sums)  # a regressor's: its errors and losses

    def _held(self, n):
        """Whether each of the next ``n`` rows of the pass is held out (1-based row i is when i % every == 0)."""
        return (np.arange(self.position + 1, self.position + n + 1) % self.every) == 0

    def learned_rows(self, n):
        """A boolean mask of the next ``n`` rows that are learned, or None if all are."""
        return None if self.every is None else ~self._held(n)

    def learn_masked(self, est, X, y, weight):
        """Learn the rows of X, the next of the pass, in one pass of ``est`` that holds out this pass's rows.

        ``y``: the labels as an array (a multilabel chunk's label sets: :func:`label_rows`), or None.

        Returns ``(learned, every_row)``: an :class:`olearn.RunResult` of the
        learned rows alone, and one of every row in order (for ``-p``, with
        the probabilities of a binary learner that has them, as
        :func:`olearn.run` gives them: a held-out row's those of its moment);
        the held-out rows are counted here. None, nothing learned or counted,
        where ``est`` has no such pass or refuses the chunk.
        """
        from .._calibration import probabilities
        from .._kernels import _codes
        from ..evaluate import RunResult
        from ..evaluate._progressive import _calibrated

        n = X.shape[0]
        held = self._held(n)
        masked = getattr(est, "_held_out_pass", None)
        if masked is None:
            return None
        # a calibrated learner's log-odds of each row at its moment (its probabilities), as olearn.run records them
        log_odds = np.empty(n) if _calibrated(est) else None
        outputs = masked(X, y, held, weight) if log_odds is None else masked(X, y, held, weight, log_odds=log_odds)
        if outputs is None:
            return None
        predictions, scores, losses, taus, mistakes, totals = outputs
        learned = ~held
        mistakes_learned = mistakes[learned]
        result = RunResult(n_rounds=int(totals[_codes.T_ROUNDS]), n_mistakes=int(totals[_codes.T_MISTAKES]),
                           n_updates=int(totals[_codes.T_UPDATES]), cumulative_loss=float(totals[_codes.T_LOSS]),
                           predictions=predictions[learned], scores=scores[learned], losses=losses[learned],
                           taus=taus[learned], cumulative_mistakes=np.cumsum(mistakes_learned, dtype=np.int64))
        proba = np.empty((0, 0))
        if n and est._task == "binary" and hasattr(est, "predict_proba"):
            proba = probabilities(scores if log_odds is None else log_odds, est.classes_.size)
        every_row = RunResult(n_rounds=n, n_mistakes=int(mistakes.sum()), n_updates=result.n_updates,
                              cumulative_loss=result.cumulative_loss, predictions=predictions, scores=scores,
                              losses=losses, taus=taus, cumulative_mistakes=np.cumsum(mistakes, dtype=np.int64),
                              probabilities=proba)
        self.examples += int(held.sum())
        self.mistakes += int(mistakes[held].sum())
        self._add_sums(est, y, predictions, held)
        self.position += n
        return result, every_row

    def segments(self, n):
        """``(lo, hi, held)`` runs of the next ``n`` rows, in order, learned or held out; then moves past them."""
        if self.every is None:
            if n:
                yield 0, n, False
        else:
            held = self._held(n)
            cuts = np.flatnonzero(np.diff(held.astype(np.int8))) + 1
            bounds = [0, *cuts.tolist(), n]
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                if hi > lo:
                    yield lo, hi, bool(held[lo])
        self.position += n

    def add(self, result, y=None, model=None):
        """Count the predictions of held-out rows (a :class:`FrozenResult`) of ``model``, their labels ``y``."""
        self.examples += result.n_rounds
        self.mistakes += result.n_mistakes
        self._add_sums(model, y, result.predictions)

    def _add_sums(self, model, y, predictions, rows=slice(None)):
        """Add up the task's held-out sums of the ``rows`` (``RegressionTask.held_out_sums``), one row after the
        other: the totals do not depend on how the pass was cut into calls."""
        if self.task.n_held_out_sums:
            rows = self.task.held_out_sums(model, y[rows], predictions[rows])
            self.sums = np.cumsum(np.vstack([self.sums, rows]), axis=0)[-1]

    @property
    def mistake_rate(self):
        return self.mistakes / self.examples if self.examples else float("nan")

    def line(self, pass_number):
        """The line printed under the table after a pass."""
        if self.task.n_held_out_sums:
            measured = ", ".join(f"{name} {value:.6f}" for name, value in self.task.held_out_items(self.examples,
                                                                                                   self.sums))
            return f"pass {pass_number} held out: {self.examples:,} examples, {measured} h"
        return (f"pass {pass_number} held out: {self.examples:,} examples, {self.mistakes:,} "
                f"{self.task.mistakes_name}, {self.task.rate_name} {self.mistake_rate:.6f} h")

    def summary_lines(self, every):
        """The summary's lines about the last pass's held-out examples."""
        lines = [f"{'held out':<14}{self.examples:,} per pass (every {every}th example, never learned)"]
        if self.task.n_held_out_sums:
            return lines + [f"{'held-out ' + name:<14}{value:.6f} h (last pass)"
                            for name, value in self.task.held_out_items(self.examples, self.sums)]
        return lines + [f"{'held-out rate':<14}{self.mistake_rate:.6f} h (last pass)"]


def label_rows(y):
    """A chunk's labels as an array that masks select: a list of label sets (multilabel) as a 1-d array of them."""
    if not isinstance(y, list):
        return y
    rows = np.empty(len(y), dtype=object)
    for i, labels in enumerate(y):
        rows[i] = labels
    return rows
