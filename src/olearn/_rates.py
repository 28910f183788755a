"""The two rates a result of a run reads from its totals."""


class RunRates:
    """``mistake_rate`` and ``average_loss`` of a result that has ``n_rounds``, ``n_mistakes`` and
    ``cumulative_loss`` (:class:`olearn.RunResult`, the Dask path's result, the CLI's mistake trace)."""

    @property
    def mistake_rate(self):
        """Mistakes per round (0 for an empty run)."""
        return self.n_mistakes / self.n_rounds if self.n_rounds else 0.0

    @property
    def average_loss(self):
        """Cumulative loss per round (0 for an empty run)."""
        return self.cumulative_loss / self.n_rounds if self.n_rounds else 0.0
