r"""Binary prediction from binary advice: Halving, Weighted Majority and its randomized version.

All three are one move on log-weights (:mod:`olearn._kernels._experts`): after
each round every expert that was wrong has its weight multiplied by
:math:`\beta` (Halving: :math:`\beta = 0`, the expert drops out). They differ
in how they predict from the weights :math:`w_i` and the advice
:math:`x_{t,i} \in \{0, 1\}`: with :math:`W^1_t = \sum_{i: x_{t,i} = 1} w_i`
and :math:`W_t = \sum_i w_i`,

* Halving and Weighted Majority predict 1 when :math:`W^1_t \ge W_t / 2`;
* Randomized Weighted Majority predicts 1 with probability :math:`W^1_t / W_t`.

The weights are kept as :math:`\beta^{M_i - \min_j M_j}` computed from the
mistake counts :math:`M_i`, so that experts with as many mistakes tie exactly
(ties of the vote go to 1), and a change of beta applies to the whole history.
"""

import math

import numpy as np

from .._kernels import _experts as K
from .._params import Interval
from ._base import AdviceLearner

_BETA = Interval(0, 1, closed="neither")


class Halving(AdviceLearner):
    r"""The Halving algorithm: majority vote of the experts consistent with every outcome so far.

    .. math:: \hat y_t = [\,|\{i \in C_t : x_{t,i} = 1\}| \ge |C_t|/2\,], \qquad
              C_{t+1} = \{i \in C_t : x_{t,i} = y_t\}.

    Each mistake removes at least half of :math:`C_t`, so when one expert is
    perfect the learner makes at most :math:`\log_2 n` mistakes (Barzdin &
    Freivald 1972, Angluin 1988, Littlestone 1988; the UCL slides, Part I).
    This is Weighted Majority with :math:`\beta = 0`. If every expert has
    been wrong once, the assumption is broken and learning stops with a
    ValueError naming the round.

    Attributes
    ----------
    weights_ : ndarray
        Uniform over the consistent experts, 0 elsewhere.

    Examples
    --------
    >>> from olearn.experts import Halving
    >>> advice = [[0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 1]]
    >>> res = Halving().run(advice, [0, 1, 1])      # expert 1 is perfect
    >>> res.n_mistakes, float(res.loss_bound[-1])
    (1, 2.0)
    >>> Halving().run(advice, [0, 1, 1]).predictions.tolist()
    [1.0, 1.0, 1.0]
    """

    bound_formula = "log2 n (one expert is perfect)"

    def _kernel_args(self):
        return math.inf, K.VOTE_MAJORITY, 0

    def _no_survivor(self, round_index):
        raise ValueError(
            f"Halving: at round {round_index} every expert has been wrong at least once, so no expert is "
            "perfect as Halving assumes; the learner keeps the rounds before it (use WeightedMajority for "
            "imperfect experts)"
        )

    def _loss_bound(self, best_losses, rounds):
        return np.full(best_losses.shape, math.log2(self.n_experts_))

    @property
    def consistent_(self):
        """Indices of the experts that have never been wrong."""
        self._check_started()
        return np.flatnonzero(self._log_w == 0.0)


class WeightedMajority(AdviceLearner):
    r"""Weighted Majority (Littlestone & Warmuth 1994): multiply wrong experts by beta.

    .. math:: \hat y_t = [\,W^1_t \ge W_t / 2\,], \qquad
              w_{t+1,i} = w_{t,i}\, \beta^{[x_{t,i} \ne y_t]}.

    On each mistake at least half of the weight is on wrong experts, so the
    total weight shrinks by at least :math:`(1+\beta)/2`; comparing with the
    weight :math:`\beta^{M_i}/n` of expert i gives, for every i,

    .. math:: M \le \frac{\ln(1/\beta)\, M_i + \ln n}{\ln\frac{2}{1+\beta}}

    (UCL slides, Part I). With :math:`\beta = 1/e` both constants are
    :math:`1/\ln(2e/(e+1)) \approx 2.63`: :math:`M \le 2.63\,(M_i + \ln n)`.
    ``run`` reports this bound for the best expert after each round.

    Parameters
    ----------
    beta : float in (0, 1), default=0.5

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.experts import WeightedMajority
    >>> wm = WeightedMajority(beta=0.5).learn_one([1, 0, 0], 0)
    >>> wm.weights_.round(3).tolist()
    [0.2, 0.4, 0.4]
    >>> res = WeightedMajority(beta=1 / np.e).run([[1, 0, 0], [1, 1, 0]], [0, 0])
    >>> res.n_mistakes, round(float(res.loss_bound[-1]), 3)    # 2.63 * (0 + ln 3)
    (1, 2.892)
    """

    bound_formula = "(ln(1/beta) M* + ln n) / ln(2/(1+beta))"

    _constraints = {"beta": _BETA}

    def __init__(self, beta=0.5):
        self.beta = beta

    def _kernel_args(self):
        return math.log(1.0 / self.beta), K.VOTE_MAJORITY, 0

    def _loss_bound(self, best_losses, rounds):
        beta = self.beta
        return (math.log(1.0 / beta) * best_losses + math.log(self.n_experts_)) / math.log(2.0 / (1.0 + beta))


class RandomizedWeightedMajority(AdviceLearner):
    r"""Randomized Weighted Majority (Littlestone & Warmuth 1994; the UCL slides' problem 2).

    .. math:: P(\hat y_t = 1) = W^1_t / W_t, \qquad w_{t+1,i} = w_{t,i}\, \beta^{[x_{t,i} \ne y_t]}.

    The probability of a mistake on round t is the fraction :math:`F_t` of
    weight on wrong experts, and :math:`W_{t+1} = W_t (1 - (1-\beta) F_t)`,
    so the expected number of mistakes obeys, for every expert i,

    .. math:: \mathbb E[M] = \sum_t F_t \le \frac{\ln(1/\beta)\, M_i + \ln n}{1 - \beta}.

    ``run`` reports the expected mistakes (``expected_losses``) against this
    bound, and the mistakes actually made with the draws (``losses``,
    ``n_mistakes``). The draws come from ``numpy.random.default_rng(random_state)``,
    one uniform per round in round order, so ``run`` and ``learn_one`` agree,
    and ``predict_one`` keeps its draw for the round's ``learn_one``.

    Parameters
    ----------
    beta : float in (0, 1), default=0.5
    random_state : int, numpy Generator or None, default=None

    Examples
    --------
    >>> from olearn.experts import RandomizedWeightedMajority
    >>> advice, y = [[1, 0], [1, 0], [0, 1], [1, 0]], [1, 1, 1, 1]
    >>> a = RandomizedWeightedMajority(beta=0.5, random_state=7).run(advice, y)
    >>> b = RandomizedWeightedMajority(beta=0.5, random_state=7).run(advice, y)
    >>> a.predictions.tolist() == b.predictions.tolist()
    True
    >>> a.expected_losses.round(3).tolist()
    [0.5, 0.333, 0.8, 0.333]
    """

    bound_formula = "(ln(1/beta) M* + ln n) / (1 - beta), on expected mistakes"

    _constraints = {"beta": _BETA}
    _has_rng = True

    def __init__(self, beta=0.5, random_state=None):
        self.beta = beta
        self.random_state = random_state

    def _kernel_args(self):
        return math.log(1.0 / self.beta), K.VOTE_RANDOMIZED, 0

    def _loss_bound(self, best_losses, rounds):
        beta = self.beta
        return (math.log(1.0 / beta) * best_losses + math.log(self.n_experts_)) / (1.0 - beta)
