"""Passive-Aggressive learning of label sequences (Crammer et al. 2006, Sec. 9)."""

import math
import numbers

import numpy as np

from .._averaging import (
    AVERAGE,
    average_start,
    averaged,
    averaging_relation,
    check_average_unchanged,
    joined_rows,
    n_averaged,
    new_averaging,
    row_halves,
)
from .._docstrings import shared_entries
from .._estimator import ClassifierEstimator
from ..exceptions import PartialUpdateError
from .._features import FeatureMap
from .._kernels import _codes, _compiled
from .._kernels._codes import A_ROUNDS, A_START, N_AVERAGING
from .._kernels._sequence import (
    UPDATE_MAX_LOSS,
    UPDATE_PREDICTION,
    sequence_rival,
    sequence_update,
)
from .._learner import OnlineLearner
from .._params import BOOLEAN, Interval, NoneOr, Options
from .._state_schema import LABELS, Array, Count, StateSchema, distinct
from .._validation import seen_columns
from .._weights import UNWEIGHTED
from ._costs import (
    CostConstraint,
    HammingCost,
    check_cost_value,
    margin_table,
    resolve_cost,
)
from ._inputs import LabelSequences, Sequences, check_label_sequences, check_sequences, hamming_errors, listed

_STEP_RULES = {"pa": _codes.STEP_PA, "pa1": _codes.STEP_PA1, "pa2": _codes.STEP_PA2}
_UPDATES = {"prediction": UPDATE_PREDICTION, "max-loss": UPDATE_MAX_LOSS}


class DeclaredTags:
    """None, or the tags a tagger declares up front: a non-empty list (or tuple) of distinct strings, or of
    distinct finite numbers (a list, so that the model file records it)."""

    def accepts(self, value):
        if value is None:
            return True
        if not isinstance(value, (list, tuple)) or not value:
            return False
        if all(isinstance(tag, str) for tag in value):
            return len(set(value)) == len(value)
        numbers_only = all(isinstance(tag, numbers.Real) and not isinstance(tag, (bool, np.bool_)) for tag in value)
        return numbers_only and all(math.isfinite(tag) for tag in value) and len(set(value)) == len(value)

    def describe(self):
        return "None or a non-empty list of distinct labels (all strings, or all finite numbers)"


@shared_entries
class PASequence(OnlineLearner, ClassifierEstimator):
    r"""Passive-Aggressive sequence labelling with a first-order Markov chain: PA, PA-I and PA-II.

    Crammer, Dekel, Keshet, Shalev-Shwartz & Singer, *Online Passive-Aggressive
    Algorithms*, JMLR 7 (2006), Sec. 9, with the cost-sensitive updates of Sec. 8.
    A sequence :math:`X = (x_1, \dots, x_T)` with labels :math:`y = (y_1, \dots, y_T)`
    has the features (Eq. 59, with a start transition from a state
    :math:`y_0 = \mathrm{start}`, and by default a per-label bias and an end
    transition)

    .. math:: \Phi(X, y) = \sum_t (x_t, b) \otimes e_{y_t} + \sum_t e_{y_{t-1}} \otimes e_{y_t}
        + c\, e_{y_T},

    so that :math:`w` holds emission weights (``coef_``, one row per label),
    per-label biases (``intercept_``, the weights of the constant feature
    :math:`b`), transition weights (``transition_``, shape (k + 1, k), the last
    row from the start) and end-transition weights (``end_transition_``, one per
    label: the label of the last position). The bias and the end transition are
    features of :math:`\Phi(X, y)` of the form Eq. (59) allows (a function of a
    label and of the position in X), not a change of the update, which stays
    that of Sec. 8. :math:`b = 1` with ``fit_intercept=True`` and :math:`c = 1`
    with ``end_transition=True``, the defaults: a tagger learns how frequent each
    label is and which labels end a sequence (``benchmarks/README.md``, "Tagger
    defaults", for what they were measured to be worth);
    ``fit_intercept=False, end_transition=False`` is the text's bare
    :math:`\Phi` (:math:`b = c = 0`). The prediction :math:`\hat y = \arg\max_{y'} w \cdot \Phi(X, y')` is
    found by Viterbi. On each sequence, for a rival labelling :math:`r`,

    .. math:: \ell = w \cdot \Phi(X, r) - w \cdot \Phi(X, y) + \sqrt{\rho(y, r)},
        \qquad w \leftarrow w + \tau\, (\Phi(X, y) - \Phi(X, r)),

    with :math:`\tau` the PA / PA-I / PA-II step of :math:`\ell` and
    :math:`\|\Phi(X, y) - \Phi(X, r)\|^2` (Eq. 3 and 8; positions where
    :math:`y` and :math:`r` agree cancel). The rival is

    * ``update="prediction"`` (the prediction-based update of Sec. 8): :math:`r = \hat y`;
    * ``update="max-loss"``: :math:`r = \arg\max_{r} w \cdot \Phi(X, r) - w \cdot \Phi(X, y) + \sqrt{\rho(y, r)}`.
      The paper sets this update aside for sequences, the argmax being over
      exponentially many labellings. For a cost of the Hamming distance alone it
      is exact and polynomial: a Viterbi over (position, label, errors so far),
      O(T^2 k^2) per sequence. Other costs are refused with this update.

    Costs ``rho``: ``"hamming"`` (the number of wrong positions h, margin
    :math:`\sqrt h`), ``"sqrt-hamming"`` (:math:`\rho = \sqrt h`, margin
    :math:`h^{1/4}`), a :class:`HammingCost` (any ``function(h, T)``), or any
    callable ``rho(y_true, y_pred)`` of two label arrays (prediction-based
    update only; it is called in Python once per wrongly predicted sequence,
    so learning is slower).

    Choices where the paper is silent:

    * Ties in the Viterbi argmax go to the lexicographically smallest labelling
      in the order of ``classes_`` (sorted labels).
    * Labels may appear at any time. A sequence is predicted with the labels seen
      in earlier sequences only; the max-loss rival may also use the labels of
      the sequence itself. When no label was known before a sequence (the first
      one), it has no prediction (None, all positions wrong) and the
      prediction-based rival is the model's Viterbi labelling over that
      sequence's own labels.
    * An empty sequence is a round with nothing to predict: its prediction is an
      empty array, its loss 0, and it is no mistake.
    * With ``fit_intercept=True`` (the default) every position carries a
      constant feature 1, whose weight is a per-label bias (``intercept_``) that
      counts in :math:`\|z\|^2`; with ``end_transition=True`` (the default) the
      label of the last position carries a feature 1, whose weight is
      ``end_transition_`` (the transition into a state :math:`y_{T+1} =
      \mathrm{end}`), and counts there too.

    **Importance weights** (``sample_weight`` of :meth:`partial_fit`,
    :meth:`learn_one` and :func:`olearn.run`, one per sequence; beyond the
    text). A sequence of weight :math:`v \ge 0` is learned with the
    aggressiveness :math:`vC`, whatever the update and the cost: PA-I
    :math:`\tau = \min\{vC, \ell/\|z\|^2\}`, PA-II
    :math:`\tau = \ell/(\|z\|^2 + \frac{1}{2vC})`, PA the plain step for
    any :math:`v > 0`; weight 0 makes no update (the sequence still counts as
    a round, in the totals and in the average). The rival is chosen as without
    weights. For PA-I an integer weight v is the sequence repeated v times as
    long as the rival stays the same over the repeats (the loss is linear in w
    along z, so each repeat's loss is the previous one minus
    :math:`\tau\|z\|^2`): always for a clipped step that keeps the rival the
    argmax. There is no ``class_weight``: a sequence has a label per position,
    not one class to weigh it by.

    **Averaging** (``average``, scikit-learn's SGD semantics; beyond the
    text). With ``average=True`` (or an integer a: from the a-th sequence
    learned on) :meth:`predict`, :meth:`predict_one`, :meth:`score`,
    ``coef_``, ``intercept_``, ``transition_`` and saved models use the mean of
    the weights (emissions and transitions) left by each sequence (from the
    a-th on, each counting once); before that the current weights. The rounds
    of :func:`olearn.run` are predicted and updated with the current weights,
    as the online learner works. The mean is kept by a running correction
    updated on the entries each update touches
    (:mod:`olearn._kernels._lazy_average`), so the cost of an update does not
    grow with the dimension, and the correction of a feature's weights is
    kept beside them in its row (:func:`olearn._averaging.joined_rows`), so
    that an averaged prediction reads the mean of the weights it needs, at
    the cost of a plain one plus the divisions. ``average`` cannot be changed once learning
    started (``fit`` starts over).

    Parameters
    ----------
    variant : {"pa", "pa1", "pa2"}, default="pa1"
    C : float, default=1.0
        Aggressiveness, > 0 (``inf`` allowed; ignored by ``"pa"``).
    update : {"prediction", "max-loss"}, default="prediction"
    cost : "hamming", "sqrt-hamming", HammingCost or callable, default="hamming"
    fit_intercept : bool, default=True
        A per-label bias: every position carries a constant feature 1. False
        (with ``end_transition=False``) is the text's bare Phi.
    n_features : int or None, default=None
        Fix the dimension of each position; a sequence with more features is then an error.
    max_iter, tol, n_iter_no_change, shuffle, random_state
        <shared entry: epochs>
        Defaults 1000, 1e-3, 5, True, None.
    average : bool or int, default=False
        <shared entry: average>
        A round is one sequence; ``average`` cannot change once learning has started.
    n_bits : int or None, default=None
        <shared entry: n_bits>
    classes : list or None, default=None
        The labels that may appear, declared up front (distinct strings, or
        distinct numbers): the weights get room for all of them at once, and
        a label outside them is an error naming its sequence and position. A
        declared label takes part in predictions once a learned sequence held
        it, as without the declaration, so the model learned is the same.
        Without it a new label takes a free column of the emission weights,
        whose room doubles when it is full: either way a new label costs
        its own column, not a copy of every weight.
    end_transition : bool, default=True
        A transition from the last label into an end state
        (``end_transition_``); False (with ``fit_intercept=False``) is the
        text's bare Phi. Model files saved before this option existed load
        with False, the model they hold.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import run
    >>> from olearn.sequence import PASequence, hamming_errors
    >>> X = [np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[2, 0]]]    # one-hot features of each position
    >>> y = [list("abcb"), list("ca")]
    >>> model = PASequence(variant="pa")
    >>> res = run(model, X, y)          # predict each sequence, then learn it
    >>> res.predictions[0] is None      # no label known before the first sequence
    True
    >>> res.predictions[1].tolist(), hamming_errors(y, res.predictions).tolist()
    (['c', 'b'], [4, 1])
    >>> [p.tolist() for p in model.partial_fit(X, y).predict(X)]   # a second pass
    [['a', 'b', 'c', 'b'], ['c', 'a']]
    >>> model.classes_.tolist(), model.coef_.shape, model.transition_.shape
    (['a', 'b', 'c'], (3, 3), (4, 3))
    """

    _task = "sequence"

    def __sklearn_tags__(self):
        # X is a list of (length, n_features) arrays, ragged in the length, and y a list of label sequences
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.target_tags.one_d_labels = False
        return tags

    def _expected_failed_checks(self):
        # scikit-learn runs none of its common checks on sequence input (it skips the estimator), so none can fail
        return {}

    _constraints = {
        "variant": Options("pa", "pa1", "pa2"),
        "C": Interval(0, None, closed="neither"),
        "update": Options("prediction", "max-loss"),
        "cost": CostConstraint(),
        "fit_intercept": BOOLEAN,
        "n_features": NoneOr(Interval(1, None, integer=True)),
        "average": AVERAGE,
        "classes": DeclaredTags(),
        "end_transition": BOOLEAN,
    }
    _learned = ("_emission", "_transition", "_columns", "_averaging", "classes_", "n_features_in_")
    _changed_in_place = ("_averaging",)
    _started_by = "_emission"
    _unit = "sequence"

    def __init__(self, variant="pa1", C=1.0, update="prediction", cost="hamming", fit_intercept=True,
                 n_features=None,
                 max_iter=1000, tol=1e-3, n_iter_no_change=5, shuffle=True, random_state=None,
                 average=False, n_bits=None, classes=None, end_transition=True):
        self.variant = variant
        self.C = C
        self.update = update
        self.cost = cost
        self.fit_intercept = fit_intercept
        self.n_features = n_features
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.n_bits = n_bits
        self.classes = classes
        self.end_transition = end_transition

    @classmethod
    def _saved_params(cls, params):
        """A file saved before ``end_transition`` existed holds a model without it (and records its
        ``fit_intercept``): it loads with ``end_transition=False``, and predicts as it did."""
        return {"end_transition": False, **params}

    # -- hyperparameters ------------------------------------------------------

    def _settings(self):
        """(step rule, update code, C, bias, end, cost): bias and end the values of the intercept's constant
        feature and of the end transition's feature (0.0: none), checked and built again only after a hyperparameter changed."""
        return self._checked_config(self._build_settings)

    def _build_settings(self):
        if self._is_started():
            check_average_unchanged(self, self._averaging)
        cost = resolve_cost(self.cost)
        if self.update == "max-loss" and not isinstance(cost, HammingCost):
            raise ValueError(
                f"{type(self).__name__}: update='max-loss' needs a cost of the Hamming distance alone "
                f"('hamming', 'sqrt-hamming' or a HammingCost), whose max-loss rival Viterbi finds exactly; "
                f"cost={self.cost!r} is a general callable. Use update='prediction', or declare the cost "
                "with HammingCost if it depends only on the number of wrong positions."
            )
        C = math.inf if self.variant == "pa" else float(self.C)
        bias = 1.0 if self.fit_intercept else 0.0
        end = 1.0 if self.end_transition else 0.0
        return _STEP_RULES[self.variant], _UPDATES[self.update], C, bias, end, cost

    # -- learned state --------------------------------------------------------

    @property
    def _averages(self):
        return bool(self._averaging[A_START])

    @property
    def _copies(self):
        """How many blocks of columns the weight arrays have: 2 when averaging (the weights, then their
        corrections: :func:`~olearn._averaging.joined_rows`), else 1."""
        return 2 if self._averages else 1

    def _halves(self, rows):
        """(weights, corrections) of ``_emission`` or ``_transition``, as views; corrections None without averaging."""
        return row_halves(rows) if self._averages else (rows, None)

    def __setstate__(self, state):
        # a learner pickled before the corrections joined the rows of their weights kept them apart
        if "_u_emission" in state:
            state = dict(state)
            corrections = state.pop("_u_emission"), state.pop("_u_transition")
            if state["_averaging"][A_START]:
                state["_emission"] = joined_rows(state["_emission"], corrections[0])
                state["_transition"] = joined_rows(state["_transition"], corrections[1])
        super().__setstate__(state)

    def _start(self):
        self._averaging = new_averaging(self.average)
        # room for the declared tags at once: none of them then moves the weights when it first appears
        room = 0 if self.classes is None else len(self.classes)
        self._emission = np.zeros((1, self._copies * room))
        # rows from the start and into the end below the labels' rows (none yet)
        self._transition = np.zeros((2, 0))
        self._columns = np.empty(0, dtype=np.int64)
        self.classes_ = np.empty(0)
        self.n_features_in_ = 0
        if self.n_features is not None:
            self._grow(np.array([self.n_features]), "n_features")

    def _too_wide(self, widths, name):
        if self.n_features is not None and widths.size and widths.max() > self.n_features:
            i = int(np.argmax(widths > self.n_features))
            raise ValueError(
                f"{name}[{i}] has {widths[i]} features, more than n_features={self.n_features}"
            )

    def _state_bytes(self, n_features):
        """One emission weight per feature (and the intercept) for each class, twice with averaging."""
        copies = 2 if average_start(self.average) else 1
        return 8 * (n_features + 1) * max(self.classes_.size if hasattr(self, "classes_") else 1, 1) * copies

    def _grow(self, widths, name):
        """Make room for the features of sequences of these widths."""
        self._too_wide(widths, name)
        width = int(widths.max()) if widths.size else 0
        self._check_feature_limit(width, name)
        capacity = self._emission.shape[0] - 1
        if width > capacity:
            new_capacity = width if capacity == 0 else max(width, 2 * capacity)
            self._emission = _widened(self._emission, new_capacity)
        self.n_features_in_ = max(self.n_features_in_, width)

    def _relabel(self, classes):
        """Adopt a sorted superset of the known classes; the weights follow their labels.

        A new label's emission weights take the next free column (``_columns``
        maps the labels, in sorted order, to their columns), so that it costs
        its own column: the room doubles when it is full (declared
        ``classes`` give it all at once), and the transitions, k + 2 by k (the
        start's and the end's rows last), are laid out again.
        """
        moved = np.searchsorted(classes, self.classes_)
        known, k = self.classes_.size, classes.size
        copies = self._copies
        room = self._emission.shape[1] // copies
        if k > room:
            self._emission = _with_room(self._emission, max(k, 2 * room), known, copies)
        else:
            # free columns hold zeros already; cleared all the same, at the cost of the new labels' own columns
            for block in range(copies):
                self._emission[:, block * room + known : block * room + k] = 0.0
        columns = np.empty(k, dtype=np.int64)
        fresh = np.ones(k, dtype=bool)
        fresh[moved] = False
        columns[moved] = self._columns
        columns[fresh] = np.arange(known, k)

        def relabelled(transition):
            new_transition = np.zeros((k + 2, k))
            new_transition[np.append(moved, [k, k + 1])[:, None], moved] = transition
            return new_transition

        self._transition = np.hstack([relabelled(block) for block in np.hsplit(self._transition, copies)])
        self._columns = columns
        self.classes_ = classes

    def _keep_labels(self, keep):
        """Forget the labels where ``keep`` is False (labels of sequences that were never learned)."""
        if keep.all():
            return
        # the kept labels' columns, in their order (in each block): the columns in use stay 0 .. k - 1; C-ordered
        # copies (numpy lays a selection of columns out column by column), as the compiled pass takes them
        copies = self._copies
        room = self._emission.shape[1] // copies
        kept = np.concatenate([self._columns[keep] + block * room for block in range(copies)])
        self._emission = np.ascontiguousarray(self._emission[:, kept])
        rows = self._transition[np.append(keep, [True, True])]
        self._transition = np.ascontiguousarray(rows[:, np.tile(keep, copies)])
        self._columns = np.arange(np.count_nonzero(keep), dtype=np.int64)
        self.classes_ = self.classes_[keep]

    def _observe_labels(self, labels, offsets):
        """Adopt the batch's new labels; return the labels as indices and each label's first sequence.

        ``first_seen`` is -1 for labels known before the batch, else the index
        of the first sequence of the batch that holds the label.
        """
        try:
            seen, first_rows = np.unique(labels, return_index=True)
        except TypeError:
            raise ValueError(
                f"{type(self).__name__}: the labels must be mutually comparable (e.g. all numbers or all strings), "
                "so that they can be sorted into classes_"
            ) from None
        fresh = ~np.isin(seen, self.classes_) if self.classes_.size else np.ones(seen.size, dtype=bool)
        if self.classes is not None and fresh.any():
            self._check_declared(seen[fresh], first_rows[fresh], offsets)
        if fresh.any():
            self._relabel(np.union1d(self.classes_, seen[fresh]) if self.classes_.size else seen)
        first_seen = np.full(self.classes_.size, -1, dtype=np.int64)
        first_seen[np.searchsorted(self.classes_, seen[fresh])] = (
            np.searchsorted(offsets, first_rows[fresh], side="right") - 1
        )
        return np.searchsorted(self.classes_, labels).astype(np.int64), first_seen

    def _check_declared(self, fresh, first_rows, offsets):
        """Refuse a label that is not one of the declared ``classes``, naming its first sequence and position."""
        outside = ~np.isin(fresh, np.asarray(self.classes))
        if outside.any():
            row = int(first_rows[outside].min())
            i = int(np.searchsorted(offsets, row, side="right") - 1)
            label = fresh[outside][np.argmin(first_rows[outside])].item()
            raise ValueError(
                f"{type(self).__name__}: y[{i}] has the label {label!r} at position {row - offsets[i]}, which is not "
                f"one of the declared classes ({len(self.classes)} labels); declare it in classes, or set "
                "classes=None to let labels appear as they come"
            )

    # -- learning -------------------------------------------------------------

    def _progressive_pass(self, X, y, record, sample_weight=None):
        """Predict then learn every sequence in order; return the per-round outputs.

        ``sample_weight``: None, or the checked weight of each sequence.

        Returns (predictions, scores, losses, taus, mistakes, totals): an object
        array of predicted label arrays (None without a prediction), the scores
        w.Phi(X, yhat), the losses and taus of the updates, whether each
        sequence was wrong anywhere (all empty when ``record`` is False), and
        the totals.
        """
        rule, update, C, bias, end, cost = self._settings()
        batch = self._sequences(X, "X", learning=True)
        labels = check_label_sequences(y, batch.offsets)
        margins = margin_table(cost, batch.offsets) if isinstance(cost, HammingCost) else None
        n = batch.n_sequences if record else 0
        outputs = (np.empty(n), np.empty(n), np.empty(n), np.empty(n, dtype=np.int64))
        totals = np.zeros(_codes.N_TOTALS)
        if batch.n_sequences == 0:
            return np.empty(0, dtype=object), *outputs[:3], np.empty(0, dtype=bool), totals
        with self._first_call_atomic(new=batch.new_names):
            self._grow(batch.widths, "X")
            codes, first_seen = self._observe_labels(labels, batch.offsets)
        predictions = np.full(batch.arrays.n_rows, -1, dtype=np.int64)
        weights = UNWEIGHTED if sample_weight is None else sample_weight
        if margins is not None:
            a = batch.arrays
            stopped = _compiled.sequence_pass(
                a.indptr, a.indices, a.data, batch.offsets, codes, weights, margins, self._emission, self._transition,
                self._columns, self._averaging, first_seen, rule, update, C, bias, end, predictions, *outputs, totals,
            )
        else:
            stopped = self._callable_cost_pass(batch, codes, weights, first_seen, cost, rule, C, bias, end,
                                               predictions, outputs, totals)
        if stopped >= 0:
            self._keep_labels(first_seen < stopped)
            kept = f"keeps the updates of sequences 0..{stopped - 1}" if stopped else "is unchanged by this call"
            raise PartialUpdateError(
                f"{type(self).__name__}: a score or the update overflowed at sequence {stopped}; the model {kept}. "
                "Scale the features or lower C.",
                rows_kept=stopped,
            )
        if not record:
            return np.empty(0, dtype=object), *outputs[:3], np.empty(0, dtype=bool), totals
        scores, losses, taus, errors = outputs
        return self._decode(predictions, batch.offsets), scores, losses, taus, errors > 0, totals

    def _callable_cost_pass(self, batch, codes, weights, first_seen, cost, rule, C, bias, end, predictions, outputs,
                            totals):
        """The prediction-based pass for a cost given as a Python callable; returns -1 or the overflowed sequence.

        The same compiled steps as ``sequence_pass``, with the margin of each
        round computed in Python between choosing the rival and updating.
        """
        a, offsets = batch.arrays, batch.offsets
        scores, losses, taus, errors = outputs
        record = scores.size > 0
        longest, k = int(np.diff(offsets).max()), self.classes_.size
        em, best, rival = np.empty((longest, k)), np.empty((longest, k)), np.empty(longest, dtype=np.int64)
        most = int(np.diff(a.indptr[offsets]).max())
        local, buffer, by_column = np.empty(most, dtype=np.int64), np.zeros(most + 1), np.empty(k)
        done, counts = np.zeros(k, dtype=bool), np.zeros((k + 2, k))
        for i in range(batch.n_sequences):
            lo, hi = offsets[i], offsets[i + 1]
            score = loss = tau = 0.0
            wrong = 0
            if hi > lo:
                predicted, score, true_score, rival_score, ok = sequence_rival(
                    a.indptr, a.indices, a.data, offsets, i, codes, self._emission, self._transition, self._columns,
                    first_seen, bias, end, em, by_column, best, predictions, rival,
                )
                if not ok:
                    return i
                margin = 0.0
                if np.any(rival[: hi - lo] != codes[lo:hi]):
                    try:
                        margin = check_cost_value(
                            cost(self.classes_[codes[lo:hi]], self.classes_[rival[: hi - lo]]), i
                        )
                    except BaseException:
                        self._keep_labels(first_seen < i)
                        raise
                loss = max(0.0, rival_score - true_score + margin)
                tau, ok = sequence_update(
                    a.indptr, a.indices, a.data, offsets, i, codes, rival, weights[i] if weights.size else 1.0,
                    self._emission, self._transition, self._columns, self._averaging, bias, end, loss, rule, C, local,
                    buffer, done, counts,
                )
                if not ok:
                    return i
                wrong = int(np.count_nonzero(predictions[lo:hi] != codes[lo:hi])) if predicted else hi - lo
            if record:
                scores[i], losses[i], taus[i], errors[i] = score, loss, tau, wrong
            totals[_codes.T_MISTAKES] += wrong > 0
            totals[_codes.T_LOSS] += loss
            totals[_codes.T_UPDATES] += tau != 0.0
            totals[_codes.T_ROUNDS] += 1
            self._averaging[A_ROUNDS] += 1
        return -1

    def _columns_of(self, X, features, base):
        """The columns of the widest of the sequences X (each has its own width), their new names read into
        ``features``; None for the batch of ``fit``, whose names were all read before its passes."""
        if isinstance(X, Sequences):
            return None
        widths = check_sequences(X, "X", features, True, base, self.n_features is None).widths
        return max(base, int(widths.max()) if widths.size else 0)

    def _sequences(self, X, name, learning=False):
        """:func:`check_sequences` of X, its dict rows read by the learner's FeatureMap, which is left as it was.

        With ``learning`` the names the batch adds are its ``new_names``, for
        :meth:`_first_call_atomic` to add once the batch is accepted. The
        batch of ``fit``, checked once, is taken as it is.
        """
        if isinstance(X, Sequences):
            return X
        features = self._feature_map()
        size = features.size
        try:
            return check_sequences(X, name, features, learning, self._first_free_column(), self.n_features is None)
        finally:
            if learning:
                features.truncate(size)

    def _fit_rows(self, X, y):
        """The sequences and their labels, checked and converted once (a generator is read once): a
        :class:`Sequences` batch, whose ``features`` are the names of its dict rows read into a vocabulary of
        its own (fit forgets the old one), and its :class:`LabelSequences`. The passes pick sequences from them.
        """
        X = listed(X, "X", "2-d array", 3)
        features = FeatureMap(self.n_bits)
        batch = check_sequences(X, features=features, learning=True, grow=self.n_features is None)
        # here, in the given order, so that the sequence named is the caller's X[i], not a place in a shuffled pass
        self._too_wide(batch.widths, "X")
        if batch.new_names:
            self._refuse_names_in_fixed_space(batch.new_names)
        y = listed(y, "y", "1-d array of labels", 2)
        labels = LabelSequences(check_label_sequences(y, batch.offsets), batch.offsets)
        # the names are the vocabulary's already: no pass adds them again
        batch.new_names, batch.features = None, features
        return batch, labels, batch.n_sequences

    @shared_entries
    def partial_fit(self, X, y, sample_weight=None):
        """Learn from the sequences of X in order (one online pass); returns self.

        Parameters
        ----------
        X : list of sequences
            Each a 2-d array or sparse matrix of shape (T, n_features), or a
            list of T dict rows, keyed by feature indices or names (see
            ``n_bits``).
        y : list of label sequences
            Each a 1-d array-like of T labels (any sortable labels; new labels may
            appear in any call).
        sample_weight : float or array-like of shape (n_sequences,), optional
            <shared entry: sample_weight>
            An example is a sequence; C is scaled by it.
        """
        weights = self._row_weights(X, y, sample_weight)
        self._progressive(X, y, record=False, sample_weight=weights)
        return self

    def learn_one(self, x, y, sample_weight=None):
        """Learn one sequence ``x`` (shape (T, n_features)) with its T labels ``y``; returns self.

        ``sample_weight`` is the sequence's importance weight (C is scaled by
        it). A sequence refused, or stopped by an overflow, leaves the learner
        unchanged.
        """
        weight = self._weight_one(y, sample_weight)
        with self._first_call_atomic():
            self._progressive([x], [y], record=False, sample_weight=None if weight == 1.0 else np.array([weight]))
        return self

    # -- prediction -----------------------------------------------------------

    def _decode(self, predictions, offsets):
        decoded = np.empty(offsets.size - 1, dtype=object)
        for i in range(decoded.size):
            indices = predictions[offsets[i] : offsets[i + 1]]
            decoded[i] = None if indices.size and indices[0] < 0 else self.classes_[indices]
        return decoded

    def _predict_batch(self, batch, name):
        self._too_wide(batch.widths, name)
        predictions = np.full(batch.arrays.n_rows, -1, dtype=np.int64)
        scores = np.empty(batch.n_sequences)
        if self.classes_.size:
            # a feature never seen has no emission weight yet: it contributes 0
            a = seen_columns(batch.arrays, self._emission.shape[0] - 1)
            # averaged weights are read beside their corrections, for the features of X only
            _, _, _, bias, end, _ = self._settings()
            _compiled.sequence_predict(a.indptr, a.indices, a.data, batch.offsets, self._emission,
                                       float(n_averaged(self._averaging)), self._columns, self._transition, bias, end,
                                       predictions, scores)
        return self._decode(predictions, batch.offsets)

    def predict(self, X):
        """The Viterbi labelling of each sequence of X, as a list of label arrays."""
        self._settings()
        self._check_started()
        return list(self._predict_batch(self._sequences(X, "X"), "X"))

    def predict_one(self, x):
        """The Viterbi labelling of one sequence ``x``; None before any sequence was learned."""
        self._settings()
        batch = self._sequences([x], "x")
        if not self._is_started():
            return None
        return self._predict_batch(batch, "x")[0]

    def score(self, X, y):
        """Fraction of the positions of all sequences whose predicted label is right."""
        labels = check_label_sequences(y, self._sequences(X, "X").offsets)
        if labels.size == 0:
            return 1.0
        return 1.0 - float(hamming_errors(list(y), self.predict(X)).sum()) / labels.size

    # -- learned weights ------------------------------------------------------

    def _predicting(self):
        """(emission, transition) that predictions use, the emission's columns in the order of ``classes_``:
        averaged when ``average`` is on."""
        emission, u_emission = self._halves(self._emission)
        transition, u_transition = self._halves(self._transition)
        emission = emission[:, self._columns]
        if n_averaged(self._averaging):
            return (averaged(emission, u_emission[:, self._columns], self._averaging),
                    averaged(transition, u_transition, self._averaging))
        return emission, transition

    @property
    def coef_(self):
        """Emission weights, shape (n_classes, n_features).

        Row j weighs the features of a position labelled ``classes_[j]``.
        The averaged weights when ``average`` is on.
        """
        self._check_started()
        return self._predicting()[0][: self.n_features_in_].T.copy()

    @property
    def intercept_(self):
        """Per-label bias of each position, shape (n_classes,); 0 unless ``fit_intercept=True``."""
        self._check_started()
        return self._predicting()[0][-1].copy() * (1.0 if self.fit_intercept else 0.0)

    @property
    def transition_(self):
        """Transition weights, shape (n_classes + 1, n_classes).

        Entry [i, j] weighs ``classes_[i]`` followed by ``classes_[j]``; the last
        row weighs the first label of a sequence (the transition from the start).
        The averaged weights when ``average`` is on.
        """
        self._check_started()
        return self._predicting()[1][:-1].copy()

    @property
    def end_transition_(self):
        """End-transition weights, shape (n_classes,): entry j weighs ``classes_[j]`` as the last label of a
        sequence; 0 unless ``end_transition=True``. The averaged weights when ``average`` is on."""
        self._check_started()
        return self._predicting()[1][-1].copy() * (1.0 if self.end_transition else 0.0)

    # -- persistence ----------------------------------------------------------

    def _state_schema(self):
        """The saved state: emission weights (a column per class, the intercept's row last), transition
        weights (the start's row last), with ``end_transition`` the end-transition weights, and the sorted
        distinct classes; with ``average``, the averaging corrections of the weights and the rounds."""
        return StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={
                "classes": Array(LABELS, ("n_classes",)),
                "emission": Array("float64", ("n_features_in+1", "n_classes")),
                "transition": Array("float64", ("n_classes+1", "n_classes")),
                "average_emission": Array("float64", ("n_features_in+1", "n_classes")),
                "average_transition": Array("float64", ("n_classes+1", "n_classes")),
                "averaging": Array("int64", (N_AVERAGING,)),
                "end_transition": Array("float64", ("n_classes",)),
                "average_end_transition": Array("float64", ("n_classes",)),
            },
            relations=[
                distinct("classes", ordered=True),
                averaging_relation(self, {"average_emission": "emission", "average_transition": "transition"},
                                   "averaging"),
                self._end_relation,
            ],
            limits=self._width_limits(),
            optional=("average_emission", "average_transition", "averaging", "end_transition",
                      "average_end_transition"),
        )

    def _end_relation(self, arrays, dims):
        """The end-transition weights are saved exactly when ``end_transition`` is on, their averaging
        correction when ``average`` is on too."""
        expected = {"end_transition"} if self.end_transition else set()
        if self.end_transition and average_start(self.average):
            expected.add("average_end_transition")
        present = {name for name in ("end_transition", "average_end_transition") if name in arrays}
        if present != expected:
            return (f"the file has the end-transition arrays {sorted(present)}; end_transition="
                    f"{self.end_transition!r} and average={self.average!r} need {sorted(expected)}")
        return None

    def _get_state(self):
        self._check_started()
        emission, u_emission = self._halves(self._emission)
        transition, u_transition = self._halves(self._transition)
        arrays = {"emission": self._saved_rows(emission), "transition": transition[:-1], "classes": self.classes_}
        if self.end_transition:
            arrays["end_transition"] = transition[-1]
        if self._averages:
            arrays.update(average_emission=self._saved_rows(u_emission), average_transition=u_transition[:-1],
                          averaging=self._averaging)
            if self.end_transition:
                arrays["average_end_transition"] = u_transition[-1]
        return arrays, {"n_features_in": self.n_features_in_}

    def _saved_rows(self, emission):
        """The rows of the features seen and the intercept's, a column per class in the order of ``classes_``."""
        rows = np.append(np.arange(self.n_features_in_), emission.shape[0] - 1)
        return emission[rows[:, None], self._columns]

    def _set_state(self, arrays, state):
        self._start()
        self._emission = np.array(arrays["emission"], dtype=np.float64)
        self._transition = _with_end(arrays, "transition", "end_transition")
        if "averaging" in arrays:
            self._emission = joined_rows(self._emission, np.asarray(arrays["average_emission"], dtype=np.float64))
            self._transition = joined_rows(self._transition,
                                           _with_end(arrays, "average_transition", "average_end_transition"))
            self._averaging = np.array(arrays["averaging"], dtype=np.int64)
        self.classes_ = np.asarray(arrays["classes"])
        self._columns = np.arange(self.classes_.size, dtype=np.int64)
        self.n_features_in_ = int(state["n_features_in"])


def _with_end(arrays, transition, end):
    """The saved transition weights, k + 1 by k, with the end's row below them (zeros when the file has none)."""
    start = np.asarray(arrays[transition], dtype=np.float64)
    row = np.asarray(arrays[end], dtype=np.float64) if end in arrays else np.zeros(start.shape[1])
    return np.vstack([start, row[None, :]])


def _with_room(emission, room, used, copies):
    """Emission weights of ``copies`` blocks of ``room`` columns (:meth:`PASequence._copies`), the ``used``
    first columns of each block copied."""
    old = emission.shape[1] // copies
    grown = np.zeros((emission.shape[0], copies * room))
    for block in range(copies):
        grown[:, block * room : block * room + used] = emission[:, block * old : block * old + used]
    return grown


def _widened(emission, capacity):
    """Feature-major emission weights (with their corrections, when averaging) with room for ``capacity``
    features, the intercept's row kept last."""
    grown = np.zeros((capacity + 1, emission.shape[1]))
    grown[: emission.shape[0] - 1] = emission[:-1]
    grown[capacity] = emission[-1]
    return grown
