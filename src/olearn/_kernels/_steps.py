"""The step rules of the passive-aggressive family, shared by every task.

A task (binary, regression, uniclass, multiclass, multilabel, cost-sensitive,
sequences) reduces its round to a loss ``l`` and the squared norm ``s = ||z||^2``
of its virtual instance ``z`` in the current geometry; this module turns the two
into the step size ``tau``. No task computes tau on its own (DESIGN.md).
"""

from numba import njit

from ._codes import STEP_PA1, STEP_PA2


@njit(cache=True, inline="always")
def pa_step(rule, loss, sqnorm, C):
    """tau of PA, PA-I or PA-II (Crammer et al. 2006, Eq. 3 and Eq. 8).

    PA: ``l / s``; PA-I: ``min(C, l / s)``; PA-II: ``l / (s + 1/(2C))``. Zero when
    there is no loss, and zero when ``s = 0`` (z = 0: every weight vector has the
    same loss on this round, so there is nothing to move towards).
    ``rule`` is one of ``STEP_PA``, ``STEP_PA1``, ``STEP_PA2`` of :mod:`._codes`.
    """
    if loss <= 0.0:
        return 0.0
    denominator = sqnorm
    if rule == STEP_PA2:
        denominator += 0.5 / C
    if denominator <= 0.0:
        return 0.0
    tau = loss / denominator
    if rule == STEP_PA1 and tau > C:
        tau = C
    return tau


@njit(cache=True, inline="always")
def weighted_pa_step(rule, loss, sqnorm, C, weight):
    """tau of PA, PA-I or PA-II for an example of importance ``weight`` >= 0: C becomes ``weight * C``.

    PA-I: ``min(w C, l / s)``; PA-II: ``l / (s + 1/(2 w C))``; PA (C = inf):
    the plain step for any w > 0. Weight 0 is no step. For PA-I an integer
    weight w is the step of the example repeated w times when the direction of
    the update stays the same (the second copy's loss is ``l - tau s``).
    """
    if weight == 0.0:
        return 0.0
    return pa_step(rule, loss, sqnorm, weight * C)
