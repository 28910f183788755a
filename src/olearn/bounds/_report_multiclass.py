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
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from .._validation import check_y
from ._theorems import stream_rows


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


def _directions(prototypes, C_values, fit_rows):
    """Unit candidates: the class means, and LinearSVC(multi_class="crammer_singer") fits for each C.

    The Crammer-Singer objective with C, :math:`\\frac12\\|U\\|^2 + C\\sum_t \\ell^*_t`,
    is half the U-dependent factor of the PA-I bound with the same C.
    """
    k, d = prototypes.shape
    means = np.zeros((k, d))
    for a in range(k):
        if (prototypes.y == a).any():
            means[a] = np.asarray(prototypes.Z[prototypes.y == a].mean(axis=0)).ravel()
    candidates = [means - means.mean(axis=0)]
    Z, y = prototypes.Z, prototypes.y
    if y.size > fit_rows:
        rows = np.sort(np.random.default_rng(0).choice(y.size, size=fit_rows, replace=False))
        Z, y = Z[rows], y[rows]
    weight = prototypes.y.size / y.size
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


def multiclass_setup(estimator, X, y, U, svc_grid, fit_rows, classes=None):
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
        C_values = list(svc_grid)
        if estimator.variant == "pa1" and math.isfinite(estimator.C):
            C_values.insert(0, float(estimator.C))
        directions = _directions(prototypes, C_values, fit_rows) if k >= 2 else []
    return prototypes, directions, given
