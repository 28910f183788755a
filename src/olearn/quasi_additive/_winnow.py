"""Winnow as a quasi-additive learner (Shalev-Shwartz & Singer 2006, Sec. 4, Example 2)."""

import numpy as np

from .._docstrings import shared_entries
from .._kernels import _codes
from .._kernels import _quasi_additive as qa
from .._params import BOOLEAN, POSITIVE_FINITE
from .._validation import CSRArrays
from .._weights import UNWEIGHTED
from ._base import QuasiAdditiveClassifier, average_jump, relink, widened
from ..linear._binary import PlattCalibrated

# the arrays of the model of the other encoding, as saved
_OTHER = ("theta", "weights", "state", "average_sum", "average_count")


@shared_entries
class Winnow(PlattCalibrated, QuasiAdditiveClassifier):
    r"""Winnow: multiplicative updates on a simplex, the plain or the balanced form.

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006, Sec. 4, Example 2: the conservative dual update (Eq. 16) with F
    the relative entropy to the uniform distribution on a simplex. On a
    mistake (:math:`y_t\, w_t \cdot x_t \le 0`) :math:`\theta_{t+1} = \theta_t + C\, y_t x_t`.

    * ``balanced=False`` is Eq. (25)-(26) exactly: n positive weights on the
      n-simplex, :math:`F(w) = \sum_i w_i \log(n w_i)`,
      :math:`G(\theta) = \log \sum_i e^{\theta_i}` and

      .. math:: w_{t+1,k} = \frac{e^{\theta_{t+1,k}}}{\sum_i e^{\theta_{t+1,i}}}
          = \frac{1}{Z_t} e^{C y_t x_{t,k}} w_{t,k}.

      Its weights are positive, so it can only learn targets whose
      competitor u lies on the simplex (to learn a negative weight, feed the
      feature negated too).
    * ``balanced=True`` (the default) runs the same algorithm on the lifted
      instance :math:`(x, -x)`: 2n positive weights :math:`(w^+, w^-)` on the
      2n-simplex, predicting with :math:`w = w^+ - w^-`, so

      .. math:: w_{t+1,i} = \frac{e^{\theta_{t+1,i}} - e^{-\theta_{t+1,i}}}
                             {\sum_j \big(e^{\theta_{t+1,j}} + e^{-\theta_{t+1,j}}\big)}.

      This is the Balanced Winnow of Grove, Littlestone & Schuurmans that the
      paper names in Example 2's title; it competes with every u of
      :math:`\|u\|_1 \le 1`, signs included, which is why it is the default.

    Both normalizers are evaluated as a log-sum-exp (shifted by the largest
    :math:`\theta`), so no stream, however long or adversarial, overflows
    them. Mistake bounds: :func:`olearn.bounds.winnow_mistake_bound` (Thm. 1
    with either F) and :func:`olearn.bounds.winnow_gamma_bound` (the text's
    C = gamma form).

    The uniform prior counts the features seen so far (or ``n_features``), and
    the intercept's constant feature when ``fit_intercept=True``: a feature
    seen for the first time enters with :math:`\theta_i = 0` and takes its
    share of the mass. This conservative update looks only at the signs of
    scores, which the text's fixed n (Eq. (25)) does not change; the
    aggressive and window updates of
    :class:`~olearn.dual.DualAscent` depend on n and keep it fixed. Rows with :math:`\|x\|_2^2` beyond the floating-point
    range are refused (FloatingPointError): the mistake bounds are stated in
    :math:`R_\infty = \max_t \|x_t\|_\infty`, which would be infinite.

    Labels: the balanced form is odd in the labels (learning on -y gives -w),
    so when a stream shows one class first and the second sorts after it,
    negating theta gives the model of the final encoding. The plain form is
    not odd (its weights are positive; the rounds that are mistakes depend on
    the sign of y): while one class is known it also learns, beside the model
    that encodes that class +1 (the one that predicts), the model that encodes
    it -1, and keeps the latter if the second class sorts after the first. The
    model is then the one learned with both classes known from the start, as
    for every other learner.

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). In the dual view (Sec. 3) an example of weight c enters the primal
    as :math:`c\,C\,[\gamma - y\, w\cdot x]_+`, so its dual variable lives in
    :math:`[0, cC]`, and Eq. (16) sets it to the top of that box: on a mistake
    :math:`\theta_{t+1} = \theta_t + cC\, y_t x_t`. c = 0 leaves the model
    unchanged (only the round counter moves). A round of weight 2 is one step
    of 2C, not two rounds (the second would see the updated margin).

    Parameters
    ----------
    C : float, default=1.0
        The step of theta on a mistake (Winnow's learning rate), finite and > 0.
    balanced : bool, default=True
        The 2n lift (True) or Eq. (25)-(26) on the n-simplex (False).
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension (and the prior); a larger feature index is then an error.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
        The weights averaged are :math:`w = g(\theta)`, not :math:`\theta`.
    class_weight : dict, "balanced" or None, default=None
        <shared entry: class_weight>
    n_bits : int or None, default=None
        <shared entry: n_bits>
    calibration : None or "platt", default=None
        As in :class:`~olearn.PAClassifier`: class probabilities learned online
        from the scores (beyond the source texts); not with ``average``.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.quasi_additive import Winnow
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> clf = Winnow(C=1.0).partial_fit(X, [1, -1])     # two mistakes: theta = (1, -1)
    >>> clf.coef_                               # +-sinh(1) / (2 cosh(1)) = +-tanh(1)/2
    array([[ 0.38079708, -0.38079708]])
    >>> plain = Winnow(balanced=False, n_features=3).partial_fit([[1.0, 0.0, 0.0]], [-1], classes=[-1, 1])
    >>> plain.coef_.round(4)                    # theta = (-1, 0, 0): (e^-1, 1, 1) / (e^-1 + 2)
    array([[0.1554, 0.4223, 0.4223]])
    """

    _weight_and_copies = (
        "a mistaken row of weight c is one step of cC, while its copies stop updating once one of them is "
        "classified right"
    )

    _constraints = {"C": POSITIVE_FINITE, "balanced": BOOLEAN}
    # (theta, w, state) learned with the one class seen so far encoded -1, or None
    _learned = (*QuasiAdditiveClassifier._learned, "_other")
    _other = None

    def __init__(self, C=1.0, balanced=True, fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.C = C
        self.balanced = balanced
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.class_weight = class_weight
        self.n_bits = n_bits
        self.calibration = calibration

    def _kernel_config(self):
        link = qa.LINK_ENTROPY if self.balanced else qa.LINK_SIMPLEX
        codes = {"Q_LINK": link, "Q_UPDATE": qa.UPDATE_CONSERVATIVE}
        return codes, {"Q_C": self.C}

    # -- one class known: the model of the other encoding ----------------------
    # _other is (theta, w, state, avg, avg_count): avg and avg_count are the average's
    # state, empty arrays when not averaging

    def _grow(self, n_features, where):
        if self._other is not None and n_features > self.n_features_in_:
            self._check_feature_limit(n_features, where)
            # w keeps its old values until relinked: the average takes the change (see _refresh_weights)
            self._other = tuple(widened(a, n_features) if a.size and i in (0, 1, 3) else a
                                for i, a in enumerate(self._other))
        super()._grow(n_features, where)

    def _refresh_weights(self, codes, params):
        super()._refresh_weights(codes, params)
        if self._other is not None:
            theta, w, state, avg, count = self._other
            old = w.copy()
            relink(theta, w, state, codes, params)
            if avg.size:
                average_jump(w, old, state, avg, count, params)

    def _observe_labels(self, y, classes=None):
        super()._observe_labels(y, classes)
        if self._labels.classes.size == 2:
            self._other = None

    def _flip(self):
        if self._other is None:
            # only the balanced form learns without it: its link is odd, negation is exact
            super()._flip()
            return
        self._theta, self._w, self._state, avg, count = self._other
        if avg.size:
            self._avg_sum, self._avg_count = avg, count
            self._interleave()

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """The base's masked pass; while one class is known (plain form), the model of the other encoding learns
        the same learned rows, with the same mask, as :meth:`_run_kernel` has it learn them (no class known: every
        row is held out, and only scored)."""
        classes = self._labels.classes
        if classes is None or classes.size == 2 or (self.balanced and self._other is None):
            return super()._held_out_kernel(arrays, targets, weights, held, outputs)
        codes, params = self._config_arrays()
        self._start_other(codes, params)
        other, stopped = self._other_pass(arrays, arrays.n_rows, targets, weights, codes, params, held)
        if stopped < 0:
            stopped = super()._held_out_kernel(arrays, targets, weights, held, outputs)
        if stopped < 0:
            self._other = other
        return stopped  # on a stop, the chunk is put back whole (olearn._held_out)

    def _start_other(self, codes, params):
        """The model of the other encoding, made from this one when there is none yet."""
        if self._other is None:
            # what was learned so far was learned by an odd link (or nothing was): its negation is exact
            avg, count = self._averaging_arrays()
            theta = -self._theta
            self._other = (theta, np.zeros(theta.size), self._state.copy(), -avg, count.copy())
            relink(*self._other[:3], codes, params)

    def _run_kernel(self, arrays, targets, weights, codes, params, scores, losses, taus, totals):
        if self._labels.classes.size == 2 or (self.balanced and self._other is None):
            return super()._run_kernel(arrays, targets, weights, codes, params, scores, losses, taus, totals)
        self._start_other(codes, params)
        # both models learn the rows up to the first that either refuses
        other, stopped = self._other_pass(arrays, arrays.n_rows, targets, weights, codes, params)
        done = arrays.n_rows if stopped < 0 else stopped
        prefix = CSRArrays(arrays.indptr[: done + 1], arrays.indices, arrays.data, done, arrays.n_features)
        mine = super()._run_kernel(prefix, targets, weights, codes, params, scores, losses, taus, totals)
        if mine >= 0:
            other, _ = self._other_pass(arrays, mine, targets, weights, codes, params)
        self._other = other
        return mine if mine >= 0 else stopped

    def _other_pass(self, arrays, n_rows, targets, weights, codes, params, held=None):
        """A copy of the other model after the first ``n_rows`` rows (``held``: the held-out ones not learned), and
        where it stopped (-1 or a row)."""
        other = tuple(a.copy() for a in self._other)
        empty = np.empty(0)
        masked = () if held is None else (held,)
        stopped = qa.quasi_additive_pass(
            arrays.indptr[: n_rows + 1], arrays.indices, arrays.data, -targets, weights, *other,
            params, codes, empty, empty, empty, empty, np.zeros(_codes.N_TOTALS), *masked,
        )
        return other, stopped

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The base's state and, while one class is known, the model of the other encoding (plain form only)."""
        schema = super()._state_schema()
        if self.balanced:
            return schema
        other = {f"other_{name}": schema.arrays[name] for name in _OTHER if name in schema.arrays}
        return schema.extended(arrays=other, optional=other)

    def _get_state(self):
        arrays, state = super()._get_state()
        if self._other is not None:
            arrays.update((f"other_{name}", a) for name, a in zip(_OTHER, self._other)
                          if a.size or not name.startswith("average"))
        return arrays, state

    def _set_state(self, arrays, state):
        super()._set_state(arrays, state)
        if "other_theta" in arrays:
            names = [f"other_{name}" for name in _OTHER[:3]]
            other = tuple(np.array(arrays[name], dtype=np.float64) for name in names)
            if [a.shape for a in other] != [self._theta.shape, self._w.shape, self._state.shape]:
                raise ValueError(f"{', '.join(names)} must have the shapes of theta, weights and state")
            average = (UNWEIGHTED, UNWEIGHTED)
            if self._averaging():
                names = ("other_average_sum", "other_average_count")
                if not all(name in arrays for name in names):
                    raise ValueError(f"the model of the other encoding averages: {', '.join(names)} are needed")
                average = tuple(np.array(arrays[name], dtype=np.float64) for name in names)
            self._other = (*other, *average)
