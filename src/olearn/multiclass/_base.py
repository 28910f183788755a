"""The shared machinery of the multiclass learners.

A learner here is a preset of the multiclass kernel (:mod:`olearn._kernels._multiclass`):
it names a rule (PA with a rival, an ultraconservative Perceptron split, MIRA),
its hyperparameters and, for the cost-sensitive learner, the margins sqrt(rho);
:class:`MulticlassLearner` holds everything else: classes, weights, growth,
scores, persistence. Without a feature map the model keeps one prototype per
class (``coef_`` of shape (k, d)); with ``feature_map`` it keeps one vector w and
scores class a by ``w . Phi(x, a)`` (``coef_`` of shape (D,)). ``partial_fit``,
``learn_one`` and :func:`olearn.run` call the same compiled code.

Conventions shared by every learner of the family:

* ``classes_`` is sorted; ties between class scores go to the class that sorts
  first, in ``predict``, in the choice of a rival and in the error set, so that
  ``predict(X)`` is ``classes_[argmax(decision_function(X))]`` (with two
  classes, ``decision_function`` is scikit-learn's one binary score per row).
* A class joins when first seen, with a zero prototype, after the prediction of
  that round (it cannot be predicted before it exists). ``classes=`` of
  ``partial_fit`` declares classes up front: they join at once.
* A round is a mistake when the true class is not the unique top scorer (a tie
  names no class), or when it was not known yet.
* ``average`` (scikit-learn's SGD semantics): with a = 1 for True or the given
  integer, once a rounds have been learned ``predict``, ``decision_function``,
  ``coef_``/``intercept_`` and a saved model's predictions use the mean of the
  weights after rounds a, a + 1, ..., t; :func:`olearn.run` and
  ``predict_learn_one`` score each round with the current weights.
* Importance weights (``sample_weight``, ``class_weight``): each learner states
  in its docstring what a weight does to its step. A weight-0 example moves no
  weight, yet its round counts (in the averaging and the totals) and a class
  first seen on it joins.
"""

import contextlib

import numpy as np
import scipy.sparse as sp

from .._averaging import AVERAGE, average_start, averages_entries, interleaved, kept_average
from .._estimator import ClassifierEstimator
from .._held_out import held_out_chunk
from ..exceptions import PartialUpdateError
from .._kernels import _codes
from .._kernels import _multiclass as K
from .._kernels._lazy_average import averaged_class_scores
from .._labels import plain_label
from .._learner import ManyRows, OnlineLearner, is_named_batch
from .._params import BOOLEAN, Interval, NoneOr
from .._state_schema import COUNT, LABELS, Array, Count, StateSchema, distinct
from .._validation import CSRArrays, check_label, check_y, seen_columns
from .._weights import CLASS_WEIGHT, UNWEIGHTED
from ..kernel import SupportSet
from ..kernel._hyperparameters import KERNEL_CONSTRAINTS, mercer_arrays
from ._classes import ClassSlots
from ._dual import DualModel
from ._feature_maps import phi_block


class CallableOrNone:
    """None or a callable (a feature map)."""

    def accepts(self, value):
        return value is None or callable(value)

    def describe(self):
        return "None, or a callable Phi(x, label) such as olearn.multiclass.BlockFeatureMap"


_COMMON_CONSTRAINTS = {
    "fit_intercept": BOOLEAN,
    "n_features": NoneOr(Interval(1, None, integer=True)),
    "feature_map": CallableOrNone(),
    **KERNEL_CONSTRAINTS,
    "average": AVERAGE,
    "class_weight": CLASS_WEIGHT,
}


def _grown(vector, size):
    """``vector`` zero-padded to ``size`` entries (a new array)."""
    grown = np.zeros(size)
    grown[: vector.size] = vector
    return grown


def _grown_rows(W, capacity):
    """Feature-major prototypes with room for ``capacity`` features; the intercept's row stays last."""
    grown = np.zeros((capacity + 1, W.shape[1]))
    grown[: W.shape[0] - 1] = W[:-1]
    grown[capacity] = W[-1]
    return grown


def _grown_columns(W, capacity):
    """Prototypes with room for ``capacity`` class slots (new columns are zero)."""
    grown = np.zeros((W.shape[0], capacity))
    grown[:, : W.shape[1]] = W
    return grown


def _saved(W, n_features, k):
    """The first k prototypes of feature-major W as saved: the feature rows, then the intercept's row."""
    return np.vstack([W[:n_features, :k], W[-1:, :k]])


def _restore(W, saved):
    """Write saved prototypes (:func:`_saved`'s layout) into W."""
    W[: saved.shape[0] - 1, : saved.shape[1]] = saved[:-1]
    W[-1, : saved.shape[1]] = saved[-1]


def _sum_starts_after(start):
    """Relation: the averaged sum is 0 while at most ``start`` rounds were learned (it grows from round start + 1)."""

    def relation(arrays, dims):
        if int(arrays["rounds"][0]) <= start and np.any(arrays["average_sum"]):
            return (f"array 'average_sum' is not 0 although only {int(arrays['rounds'][0])} rounds were learned "
                    f"(average={start} adds to it from round {start + 1} on)")
        return None

    return relation


def _empty_run():
    empty = np.empty(0)
    return empty, np.empty((0, 0)), empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)


class MulticlassLearner(ManyRows, OnlineLearner, ClassifierEstimator):
    """Base class: subclasses define ``_constraints`` and ``_kernel_config()``.

    ``_kernel_config()`` returns (codes, params): dicts keyed by the ``MK_*`` and
    ``MP_*`` names of :mod:`olearn._kernels._multiclass`. A subclass with costs
    overrides ``_margins`` (sqrt(rho) between slots) and ``_fixed_classes``.
    """

    _task = "multiclass"
    _started_by = "_n_active"
    # the class slots and the count of active ones change in place; so does a dual model's support set
    _changed_in_place = ("_labels", "_n_active", "_dual")
    # the count of the classes a batch adds, the declared ones joining at once (their slots are forgotten by
    # _restore; a kernel's support set is not copied: a batch stopped at its first row adds nothing to it)
    _batch_in_place = ("_n_active",)
    _learned = ("_W", "_bound", "_w", "_wb", "_dual", "_n_active", "_labels", "_scratch", "_margin_cache", "_map_dim", "classes_",
                "n_features_in_", "_A", "_aw", "_awb", "_clock", "_averaged_from")

    # -- hyperparameters ------------------------------------------------------

    def _all_constraints(self):
        return {**_COMMON_CONSTRAINTS, **super()._all_constraints()}

    def _check_hyperparameters(self, learned=False):
        """The checks of every learner, and that a kernel takes neither a feature map nor an average (a loaded
        file is checked alike)."""
        super()._check_hyperparameters(learned)
        if self.kernel is not None and self.feature_map is not None:
            raise ValueError(
                f"{type(self).__name__}: kernel={self.kernel!r} and feature_map cannot be combined; a kernel "
                "learner keeps one prototype per class in the kernel's feature space"
            )
        if average_start(self.average) and self.kernel is not None:
            raise ValueError(
                f"{type(self).__name__}: average={self.average!r} cannot be combined with kernel={self.kernel!r}: "
                "the mean of the prototypes is not kept in dual form; use kernel=None (or a feature map)"
            )

    def _build_config(self):
        """(codes, params, the kernel path's arrays) for hyperparameters already checked."""
        start = average_start(self.average)
        if self._is_started() and not self._uses_kernel and start != self._averaged_from:
            raise ValueError(
                f"{type(self).__name__}: average was changed after learning started (from average="
                f"{self._averaged_from} to {self.average!r}); the averaged weights so far follow the old value. Set "
                "it back, or call fit to start over"
            )
        codes, params = self._kernel_config()
        code_arr = np.zeros(K.MN_CODES, dtype=np.int64)
        param_arr = np.zeros(K.MN_PARAMS)
        for name, value in codes.items():
            code_arr[getattr(K, name)] = value
        for name, value in params.items():
            param_arr[getattr(K, name)] = value
        param_arr[K.MP_BIAS] = 1.0 if self.fit_intercept else 0.0
        param_arr[K.MP_AVERAGE] = start
        return code_arr, param_arr, mercer_arrays(self, 1.0 if self.fit_intercept else 0.0)

    def _config(self):
        """(codes, params) for the current hyperparameters, checked once per change."""
        codes, params, _ = self._checked_config(self._build_config)
        return codes, params

    def _dual_config(self):
        """(codes, params, mcodes, mparams) of the kernel path."""
        codes, params, mercer = self._checked_config(self._build_config)
        return (codes, params, *mercer)

    @property
    def _python_kernel(self):
        """The user's kernel function, or None for a compiled kernel."""
        return self.kernel if callable(self.kernel) else None

    def _margins(self, labels):
        """sqrt(rho(a, b)) between the slots of ``labels``; empty means 1 off the diagonal."""
        return np.empty((0, 0))

    def _fixed_classes(self):
        """None, or the number of classes that must all be declared before learning."""
        return None

    # -- learned state --------------------------------------------------------

    @property
    def _uses_map(self):
        return self.feature_map is not None

    @property
    def _uses_kernel(self):
        return self.kernel is not None

    def _start(self):
        self._labels = ClassSlots(type(self).__name__)
        self._n_active = np.zeros(1, dtype=np.int64)
        self.n_features_in_ = 0
        self.classes_ = np.empty(0)
        self._margin_cache = None
        self._scratch = tuple(np.zeros(0) for _ in range(3))
        self._clock = np.zeros(1, dtype=np.int64)  # rounds learned (the averaging's time)
        self._averaged_from = average_start(self.average)
        if self._uses_kernel:
            self._dual = DualModel(self.random_state)
        elif self._uses_map:
            self._w = np.zeros(0)
            self._wb = np.zeros(0)
            # the averaged sums of w and wb (empty without averaging)
            self._aw = np.zeros(0)
            self._awb = np.zeros(0)
            self._map_dim = 0
        else:
            self._W = np.zeros((1, 0))
            self._A = np.zeros((0, 0))  # the averaged sum of W
            if self._averaging:
                self._interleave(self._W, self._W)
            self._bound = np.zeros(1)  # >= every |W| entry (the kernel's cheap overflow guard)
        if self.n_features is not None:
            self._grow_features(self.n_features, "n_features")

    @contextlib.contextmanager
    def _first_call_atomic(self, arrays=None, new=None):
        """The base's atomic first call, refusing a feature map or kernel switched on or off mid-stream."""
        if self._is_started() and (self._uses_map != hasattr(self, "_w") or self._uses_kernel != hasattr(self, "_dual")):
            what = "feature_map" if self._uses_map != hasattr(self, "_w") else "kernel"
            raise ValueError(
                f"{type(self).__name__}: {what} was changed after learning started (to or from None); call fit to "
                "start over"
            )
        with super()._first_call_atomic(arrays, new):
            yield

    def _state_bytes(self, n_features):
        """One weight per feature (and the intercept) for each class slot of the prototypes, twice when averaging."""
        slots = self._W.shape[1] if hasattr(self, "_W") else 1
        copies = 2 if average_start(self.average) else 1
        return 8 * (n_features + 1) * max(slots, 1) * copies

    def _interleave(self, W, A):
        """Keep W and its averaged sum A as the two views of one array of records (W[j, a], A[j, a]).

        An update of a sparse row touches both at each of its features, and an averaged score
        reads both: side by side they share the memory traffic, which dominates a pass over
        sparse rows (:func:`~olearn._averaging.interleaved`, the layout of every averaged family).
        """
        self._W, self._A = interleaved(W, A)

    @property
    def _averaging(self):
        return self._averaged_from > 0

    def __setstate__(self, state):
        # pickle and deepcopy copy the two views of the records apart: laid side by side again
        super().__setstate__(state)
        if "_A" in state and self._averaging:
            self._interleave(self._W, self._A)

    def _grow_features(self, n_features, where):
        self._check_feature_limit(n_features, where)
        if self._uses_kernel:
            self._dual.grow_features(n_features)
        elif not self._uses_map:
            capacity = self._W.shape[0] - 1
            if n_features > capacity:
                new_capacity = n_features if capacity == 0 else max(n_features, 2 * capacity)
                if self._averaging:
                    self._interleave(_grown_rows(self._W, new_capacity), _grown_rows(self._A, new_capacity))
                else:
                    self._W = _grown_rows(self._W, new_capacity)
        if n_features > self.n_features_in_:
            self.n_features_in_ = int(n_features)

    def _grow_map(self, dimension):
        if dimension > self._w.size:
            size = max(dimension, 2 * self._w.size)
            self._w = _grown(self._w, size)
            if self._averaging:
                self._aw = _grown(self._aw, size)

    def _grow_classes(self, k):
        """Room for k class slots in the weights and the scratch buffers."""
        if self._uses_kernel:
            capacity = self._scratch[0].size
        else:
            capacity = self._wb.size if self._uses_map else self._W.shape[1]
        if k > capacity:
            new_capacity = max(k, 2 * capacity, 4)
            if self._uses_kernel:
                self._dual.grow_classes(new_capacity)
            elif self._uses_map:
                self._wb = _grown(self._wb, new_capacity)
                if self._averaging:
                    self._awb = _grown(self._awb, new_capacity)
            else:
                if self._averaging:
                    self._interleave(_grown_columns(self._W, new_capacity), _grown_columns(self._A, new_capacity))
                else:
                    self._W = _grown_columns(self._W, new_capacity)
            self._scratch = tuple(np.zeros(new_capacity) for _ in range(3))

    def _add_classes(self, y, declared=None):
        """Check and add the new labels of ``declared`` (joining at once) and of ``y``; return the margins.

        Nothing is added when a check fails.
        """
        labels = self._labels
        fixed = self._fixed_classes()
        first = len(labels) == 0
        if declared is not None:
            declared = check_y(declared, len(declared), name="classes")
            if fixed is not None and not first and labels.new_labels(declared):
                raise labels.unknown_error(declared, labels.labels)
        joining = labels.new_labels(declared) if declared is not None else []
        if fixed is not None and first and declared is None:
            joining = labels.new_labels(y)  # a cost matrix fixes the classes: all join at once
        later = [label for label in labels.new_labels(y) if label not in set(joining)]
        if fixed is not None:
            if first and len(joining) != fixed:
                raise ValueError(
                    f"{type(self).__name__}: cost is a {fixed}x{fixed} matrix over the sorted classes, so all {fixed} "
                    f"classes must be known before learning; pass classes= (all {fixed} labels) to the first "
                    f"partial_fit, or make the first batch show every class (it shows {len(joining)})"
                )
            if later:
                raise labels.unknown_error(y, labels.labels + joining)
        margins = self._margins(labels.labels + joining + later)
        labels.add(joining + later)
        self._grow_classes(len(labels))
        self._n_active[0] += len(joining)
        self.classes_ = labels.classes
        return margins

    def _restore(self, saved, features, size):
        """The base's, and the slots of the classes the batch added forgotten (a pass leaves as many as are active)."""
        super()._restore(saved, features, size)
        if "_labels" in saved:
            self._labels.truncate(int(self._n_active[0]))

    def _after_pass(self):
        """Drop the slots a stopped pass planned but never reached; refresh classes_."""
        self._labels.truncate(int(self._n_active[0]))
        self.classes_ = self._labels.classes if len(self._labels) else np.empty(0)

    def _model(self):
        """The weights predictions use: ``(W,)``, or ``(w, wb)`` with a feature map.

        Once averaging has started (t >= a rounds learned) they are the mean of
        the weights after rounds a .. t, ``W - A / (t - a + 1)``, computed once
        per round count and kept until the next round
        (:func:`~olearn._averaging.kept_average`, keyed on the arrays and the count).
        """
        current = (self._w, self._wb) if self._uses_map else (self._W,)
        n = self._rounds_averaged()
        if not n:
            return current
        sums = (self._aw, self._awb) if self._uses_map else (self._A,)
        return kept_average(self, (*current, *sums, n),
                            lambda: tuple(array - total / n for array, total in zip(current, sums)))

    def _rounds_averaged(self):
        """How many rounds the mean is over, t - a + 1; 0 before averaging starts (t < a) or without it."""
        t, a = int(self._clock[0]), self._averaged_from
        return t - a + 1 if a and t >= a else 0

    @property
    def coef_(self):
        """Prototypes, shape (n_classes, n_features) in ``classes_`` order; with a feature map, w of shape (D,).

        With ``average`` on, their mean over the averaged rounds (once averaging has started).

        With ``kernel="linear"`` the prototypes ``sum_i alpha_ia x_i``; other kernels have none (AttributeError).
        """
        self._check_started()
        if self._uses_kernel:
            if self.kernel != "linear":
                raise AttributeError(
                    f"{type(self).__name__}: coef_ exists only for kernel=None or 'linear' (kernel={self.kernel!r} "
                    "keeps its prototypes in the kernel's feature space); see dual_coef_ and support_vectors_"
                )
            primal = self._dual.support_matrix(self.n_features_in_).T @ self._dual.coefficients(len(self._labels))
            return np.asarray(primal).T[self._labels.order]
        if self._uses_map:
            return self._model()[0][: self._map_dim].copy()
        return self._model()[0][: self.n_features_in_, self._labels.order].T.copy()

    @property
    def intercept_(self):
        """One intercept per class, shape (n_classes,); zeros unless ``fit_intercept=True``."""
        self._check_started()
        bias = 1.0 if self.fit_intercept else 0.0
        if self._uses_kernel:
            # the constant feature of the intercept sits in every support vector
            row = self._dual.coefficients(len(self._labels)).sum(axis=0)
        else:
            row = self._model()[1] if self._uses_map else self._model()[0][-1]
        return row[self._labels.order] * bias

    def _check_kernel(self, name):
        self._check_started()
        if not self._uses_kernel:
            raise AttributeError(f"{type(self).__name__}: {name} exists only with a kernel (kernel=None here)")

    @property
    def support_vectors_(self):
        """The support vectors, oldest first: a CSR matrix of shape ``(n_support_, n_features_in_)`` (kernel learners)."""
        self._check_kernel("support_vectors_")
        return self._dual.support_matrix(self.n_features_in_)

    @property
    def dual_coef_(self):
        """alpha: row a holds class a's coefficient of each support vector, shape ``(n_classes, n_support_)``."""
        self._check_kernel("dual_coef_")
        return self._dual.coefficients(len(self._labels))[:, self._labels.order].T.copy()

    @property
    def n_support_(self):
        """The number of support vectors (kernel learners); never above ``budget``."""
        self._check_kernel("n_support_")
        return self._dual.size

    # -- feature map ------------------------------------------------------------

    def _block(self, indices, data, n_features, n_rows, grow=True):
        """The class vectors Phi(x, a) of slots 0..n_rows-1 as one CSR block.

        Learning (``grow``) widens w to every coordinate Phi gave; prediction
        leaves w as it is and drops the coordinates past it (Phi of features
        never learned from, whose weight is 0).
        """
        pointers, bidx, bdat, widest = phi_block(
            self.feature_map, type(self).__name__, indices, data, n_features, self._labels.labels[:n_rows]
        )
        if grow:
            self._map_dim = max(self._map_dim, widest)
            self._grow_map(self._map_dim)
        else:
            seen = bidx < self._w.size
            if not seen.all():
                slots = np.repeat(np.arange(n_rows), np.diff(pointers))
                pointers[1:] = np.cumsum(np.bincount(slots[seen], minlength=n_rows))
                bidx, bdat = bidx[seen], bdat[seen]
        return pointers, bidx, bdat

    def _map_row(self, indices, data, n_features, slot, weight, margins, codes, params):
        """Learn one example of importance ``weight`` through the feature map.

        Returns (pred, loss, tau, mistake, status).
        """
        n_rows = max(int(self._n_active[0]), slot + 1)
        before = self._w, self._aw, self._map_dim
        pointers, bidx, bdat = self._block(indices, data, n_features, n_rows)
        scores, coef, work = self._scratch
        saved = np.empty(2 * (bdat.size + n_rows))
        outcome = K.feature_map_learn_row(pointers, bidx, bdat, slot, weight, self._w, self._wb, self._aw, self._awb,
                                          self._clock, self._n_active, self._labels.ranks, margins, params, codes,
                                          scores, coef, work, saved)
        if outcome[-1] != K.OK:
            # a refused row leaves w as wide as it was (the kernel has put back the values it wrote)
            self._w, self._aw, self._map_dim = before
        return outcome

    # -- learning -------------------------------------------------------------

    def _raise_for(self, status, where, rows_kept=None):
        """Raise the error of kernel ``status`` at ``where``; a batch that kept ``rows_kept`` rows says so."""
        name = type(self).__name__
        if status == K.NOT_ORTHONORMAL:
            raise ValueError(
                f"{name}: MIRA with a feature map needs class vectors Phi(x, a) that are orthogonal with equal "
                f"norms (as BlockFeatureMap gives), and those of {where} are not; the model is unchanged from there"
            )
        message = (f"{name}: the scores or the updated weights overflowed at {where}; the model keeps the updates made "
                   "before it. Scale the features or lower the step size.")
        raise FloatingPointError(message) if rows_kept is None else PartialUpdateError(message, rows_kept)

    def _progressive_pass(self, X, y, record, classes=None, sample_weight=None):
        """Predict then learn every row in order; return the per-round outputs.

        ``sample_weight``: None, or the checked importance weight of each row
        (:meth:`OnlineLearner._row_weights`).

        Returns (predictions, scores, losses, taus, mistakes, totals): predictions
        are labels (``classes_[0]`` where no class was known yet), scores have one column per
        class of ``classes_`` (-inf for a class not known at that round). A kernel
        learner adds a seventh entry: the size of its support set after each round.
        """
        codes, params = self._config()
        arrays = self._check_X(X, learning=True)
        y = check_y(y, arrays.n_rows)
        if arrays.n_rows == 0 and classes is None:
            return _empty_run()
        with self._first_call_atomic(arrays):
            # every check before any change: _add_classes adds nothing when it refuses
            self._check_feature_limit(arrays.n_features, "X")
            margins = self._add_classes(y, classes)
            self._grow_features(arrays.n_features, "X")
        slots = self._labels.slots(y)
        weights = UNWEIGHTED if sample_weight is None else sample_weight
        n = arrays.n_rows if record else 0
        k = len(self._labels)
        out_scores = np.empty((n, k))
        preds = np.empty(n, dtype=np.int64)
        losses, taus = np.empty(n), np.empty(n)
        mistakes = np.empty(n, dtype=bool)
        totals = np.zeros(_codes.N_TOTALS)
        if self._uses_kernel:
            supports = np.empty(n, dtype=np.int64)
            dense = None if sp.issparse(X) or is_named_batch(X) else np.asarray(X, dtype=np.float64)
            stopped = self._dual_pass(arrays, dense, slots, weights, margins,
                                      (out_scores, preds, losses, taus, mistakes, supports), totals)
            status = K.OVERFLOW
        elif self._uses_map:
            stopped, status = self._map_pass(arrays, slots, weights, margins, codes, params, out_scores, preds, losses,
                                             taus, mistakes, totals)
        else:
            scores, coef, work = self._scratch
            kernel_pass = K.pa_multiclass_pass if codes[K.MK_RULE] == K.RULE_PA else K.multiclass_pass
            stopped = kernel_pass(arrays.indptr, arrays.indices, arrays.data, slots, weights, self._W, self._bound,
                                  self._A, self._clock, self._n_active, self._labels.ranks, margins, params, codes,
                                  scores, coef, work, out_scores, preds, losses, taus, mistakes, totals)
            status = K.OVERFLOW
        order = self._labels.order.copy()
        labels = np.asarray(self._labels.labels)
        self._after_pass()
        if stopped >= 0:
            self._raise_for(status, f"row {stopped}", rows_kept=stopped)
        # a kernel learner appends the size of its support set after each round
        sizes = (supports,) if self._uses_kernel else ()
        if not record:
            return np.empty(0), np.empty((0, 0)), losses, taus, np.empty(0, dtype=bool), totals, *sizes
        # a round with no class known yet names none, shown as classes_[0] (a binary learner's zero score) and
        # counted as a mistake
        predictions = labels[np.where(preds < 0, order[0], preds)]
        return predictions, out_scores[:, order], losses, taus, mistakes, totals, *sizes

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the rows of X not ``held`` in order, and score the held-out ones on the prototypes of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:func:`~olearn._kernels._multiclass.held_out_multiclass_pass`):
        the learned rows end as ``partial_fit`` of them alone would (only their
        labels add classes), and a held-out row is predicted as ``predict``
        would predict it then (the top-scoring class known at that moment, a
        tie to the class that sorts first). Returns ``(predictions, scores,
        losses, taus, mistakes, totals)`` of every row in order, as
        :meth:`_progressive_pass` (a held-out row's mistake is a prediction
        other than its label; its loss and tau are 0) with the totals of the
        learned rows only; or None, the learner untouched, where this pass does
        not apply (a kernel, a feature map) or the chunk is refused (the
        caller then learns it by the general path, which says why). With
        ``average`` a held-out row is scored by the mean of the prototypes of
        its moment, as ``predict`` scores it, and is no round of the averaging.
        """
        if self._uses_kernel or self._uses_map:
            return None
        return held_out_chunk(self, ("_W", "_A", "_bound", "_clock", "_n_active"), ("_labels", "classes_"),
                              lambda: self._held_out_slots(X, y, held, sample_weight),
                              lambda checked: self._held_out_rows(*checked, held))

    def _held_out_slots(self, X, y, held, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, labels and weights read, and the
        learner grown to its columns and the classes of its learned rows; returns ``(arrays, y, slots, weights,
        margins, codes, params)``."""
        weights = self._row_weights(X, y, sample_weight)
        codes, params = self._config()
        arrays = self._check_X(X, learning=True)
        y = check_y(y, arrays.n_rows)
        learned = ~held
        with self._first_call_atomic(arrays):
            self._check_feature_limit(arrays.n_features, "X")
            margins = self._add_classes(y[learned])
            self._grow_features(arrays.n_features, "X")
        slots = np.zeros(arrays.n_rows, dtype=np.int64)
        slots[learned] = self._labels.slots(y[learned])
        return arrays, y, slots, weights, margins, codes, params

    def _held_out_rows(self, arrays, y, slots, weights, margins, codes, params, held):
        """:func:`~olearn._kernels._multiclass.held_out_multiclass_pass` over checked rows: the outputs of
        :meth:`_held_out_pass`, or None where an overflow stopped it."""
        n, k = arrays.n_rows, len(self._labels)
        out_scores = np.empty((n, k))
        preds = np.empty(n, dtype=np.int64)
        losses, taus = np.empty(n), np.empty(n)
        mistakes = np.empty(n, dtype=bool)
        totals = np.zeros(_codes.N_TOTALS)
        scores, coef, work = self._scratch
        stopped = K.held_out_multiclass_pass(arrays.indptr, arrays.indices, arrays.data, slots,
                                             UNWEIGHTED if weights is None else weights, held, self._W, self._bound,
                                             self._A, self._clock, self._n_active, self._labels.ranks, margins,
                                             params, codes, scores, coef, work, out_scores, preds, losses, taus,
                                             mistakes, totals)
        if stopped >= 0:
            return None
        order = self._labels.order.copy()
        labels = np.asarray(self._labels.labels)
        self._after_pass()
        in_order = out_scores[:, order]
        predictions = labels[np.where(preds < 0, order[0], preds)]
        predictions[held] = labels[order[np.argmax(in_order[held], axis=1)]]
        mistakes[held] = predictions[held] != y[held]
        return predictions, in_order, losses, taus, mistakes, totals

    def _map_pass(self, arrays, slots, weights, margins, codes, params, out_scores, preds, losses, taus, mistakes,
                  totals):
        """The feature-map twin of ``multiclass_pass``: the same row kernel, driven from Python."""
        record = preds.size > 0
        weighted = weights.size > 0
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            known = int(self._n_active[0])
            pred, loss, tau, mistake, status = self._map_row(
                arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, int(slots[i]),
                float(weights[i]) if weighted else 1.0, margins, codes, params)
            if status != K.OK:
                totals[_codes.T_ROUNDS] += i
                return i, status
            scores, coef, _ = self._scratch
            if record:
                out_scores[i, :known] = scores[:known]
                out_scores[i, known:] = -np.inf
                preds[i], losses[i], taus[i], mistakes[i] = pred, loss, tau, mistake
            totals[_codes.T_MISTAKES] += mistake
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += bool(np.any(coef[: self._n_active[0]] != 0.0))
        totals[_codes.T_ROUNDS] += arrays.n_rows
        return -1, K.OK

    def _dual_pass(self, arrays, dense, slots, weights, margins, outputs, totals):
        """The kernel twin of ``multiclass_pass``: compiled, or row by row for a Python kernel.

        ``dense``: the rows as a dense array when they came so (None for sparse input).
        """
        config = self._dual_config()
        kernel = self._python_kernel
        if kernel is None:
            return self._dual.compiled_pass(arrays, dense, slots, weights, self._n_active, self._labels.ranks, margins,
                                            config, self._scratch, outputs, totals)
        out_scores, preds, losses, taus, mistakes, supports = outputs
        record = preds.size > 0
        weighted = weights.size > 0
        for i in range(arrays.n_rows):
            lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
            known = int(self._n_active[0])
            pred, loss, tau, mistake, moved, status = self._dual.learn_row(
                kernel, arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, int(slots[i]),
                float(weights[i]) if weighted else 1.0, self._n_active,
                self._labels.ranks, margins, config, self._scratch, type(self).__name__)
            if status != K.OK:
                totals[_codes.T_ROUNDS] += i
                return i
            if record:
                out_scores[i, :known] = self._scratch[0][:known]
                out_scores[i, known:] = -np.inf
                preds[i], losses[i], taus[i], mistakes[i], supports[i] = pred, loss, tau, mistake, self._dual.size
            totals[_codes.T_MISTAKES] += mistake
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += moved
        totals[_codes.T_ROUNDS] += arrays.n_rows
        return -1

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from the rows of X in order (one online pass); returns self.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Any hashable, sortable labels; a new label adds a class.
        classes : array-like, optional
            Classes to add at once, before the first row (they can be predicted from
            then on); required on the first call by a cost matrix that the first
            batch does not cover.
        sample_weight : float or array-like of shape (n_samples,), optional
            Importance weight of each row (finite, >= 0), multiplied by the weight of
            its true class under ``class_weight``; what a weight does to the step is
            stated in the class docstring.
        """
        self._config()  # a bad class_weight is named as a hyperparameter before the weights are computed
        weights = self._row_weights(X, y, sample_weight)
        self._progressive(X, y, record=False, classes=classes, sample_weight=weights)
        return self

    def _learn_row(self, indices, data, n_features, y, sample_weight=None, new=None):
        """Learn one converted example (its new names ``new``); return the predicted label before the update
        (None if no class was known)."""
        codes, params = self._config()
        label = check_label(y)
        weight = self._weight_one(y, sample_weight)
        if (self._is_started() and n_features <= self.n_features_in_ and new is None
                and y in self._labels.slot_of):
            return self._learn_known(indices, data, n_features, y, weight, self._add_classes(label), codes, params)
        # growing, meeting a class or naming a feature, the learner must be put back if the example
        # is then refused, by its label or by an overflow
        with self._first_call_atomic(new=new):
            self._check_feature_limit(n_features, "x")
            margins = self._add_classes(label)
            if n_features > self.n_features_in_:
                self._grow_features(n_features, "x")
            return self._learn_known(indices, data, n_features, y, weight, margins, codes, params)

    def _learn_known(self, indices, data, n_features, y, weight, margins, codes, params):
        """Learn one example whose features and label have room; return the prediction before the update."""
        slot = self._labels.slot_of[y]
        if self._uses_kernel:
            pred, _, _, _, _, status = self._dual.learn_row(self._python_kernel, indices, data, n_features, slot,
                                                            weight, self._n_active, self._labels.ranks, margins,
                                                            self._dual_config(), self._scratch, type(self).__name__)
        elif self._uses_map:
            pred, _, _, _, status = self._map_row(indices, data, n_features, slot, weight, margins, codes, params)
        else:
            scores, coef, work = self._scratch
            pred, status = K.multiclass_learn_one(indices, data, slot, weight, self._W, self._bound, self._A,
                                                  self._clock, self._n_active, self._labels.ranks, margins, params,
                                                  codes, scores, coef, work)
        labels = self._labels.labels
        predicted = plain_label(labels[pred]) if pred >= 0 else None
        self._after_pass()
        if status != K.OK:
            self._raise_for(status, "this example")
        return predicted

    def learn_one(self, x, y, sample_weight=None):
        """Learn one example ``x`` (dict, 1-d array or sparse row), label ``y``, importance ``sample_weight``; returns self.

        A dict's keys are column indices (integers) or feature names; see
        :mod:`olearn._features` for names, categories and ``n_bits``.
        """
        self._config()
        indices, data, n_features, new = self._learning_row(x)
        self._learn_row(indices, data, n_features, y, sample_weight, new)
        return self

    def predict_learn_one(self, x, y, sample_weight=None):
        """Predict ``x`` with the current weights, then learn it; return the prediction (None before any class)."""
        self._config()
        indices, data, n_features, new = self._learning_row(x)
        return self._learn_row(indices, data, n_features, y, sample_weight, new)

    # -- prediction -----------------------------------------------------------

    def _slot_scores(self, arrays):
        """Scores of every row for every class, in slot order."""
        k = int(self._n_active[0])
        out = np.empty((arrays.n_rows, k))
        _, params = self._config()
        bias = params[K.MP_BIAS]
        if self._uses_kernel:
            if self._python_kernel is None:
                # unseen features meet no support vector but count in ||x||^2: one shared column holds them
                arrays = seen_columns(arrays, self.n_features_in_, sink=True)
            else:
                # the callable sees dense rows as wide as the input: refused before allocating them
                self._check_feature_limit(arrays.n_features, "X")
            return self._dual.decision(arrays, k, self._dual_config(), self._python_kernel, type(self).__name__)
        if self._uses_map:
            w, wb = self._model()
            for i in range(arrays.n_rows):
                lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
                pointers, bidx, bdat = self._block(arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, k,
                                                   grow=False)
                K.block_scores(pointers, bidx, bdat, w, wb, bias, k, out[i])
            return out
        arrays = seen_columns(arrays, self._W.shape[0] - 1)
        rounds = self._rounds_averaged()
        if rounds and averages_entries(arrays.indices.size, self._W.shape[0]):
            # the entries of a few rows averaged alone: the scores of _model()'s mean, bit for bit, for O(nnz k)
            # work (not the O(d k) of the whole mean again after each round)
            averaged_class_scores(arrays.indptr, arrays.indices, arrays.data, self._W, self._A, float(rounds), k,
                                  bias, out)
        else:
            K.multiclass_scores(arrays.indptr, arrays.indices, arrays.data, self._model()[0], k, bias, out)
        return out

    def _check_width(self, n_features, where):
        if self.n_features is not None and n_features > self.n_features:
            raise ValueError(f"{where} has {n_features} features, more than n_features={self.n_features}")

    def _class_scores(self, X):
        """The score of every class, shape (n_samples, n_classes), columns in ``classes_`` order."""
        self._check_started()
        arrays = self._check_X(X)
        self._check_width(arrays.n_features, "X")
        return self._slot_scores(arrays)[:, self._labels.order]

    def decision_function(self, X):
        """Class scores, shape (n_samples, n_classes), columns in ``classes_`` order.

        With exactly two classes known, scikit-learn's binary convention: one
        score per row, shape (n_samples,), that of ``classes_[1]`` minus that
        of ``classes_[0]`` (positive means ``classes_[1]``, as ``predict``).
        """
        scores = self._class_scores(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """The top-scoring class of each row; a tie goes to the class that sorts first."""
        scores = self._class_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_one(self, x):
        """Predicted class of one example, or None before any class is known (the input is checked either way)."""
        self._config()
        return self._predict_row(*self._row(x))

    def _predict_row(self, indices, data, n_features):
        """The class predicted for one converted example, or None before any class is known."""
        self._config()
        if not self._is_started() or self._n_active[0] == 0:
            return None
        self._check_width(n_features, "x")
        arrays = CSRArrays(np.array([0, indices.size], dtype=np.int64), indices, data, 1, n_features)
        return plain_label(self.classes_[int(np.argmax(self._slot_scores(arrays)[0, self._labels.order]))])

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: the distinct labels in slot order, and one prototype per class (a column of
        ``weights``, the intercept's row last) or with a kernel the support set with a coefficient per class.

        With ``average`` on, also the averaged sum of the weights (``average_sum``, shaped as
        ``weights``) and the count of rounds learned (``rounds``, one entry); the sum is 0
        until averaging has started.
        """
        fixed = self._fixed_classes()
        schema = StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={"labels": Array(LABELS, ("n_classes",))},
            relations=[distinct("labels")],
            limits={**self._width_limits(), **({} if fixed is None else {"n_classes": (fixed, fixed)})},
        )
        if self._uses_kernel:
            return schema.extended(**vars(SupportSet.state_schema("n_classes", self.budget)))
        schema = schema.extended(arrays={"weights": Array("float64", ("n_features_in+1", "n_classes"))})
        start = average_start(self.average)
        if not start:
            return schema
        return schema.extended(
            arrays={"average_sum": Array("float64", ("n_features_in+1", "n_classes")),
                    "rounds": Array("int64", (1,), values=COUNT)},
            relations=[_sum_starts_after(start)],
        )

    def _get_state(self):
        self._check_started()
        if self._uses_map or self._python_kernel is not None:
            what = "feature_map" if self._uses_map else "callable kernel"
            raise ValueError(
                f"{type(self).__name__}: a model with a {what} cannot be saved portably (the {what} is Python "
                "code); use pickle instead"
            )
        k = len(self._labels)
        if self._uses_kernel:
            arrays = {"labels": np.asarray(self._labels.labels), **self._dual.to_arrays(k)}
            return arrays, {"n_features_in": self.n_features_in_}
        arrays = {"labels": np.asarray(self._labels.labels), "weights": _saved(self._W, self.n_features_in_, k)}
        if self._averaging:
            arrays["average_sum"] = _saved(self._A, self.n_features_in_, k)
            arrays["rounds"] = self._clock.copy()
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        self._config()
        self._start()
        labels = arrays["labels"]
        self._labels.set_labels(list(labels))
        self._grow_classes(len(labels))
        self._n_active[0] = len(labels)
        self.classes_ = self._labels.classes if len(labels) else np.empty(0)
        self._grow_features(int(state["n_features_in"]), "n_features_in")
        if self._uses_kernel:
            self._dual.load_arrays(arrays)
            return
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        _restore(self._W, weights)
        self._bound[0] = np.abs(weights).max(initial=0.0)
        if self._averaging:
            total = np.asarray(arrays["average_sum"], dtype=np.float64)
            _restore(self._A, total)
            self._clock[0] = int(arrays["rounds"][0])
            # the kernel's guard takes |A| <= (t - a) * bound, true of every sum it wrote itself
            stamp = self._clock[0] - self._averaged_from
            if stamp > 0:
                self._bound[0] = max(self._bound[0], np.abs(total).max(initial=0.0) / stamp)
