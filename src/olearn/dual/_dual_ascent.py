"""Online learning as incremental dual ascent (Shalev-Shwartz & Singer 2006)."""

import numpy as np

from .._docstrings import shared_entries
from .._kernels import _dual
from .._kernels import _quasi_additive as qa
from .._params import INT64_MAX, POSITIVE, POSITIVE_FINITE, Interval, Options
from .._state_schema import NONNEGATIVE, SIGN, Array, csr
from .._validation import CSRArrays
from ..quasi_additive._base import QuasiAdditiveClassifier
from ..linear._binary import PlattCalibrated

_LINKS = {"l2": qa.LINK_L2, "entropy": qa.LINK_ENTROPY, "pnorm": qa.LINK_PNORM}
_UPDATES = {
    "conservative": qa.UPDATE_CONSERVATIVE,
    "aggressive": qa.UPDATE_CAPPED_LOSS,
    "last-k": _dual.UPDATE_LAST_K,
    "all": _dual.UPDATE_ALL,
}


@shared_entries
class DualAscent(PlattCalibrated, QuasiAdditiveClassifier):
    r"""Online learning as incremental ascent of a dual objective, with its certificate.

    Shalev-Shwartz & Singer, *Online Learning meets Optimization in the Dual*,
    COLT 2006 (Fig. 1, Sec. 3-5). For the examples seen so far the primal is

    .. math:: P(w) = F(w) + C \sum_i [\gamma - y_i\, w\cdot x_i]_+ ,

    and its dual, over :math:`0 \le \alpha_i \le C`,

    .. math:: D(\alpha) = \gamma \sum_i \alpha_i - F^*\Big(\sum_i \alpha_i y_i x_i\Big),

    so that :math:`D(\alpha) \le P(w)` for every :math:`\alpha` and w (weak
    duality). The learner keeps :math:`\theta = \sum_i \alpha_i y_i x_i`,
    predicts with :math:`w = \nabla F^*(\theta)`, and on each round raises D
    through the dual variables of a set of examples. ``regularizer`` names F:

    * ``"l2"``: :math:`F = \tfrac12\|w\|_2^2` (:math:`\sigma = 1`, :math:`\|x\|_2`);
    * ``"entropy"``: relative entropy to uniform on the 2n balanced coordinates
      (Balanced Winnow's; :math:`\sigma = 1`, :math:`\|x\|_\infty`);
    * ``"pnorm"``: :math:`F = \tfrac12\|w\|_q^2`, q = p/(p-1), ``p >= 2`` the
      norm of theta (:math:`\sigma = 1/(p-1)`, :math:`\|x\|_p`); see
      :class:`olearn.quasi_additive.PNorm`.

    ``update`` names the dual step of round t, with
    :math:`\ell_t = [\gamma - y_t\, w_t\cdot x_t]_+` and
    :math:`s_t = \|x_t\|_*^2/\sigma`:

    * ``"conservative"`` (Eq. 16): :math:`\alpha_t = C` on a mistake
      (:math:`y_t\, w_t\cdot x_t \le 0`), else 0. The dual increase of a mistake
      is at least :math:`\gamma C - C^2 s_t/2`: an *ascent* only while
      :math:`C \le 2\gamma/s_t`; beyond, D may decrease (recorded as it is).
    * ``"aggressive"`` (Eq. 28): :math:`\alpha_t = \min\{\ell_t, C\}` on every
      round (a change whenever :math:`\ell_t > 0`). By Eq. (29) the round
      raises D by at least :math:`\alpha_t\ell_t - \alpha_t^2 s_t/2`, which is
      :math:`C\mu(\ell_t) \ge 0` when :math:`s_t \le 1` (Thm. 3,
      :func:`olearn.bounds.aggressive_dual_loss_bound`); with larger instances
      D may decrease (recorded as it is). In the Euclidean geometry the step
      :math:`\min\{C, \ell_t/s_t\}` that maximizes that lower bound is PA-I,
      ``"last-k"`` with k = 1.
    * ``"last-k"`` (Eq. 31, :math:`I_t` = the last k examples): maximize D over
      those k variables, the others fixed, solved by coordinate ascent with
      exact 1-d steps until every KKT violation is at most ``kkt_tol``. With k = 1
      and ``"l2"`` it is PA-I (Crammer et al. 2006).
    * ``"all"`` (:math:`I_t = [t]`, the Online-SVM): the same over every example
      seen, so after each round :math:`\alpha` solves the batch dual of the
      examples so far up to ``kkt_tol``. It stores every example: O(t) memory and
      at least O(t) time per round.

    ``dual_objective_`` records D after every round since the last ``fit``.
    :func:`olearn.bounds.dual_certificate` checks Thm. 1,
    :math:`\lambda M \le D(\alpha_{final}) \le P(w)` for every w.

    ``taus`` of :func:`olearn.run` are :math:`\alpha_t` after round t. A zero
    instance moves no weight; every update sets its :math:`\alpha_t` as the
    text says: Eq. (16) C on a mistake, Eq. (28) :math:`\min\{\gamma, C\}`,
    and the window updates C, Eq. (31)'s maximizer (D grows as
    :math:`\gamma\alpha_t` along it), which raises D by :math:`\gamma\alpha_t`.
    With the entropic regularizer the dimension n enters the prior, the
    uniform vector of Eq. (25), and the aggressive and window updates depend
    on it: as in the text n is fixed, ``n_features`` or else the width of the
    first data (an array's columns, one past the largest index of the first
    example), and an example past it is refused (FeatureLimitError asking for
    ``n_features``). The conservative update, blind to n, grows with the
    features seen (see :class:`olearn.quasi_additive.Winnow`).

    **Importance weights** (``sample_weight``, ``class_weight``; beyond the
    paper). An example i of weight :math:`c_i` enters the primal as
    :math:`c_i C [\gamma - y_i\, w\cdot x_i]_+`, so its dual variable lives in
    :math:`0 \le \alpha_i \le c_i C`: ``"conservative"`` sets
    :math:`\alpha_t = c_t C` on a mistake, ``"aggressive"``
    :math:`\alpha_t = \min\{\ell_t, c_t C\}`, and the window updates solve
    each stored example in its own box (the weights are stored with the
    examples). For ``"all"`` (and ``"last-k"`` with a window holding every
    example) an integer weight c equals c copies of the example: the copies'
    variables enter :math:`\theta` and D only through their sum, which ranges
    over :math:`[0, cC]`. c = 0 keeps :math:`\alpha = 0` (the round still
    counts, and the example takes its place in the ``"last-k"`` window).
    ``dual_objective_`` and the certificate then bound the weighted
    primal.

    Parameters
    ----------
    regularizer : {"l2", "entropy", "pnorm"}, default="l2"
    p : float, default=2.0
        Norm of theta for ``"pnorm"`` (>= 2); ignored otherwise.
    update : {"conservative", "aggressive", "last-k", "all"}, default="conservative"
    C : float, default=1.0
        Box of the dual variables, finite and > 0 (the PA family's C).
    gamma : float, default=1.0
        Margin of the hinge loss, > 0.
    k : int, default=1
        Window of ``"last-k"``, >= 1.
    kkt_tol : float, default=1e-9
        KKT tolerance of the ``"last-k"`` and ``"all"`` solves, > 0 (at most
        1000 sweeps per round). It was called ``tol`` before ``tol`` became the
        stopping tolerance of ``fit``'s passes, as in every olearn learner and
        in scikit-learn; a model file saved under the old name loads with it
        as ``kkt_tol``.
    fit_intercept : bool, default=False
    n_features : int or None, default=None
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
    >>> from olearn.dual import DualAscent
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> est = DualAscent(update="last-k", k=1).partial_fit(X, [1, -1])
    >>> est.coef_                     # PA-I: alpha_1 = 1/4, alpha_2 = 1
    array([[ 0.5, -1. ]])
    >>> est.dual_objective_           # 1/4 - 1/8, then 5/4 - 5/8
    array([0.125, 0.625])
    """

    _weight_and_copies = (
        "c copies equal a row of weight c only with update='all' (their dual variables enter through their sum); "
        "a conservative round of weight c (the default) is one step of cC whose copies stop once the row is "
        "classified right, and an aggressive one a step min(loss, cC) whose copies each see the margin the last "
        "one left"
    )

    _constraints = {
        "regularizer": Options("l2", "entropy", "pnorm"),
        "p": Interval(2, None),
        "update": Options("conservative", "aggressive", "last-k", "all"),
        "C": POSITIVE_FINITE,
        "gamma": POSITIVE,
        "k": Interval(1, INT64_MAX, integer=True),
        "kkt_tol": POSITIVE,
    }
    _learned = (*QuasiAdditiveClassifier._learned, "_duals", "_store")

    def __init__(self, regularizer="l2", p=2.0, update="conservative", C=1.0, gamma=1.0, k=1, kkt_tol=1e-9,
                 fit_intercept=False, n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None, average=False,
                 class_weight=None, n_bits=None, calibration=None):
        self.regularizer = regularizer
        self.p = p
        self.update = update
        self.C = C
        self.gamma = gamma
        self.k = k
        self.kkt_tol = kkt_tol
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

    @classmethod
    def _saved_params(cls, params):
        # a file without kkt_tol was saved when the KKT tolerance was called tol
        if "kkt_tol" not in params and "tol" in params:
            params["kkt_tol"] = params.pop("tol")
        return params

    def _kernel_config(self):
        codes = {"Q_LINK": _LINKS[self.regularizer], "Q_UPDATE": _UPDATES[self.update], "Q_K": int(self.k)}
        params = {"Q_C": self.C, "Q_GAMMA": self.gamma, "Q_P": float(self.p), "Q_TOL": self.kkt_tol}
        return codes, params

    @property
    def dual_objective_(self):
        """D(alpha) after each round so far, shape (n_rounds,)."""
        self._check_started()
        return np.array(self._duals)

    @property
    def alpha_(self):
        """The dual variables of the stored examples (the last k for ``"last-k"``, all for ``"all"``)."""
        self._check_started()
        return self._store.alpha.copy()

    def _start(self):
        super()._start()
        self._duals = []
        self._store = _Store.empty()

    def _flip(self):
        super()._flip()
        self._store.y = -self._store.y

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """The base's masked pass (the window updates: :meth:`_run_window` with the mask), and D(alpha) after each
        learned round added to the history."""
        codes, params = self._config_arrays()
        scores, losses, taus, totals = outputs
        duals = np.empty(arrays.n_rows)
        if codes[qa.Q_UPDATE] in (qa.UPDATE_CONSERVATIVE, qa.UPDATE_CAPPED_LOSS):
            stopped = qa.quasi_additive_pass(arrays.indptr, arrays.indices, arrays.data, targets, weights, self._theta,
                                             self._w, self._state, *self._averaging_arrays(), params, codes, scores,
                                             losses, taus, duals, totals, held)
        else:
            stopped = self._run_window(arrays, targets, weights, codes, params, scores, losses, taus, duals, totals,
                                       held)
        if stopped < 0:
            self._duals = self._duals + duals[~held].tolist()  # a new list: the chunk's undo keeps the old one
        return stopped

    def _run_kernel(self, arrays, targets, weights, codes, params, scores, losses, taus, totals):
        duals = np.empty(arrays.n_rows)
        if codes[qa.Q_UPDATE] in (qa.UPDATE_CONSERVATIVE, qa.UPDATE_CAPPED_LOSS):
            stopped = qa.quasi_additive_pass(
                arrays.indptr, arrays.indices, arrays.data, targets, weights, self._theta, self._w, self._state,
                *self._averaging_arrays(), params, codes, scores, losses, taus, duals, totals,
            )
        else:
            stopped = self._run_window(arrays, targets, weights, codes, params, scores, losses, taus, duals, totals)
        done = arrays.n_rows if stopped < 0 else stopped
        self._duals.extend(duals[:done].tolist())
        return stopped

    def _run_window(self, arrays, targets, weights, codes, params, scores, losses, taus, duals, totals, held=None):
        """The window updates (last-k, all) over the rows of ``arrays``: each stored, then solved over with the stored
        ones. ``held``: None, or a boolean per row, the held-out rows of a multi-pass run, which are scored at their
        moment and neither stored nor solved over (:func:`~olearn._kernels._dual.dual_pass` with the mask)."""
        masked = ()
        if held is not None:
            learned = ~held
            masked = (held, arrays.indptr, arrays.indices, arrays.data)
            arrays, targets = _rows_of(arrays, learned), targets[learned]
            weights = weights[learned] if weights.size else weights
        store = self._store.extended(arrays, targets, params[qa.Q_BIAS], weights)
        n_theta = self._theta.size
        backup = np.empty(2 * n_theta + self._state.size + store.alpha.size)
        stopped = _dual.dual_pass(
            store.indptr, store.indices, store.data, store.bias, store.weight, store.y, self._store.n_rows,
            self._theta, self._w, self._state, store.alpha, *self._averaging_arrays(), params, codes,
            np.empty(n_theta), np.empty(n_theta), backup, scores, losses, taus, duals, totals, *masked,
        )
        if stopped < 0:
            kept = store.n_rows
        else:  # the rows stored before the one that stopped
            kept = self._store.n_rows + (stopped if held is None else int(np.count_nonzero(~held[:stopped])))
        last = None if codes[qa.Q_UPDATE] == _dual.UPDATE_ALL else int(codes[qa.Q_K])
        self._store = store.rows(kept, last)
        return stopped

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The quasi-additive state, D after each round and the stored examples (at most k for "last-k",
        none for the single-example updates) with their +-1 labels and non-negative dual variables."""
        stored = {"last-k": (0, self.k), "all": (0, None)}.get(self.update, (0, 0))
        return super()._state_schema().extended(
            arrays={
                "duals": Array("float64", ("n_rounds",)),
                "store_indptr": Array("int64", ("n_stored+1",)),
                "store_indices": Array("int32", ("stored_nnz",)),
                "store_data": Array("float64", ("stored_nnz",)),
                "store_bias": Array("float64", ("n_stored",)),
                "store_y": Array("float64", ("n_stored",), values=SIGN),
                "store_alpha": Array("float64", ("n_stored",), values=NONNEGATIVE),
                "store_weight": Array("float64", ("n_stored",), values=NONNEGATIVE),
            },
            relations=[csr("store_indptr", "store_indices", "n_features_in")],
            limits={"n_stored": stored},
            optional={"store_weight"},
        )

    def _get_state(self):
        arrays, state = super()._get_state()
        arrays["duals"] = np.array(self._duals)
        for name in _Store.FIELDS:
            arrays[f"store_{name}"] = getattr(self._store, name)
        return arrays, state

    def _set_state(self, arrays, state):
        super()._set_state(arrays, state)
        self._duals = np.asarray(arrays["duals"], dtype=np.float64).tolist()
        self._store = _Store(*(arrays.get(f"store_{name}") for name in _Store.FIELDS))


def _rows_of(arrays, keep):
    """The rows of CSR ``arrays`` where ``keep`` is True, as CSR arrays."""
    lengths = np.diff(arrays.indptr)
    entries = np.repeat(keep, lengths)
    indptr = np.zeros(np.count_nonzero(keep) + 1, dtype=np.int64)
    np.cumsum(lengths[keep], out=indptr[1:])
    return CSRArrays(indptr, arrays.indices[entries], arrays.data[entries], indptr.size - 1, arrays.n_features)


class _Store:
    """The examples whose dual variables the window updates may still change, as CSR rows."""

    FIELDS = ("indptr", "indices", "data", "bias", "y", "alpha", "weight")

    def __init__(self, indptr, indices, data, bias, y, alpha, weight=None):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int32)
        self.data = np.ascontiguousarray(data, dtype=np.float64)
        self.bias = np.ascontiguousarray(bias, dtype=np.float64)
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        self.alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        # the importance weight of each row (a store saved before weights existed has none: all 1)
        self.weight = np.ones(self.y.size) if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
        if not (self.indptr.size == self.bias.size + 1 == self.y.size + 1 == self.alpha.size + 1
                == self.weight.size + 1):
            raise ValueError("the stored examples' arrays disagree in length")

    @classmethod
    def empty(cls):
        return cls(np.zeros(1), np.empty(0), np.empty(0), np.empty(0), np.empty(0), np.empty(0), np.empty(0))

    @property
    def n_rows(self):
        return self.y.size

    def extended(self, arrays: CSRArrays, targets, bias, weights):
        """These rows followed by a new batch (alpha 0, the current intercept value, ``weights`` or all 1 if empty)."""
        return _Store(
            np.concatenate([self.indptr, self.indptr[-1] + arrays.indptr[1:]]),
            np.concatenate([self.indices, arrays.indices]),
            np.concatenate([self.data, arrays.data]),
            np.concatenate([self.bias, np.full(arrays.n_rows, bias)]),
            np.concatenate([self.y, targets]),
            np.concatenate([self.alpha, np.zeros(arrays.n_rows)]),
            np.concatenate([self.weight, weights if weights.size else np.ones(arrays.n_rows)]),
        )

    def rows(self, stop, last=None):
        """Rows ``:stop``, or only the ``last`` of them."""
        start = 0 if last is None else max(0, stop - last)
        lo, hi = self.indptr[start], self.indptr[stop]
        return _Store(
            self.indptr[start : stop + 1] - lo, self.indices[lo:hi], self.data[lo:hi],
            self.bias[start:stop], self.y[start:stop], self.alpha[start:stop], self.weight[start:stop],
        )

