r"""The rows of :func:`olearn.bounds.bound_report` for multi-prototype PA (Crammer et al. 2006, Sec. 7).

The competitor is a matrix U, one prototype per class (the rows of
:mod:`olearn.bounds._multiclass`); :math:`U = sV` for a unit-norm candidate V
is searched over s exactly as the binary report searches the scale of u,
with the multiclass margin :math:`u_{y_t} \cdot x_t - \max_{r \ne y_t} u_r \cdot x_t`,
which is linear in s, in place of :math:`y_t\, u \cdot x_t`.
"""

import math
import warnings

import numpy as np

from .._validation import check_y
from ._report_competitors import _SVC_GRID, _adders, fitted_rows
from ._report_rows import MISTAKES, SQUARED_LOSS, _report
from ._report_run import _check_result
from ._theorems import _pa1, _pa2, _pa_separable, stream_rows

MC_PA = "Crammer et al. 2006, Cor. 8 (multiclass PA, separable)"
MC_PA1 = "Crammer et al. 2006, Sec. 7 with Thm. 4 (multiclass PA-I)"
MC_PA2 = "Crammer et al. 2006, Sec. 7 with Thm. 5 (multiclass PA-II)"
_MULTICLASS_MARGIN = "u_(y_t).x_t - max_(r != y_t) u_r.x_t"


class _Prototypes:
    """A multiclass stream (CSR rows, augmented if asked; label positions in the sorted classes)
    seen through flattened competitors v, U = v as a (k, d) matrix."""

    def __init__(self, X, y, fit_intercept, classes=None):
        self.Z, sqnorms = stream_rows(X, fit_intercept)
        y = check_y(y, self.Z.shape[0])
        self.classes, self.y = np.unique(y, return_inverse=True)
        if classes is not None:
            # the classes the learner was told of, some perhaps absent from y
            self.classes = np.unique(np.asarray(classes))
            self.y = np.searchsorted(self.classes, y)
            if not np.isin(y, self.classes).all():
                raise ValueError(f"y holds labels outside the learner's classes {self.classes.tolist()}")
        self.shape = (self.classes.size, self.Z.shape[1])
        # the bound on ||Phi(x_t, y_t) - Phi(x_t, r)||^2 = 2 ||x_t||^2 (Sec. 7, multi-prototype)
        self.radius_sq = 2.0 * float(sqnorms.max())

    def margins(self, v):
        """u_{y_t}.x_t - max_{r != y_t} u_r.x_t (+inf with a single class)."""
        scores = np.asarray(self.Z @ v.reshape(self.shape).T)
        n = scores.shape[0]
        true = scores[np.arange(n), self.y].copy()
        scores[np.arange(n), self.y] = -np.inf
        return true - scores.max(axis=1)

    def check_U(self, U, fit_intercept):
        """U flattened, after checking it has one finite row per class (the bias last with an intercept)."""
        U = np.asarray(U, dtype=np.float64)
        if U.shape != self.shape:
            extra = " (plus 1 column for the intercept, as fit_intercept=True)" if fit_intercept else ""
            raise ValueError(f"U must have shape {self.shape}, one row per sorted class of y{extra}; got {U.shape}")
        if not np.isfinite(U).all():
            raise ValueError("U must hold finite values")
        return U.ravel()


def _directions(prototypes, C_values):
    """Unit candidates: the class means, and LinearSVC(multi_class="crammer_singer") fits for each C.

    The Crammer-Singer objective with C, :math:`\\frac12\\|U\\|^2 + C\\sum_t \\ell^*_t`,
    is half the U-dependent factor of the PA-I bound with the same C.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    k, d = prototypes.shape
    means = np.zeros((k, d))
    for a in range(k):
        if (prototypes.y == a).any():
            means[a] = np.asarray(prototypes.Z[prototypes.y == a].mean(axis=0)).ravel()
    candidates = [means - means.mean(axis=0)]
    Z, y, weight = fitted_rows(prototypes.Z, prototypes.y)
    if np.unique(y).size >= 2:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for C in C_values:
                svc = LinearSVC(C=C * weight, multi_class="crammer_singer", fit_intercept=False, max_iter=1000,
                                random_state=0).fit(Z, y)
                U = np.zeros((k, d))
                if svc.coef_.shape[0] == 1:  # two classes: one direction, the second class's side positive
                    U[svc.classes_[0]], U[svc.classes_[1]] = -svc.coef_[0], svc.coef_[0]
                else:
                    U[svc.classes_] = svc.coef_
                candidates.append(U)
    flat = [U.ravel() for U in candidates]
    return [v / np.linalg.norm(v) for v in flat if np.isfinite(v).all() and np.linalg.norm(v) > 0]


def multiclass_setup(estimator, X, y, U, classes=None):
    """(prototypes, unit candidate directions or None, the given U flattened or None).

    ``classes``: all the classes (U's rows), when the learner was told of some that y lacks.
    """
    fit_intercept = bool(estimator.fit_intercept)
    prototypes = _Prototypes(X, y, fit_intercept, classes)
    k = prototypes.shape[0]
    given = None
    if U is not None:
        given = prototypes.check_U(U, fit_intercept)
    directions = None
    if given is None:
        C_values = list(_SVC_GRID)
        if estimator.variant == "pa1" and math.isfinite(estimator.C):
            C_values.insert(0, float(estimator.C))
        directions = _directions(prototypes, C_values) if k >= 2 else []
    return prototypes, directions, given


def multiclass_report(estimator, X, y, result, U):
    """The rows of a multi-prototype PAMulticlass run (Crammer et al. 2006, Sec. 7)."""
    if estimator.feature_map is not None:
        raise ValueError(
            f"bound_report's multiclass theorems are stated here for the multi-prototype learner "
            f"(R^2 = 2 max ||x_t||^2); {estimator!r} has a feature_map, whose R it cannot know"
        )
    if estimator.class_weight is not None:
        raise ValueError(f"bound_report's theorems are about unweighted rounds; {estimator!r} has a class_weight")
    prototypes, directions, given = multiclass_setup(estimator, X, y, U)
    _check_result(estimator, X, y, result, prototypes.y.size)
    r2, (k, d) = prototypes.radius_sq, prototypes.shape
    rows, skipped = [], []
    add, add_separable = _adders(prototypes, directions, given, k * d, rows, skipped, _MULTICLASS_MARGIN,
                                 shape=(k, d))
    # PA-I: plus one mistake per class, for on the round a class first appears the learner cannot name it
    add_prototype_rows(add, add_separable, estimator, result, r2, (MC_PA, MC_PA1, MC_PA2), first_rounds=k)
    return _report(estimator, result, rows, skipped)


def add_prototype_rows(add, add_separable, estimator, result, r2, theorems, first_rounds=0):
    """The rows of a multi-prototype PA learner (multiclass or multilabel, Crammer et al. 2006, Sec. 7): PA's
    separable bound on the squared losses, PA-I's on the mistakes (plus ``first_rounds``), PA-II's on the squared
    losses; ``theorems`` names the three."""
    pa, pa1, pa2 = theorems
    squared = float(np.sum(result.losses**2))
    C = math.inf if estimator.variant == "pa" else float(estimator.C)
    if math.isinf(C):
        add_separable(pa, SQUARED_LOSS, squared, lambda u2, m: _pa_separable(r2, u2, m), need_unit_margin=True)
    if estimator.variant == "pa1":
        add(pa1, MISTAKES, result.n_mistakes, lambda u2, m: _plus(_pa1(r2, u2, m, C), first_rounds))
    elif estimator.variant == "pa2":
        add(pa2, SQUARED_LOSS, squared, lambda u2, m: _pa2(r2, u2, m, C))


def _plus(bound_and_loss, extra):
    bound, loss = bound_and_loss
    return bound + extra, loss
