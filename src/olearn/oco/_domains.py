r"""Euclidean projections onto convex sets, and the feasible sets of projected OGD.

Every function returns :math:`\Pi_K(v) = \arg\min_{x \in K} \|x - v\|_2`
exactly (up to rounding), computed by the compiled kernels of
:mod:`olearn._kernels._oco`.
"""

import math
import numbers

import numpy as np

from .._kernels import _oco as K
from .._validation import check_vector


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0 < value < math.inf):
        raise ValueError(f"{name}={value!r} is invalid; expected a finite number > 0")
    return float(value)


def project_l2_ball(v, radius=1.0):
    r"""Projection onto the L2 ball :math:`\{x : \|x\|_2 \le r\}`: :math:`v \min(1, r / \|v\|)`.

    >>> from olearn.oco import project_l2_ball
    >>> project_l2_ball([3.0, 4.0], radius=1.0).tolist()
    [0.6, 0.8]
    """
    v = check_vector(v)
    out = np.empty_like(v)
    K.project_l2_ball_into(v, _positive(radius, "radius"), out)
    return out


def project_simplex(v, z=1.0):
    r"""Projection onto the simplex :math:`\{x : x \ge 0, \sum_i x_i = z\}`, in O(n log n).

    The KKT conditions of :math:`\min \|x - v\|^2` give :math:`x_i = \max(v_i - \theta, 0)`
    with :math:`\theta` such that the entries sum to z. Sorting
    :math:`u_1 \ge \dots \ge u_n` finds it: with
    :math:`\rho = \max\{j : u_j - (\sum_{r \le j} u_r - z)/j > 0\}`,
    :math:`\theta = (\sum_{r \le \rho} u_r - z)/\rho` (Held, Wolfe & Crowder
    1974; Duchi, Shalev-Shwartz, Singer & Chandra 2008, Fig. 1).

    >>> from olearn.oco import project_simplex
    >>> project_simplex([0.5, 1.5, -1.0]).tolist()
    [0.0, 1.0, 0.0]
    >>> project_simplex([0.4, 0.3, 0.1], z=2.0).round(6).tolist()
    [0.8, 0.7, 0.5]
    """
    v = check_vector(v)
    out = np.empty_like(v)
    K.project_simplex_into(v, _positive(z, "z"), np.empty_like(v), out)
    return out


def project_box(v, low, high):
    r"""Projection onto the box :math:`\{x : \text{low} \le x \le \text{high}\}`: clip each entry.

    ``low`` and ``high`` are numbers or vectors of the length of v.

    >>> from olearn.oco import project_box
    >>> project_box([-2.0, 0.5, 3.0], low=0.0, high=1.0).tolist()
    [0.0, 0.5, 1.0]
    """
    v = check_vector(v)
    low, high = _bounds(low, high, v.size)
    out = np.empty_like(v)
    K.project_box_into(v, low, high, out)
    return out


def project_l1_ball(v, radius=1.0):
    r"""Projection onto the L1 ball :math:`\{x : \|x\|_1 \le r\}`.

    v itself when inside; otherwise :math:`\operatorname{sign}(v) \odot \Pi_{\Delta_r}(|v|)`,
    the simplex projection of :math:`|v|` with z = r (Duchi et al. 2008, Sec. 4).

    >>> from olearn.oco import project_l1_ball
    >>> project_l1_ball([2.0, -1.0, 0.25], radius=1.0).tolist()
    [1.0, 0.0, 0.0]
    """
    v = check_vector(v)
    out = np.empty_like(v)
    K.project_l1_ball_into(v, _positive(radius, "radius"), np.empty_like(v), out)
    return out


def _bounds(low, high, dim):
    """low and high as float64 vectors of length dim, low <= high, finite."""
    out = []
    for name, value in (("low", low), ("high", high)):
        arr = np.asarray(value, dtype=np.float64)
        if arr.ndim == 0:
            arr = np.full(dim, float(arr))
        if arr.shape != (dim,):
            raise ValueError(f"{name} must be a number or a vector of length {dim}; got shape {arr.shape}")
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite; got {arr.tolist()}")
        out.append(np.ascontiguousarray(arr))
    if (out[0] > out[1]).any():
        k = int(np.flatnonzero(out[0] > out[1])[0])
        raise ValueError(f"low[{k}]={out[0][k]} is above high[{k}]={out[1][k]}; the box is empty")
    return out[0], out[1]


class Domain:
    """A closed convex set in R^dim that projected OGD plays in.

    Subclasses set ``code``, ``radius``, ``low``, ``high`` for the kernel and
    define ``diameter``, ``contains`` and ``minimize_linear``.
    """

    code = -1

    def __init__(self, dim):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
            raise ValueError(f"dim={dim!r} is invalid; expected an integer >= 1")
        self.dim = int(dim)
        self.radius = 0.0
        self.low = np.zeros(0)
        self.high = np.zeros(0)

    def project(self, v):
        """The Euclidean projection of v onto the set."""
        v = check_vector(v)
        if v.size != self.dim:
            raise ValueError(f"v has {v.size} entries; {self!r} lives in R^{self.dim}")
        out = np.empty_like(v)
        K.project_into(v, self.code, self.radius, self.low, self.high, np.empty_like(v), out)
        return out

    def initial_point(self):
        """Where OGD starts: the projection of the origin."""
        return self.project(np.zeros(self.dim))

    def _key(self):
        return (type(self).__name__, self.dim, self.radius, self.low.tolist(), self.high.tolist())

    def __eq__(self, other):
        return isinstance(other, Domain) and self._key() == other._key()

    def __hash__(self):
        return hash(repr(self._key()))


class _Ball(Domain):
    """A ball of some norm around the origin: its radius, and a diameter of twice that."""

    def __init__(self, dim, radius=1.0):
        super().__init__(dim)
        self.radius = _positive(radius, "radius")

    @property
    def diameter(self):
        return 2.0 * self.radius


class L2Ball(_Ball):
    r"""The Euclidean ball :math:`\{x \in \mathbb R^d : \|x\|_2 \le r\}`; diameter 2r.

    >>> from olearn.oco import L2Ball
    >>> ball = L2Ball(2, radius=2.0)
    >>> ball.project([6.0, 8.0]).tolist(), ball.diameter
    ([1.2, 1.6], 4.0)
    """

    code = K.DOMAIN_L2_BALL

    def contains(self, x, atol=1e-9):
        return bool(np.linalg.norm(x) <= self.radius * (1.0 + atol) + atol)

    def minimize_linear(self, g):
        """argmin over the ball of g.x: -r g / ||g|| (the origin when g = 0)."""
        norm = np.linalg.norm(g)
        return np.zeros(self.dim) if norm == 0.0 else -self.radius * np.asarray(g, dtype=np.float64) / norm

    def __repr__(self):
        return f"L2Ball({self.dim}, radius={self.radius:g})"


class Simplex(Domain):
    r"""The simplex :math:`\{x \in \mathbb R^d : x \ge 0, \sum_i x_i = z\}`; diameter :math:`z\sqrt 2`.

    OGD starts at its centre, z/d in every coordinate. With z = 1 its points
    are allocations over d experts, as in Hedge.

    >>> from olearn.oco import Simplex
    >>> s = Simplex(3)
    >>> s.initial_point().round(4).tolist(), round(s.diameter, 4)
    ([0.3333, 0.3333, 0.3333], 1.4142)
    """

    code = K.DOMAIN_SIMPLEX

    def __init__(self, dim, z=1.0):
        super().__init__(dim)
        self.radius = _positive(z, "z")

    @property
    def z(self):
        return self.radius

    @property
    def diameter(self):
        return self.radius * math.sqrt(2.0) if self.dim > 1 else 0.0

    def contains(self, x, atol=1e-9):
        x = np.asarray(x, dtype=np.float64)
        scale = max(1.0, self.radius)
        return bool((x >= -atol * scale).all() and abs(x.sum() - self.radius) <= atol * scale * max(1, x.size))

    def minimize_linear(self, g):
        """argmin over the simplex of g.x: z on a smallest coordinate of g."""
        out = np.zeros(self.dim)
        out[int(np.argmin(g))] = self.radius
        return out

    def __repr__(self):
        return f"Simplex({self.dim}, z={self.radius:g})"


class Box(Domain):
    r"""The box :math:`\{x : \text{low} \le x \le \text{high}\}`; diameter :math:`\|\text{high} - \text{low}\|_2`.

    >>> from olearn.oco import Box
    >>> box = Box(2, low=0.0, high=[1.0, 2.0])
    >>> box.project([5.0, -1.0]).tolist(), round(box.diameter, 4)
    ([1.0, 0.0], 2.2361)
    """

    code = K.DOMAIN_BOX

    def __init__(self, dim, low=-1.0, high=1.0):
        super().__init__(dim)
        self.low, self.high = _bounds(low, high, self.dim)

    @property
    def diameter(self):
        return float(np.linalg.norm(self.high - self.low))

    def contains(self, x, atol=1e-9):
        x = np.asarray(x, dtype=np.float64)
        slack = atol * np.maximum(1.0, np.maximum(np.abs(self.low), np.abs(self.high)))
        return bool(((x >= self.low - slack) & (x <= self.high + slack)).all())

    def minimize_linear(self, g):
        """argmin over the box of g.x: low where g > 0, high elsewhere."""
        return np.where(np.asarray(g) > 0.0, self.low, self.high)

    def __repr__(self):
        return f"Box({self.dim}, low={self.low.tolist()}, high={self.high.tolist()})"


class L1Ball(_Ball):
    r"""The L1 ball :math:`\{x : \|x\|_1 \le r\}`; diameter 2r.

    >>> from olearn.oco import L1Ball
    >>> L1Ball(3, radius=1.0).project([0.5, 0.5, 0.5]).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """

    code = K.DOMAIN_L1_BALL

    def contains(self, x, atol=1e-9):
        return bool(np.abs(x).sum() <= self.radius * (1.0 + atol) + atol)

    def minimize_linear(self, g):
        """argmin over the L1 ball of g.x: ``-r sign(g_k) e_k`` at a largest ``|g_k|``."""
        g = np.asarray(g, dtype=np.float64)
        out = np.zeros(self.dim)
        k = int(np.argmax(np.abs(g)))
        out[k] = -self.radius if g[k] > 0 else self.radius
        return out

    def __repr__(self):
        return f"L1Ball({self.dim}, radius={self.radius:g})"
