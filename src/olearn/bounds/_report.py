"""Every applicable theorem, evaluated on a finished run: measured vs bound.

:func:`bound_report` hands a run to the report of its learner's family
(binary linear, multi-prototype, second order, the other tasks, the dual
framework, sequences); those build on the report's rows
(:mod:`._report_rows`), its competitors (:mod:`._report_competitors`) and
its checks of the run (:mod:`._report_run`).

scikit-learn, :mod:`scipy.optimize` and :mod:`scipy.special` are imported by the functions that use them
(the competitors' fits, the searches of their scales, the entropy's conjugate), not by the modules. Which
learners have theorems is told by :mod:`._learners`, which ``olearn serve`` asks at its start without loading
this module.
"""

from ..linear import OGDClassifier
from ..multiclass import PAMulticlass
from ..quasi_additive import PNorm
from ..second_order import AROW, NAROW, Fig1AROW, SecondOrderPerceptron
from ..sequence import PASequence
from ._report_binary import linear_report, ogd_report, pnorm_report
from ._learners import has_theorems, learner_names
from ._report_dual import DUAL_REPORTS
from ._report_multiclass import multiclass_report
from ._report_run import check_linear
from ._report_second_order import second_order_report
from ._report_sequence import replayed_sequence_report
from ._report_tasks import TASK_REPORTS


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
    if isinstance(estimator, PASequence):
        return replayed_sequence_report(estimator, X, y, result, u)

    task_report = TASK_REPORTS.get(type(estimator)) or DUAL_REPORTS.get(type(estimator))
    if not has_theorems(estimator):
        names = learner_names()
        raise TypeError(f"bound_report knows the theorems of {', '.join(names[:-1])} and {names[-1]}; "
                        f"got {type(estimator).__name__}")
    if task_report is not None:
        return task_report(estimator, X, y, result, u)
    if isinstance(estimator, PNorm):
        return pnorm_report(estimator, X, y, result, u)
    if isinstance(estimator, OGDClassifier):
        return ogd_report(estimator, X, y, result, u)
    if isinstance(estimator, (SecondOrderPerceptron, AROW, NAROW, Fig1AROW)):
        return second_order_report(estimator, X, y, result, u)
    check_linear(estimator)
    if isinstance(estimator, PAMulticlass):
        return multiclass_report(estimator, X, y, result, u)
    return linear_report(estimator, X, y, result, u)
