"""The totals every compiled pass adds up: mistakes, cumulative loss, updates and rounds."""

from ._codes import T_LOSS, T_MISTAKES, T_ROUNDS, T_UPDATES
from ._jit import njit


@njit(cache=True, inline="always")
def add_totals(totals, mistakes, cumulative_loss, updates, rounds):
    """Add one pass's counts to the ``totals`` array (layout ``T_*`` of :mod:`._codes`)."""
    totals[T_MISTAKES] += mistakes
    totals[T_LOSS] += cumulative_loss
    totals[T_UPDATES] += updates
    totals[T_ROUNDS] += rounds
