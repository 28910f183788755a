r"""Projected online gradient descent (Zinkevich 2003), with delayed updates and regret tracking."""

import math
from dataclasses import dataclass, field

import numpy as np

from .._estimator import Estimator
from .._kernels import _codes
from .._kernels import _oco as K
from .._params import POSITIVE, Interval, Options, check_params
from ..exceptions import NotFittedError
from ._domains import Domain

_SCHEDULES = {
    "constant": _codes.SCHEDULE_CONSTANT,
    "sqrt": _codes.SCHEDULE_SQRT,
    "inverse": _codes.SCHEDULE_INVERSE,
}
_DELAYED_RATES = {"current": K.RATE_CURRENT, "gradient": K.RATE_GRADIENT}


def learning_rates(schedule, eta, rounds):
    """eta_s of the schedule for the 1-based rounds s (an array)."""
    rounds = np.asarray(rounds, dtype=np.float64)
    if schedule == "constant":
        return np.full(rounds.shape, float(eta))
    if schedule == "sqrt":
        return eta / np.sqrt(rounds)
    return eta / rounds


@dataclass(frozen=True)
class ConvexLoss:
    """A convex loss of one round: its value and a (sub)gradient, both functions of the point.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.oco import ConvexLoss
    >>> f = ConvexLoss.squared_distance([1.0, 0.0])
    >>> f.value(np.array([0.0, 0.0])), f.gradient(np.array([0.0, 0.0])).tolist()
    (0.5, [-1.0, 0.0])
    """

    value: object
    gradient: object

    @classmethod
    def linear(cls, g):
        """f(x) = g . x, gradient g."""
        g = np.asarray(g, dtype=np.float64)
        return cls(lambda x: float(g @ x), lambda x: g)

    @classmethod
    def squared_distance(cls, center):
        """f(x) = ||x - center||^2 / 2, gradient x - center."""
        c = np.asarray(center, dtype=np.float64)
        return cls(lambda x: 0.5 * float((x - c) @ (x - c)), lambda x: x - c)


@dataclass(frozen=True)
class OGDResult:
    """Per-round record of :meth:`ProjectedOGD.run`, with the regret bound.

    Attributes
    ----------
    n_rounds : int
    diameter : float
        D, the diameter of the domain.
    delay : int
    regret_kind : str
        ``"exact"`` when every loss value was known (linear losses, or
        :class:`ConvexLoss` with a comparator given), else ``"linearized"``:
        :math:`\\sum_t g_t \\cdot (x_t - z_t)`, which bounds the exact regret
        from above for convex losses. With no comparator given, z is the
        minimiser of :math:`\\sum_t g_t \\cdot z` over the domain, so the
        linearized regret is at least the regret to the best fixed point in hindsight.
    points : ndarray (rounds, dim)
        The point x_t played on each round (before that round's update).
    gradients : ndarray (rounds, dim)
    losses, comparator_losses : ndarray
        f_t(x_t) and f_t(z_t) (NaN where only a gradient was given).
    comparator : ndarray (rounds, dim)
        z_t of each round.
    regret, linearized_regret : ndarray
        Cumulative, after each round.
    regret_bound : ndarray
        The bound on the (linearized) regret after each round (see
        :class:`ProjectedOGD`).
    path_length : ndarray
        :math:`L_t = \\sum_{s < t} \\|z_{s+1} - z_s\\|` after each round.
    notes_bound : ndarray
        The OCO notes' statement of Zinkevich's theorem (Thm. 4.1.3),
        :math:`\\frac{D^2}{2}\\sqrt t + G^2\\sqrt t + 2 D L_t \\sqrt t`, after each
        round, for the setting it assumes (:math:`\\eta_t = 1/\\sqrt t`: ``schedule="sqrt"``,
        ``eta=1``, no delay, from the first round); NaN otherwise. It is never
        below ``regret_bound``, which is tighter (see :class:`ProjectedOGD`).
    gradient_norms, learning_rates : ndarray
        :math:`\\|g_t\\|` and the rate :math:`a_t` the gradient of round t is
        applied with (:math:`\\eta_{t+\\tau}`, or :math:`\\eta_t` with
        ``delayed_rate="gradient"``; :math:`\\eta_t` without a delay).
    """

    n_rounds: int
    diameter: float
    delay: int
    regret_kind: str
    points: np.ndarray = field(repr=False)
    gradients: np.ndarray = field(repr=False)
    losses: np.ndarray = field(repr=False)
    comparator_losses: np.ndarray = field(repr=False)
    comparator: np.ndarray = field(repr=False)
    regret: np.ndarray = field(repr=False)
    linearized_regret: np.ndarray = field(repr=False)
    regret_bound: np.ndarray = field(repr=False)
    path_length: np.ndarray = field(repr=False)
    gradient_norms: np.ndarray = field(repr=False)
    learning_rates: np.ndarray = field(repr=False)
    notes_bound: np.ndarray = field(repr=False)

    @property
    def cumulative_loss(self):
        """Sum of f_t(x_t) (NaN if some values were not given)."""
        return float(np.sum(self.losses))

    @property
    def bound_holds(self):
        """True when the (linearized) regret never exceeded its bound (up to rounding)."""
        slack = 1e-9 * np.maximum(1.0, np.abs(self.regret_bound))
        return bool(np.all(self.linearized_regret <= self.regret_bound + slack))


class _DomainConstraint:
    def accepts(self, value):
        return isinstance(value, Domain)

    def describe(self):
        return "a domain of olearn.oco (L2Ball, Simplex, Box or L1Ball)"


class _LinearValue:
    """The value function z -> g . z of a linear loss given by its gradient vector."""

    def __init__(self, g):
        self.g = g

    def __call__(self, z):
        return float(self.g @ z)


def _is_matrix(losses):
    if isinstance(losses, np.ndarray):
        return True
    if isinstance(losses, (list, tuple)) and losses:
        first = losses[0]
        return not callable(first) and not hasattr(first, "gradient")
    return False


class ProjectedOGD(Estimator):
    r"""Projected online (sub)gradient descent on a convex set (Zinkevich 2003, "greedy projection").

    On round t the learner plays :math:`x_t`, receives a convex loss
    :math:`f_t` through a (sub)gradient :math:`g_t \in \partial f_t(x_t)`
    and moves

    .. math:: x_{t+1} = \Pi_K\big(x_t - \eta_t\, g_{t-\tau}\big)

    with :math:`\eta_t = \eta`, :math:`\eta/\sqrt t` or :math:`\eta/t`
    (``schedule``) and :math:`\Pi_K` the Euclidean projection onto the
    domain K (the OCO notes, Thm. 4.1.3 and Sec. 4.2.3). ``delay``
    :math:`\tau > 0` applies the gradient of round :math:`t - \tau` (no move
    during the first :math:`\tau` rounds), the sequential model of delayed,
    parallel updates of Langford, Smola & Zinkevich, *Slow Learners are
    Fast* (NIPS 2009), with the current round's rate :math:`\eta_t` as the
    notes' Sec. 4.3 writes it; ``delayed_rate="gradient"`` uses the rate of
    the gradient's own round, :math:`\eta_{t-\tau}`, instead. The first
    point is the projection of the origin (the centre of a simplex).

    Regret bound. With D the diameter of K, G the largest gradient norm,
    comparators :math:`z_1, \dots, z_T \in K` of path length
    :math:`L = \sum_t \|z_{t+1} - z_t\|`, and :math:`a_s` the rate applied
    to the gradient of round s (:math:`\eta_{s+\tau}`, or :math:`\eta_s` with
    ``delayed_rate="gradient"``), for every non-increasing schedule

    .. math:: \sum_t g_t \cdot (x_t - z_t) \le \frac{D^2}{2a_T} + \frac{D L}{a_T}
              + G^2 \Big(\tfrac12 \sum_{s \le T} a_s + \tau \sum_{s < T} a_s\Big),

    and the regret :math:`\sum_t f_t(x_t) - f_t(z_t)` is at most this
    linearized regret by convexity. With :math:`\tau = 0`, L = 0 and
    :math:`\eta_t = 1/\sqrt t` this is Zinkevich's Theorem 1,
    :math:`D^2\sqrt T/2 + (\sqrt T - \tfrac12) G^2`; with a drifting
    comparator it is at most the notes' :math:`D^2\sqrt T/2 + G^2\sqrt T + 2 D L \sqrt T`
    (Thm. 4.1.3, reported beside it as ``OGDResult.notes_bound``).
    The delay adds the :math:`\tau` term: :math:`O(\tau G^2 \eta \sqrt T)`
    for the sqrt schedule, so :math:`\eta \propto 1/\sqrt{\tau}` gives the
    paper's :math:`O(\sqrt{\tau T})` (derivation in docs/experts_oco.md).
    ``run`` reports this bound after each round, with the G seen so far.

    Parameters
    ----------
    domain : L2Ball, Simplex, Box or L1Ball
    eta : float, default=1.0
    schedule : {"sqrt", "inverse", "constant"}, default="sqrt"
    delay : int >= 0, default=0
    delayed_rate : {"current", "gradient"}, default="current"
        With a delay, the rate of the round the gradient is applied on
        (:math:`\eta_t`, the notes' Sec. 4.3) or of the round it was taken on
        (:math:`\eta_{t-\tau}`). No effect without a delay.

    Attributes
    ----------
    x_ : ndarray
        The point the learner plays next.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.oco import ProjectedOGD, Simplex
    >>> ogd = ProjectedOGD(Simplex(3), eta=0.5, schedule="constant")
    >>> ogd.predict_one().round(4).tolist()
    [0.3333, 0.3333, 0.3333]
    >>> ogd.learn_one(np.array([1.0, 0.0, 0.0])).x_.round(4).tolist()
    [0.0, 0.5, 0.5]
    >>> rng = np.random.default_rng(0)
    >>> res = ProjectedOGD(Simplex(3)).run(rng.random((200, 3)))   # linear losses g_t . x
    >>> bool(res.bound_holds), res.regret_kind
    (True, 'exact')
    """

    _constraints = {
        "domain": _DomainConstraint(),
        "eta": POSITIVE,
        "schedule": Options("sqrt", "inverse", "constant"),
        "delay": Interval(0, None, integer=True),
        "delayed_rate": Options("current", "gradient"),
    }

    def __init__(self, domain, eta=1.0, schedule="sqrt", delay=0, delayed_rate="current"):
        self.domain = domain
        self.eta = eta
        self.schedule = schedule
        self.delay = delay
        self.delayed_rate = delayed_rate

    # -- state ----------------------------------------------------------------

    def _is_started(self):
        return hasattr(self, "_x")

    def _start(self):
        d = self.domain.dim
        self._x = self.domain.initial_point()
        self._pending = np.zeros((self.delay, d))
        self._state = np.zeros(K.N_STATE)
        self._step = np.empty(d)
        self._scratch = np.empty(d)
        self._max_gradient_norm = 0.0

    def _setup(self):
        """Check the hyperparameters; start the learner if needed."""
        check_params(self, self._constraints)
        if not self._is_started():
            self._start()
        elif self.domain.dim != self._x.size:
            raise ValueError(
                f"domain {self.domain!r} has dimension {self.domain.dim}; the learner plays in R^{self._x.size}"
            )
        elif self.delay != self._pending.shape[0]:
            raise ValueError(f"delay changed from {self._pending.shape[0]} to {self.delay} after learning started")

    @property
    def x_(self):
        """The point played on the coming round."""
        if not self._is_started():
            raise NotFittedError("this ProjectedOGD has not started; call predict_one, learn_one or run first")
        return self._x.copy()

    @property
    def n_rounds_(self):
        """Gradients received so far."""
        return int(self._state[K.S_ROUNDS]) if self._is_started() else 0

    def _check_gradient(self, g, where):
        try:
            g = np.asarray(g, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where} could not be read as a vector of numbers: {err}") from None
        if g.shape != (self.domain.dim,):
            raise ValueError(f"{where} has shape {g.shape}; expected ({self.domain.dim},) like the domain")
        if not np.isfinite(g).all():
            k = int(np.flatnonzero(~np.isfinite(g))[0])
            raise ValueError(f"{where}[{k}] is {g[k]}; expected a finite number")
        return g

    def _round(self, g):
        domain = self.domain
        K.ogd_round(
            g, self._x, self._pending, self._state, domain.low, domain.high, domain.code, domain.radius,
            _SCHEDULES[self.schedule], float(self.eta), self.delay, _DELAYED_RATES[self.delayed_rate], self._step,
            self._scratch,
        )
        self._max_gradient_norm = max(self._max_gradient_norm, float(np.linalg.norm(g)))

    # -- learning -------------------------------------------------------------

    def predict_one(self):
        """The point x_t the learner plays on the coming round."""
        self._setup()
        return self._x.copy()

    def learn_one(self, gradient):
        """Receive round t's (sub)gradient at x_t; returns self.

        ``gradient`` is the vector :math:`g_t`, or a function returning it at a point.
        """
        self._setup()
        g = gradient(self._x.copy()) if callable(gradient) else gradient
        self._round(self._check_gradient(g, "gradient"))
        return self

    def _run_linear(self, losses):
        d = self.domain.dim
        try:
            G = np.asarray(losses, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"losses could not be read as a matrix of gradients: {err}") from None
        if G.ndim != 2 or G.shape[1] != d:
            raise ValueError(f"losses must have shape (rounds, {d}) (one gradient per round); got {G.shape}")
        if not np.isfinite(G).all():
            row, col = np.argwhere(~np.isfinite(G))[0]
            raise ValueError(f"losses has {G[row, col]} at round {row}, coordinate {col}; expected a finite number")
        G = np.ascontiguousarray(G)
        points = np.empty_like(G)
        values = np.empty(G.shape[0])
        domain = self.domain
        K.ogd_linear_pass(
            G, self._x, self._pending, self._state, domain.low, domain.high, domain.code, domain.radius,
            _SCHEDULES[self.schedule], float(self.eta), self.delay, _DELAYED_RATES[self.delayed_rate], self._step,
            self._scratch, points, values,
        )
        if G.shape[0]:
            self._max_gradient_norm = max(self._max_gradient_norm, float(np.linalg.norm(G, axis=1).max()))
        return points, G, values, None

    def _run_general(self, losses):
        """Learn an iterable of losses; the value function of each (None for a bare gradient)."""
        points, gradients, values, value_fns = [], [], [], []
        for t, item in enumerate(losses):
            x = self._x.copy()
            if hasattr(item, "gradient") and hasattr(item, "value"):
                g = self._check_gradient(item.gradient(x), f"the gradient of round {t}")
                fn = item.value
            elif callable(item):
                g = self._check_gradient(item(x), f"the gradient of round {t}")
                fn = None
            else:
                g = self._check_gradient(item, f"the loss of round {t}")
                fn = _LinearValue(g)
            values.append(math.nan if fn is None else float(fn(x)))
            value_fns.append(fn)
            points.append(x)
            gradients.append(g)
            self._round(g)
        d = self.domain.dim
        return np.array(points).reshape(-1, d), np.array(gradients).reshape(-1, d), np.array(values), value_fns

    def _checked_comparator(self, comparator):
        """The comparator as a float array (one point, or one per round), each point in the domain."""
        if comparator is None:
            return None
        d = self.domain.dim
        try:
            Z = np.asarray(comparator, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"comparator could not be read as points of R^{d}: {err}") from None
        if Z.ndim not in (1, 2) or Z.shape[-1] != d:
            raise ValueError(f"comparator must be a point of R^{d} or one point per round; got shape {Z.shape}")
        for t, z in enumerate(np.atleast_2d(Z)):
            if not np.isfinite(z).all() or not self.domain.contains(z, atol=1e-7):
                where = "comparator point" if Z.ndim == 1 else f"comparator point of round {t}"
                raise ValueError(f"{where} is outside {self.domain!r}")
        return Z

    def _comparators(self, Z, gradients):
        """(z_t per round, kind): the given points, or the minimiser of the summed linear losses."""
        T = gradients.shape[0]
        if Z is None:
            z = self.domain.minimize_linear(gradients.sum(axis=0))
            return np.tile(z, (T, 1)), "best"
        if Z.ndim == 1:
            return np.tile(Z, (T, 1)), "given"
        if Z.shape[0] != T:
            raise ValueError(f"comparator has {Z.shape[0]} points; losses has {T} rounds")
        return Z, "given"

    def _applied_rates(self, rounds):
        """a_s: the rate the gradient of round s is applied with (eta_{s + delay}, or eta_s)."""
        shift = self.delay if self.delayed_rate == "current" else 0
        return learning_rates(self.schedule, self.eta, np.asarray(rounds, dtype=np.float64) + shift)

    def run(self, losses, comparator=None):
        """Play and learn every round in order; returns an :class:`OGDResult`.

        Parameters
        ----------
        losses : array-like (rounds, dim), or an iterable of losses
            A matrix holds linear losses :math:`f_t(x) = g_t \\cdot x`, one
            gradient per row (compiled pass). An iterable may mix
            :class:`ConvexLoss` objects (value and gradient), functions
            returning a (sub)gradient at a point, and gradient vectors
            (linear losses).
        comparator : array-like, optional
            A fixed point of the domain, or one point per round (a drifting
            comparator). None compares with the minimiser over the domain of
            :math:`\\sum_t g_t \\cdot z`: for linear losses the best fixed
            point in hindsight.
        """
        self._setup()
        Z = self._checked_comparator(comparator)
        t0 = self.n_rounds_ + 1
        norm_before = self._max_gradient_norm
        if _is_matrix(losses):
            if Z is not None and Z.ndim == 2 and Z.shape[0] != len(losses):
                raise ValueError(f"comparator has {Z.shape[0]} points; losses has {len(losses)} rounds")
            points, gradients, values, value_fns = self._run_linear(losses)
        else:
            points, gradients, values, value_fns = self._run_general(losses)
        T = gradients.shape[0]
        Z, kind = self._comparators(Z, gradients)
        linear_terms = np.einsum("ij,ij->i", gradients, points - Z)
        linearized = np.cumsum(linear_terms)
        if value_fns is None:
            comparator_values = np.einsum("ij,ij->i", gradients, Z)
        else:
            comparator_values = np.array([math.nan if fn is None else float(fn(z)) for fn, z in zip(value_fns, Z)])
        # Exact regret needs every value, and a comparator that means something
        # for non-linear losses (the default one minimises the linearized losses).
        linear_only = value_fns is None or all(isinstance(fn, _LinearValue) for fn in value_fns)
        exact = (linear_only or kind == "given") and not np.isnan(comparator_values).any()
        regret = np.cumsum(values - comparator_values) if exact else linearized
        steps = np.linalg.norm(np.diff(Z, axis=0), axis=1)
        path = np.concatenate([[0.0], np.cumsum(steps)]) if T else np.zeros(0)
        norms = np.linalg.norm(gradients, axis=1)
        G = np.maximum.accumulate(np.maximum(norms, norm_before)) if T else np.zeros(0)
        rates = self._applied_rates(np.arange(t0, t0 + T, dtype=np.float64))
        summed = np.cumsum(rates)
        early = self._applied_rates(np.arange(max(1, t0 - self.delay), t0)).sum()
        D = self.domain.diameter
        delayed = self.delay * (early + summed - rates)
        bound = D * D / (2.0 * rates) + D * path / rates + G * G * (0.5 * summed + delayed)
        notes = np.full(T, math.nan)
        if self.schedule == "sqrt" and self.eta == 1.0 and self.delay == 0 and t0 == 1:
            root = np.sqrt(np.arange(1, T + 1, dtype=np.float64))
            notes = (0.5 * D * D + G * G + 2.0 * D * path) * root
        return OGDResult(
            n_rounds=T,
            diameter=D,
            delay=self.delay,
            regret_kind="exact" if exact else "linearized",
            points=points,
            gradients=gradients,
            losses=values,
            comparator_losses=comparator_values,
            comparator=Z,
            regret=regret,
            linearized_regret=linearized,
            regret_bound=bound,
            path_length=path,
            gradient_norms=norms,
            learning_rates=rates,
            notes_bound=notes,
        )
