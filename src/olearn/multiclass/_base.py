"""The shared machinery of the multiclass learners.

A learner here is a preset of the multiclass kernel (:mod:`olearn._kernels._multiclass`):
it names a rule (PA with a rival, an ultraconservative Perceptron split, MIRA),
its hyperparameters and, for the cost-sensitive learner, the margins sqrt(rho);
:class:`MulticlassLearner` holds everything else: classes, weights, growth,
scores; its parts have modules of their own: the prototypes' growth and saved
layout (:mod:`~olearn.multiclass._prototypes`), the kernel path
(:mod:`~olearn.multiclass._with_kernel`), the feature-map path
(:mod:`~olearn.multiclass._with_feature_map`), the hold-out pass
(:mod:`~olearn.multiclass._held_out_pass`) and the saved state
(:mod:`~olearn.multiclass._saved_state`). Without a feature map the model
keeps one prototype per class (``coef_`` of shape (k, d)); with ``feature_map`` it keeps one vector w and
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
from .._docstrings import shared_entries
from .._estimator import ClassifierEstimator
from ..exceptions import PartialUpdateError
from .._kernels import _codes, _compiled
from .._kernels import _multiclass_codes as K
from .._lazy import LazyModule
from .._labels import plain_label
from .._learner import ManyRows, OnlineLearner, is_named_batch
from .._params import BOOLEAN, Interval, NoneOr
from .._validation import CSRArrays, check_label, check_y, seen_columns
from .._weights import CLASS_WEIGHT, UNWEIGHTED
from ..kernel._hyperparameters import KERNEL_CONSTRAINTS, mercer_arrays
from ._classes import ClassSlots
from ._dual import DualModel
from ._feature_maps import CallableOrNone
from ._held_out_pass import HeldOutPass
from ._prototypes import grown, grown_columns, grown_rows
from ._saved_state import SavedState
from ._with_feature_map import FeatureMapPath
from ._with_kernel import KernelPath

# the kernels that olearn's build does not compile (olearn._kernels._compiled), imported at their first call: a
# run on the compiled passes starts no numba
_multiclass = LazyModule("olearn._kernels._multiclass")
_lazy_average = LazyModule("olearn._kernels._lazy_average")

_COMMON_CONSTRAINTS = {
    "fit_intercept": BOOLEAN,
    "n_features": NoneOr(Interval(1, None, integer=True)),
    "feature_map": CallableOrNone(),
    **KERNEL_CONSTRAINTS,
    "average": AVERAGE,
    "class_weight": CLASS_WEIGHT,
}


def _empty_run():
    empty = np.empty(0)
    return empty, np.empty((0, 0)), empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)


class MulticlassLearner(KernelPath, FeatureMapPath, HeldOutPass, SavedState, ManyRows, OnlineLearner,
                        ClassifierEstimator):
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
                    self._interleave(grown_rows(self._W, new_capacity), grown_rows(self._A, new_capacity))
                else:
                    self._W = grown_rows(self._W, new_capacity)
        if n_features > self.n_features_in_:
            self.n_features_in_ = int(n_features)

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
                self._wb = grown(self._wb, new_capacity)
                if self._averaging:
                    self._awb = grown(self._awb, new_capacity)
            else:
                if self._averaging:
                    self._interleave(grown_columns(self._W, new_capacity), grown_columns(self._A, new_capacity))
                else:
                    self._W = grown_columns(self._W, new_capacity)
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
            kernel_pass = _compiled.pa_multiclass_pass if codes[K.MK_RULE] == K.RULE_PA else _compiled.multiclass_pass
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

    @shared_entries
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
            <shared entry: sample_weight>
            It is multiplied by the weight of the example's true class under ``class_weight``.
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
            pred, status = _multiclass.multiclass_learn_one(indices, data, slot, weight, self._W, self._bound, self._A,
                                                            self._clock, self._n_active, self._labels.ranks, margins,
                                                            params, codes, scores, coef, work)
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
                _multiclass.block_scores(pointers, bidx, bdat, w, wb, bias, k, out[i])
            return out
        arrays = seen_columns(arrays, self._W.shape[0] - 1)
        rounds = self._rounds_averaged()
        if rounds and averages_entries(arrays.indices.size, self._W.shape[0]):
            # the entries of a few rows averaged alone: the scores of _model()'s mean, bit for bit, for O(nnz k)
            # work (not the O(d k) of the whole mean again after each round)
            _lazy_average.averaged_class_scores(arrays.indptr, arrays.indices, arrays.data, self._W, self._A,
                                                float(rounds), k, bias, out)
        else:
            _compiled.multiclass_scores(arrays.indptr, arrays.indices, arrays.data, self._model()[0], k, bias, out)
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
