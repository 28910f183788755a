r"""Loss and mistake bounds of PA uniclass prediction and PA multilabel ranking.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Sec. 6 and 7. Both tasks are the move
:math:`w \leftarrow w + \tau z`, and the paper's Lemma 1 (for uniclass the
text states it as Lemma 7, with :math:`\|z_t\| = 1` and :math:`w_1 = 0`),

.. math:: \sum_t \tau_t\big(2\ell_t - \tau_t\|z_t\|^2 - 2\ell^*_t\big) \le \|u - w_1\|^2,

holds for them with the competitor's loss :math:`\ell^*_t`, so Thms. 2-5
carry over with :math:`\|z_t\|^2` in place of :math:`\|x_t\|^2`:

* **uniclass**: :math:`z_t = (y_t - w_t)/\|y_t - w_t\|` has norm 1, and for a
  competitor center u with radius :math:`\epsilon`,
  :math:`\ell^*_t = \max(0, \|u - y_t\| - \epsilon)`. Since
  :math:`\|z_t\| = 1` on every round, the unit-norm Thm. 3 applies to PA
  without any assumption. With the radius learned (``B`` given) the bounds are
  those of the lifted problem: :math:`\bar y_t = (y_t, 0)`, learner start
  :math:`\bar w_1 = (0, B)`, competitor :math:`\bar u = (u, \sqrt{B^2 -
  \epsilon^2})`, radius B, so :math:`\|\bar u - \bar w_1\|^2 = \|u\|^2 +
  (B - \sqrt{B^2 - \epsilon^2})^2` and :math:`\ell^*_t =
  \max(0, \sqrt{\|u - y_t\|^2 + B^2 - \epsilon^2} - B)`; the learner's losses
  are then its lifted losses, the ones :class:`olearn.uniclass.PAUniclass`
  records (see its docstring for the lift).
* **multilabel**: :math:`z_t = \Phi(x_t, r^*) - \Phi(x_t, s^*)` has
  :math:`\|z_t\|^2 = 2\|x_t\|^2 \le R^2 := 2\max_t\|x_t\|^2`; a competitor is one
  weight vector per label, a matrix U (rows in the order of ``classes``), and
  :math:`\ell^*_t = \max(0, 1 - \gamma_t(U))` with
  :math:`\gamma_t(U) = \min_{r \in Y_t} u_r \cdot x_t - \max_{s \notin Y_t} u_s \cdot x_t`
  (:math:`+\infty` when :math:`Y_t` is empty or holds every label: no loss).
  The inequality :math:`u \cdot z_t \ge \gamma_t(U)` that Lemma 1 needs holds
  whichever pair the learner picks, also while labels are still joining the
  learner's ranking.
"""

import math

import numpy as np
import scipy.sparse as sp

from .._validation import check_row, check_X
from ..multilabel._labels import LabelIndex, read_label_rows
from ._theorems import _check_C, _times, exact_dot, exact_radius_sq, exact_sq_norm, pa1_value, pa2_value, r2_u2


def _vectors(Y):
    arrays = check_X(Y, name="Y")
    if arrays.n_rows == 0:
        raise ValueError("Y has no rows; a bound needs at least one round")
    dense = np.zeros((arrays.n_rows, arrays.n_features))
    rows = np.repeat(np.arange(arrays.n_rows), np.diff(arrays.indptr))
    dense[rows, arrays.indices] = arrays.data
    return dense


def _uniclass_terms(Y, u, epsilon, B):
    """(||u - w_1||^2, the competitor's losses) of the (lifted, if B is given) problem."""
    Y = _vectors(Y)
    u = np.asarray(u, dtype=np.float64)
    if u.shape != (Y.shape[1],):
        raise ValueError(f"u must be a vector of {Y.shape[1]} entries (the dimension of Y); got shape {u.shape}")
    if not np.isfinite(u).all():
        raise ValueError("u must be finite")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.integer, np.floating)) or not 0 <= epsilon < math.inf:
        raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}")
    if B is not None:
        if isinstance(B, bool) or not isinstance(B, (int, float, np.integer, np.floating)) or not 0 < B < math.inf:
            raise ValueError(f"B must be a finite number > 0; got {B!r}")
        if epsilon > B:
            raise ValueError(f"the competitor's radius epsilon={epsilon!r} exceeds the bound B={B!r}")
    if B is None:
        # the distances from each row scaled exactly by a power of two: their float squares under- or overflow
        # (a distance of 1e-170 squares to 0, a loss of 1e-170 that C = 1e300 makes 1e130)
        return float(u @ u), np.maximum(0.0, _distances(Y, u) - float(epsilon))
    return uniclass_terms(float(u @ u), np.linalg.norm(Y - u, axis=1) ** 2, float(epsilon), B)


def _distances(Y, u):
    """||y_t - u|| of every row, each computed on the row scaled by the power of two of its largest entry."""
    D = Y - u
    exponents = np.frexp(np.abs(D).max(axis=1))[1]
    return np.ldexp(np.linalg.norm(np.ldexp(D, -exponents[:, None]), axis=1), exponents)


def uniclass_terms(u2, sq_distances, epsilon, B):
    """(||u - w_1||^2, the losses l*_t) from ||u||^2 and the ||u - y_t||^2, lifted if B is given (checked inputs)."""
    distances = np.sqrt(sq_distances)
    if B is None:
        return u2, np.maximum(0.0, distances - epsilon)
    lift = math.sqrt(B * B - epsilon * epsilon)
    # B - lift and sqrt(d^2 + lift^2) - B without cancellation, as Sec. 6 wants B far above epsilon:
    # both are differences of squares over a sum
    start_gap = epsilon * epsilon / (B + lift)
    losses = (sq_distances - epsilon * epsilon) / (np.sqrt(sq_distances + lift * lift) + B)
    return u2 + start_gap * start_gap, np.maximum(0.0, losses)


def uniclass_pa_bound(Y, u, epsilon, B=None):
    r"""PA uniclass: cumulative squared loss (Sec. 6 with Thm. 3; Thm. 2 when u fits every vector).

    For every center u and radius :math:`\epsilon`,

    .. math:: \sum_t \ell_t^2 \le \Big(\|u - w_1\| + 2\sqrt{\textstyle\sum_t (\ell^*_t)^2}\Big)^2,

    which is :math:`\|u - w_1\|^2` when every :math:`y_t` lies within
    :math:`\epsilon` of u. With a fixed radius the learner's epsilon must be
    the competitor's and :math:`w_1 = 0`; with ``B`` the bound is about the
    radius-learning learner with that B, whose lifted losses it bounds.

    Parameters
    ----------
    Y : array-like or sparse matrix, shape (n_samples, d)
    u : array-like, shape (d,)
    epsilon : float
        The competitor's radius (>= 0; <= B when B is given).
    B : float, optional
        The learner's bound on the radius when it learns it.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import uniclass_pa_bound
    >>> uniclass_pa_bound([[3.0, 4.0], [3.0, 5.0]], u=[3.0, 4.5], epsilon=0.5)   # ||u||^2 = 29.25
    29.25
    >>> uniclass_pa_bound([[0.0, 3.0]], u=[0.0, 0.0], epsilon=3.0, B=5.0)  # 0 + (5 - 4)^2
    1.0
    """
    start, losses = _uniclass_terms(Y, u, epsilon, B)
    squares = float(losses @ losses)
    if squares == 0.0:
        return start  # Thm. 2's form, without a square root taken and squared again
    return (math.sqrt(start) + 2.0 * math.sqrt(squares)) ** 2


def uniclass_pa1_bound(Y, u, epsilon, C, B=None):
    r"""PA-I uniclass: :math:`\sum_t \min(C\ell_t, \ell_t^2) = \sum_t \tau_t\ell_t` (Sec. 6 with Lemma 1).

    PA-I's :math:`\tau_t = \min(C, \ell_t) \le \ell_t` turns Lemma 1 into

    .. math:: \sum_t \tau_t \ell_t \le \|u - w_1\|^2 + 2C\sum_t \ell^*_t,

    the uniclass form of Thm. 4: the rounds with :math:`\ell_t \ge 1` are
    therefore at most :math:`\max\{1, 1/C\}` times the right-hand side. The
    left side is ``(result.taus * result.losses).sum()`` of a run.

    Parameters
    ----------
    Y, u, epsilon, B
        As in :func:`uniclass_pa_bound`.
    C : float
        PA-I's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import uniclass_pa1_bound
    >>> uniclass_pa1_bound([[2.0, 0.0], [0.0, 0.0]], u=[0.0, 0.0], epsilon=1.0, C=0.5)   # 0 + 2 * 0.5 * 1
    1.0
    """
    C = _check_C(C)
    start, losses = _uniclass_terms(Y, u, epsilon, B)
    return start + 2.0 * _times(C, float(losses.sum()))


def uniclass_pa2_bound(Y, u, epsilon, C, B=None):
    r"""PA-II uniclass: cumulative squared loss (Sec. 6 with Thm. 5 and :math:`\|z_t\| = 1`).

    .. math:: \sum_t \ell_t^2 \le \Big(1 + \frac{1}{2C}\Big)
        \Big(\|u - w_1\|^2 + 2C\sum_t (\ell^*_t)^2\Big).

    Parameters
    ----------
    Y, u, epsilon, B
        As in :func:`uniclass_pa_bound`.
    C : float
        PA-II's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import uniclass_pa2_bound
    >>> uniclass_pa2_bound([[2.0, 0.0]], u=[0.0, 0.0], epsilon=1.0, C=0.5)     # 2 * (0 + 2 * 0.5 * 1)
    2.0
    """
    C = _check_C(C)
    start, losses = _uniclass_terms(Y, u, epsilon, B)
    return (1.0 + 0.5 / C) * (start + 2.0 * _times(C, float(losses @ losses)))


def _multilabel_terms(X, y, U, classes, fit_intercept, feature_map=None):
    """(R^2, ||U||^2, the competitor's margins gamma_t(U)).

    Multi-prototype: R^2 = 2 max ||x_t||^2. With a feature map, Corollary 8's
    R = 2 max_{t, r} ||Phi(x_t, r)|| (each label's constant feature 1 counted
    with ``fit_intercept``).
    """
    arrays = check_X(X)
    if arrays.n_rows == 0:
        raise ValueError("X has no rows; a bound needs at least one round")
    labels, label_ptr, flat = _encoded_labels(arrays.n_rows, y, classes)
    k = len(labels)
    sorted_position = np.argsort(labels.order)  # label index (order of appearance) -> row of U
    if feature_map is not None:
        scores, r2, u2 = _map_scores(arrays, U, labels, k, sorted_position, fit_intercept, feature_map)
    else:
        X = _vectors(X)
        if fit_intercept:
            X = np.hstack([X, np.ones((X.shape[0], 1))])
        U = np.asarray(U, dtype=np.float64)
        if U.shape != (k, X.shape[1]):
            extra = " (X's features plus 1 for the intercept)" if fit_intercept else ""
            raise ValueError(
                f"U must have shape ({k}, {X.shape[1]}): one row per label of classes{extra}; got {U.shape}")
        if not np.isfinite(U).all():
            raise ValueError("U must be finite")
        # rows of U are in sorted-classes order; the label indices are in order of appearance
        with np.errstate(over="ignore", invalid="ignore"):
            scores = X @ U.T
        for t, a in zip(*np.nonzero(~np.isfinite(scores))):  # overflowed: summed exactly (no inf - inf = nan)
            scores[t, a] = exact_dot(X[t], U[a])
        scores = scores[:, sorted_position]
        # exact Fractions: the float R^2 of rows of 1e-170 is 0, the float ||U||^2 of a U of 1e170 inf
        r2, u2 = 2 * exact_radius_sq(X), exact_sq_norm(U)
    margins = np.empty(arrays.n_rows)
    for t in range(arrays.n_rows):
        relevant = np.zeros(k, dtype=bool)
        relevant[flat[label_ptr[t] : label_ptr[t + 1]]] = True
        if relevant.all() or not relevant.any():
            margins[t] = math.inf
        else:
            margins[t] = scores[t, relevant].min() - scores[t, ~relevant].max()
    return r2, u2, margins


def _encoded_labels(n_rows, y, classes):
    """(LabelIndex, label_ptr, flat): the relevant labels of each row, as indices in order of appearance."""
    kind, rows = read_label_rows(y, n_rows, "multilabel bound")
    labels = LabelIndex("multilabel bound")
    if classes is not None:
        labels.declare(classes)
    if kind == "indicator":
        if len(labels) == 0:
            labels.add(range(rows.shape[1]))
        label_ptr, flat = labels.encode_indicator(rows)
    else:
        labels.add(label for row in rows for label in row)
        label_ptr, flat = labels.encode_sets(rows)
    return labels, label_ptr, flat


def relevance(n_rows, y, classes=None):
    """A boolean (n_rows, k) matrix: row t marks the labels of Y_t, columns in sorted label order."""
    labels, label_ptr, flat = _encoded_labels(n_rows, y, classes)
    sorted_position = np.argsort(labels.order)  # label index (order of appearance) -> sorted column
    relevant = np.zeros((n_rows, len(labels)), dtype=bool)
    rows = np.repeat(np.arange(n_rows), np.diff(label_ptr))
    relevant[rows, sorted_position[np.asarray(flat, dtype=np.intp)]] = True
    return relevant


def _map_scores(arrays, u, labels, k, sorted_position, fit_intercept, feature_map):
    """Scores u . Phi(x_t, r) (+ the label's intercept weight), Corollary 8's R^2 and ||u||^2."""
    u = np.asarray(u, dtype=np.float64)
    extra = k if fit_intercept else 0
    if u.ndim != 1 or u.size <= extra:
        raise ValueError(
            f"with a feature_map, U is one vector u: the weights of Phi's coordinates"
            f"{f', then {k} intercept weights (one per label of classes, sorted)' if fit_intercept else ''}; "
            f"got shape {u.shape}")
    if not np.isfinite(u).all():
        raise ValueError("U must be finite")
    w, wb = u[: u.size - extra], u[u.size - extra :]
    scores = np.empty((arrays.n_rows, k))
    largest = 0.0
    for t in range(arrays.n_rows):
        lo, hi = arrays.indptr[t], arrays.indptr[t + 1]
        x = sp.csr_matrix((arrays.data[lo:hi], arrays.indices[lo:hi], np.array([0, hi - lo])),
                          shape=(1, max(arrays.n_features, 1)))
        for j, label in enumerate(labels.labels):
            indices, data, dimension = check_row(feature_map(x, label))
            if dimension > w.size:
                raise ValueError(f"feature_map(x, {label!r}) on row {t} has dimension {dimension}; u has {w.size}")
            scores[t, j] = float(w[indices] @ data) + (wb[sorted_position[j]] if fit_intercept else 0.0)
            largest = max(largest, float(data @ data) + (1.0 if fit_intercept else 0.0))
    return scores, 4.0 * largest, float(u @ u)


def multilabel_pa_separable_bound(X, y, U, classes=None, fit_intercept=False, feature_map=None):
    r"""PA multilabel, separable case: :math:`\sum_t \ell_t^2 \le R^2\|U\|^2` (Sec. 7 with Thm. 2).

    Holds when U ranks every row with margin :math:`\gamma_t(U) \ge 1`;
    returns ``inf`` otherwise. :math:`R^2 = 2\max_t\|x_t\|^2` (the intercept's
    constant feature counted). Since a wrong ranking has :math:`\ell_t \ge 1`,
    it also bounds PA's mistakes.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    y : label collections or indicator matrix, as :class:`olearn.multilabel.PAMultilabel` takes them
    U : array-like, shape (n_classes, n_features) (+1 column with ``fit_intercept``)
        One row per label of ``classes`` sorted (``classes_`` of the learner).
    classes : collection of labels, optional
        All the labels, if some never appear in y.
    fit_intercept : bool, default=False
    feature_map : callable, optional
        The joint feature map of a single-prototype learner
        (``PAMultilabel(feature_map=...)``). U is then one vector u (its
        weights, then with ``fit_intercept`` one intercept weight per label of
        ``classes`` sorted), and R is Corollary 8's: :math:`\|\Phi(x_t, r)\|
        \le R/2` for every t and r, i.e. :math:`R^2 = 4\max_{t,r}\|\Phi(x_t, r)\|^2`
        (the label's constant feature counted with ``fit_intercept``).

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import multilabel_pa_separable_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> U = [[1.0, -1.0], [-1.0, 1.0]]           # label 0 on x_1, label 1 on x_2: margins 2
    >>> multilabel_pa_separable_bound(X, [[0], [1]], U)    # R^2 = 2, ||U||^2 = 4
    8.0
    """
    r2, u2, margins = _multilabel_terms(X, y, U, classes, fit_intercept, feature_map)
    return r2_u2(r2, u2) if margins.min() >= 1.0 else math.inf


def multilabel_pa1_mistake_bound(X, y, U, C, classes=None, fit_intercept=False, feature_map=None):
    r"""PA-I multilabel: rounds with a wrong ranking (Sec. 7 with Thm. 4).

    .. math:: M \le \max\{R^2, 1/C\}\Big(\|U\|^2 + 2C\sum_t \ell^*_t\Big),

    where M counts the rounds with margin :math:`\gamma_t \le 0` (the
    ``n_mistakes`` of :func:`olearn.run`).

    Parameters
    ----------
    X, y, U, classes, fit_intercept, feature_map
        As in :func:`multilabel_pa_separable_bound`.
    C : float
        PA-I's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import multilabel_pa1_mistake_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> # U: margins 1 and 0 -> losses 0, 1; R^2 = 2, ||U||^2 = 1: max(2, 1) * (1 + 2 * 1)
    >>> multilabel_pa1_mistake_bound(X, [[0], [0]], [[1.0, 0.0], [0.0, 0.0]], C=1.0, classes=[0, 1])
    6.0
    """
    C = _check_C(C)
    r2, u2, margins = _multilabel_terms(X, y, U, classes, fit_intercept, feature_map)
    losses = np.maximum(0.0, 1.0 - margins)
    return pa1_value(r2, u2, float(losses.sum()), C)


def multilabel_pa2_loss_bound(X, y, U, C, classes=None, fit_intercept=False, feature_map=None):
    r"""PA-II multilabel: cumulative squared loss (Sec. 7 with Thm. 5).

    .. math:: \sum_t \ell_t^2 \le \Big(R^2 + \frac{1}{2C}\Big)\Big(\|U\|^2 + 2C\sum_t (\ell^*_t)^2\Big).

    Parameters
    ----------
    X, y, U, classes, fit_intercept, feature_map
        As in :func:`multilabel_pa_separable_bound`.
    C : float
        PA-II's aggressiveness, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from olearn.bounds._uniclass_multilabel import multilabel_pa2_loss_bound
    >>> X = [[1.0, 0.0], [0.0, 1.0]]
    >>> # losses 0, 1 as above: (2 + 1) * (1 + 2 * 0.5 * 1)
    >>> multilabel_pa2_loss_bound(X, [[0], [0]], [[1.0, 0.0], [0.0, 0.0]], C=0.5, classes=[0, 1])
    6.0
    """
    C = _check_C(C)
    r2, u2, margins = _multilabel_terms(X, y, U, classes, fit_intercept, feature_map)
    losses = np.maximum(0.0, 1.0 - margins)
    return pa2_value(r2, u2, float(losses @ losses), C)
