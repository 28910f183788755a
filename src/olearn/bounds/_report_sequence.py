"""The bound of a finished PASequence run, next to what the run measured (Crammer et al. 2006, Sec. 9)."""

import math

import numpy as np

from ..evaluate import run
from ._report_rows import SQUARED_LOSS, BoundReport, BoundRow
from ._sequence import SequenceTerms

PA_SEQUENCE = "Crammer et al. 2006, Sec. 9 with Thm. 2 (PA sequences, separable)"
PA1_SEQUENCE = "Crammer et al. 2006, Sec. 9 with Eq. (57) (PA-I sequences)"
PA2_SEQUENCE = "Crammer et al. 2006, Sec. 9 with Thm. 5 (PA-II sequences)"
TAU_LOSS = "sum of tau * loss"
_THEOREMS = {"pa": (PA_SEQUENCE, SQUARED_LOSS), "pa1": (PA1_SEQUENCE, TAU_LOSS), "pa2": (PA2_SEQUENCE, SQUARED_LOSS)}
# the scales of the learner's weights tried for the separable bound (which is inf until every l*_t is 0)
_SCALES = 2.0 ** np.arange(-10, 31)


def sequence_bound_report(estimator, X, y, result, competitor=None):
    """The bound of :func:`~olearn.bounds.sequence_loss_bound` for ``estimator``'s variant on its run.

    ``competitor`` is ``(emission, transition)``, or ``(emission, transition,
    end_transition)`` for a learner with the end transition (without it the
    competitor's end weights are 0); by default it is the learner's own final
    weights (``coef_``, with ``intercept_`` as the last column when it has one,
    ``transition_`` and ``end_transition_``) times the factor that gives
    the smallest bound. The bound holds for every competitor, so choosing one
    after the run is fair. For PA the factor is the smallest power of 2 that
    makes every max-loss 0 (the bound is infinite otherwise); for PA-I and
    PA-II, whose bounds are convex in the factor, a bounded scalar search.
    The measured quantity is the one the theorem bounds: the sum of
    ``tau_t * loss_t`` (PA-I) or of ``loss_t^2`` (PA, PA-II) of the learner's
    losses before each update.
    """
    variant, C = estimator.variant, estimator.C
    chosen = competitor is None
    if chosen:
        emission = estimator.coef_
        if estimator.fit_intercept:
            emission = np.column_stack([emission, estimator.intercept_])
        competitor = (emission, estimator.transition_)
        if estimator.end_transition:
            competitor += (estimator.end_transition_,)
    elif estimator.end_transition and len(competitor) == 2:
        competitor = (*competitor, np.zeros(estimator.classes_.size))
    elif not estimator.end_transition and len(competitor) == 3:
        raise ValueError(f"{estimator!r} has no end transition: the competitor is (emission, transition)")
    emission, transition, *end = competitor
    terms = SequenceTerms(X, y, emission, transition, cost=estimator.cost, classes=estimator.classes_,
                          fit_intercept=estimator.fit_intercept, end_transition=end[0] if end else None)
    scale = _best_scale(terms, variant, C) if chosen else 1.0
    losses = terms.losses(scale)
    bound = terms.bound(variant, C, scale, losses)
    theorem, quantity = _THEOREMS[variant]
    if quantity == TAU_LOSS:
        measured = float(np.dot(result.taus, result.losses))
        loss_of_u = float(losses.sum())
    else:
        measured = float(np.dot(result.losses, result.losses))
        loss_of_u = float(losses @ losses)
    if math.isinf(bound):
        why = ("no multiple of the learner's weights makes every max-loss 0" if chosen
               else "the competitor's max-loss is not 0 on every sequence")
        return BoundReport(repr(estimator), result.n_rounds, (), ((theorem, why),))
    u = np.concatenate([scale * np.ravel(part) for part in competitor])
    row = BoundRow(theorem, quantity, measured, bound, scale * math.sqrt(terms.u2), loss_of_u,
                   measured <= bound * (1 + 1e-9), u)
    return BoundReport(repr(estimator), result.n_rounds, (row,))


def _best_scale(terms, variant, C):
    from scipy.optimize import minimize_scalar

    if terms.u2 == 0.0:
        return 1.0
    if variant == "pa":
        finite = [s for s in _SCALES if terms.losses(s).max() == 0.0]
        return finite[0] if finite else 1.0
    found = minimize_scalar(lambda log_s: terms.bound(variant, C, math.exp(log_s)), bounds=(-25.0, 25.0),
                            method="bounded", options={"xatol": 1e-3})
    return math.exp(found.x) if terms.bound(variant, C, math.exp(found.x)) < terms.bound(variant, C) else 1.0


def replayed_sequence_report(estimator, X, y, result, competitor=None):
    """:func:`sequence_bound_report` for :func:`~olearn.bounds.bound_report`: the run is replayed on a clone of the
    fresh ``estimator`` and must be ``result`` (the same losses and steps); the default competitor comes from the
    weights the replay ends with."""
    from sklearn.base import clone

    replay = clone(estimator)
    replayed = run(replay, X, y)
    if result.n_rounds != replayed.n_rounds or not (np.array_equal(result.losses, replayed.losses)
                                                    and np.array_equal(result.taus, replayed.taus)):
        raise ValueError("result is not the run of this estimator on X, y: a replay on a fresh clone recorded other "
                         "losses or steps (bound_report needs the run of a fresh estimator, with record=True)")
    return sequence_bound_report(replay, X, y, result, competitor)
