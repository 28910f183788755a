"""The linear learners in dual form: a Mercer kernel's support set in place of the weights.

The kernel PA of Crammer et al. (2006), Sec. 3, and the kernel Perceptron of
Freund & Schapire (1999).

:class:`KernelizableLearner` is a :class:`~olearn.linear._base.LinearLearner`
that keeps every hook primal while ``kernel=None`` and learns, scores and saves
the support set (:class:`olearn.kernel.SupportSet`) of the compiled dual
kernels (:mod:`olearn._kernels._mercer_binary`) otherwise.
"""

import numpy as np

from .._averaging import average_start
from ..exceptions import PartialUpdateError
from .._kernels import _codes, _compiled
from .._state_schema import Count
from .._validation import CSRArrays, seen_columns
from .._weights import UNWEIGHTED
from ..kernel import SupportSet
from ..kernel._hyperparameters import call_kernel, initial_seed, mercer_arrays
from ._base import LinearLearner, _stopped


# rows per call of a callable kernel when scoring a batch: bounds the dense copies
_CALLABLE_BLOCK = 256
# rows per compiled dual pass: room for new support vectors is reserved a block at a time
_PASS_BLOCK = 4096


class KernelizableLearner(LinearLearner):
    r"""A linear learner that learns in dual form, with a Mercer kernel, when ``kernel`` is not None.

    Every hook (start, growth, passes, scores, persistence) is the primal one
    while ``kernel=None``. With a kernel the learner keeps
    :math:`f(x) = \sum_i \alpha_i (K(x_i, x) + b^2)`, where ``b`` is 1 with
    ``fit_intercept=True``: the intercept is the weight of a constant feature
    appended inside the kernel's feature map, so that it counts in
    :math:`\|z\|^2 = K(x, x) + b^2` as in the primal learner. A learner becomes
    kernelizable by inheriting from this class (after its task's mixin) and
    taking the hyperparameters of :data:`olearn.kernel.KERNEL_CONSTRAINTS`.

    The dual state is the :class:`~olearn.kernel.SupportSet` ``_support``
    (rows in growable CSR arrays, one coefficient each) and the kernel's
    ``_state`` array (its round counter; the scale stays 1). Importance weights
    enter the step as in the primal learner. ``average`` is refused with a
    kernel: once a budget removes a support vector, the earlier iterates it
    belonged to are lost, so their average cannot be kept exactly.

    The compiled dual kernels (:mod:`olearn._kernels._mercer_binary`) are
    imported by the methods that call them, so that a learner without a
    kernel (``olearn run --algo pa1``) never loads them; the pass and the
    batch scores are taken from :mod:`olearn._kernels._compiled` (compiled at
    install, loaded on their first call).
    """

    _changed_in_place = ("_support",)

    # -- hyperparameters ------------------------------------------------------

    def __getstate__(self):
        # built with the configuration, and rebuilt with it on first use
        state = super().__getstate__()
        state.pop("_mercer", None)
        return state

    def _check_hyperparameters(self, learned=False):
        """The checks of every learner, and that a kernel is not averaged (a loaded file is checked alike)."""
        super()._check_hyperparameters(learned)
        if self.kernel is not None and average_start(self.average):
            raise ValueError(
                f"{type(self).__name__}: parameter average={self.average!r} is not available with a kernel "
                f"(kernel={self.kernel!r}): the averaged iterates live in the kernel's feature space and a budget "
                "forgets them; use average=False, or kernel=None to average the primal weights"
            )

    def _build_config(self):
        if self._is_started() and self._is_dual() != (self.kernel is not None):
            learned = "with a kernel" if self._is_dual() else "without a kernel (kernel=None)"
            raise ValueError(
                f"{type(self).__name__}: parameter kernel={self.kernel!r} differs from the model learned so far, "
                f"which was learned {learned}; call fit to start over with it"
            )
        config = super()._build_config()
        self._mercer = mercer_arrays(self, 1.0 if self.fit_intercept else 0.0)
        return config

    # -- learned state --------------------------------------------------------

    def _is_dual(self):
        return hasattr(self, "_support")

    def _is_started(self):
        return hasattr(self, "_w") or hasattr(self, "_support")

    def _start(self):
        if self.kernel is None:
            super()._start()
            return
        self._state = np.array([0.0, 1.0, 0.0])
        self.n_features_in_ = 0
        self._support = SupportSet(seed=initial_seed(self.random_state))
        if self.n_features is not None:
            self._grow(self.n_features, "n_features")

    def _reset(self):
        super()._reset()
        self.__dict__.pop("_support", None)

    def _make_room(self, n_features):
        if self._is_dual():
            self._support.reserve_features(n_features)
        else:
            super()._make_room(n_features)

    def _negate(self):
        if self._is_dual():
            self._support.negate()
        else:
            super()._negate()

    # -- what was learned -----------------------------------------------------

    def _check_dual(self, name):
        self._check_started()
        if not self._is_dual():
            raise AttributeError(
                f"{type(self).__name__} with kernel=None learns the weights w directly and has no {name}; "
                "set a kernel to learn in dual form"
            )

    @property
    def support_vectors_(self):
        """The support vectors x_i, a CSR matrix of shape ``(n_support_, n_features_in_)``, oldest first."""
        self._check_dual("support_vectors_")
        return self._support.rows(self.n_features_in_)

    @property
    def dual_coef_(self):
        """The coefficients alpha_i of f(x) = sum_i alpha_i (K(x_i, x) + b^2), shape ``(1, n_support_)``."""
        self._check_dual("dual_coef_")
        return self._support.coefficients().T

    @property
    def n_support_(self):
        """The number of support vectors (never above ``budget``)."""
        self._check_dual("n_support_")
        return len(self._support)

    @property
    def coef_(self):
        """Weights; with ``kernel="linear"``, w = sum_i alpha_i x_i.

        Any other kernel has no weight vector in the input space: AttributeError.
        """
        if not self._is_dual():
            return super().coef_
        if self.kernel != "linear":
            raise AttributeError(
                f"{type(self).__name__}: coef_ is only available with kernel='linear'; with kernel={self.kernel!r} "
                "the weight vector lives in the kernel's feature space. Use support_vectors_ and dual_coef_."
            )
        return (self._support.coefficients().T @ self.support_vectors_).reshape(1, -1)

    @property
    def intercept_(self):
        """Intercept, shape (1,): sum_i alpha_i with ``fit_intercept=True`` (any kernel), else 0."""
        if not self._is_dual():
            return super().intercept_
        bias = 1.0 if self.fit_intercept else 0.0
        return np.array([bias * float(np.sum(self._support.coefficients()))])

    # -- learning -------------------------------------------------------------

    def _pass_checks_rows(self):
        """The primal pass checks rows (:meth:`LinearLearner._pass_checks_rows`); the dual one does not."""
        return type(self)._pass is KernelizableLearner._pass and self.kernel is None and not self._is_dual()

    def _pass(self, arrays, targets, record, weights=None):
        """The primal pass, or the dual one: then (scores, losses, taus, totals, support sizes after each round)."""
        if not self._is_dual():
            return super()._pass(arrays, targets, record, weights)
        codes, params = self._config_arrays()
        n = arrays.n_rows if record else 0
        scores, losses, taus = np.empty(n), np.empty(n), np.empty(n)
        sizes = np.empty(n, dtype=np.int64)
        totals = np.zeros(_codes.N_TOTALS)
        if callable(self.kernel):
            self._support.reserve_for_rows(arrays.indptr, self.budget)
            stopped = self._callable_pass(arrays, targets, weights, scores, losses, taus, sizes, totals)
        else:
            stopped = self._compiled_pass(arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals)
        if stopped >= 0:
            raise _stopped(PartialUpdateError(
                f"{type(self).__name__}: the score, K(x, x) or the new coefficient overflowed at row {stopped}; "
                f"the model keeps the updates of rows 0..{stopped - 1}. Scale the features or lower the step size.",
                rows_kept=stopped,
            ), scores)
        return scores, losses, taus, totals, sizes

    def _held_out_kernel(self, arrays, targets, weights, held, outputs):
        """With a kernel, :meth:`_compiled_pass` of checked ``arrays`` whose rows with ``held[i]`` are held out:
        scored by the support set of their moment, as ``decision_function`` scores them, and no round (else
        :meth:`LinearLearner._held_out_kernel`); returns -1 or the row where it stopped."""
        if self.kernel is None:
            return super()._held_out_kernel(arrays, targets, weights, held, outputs)
        codes, params = self._config_arrays()
        scores, losses, taus, totals = outputs
        sizes = np.empty(arrays.n_rows, dtype=np.int64)
        return self._compiled_pass(arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals, held)

    def _compiled_pass(self, arrays, targets, weights, params, codes, scores, losses, taus, sizes, totals, held=None):
        """``dual_pass`` a block of rows at a time; returns -1 or the row where an overflow stopped it.

        Room is reserved before each block for every row of it to join the
        support set, so a long stream never reserves more than the support set
        plus one block. ``held``: see :meth:`_held_out_kernel`.
        """
        mcodes, mparams = self._mercer
        support = self._support
        record = scores.size > 0
        run_pass = _compiled.dual_pass if held is None else _compiled.held_out_dual_pass
        for first in range(0, arrays.n_rows, _PASS_BLOCK):
            last = min(arrays.n_rows, first + _PASS_BLOCK)
            lo, hi = arrays.indptr[first], arrays.indptr[last]
            indptr = arrays.indptr[first:last + 1] - lo
            support.reserve_for_rows(indptr, self.budget)
            outputs = (scores, losses, taus, sizes)
            if record:
                outputs = tuple(out[first:last] for out in outputs)
            block_weights = UNWEIGHTED if weights is None else weights[first:last]
            masked = () if held is None else (held[first:last],)
            stopped = run_pass(
                indptr, arrays.indices[lo:hi], arrays.data[lo:hi], targets[first:last], block_weights,
                *support.arrays(),
                self._state, params, codes, mcodes, mparams, support.work, *outputs, totals, *masked,
            )
            if stopped >= 0:
                return first + stopped
        return -1

    def _learn_target(self, indices, data, target, weight=1.0):
        if not self._is_dual():
            return super()._learn_target(indices, data, target, weight)
        codes, params = self._config_arrays()
        mcodes, mparams = self._mercer
        support = self._support
        support.reserve(1, indices.size, self.budget)
        if callable(self.kernel):
            score, _, _, ok = self._callable_learn(indices, data, target, weight)
        else:
            from .._kernels._mercer_binary import dual_learn_one  # with a kernel only: see the class docstring

            score, ok = dual_learn_one(indices, data, target, weight, *support.arrays(), self._state, params, codes,
                                       mcodes, mparams, support.work)
        if not ok:
            raise FloatingPointError(
                f"{type(self).__name__}: the score, K(x, x) or the new coefficient overflowed on this example; "
                "the model is unchanged. Scale the features or lower the step size."
            )
        return score

    # -- a kernel given as a Python callable ----------------------------------

    def _callable_learn(self, indices, data, target, weight, row=None):
        """One round with the Gram row computed by the callable; returns (score, loss, tau, ok).

        The callable sees dense rows; it is not called on an empty support set.
        """
        from .._kernels._mercer_binary import dual_learn_values  # with a kernel only: see the class docstring

        codes, params = self._config_arrays()
        mcodes, mparams = self._mercer
        x = np.zeros((1, self.n_features_in_))
        x[0, indices] = data
        support = self._support
        name = type(self).__name__ if row is None else f"{type(self).__name__} (row {row})"
        values = np.zeros(0)
        if len(support):
            values = call_kernel(self.kernel, x, support.rows(x.shape[1]).toarray(), name)[0]
        self_value = call_kernel(self.kernel, x, x, name)[0, 0]
        return dual_learn_values(indices, data, target, weight, values, self_value, *support.arrays(), self._state,
                                 params, codes, mcodes, mparams)

    def _callable_pass(self, arrays, targets, weights, scores, losses, taus, sizes, totals):
        """The dual pass with a callable kernel, one Python round per row; returns as ``dual_pass``."""
        record = scores.size > 0
        classify = self._config_arrays()[0][_codes.K_LOSS] != _codes.LOSS_EPSILON_INSENSITIVE
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            weight = 1.0 if weights is None else weights[i]
            score, loss, tau, ok = self._callable_learn(arrays.indices[lo:hi], arrays.data[lo:hi], targets[i], weight,
                                                        row=i)
            if not ok:
                return i
            if record:
                scores[i], losses[i], taus[i], sizes[i] = score, loss, tau, len(self._support)
            totals[_codes.T_MISTAKES] += classify and targets[i] * score <= 0.0
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += tau != 0.0
            totals[_codes.T_ROUNDS] += 1
        return -1

    # -- prediction -----------------------------------------------------------

    def _scores(self, X):
        if not self._is_dual():
            return super()._scores(X)
        self._check_started()
        self._config_arrays()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        return self._dual_scores(arrays)

    def _dual_scores(self, arrays):
        mcodes, mparams = self._mercer
        support = self._support
        out = np.empty(arrays.n_rows)
        if not callable(self.kernel):
            # unseen features meet no support vector but count in ||x||^2: one shared column holds them
            arrays = seen_columns(arrays, self.n_features_in_, sink=True)
            support.reserve_features(arrays.n_features)
            _compiled.dual_scores(arrays.indptr, arrays.indices, arrays.data, *support.arrays()[:6], mcodes, mparams,
                                  support.work, out)
            return out
        if not len(support):
            out[:] = 0.0
            return out
        d = max(arrays.n_features, self.n_features_in_)
        # the callable sees dense rows as wide as the input: refused before allocating them
        self._check_feature_limit(d, "X")
        rows = support.rows(d).toarray()
        coef = support.coefficients()[:, 0]
        offset = mparams[_codes.M_OFFSET]
        import scipy.sparse as sp

        matrix = sp.csr_matrix((arrays.data, arrays.indices, arrays.indptr), shape=(arrays.n_rows, d))
        for start in range(0, arrays.n_rows, _CALLABLE_BLOCK):
            block = matrix[start:start + _CALLABLE_BLOCK].toarray()
            gram = call_kernel(self.kernel, block, rows, type(self).__name__)
            out[start:start + block.shape[0]] = (gram + offset) @ coef
        return out

    def _score_row(self, indices, data, n_features):
        if not self._is_dual():
            return super()._score_row(indices, data, n_features)
        self._config_arrays()
        self._check_width(n_features, "x")
        arrays = CSRArrays(np.array([0, indices.size], dtype=np.int64), indices, data, 1, n_features)
        return self._dual_scores(arrays)[0]

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The primal state, or with a kernel the support set and the kernel's state vector."""
        if self.kernel is None:
            return super()._state_schema()
        return SupportSet.state_schema(1, self.budget).extended(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={"state": self._state_array()},
            limits=self._width_limits(),
        )

    def _get_state(self):
        if not self._is_dual():
            return super()._get_state()
        self._check_started()
        if callable(self.kernel):
            raise ValueError(
                f"{type(self).__name__}: parameter kernel={self.kernel!r} is a Python callable and cannot be saved "
                "portably; pickle the model instead (the callable must be picklable, e.g. a module-level function)"
            )
        arrays = {**self._support.to_arrays(), "state": self._state}
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        if self.kernel is None:
            super()._set_state(arrays, state)
            return
        self._start()
        self.n_features_in_ = int(state["n_features_in"])
        self._support.reserve_features(self.n_features_in_)
        self._support.load_arrays(arrays)
        self._state = np.array(arrays["state"], dtype=np.float64)
