"""Pictures of online learning runs (matplotlib, rendered off-screen; pyplot is never used)."""

from ._mistakes import plot_cumulative_mistakes, plot_cumulative_mistakes_panels

__all__ = ["plot_cumulative_mistakes", "plot_cumulative_mistakes_panels"]
