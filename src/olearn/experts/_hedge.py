r"""The allocation setting: Hedge and Fixed Share.

On each round the learner spreads one unit over n experts (the allocation
:math:`p_t`), then sees the loss vector :math:`\ell_t` and pays
:math:`p_t \cdot \ell_t` (or, randomized, the loss of one expert drawn from
:math:`p_t`). Both learners make the exponential-weights move

.. math:: w_{t+1,i} = w_{t,i}\, e^{-\eta\, \ell_{t,i}},

and Fixed Share then lets every expert pass a fraction alpha of its weight to
the others, so that an expert that was bad for a while can recover quickly.
"""

import math
import numbers

import numpy as np

from .._kernels import _experts as K
from .._params import BOOLEAN, POSITIVE_FINITE, Interval, NoneOr
from ..exceptions import NotFittedError
from ._base import ExpertsLearner, as_vector, chunks_of, first_outside

_COUNT = NoneOr(Interval(1, None, integer=True))


class LossRange:
    """None, or a pair (low, high) of finite numbers with low < high."""

    def accepts(self, value):
        if value is None:
            return True
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            return False
        low, high = value
        for v in (low, high):
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                return False
        return low < high

    def describe(self):
        return "None or a pair (low, high) of finite numbers with low < high"


class AllocationLearner(ExpertsLearner):
    """Experts given by their losses: ``predict_one()``, ``learn_one(loss_vector)``, ``run(losses)``.

    Subclasses define ``_kernel_config()`` -> (eta, alpha, doubling).
    """

    def _range(self):
        """(low, high - low) of the losses."""
        low, high = (0.0, 1.0) if self.loss_range is None else (float(self.loss_range[0]), float(self.loss_range[1]))
        return low, high - low

    def _ensure_started(self, n_experts, name):
        if not self._is_started() and self.n_experts is not None:
            self._start(self.n_experts)
        super()._ensure_started(n_experts, name)

    def _check_losses(self, matrix, offset):
        low, scale = self._range()
        where = first_outside(matrix, low, low + scale)
        if where is not None:
            row, col = where
            assumed = "[0, 1]" if self.loss_range is None else f"loss_range=[{low:g}, {low + scale:g}]"
            raise ValueError(
                f"losses has {matrix[row, col]} at round {offset + row}, expert {col}; {type(self).__name__} "
                f"assumes losses in {assumed} (its bound depends on it); pass loss_range=(low, high) "
                "to rescale other bounded losses"
            )

    def predict_one(self):
        """The allocation of the coming round (randomized Hedge: the expert drawn from it)."""
        self._check_params()
        if not self._is_started():
            if self.n_experts is None:
                raise NotFittedError(
                    f"this {type(self).__name__} does not know the number of experts yet; call learn_one or "
                    "run first, or set n_experts"
                )
            self._start(self.n_experts)
        weights = self.weights_
        if self._is_random():
            return int(K.choose_expert(weights, self._draw_one()))
        return weights

    def learn_one(self, loss_vector):
        """Pay the round's loss and update the weights; returns self."""
        self._check_params()
        losses = as_vector(loss_vector, "loss_vector")
        self._check_losses(losses[None, :], 0)
        self._ensure_started(losses.size, "loss_vector")
        eta, alpha, doubling = self._kernel_config()
        low, scale = self._range()
        K.allocation_round(
            losses, self._uniforms(1)[0], self._log_w, self._expert_losses, self._state,
            low, scale, eta, alpha, doubling, self._is_random(), np.empty(losses.size),
        )
        return self

    def _pass(self, losses, comparator=None):
        """Learn every row of ``losses``; returns the per-chunk outputs and the comparator's losses."""
        self._check_params()
        rounds_before = self.n_rounds_ if self._is_started() else 0
        parts = []
        comparator_losses = []
        for offset, matrix in chunks_of(losses, "losses"):
            self._check_losses(matrix, offset)
            self._ensure_started(matrix.shape[1], "losses")
            eta, alpha, doubling = self._kernel_config()
            low, scale = self._range()
            m, n = matrix.shape
            if comparator is not None:
                picks = comparator[offset : offset + m]
                if picks.size < m:
                    raise ValueError(f"comparator has {comparator.size} entries; losses has more rounds")
                if picks.max() >= n:
                    raise ValueError(f"comparator names expert {picks.max()}; there are {n} experts")
                comparator_losses.append(matrix[np.arange(m), picks])
            part = {key: np.empty(m) for key in ("losses", "expected_losses", "best_losses", "etas")}
            choices = np.empty(m, dtype=np.int64)
            K.allocation_pass(
                matrix, self._uniforms(m), self._log_w, self._expert_losses, self._state,
                low, scale, eta, alpha, doubling, self._is_random(), np.empty(n),
                choices, part["losses"], part["expected_losses"], part["best_losses"], part["etas"],
            )
            part["predictions"] = choices if self._is_random() else np.empty(0, dtype=np.int64)
            parts.append(part)
        if not self._is_started():
            raise ValueError("losses has no rounds; a run needs at least one")
        return parts, rounds_before, comparator_losses


class Hedge(AllocationLearner):
    r"""Hedge (Freund & Schapire 1997): exponential weights over experts in the allocation setting.

    .. math:: p_{t,i} = \frac{e^{-\eta L_{t-1,i}}}{\sum_j e^{-\eta L_{t-1,j}}}, \qquad
              \text{loss}_t = p_t \cdot \ell_t \quad (\ell_t \in [0, 1]^n).

    With :math:`e^{-x} \le 1 - x + x^2/2` for :math:`x \ge 0`, for every
    expert i and every m (UCL slides, Part I, HA-1; Shalev-Shwartz & Ben-David 2014, Thm. 21.11)

    .. math:: L_{\text{Hedge}} - L_i \le \frac{\ln n}{\eta} + \frac{\eta\, m}{2},

    which :math:`\eta = \sqrt{2 \ln n / m}` makes :math:`\sqrt{2 m \ln n}`.
    With ``randomized=True`` the learner draws one expert from :math:`p_t`
    and pays its loss (HA-2); the bound holds for the expected loss, which
    ``run`` reports as ``expected_losses``.

    Learning rate: ``eta`` if given; else :math:`\sqrt{2 \ln n / m}` when the
    ``horizon`` m is given; else the doubling trick: epoch r = 0, 1, ...
    covers rounds :math:`[2^r, 2^{r+1})`, restarts from uniform weights and
    uses :math:`\eta_r = \sqrt{2 \ln n / 2^r}`, so that the regret is at
    most :math:`\sum_r \sqrt{2 \cdot 2^r \ln n} \le \frac{\sqrt 2}{\sqrt 2 - 1}\sqrt{2 m \ln n}`.
    ``run`` reports the exact bound of each case after each round.

    Losses must lie in [0, 1]; for other bounded losses give
    ``loss_range=(low, high)``: the update then uses
    :math:`(\ell - \text{low}) / (\text{high} - \text{low})` and the bound is
    multiplied by high - low. Out-of-range losses raise ValueError.

    Parameters
    ----------
    eta : float or None, default=None
    horizon : int or None, default=None
        The number of rounds m, to tune eta when ``eta`` is None.
    randomized : bool, default=False
    random_state : int, numpy Generator or None, default=None
        Seeds the draws of ``randomized=True`` (one uniform per round).
    loss_range : (float, float) or None, default=None
        Range of the losses; None means [0, 1].
    n_experts : int or None, default=None
        Lets ``predict_one`` answer before the first loss vector.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.experts import Hedge
    >>> losses = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> hedge = Hedge(eta=1.0).learn_one(losses[0])
    >>> hedge.weights_.round(3).tolist()           # 1 / (1 + e), e / (1 + e)
    [0.269, 0.731]
    >>> res = Hedge(horizon=3).run(losses)
    >>> round(float(res.regret_bound[-1]), 3)     # sqrt(2 * 3 * ln 2)
    2.039
    >>> Hedge(loss_range=(0, 10)).run([[3.0, 12.0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: losses has 12.0 at round 0, expert 1; Hedge assumes losses in loss_range=[0, 10] ...
    """

    _constraints = {
        "eta": NoneOr(POSITIVE_FINITE),
        "horizon": _COUNT,
        "randomized": BOOLEAN,
        "loss_range": LossRange(),
        "n_experts": _COUNT,
    }
    _has_rng = True

    def __init__(self, eta=None, horizon=None, randomized=False, random_state=None, loss_range=None, n_experts=None):
        self.eta = eta
        self.horizon = horizon
        self.randomized = randomized
        self.random_state = random_state
        self.loss_range = loss_range
        self.n_experts = n_experts

    @property
    def bound_formula(self):
        if self.eta is None and self.horizon is None:
            return "doubling trick: sum over epochs of sqrt(2 2^r ln n)"
        return "L* + ln(n)/eta + eta t/2" + (" (= sqrt(2 m ln n) at t = m)" if self.eta is None else "")

    def _is_random(self):
        return self.randomized

    def _kernel_config(self):
        if self.eta is not None:
            return float(self.eta), 0.0, False
        if self.horizon is not None:
            return math.sqrt(2.0 * math.log(self.n_experts_) / self.horizon), 0.0, False
        return 0.0, 0.0, True

    def run(self, losses):
        """Learn every round of ``losses`` in order; returns an :class:`ExpertsResult`.

        Parameters
        ----------
        losses : array-like (rounds, experts), or an iterable of loss vectors
        """
        parts, rounds_before, _ = self._pass(losses)
        return self._result(parts, rounds_before)

    def _loss_bound(self, best_losses, rounds):
        _, scale = self._range()
        log_n = math.log(self.n_experts_)
        if log_n == 0.0:
            return best_losses.copy()
        eta, _, doubling = self._kernel_config()
        if not doubling:
            return best_losses + scale * (log_n / eta + eta * rounds / 2.0)
        epoch = np.floor(np.log2(rounds))
        epoch += 2.0 ** (epoch + 1) <= rounds  # guard the rounding of log2 at powers of two
        start = 2.0**epoch
        rate = np.sqrt(2.0 * log_n / start)
        finished = math.sqrt(2.0 * log_n) * (2.0 ** (epoch / 2.0) - 1.0) / (math.sqrt(2.0) - 1.0)
        current = log_n / rate + rate * (rounds - start + 1.0) / 2.0
        return best_losses + scale * (finished + current)


class FixedShare(AllocationLearner):
    r"""Fixed Share (Herbster & Warmuth 1998): Hedge that tracks the best expert as it changes.

    After the loss update :math:`v_{t,i} \propto w_{t,i} e^{-\eta \ell_{t,i}}`
    (normalised), each expert keeps :math:`1 - \alpha` of its weight and the
    rest is shared equally among the other experts:

    .. math:: w_{t+1,i} = (1 - \alpha)\, v_{t,i} + \frac{\alpha}{n - 1}\,(1 - v_{t,i}).

    The share never changes the total weight, and every switch of the
    comparator costs at most a factor :math:`\alpha/(n-1)`, so for any
    sequence of experts :math:`u_1, \dots, u_T` with k switches and losses in [0, 1]

    .. math:: L_{\text{FS}} - \sum_t \ell_{t,u_t} \le \frac{\ln n + k \ln\frac{n-1}{\alpha}
              + (T - 1 - k) \ln\frac{1}{1-\alpha}}{\eta} + \frac{\eta T}{2}

    (the second-order step :math:`e^{-x} \le 1 - x + x^2/2` as for Hedge).
    ``run`` reports the case k = 0 against the best fixed expert, and, when
    given a ``comparator`` sequence, the regret to it and its bound. With
    ``alpha=0`` this is Hedge with a fixed eta. ``loss_range`` works as for
    :class:`Hedge`.

    Parameters
    ----------
    eta : float, default=0.5
    alpha : float in [0, 1), default=0.01
    loss_range : (float, float) or None, default=None
    n_experts : int or None, default=None

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.experts import FixedShare, Hedge
    >>> losses = np.array([[0.0, 1.0]] * 50 + [[1.0, 0.0]] * 50)    # the best expert switches
    >>> fs = FixedShare(eta=1.0, alpha=0.05).run(losses, comparator=[0] * 50 + [1] * 50)
    >>> hedge = Hedge(eta=1.0).run(losses)
    >>> bool(fs.cumulative_loss < hedge.cumulative_loss)
    True
    >>> bool(np.all(fs.comparator_regret <= fs.comparator_bound))
    True
    """

    _constraints = {
        "eta": POSITIVE_FINITE,
        "alpha": Interval(0, 1, closed="left"),
        "loss_range": LossRange(),
        "n_experts": _COUNT,
    }

    bound_formula = "L* + (ln n + (t-1) ln(1/(1-alpha)))/eta + eta t/2"

    def __init__(self, eta=0.5, alpha=0.01, loss_range=None, n_experts=None):
        self.eta = eta
        self.alpha = alpha
        self.loss_range = loss_range
        self.n_experts = n_experts

    def _kernel_config(self):
        return float(self.eta), float(self.alpha), False

    def _shifting_bound(self, rounds, switches):
        """The bound on regret to a sequence with ``switches`` switches up to each round (loss units)."""
        _, scale = self._range()
        n, alpha, eta = self.n_experts_, self.alpha, self.eta
        # A switch costs ln((n-1)/alpha), infinite without sharing; no switch costs nothing.
        per_switch = math.log((n - 1) / alpha) if n > 1 and alpha > 0 else math.inf
        stay = -math.log1p(-alpha)
        switch_cost = np.zeros_like(switches)
        switched = switches > 0
        switch_cost[switched] = switches[switched] * per_switch
        return scale * ((math.log(n) + switch_cost + (rounds - 1 - switches) * stay) / eta + eta * rounds / 2.0)

    def _loss_bound(self, best_losses, rounds):
        return best_losses + self._shifting_bound(rounds, np.zeros_like(rounds))

    def run(self, losses, comparator=None):
        """Learn every round of ``losses`` in order; returns an :class:`ExpertsResult`.

        Parameters
        ----------
        losses : array-like (rounds, experts), or an iterable of loss vectors
        comparator : array-like of int, optional
            An expert index per round: the regret to this sequence and its
            bound (with k its number of switches so far) are then reported
            as ``comparator_regret`` and ``comparator_bound``. Needs a learner
            that has not learned any round yet (the bound starts from uniform weights).
        """
        sequence = None
        if comparator is not None:
            if self._is_started() and self.n_rounds_ > 0:
                raise ValueError(
                    "FixedShare.run: a comparator needs a learner that has not learned any round yet "
                    f"(this one has learned {self.n_rounds_}); its bound starts from uniform weights"
                )
            sequence = np.asarray(comparator)
            if sequence.ndim != 1 or sequence.dtype.kind not in "iu" or (sequence < 0).any():
                raise ValueError("comparator must be a 1-d sequence of expert indices (integers >= 0), one per round")
            sequence = sequence.astype(np.int64)
        parts, rounds_before, comparator_losses = self._pass(losses, sequence)
        if sequence is None:
            return self._result(parts, rounds_before)
        n_rounds = sum(p["losses"].size for p in parts)
        if sequence.size != n_rounds:
            raise ValueError(f"comparator has {sequence.size} entries; losses has {n_rounds} rounds")
        switches = np.concatenate([[0.0], np.cumsum(sequence[1:] != sequence[:-1])])
        rounds = np.arange(1.0, n_rounds + 1.0)
        expected = np.concatenate([p["expected_losses"] for p in parts])
        regret = np.cumsum(expected) - np.cumsum(np.concatenate(comparator_losses))
        return self._result(
            parts, rounds_before, comparator_regret=regret, comparator_bound=self._shifting_bound(rounds, switches)
        )
