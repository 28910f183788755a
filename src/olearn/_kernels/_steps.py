"""The step rules of the passive-aggressive family, shared by every task.

A task (binary, regression, uniclass, multiclass, multilabel, cost-sensitive,
sequences) reduces its round to a loss ``l`` and the squared norm ``s = ||z||^2``
of its virtual instance ``z`` in the current geometry; this module turns the two
into the step size ``tau``. No task computes tau on its own (DESIGN.md).
"""

from ._codes import STEP_PA1, STEP_PA2
from ._jit import njit


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
    """tau of PA, PA-I or PA-II for an example of importance weight ``weight >= 0``.

    The weight multiplies the round's loss in the PA problems of Crammer et al.
    2006, Eq. (6) ``min ||w - w_t||^2 / 2 + weight C xi`` (PA-I) and Eq. (7)
    ``... + weight C xi^2`` (PA-II), so that ``C`` becomes ``weight * C`` in
    their closed forms, Eq. (8): PA-I
    ``min(wC, l / s)`` (an integer weight equals the example repeated that many
    times), PA-II ``l / (s + 1/(2wC))``. PA's hard constraint cannot be
    weighted: any ``weight > 0`` is the plain PA step (PA-I with ``wC = inf``).
    A weight of 0 (or one so small that ``weight * C`` underflows) gives tau = 0.
    """
    wc = weight * C
    if not wc > 0.0:
        return 0.0
    return pa_step(rule, loss, sqnorm, wc)
