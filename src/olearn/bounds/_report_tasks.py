r"""The rows of :func:`olearn.bounds.bound_report` for PA regression, uniclass, multilabel and cost-sensitive learning.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Sec. 5-8: each task's versions of Thms.
2-5, as :mod:`olearn.bounds._regression`,
:mod:`olearn.bounds._uniclass_multilabel` and :mod:`olearn.bounds._multiclass`
state them for a competitor; here the competitor is found as in the
classification report (a few candidate directions, each scaled to its best
bound) when none is given.
"""

import math
import warnings
from dataclasses import replace

import numpy as np

from ..linear import PARegressor
from ..multiclass import PACostSensitive
from ..multilabel import PAMultilabel
from ..uniclass import PAUniclass
from ._multiclass import _cost_margins
from ._regression import _RegressionStream, _check_epsilon
from ._report_competitors import _SVC_GRID, _adders, _competitor, fitted_rows
from ._report_multiclass import add_prototype_rows, multiclass_setup
from ._report_rows import SQUARED_LOSS, _report, _row
from ._report_run import _check_result, check_linear
from ._theorems import (
    _check_unit_norm,
    _times,
    check_u,
    pa1_value,
    pa2_value,
    stream_rows,
)
from ._uniclass_multilabel import _vectors, relevance, uniclass_terms

REG_PA_THM2 = "Crammer et al. 2006, Sec. 5 with Thm. 2 (PA regression, u within epsilon)"
REG_PA_THM3 = "Crammer et al. 2006, Sec. 5 with Thm. 3 (PA regression, ||x_t|| = 1)"
REG_PA_THM4 = "Crammer et al. 2006, Sec. 5 with Thm. 4 (PA-I regression)"
REG_PA_THM5 = "Crammer et al. 2006, Sec. 5 with Thm. 5 (PA-II regression)"
LARGE_LOSSES = "rounds with loss >= 1"
_REGRESSION_MARGIN = "|u.x_t - y_t| <= epsilon"
# Ridge's regularisation for the default regression competitor: from nearly least squares to heavily shrunk
_RIDGE_ALPHAS = (1e-6, 1e-3, 1e-1, 1.0, 10.0, 100.0, 1000.0)


class _Predictions:
    """A regression stream seen through a flat competitor v: ``margins(v)`` are its predictions v.x_t."""

    def __init__(self, stream):
        self.stream = stream

    def margins(self, v):
        return np.asarray(self.stream.Z @ v).ravel()


def _regression_fits(stream, epsilon, own_fit):
    """Candidate competitors, unscaled: Ridge for each alpha, and LinearSVR with the learner's own C.

    ``own_fit`` is (loss, C) or None. LinearSVR's objective with C,
    :math:`\\frac12\\|u\\|^2 + C\\sum_t \\ell^*_t` (``"epsilon_insensitive"``)
    or :math:`\\frac12\\|u\\|^2 + C\\sum_t (\\ell^*_t)^2`
    (``"squared_epsilon_insensitive"``), is half the u-dependent factor of
    the PA-I (PA-II) bound with the same C and epsilon.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Ridge
    from sklearn.svm import LinearSVR

    Z, y, weight = fitted_rows(stream.Z, stream.y)
    fits = [Ridge(alpha=alpha / weight, fit_intercept=False).fit(Z, y).coef_.ravel() for alpha in _RIDGE_ALPHAS]
    if own_fit is not None:
        loss, C = own_fit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svr = LinearSVR(C=C * weight, epsilon=epsilon, loss=loss, fit_intercept=False, dual=True,
                            max_iter=1000, random_state=0)
            fits.insert(0, svr.fit(Z, y).coef_.ravel())
    return [v for v in fits if np.isfinite(v).all() and np.linalg.norm(v) > 0]


def regression_report(estimator, X, y, result, u):
    """The rows of a linear PARegressor run (Sec. 5, Lemma 6 with Thms. 2-5)."""
    check_linear(estimator)
    fit_intercept = bool(estimator.fit_intercept)
    stream = _RegressionStream(X, y, fit_intercept)
    _check_result(estimator, X, y, result, stream.y.size)
    given = None if u is None else check_u(u, stream, fit_intercept)
    epsilon = _check_epsilon(estimator.epsilon)
    C = math.inf if estimator.variant == "pa" else float(estimator.C)
    own_fit = None
    if estimator.variant != "pa" and math.isfinite(C):
        own_fit = ("epsilon_insensitive" if estimator.variant == "pa1" else "squared_epsilon_insensitive", C)
    fits = None if given is not None else _regression_fits(stream, epsilon, own_fit)
    directions = None if fits is None else [v / np.linalg.norm(v) for v in fits]
    space = _Predictions(stream)
    r2 = float(stream.sqnorms.max())
    rows, skipped = [], []
    add, _ = _adders(space, directions, given, stream.Z.shape[1], rows, skipped, _REGRESSION_MARGIN)

    def losses(predictions):
        return np.maximum(0.0, np.abs(predictions - stream.y) - epsilon)

    def squared(predictions):
        return float((losses(predictions) ** 2).sum())

    measured_sq = float(np.sum(result.losses**2))
    if math.isinf(C):
        _add_within_epsilon(rows, skipped, stream, fits, given, losses, measured_sq, r2)
        problem = _check_unit_norm(stream, 1e-9)
        if problem:
            skipped.append((REG_PA_THM3, problem.removeprefix("Thm. 3 ")))
        else:
            add(REG_PA_THM3, SQUARED_LOSS, measured_sq,
                lambda u2, p: ((math.sqrt(u2) + 2.0 * math.sqrt(squared(p))) ** 2, squared(p)))
    if estimator.variant == "pa1":
        # Thm. 4's proof bounds the rounds with l_t >= 1 (a mistake, in classification)
        large = int(np.sum(result.losses >= 1.0))
        add(REG_PA_THM4, LARGE_LOSSES, large,
            lambda u2, p: (pa1_value(r2, u2, float(losses(p).sum()), C), float(losses(p).sum())))
    elif estimator.variant == "pa2":
        add(REG_PA_THM5, SQUARED_LOSS, measured_sq, lambda u2, p: (pa2_value(r2, u2, squared(p), C), squared(p)))
    return _report(estimator, result, rows, skipped)


def _add_within_epsilon(rows, skipped, stream, fits, given, losses, measured, r2):
    """Thm. 2's row, for a u with every |u.x_t - y_t| <= epsilon: the given one, or the shortest candidate fit."""
    if given is not None:
        worst = float(losses(stream.Z @ given).max())
        if worst > 0.0:
            skipped.append((REG_PA_THM2, f"it needs {_REGRESSION_MARGIN} on every round; the given u misses the "
                                         f"tube by up to {worst:.6g}"))
            return
        u = given
    else:
        inside = [v for v in fits if losses(stream.Z @ v).max() == 0.0]
        if not inside:
            skipped.append((REG_PA_THM2, f"no candidate competitor has {_REGRESSION_MARGIN} on every round"))
            return
        u = min(inside, key=lambda v: float(v @ v))
    rows.append(_row(REG_PA_THM2, SQUARED_LOSS, measured, float(u @ u) * r2, u, 0.0))


# -- uniclass (Sec. 6) ---------------------------------------------------------

UNI_PA = "Crammer et al. 2006, Sec. 6 with Thm. 3 (PA uniclass, ||z_t|| = 1)"
UNI_PA1 = "Crammer et al. 2006, Sec. 6 with Lemma 1 (PA-I uniclass)"
UNI_PA2 = "Crammer et al. 2006, Sec. 6 with Thm. 5 (PA-II uniclass)"
TAU_LOSS = "sum of tau_t * losses"
# quantiles of the distances ||c - y_t|| of a candidate center c tried as the competitor's radius (learn_radius)
_RADIUS_QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0)


class _Centers:
    """A uniclass stream seen through a flat competitor v: ``margins(v)`` are the v.y_t."""

    def __init__(self, Y):
        self.Y = Y
        self.sqnorms = (Y * Y).sum(axis=1)

    def margins(self, v):
        return self.Y @ v


def uniclass_report(estimator, X, y, result, u):
    """The rows of a PAUniclass run (Sec. 6): Lemma 1 with the unit z_t, for a center u and radius epsilon.

    The vectors are the rows of X (y is not used).
    """
    Y = _vectors(X)
    _check_result(estimator, X, None, result, Y.shape[0])
    centers = _Centers(Y)
    given = None
    if u is not None:
        given = np.asarray(u, dtype=np.float64)
        if given.shape != (Y.shape[1],) or not np.isfinite(given).all():
            raise ValueError(f"u must be a finite center of {Y.shape[1]} entries (the dimension of the vectors); "
                             f"got shape {given.shape}")
    B = float(estimator.B) if estimator.learn_radius else None
    C = math.inf if estimator.variant == "pa" else float(estimator.C)
    candidates = [np.mean(Y, axis=0), np.median(Y, axis=0)]
    if given is not None:
        candidates = [given]
    if B is None:
        radii = [float(estimator.epsilon)]
    else:
        # the competitor's radius is free in [0, B]: try quantiles of each candidate's distances
        radii = sorted({min(B, float(q)) for c in candidates
                        for q in np.quantile(np.linalg.norm(Y - c, axis=1), _RADIUS_QUANTILES)})
    directions = [c / np.linalg.norm(c) for c in candidates if given is None and np.linalg.norm(c) > 0]
    rows, skipped = [], []

    def add(theorem, quantity, measured, bound_of):
        """bound_of(||u - w_1||^2, losses l*_t) -> bound; the best (center, radius) among the candidates."""
        best = None
        for epsilon in radii:
            def objective(u2, m, epsilon=epsilon):
                # ||u - y_t||^2 from u.y_t, for the search over the scale of u
                start, losses = uniclass_terms(u2, np.maximum(0.0, u2 - 2.0 * m + centers.sqnorms), epsilon, B)
                return bound_of(start, losses)

            if given is not None:
                center = given
            else:
                center = _competitor(centers, directions, objective, Y.shape[1])
            # the row's bound from the distances themselves, free of the cancellation in the expansion above
            start, losses = uniclass_terms(float(center @ center), ((Y - center) ** 2).sum(axis=1), epsilon, B)
            bound, loss = bound_of(start, losses), float(losses.sum())
            if best is None or bound < best[0]:
                best = (bound, loss, center, epsilon)
        bound, loss, center, epsilon = best
        rows.append(replace(_row(theorem, quantity, measured, bound, center, loss), radius=epsilon))

    squared = float(np.sum(result.losses**2))
    if math.isinf(C):
        add(UNI_PA, SQUARED_LOSS, squared, _uniclass_pa)
    if estimator.variant == "pa1":
        add(UNI_PA1, TAU_LOSS, float(np.sum(result.taus * result.losses)),
            lambda start, losses: start + 2.0 * _times(C, float(losses.sum())))
    elif estimator.variant == "pa2":
        add(UNI_PA2, SQUARED_LOSS, squared,
            lambda start, losses: (1.0 + 0.5 / C) * (start + 2.0 * _times(C, float(losses @ losses))))
    return _report(estimator, result, rows, skipped)


def _uniclass_pa(start, losses):
    squares = float(losses @ losses)
    return start if squares == 0.0 else (math.sqrt(start) + 2.0 * math.sqrt(squares)) ** 2


# -- cost-sensitive multiclass (Sec. 8) ----------------------------------------

COST_PA = "Crammer et al. 2006, Sec. 8 with Thm. 2 (cost-sensitive PA, U with no loss)"
COST_PA1 = "Crammer et al. 2006, Sec. 8, Lemma 9 along Thm. 4 (cost-sensitive PA-I)"
COST_PA2 = "Crammer et al. 2006, Sec. 8 with Thm. 5 (cost-sensitive PA-II)"
CUMULATIVE_COST = "cumulative cost"


class _ScoreGaps:
    """A multiclass stream seen through a flat competitor v (U = v as a (k, d) matrix):
    ``margins(v)`` are the u_r.x_t - u_(y_t).x_t, flattened row by row."""

    def __init__(self, prototypes):
        self.prototypes = prototypes

    def margins(self, v):
        scores = np.asarray(self.prototypes.Z @ v.reshape(self.prototypes.shape).T)
        n = scores.shape[0]
        return (scores - scores[np.arange(n), self.prototypes.y][:, None]).ravel()


def cost_sensitive_report(estimator, X, y, result, U):
    """The row of a multi-prototype PACostSensitive run: the bound of :func:`olearn.bounds.cost_sensitive_bound`."""
    check_linear(estimator)
    if estimator.feature_map is not None or estimator.class_weight is not None:
        raise ValueError(f"bound_report's cost-sensitive theorem is about the multi-prototype learner on unweighted "
                         f"rounds; {estimator!r} has a feature_map or a class_weight")
    # a learner told of its classes before learning (as olearn run --costs does) has them in classes_
    declared = getattr(estimator, "classes_", None)
    prototypes, directions, given = multiclass_setup(estimator, X, y, U, declared)
    _check_result(estimator, X, y, result, prototypes.y.size, declared)
    classes = prototypes.classes
    k, d = prototypes.shape
    costs = np.ones((k, k)) - np.eye(k) if estimator.cost is None else _cost_margins(estimator.cost, classes)
    rho_max = float(costs.max())
    # the classes arrive with the stream: one round each on which the learner cannot name its class
    allowance = k * rho_max
    r2 = prototypes.radius_sq
    margins = np.sqrt(costs)[prototypes.y]
    C = math.inf if estimator.variant == "pa" else float(estimator.C)

    def objective(u2, gaps):
        # U's max-loss losses max_r (u_r.x_t - u_(y_t).x_t + sqrt(rho(y_t, r))), >= 0 (r = y_t gives 0)
        losses = np.maximum((gaps.reshape(-1, k) + margins).max(axis=1), 0.0)
        if estimator.variant == "pa":
            return (u2 * r2 if losses.max() == 0.0 else math.inf) + allowance, 0.0
        if estimator.variant == "pa1":
            return pa1_value(r2, u2, float(losses.sum()), C, scale=math.sqrt(rho_max)) + allowance, float(losses.sum())
        return pa2_value(r2, u2, float(losses @ losses), C) + allowance, float(losses @ losses)

    rows, skipped = [], []
    space = _ScoreGaps(prototypes)
    add, _ = _adders(space, directions, given, k * d, rows, skipped, "", shape=(k, d))
    predicted = np.searchsorted(classes, np.asarray(result.predictions))
    measured = float(costs[prototypes.y, predicted].sum())
    if estimator.variant != "pa":
        add(COST_PA1 if estimator.variant == "pa1" else COST_PA2, CUMULATIVE_COST, measured, objective)
        return _report(estimator, result, rows, skipped)
    # PA's bound ||U||^2 R^2 needs every loss of U at 0, and grows with U's scale: the shortest such U
    v = given if given is not None else _shortest_without_loss(space, directions, margins, objective)
    bound, _ = objective(float(v @ v), space.margins(v)) if v is not None else (math.inf, 0.0)
    if math.isinf(bound):
        whose = "the given U" if given is not None else "no candidate competitor"
        skipped.append((COST_PA, f"it needs U's max-loss losses at 0 on every round; {whose} has them"))
    else:
        rows.append(_row(COST_PA, CUMULATIVE_COST, measured, bound, v.reshape(k, d), 0.0))
    return _report(estimator, result, rows, skipped)


def _shortest_without_loss(space, directions, margins, objective):
    """The candidate s v with the smallest s at which every s (u_r - u_(y_t)).x_t + sqrt(rho(y_t, r)) <= 0.

    None if no candidate has such an s.
    """
    best = None
    for v in directions:
        gaps = space.margins(v).reshape(margins.shape)
        needed = margins > 0
        if (gaps[needed] >= 0).any() or (gaps[~needed] > 0).any():
            continue
        s = float((margins[needed] / -gaps[needed]).max()) if needed.any() else 0.0
        u = s * v
        for _ in range(5):
            # rounding may leave a loss a few ulps above 0; nudge the scale up until it is not
            if math.isfinite(objective(float(u @ u), space.margins(u))[0]):
                if best is None or u @ u < best @ best:
                    best = u
                break
            u = u * (1.0 + 1e-12)
    return best


# -- multilabel ranking (Sec. 7) -----------------------------------------------

ML_PA = "Crammer et al. 2006, Sec. 7 with Thm. 2 (multilabel PA, separable)"
ML_PA1 = "Crammer et al. 2006, Sec. 7 with Thm. 4 (multilabel PA-I)"
ML_PA2 = "Crammer et al. 2006, Sec. 7 with Thm. 5 (multilabel PA-II)"
_MULTILABEL_MARGIN = "min_(r in Y_t) u_r.x_t - max_(s not in Y_t) u_s.x_t"


class _Rankings:
    """A multilabel stream seen through a flat competitor v (U = v as a (k, d) matrix): ``margins(v)`` are
    U's margins gamma_t on the rounds with relevant and irrelevant labels (on the others no U has a loss)."""

    def __init__(self, Z, relevant):
        mixed = relevant.any(axis=1) & ~relevant.all(axis=1)
        self.Z, self.relevant = Z[mixed], relevant[mixed]
        self.shape = (relevant.shape[1], Z.shape[1])

    def margins(self, v):
        scores = np.asarray(self.Z @ v.reshape(self.shape).T)
        return (np.where(self.relevant, scores, np.inf).min(axis=1)
                - np.where(self.relevant, -np.inf, scores).max(axis=1))


def _one_vs_rest(Z, relevant):
    """Unit candidates: the centred label means of x, and one LinearSVC per label (relevant or not) for each C."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    k, d = relevant.shape[1], Z.shape[1]
    means = np.array([np.asarray(Z[relevant[:, r]].mean(axis=0)).ravel() if relevant[:, r].any() else np.zeros(d)
                      for r in range(k)])
    candidates = [means - means.mean(axis=0)]
    Z, relevant, weight = fitted_rows(Z, relevant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in _SVC_GRID:
            U = np.zeros((k, d))
            for r in range(k):
                if 0 < relevant[:, r].sum() < relevant.shape[0]:
                    svc = LinearSVC(C=C * weight, fit_intercept=False, dual=True, max_iter=1000, random_state=0)
                    U[r] = svc.fit(Z, relevant[:, r]).coef_.ravel()
            candidates.append(U)
    flat = [U.ravel() for U in candidates]
    return [v / np.linalg.norm(v) for v in flat if np.isfinite(v).all() and np.linalg.norm(v) > 0]


def multilabel_report(estimator, X, y, result, U):
    """The rows of a multi-prototype PAMultilabel run (Sec. 7 with Thms. 2, 4, 5; R^2 = 2 max ||x_t||^2)."""
    if estimator.feature_map is not None:
        raise ValueError(f"bound_report's multilabel theorems are stated here for the multi-prototype learner "
                         f"(R^2 = 2 max ||x_t||^2); {estimator!r} has a feature_map, whose R it cannot know")
    fit_intercept = bool(estimator.fit_intercept)
    Z, sqnorms = stream_rows(X, fit_intercept)
    _check_result(estimator, X, y, result, Z.shape[0])
    rankings = _Rankings(Z, relevance(Z.shape[0], y))
    k, d = rankings.shape
    given = None
    if U is not None:
        given = np.asarray(U, dtype=np.float64)
        if given.shape != (k, d) or not np.isfinite(given).all():
            extra = " (plus 1 column for the intercept, as fit_intercept=True)" if fit_intercept else ""
            raise ValueError(f"U must be finite, of shape {(k, d)}: one row per sorted label of y{extra}; "
                             f"got shape {given.shape}")
        given = given.ravel()
    directions = None if given is not None else _one_vs_rest(Z, relevance(Z.shape[0], y))
    r2 = 2.0 * float(sqnorms.max())
    rows, skipped = [], []
    add, add_separable = _adders(rankings, directions, given, k * d, rows, skipped, _MULTILABEL_MARGIN,
                                 shape=(k, d))
    add_prototype_rows(add, add_separable, estimator, result, r2, (ML_PA, ML_PA1, ML_PA2))
    return _report(estimator, result, rows, skipped)


TASK_REPORTS = {PARegressor: regression_report, PAUniclass: uniclass_report, PACostSensitive: cost_sensitive_report,
                PAMultilabel: multilabel_report}
