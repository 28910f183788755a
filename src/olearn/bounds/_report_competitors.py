"""The default competitor of a report: candidate directions, the scale of each that gives the smallest bound,
the separator of largest margin; and the two ways a report adds the row of a theorem for a competitor."""

import math
import warnings

import numpy as np

from ._report_rows import _row

# LinearSVC's C values tried for the default competitor: from heavily
# regularised (short u, suits the loss-dominated bounds) to nearly hard margin.
_SVC_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
# The directions are fitted on at most this many rows (liblinear slows down
# sharply on long inseparable streams with a large C); the bounds themselves
# are always evaluated on the whole stream.
_FIT_ROWS = 2000
_N_SCALES = 81
_BINARY_MARGIN = "y_t u.x_t"


def fitted_rows(Z, y):
    """(Z, y, weight): the rows the candidates are fitted on, all or a fixed random subset of ``_FIT_ROWS`` of
    them in their order, and the weight by which to scale the fits' C (which weighs a sum over the rows) so that
    the subset keeps the balance of the whole stream."""
    n = Z.shape[0]
    if n <= _FIT_ROWS:
        return Z, y, 1.0
    rows = np.sort(np.random.default_rng(0).choice(n, size=_FIT_ROWS, replace=False))
    return Z[rows], y[rows], n / _FIT_ROWS


def _directions(stream, own_fit=None):
    """Unit candidate directions for u: LinearSVC solutions and the mean of y_t x_t.

    ``own_fit`` is an extra (loss, C) to fit, for the learner's own C: for
    PA-I the u-dependent factor of Thm. 4, ||u||^2 + 2C sum_t l*_t, is twice
    LinearSVC's hinge objective with the same C, and for PA-II that of Thm. 5
    is twice its squared-hinge objective, so that fit is the best direction.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    directions = []
    mean = np.asarray(stream.Z.T @ stream.y).ravel() / stream.y.size
    if np.linalg.norm(mean) > 0:
        directions.append(mean / np.linalg.norm(mean))
    if np.unique(stream.y).size < 2:
        return directions
    Z, y, weight = fitted_rows(stream.Z, stream.y)
    fits = [(loss, C) for loss in ("hinge", "squared_hinge") for C in _SVC_GRID]
    if own_fit is not None:
        fits.insert(0, own_fit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for loss, C in fits:
            svc = LinearSVC(C=C * weight, loss=loss, fit_intercept=False, dual=True, max_iter=1000, random_state=0)
            v = svc.fit(Z, y).coef_.ravel()
            if np.linalg.norm(v) > 0 and np.isfinite(v).all():
                directions.append(v / np.linalg.norm(v))
    return directions


def scales_spanning(size):
    """The log grid of scales s tried for a direction whose margins have sizes ``size`` (some positive): from
    the s at which the largest is 1e-3 to the s at which the smallest positive one is 1e3."""
    return np.geomspace(1e-3 / size.max(), 1e3 / size[size > 0].min(), _N_SCALES)


def _best_scale(objective, margins):
    """min over s >= 0 of objective(s^2, s * margins), for u = s v with ||v|| = 1: a log grid, then Brent on log s."""
    from scipy.optimize import minimize_scalar

    best_value, best_s = objective(0.0, 0.0 * margins), 0.0
    size = np.abs(margins)
    if not (size > 0).any():
        return best_value, best_s
    scales = scales_spanning(size)
    values = np.array([objective(s * s, s * margins) for s in scales])
    i = int(np.argmin(values))
    if values[i] < best_value:
        best_value, best_s = float(values[i]), float(scales[i])
        left, right = np.log(scales[max(i - 1, 0)]), np.log(scales[min(i + 1, scales.size - 1)])
        if right > left:
            found = minimize_scalar(
                lambda r: objective(math.exp(2.0 * r), math.exp(r) * margins),
                bounds=(left, right), method="bounded", options={"xatol": 1e-6},
            )
            if found.fun < best_value:
                best_value, best_s = float(found.fun), math.exp(found.x)
    return best_value, best_s


def _competitor(stream, directions, objective, size):
    """The u = s * v (v a candidate direction, ``size`` entries) with the smallest bound."""
    best = (math.inf, np.zeros(size))
    for v in directions:
        value, s = _best_scale(objective, stream.margins(v))
        if value < best[0]:
            best = (value, s * v)
    return best[1]


def _separator(stream, directions):
    """The candidate with the largest margin, scaled so that min_t y_t u.x_t = 1; None if none separates."""
    best, best_gamma = None, 0.0
    for v in directions:
        gamma = float(stream.margins(v).min())
        if gamma > best_gamma:
            best, best_gamma = v, gamma
    if best is None:
        return None
    u = best / best_gamma
    for _ in range(5):
        # rounding may leave the smallest margin a few ulps below 1; nudge u up until it is not
        low = float(stream.margins(u).min())
        if low >= 1.0:
            return u
        u = u * ((1.0 + 1e-12) / low)
    return None


def _adders(space, directions, given, size, rows, skipped, margin_name, shape=None, norm_sq=None):
    """The report's two ways of adding a row, over ``space`` (its ``margins(v)`` for a flat competitor v).

    ``directions`` are the unit candidates (None when the competitor is
    ``given``); each row's u is v, reshaped to ``shape`` if one is given.
    ``margin_name`` names the margin in the reasons a theorem is left out.
    ``norm_sq(v)`` is the squared norm the objectives take (default
    Euclidean); the directions must be unit in that norm.
    """
    if norm_sq is None:
        def norm_sq(v):
            return float(v @ v)


    def as_u(v):
        return v if shape is None else v.reshape(shape)

    def add(theorem, quantity, measured, objective):
        """A row for a bound that holds for every u; objective(||u||^2, margins) -> (bound, loss of u).

        The default u minimises the objective.
        """
        if given is not None:
            v = given
        else:
            v = _competitor(space, directions, lambda u2, m: objective(u2, m)[0], size)
        bound, loss = objective(norm_sq(v), space.margins(v))
        if given is None and math.isinf(bound):
            skipped.append((theorem, "no candidate competitor gives a finite bound"))
            return
        rows.append(_row(theorem, quantity, measured, bound, as_u(v), loss))

    def add_separable(theorem, quantity, measured, bound_of, need_unit_margin):
        """A row for a theorem that assumes u separates (with margin 1 if ``need_unit_margin``).

        ``bound_of(||u||^2, margins)`` is the bound.
        """
        if given is None:
            v = _separator(space, directions)
            if v is None:
                skipped.append((theorem, "no candidate competitor separates the stream (it may be inseparable)"))
                return
        else:
            v, low = given, float(space.margins(given).min())
            if low <= 0.0 or (need_unit_margin and low < 1.0):
                need = f"{margin_name} >= 1 on every round" if need_unit_margin else "u to separate the stream"
                skipped.append((theorem, f"it needs {need}; the given u has min_t {margin_name} = {low:.6g}"))
                return
        rows.append(_row(theorem, quantity, measured, bound_of(norm_sq(v), space.margins(v)), as_u(v), 0.0))

    return add, add_separable
