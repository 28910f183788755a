r"""The loss bounds of multiclass and cost-sensitive Passive-Aggressive learning.

Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
Algorithms*, JMLR 7 (2006), Sec. 7-8, for the multi-prototype learners of
:mod:`olearn.multiclass`. The competitor is a matrix U with one prototype per
class (rows in sorted class order, plus an intercept column with
``fit_intercept=True``), and

* :math:`R^2 = \max_t \max_{r \ne y_t} \|\Phi(x_t, y_t) - \Phi(x_t, r)\|^2 = 2 \max_t \|x_t\|^2`
  (the intercept's constant 1 included), the bound on :math:`\|z_t\|^2`;
* :math:`\|U\|^2 = \sum_a \|u_a\|^2`;
* U's multiclass hinge loss :math:`\ell^*_t = \max(0, 1 - (u_{y_t} \cdot x_t - \max_{r \ne y_t} u_r \cdot x_t))`,
  and its max-loss cost-sensitive loss
  :math:`\ell^*_t = \max_r (u_r \cdot x_t - u_{y_t} \cdot x_t + \sqrt{\rho(y_t, r)})`.

Every bound comes from the paper's Lemma 1 applied to :math:`z_t`: the loss of U
against the learner's own rival is at most U's loss above, so the binary proofs
(Thm. 2, 4, 5) carry over with :math:`R^2` as above; and on a round where the
true class is known, a mistake means :math:`\ell_t \ge 1` and the cost of the
prediction is at most :math:`\ell_t^2` (Sec. 8). The PA-I cost bound is derived
here along the lines of Thm. 4: :math:`\tau_t \ell_t \ge \rho_t \min(1/R^2, C/\sqrt{\rho_{max}})`.

olearn's learners meet a class when it first appears; that round's prediction
cannot be right, whatever the model. Unless ``classes_known=True`` (all classes
declared up front with ``classes=``), the mistake bounds add one mistake per
class, and the cost bounds :math:`k\,\rho_{max}`.
"""

import math

import numpy as np

from .._validation import check_X, check_y
from ._theorems import exact_dot, exact_radius_sq, exact_sq_norm, pa1_value, pa2_value, r2_u2


class _Stream:
    """A validated multiclass stream: dense rows (augmented), label positions, and U."""

    def __init__(self, X, y, U, classes, fit_intercept):
        arrays = check_X(X)
        if arrays.n_rows == 0:
            raise ValueError("X has no rows; a bound needs at least one round")
        Z = np.zeros((arrays.n_rows, arrays.n_features))
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            Z[i, arrays.indices[lo:hi]] = arrays.data[lo:hi]
        if fit_intercept:
            Z = np.hstack([Z, np.ones((arrays.n_rows, 1))])
        y = check_y(y, arrays.n_rows)
        self.classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
        position = np.searchsorted(self.classes, y)
        inside = position < self.classes.size
        if not inside.all() or not (self.classes[np.minimum(position, self.classes.size - 1)] == y).all():
            row = int(np.flatnonzero(~inside | (self.classes[np.minimum(position, self.classes.size - 1)] != y))[0])
            raise ValueError(f"y[{row}] = {y[row]!r} is not one of classes={self.classes.tolist()}")
        U = np.asarray(U, dtype=np.float64)
        expected = (self.classes.size, Z.shape[1])
        if U.shape != expected:
            extra = " (plus 1 column for the intercept, as fit_intercept=True)" if fit_intercept else ""
            raise ValueError(f"U must have shape {expected}, one row per sorted class{extra}; got {U.shape}")
        if not np.isfinite(U).all():
            raise ValueError("U must hold finite values")
        self.Z, self.y, self.U = Z, position, U
        with np.errstate(over="ignore", invalid="ignore"):
            self.scores = Z @ U.T  # (n, k): u_a . x_t
        for t, a in zip(*np.nonzero(~np.isfinite(self.scores))):  # overflowed: summed exactly (no inf - inf = nan)
            self.scores[t, a] = exact_dot(Z[t], U[a])
        # R^2 and ||U||^2 as exact Fractions (a float square of rows of 1e-170 is 0, of a U of 1e170 inf)
        self.radius_sq = 2 * exact_radius_sq(Z)
        self.u_sq = exact_sq_norm(U)

    def hinge_losses(self):
        n = self.y.size
        true = self.scores[np.arange(n), self.y]
        others = self.scores.copy()
        others[np.arange(n), self.y] = -np.inf
        return np.maximum(0.0, 1.0 - (true - others.max(axis=1))) if self.classes.size > 1 else np.zeros(n)

    def max_losses(self, margins):
        n = self.y.size
        true = self.scores[np.arange(n), self.y]
        return (self.scores - true[:, None] + margins[self.y]).max(axis=1)


def _check_C(C):
    if isinstance(C, bool) or not isinstance(C, (int, float, np.integer, np.floating)) or not C > 0:
        raise ValueError(f"C must be a number > 0 (inf allowed); got {C!r}")
    return float(C)


def _allowance(stream, classes_known, per_class):
    return 0.0 if classes_known else stream.classes.size * per_class


def multiclass_pa_bound(X, y, U, classes=None, fit_intercept=False):
    r"""Multiclass PA, separable case (Thm. 2 in Sec. 7): :math:`\sum_t \ell_t^2 \le \|U\|^2 R^2`.

    ``inf`` unless U has margin >= 1 on every round (:math:`\ell^*_t = 0`). The
    number of mistakes on rounds whose class is known is at most this too.

    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> multiclass_pa_bound(X, ["a", "b"], U=[[1.0, -1.0], [-1.0, 1.0]])   # ||U||^2 = 4, R^2 = 2
    8.0
    """
    stream = _Stream(X, y, U, classes, fit_intercept)
    if stream.hinge_losses().max() > 0:
        return math.inf
    return r2_u2(stream.radius_sq, stream.u_sq)


def multiclass_pa1_mistake_bound(X, y, U, C, classes=None, fit_intercept=False, classes_known=False):
    r"""Multiclass PA-I (Thm. 4 in Sec. 7): mistakes :math:`\le \max(R^2, 1/C)(\|U\|^2 + 2C\sum_t \ell^*_t)`.

    Plus one mistake per class unless ``classes_known``.

    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> multiclass_pa1_mistake_bound(X, ["a", "b"], U=[[1.0, -1.0], [-1.0, 1.0]], C=1.0, classes_known=True)
    8.0
    """
    C = _check_C(C)
    stream = _Stream(X, y, U, classes, fit_intercept)
    loss = float(stream.hinge_losses().sum())
    bound = pa1_value(stream.radius_sq, stream.u_sq, loss, C)
    return bound + _allowance(stream, classes_known, 1.0)


def multiclass_pa2_loss_bound(X, y, U, C, classes=None, fit_intercept=False):
    r"""Multiclass PA-II (Thm. 5 in Sec. 7): :math:`\sum_t \ell_t^2 \le (R^2 + \frac{1}{2C})(\|U\|^2 + 2C\sum_t {\ell^*_t}^2)`.

    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> multiclass_pa2_loss_bound(X, ["a", "b"], U=[[0.0, 0.0], [0.0, 0.0]], C=0.5)   # (2 + 1)(0 + 2)
    6.0
    """
    C = _check_C(C)
    stream = _Stream(X, y, U, classes, fit_intercept)
    sq_loss = float((stream.hinge_losses() ** 2).sum())
    return pa2_value(stream.radius_sq, stream.u_sq, sq_loss, C)


def _cost_margins(cost, classes):
    k = classes.size
    if callable(cost):
        matrix = np.array([[float(cost(a, b)) for b in classes.tolist()] for a in classes.tolist()])
    else:
        matrix = np.asarray(cost, dtype=np.float64)
        if matrix.shape != (k, k):
            raise ValueError(f"cost must be a {k}x{k} matrix over the sorted classes; got shape {matrix.shape}")
    if not np.isfinite(matrix).all() or (matrix < 0).any() or np.diag(matrix).any():
        raise ValueError("costs must be finite, >= 0, and 0 on the diagonal")
    return matrix


def cost_sensitive_bound(X, y, U, cost, variant="pa1", C=1.0, classes=None, fit_intercept=False,
                         classes_known=False):
    r"""Bound on the cumulative cost :math:`\sum_t \rho(y_t, \hat y_t)` of cost-sensitive PA (Sec. 8).

    For both the prediction-based and the max-loss update, with U's max-loss
    losses :math:`\ell^*_t` and :math:`\rho_{max}` the largest cost:

    * ``"pa"``: :math:`\|U\|^2 R^2` if every :math:`\ell^*_t = 0`, else ``inf``;
    * ``"pa1"``: :math:`\max(R^2, \sqrt{\rho_{max}}/C)(\|U\|^2 + 2C \sum_t \ell^*_t)`, Thm. 10's proof
      without its two assumptions (:math:`\tau_t \ge \min\{\ell_t/R^2, C\}`, as in Thm. 4). Under them
      (:math:`R \le 1`, :math:`\sqrt{\rho_{max}} \le C`) the factor :math:`\max(R^2, \sqrt{\rho_{max}}/C)` is at
      most 1, so the value is Thm. 10's bound :math:`\|U\|^2 + 2C\sum_t \ell^*_t` times that factor: at most
      Thm. 10's, and equal to it only when the factor is 1;
    * ``"pa2"``: :math:`(R^2 + \frac{1}{2C})(\|U\|^2 + 2C \sum_t {\ell^*_t}^2)`;

    :math:`R^2 = 2\max_t\|x_t\|^2` is the largest :math:`\|\phi(x_t, y_t) - \phi(x_t, r)\|^2` of the
    multi-prototype map; plus :math:`k \rho_{max}` unless ``classes_known``.

    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> cost = [[0.0, 4.0], [4.0, 0.0]]
    >>> cost_sensitive_bound(X, [0, 1], U=[[2.0, -2.0], [-2.0, 2.0]], cost=cost, variant="pa", classes_known=True)
    32.0
    """
    stream = _Stream(X, y, U, classes, fit_intercept)
    costs = _cost_margins(cost, stream.classes)
    rho_max = float(costs.max())
    losses = np.maximum(stream.max_losses(np.sqrt(costs)), 0.0)
    allowance = _allowance(stream, classes_known, rho_max)
    if variant == "pa":
        return (r2_u2(stream.radius_sq, stream.u_sq) if losses.max() == 0 else math.inf) + allowance
    C = _check_C(C)
    if variant == "pa1":
        return pa1_value(stream.radius_sq, stream.u_sq, float(losses.sum()), C, scale=math.sqrt(rho_max)) + allowance
    if variant == "pa2":
        sq_loss = float((losses**2).sum())
        return pa2_value(stream.radius_sq, stream.u_sq, sq_loss, C) + allowance
    raise ValueError(f"variant must be one of 'pa', 'pa1', 'pa2'; got {variant!r}")
