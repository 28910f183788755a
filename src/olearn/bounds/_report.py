"""Every applicable theorem, evaluated on a finished run: measured vs bound."""

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ..evaluate import run
from ..linear import OGDClassifier, PAClassifier, Perceptron
from ..multiclass import PAMulticlass
from ..quasi_additive import PNorm
from ..sequence import PASequence
from ..second_order import AROW, NAROW, Fig1AROW, SecondOrderPerceptron
from ._report_multiclass import multiclass_setup
from ._report_second_order import (
    arow_objective,
    diagonal_narow_objective,
    fig1_arow_objective,
    fig1_diagonal_arow_objective,
    narow_objective,
    sop_objective,
)
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

MISTAKES = "mistakes"
HINGE_LOSS = "sum of hinge losses"
UPDATES = "updates"
SQUARED_LOSS = "sum of squared losses"

NOVIKOFF = "Novikoff 1962 (Perceptron, separable)"
SS_PERCEPTRON = "Shalev-Shwartz & Singer 2006, Thm. 2 (Perceptron)"
PA_THM2 = "Crammer et al. 2006, Thm. 2 (PA, separable)"
PA_THM3 = "Crammer et al. 2006, Thm. 3 (PA, ||x_t|| = 1)"
PA_THM4 = "Crammer et al. 2006, Thm. 4 (PA-I)"
PA_THM5 = "Crammer et al. 2006, Thm. 5 (PA-II)"
MC_PA = "Crammer et al. 2006, Cor. 8 (multiclass PA, separable)"
MC_PA1 = "Crammer et al. 2006, Sec. 7 with Thm. 4 (multiclass PA-I)"
MC_PA2 = "Crammer et al. 2006, Sec. 7 with Thm. 5 (multiclass PA-II)"
SOP = "Cesa-Bianchi, Conconi & Gentile 2005, Thm. 1 (Second-Order Perceptron)"
AROW_BOUND = "Crammer, Kulesza & Dredze 2009, Thm. 2, as proven by Orabona & Crammer 2010 (AROW, full)"
OGD_REGRET = "UCL COMP0078 slides, Regret Bound for OGD, Eq. (6) with any eta"
NAROW_BOUND = "NAROW bound in Orabona & Crammer 2010's framework (narow_mistake_bound, full)"
DIAGONAL_NAROW = "Orabona & Crammer 2010, Cor. 2 with a diagonal D_t (diagonal_narow_bound, NAROW, diag)"
FIG1_AROW_BOUND = "Orabona & Crammer 2010, Sec. 4.2 (Fig1AROW, full)"
FIG1_DIAGONAL_AROW_BOUND = "Orabona & Crammer 2010, Sec. 4.3 (Fig1AROW, diag)"
PNORM = "Shalev-Shwartz & Singer 2006, Example 3 (p-norm, best C)"
_BINARY_MARGIN = "y_t u.x_t"
_MULTICLASS_MARGIN = "u_(y_t).x_t - max_(r != y_t) u_r.x_t"

# LinearSVC's C values tried for the default competitor: from heavily
# regularised (short u, suits the loss-dominated bounds) to nearly hard margin.
_SVC_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)
# The directions are fitted on at most this many rows (liblinear slows down
# sharply on long inseparable streams with a large C); the bounds themselves
# are always evaluated on the whole stream.
_FIT_ROWS = 2000
_N_SCALES = 81


@dataclass(frozen=True)
class BoundRow:
    """One theorem evaluated on one run.

    Attributes
    ----------
    theorem : str
        Paper and theorem, e.g. ``"Crammer et al. 2006, Thm. 4 (PA-I)"``.
    quantity : str
        ``"mistakes"``, ``"updates"`` (mistakes plus margin errors), ``"sum
        of squared losses"`` or ``"sum of hinge losses"`` (of the learner's
        hinge loss before each update).
    measured : float
        That quantity in the run.
    bound : float
        The theorem's bound for the competitor ``u``.
    u_norm : float
        :math:`\\|u\\|`.
    competitor_loss : float
        The loss of u that enters the bound: the sum of :math:`\\ell^*_t` (PA-I;
        over the mistakes for the Second-Order Perceptron, over the update
        rounds for AROW),
        of :math:`(\\ell^*_t)^2` (PA Thm. 3, PA-II, Shalev-Shwartz & Singer's
        Thm. 2 with :math:`\\ell^*_t`); 0 for the separable theorems, which
        require it.
    holds : bool
        ``measured <= bound * (1 + 1e-9)``.
    u : ndarray
        The competitor (one entry per feature, plus the bias with an intercept;
        for PAMulticlass one such row per class, u_norm then being ||U||_F;
        for PAUniclass the competitor's center).
    radius : float or None
        The competitor's radius epsilon for PAUniclass (the learner's own with
        a fixed radius, the searched one with ``learn_radius=True``); None
        for the other learners.
    gamma : float or None
        The margin :math:`\\gamma` at which the bound is evaluated, for the
        rows of Winnow and the conservative entropic DualAscent (searched:
        those learners do not depend on it); None for the other rows.
    """

    theorem: str
    quantity: str
    measured: float
    bound: float
    u_norm: float
    competitor_loss: float
    holds: bool
    u: np.ndarray = field(repr=False, compare=False)
    radius: float = None
    gamma: float = None


@dataclass(frozen=True)
class BoundReport:
    """The bounds that apply to one run, and the theorems that do not.

    ``str(report)`` is a table: theorem | quantity | measured | bound | ||u|| |
    loss of u | holds, followed by the theorems left out and why.

    Attributes
    ----------
    learner : str
        The estimator, as ``repr`` shows it.
    n_rounds : int
    rows : tuple of BoundRow
    skipped : tuple of (str, str)
        (theorem, reason) for each theorem of the learner that does not apply.
    """

    learner: str
    n_rounds: int
    rows: tuple
    skipped: tuple = ()

    @property
    def all_hold(self):
        """True when every bound holds."""
        return all(row.holds for row in self.rows)

    def __str__(self):
        header = ("theorem", "quantity", "measured", "bound", "||u||", "loss of u", "holds")
        lines = [
            (row.theorem, row.quantity, _number(row.measured), _number(row.bound), _number(row.u_norm),
             _number(row.competitor_loss), "yes" if row.holds else "NO")
            for row in self.rows
        ]
        widths = [max(len(text[k]) for text in [header, *lines]) for k in range(len(header))]
        numeric = (False, False, True, True, True, True, False)

        def fmt(cells):
            parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)]
            return " | ".join(parts).rstrip()

        out = [f"{self.learner} on {self.n_rounds} rounds: measured vs bound", fmt(header)]
        out.append("-+-".join("-" * w for w in widths))
        out.extend(fmt(cells) for cells in lines)
        if not self.rows:
            out.append("(no theorem applies)")
        for theorem, reason in self.skipped:
            out.append(f"not applicable: {theorem}: {reason}")
        return "\n".join(out)


def _number(value):
    if math.isinf(value):
        return "inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def _row(theorem, quantity, measured, bound, u, loss):
    measured = float(measured)
    return BoundRow(
        theorem=theorem,
        quantity=quantity,
        measured=measured,
        bound=float(bound),
        u_norm=float(np.linalg.norm(u)),
        competitor_loss=float(loss),
        holds=bool(measured <= bound * (1.0 + 1e-9)),
        u=u,
    )


# -- the default competitor ----------------------------------------------------


def _directions(stream, own_fit=None):
    """Unit candidate directions for u: LinearSVC solutions and the mean of y_t x_t.

    ``own_fit`` is an extra (loss, C) to fit, for the learner's own C: for
    PA-I the u-dependent factor of Thm. 4, ||u||^2 + 2C sum_t l*_t, is twice
    LinearSVC's hinge objective with the same C, and for PA-II that of Thm. 5
    is twice its squared-hinge objective, so that fit is the best direction.
    """
    directions = []
    mean = np.asarray(stream.Z.T @ stream.y).ravel() / stream.y.size
    if np.linalg.norm(mean) > 0:
        directions.append(mean / np.linalg.norm(mean))
    if np.unique(stream.y).size < 2:
        return directions
    Z, y = stream.Z, stream.y
    if y.size > _FIT_ROWS:
        rows = np.sort(np.random.default_rng(0).choice(y.size, size=_FIT_ROWS, replace=False))
        Z, y = Z[rows], y[rows]
    # C weighs a sum over the rows: scale it so that the subset keeps the balance of the whole stream
    weight = stream.y.size / y.size
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


def _best_scale(objective, margins):
    """min over s >= 0 of objective(s^2, s * margins), for u = s v with ||v|| = 1: a log grid, then Brent on log s."""
    best_value, best_s = objective(0.0, 0.0 * margins), 0.0
    size = np.abs(margins)
    if not (size > 0).any():
        return best_value, best_s
    lo, hi = 1e-3 / size.max(), 1e3 / size[size > 0].min()
    scales = np.geomspace(lo, hi, _N_SCALES)
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


# -- the report ----------------------------------------------------------------


def _check_result(estimator, X, y, result, n_rows, classes=None):
    if not all(hasattr(result, name) for name in ("n_rounds", "losses", "scores", "n_mistakes")):
        raise TypeError(f"result must be the RunResult of olearn.run(estimator, X, y); got {type(result).__name__}")
    if result.n_rounds != n_rows:
        raise ValueError(f"result covers {result.n_rounds} rounds but X has {n_rows} rows")
    if result.losses.size != n_rows:
        raise ValueError("result has no per-round arrays; run olearn.run(estimator, X, y) with record=True")
    fresh = clone(estimator)
    if classes is not None:
        # declared before the first round, as the run under test did
        fresh.partial_fit(np.empty((0, 0)), [], classes=classes)
    replay = run(fresh, X, y)
    if not (np.array_equal(replay.losses, result.losses) and np.array_equal(replay.scores, result.scores)):
        raise ValueError(
            "result is not what a fresh copy of this estimator does on (X, y); the theorems are about a run "
            "that starts from w = 0, so pass the result of olearn.run(fresh_estimator, X, y) with the same "
            "hyperparameters and rows in the same order"
        )


def has_theorems(estimator):
    """Whether :func:`bound_report` knows theorems of ``estimator``'s class (its hyperparameters may still rule
    them out: a kernel, a budget, class weights)."""
    from ._report_dual import DUAL_REPORTS
    from ._report_tasks import TASK_REPORTS

    return (isinstance(estimator, (Perceptron, PAClassifier, PAMulticlass, SecondOrderPerceptron, AROW, NAROW,
                                   Fig1AROW, OGDClassifier, PNorm, PASequence))
            or type(estimator) in TASK_REPORTS or type(estimator) in DUAL_REPORTS)


def bound_report(estimator, X, y, result, u=None):
    r"""Evaluate every theorem that applies to a finished run of a learner.

    Parameters
    ----------
    estimator : olearn learner
        Perceptron, PAClassifier, PAMulticlass, SecondOrderPerceptron, AROW,
        NAROW, Fig1AROW, OGDClassifier, PNorm, PARegressor, PAUniclass, PAMultilabel,
        PACostSensitive, PASequence, Winnow or DualAscent.
        The learner (its hyperparameters say which theorems apply), linear:
        ``kernel`` None or ``"linear"`` and no ``budget``; a PAMulticlass
        also multi-prototype (no ``feature_map``) and without
        ``class_weight``; an AROW with ``covariance="full"``; the
        second-order learners, OGD and PNorm without ``class_weight`` (ValueError
        otherwise). Other learners: TypeError.
        The run must have started from a fresh estimator; its state now is
        not used.
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : array-like, shape (n_samples,)
    result : RunResult
        ``olearn.run(estimator, X, y)`` on the fresh estimator, with the
        per-round arrays (``record=True``). It is checked against a replay on
        a clone, so a result from another learner or another order of the
        rows is refused.
    u : array-like, optional
        The competitor, one entry per feature (plus the bias, last, when
        ``fit_intercept=True``); for PAMulticlass a matrix U with one such
        row per class of y, in sorted order (also for PACostSensitive; for
        PAMultilabel one row per label of y, sorted); for
        PAUniclass the center; for PASequence a pair (emission, transition)
        in the layout of its ``coef_`` (plus the intercept column) and
        ``transition_``, or with its end transition a triple (emission,
        transition, end_transition). Default: chosen per theorem, see Notes (for
        PASequence the weights the replay ends with, times the factor
        that gives the smallest bound).

    Returns
    -------
    BoundReport

    Notes
    -----
    Theorems applied (see the functions of :mod:`olearn.bounds` for the exact
    statements):

    * Perceptron: Novikoff's :math:`(R/\gamma)^2` (if u separates the stream)
      and Shalev-Shwartz & Singer's Thm. 2, with L summed over every round.
    * PA (``variant="pa"``, or any variant with ``C = inf``): Crammer et al.
      Thm. 2 (if u has zero hinge loss on every round) and Thm. 3 (if every
      :math:`\|x_t\| = 1`).
    * PA-I: Thm. 4 (mistakes). PA-II: Thm. 5 (sum of squared losses).
    * PAMulticlass (Crammer et al. 2006, Sec. 7, multi-prototype): the same
      three theorems for the multiclass hinge loss
      :math:`\ell^*_t = \max(0, 1 - (u_{y_t} \cdot x_t - \max_{r \ne y_t} u_r \cdot x_t))`
      of U, with :math:`R^2 = 2\max_t \|x_t\|^2` (the bound on
      :math:`\|\Phi(x_t, y_t) - \Phi(x_t, r_t)\|^2`) and :math:`\|U\|^2`
      summed over the classes: PA (or C = inf) Cor. 8
      (:math:`\sum_t \ell_t^2 \le R^2\|U\|^2` if U has margin >= 1 on every
      round), PA-I Thm. 4 (mistakes) plus one mistake per class, since the
      learner meets a class on the round it first appears and cannot name it
      then (:func:`olearn.bounds.multiclass_pa1_mistake_bound` with
      ``classes_known=False``), PA-II Thm. 5 (sum of squared losses). Thm. 3
      (:math:`\|x_t\| = 1`) is not carried over.
    * PARegressor (Sec. 5, linear): the regression versions of Thms. 2-5
      with the epsilon-insensitive losses of u at the learner's epsilon: PA
      Thm. 2 (if every :math:`|u \cdot x_t - y_t| \le \epsilon`) and Thm. 3 (if
      every :math:`\|x_t\| = 1`), PA-I Thm. 4, which bounds the rounds with
      :math:`\ell_t \ge 1` (its proof's use of a mistake), PA-II Thm. 5.
      Candidate directions: scikit-learn's ``Ridge`` (no intercept, on the
      augmented stream) for alpha in {1e-6, 1e-3, 0.1, 1, 10, 100, 1000},
      and for PA-I (PA-II) ``LinearSVR`` with the learner's C and epsilon and
      the (squared) epsilon-insensitive loss, whose objective is half the
      u-dependent factor of the bound; Thm. 2 takes the shortest unscaled
      fit that predicts every target within epsilon.
    * PAUniclass (Sec. 6): Lemma 1 with the unit :math:`z_t`, for a center u
      and radius :math:`\epsilon` (the learner's own; with
      ``learn_radius=True`` searched in [0, B], the bound then being the
      lifted one of :func:`olearn.bounds.uniclass_pa_bound`): PA (or C = inf)
      Thm. 3 on the sum of squared losses, PA-I
      :math:`\sum_t \tau_t\ell_t \le \|u\|^2 + 2C\sum_t \ell^*_t`, PA-II
      Thm. 5. The rows of X are the vectors (y is not used). Candidate
      centers: the coordinate-wise mean and median of the vectors, each
      scaled to its best bound (u = 0 included); with a learned radius, the
      radii tried are quantiles (0, 25, 50, 75, 90, 95, 100 %) of each
      candidate's distances to the vectors, capped at B. The row's
      ``radius`` is the competitor's.
    * PAMultilabel (Sec. 7, multi-prototype: no ``feature_map``): Thm. 2
      (PA or C = inf: sum of squared losses, if U's margin
      :math:`\gamma_t(U) = \min_{r \in Y_t} u_r \cdot x_t - \max_{s \notin Y_t} u_s \cdot x_t`
      is >= 1 on every round), Thm. 4 (PA-I: mistakes, the rounds with
      :math:`\gamma_t \le 0`) and Thm. 5 (PA-II), with
      :math:`R^2 = 2\max_t\|x_t\|^2`, as
      :func:`olearn.bounds.multilabel_pa1_mistake_bound` states them; U has
      one row per sorted label of y. Candidates: the centred label means of
      x and one-vs-rest ``LinearSVC`` solutions (one per label, relevant or
      not) for the C values below.
    * PACostSensitive (Sec. 8, multi-prototype, linear, no ``class_weight``;
      either update): the bound of :func:`olearn.bounds.cost_sensitive_bound`
      on the cumulative cost :math:`\sum_t \rho(y_t, \hat y_t)` of the
      run's predictions, with U's max-loss losses
      :math:`\max_r (u_r \cdot x_t - u_{y_t} \cdot x_t + \sqrt{\rho(y_t, r)})`,
      :math:`R^2 = 2\max_t\|x_t\|^2` and :math:`k\rho_{max}` added for the
      rounds on which a class first appears (``classes_known=False``; the
      bound stays valid when the classes were declared). The cost is the
      learner's (the 0/1 cost for ``cost=None``) over the sorted classes of
      y, or over its ``classes_`` when it has them (a learner told of its
      classes before learning, as ``olearn run --costs`` does; the replay
      declares them too). Candidates as for PAMulticlass; PA's row (every loss of U at 0)
      takes the shortest scaling of a candidate that has no loss, and is
      left out when none has.
    * SecondOrderPerceptron: Cesa-Bianchi, Conconi & Gentile 2005, Thm. 1
      (:func:`olearn.bounds.sop_mistake_bound`). AROW with a full
      covariance: the bound of :func:`olearn.bounds.arow_mistake_bound`
      (Crammer, Kulesza & Dredze 2009, Thm. 2, with the final :math:`-U` of
      Orabona & Crammer 2010). NAROW with a full covariance: the bound of
      :func:`olearn.bounds.narow_mistake_bound` (its precision matrices
      replayed from the run); with the diagonal one, the bound of
      :func:`olearn.bounds.diagonal_narow_bound` on the update rounds
      (quantity ``"updates"``, mistakes plus margin errors, ``result.taus != 0``),
      whose :math:`u^\top D_T u` takes the place of :math:`\|u\|^2` in the
      search (the candidates are scaled to unit :math:`D_T`-norm).
      Fig1AROW (Orabona & Crammer's own AROW): with a full covariance, Sec. 4.2's bound
      (:func:`olearn.bounds.orabona2010_arow_bound`), with the diagonal one
      Sec. 4.3's (:func:`olearn.bounds.orabona2010_diagonal_arow_bound`, its
      :math:`\|u\|^2 + \sum_i u_i^2\sum_S x_{t,i}^2/r = u^\top D_T u` searched
      as NAROW's); both on the update rounds (``"updates"``, the rounds with
      ``result.losses > 0``, the text's M + U). All of them
      sum :math:`\ell^*_t` over the run's own
      mistake (update) rounds, taken from ``result.cumulative_mistakes`` and
      ``result.taus != 0``.
    * OGDClassifier with ``loss="hinge"``, ``schedule="constant"``, no
      ``radius`` and ``conservative=False`` (otherwise listed as not
      applicable): the UCL COMP0078 slides' "Regret Bound for OGD" (after
      Zinkevich 2003), as its proof's last line but one states it for any
      step :math:`\eta`, so that it needs no :math:`\|u\| \le U` chosen in
      advance (:func:`olearn.bounds.ogd_hinge_regret_bound` with
      :math:`U = \|u\|`): :math:`\sum_t L_{hi}(y_t, w_t \cdot x_t) \le
      \sum_t L_{hi}(y_t, u \cdot x_t) + \|u\|^2/(2\eta) + \eta m R^2/2`; the
      measured value is ``sum(result.losses)``, the learner's hinge losses.
    * PNorm with ``aggressive=False`` (otherwise listed as not applicable):
      Shalev-Shwartz & Singer 2006, Example 3 minimised over the step C, on
      which the conservative learner's predictions do not depend
      (:func:`olearn.bounds.pnorm_mistake_bound`, L over every round as the
      text states it); :math:`\|u\|_q^2`, :math:`q = p/(p-1)`, takes the
      place of :math:`\|u\|^2` in the search below (the candidates are
      scaled to unit q-norm), while the row's ``u_norm`` stays Euclidean.

    * Winnow and DualAscent (no ``class_weight``), Shalev-Shwartz & Singer
      2006, L over every round: Winnow, Example 2
      (:func:`olearn.bounds.winnow_mistake_bound` at the best margin
      :math:`\gamma`, reported as the row's ``gamma``, and
      :func:`olearn.bounds.winnow_gamma_bound` when every
      :math:`\|x_t\|_\infty \le 1`); DualAscent with ``update`` "aggressive",
      "last-k" or "all", Thm. 3 (quantity ``"sum of mu(hinge losses)"``) and
      Eq. (30) with its C, gamma and regularizer, when every instance meets
      Thm. 3's assumption; the conservative DualAscent, Winnow's row (entropy)
      or :func:`olearn.bounds.pnorm_mistake_bound` (``"l2"``: p = 2). The
      candidates below are scaled inside :math:`\|u\|_1 \le 1` for the
      entropy (for the plain Winnow, their positive parts normalised and
      mixed with the uniform point of the n-simplex).

    The measured mistakes are ``result.n_mistakes``. The proofs bound the
    rounds with :math:`y_t\, w_t \cdot x_t \le 0`, a superset (olearn predicts
    the first class on a zero score, which the papers' analyses count as a
    mistake), so each bound also covers that larger count. The squared losses
    are ``sum(result.losses ** 2)``, the hinge losses before each update.

    With ``fit_intercept=True`` every theorem is applied to x augmented with
    a constant 1, which counts in R, as the learner's update does.

    Default competitor (``u=None``): each bound holds for every u, so each
    row uses its own u, the best found by a small search. Candidate
    directions are the solutions of scikit-learn's ``LinearSVC(loss="hinge")``
    and ``LinearSVC(loss="squared_hinge")`` (``fit_intercept=False``, on the
    augmented stream when the learner fits an intercept) for C in
    {0.01, 0.1, 1, 10, 100, 1000}, plus the mean of :math:`y_t x_t`. For PA-I
    and PA-II the fit with the learner's own C is added: the u-dependent
    factor of Thm. 4, :math:`\|u\|^2 + 2C\sum_t \ell^*_t`, is twice the
    hinge SVM's objective with that C, and Thm. 5's is twice the squared-hinge
    SVM's, so on streams of at most 2000 rows that fit is the best u up to
    the solver's tolerance. Longer streams are fitted on a fixed random
    subset of 2000 rows, with C scaled by n / 2000, since liblinear slows
    down sharply on long inseparable streams (the bounds are still evaluated
    on every row). For the Second-Order Perceptron, AROW, NAROW and Fig1AROW
    the minimum over u is never above the measured count (at u = 0 the bound
    is that count), so their default u is not searched: it is the separator
    below (for the diagonal learners, the candidate of largest margin in the
    :math:`D_T`-norm), and without one the theorem is listed as not
    applicable (pass ``u``). That u pays no loss, but its norm is one over
    the stream's margin, so on a stream separable only by a small margin the
    value is loose: Fig1AROW's Sec. 4.3 row on a 300-row stream of margin
    0.003 reads about 7,640 for 63 updates, 75.3 for a u near the separating
    direction that pays the hinge loss of a few rounds.
    For PAMulticlass the candidates are instead the class
    means of x (centred), and ``LinearSVC(multi_class="crammer_singer")``
    for the same C values (for PA-I, the learner's own C first: the
    Crammer-Singer objective is half the U-dependent factor of Thm. 4), with
    U's multiclass margin in place of :math:`y_t\, u \cdot x_t` below. For the
    separable theorems the direction with the largest margin is scaled to
    :math:`\min_t y_t\, u \cdot x_t = 1`; for the others the bound is
    minimised over the scale of each direction (a log grid, refined by
    Brent's method; u = 0 is a candidate too). Shalev-Shwartz & Singer's
    Thm. 2 is reported as the text states it, with L over every round
    (:func:`olearn.bounds.perceptron_bound`). A theorem whose
    bound is infinite for every candidate is listed as not applicable. A
    better u may exist; any u gives a valid bound.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import PAClassifier, run
    >>> from olearn.bounds import bound_report
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.where(X[:, 0] + 0.5 * rng.normal(size=200) > 0, "spam", "ham")
    >>> pa1 = PAClassifier(variant="pa1", C=0.1)
    >>> report = bound_report(pa1, X, y, run(pa1, X, y))
    >>> [(row.theorem, row.quantity, row.holds) for row in report.rows]
    [('Crammer et al. 2006, Thm. 4 (PA-I)', 'mistakes', True)]
    >>> print(report)                                    # doctest: +ELLIPSIS
    PAClassifier(C=0.1) on 200 rounds: measured vs bound
    theorem                            | quantity | measured | bound | ||u|| | loss of u | holds
    ...
    Crammer et al. 2006, Thm. 4 (PA-I) | mistakes |       ...
    """
    # the other tasks' reports build on this module's helpers: imported here, not at the top
    from ._report_dual import DUAL_REPORTS
    from ._report_sequence import replayed_sequence_report
    from ._report_tasks import TASK_REPORTS

    if isinstance(estimator, PASequence):
        return replayed_sequence_report(estimator, X, y, result, u)

    task_report = TASK_REPORTS.get(type(estimator)) or DUAL_REPORTS.get(type(estimator))
    if not has_theorems(estimator):
        names = ["Perceptron", "PAClassifier", "PAMulticlass", "SecondOrderPerceptron", "AROW", "NAROW", "Fig1AROW",
                 "OGDClassifier", "PNorm", *(learner.__name__ for learner in (*TASK_REPORTS, *DUAL_REPORTS)),
                 "PASequence"]
        raise TypeError(f"bound_report knows the theorems of {', '.join(names[:-1])} and {names[-1]}; "
                        f"got {type(estimator).__name__}")
    if task_report is not None:
        return task_report(estimator, X, y, result, u)
    if isinstance(estimator, PNorm):
        return _pnorm_report(estimator, X, y, result, u)
    if isinstance(estimator, OGDClassifier):
        return _ogd_report(estimator, X, y, result, u)
    if isinstance(estimator, (SecondOrderPerceptron, AROW, NAROW, Fig1AROW)):
        return _second_order_report(estimator, X, y, result, u)
    check_linear(estimator)
    if isinstance(estimator, PAMulticlass):
        return _multiclass_report(estimator, X, y, result, u)
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


def check_linear(estimator):
    """Refuse a kernel learner (it competes in its feature space) or a budget (it forgets support vectors)."""
    if estimator.kernel not in (None, "linear") or estimator.budget is not None:
        raise ValueError(
            f"bound_report's theorems are about the linear learner (against a linear u in input space); "
            f"{estimator!r} is not one: its kernel or budget is outside every theorem it knows"
        )


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


def _multiclass_report(estimator, X, y, result, U):
    """The rows of a multi-prototype PAMulticlass run (Crammer et al. 2006, Sec. 7)."""
    if estimator.feature_map is not None:
        raise ValueError(
            f"bound_report's multiclass theorems are stated here for the multi-prototype learner "
            f"(R^2 = 2 max ||x_t||^2); {estimator!r} has a feature_map, whose R it cannot know"
        )
    if estimator.class_weight is not None:
        raise ValueError(f"bound_report's theorems are about unweighted rounds; {estimator!r} has a class_weight")
    prototypes, directions, given = multiclass_setup(estimator, X, y, U, _SVC_GRID, _FIT_ROWS)
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


def _unweighted_stream(estimator, X, y, result, u):
    """The stream of a binary learner's unweighted run, checked against ``result``, and the competitor u
    given (checked) or None."""
    if estimator.class_weight is not None:
        raise ValueError(f"bound_report's theorems are about unweighted rounds; {estimator!r} has a class_weight")
    fit_intercept = bool(estimator.fit_intercept)
    stream = _Stream(X, y, fit_intercept)
    _check_result(estimator, X, y, result, stream.y.size)
    return stream, None if u is None else check_u(u, stream, fit_intercept)


def _second_order_report(estimator, X, y, result, u):
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


def _ogd_report(estimator, X, y, result, u):
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


def _pnorm_report(estimator, X, y, result, u):
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


def _plus(bound_and_loss, extra):
    bound, loss = bound_and_loss
    return bound + extra, loss


def _report(estimator, result, rows, skipped):
    return BoundReport(learner=repr(estimator), n_rounds=int(result.n_rounds), rows=tuple(rows), skipped=tuple(skipped))
