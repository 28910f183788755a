r"""The best fixed linear classifier in hindsight on a two-dimensional sample, exactly.

Both comparators pass through the origin, like the online learners of
Crammer et al. (2006), which have no bias.

* :func:`best_error_direction` minimises the number of mistakes
  :math:`\#\{t : y_t\, w \cdot x_t \le 0\}` (a zero score is a mistake, as in
  :func:`olearn.run`). Only the direction of w matters. Writing
  :math:`z_t = y_t x_t` at angle :math:`\varphi_t`, the direction at angle
  :math:`\theta` classifies example t correctly exactly when
  :math:`|\theta - \varphi_t| < \pi/2` (mod :math:`2\pi`), so the count of
  correct examples is constant between consecutive *critical angles*
  :math:`\varphi_t \pm \pi/2`. A sweep over the sorted critical angles
  gives the count on every arc between them in :math:`O(T \log T)`; the best
  arc's midpoint is a minimiser (at a critical angle itself the count is
  never better than on both sides of it).
* :func:`best_hinge_classifier` minimises the average hinge loss
  :math:`\frac1T \sum_t \max(0, 1 - y_t\, u \cdot x_t)` over all
  :math:`u \in \mathbb R^2`, a linear program. Its dual,
  :math:`\max \sum_t \alpha_t` subject to :math:`\sum_t \alpha_t y_t x_t = 0`,
  :math:`0 \le \alpha \le 1`, has only two equality constraints, so HiGHS
  solves it in milliseconds; u is read from the multipliers of those
  constraints, and the duality gap (the hinge loss of u minus the dual
  value, never negative by weak duality) certifies how close u is to
  optimal.
"""

import math

import numpy as np


def _count_correct(Z, theta):
    """Examples with w . z > 0 for the direction w = (cos theta, sin theta)."""
    return int(np.count_nonzero(Z @ np.array([math.cos(theta), math.sin(theta)]) > 0.0))


def best_error_direction(X, y):
    r"""The unit direction w through the origin with the fewest mistakes on (X, y), found exactly.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.

    Returns
    -------
    n_mistakes : int
        :math:`\min_w \#\{t : y_t\, w \cdot x_t \le 0\}`, counted directly at
        the returned w.
    w : ndarray of shape (2,)
        A minimiser, of unit norm.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.2], [-1.0, 0.1], [0.5, -1.0], [-0.2, 1.0]])
    >>> n_mistakes, w = best_error_direction(X, np.array([1, -1, 1, 1]))
    >>> n_mistakes, bool(np.isclose(np.linalg.norm(w), 1.0))
    (0, True)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must have shape (n, 2) and y shape (n,); got {X.shape} and {y.shape}")
    Z = y[:, None] * X
    # A zero z_t is a mistake for every w; it takes no part in the sweep.
    Z = Z[np.any(Z != 0.0, axis=1)]
    if Z.shape[0] == 0:
        return int(X.shape[0]), np.array([1.0, 0.0])
    phi = np.arctan2(Z[:, 1], Z[:, 0])
    two_pi = 2.0 * math.pi
    angles = np.concatenate([(phi - math.pi / 2) % two_pi, (phi + math.pi / 2) % two_pi])
    steps = np.concatenate([np.ones(Z.shape[0], np.int64), -np.ones(Z.shape[0], np.int64)])
    order = np.argsort(angles, kind="stable")
    angles, steps = angles[order], steps[order]
    following = np.append(angles[1:], angles[0] + two_pi)
    midpoints = 0.5 * (angles + following)
    widths = following - angles
    # Crossing angles[k] moves from arc k - 1 to arc k (the last arc wraps around 2 pi). The count is
    # taken directly on the widest arc, where rounding cannot matter, and carried to the others.
    steps = np.cumsum(steps)
    widest = int(np.argmax(widths))
    counts = _count_correct(Z, midpoints[widest]) + steps - steps[widest]
    counts[widths <= 0.0] = -1  # arcs of zero length hold no direction
    # Critical angles that coincide in exact arithmetic (z_s and -z_t parallel, say) may come out a
    # rounding error apart; the sliver between them is no true arc and its count may be off. True arcs
    # get the true count, which no direction beats, so checking the counts directly in decreasing
    # order until none left can beat the best checked one finds the true optimum.
    best_correct, best_theta = -1, 0.0
    for k in np.argsort(-counts, kind="stable"):
        if counts[k] <= best_correct:
            break
        correct = _count_correct(Z, float(midpoints[k]))
        if correct > best_correct:
            best_correct, best_theta = correct, float(midpoints[k])
    return int(X.shape[0] - best_correct), np.array([math.cos(best_theta), math.sin(best_theta)])


def best_hinge_classifier(X, y):
    r"""The vector u through the origin with the smallest average hinge loss on (X, y).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}.

    Returns
    -------
    average_loss : float
        :math:`\frac1T \sum_t \max(0, 1 - y_t\, u \cdot x_t)` at the returned u.
    u : ndarray of shape (n_features,)
    duality_gap : float
        ``average_loss`` minus the dual optimum over T: an upper bound on
        how far ``average_loss`` is above the true minimum.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    >>> loss, u, gap = best_hinge_classifier(X, np.array([1, -1, 1]))
    >>> round(loss, 6), np.round(u, 6).tolist(), gap < 1e-9
    (0.0, [1.0, 1.0], True)
    """
    from scipy.optimize import linprog

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = X.shape[0]
    Z = y[:, None] * X
    dual = linprog(-np.ones(n), A_eq=Z.T, b_eq=np.zeros(X.shape[1]), bounds=(0.0, 1.0), method="highs")
    if dual.status != 0:
        raise RuntimeError(f"the hinge-loss linear program failed: {dual.message}")
    # HiGHS reports d(objective)/d(b_eq); the objective is -sum(alpha), so u is minus the multipliers.
    u = -np.asarray(dual.eqlin.marginals, dtype=np.float64)
    average_loss = float(np.maximum(0.0, 1.0 - Z @ u).mean())
    return average_loss, u, average_loss - float(-dual.fun) / n
