"""Passive-Aggressive multilabel ranking (Crammer et al. 2006, Sec. 7)."""

import contextlib
import math

import numpy as np

from .._averaging import (
    AVERAGE,
    average_start,
    averaged,
    averaging_relation,
    check_average_unchanged,
    forget_average,
    interleaved,
    kept_average,
    n_averaged,
    new_averaging,
    reads_entries,
)
from .._estimator import ClassifierEstimator, score_weights
from .._held_out import held_out_chunk
from ..exceptions import PartialUpdateError
from .._kernels import _codes
from .._kernels import _multilabel as K
from .._kernels._codes import A_ROUNDS, A_START, N_AVERAGING
from .._kernels._lazy_average import averaged_label_scores, round_age
from .._learner import ManyRows, OnlineLearner
from .._params import BOOLEAN, Interval, NoneOr, Options
from .._state_schema import LABELS, Array, Count, StateSchema, distinct, entry_is
from .._validation import CSRArrays, seen_columns
from .._weights import UNWEIGHTED
from ..multiclass._base import CallableOrNone
from ..multiclass._feature_maps import phi_block
from ._labels import LabelIndex, label_array, label_collection, ranking_margins, read_label_rows

_STEP_RULES = {"pa": _codes.STEP_PA, "pa1": _codes.STEP_PA1, "pa2": _codes.STEP_PA2}


class PAMultilabel(ManyRows, OnlineLearner, ClassifierEstimator):
    r"""Passive-Aggressive label ranking with sets of relevant labels (multi-prototype).

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Sec. 7, with the multi-vector construction
    :math:`\Phi(x, r) = (0, \dots, x, \dots, 0)` (x in block r): one weight
    vector :math:`w_r` per label. Each example comes with its set
    :math:`Y_t` of relevant labels; the margin is the gap between the lowest
    relevant score and the highest irrelevant one,

    .. math:: \gamma_t = \min_{r \in Y_t} w_r \cdot x_t - \max_{s \notin Y_t} w_s \cdot x_t,
        \qquad \ell_t = \max(0,\ 1 - \gamma_t),

    and the update moves the worst pair :math:`r^* = \arg\min_{r \in Y_t}`,
    :math:`s^* = \arg\max_{s \notin Y_t}` along
    :math:`z_t = \Phi(x_t, r^*) - \Phi(x_t, s^*)`,

    .. math:: w_{r^*} \leftarrow w_{r^*} + \tau_t x_t, \quad
        w_{s^*} \leftarrow w_{s^*} - \tau_t x_t, \qquad \|z_t\|^2 = 2\|x_t\|^2,

    with :math:`\tau_t` from the shared PA step (PA :math:`\ell_t/\|z_t\|^2`,
    PA-I :math:`\min\{C, \ell_t/\|z_t\|^2\}`, PA-II
    :math:`\ell_t/(\|z_t\|^2 + \frac{1}{2C})`). PA puts the chosen pair exactly
    1 apart; another pair may still be closer afterwards, since the update
    enforces the one constraint of the worst pair, as the paper's does.
    Ties in the argmin / argmax go to the label that appeared first in the
    stream (or was declared first). With ``fit_intercept=True`` the constant
    feature 1 counts in :math:`\|x_t\|^2`.

    **Rows with nothing to rank.** When :math:`Y_t` is empty or holds every
    label known, one of the two extremes is over no label; olearn takes the
    usual conventions :math:`\min \emptyset = +\infty`,
    :math:`\max \emptyset = -\infty`: the margin is :math:`+\infty`, the loss
    0, and the row changes nothing (not a mistake either).

    **Labels.** ``y`` is one collection of relevant labels per row (lists,
    tuples, sets, as :func:`olearn.data.load_libsvm` gives them with
    ``multilabel=True``; a list of lists is read as label sets), or a binary
    indicator matrix (a 2-d NumPy array or sparse matrix) whose columns are
    ``classes_`` in order; on the first call such a matrix names the labels
    0..k-1 unless ``classes=`` names them. A label first met in the middle of
    the stream joins the ranking from that row on, with a zero weight vector;
    ``classes=`` on the first call puts labels in the ranking from the start.
    ``classes_`` lists the labels sorted.

    **Prediction.** :meth:`decision_function` gives the scores
    :math:`w_r \cdot x` (n, k); :meth:`predict` the indicator matrix of the
    labels scored above 0 (the columns of ``classes_``);
    :meth:`predict_ranking` the labels by decreasing score. The threshold 0 is
    the mean score: every update adds :math:`\tau x` to one weight vector and
    subtracts it from another, so the weight vectors (and any example's
    scores) always sum to zero. A round of :func:`olearn.run` is a **mistake**
    when its ranking is wrong, :math:`\gamma_t \le 0` (some relevant label
    scores no higher than some irrelevant one; a tie counts). The run's
    ``scores`` are the margins :math:`\gamma_t` (``inf`` on rows with nothing
    to rank) and its ``predictions`` the indicator rows :meth:`predict` would
    have given before each update.

    **A joint feature map** (``feature_map=phi``, the single-prototype
    setting of Sec. 7). Label r scores :math:`w \cdot \Phi(x, r)` with one
    weight vector w and ``phi(x, r)`` the label-dependent features (a callable
    as :class:`~olearn.multiclass.PAMulticlass` takes it: x as a 1 x d CSR
    row and a label, returning a 1-d array, a sparse row or a dict). The
    update is Eq. (38), :math:`w \leftarrow w + \tau_t(\Phi(x_t, r_t) -
    \Phi(x_t, s_t))`, with :math:`\tau_t` as given after Eq. (38) and its
    PA-I / PA-II forms, :math:`\|\Phi(x_t, r_t) - \Phi(x_t, s_t)\|^2`
    measured on the two vectors as given. With
    ``feature_map=BlockFeatureMap(classes, n_features)`` this is exactly the
    multi-prototype learner above (the reduction of Sec. 7, Eq. (39)-(41),
    checked by the tests). ``coef_`` is then w, of shape (D,) (D the largest
    dimension ``phi`` returned); with ``fit_intercept=True`` each label also
    has an intercept weight (``intercept_``) on a constant feature 1 of its
    own, which adds 2 to :math:`\|z_t\|^2`. A model with a feature map
    pickles (if ``phi`` does) but cannot be saved with ``save``.

    **Importance weights** (``sample_weight`` of :meth:`partial_fit`,
    :meth:`learn_one` and :func:`olearn.run`; beyond the text). An example of
    weight :math:`v \ge 0` is learned with the aggressiveness :math:`vC`:
    PA-I :math:`\tau = \min\{vC, \ell_t/\|z_t\|^2\}`, PA-II
    :math:`\tau = \ell_t/(\|z_t\|^2 + \frac{1}{2vC})`, PA (C infinite) the
    plain step for any :math:`v > 0`; weight 0 makes no update (the round
    still counts, in the totals and in the average). For PA-I an integer
    weight :math:`v` is the example repeated v times as long as the worst pair
    stays the same over the repeats (the loss of each repeat is the previous
    one minus :math:`\tau\|z_t\|^2`); PA-II has no such identity and is the
    closed form above. There is no ``class_weight``: a row has a set of
    relevant labels, not one class to weigh it by.

    **Averaging** (``average``, scikit-learn's SGD semantics; beyond the
    text). With ``average=True`` (or an integer a: from the a-th example
    learned on) :meth:`decision_function`, :meth:`predict`,
    :meth:`predict_ranking`, :meth:`predict_one`, ``coef_``, ``intercept_``
    and saved models use the mean of the weights left by each round (from
    round a on, every round counting once); before round a they use the
    current weights. The rounds of :func:`olearn.run` are scored with the
    current weights, as the online learner predicts. The mean is kept by a
    running correction updated on the coordinates each update touches
    (:mod:`olearn._kernels._lazy_average`), so a sparse update stays O(nnz),
    kept beside the weights (one array of records (weight, correction)) so
    that an averaged prediction costs about what a plain one does;
    with a feature map it averages w and the intercept weights the same way.
    ``average`` cannot be changed once learning started (``fit`` starts over).

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
    fit_intercept : bool, default=False
    n_features : int or None, default=None
        Fix the dimension; a larger feature index is then an error.
    feature_map : callable or None, default=None
        ``phi(x, label)``: the joint features :math:`\Phi(x, y)`; None keeps one
        weight vector per label.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        The passes of ``fit`` (defaults 1000, 1e-3, 5, True, None), as in
        scikit-learn's ``SGDClassifier``: see :meth:`fit`. ``partial_fit``,
        ``learn_one`` and :func:`olearn.run` make one pass in order.
    average : bool or int, default=False
        Predict with the averaged weights: True from the first example, an
        integer a from the a-th example on.
    n_bits : int or None, default=None
        How the feature names of dict examples become columns: None learns a
        vocabulary (``vocabulary_``, saved with the model), an integer b in
        [1, 31] hashes each name into ``2**b`` columns with MurmurHash3, as
        :func:`olearn.data.load_vw` does (feature indices then stay below
        ``2**b``; a fixed ``n_features`` must be ``2**b``). Integer keys are
        column indices either way.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features), or (D,) with ``feature_map``
    intercept_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.multilabel import PAMultilabel
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> labels = ["news", "sport", "tech"]
    >>> est = PAMultilabel(variant="pa").partial_fit(X, [{"news", "sport"}, {"tech"}], classes=labels)
    >>> est.coef_        # row 0: worst pair (news, tech), tau = 1/2; row 1: (tech, news), tau = 1/2
    array([[ 0.5, -0.5],
           [ 0. ,  0. ],
           [-0.5,  0.5]])
    >>> est.predict(X)
    array([[1, 0, 0],
           [0, 0, 1]])
    >>> est.predict_one({1: 1.0})
    ['tech']
    >>> est.predict_ranking(X[:1])
    array([['news', 'sport', 'tech']], dtype='<U5')

    Without ``classes=`` a label joins the ranking on the first row that names
    it: here "tech" does not exist yet on row 0, which then has nothing to rank.

    >>> PAMultilabel(variant="pa").partial_fit(X, [{"news", "sport"}, {"tech"}]).coef_
    array([[ 0. , -0.5],
           [ 0. ,  0. ],
           [ 0. ,  0.5]])
    """

    _task = "multilabel"

    def __sklearn_tags__(self):
        # y is a set of relevant labels per row (or an indicator matrix), and so are the predictions
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _expected_failed_checks(self):
        # scikit-learn makes the y of its generic checks, for an estimator without single-output
        # targets, a column of class numbers (multiclass-multioutput); its multilabel checks run
        column = (
            "y of a multilabel learner is one set of relevant labels per row (label collections, or a 0/1 indicator "
            "matrix); the check gives a column of class numbers 0, 1, 2 (scikit-learn's multiclass-multioutput "
            "form), which is neither, and is refused"
        )
        single = (
            "the check gives a 1-d y of single labels, which a multilabel learner refuses rather than guess whether "
            "each entry is one label or a collection (one label per row is written [label])"
        )
        lists = (
            "a list of lists is read as label collections ([[1, 3], [2]]: olearn's documented form, as "
            "load_libsvm(multilabel=True) gives it); only a 2-d array or a sparse matrix is an indicator matrix, "
            "so the check's list of 0/1 lists names other labels than its indicator array"
        )
        checks = dict.fromkeys(
            ["check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
             "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
             "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
             "check_estimator_sparse_tag", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
             "check_f_contiguous_array_estimator", "check_classifier_data_not_an_array",
             "check_estimators_partial_fit_n_features", "check_classifiers_train",
             "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_fit2d_1feature",
             "check_dict_unchanged", "check_fit2d_predict1d", "check_sample_weights_not_an_array",
             "check_sample_weights_list", "check_sample_weights_pandas_series", "check_sample_weights_shape",
             "check_sample_weights_not_overwritten",
             "check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data",
             "check_non_transformer_estimators_n_iter"],
            column,
        )
        checks.update(dict.fromkeys(
            ["check_classifiers_one_label", "check_classifiers_one_label_sample_weights", "check_classifiers_classes",
             "check_classifiers_regression_target"],
            single,
        ))
        checks["check_classifiers_multilabel_representation_invariance"] = lists
        return checks

    _learned = ("_W", "_w", "_wb", "_U", "_uw", "_uwb", "_averaging", "_map_dim", "_state", "_labels", "classes_",
                "n_features_in_")
    _changed_in_place = ("_state", "_labels", "_averaging")
    # the labels a batch adds are forgotten by their count (see _restore), the rest copied
    _batch_in_place = ("_state", "_averaging")
    _started_by = "_state"
    _constraints = {
        "variant": Options("pa", "pa1", "pa2"),
        "C": Interval(0, None, closed="neither"),
        "fit_intercept": BOOLEAN,
        "n_features": NoneOr(Interval(1, None, integer=True)),
        "feature_map": CallableOrNone(),
        "average": AVERAGE,
    }

    def __init__(self, variant="pa1", C=1.0, fit_intercept=False, n_features=None, feature_map=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None,
                 average=False, n_bits=None):
        self.variant = variant
        self.C = C
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.feature_map = feature_map
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.n_bits = n_bits

    # -- hyperparameters ------------------------------------------------------

    def _config_arrays(self):
        """The kernel's ``codes`` and ``params``, rebuilt only after a hyperparameter changed."""
        return self._checked_config(self._build_config)

    def _build_config(self):
        if self._is_started():
            check_average_unchanged(self, self._averaging)
        codes = np.zeros(K.N_MULTILABEL_CODES, dtype=np.int64)
        codes[K.M_STEP] = _STEP_RULES[self.variant]
        params = np.zeros(K.N_MULTILABEL_PARAMS)
        params[K.M_C] = math.inf if self.variant == "pa" else self.C
        params[K.M_BIAS] = 1.0 if self.fit_intercept else 0.0
        return codes, params

    # -- learned state --------------------------------------------------------

    @property
    def _uses_map(self):
        return self.feature_map is not None

    @property
    def _averages(self):
        return bool(self._averaging[A_START])

    def _start(self):
        self._averaging = new_averaging(self.average)
        if self._uses_map:
            self._w = np.zeros(0)
            self._wb = np.zeros(0)
            self._uw = np.zeros(0)
            self._uwb = np.zeros(0)
            self._map_dim = 0
        else:
            self._W = np.zeros((0, 1))
            self._U = np.zeros((0, 1))
            self._interleave()
        self._state = np.zeros(K.N_MULTILABEL_STATE, dtype=np.int64)
        self._labels = LabelIndex(type(self).__name__)
        self.classes_ = self._labels.classes
        self.n_features_in_ = 0
        if self.n_features is not None:
            self._grow_features(self.n_features, "n_features")

    def _state_bytes(self, n_features):
        """One weight vector (with its intercept) per label, and as much again for the averaging correction."""
        labels = self._W.shape[0] if hasattr(self, "_W") else 1
        copies = 2 if average_start(self.average) else 1
        return 8 * (n_features + 1) * max(labels, 1) * copies

    def _grow_features(self, n_features, where):
        self._check_feature_limit(n_features, where)
        if self._uses_map:
            self.n_features_in_ = max(self.n_features_in_, int(n_features))
            return
        capacity = self._W.shape[1] - 1
        if n_features > capacity:
            new_capacity = n_features if capacity == 0 else max(n_features, 2 * capacity)
            self._W = _widened(self._W, new_capacity)
            if self._averages:
                self._U = _widened(self._U, new_capacity)
                self._interleave()
        self.n_features_in_ = max(self.n_features_in_, int(n_features))

    def _sync_labels(self):
        """Give every label known a weight vector (zeros for the new ones)."""
        k = len(self._labels)
        if self._uses_map:
            if k > self._wb.size:
                size = max(k, 2 * self._wb.size)
                self._wb = _lengthened(self._wb, size)
                if self._averages:
                    self._uwb = _lengthened(self._uwb, size)
        elif k > self._W.shape[0]:
            self._W = _lengthened(self._W, k)
            if self._averages:
                self._U = _lengthened(self._U, k)
                self._interleave()
        self.classes_ = self._labels.classes

    def _predicting(self):
        """The weights predictions use: (W,) or (w, wb) with a map, averaged when ``average`` is on."""
        if self._uses_map:
            return averaged(self._w, self._uw, self._averaging), averaged(self._wb, self._uwb, self._averaging)
        if not self._averages:
            return (self._W,)
        # kept until the state changes (:func:`~olearn._averaging.kept_average`)
        return (kept_average(self, self._U, lambda: averaged(self._W, self._U, self._averaging)),)

    def _interleave(self):
        """Lay W and U out side by side (:func:`~olearn._averaging.interleaved`), when averaging without a map."""
        if self._averages:
            self._W, self._U = interleaved(self._W, self._U)

    def __setstate__(self, state):
        # pickle and deepcopy copy the two views of the records apart: laid side by side again
        super().__setstate__(state)
        if "_U" in state:
            self._interleave()

    def _label_scores(self, arrays, bias):
        """Scores of every label (slot order) for CSR rows whose columns all have weights, no feature map.

        Once a round is averaged, the entries of rows with few of them are
        averaged alone (:func:`~olearn._averaging.reads_entries`,
        :func:`~olearn._kernels._lazy_average.averaged_label_scores`): the
        scores with :meth:`_predicting`'s weights, bit for bit, for O(nnz)
        work instead of averaging every weight; W and U are the two views of
        one array of records ``(W[r, j], U[r, j])``, so a weight and its
        correction are read from one cache line. Past a quarter of the
        weights read since the last change, the whole average is kept and read.
        """
        out = np.empty((arrays.n_rows, self._W.shape[0]))
        rounds = n_averaged(self._averaging)
        if rounds and reads_entries(self, self._U, arrays.indices.size, self._W.shape[1]):
            averaged_label_scores(arrays.indptr, arrays.indices, arrays.data, self._W, self._U, float(rounds), bias,
                                  out)
        else:
            K.multilabel_scores(arrays.indptr, arrays.indices, arrays.data, self._predicting()[0], bias, out)
        return out

    @property
    def coef_(self):
        """Weight vectors, one row per label of ``classes_``: shape (n_classes, n_features); w (D,) with a map.

        The averaged weights when ``average`` is on.
        """
        self._check_started()
        if self._uses_map:
            return self._predicting()[0][: self._map_dim].copy()
        return self._predicting()[0][self._labels.order, : self.n_features_in_].copy()

    @property
    def intercept_(self):
        """Intercepts, shape (n_classes,); zeros unless ``fit_intercept=True``; averaged when ``average`` is on."""
        self._check_started()
        bias = 1.0 if self.fit_intercept else 0.0
        if self._uses_map:
            return self._predicting()[1][: len(self._labels)][self._labels.order] * bias
        return self._predicting()[0][self._labels.order, -1] * bias

    def _first_call_atomic(self, arrays=None, new=None):
        """The base's atomic first call, refusing a feature map switched on or off mid-stream."""
        if self._is_started() and self._uses_map != hasattr(self, "_w"):
            raise ValueError(
                f"{type(self).__name__}: feature_map was changed after learning started (to or from None); call fit "
                "to start over"
            )
        return super()._first_call_atomic(arrays, new)

    # -- feature map ------------------------------------------------------------

    def _block(self, indices, data, n_features, n_labels, grow=True):
        """Phi(x, r) of the labels r < n_labels (by index) as one CSR block (pointers, indices, data).

        With ``grow`` (learning) w is widened to every coordinate Phi gave, once
        all the labels' vectors are in; prediction passes ``grow=False`` and
        leaves w as it is.
        """
        pointers, bidx, bdat, widest = phi_block(
            self.feature_map, type(self).__name__, indices, data, n_features, self._labels.labels[:n_labels]
        )
        if grow:
            self._map_dim = max(self._map_dim, widest)
        if self._map_dim > self._w.size:
            size = max(self._map_dim, 2 * self._w.size)
            self._w = _lengthened(self._w, size)
            if self._averages:
                self._uw = _lengthened(self._uw, size)
        return pointers, bidx, bdat

    def _map_pass(self, indptr, indices, data, n_features, label_ptr, labels, weights, margins, losses, taus,
                  round_scores, totals, commit):
        """The feature-map twin of ``multilabel_pass``, driven from Python; returns the stopped row or -1.

        ``commit()`` is called once the first row's Phi vectors are in, before
        any weight moves: a map failing on that row leaves the caller free to
        undo the whole call.
        """
        codes, params = self._config_arrays()
        record = margins.size > 0
        k = self._wb.size
        relevant, scores = np.zeros(k, dtype=np.int8), np.empty(k)
        n_labels = int(self._state[K.M_ACTIVE])
        for i in range(indptr.size - 1):
            lo, hi = indptr[i], indptr[i + 1]
            named = labels[label_ptr[i] : label_ptr[i + 1]]
            active = max(n_labels, int(named.max()) + 1 if named.size else 0)
            try:
                pointers, bidx, bdat = self._block(indices[lo:hi], data[lo:hi], n_features, active)
            except ValueError as err:
                self._state[K.M_ACTIVE] = n_labels
                kept = f"the model keeps the updates of rows 0..{i - 1}" if i else "the model is unchanged"
                raise ValueError(f"{err} (at row {i}; {kept})") from None
            if i == 0:
                commit()
            margin, loss, tau, ok = K.multilabel_map_round(
                pointers, bidx, bdat, labels, label_ptr[i], label_ptr[i + 1], weights[i] if weights.size else 1.0,
                self._w, self._wb, self._uw, self._uwb, round_age(self._averaging, 0), active,
                codes[K.M_STEP], params[K.M_C], params[K.M_BIAS], relevant, scores,
                np.empty(bdat.size, dtype=np.int64), np.empty(bdat.size), np.zeros(self._w.size),
            )
            if not ok:
                totals[_codes.T_ROUNDS] += i
                self._state[K.M_ACTIVE] = n_labels
                return i
            self._averaging[A_ROUNDS] += 1
            n_labels = active
            if record:
                margins[i], losses[i], taus[i] = margin, loss, tau
                round_scores[i, :n_labels] = scores[:n_labels]
            totals[_codes.T_MISTAKES] += margin <= 0.0
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += tau != 0.0
        totals[_codes.T_ROUNDS] += indptr.size - 1
        self._state[K.M_ACTIVE] = n_labels
        return -1

    # -- learning -------------------------------------------------------------

    def _encode(self, y, n_rows, classes):
        """Index the labels of a batch (new ones in order of appearance); return (label_ptr, labels).

        Labels declared by ``classes`` or by the columns of an indicator matrix
        enter the ranking at once; the others on the first row that names them.
        """
        kind, rows = read_label_rows(y, n_rows, type(self).__name__)
        if classes is not None:
            self._labels.declare(classes)
            self._rank_every_label()
        if kind == "indicator":
            if len(self._labels) == 0:
                self._labels.add(range(rows.shape[1]))
            encoded = self._labels.encode_indicator(rows)
            # an indicator matrix names every label as a column: all of them are ranked from now on
            self._rank_every_label()
            return encoded
        self._labels.add(label for row in rows for label in row)
        return self._labels.encode_sets(rows)

    def _keep_classes(self, k, y, classes, before):
        """The labels known before, with ``classes`` and those of the rows kept ``y``: the others' weights go.

        The labels are indexed in order of first appearance, so those of the
        rows kept come first.
        """
        if "_labels" in before:
            self._labels.truncate(len(before["classes_"]))
        else:
            self._labels = LabelIndex(type(self).__name__)
        self._encode(y, k, classes)
        n = len(self._labels)
        if not self._uses_map:
            self._W = self._W[:n]
            if self._averages:
                self._U = self._U[:n]
        self.classes_ = self._labels.classes

    def _restore(self, saved, features, size):
        """The base's, and the labels the batch added forgotten (``classes_`` before it counts those known)."""
        super()._restore(saved, features, size)
        if "_labels" in saved:
            self._labels.truncate(len(saved["classes_"]))

    def _rank_every_label(self):
        self._state[K.M_ACTIVE] = len(self._labels)

    def _progressive_pass(self, X, y, record, classes=None, sample_weight=None):
        """Predict then learn every row in order; return the per-round outputs.

        ``sample_weight``: None, or the checked weight of each row. Returns
        (predictions, scores, losses, taus, mistakes, totals); see the class
        docstring for what predictions and scores hold.
        """
        self._config_arrays()
        arrays = self._check_X(X, learning=True)
        if arrays.n_rows == 0 and classes is None and not self._is_started():
            empty = np.empty(0)
            return np.empty((0, 0), dtype=bool), empty, empty, empty, np.empty(0, dtype=bool), np.zeros(_codes.N_TOTALS)
        with contextlib.ExitStack() as atomic:
            atomic.enter_context(self._first_call_atomic(arrays))
            # every check before the labels change in place
            self._check_feature_limit(arrays.n_features, "X")
            label_ptr, labels = self._encode(y, arrays.n_rows, classes)
            self._grow_features(arrays.n_features, "X")
            self._sync_labels()
            # with a feature map the call stays undoable until the first row's Phi is computed
            if not self._uses_map:
                atomic.close()
            n = arrays.n_rows if record else 0
            weights = UNWEIGHTED if sample_weight is None else sample_weight
            margins, losses, taus, round_scores, totals, stopped = self._pass(
                arrays.indptr, arrays.indices, arrays.data, label_ptr, labels, weights, n, arrays.n_features,
                atomic.close,
            )
        if stopped >= 0:
            raise PartialUpdateError(
                f"{type(self).__name__}: a score or a weight overflowed at row {stopped}; the model keeps the "
                f"updates of rows 0..{stopped - 1}. Scale the features or lower C.",
                rows_kept=stopped,
            )
        if not record:
            return margins, margins, losses, taus, np.empty(0, dtype=bool), totals
        predictions = round_scores[:, self._labels.order] > 0.0
        return predictions, margins, losses, taus, margins <= 0.0, totals

    def _pass(self, indptr, indices, data, label_ptr, labels, weights, n_record, n_features, commit=lambda: None):
        """Run the kernel over CSR rows; return (margins, losses, taus, round scores, totals, stopped row or -1).

        ``commit``: see :meth:`_map_pass`.
        """
        codes, params = self._config_arrays()
        k = self._wb.size if self._uses_map else self._W.shape[0]
        margins, losses, taus = np.empty(n_record), np.empty(n_record), np.empty(n_record)
        round_scores = np.zeros((n_record, k))
        totals = np.zeros(_codes.N_TOTALS)
        if self._uses_map:
            stopped = self._map_pass(indptr, indices, data, n_features, label_ptr, labels, weights, margins, losses,
                                     taus, round_scores, totals, commit)
            return margins, losses, taus, round_scores, totals, stopped
        forget_average(self)  # the pass writes W and U in place
        stopped = K.multilabel_pass(
            indptr, indices, data, label_ptr, labels, weights, self._W, self._state, self._U, self._averaging, params,
            codes, np.zeros(k, dtype=np.int8), np.empty(k), margins, losses, taus, round_scores, totals,
        )
        return margins, losses, taus, round_scores, totals, stopped

    def _held_out_pass(self, X, y, held, sample_weight=None):
        """Learn the rows of X not ``held`` in order, and rank the held-out ones with the weights of their moment.

        Vowpal Wabbit's hold-out of ``olearn run --passes N`` in one compiled
        pass (:func:`~olearn._kernels._multilabel.held_out_multilabel_pass`):
        the learned rows end as ``partial_fit`` of them alone would (only
        their labels join), and a held-out row is scored as
        ``decision_function`` would score it then (the averaged weights with
        ``average``), its ranking margin taken over the labels known then (a
        relevant label not known scoring 0:
        :func:`~olearn.multilabel._labels.ranking_margins`), the command
        line's mistake of a held-out row. ``y`` is a 1-d object array of a
        collection of labels per row, as ``olearn run`` hands a chunk's
        (:func:`olearn.cli._holdout.label_rows`). Returns ``(predictions,
        scores, losses, taus, mistakes, totals)`` of every row in order, as
        :meth:`_progressive_pass` (a held-out row's loss and tau are 0) with
        the totals of the learned rows only; or None, the learner untouched,
        with a feature map, labels given otherwise (parameter mixing hands a
        list, and judges a held-out row by its predicted set instead) or where
        the chunk is refused (the caller then learns it by the general path,
        which says why).
        """
        if self._uses_map or not (isinstance(y, np.ndarray) and y.dtype == object and y.ndim == 1):
            return None
        return held_out_chunk(self, ("_W", "_U", "_state", "_averaging"), ("_labels",),
                              lambda: self._held_out_labels(X, y, held, sample_weight),
                              lambda checked: self._held_out_rows(*checked, y, held))

    def _held_out_labels(self, X, y, held, sample_weight):
        """The chunk's checks (:func:`~olearn._held_out.held_out_chunk`): its rows, the labels of its learned rows
        (a held-out row's are not read) and its weights read, the learner grown to them; returns ``(arrays,
        label_ptr, labels, weights)``."""
        self._config_arrays()
        weights = self._row_weights(X, y, sample_weight)
        arrays = self._check_X(X, learning=True)
        learned = [() if out else labels for labels, out in zip(y, held)]
        with self._first_call_atomic(arrays):
            self._check_feature_limit(arrays.n_features, "X")
            label_ptr, labels = self._encode(learned, arrays.n_rows, None)
            self._grow_features(arrays.n_features, "X")
            self._sync_labels()
        return arrays, label_ptr, labels, weights

    def _held_out_rows(self, arrays, label_ptr, labels, weights, y, held):
        """The masked pass over checked rows: the outputs of :meth:`_held_out_pass`, or None where an overflow
        stopped it."""
        codes, params = self._config_arrays()
        n, k = arrays.n_rows, self._W.shape[0]
        margins, losses, taus = np.empty((3, n))
        round_scores = np.zeros((n, k))
        totals = np.zeros(_codes.N_TOTALS)
        forget_average(self)  # the pass writes W and U in place
        stopped = K.held_out_multilabel_pass(
            arrays.indptr, arrays.indices, arrays.data, label_ptr, labels, UNWEIGHTED if weights is None else weights,
            held, self._W, self._state, self._U, self._averaging, params, codes, np.zeros(k, dtype=np.int8),
            np.empty(k), margins, losses, taus, round_scores, totals,
        )
        if stopped >= 0:
            return None
        in_order = round_scores[:, self._labels.order]
        classes = self._labels.classes
        for i in np.flatnonzero(held):
            # ranked as predict ranks it then: among the labels known at its moment (the others score -inf here)
            known = in_order[i] > -math.inf
            margins[i] = ranking_margins(in_order[i:i + 1, known], classes[known], [y[i]])[0]
        return in_order > 0.0, margins, losses, taus, margins <= 0.0, totals

    def _fit_labels(self, y, n_rows):
        """The label collections of the rows (a list), or their indicator matrix (CSR), checked once."""
        return read_label_rows(y, n_rows, type(self).__name__)[1]

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from the rows of X in order (one online pass); returns self.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)
        y : sequence of label collections, or indicator matrix of shape (n_samples, n_classes)
        classes : collection of labels, optional
            Labels to put in the ranking from now on, before any row names them.
        sample_weight : float or array-like of shape (n_samples,), optional
            Importance weight of each row (finite, >= 0): C is scaled by it (see the class docstring).
        """
        weights = self._row_weights(X, y, sample_weight)
        self._progressive(X, y, record=False, classes=classes, sample_weight=weights)
        return self

    def learn_one(self, x, y, sample_weight=None):
        """Learn one example ``x`` (dict, 1-d array or sparse row) with relevant labels ``y`` (a collection).

        ``y`` is a list, tuple or set of label names (a 1-d array is read as
        label names too, not as an indicator row: pass
        ``classes_[row.astype(bool)]`` for one). ``sample_weight`` is the
        example's importance weight (C is scaled by it). Returns self.
        """
        self._config_arrays()
        indices, data, n_features, new = self._learning_row(x)
        self._learn_labels(indices, data, n_features, y, sample_weight, new)
        return self

    def predict_learn_one(self, x, y, sample_weight=None):
        """Predict ``x`` (as :meth:`predict_one`), then learn it with relevant labels ``y``; return the prediction."""
        self._config_arrays()
        indices, data, n_features, new = self._learning_row(x)
        return self._learn_row(indices, data, n_features, y, sample_weight, new)

    def _learn_row(self, indices, data, n_features, y, sample_weight=None, new=None):
        """Learn one converted example (its new names ``new``); return the prediction made before learning."""
        predicted = self._predict_row(indices, data, n_features)
        self._learn_labels(indices, data, n_features, y, sample_weight, new)
        return predicted

    def _learn_labels(self, indices, data, n_features, y, sample_weight, new):
        """Learn one converted example with relevant labels ``y``."""
        weight = self._weight_one(y, sample_weight)
        self._config_arrays()
        row = label_collection(y, "this example", type(self).__name__)
        if (not self._uses_map and self._is_started() and n_features <= self.n_features_in_ and new is None
                and all(l in self._labels.index for l in row)):
            self._learn_known(indices, data, row, n_features, weight)
            return
        # growing, meeting a label or naming a feature, the learner must be put back if the example
        # is then refused, by its labels or by an overflow
        with self._first_call_atomic(new=new):
            # every check before the labels change in place
            self._check_feature_limit(n_features, "x")
            self._labels.add(row)
            if n_features > self.n_features_in_:
                self._grow_features(n_features, "x")
            self._sync_labels()
            self._learn_known(indices, data, row, n_features, weight)

    def _learn_known(self, indices, data, row, n_features, weight):
        """Learn one example whose features and labels have room; an overflow leaves the weights unchanged."""
        label_ptr = np.array([0, len(row)], dtype=np.int64)
        labels = np.array([self._labels.index[label] for label in row], dtype=np.int64)
        indptr = np.array([0, indices.size], dtype=np.int64)
        weights = UNWEIGHTED if weight == 1.0 else np.array([weight])
        *_, stopped = self._pass(indptr, indices.astype(np.int32, copy=False), data, label_ptr, labels, weights, 0,
                                 n_features)
        if stopped >= 0:
            raise FloatingPointError(
                f"{type(self).__name__}: a score or a weight overflowed on this example; the model is unchanged. "
                "Scale the features or lower C."
            )

    # -- prediction -----------------------------------------------------------

    def _scores(self, arrays, where):
        """Scores of CSR rows, columns as ``classes_``; a feature not seen in learning contributes 0."""
        if self.n_features is not None and arrays.n_features > self.n_features:
            raise ValueError(f"{where} has {arrays.n_features} features, more than n_features={self.n_features}")
        _, params = self._config_arrays()
        if self._uses_map:
            w, wb = self._predicting()
            k = len(self._labels)
            out = np.empty((arrays.n_rows, k))
            for i in range(arrays.n_rows):
                lo, hi = arrays.indptr[i], arrays.indptr[i + 1]
                pointers, bidx, bdat = self._block(arrays.indices[lo:hi], arrays.data[lo:hi], arrays.n_features, k,
                                                   grow=False)
                # a coordinate past w (Phi of features never learned from) has weight 0
                seen = bidx < w.size
                products = np.zeros(bdat.size)
                products[seen] = w[bidx[seen]] * bdat[seen]
                out[i] = [products[pointers[r] : pointers[r + 1]].sum() for r in range(k)]
                out[i] += wb[:k] * params[K.M_BIAS]
            return out[:, self._labels.order]
        arrays = seen_columns(arrays, self._W.shape[1] - 1)
        return self._label_scores(arrays, params[K.M_BIAS])[:, self._labels.order]

    def decision_function(self, X):
        """Scores w_r . x (+ intercept): shape (n_samples, n_classes), columns as ``classes_``."""
        self._check_started()
        arrays = self._check_X(X)
        return self._scores(arrays, "X")

    def predict(self, X):
        """0/1 indicator matrix (n_samples, n_classes) of the labels scored above 0 (columns as ``classes_``).

        Integers, as scikit-learn's multilabel classifiers and ``MultiLabelBinarizer`` give them.
        """
        return (self.decision_function(X) > 0.0).astype(np.int64)

    def predict_ranking(self, X):
        """The labels of ``classes_`` by decreasing score, one row per example (ties keep ``classes_`` order)."""
        scores = self.decision_function(X)
        return self.classes_[np.argsort(-scores, axis=1, kind="stable")]

    def predict_one(self, x):
        """The labels of one example scored above 0, by decreasing score; None before the first example."""
        return self._predict_row(*self._row(x))

    def _predict_row(self, indices, data, n_features):
        """The labels of one converted example scored above 0, by decreasing score (None before any example)."""
        if not self._is_started():
            return None
        row = CSRArrays(np.array([0, indices.size], dtype=np.int64), indices, data, 1, n_features)
        scores = self._scores(row, "x")[0]
        ranked = np.argsort(-scores, kind="stable")
        return [self._labels.labels[self._labels.order[j]] for j in ranked if scores[j] > 0.0]

    def score(self, X, y, sample_weight=None):
        """Subset accuracy: the fraction of rows whose predicted label set is exactly the relevant one."""
        predicted = self.predict(X)
        weights = score_weights(sample_weight, predicted.shape[0], type(self).__name__)
        kind, rows = read_label_rows(y, predicted.shape[0], type(self).__name__)
        if kind == "indicator":
            label_ptr, labels = self._labels.encode_indicator(rows)
        else:
            known = [all(label in self._labels.index for label in row) for row in rows]
            label_ptr, labels = self._labels.encode_sets([row if ok else [] for row, ok in zip(rows, known)])
        truth = np.zeros((predicted.shape[0], len(self._labels)), dtype=bool)
        truth[np.repeat(np.arange(predicted.shape[0]), np.diff(label_ptr)), labels] = True
        exact = (truth[:, self._labels.order] == predicted).all(axis=1)
        if kind != "indicator":
            exact &= np.array(known, dtype=bool)
        return float(np.average(exact, weights=weights))

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: a weight vector per label (the intercept's last), the distinct labels and the
        kernel's count of them; with ``average``, the averaging correction of the weights and the rounds."""
        return StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={
                "weights": Array("float64", ("n_labels", "n_features_in+1")),
                "labels": Array(LABELS, ("n_labels",)),
                "state": Array("int64", (K.N_MULTILABEL_STATE,)),
                "average_correction": Array("float64", ("n_labels", "n_features_in+1")),
                "averaging": Array("int64", (N_AVERAGING,)),
            },
            relations=[
                distinct("labels"), entry_is("state", K.M_ACTIVE, "n_labels"),
                averaging_relation(self, {"average_correction": "weights"}, "averaging"),
            ],
            limits=self._width_limits(),
            optional=("average_correction", "averaging"),
        )

    def _get_state(self):
        self._check_started()
        if self._uses_map:
            raise ValueError(
                f"{type(self).__name__}: a model with a feature_map cannot be saved portably (the feature_map is "
                "Python code); use pickle instead"
            )
        arrays = {"weights": self._saved_columns(self._W), "labels": label_array(self._labels.labels),
                  "state": self._state}
        if self._averages:
            arrays["average_correction"] = self._saved_columns(self._U)
            arrays["averaging"] = self._averaging
        return arrays, {"n_features_in": self.n_features_in_}

    def _saved_columns(self, W):
        """The columns of the features seen and the intercept's."""
        return np.hstack([W[:, : self.n_features_in_], W[:, -1:]])

    def _set_state(self, arrays, state):
        self._start()
        self._W = np.array(arrays["weights"], dtype=np.float64)
        if "averaging" in arrays:
            self._U = np.array(arrays["average_correction"], dtype=np.float64)
            self._averaging = np.array(arrays["averaging"], dtype=np.int64)
            self._interleave()
        self._state = np.array(arrays["state"], dtype=np.int64)
        self._labels.set_labels(arrays["labels"].tolist())
        self.n_features_in_ = int(state["n_features_in"])
        self.classes_ = self._labels.classes



def _widened(W, capacity):
    """W with room for ``capacity`` features, the intercept's column kept last."""
    grown = np.zeros((W.shape[0], capacity + 1))
    grown[:, : W.shape[1] - 1] = W[:, :-1]
    grown[:, capacity] = W[:, -1]
    return grown


def _lengthened(a, n):
    """``a`` with zero rows (entries) appended up to ``n``."""
    grown = np.zeros((n, *a.shape[1:]))
    grown[: a.shape[0]] = a
    return grown
