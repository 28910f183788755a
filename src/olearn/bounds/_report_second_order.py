r"""The rows of :func:`olearn.bounds.bound_report` for the second-order learners, and their objectives.

The objectives of the full-covariance learners are
:func:`olearn.bounds.sop_mistake_bound`,
:func:`olearn.bounds.arow_mistake_bound` and
:func:`olearn.bounds.narow_mistake_bound`, rewritten as functions of
:math:`\|u\|^2` and the margins :math:`y_t\, u\cdot x_t` so that the report can
search the scale of each candidate u: with :math:`X_S = \sum_{t\in S} x_t x_t^\top`,
:math:`u^\top X_S u = \sum_{t \in S} (y_t\, u\cdot x_t)^2`, and the log-determinant
does not depend on u; NAROW's :math:`u^\top A_T u = \|u\|^2 + \sum_{t\in S} (y_t\, u\cdot x_t)^2/r_t`.
The log-determinant is computed through the smaller of the two Gram
matrices, :math:`\det(I_d + Z_S^\top Z_S/a) = \det(I_{|S|} + Z_S Z_S^\top/a)`.
"""

import math

import numpy as np

from ..second_order import AROW, NAROW, Fig1AROW, SecondOrderPerceptron
from ._report_competitors import _BINARY_MARGIN, _adders, _directions, _separator
from ._report_rows import MISTAKES, UPDATES, _report
from ._report_run import _unweighted_stream
from ._second_order import _replay, narow_replay

SOP = "Cesa-Bianchi, Conconi & Gentile 2005, Thm. 1 (Second-Order Perceptron)"
AROW_BOUND = "Crammer, Kulesza & Dredze 2009, Thm. 2, as proven by Orabona & Crammer 2010 (AROW, full)"
NAROW_BOUND = "NAROW bound in Orabona & Crammer 2010's framework (narow_mistake_bound, full)"
DIAGONAL_NAROW = "Orabona & Crammer 2010, Cor. 2 with a diagonal D_t (diagonal_narow_bound, NAROW, diag)"
FIG1_AROW_BOUND = "Orabona & Crammer 2010, Sec. 4.2 (Fig1AROW, full)"
FIG1_DIAGONAL_AROW_BOUND = "Orabona & Crammer 2010, Sec. 4.3 (Fig1AROW, diag)"


def _logdet_identity_plus(Z_S, scale):
    """ln det(I + X_S / scale) for the CSR rows Z_S of the rounds in S."""
    gram = Z_S @ Z_S.T if Z_S.shape[0] <= Z_S.shape[1] else Z_S.T @ Z_S
    gram = gram.toarray()
    return float(np.linalg.slogdet(np.eye(gram.shape[0]) + gram / scale)[1])


def sop_objective(Z, mistaken, a):
    """(u^2, margins) -> (bound, sum of l*_t over the mistakes) of Cesa-Bianchi et al. 2005, Thm. 1."""
    logdet = _logdet_identity_plus(Z[mistaken], a)

    def objective(u2, margins):
        on_mistakes = margins[mistaken]
        loss = float(np.maximum(0.0, 1.0 - on_mistakes).sum())
        return loss + math.sqrt((a * u2 + float(on_mistakes @ on_mistakes)) * logdet), loss

    return objective


def arow_objective(Z, updated, mistaken, r):
    """(u^2, margins) -> (bound, sum of l*_t over the update rounds) of the AROW bound."""
    logdet = _logdet_identity_plus(Z[updated], r)
    n_margin_errors = int(np.sum(updated & ~mistaken))

    def objective(u2, margins):
        on_updates = margins[updated]
        loss = float(np.maximum(0.0, 1.0 - on_updates).sum())
        quadratic = r * u2 + float(on_updates @ on_updates)
        return loss + math.sqrt(quadratic * (logdet + n_margin_errors)) - n_margin_errors, loss

    return objective


def narow_objective(Z, updated, mistaken, b):
    """(u^2, margins) -> (bound, sum of l*_t over the update rounds) of the NAROW bound (dense d x d replay)."""
    _, shrunk, inverse_r = narow_replay(Z[updated].toarray(), b)
    n_margin_errors = int(np.sum(updated & ~mistaken))

    def objective(u2, margins):
        on_updates = margins[updated]
        loss = float(np.maximum(0.0, 1.0 - on_updates).sum())
        quadratic = u2 + float(inverse_r @ on_updates**2)
        return loss + math.sqrt(quadratic * (shrunk + 2 * n_margin_errors)) - n_margin_errors, loss

    return objective


def diagonal_narow_objective(Z, y, updated, b):
    """(D_T, objective): ``objective(u'D_T u, margins)`` -> (bound on M + U, sum of l*_t over the update rounds).

    :func:`olearn.bounds.diagonal_narow_bound`: :math:`D_0 = I`,
    :math:`D_t = D_{t-1} + \\max(0, b - 1/\\chi_t)\\,x_t^2` on the update rounds,
    :math:`\\chi_t = x_t^\\top D_{t-1}^{-1} x_t`; the bound is
    :math:`L + \\sqrt{u^\\top D_T u}\\sqrt{\\theta^\\top D_T^{-1}\\theta}`.
    """
    rows = Z[updated].toarray()
    D = np.ones(Z.shape[1])
    for x in rows:
        chi = float(np.sum(x * x / D))
        D = D + (b - 1.0 / chi if b * chi > 1.0 else 0.0) * x * x
    theta = y[updated] @ rows
    spread = float(theta**2 @ (1.0 / D))

    def objective(u_d2, margins):
        loss = float(np.maximum(0.0, 1.0 - margins[updated]).sum())
        return loss + math.sqrt(u_d2 * spread), loss

    return D, objective


def fig1_arow_objective(Z, y, updated, r):
    """(u^2, margins) -> (bound on M + U, sum of l*_t over the update rounds) of Orabona & Crammer 2010, Sec. 4.2.

    :func:`olearn.bounds.orabona2010_arow_bound`, its u-free terms replayed once:
    :math:`L + \\sqrt{r\\|u\\|^2 + \\sum_S (u\\cdot x_t)^2}\\sqrt{\\log\\det A_T + \\sum_S m_t(2r - m_t)/(r(r + \\chi_t))}`.
    """
    chis, ms, A = _replay(Z.toarray(), y, updated, lambda chi: 1.0 / r)
    inside = float(np.linalg.slogdet(A)[1]) + float(np.sum(ms * (2 * r - ms) / (r * (r + chis))))

    def objective(u2, margins):
        on_updates = margins[updated]
        loss = float(np.maximum(0.0, 1.0 - on_updates).sum())
        return loss + math.sqrt(max(r * u2 + float(on_updates @ on_updates), 0.0) * max(inside, 0.0)), loss

    return objective


def fig1_diagonal_arow_objective(Z, y, updated, r):
    """(D_T, objective) of Orabona & Crammer 2010, Sec. 4.3: ``objective(u'D_T u, margins)`` -> (bound on M + U,
    sum of l*_t over the update rounds).

    :func:`olearn.bounds.orabona2010_diagonal_arow_bound` with
    :math:`D_T = \\mathrm{diag}(A_T) = 1 + \\sum_S x_{t,i}^2 / r`, so that its first factor
    :math:`\\|u\\|^2 + \\sum_i u_i^2\\sum_S x_{t,i}^2/r` is :math:`u^\\top D_T u`, and U the update rounds on which
    the text's margin :math:`y_t x_t^\\top D_t^{-1}\\theta_t` is positive (not mistakes).
    """
    rows, labels = Z[updated].toarray(), y[updated]
    D, theta, n_margin_errors = np.ones(Z.shape[1]), np.zeros(Z.shape[1]), 0
    for x, label in zip(rows, labels):
        D = D + x * x / r
        n_margin_errors += bool(label * float(x @ (theta / D)) > 0.0)
        theta = theta + label * x
    squares = np.sum(rows**2, axis=0)
    inside = r * float(np.sum(np.log(squares / r + 1.0))) + 2 * n_margin_errors

    def objective(u_d2, margins):
        loss = float(np.maximum(0.0, 1.0 - margins[updated]).sum())
        return loss + math.sqrt(u_d2 * inside), loss

    return D, objective


def second_order_report(estimator, X, y, result, u):
    """The row of a Second-Order Perceptron, AROW (full covariance), NAROW or Fig1AROW run."""
    if isinstance(estimator, AROW) and estimator.covariance != "full":
        raise ValueError(
            f"bound_report's AROW theorem is about the full covariance; {estimator!r} keeps a diagonal one. "
            "Orabona & Crammer 2010's diagonal bound (Sec. 4.3, orabona2010_diagonal_arow_bound) is about their "
            "Fig. 1 algorithm, not this learner's AROW mean step, and its runs can exceed it; Fig1AROW(covariance="
            "'diag') is their algorithm, and bound_report gives its Sec. 4.3 bound"
        )
    stream, given = _unweighted_stream(estimator, X, y, result, u)
    directions = None if given is not None else _directions(stream)
    rows, skipped = [], []
    mistaken = np.diff(result.cumulative_mistakes, prepend=0) > 0
    quantity, measured, norm_sq = MISTAKES, result.n_mistakes, None
    # Fig1AROW's update rounds: a positive hinge loss at the text's margin (the loss run records)
    fig1_updated = result.losses > 0
    diagonal_fig1 = isinstance(estimator, (NAROW, Fig1AROW)) and estimator.covariance != "full"
    if diagonal_fig1:
        # M + U against u's norm in D_T: the candidates are scaled to unit D_T-norm
        if isinstance(estimator, NAROW):
            theorem = DIAGONAL_NAROW
            D, objective = diagonal_narow_objective(stream.Z, stream.y, result.taus != 0, float(estimator.b))
        else:
            theorem = FIG1_DIAGONAL_AROW_BOUND
            D, objective = fig1_diagonal_arow_objective(stream.Z, stream.y, fig1_updated, float(estimator.r))

        def norm_sq_in_D(v):
            return float(v**2 @ D)

        norm_sq = norm_sq_in_D
        directions = None if directions is None else [v / math.sqrt(norm_sq(v)) for v in directions]
        quantity = UPDATES
        measured = int(np.sum(fig1_updated if isinstance(estimator, Fig1AROW) else result.taus != 0))
    elif isinstance(estimator, Fig1AROW):
        theorem, quantity, measured = FIG1_AROW_BOUND, UPDATES, int(np.sum(fig1_updated))
        objective = fig1_arow_objective(stream.Z, stream.y, fig1_updated, float(estimator.r))
    elif isinstance(estimator, SecondOrderPerceptron):
        theorem, objective = SOP, sop_objective(stream.Z, mistaken, float(estimator.a))
    elif isinstance(estimator, AROW):
        theorem, objective = AROW_BOUND, arow_objective(stream.Z, result.taus != 0, mistaken, float(estimator.r))
    else:
        theorem, objective = NAROW_BOUND, narow_objective(stream.Z, result.taus != 0, mistaken, float(estimator.b))
    add, add_separable = _adders(stream, directions, given, stream.Z.shape[1], rows, skipped, _BINARY_MARGIN,
                                 norm_sq=norm_sq)
    if given is not None:
        add(theorem, quantity, measured, objective)
    elif _separator(stream, directions) is None:
        # these bounds sum l*_t over the run's own mistake (update) rounds, so at u = 0 they are the
        # measured count itself and their minimum over u is never above it: the default u must be fixed apart
        skipped.append((theorem, "no candidate competitor separates the stream, and its minimum over u is the "
                                 "measured count (u = 0); pass u to evaluate it for a competitor"))
    else:
        add_separable(theorem, quantity, measured, lambda u2, m: objective(u2, m)[0], need_unit_margin=True)
    return _report(estimator, result, rows, skipped)
