"""The rows of :func:`olearn.bounds.bound_report` for the binary linear learners of the first-order papers: the
Perceptron (Novikoff 1962; Shalev-Shwartz & Singer 2006, Thm. 2), PA, PA-I, PA-II (Crammer et al. 2006,
Thms. 2-5), OGD (its regret bound) and the p-norm algorithm (Shalev-Shwartz & Singer 2006, Example 3)."""

import math

import numpy as np

from ..linear import PAClassifier, Perceptron
from ._report_competitors import _BINARY_MARGIN, _adders, _directions
from ._report_rows import HINGE_LOSS, MISTAKES, SQUARED_LOSS, _report
from ._report_run import _check_result, _unweighted_stream
from ._theorems import (
    _check_unit_norm,
    _novikoff,
    _pa1,
    _pa2,
    _pa_separable,
    _pa_unit_norm,
    _ss_perceptron,
    _Stream,
    check_u,
    thm2_minimum,
)

NOVIKOFF = "Novikoff 1962 (Perceptron, separable)"
SS_PERCEPTRON = "Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)"
PA_THM2 = "Crammer et al. 2006, Thm. 2 (PA, separable)"
PA_THM3 = "Crammer et al. 2006, Thm. 3 (PA, ||x_t|| = 1)"
PA_THM4 = "Crammer et al. 2006, Thm. 4 (PA-I)"
PA_THM5 = "Crammer et al. 2006, Thm. 5 (PA-II)"
OGD_REGRET = "UCL COMP0078 slides, Regret Bound for OGD, Eq. (6) with any eta"
PNORM = "Shalev-Shwartz & Singer 2006, Example 3 (p-norm, best C)"


def linear_report(estimator, X, y, result, u):
    """The rows of a linear Perceptron or PAClassifier run."""
    fit_intercept = bool(estimator.fit_intercept)
    stream = _Stream(X, y, fit_intercept)
    _check_result(estimator, X, y, result, stream.y.size)
    given = None if u is None else check_u(u, stream, fit_intercept)
    own_fit = None
    if isinstance(estimator, PAClassifier) and estimator.variant != "pa" and math.isfinite(estimator.C):
        own_fit = ("hinge" if estimator.variant == "pa1" else "squared_hinge", float(estimator.C))
    directions = None if given is not None else _directions(stream, own_fit)
    r2 = stream.radius_sq
    rows, skipped = [], []
    add, add_separable = _adders(stream, directions, given, stream.Z.shape[1], rows, skipped, _BINARY_MARGIN)

    squared = float(np.sum(result.losses**2))
    if isinstance(estimator, Perceptron):
        add_separable(NOVIKOFF, MISTAKES, result.n_mistakes, lambda u2, m: _novikoff(r2, u2, m),
                      need_unit_margin=False)
        every = np.ones(result.taus.size, dtype=bool)
        add(SS_PERCEPTRON, MISTAKES, result.n_mistakes, lambda u2, m: _ss_perceptron(r2, u2, m, every))
        return _report(estimator, result, rows, skipped)
    C = math.inf if estimator.variant == "pa" else float(estimator.C)
    if math.isinf(C):
        # PA proper, or PA-I / PA-II with C = inf, which are PA
        add_separable(PA_THM2, SQUARED_LOSS, squared, lambda u2, m: _pa_separable(r2, u2, m), need_unit_margin=True)
        problem = _check_unit_norm(stream, 1e-9)
        if problem:
            skipped.append((PA_THM3, problem.removeprefix("Thm. 3 ")))
        else:
            add(PA_THM3, SQUARED_LOSS, squared, _pa_unit_norm)
    if estimator.variant == "pa1":
        add(PA_THM4, MISTAKES, result.n_mistakes, lambda u2, m: _pa1(r2, u2, m, C))
    elif estimator.variant == "pa2":
        add(PA_THM5, SQUARED_LOSS, squared, lambda u2, m: _pa2(r2, u2, m, C))
    return _report(estimator, result, rows, skipped)


def ogd_report(estimator, X, y, result, u):
    """The row of an OGDClassifier run: the regret bound of its hinge-loss, constant-step form."""
    stream, given = _unweighted_stream(estimator, X, y, result, u)
    rows, skipped = [], []
    outside = [f"{name}={value!r}" for name, value, needed in (
        ("loss", estimator.loss, "hinge"), ("schedule", estimator.schedule, "constant"),
        ("radius", estimator.radius, None), ("conservative", estimator.conservative, False)) if value != needed]
    if outside:
        skipped.append((OGD_REGRET, "it is about loss='hinge', schedule='constant', no radius, conservative=False; "
                                    f"this learner has {', '.join(outside)}"))
        return _report(estimator, result, rows, skipped)
    add, _ = _adders(stream, None if given is not None else _directions(stream), given, stream.Z.shape[1], rows,
                     skipped, _BINARY_MARGIN)
    eta, m, r2 = float(estimator.eta), stream.y.size, stream.radius_sq

    def objective(u2, margins):
        # sum_t L_hi(y_t, w_t.x_t) <= sum_t L_hi(y_t, u.x_t) + ||u||^2/(2 eta) + eta m R^2 / 2
        loss = float(np.maximum(0.0, 1.0 - margins).sum())
        return loss + u2 / (2.0 * eta) + 0.5 * eta * m * r2, loss

    add(OGD_REGRET, HINGE_LOSS, float(np.sum(result.losses)), objective)
    return _report(estimator, result, rows, skipped)


def pnorm_report(estimator, X, y, result, u):
    """The row of a conservative PNorm run: Shalev-Shwartz & Singer's Example 3, minimised over the step."""
    stream, given = _unweighted_stream(estimator, X, y, result, u)
    rows, skipped = [], []
    if estimator.aggressive:
        skipped.append((PNORM, "it is about the conservative algorithm (aggressive=False)"))
        return _report(estimator, result, rows, skipped)
    p = float(estimator.p)
    q = p / (p - 1.0)

    def norm_sq(v):
        return float(np.linalg.norm(v, q)) ** 2

    directions = None if given is not None else [v / np.linalg.norm(v, q) for v in _directions(stream)]
    add, _ = _adders(stream, directions, given, stream.Z.shape[1], rows, skipped, _BINARY_MARGIN, norm_sq=norm_sq)
    r_p2 = float(np.asarray(abs(stream.Z).power(p).sum(axis=1)).max()) ** (2.0 / p)

    def objective(uq2, margins):
        # M <= L + b^2/2 (1 + sqrt(1 + 4L/b^2)), b^2 = (p - 1) R_p^2 ||u||_q^2, L over every round
        loss = float(np.maximum(0.0, 1.0 - margins).sum())
        return thm2_minimum(loss, (p - 1.0) * r_p2 * uq2), loss

    add(PNORM, MISTAKES, result.n_mistakes, objective)
    return _report(estimator, result, rows, skipped)
