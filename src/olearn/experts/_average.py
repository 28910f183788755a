r"""The weighted average algorithm: predictions in [0, 1], weights exp(-eta L_i)."""

import math

import numpy as np

from .._kernels import _experts as K
from .._params import POSITIVE, NoneOr, Options
from ._base import AdviceLearner, first_outside

_LOSSES = {"entropic": K.LOSS_ENTROPIC, "square": K.LOSS_SQUARE, "absolute": K.LOSS_ABSOLUTE}

# Default eta per loss (the UCL slides): the largest eta for which exp(-eta * loss)
# is concave in the prediction, the condition of the ln(n)/eta regret bound.
DEFAULT_ETA = {"entropic": 1.0, "square": 0.5, "absolute": 1.0}
EXP_CONCAVE_ETA = {"entropic": 1.0, "square": 0.5}


class WeightedAverage(AdviceLearner):
    r"""Predict the weighted mean of the advice; weights decay as exp(-eta * loss).

    With advice :math:`x_{t,i} \in [0, 1]`, outcomes :math:`y_t \in [0, 1]`
    and :math:`L_{t,i}` the cumulative loss of expert i before round t,

    .. math:: \hat y_t = \sum_i v_{t,i}\, x_{t,i}, \qquad
              v_{t,i} = \frac{e^{-\eta L_{t,i}}}{\sum_j e^{-\eta L_{t,j}}}.

    Losses: entropic :math:`y \ln\frac{y}{p} + (1-y) \ln\frac{1-y}{1-p}`
    (the log loss when y is 0 or 1), square :math:`(y - p)^2`, absolute
    :math:`|y - p|`. When :math:`e^{-\eta L(y, p)}` is concave in p
    (entropic: :math:`\eta \le 1`; square: :math:`\eta \le 1/2`), Jensen's
    inequality gives, for every expert i (UCL slides, Part I),

    .. math:: L_A \le L_i + \frac{\ln n}{\eta}.

    For the absolute loss, :math:`e^{-\eta \ell} \le 1 - (1 - e^{-\eta})\ell`
    on [0, 1] gives (Littlestone & Warmuth 1994, algorithm WMC)

    .. math:: L_A \le \frac{\eta L_i + \ln n}{1 - e^{-\eta}}.

    ``run`` reports these bounds for the best expert (NaN for an entropic or
    square loss with eta above its concavity limit, where no bound is claimed).
    The weights live in the log domain, so an expert with an infinite
    entropic loss (advice 0 on outcome 1) just drops out.

    Parameters
    ----------
    eta : float or None, default=None
        Learning rate; None takes the slides' value for the loss (entropic 1,
        square 1/2, absolute 1).
    loss : {"entropic", "square", "absolute"}, default="square"

    Examples
    --------
    >>> from olearn.experts import WeightedAverage
    >>> wa = WeightedAverage(loss="entropic").learn_one([0.9, 0.1], 1)
    >>> wa.weights_.round(3).tolist()            # the Bayes posterior for eta = 1
    [0.9, 0.1]
    >>> round(wa.predict_one([0.9, 0.1]), 3)
    0.82
    >>> res = WeightedAverage(loss="square").run([[0.2, 1.0], [0.4, 0.9]], [1, 1])
    >>> bool(res.regret[-1] <= res.regret_bound[-1])   # ln(2) / (1/2)
    True
    """

    _constraints = {"eta": NoneOr(POSITIVE), "loss": Options("entropic", "square", "absolute")}
    _counts_mistakes = False

    def __init__(self, eta=None, loss="square"):
        self.eta = eta
        self.loss = loss

    @property
    def bound_formula(self):
        if self.loss == "absolute":
            return "(eta L* + ln n) / (1 - exp(-eta))"
        return f"L* + ln(n)/eta (eta <= {EXP_CONCAVE_ETA[self.loss]:g})"

    def _eta(self):
        return DEFAULT_ETA[self.loss] if self.eta is None else float(self.eta)

    def _kernel_args(self):
        return self._eta(), K.VOTE_AVERAGE, _LOSSES[self.loss]

    def _check_values(self, matrix, y, offset):
        for name, values in (("advice", matrix), ("y", y)):
            where = first_outside(np.atleast_2d(values), 0.0, 1.0)
            if where is not None:
                row, col = where
                at = f"round {offset + col}" if values.ndim == 1 else f"round {offset + row}, expert {col}"
                value = values[col] if values.ndim == 1 else values[row, col]
                raise ValueError(
                    f"{name} has {value} at {at}; WeightedAverage takes advice and outcomes in [0, 1] "
                    "(rescale them first)"
                )

    def _loss_bound(self, best_losses, rounds):
        eta = self._eta()
        log_n = math.log(self.n_experts_)
        if self.loss == "absolute":
            return (eta * best_losses + log_n) / -math.expm1(-eta)
        if eta > EXP_CONCAVE_ETA[self.loss]:
            return np.full(best_losses.shape, np.nan)
        return best_losses + log_n / eta
