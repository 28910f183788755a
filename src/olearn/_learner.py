"""What every learner of a stream shares: the life cycle of its learned state, its checked settings and ``fit``.

A learner starts its state on the first example, forgets it on ``fit`` and, when
a first call is refused, must be left exactly as unfitted as before
(:meth:`OnlineLearner._first_call_atomic`). Its hyperparameters are checked
once per change, not once per example: ``learn_one`` is called millions of
times with the same settings, so a change is noticed where it is made, or
for a value changed in place by comparing its content
(:mod:`olearn._settings`, :meth:`OnlineLearner._checked_config`).
``fit`` is the batch learner built on the online one: several passes over the
data, each in a fresh random order, until the loss of a pass stops falling
(:meth:`OnlineLearner.fit`).

**The hooks of a learner family.** The public calls are written once; a
family implements what they call, and each check is made once, at the
boundary named.

A batch: ``partial_fit``, ``fit`` (each pass) and :func:`olearn.run` call
:meth:`OnlineLearner._progressive` (``partial_fit`` after checking the weights
once, :meth:`OnlineLearner._row_weights`), which undoes a batch an overflow
stopped, then the family's

* ``_progressive_pass(X, y, record, **extra)``: X and y as the caller gave
  them (the family checks them once: :meth:`OnlineLearner._check_X` with
  ``learning=True``, its labels); ``extra`` holds ``sample_weight``, checked
  (one float64 a row) or None, and a classifier's ``classes``. Learns every
  row in order inside :meth:`OnlineLearner._first_call_atomic` and returns
  ``(predictions, scores, losses, taus, mistakes, totals)``, the per-round
  arrays empty unless ``record`` (a kernel learner appends its support-set
  sizes); an overflow at row k raises :class:`~olearn.exceptions.PartialUpdateError` with
  ``rows_kept=k``.
* ``_held_out_pass(X, y, held, sample_weight=None, ...)`` (optional): the same with
  the rows ``held`` predicted, not learned; None where it does not apply
  (:mod:`olearn._held_out`).

One example of a learner of rows (:class:`ManyRows`): ``learn_one``,
``predict_learn_one`` and a Pipeline convert it once
(:meth:`OnlineLearner._learning_row`; to predict, :meth:`OnlineLearner._row`),
then call

* ``_learn_row(indices, data, n_features, y, sample_weight=None, new=None)``:
  the checked row and the names it adds (``new``), the label and weight as
  given (the family checks them: :meth:`OnlineLearner._weight_one`); returns
  the prediction made before learning; a refused example leaves the model as
  it was (growing: :meth:`OnlineLearner._first_call_atomic`);
* ``_predict_row(indices, data, n_features)``: the prediction, None (0.0 for a
  regressor) before the first example.

The linear families (:mod:`olearn.linear`, :mod:`olearn.second_order`,
:mod:`olearn.quasi_additive`) split these in two: the task (binary labels,
regression targets) over the model (its weights and its kernel).
:meth:`~olearn.linear._base.LinearLearner._progressive_pass` reads the batch
as CSR arrays, unchecked where the pass checks each row itself, and calls the
task's ``_learn_arrays(arrays, y, record, **extra)``, which checks and encodes
the labels, grows the model and calls the model's

* ``_pass(arrays, targets, record, weights=None)``: CSR arrays (unchecked only
  where ``_pass_checks_rows()``), one float64 target each (-1/+1 or a real
  number), the checked weights; returns ``(scores, losses, taus, totals)`` (a
  kernel learner appends its support-set sizes);
* ``_learn_target(indices, data, target, weight=1.0)``: one checked row within
  the model's columns; returns its score before the update, or raises
  FloatingPointError with the model unchanged;
* ``_scores(X)`` and ``_score_row(indices, data, n_features)``: the scores
  that predict (None for a row before the first example);
* ``_held_out_kernel(arrays, targets, weights, held, outputs)`` where
  ``_takes_held_out()``; and ``_start``, ``_grow``, ``_negate`` and the saved
  state (:mod:`olearn._persistence`).
"""

import contextlib
import copy
import math
import warnings
from collections.abc import Mapping

import numpy as np

from ._averaging import KEPT_AVERAGE, forget_average
from ._config import format_bytes, get_config
from ._epochs import make_passes, warn_unconverged
from ._estimator import Estimator, locked
from ._features import FeatureMap
from ._params import BOOLEAN, Interval, NoneOr, check_params
from ._persistence import PersistenceMixin
from ._settings import SettingsCache, changes_in_place, freeze, hyperparameter_names
from ._sparse import CSRRows, issparse
from ._validation import INDEX_LIMIT, check_fit_size, check_row, check_X, check_y, feature_names
from ._weights import check_weight_one, one_class_weight, row_weights
from .exceptions import FeatureLimitError, NotFittedError, PartialUpdateError

# the hyperparameters of fit's passes, the same in every learner (scikit-learn's SGDClassifier's)
EPOCH_CONSTRAINTS = {
    "max_iter": Interval(1, None, integer=True),
    "tol": NoneOr(Interval(0, math.inf, closed="left")),
    "n_iter_no_change": Interval(1, None, integer=True),
    "shuffle": BOOLEAN,
    "random_state": NoneOr(Interval(0, 2**64 - 1, integer=True)),
}

# how a learner of rows maps the names of a stream's features to columns (olearn._features.FeatureMap):
# None for a growing vocabulary, b for hashing into 2**b columns
FEATURE_CONSTRAINTS = {"n_bits": NoneOr(Interval(1, 31, integer=True))}


class OnlineLearner(SettingsCache, PersistenceMixin, Estimator):
    """Base class of the learners: subclasses set ``_constraints``, ``_learned``, ``_started_by`` and ``_start``.

    ``_learned`` names the learned attributes that ``fit`` forgets; the
    presence of ``_started_by`` among them means learning has started.

    What an averaged learner keeps between predictions (its whole averaged
    weights, see :func:`~olearn._averaging.kept_average`) lives in a slot, as
    the lock does: no learned attribute, never pickled or copied, and a
    prediction leaves ``__dict__`` as it was (scikit-learn's ``check_dict_unchanged``).
    """

    __slots__ = (KEPT_AVERAGE,)

    _constraints = {}
    _learned = ()
    _started_by = "_w"
    # learned attributes that a refusable call changes in place rather than replacing them;
    # they are copied when such a call begins (see _first_call_atomic)
    _changed_in_place = ()
    # the small ones among them that the start of a batch changes (its classes): copied when a batch
    # begins, so that a batch an overflow stops is undone or cut to the rows kept (see _progressive)
    _batch_in_place = ()
    # whether the columns that no row learned can be forgotten by _narrow (else such a batch is learned again)
    _cuts_columns = True
    # what the stream is made of, for the not-fitted message
    _unit = "example"
    # whether the examples are rows of features, named or indexed (see _row); a learner of other
    # examples (target vectors) sets False and has no n_bits
    _named_features = True

    # -- hyperparameters ------------------------------------------------------

    def _all_constraints(self):
        if self._named_features:
            return {**self._constraints, **EPOCH_CONSTRAINTS, **FEATURE_CONSTRAINTS}
        return {**self._constraints, **EPOCH_CONSTRAINTS}

    def _checked_config(self, build):
        """``build()``'s result for the current hyperparameters, checked and built again only after a change.

        ``learn_one`` asks for it on every example, so it costs O(1): setting
        a hyperparameter (an attribute, ``set_params``) drops the result
        (:meth:`__setattr__`), and only the values that can change in place (a
        list, dict, set or array: :func:`changes_in_place`) are compared, by
        content, with their values when it was built.
        """
        cache = self._config_cache
        if cache is not None:
            value, watched = cache
            if not watched or all(freeze(getattr(self, name)) == before for name, before in watched):
                return value
        watched = []
        for name in hyperparameter_names(type(self)):
            current = getattr(self, name)
            if changes_in_place(current):
                watched.append((name, freeze(current)))
        self._check_hyperparameters(learned=True)
        value = build()
        self._config_cache = (value, tuple(watched))
        return value

    def _check_hyperparameters(self, learned=False):
        """Check every hyperparameter, and that ``n_bits`` agrees with ``n_features`` (and, with ``learned``, with the model).

        A model maps names as it learned to: another ``n_bits`` is refused
        until ``fit`` starts over (``learned``).
        """
        check_params(self, self._all_constraints())
        n_bits = getattr(self, "n_bits", None)  # a learner of rows may predate the hyperparameter
        if not self._named_features or n_bits is None and not learned:
            return
        cls = type(self).__name__
        fixed = getattr(self, "n_features", None)
        if n_bits is not None and fixed is not None and fixed != 1 << n_bits:
            raise ValueError(
                f"{cls}: parameters n_bits={n_bits} and n_features={fixed} disagree: names hashed into "
                f"2**{n_bits} = {1 << n_bits} columns need n_features=None or {1 << n_bits}"
            )
        features = self.__dict__.get("_features")
        if learned and features is not None and features.n_bits != n_bits:
            how = "a vocabulary (n_bits=None)" if features.n_bits is None else f"hashing with n_bits={features.n_bits}"
            raise ValueError(
                f"{cls}: parameter n_bits={n_bits!r} differs from the model learned so far, which maps names "
                f"to columns by {how}; call fit to start over with it"
            )

    # -- importance weights ---------------------------------------------------

    def _row_weights(self, X, y, sample_weight, fitting=False):
        """The effective weight of each row of X (``sample_weight`` times its class's weight), or None when all are 1.

        The kernels take the result as it is: an array checked here once
        (finite, >= 0, one per row) or None for the plain unweighted path.
        """
        class_weight = getattr(self, "class_weight", None)
        if sample_weight is None and class_weight is None:
            return None
        if class_weight is not None:
            # the hyperparameters first, so that a bad class_weight is reported as the hyperparameter it is
            self._check_hyperparameters()
        n_rows = X.shape[0] if hasattr(X, "shape") and len(X.shape) else len(X)
        return row_weights(class_weight, y, sample_weight, n_rows, fitting, type(self).__name__)

    def _weight_one(self, y, sample_weight):
        """The effective weight of one example with label ``y`` (1.0 when unweighted)."""
        weight = check_weight_one(sample_weight)
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None:
            return weight
        return weight * one_class_weight(class_weight, y, type(self).__name__)

    # -- scikit-learn's common checks that cannot hold -------------------------

    # how an importance weight relates to repeating its example under this learner's step rule
    # (from the class docstring), the first half of why the sample-weight equivalence check fails
    _weight_and_copies = None

    def _expected_failed_checks(self):
        """The checks an online learner cannot pass: weights as repeated rows, and those of the subclass.

        scikit-learn's sample-weight equivalence checks fit once on rows with
        integer weights and once on the rows repeated that many times, and
        compare the predictions; :meth:`_class_weight_check_fails` says why the
        class-weight check cannot pass, where it cannot.
        """
        failed = dict(super()._expected_failed_checks())
        rule = f"{self._weight_and_copies}; and " if self._weight_and_copies else ""
        failed.update(dict.fromkeys(
            ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data"),
            rule + _SHUFFLED_COPIES,
        ))
        class_weight = self._class_weight_check_fails()
        if class_weight is not None:
            failed["check_class_weight_classifiers"] = class_weight
        return failed

    def _class_weight_check_fails(self):
        """Why scikit-learn's ``check_class_weight_classifiers`` cannot pass on this instance, or None.

        The check weighs class 0 by 1000 and the others by 0.0001 and wants
        class 0 predicted on more than 87% of the test points of its noisy
        blobs. A linear score without an intercept predicts class 0 on a
        half-plane (or a cone) through the origin, and none holds that many
        of the check's points; :meth:`_class_weight_rule_fails` says why the
        learner's rule fails it even with an intercept, where it does.
        """
        if "class_weight" not in self._get_param_names():
            return None
        rule = self._class_weight_rule_fails()
        if getattr(self, "fit_intercept", True):
            return rule
        if rule is None:
            return f"{_NO_INTERCEPT}; with fit_intercept=True the class weights pass the check"
        return f"{_NO_INTERCEPT}; and with fit_intercept=True, {rule}"

    def _class_weight_rule_fails(self):
        """Why the learner's rule fails scikit-learn's class-weight check even with an intercept, or None."""
        return None

    # -- learned state --------------------------------------------------------

    def fit(self, X, y=None, sample_weight=None):
        """Forget what was learned, then learn from X in up to ``max_iter`` passes; returns self.

        Each pass is one online pass (``partial_fit``) over every row, in a
        new random order when ``shuffle`` (drawn from a generator seeded by
        ``random_state``, so a seed repeats the fit exactly), else in the given
        order. ``shuffle=False, max_iter=1`` is exactly one ``partial_fit``.

        The passes stop as scikit-learn's ``SGDClassifier`` stops them: with
        L the mean loss of a pass (the per-round losses :func:`olearn.run`
        records, summed over the pass and divided by the number of rows; a
        row's weight does not enter it, as in scikit-learn) and
        ``best`` the smallest L of the passes before, a pass with
        ``L > best - tol`` counts as no improvement, any other resets the count,
        and ``n_iter_no_change`` such passes in a row stop ``fit``. ``tol=None``
        makes every one of the ``max_iter`` passes. When the passes run out
        before the rule stops them (and it could have: ``max_iter >
        n_iter_no_change``) a :class:`~olearn.exceptions.ConvergenceWarning`
        says so (scikit-learn, with a tol, warns whenever ``n_iter_ ==
        max_iter``, also when the rule stopped the last pass or could not have
        stopped any).
        ``n_iter_`` is the number of passes made.

        The hyperparameters: ``max_iter`` an integer >= 1 (default 1000),
        ``tol`` a number >= 0 or None (default 1e-3), ``n_iter_no_change`` an
        integer >= 1 (default 5), ``shuffle`` a bool (default True),
        ``random_state`` None (fresh entropy) or an integer in [0, 2**64).

        ``sample_weight`` (one weight per row, or None) travels with its row.
        A DataFrame's column names (all strings) become ``feature_names_in_``;
        the passes read its values as an array.
        Input refused at the boundary leaves the model learned before the
        call; a pass stopped midway (an overflow, a failing callable) keeps the
        rows learned before it, as ``partial_fit`` does.
        """
        check_fit_size(X)
        self._check_hyperparameters()
        # the passes read the rows as arrays, without names: the names are recorded here, once
        names = feature_names(X)
        features = None
        if is_named_batch(X):
            # rows of dicts are converted once, by a vocabulary of their own: fit forgets the old one
            features = FeatureMap(self.n_bits)
            X = self._named_matrix(X, "X", features, learning=True, base=0)[0]
        rows, labels, n_rows = self._fit_rows(X, y)
        # a learner whose _fit_rows converts its named examples itself hands their vocabulary with the rows
        if getattr(rows, "features", None) is not None:
            features = rows.features
        saved = dict(self.__dict__)
        # forgotten before the weights are computed: computing them checks the hyperparameters, and one
        # that a learned model refuses (another covariance, kernel or average) is what fit starts over with
        self._reset()
        if features is not None:
            self._features = features
        try:
            # the checked rows and labels: X and y may be iterators that _fit_rows has read
            weights = self._row_weights(rows, labels, sample_weight, fitting=True)

            def learn_pass(order):
                extra = {} if weights is None else {"sample_weight": weights if order is None else weights[order]}
                return self._progressive(_take(rows, order), _take(labels, order), record=False, **extra)[5]

            self.n_iter_, ran_out = make_passes(self, n_rows, learn_pass)
        except BaseException:
            if not self._is_started():
                # refused before learning anything: the pass would have learned into new
                # arrays, so the saved ones are the old model
                self.__dict__.clear()
                self.__dict__.update(saved)
            elif names is not None:
                self._name_columns(names)
            raise
        if names is not None:
            self._name_columns(names)
        if ran_out:
            warn_unconverged(self, type(self).__name__)
        return self

    def _fit_rows(self, X, y):
        """(X, y, number of rows) checked once in their own order, in a form :func:`_take` picks rows from.

        The default is the one of a learner of rows of a 2-d X with one label
        each; errors name the rows as the caller numbered them.
        """
        arrays = check_X(X)
        # a DataFrame too becomes the array check_X read (fit records its column names)
        X = X.tocsr() if issparse(X) or isinstance(X, CSRRows) else np.asarray(X, dtype=np.float64)
        return X, self._fit_labels(y, arrays.n_rows), arrays.n_rows

    def _fit_labels(self, y, n_rows):
        """The labels of the rows, checked once for ``fit``: a binary learner's have at most two classes.

        ``fit`` sees every label, so a third class is named here, once and
        alike for every seed, rather than where a shuffled pass meets it.
        """
        y = check_y(y, n_rows)
        if self._task == "binary":
            try:
                classes = np.unique(y)
            except TypeError:
                return y  # labels that do not sort are refused by the learner's own label checks
            if classes.size > 2:
                plain = [label.item() if isinstance(label, np.generic) else label for label in classes]
                # the row of X where a third class first appears, in the caller's order
                first_two = []
                for row, label in enumerate(y.tolist()):
                    if label not in first_two:
                        if len(first_two) == 2:
                            break
                        first_two.append(label)
                raise ValueError(
                    f"{type(self).__name__}: Only binary classification is supported; y has {classes.size} classes "
                    f"{plain[:10]}{' ...' if classes.size > 10 else ''}: the third class {label!r} first appears "
                    f"at row {row} (a multiclass learner such as PAMulticlass takes more)"
                )
        return y

    def _name_columns(self, names):
        """Record a DataFrame's column names: ``feature_names_in_``, and the names of the columns 0, 1, ... for dicts."""
        self.feature_names_in_ = names
        if self._named_features:
            self._features = FeatureMap(self.n_bits, list(names))

    def _is_started(self):
        return hasattr(self, self._started_by)

    def _check_started(self):
        if not self._is_started():
            raise NotFittedError(
                f"this {type(self).__name__} has not learned from any {self._unit} yet; "
                "call fit, partial_fit or learn_one first"
            )

    def _check_feature_limit(self, n_features, where):
        """Refuse to grow for ``n_features`` features, naming ``where``, before anything is allocated.

        The indices must stay below a fixed ``n_features`` hyperparameter, and
        the feature-indexed state (:meth:`_state_bytes`) within
        ``olearn.get_config()["max_state_bytes"]``.
        """
        fixed = getattr(self, "n_features", None)
        if fixed is not None and n_features > fixed:
            raise FeatureLimitError(
                f"{where}: feature index {n_features - 1} is past n_features={fixed} "
                f"(indices must be < {fixed})"
            )
        n_bits = getattr(self, "n_bits", None) if self._named_features else None
        if n_bits is not None and n_features > 1 << n_bits:
            raise FeatureLimitError(
                f"{where}: feature index {n_features - 1} is past the 2**{n_bits} = {1 << n_bits} columns of "
                f"n_bits={n_bits} (indices must be < {1 << n_bits})"
            )
        if n_features > INDEX_LIMIT:
            raise FeatureLimitError(
                f"{type(self).__name__}: {where}: feature index {n_features - 1} is too large; olearn takes feature "
                "indices below 2**31 - 1 (hash the features into fewer indices)"
            )
        needed = self._state_bytes(n_features)
        limit = get_config()["max_state_bytes"]
        if needed > limit:
            raise FeatureLimitError(
                f"{type(self).__name__}: {where}: feature index {n_features - 1} would grow the learned state to "
                f"{format_bytes(needed)}, past max_state_bytes={format_bytes(limit)}; raise it with "
                "olearn.set_config(max_state_bytes=...) or hash the features into fewer indices"
            )

    def _state_bytes(self, n_features):
        """The bytes of feature-indexed state for ``n_features`` features: one float64 weight each, and the intercept."""
        return 8 * (n_features + 1)

    def _width_limits(self):
        """The limits of a saved state's ``n_features_in``: exactly ``n_features`` when that is set."""
        return {} if self.n_features is None else {"n_features_in": (self.n_features, self.n_features)}

    def _reset(self):
        for name in (*self._learned, "feature_names_in_", "n_iter_", "_features"):
            self.__dict__.pop(name, None)
        forget_average(self)  # and the arrays it kept alive

    # -- a batch stopped by an overflow -----------------------------------------

    def _progressive(self, X, y, record, **extra):
        """One online pass over the rows of X (``_progressive_pass``): what ``partial_fit``, ``fit`` and ``run`` call.

        A pass that an overflow stops at row k raises
        :class:`~olearn.exceptions.PartialUpdateError` with ``rows_kept=k``,
        and the learner is then exactly what learning ``X[:k]`` alone (with
        the same ``classes`` and weights) would have made it: at k = 0 it is
        put back as it was before the call (unfitted, if it was); after k rows
        it keeps their updates, and the classes, the columns and the names
        that only the refused rows brought are forgotten
        (:meth:`_keep_first_rows`). The cost is what the batch touches: the
        attributes are saved by reference, and only the small ones that a
        batch's start changes in place are copied (:meth:`_batch_copies`); a
        learner whose rows kept must be learned again instead is copied whole
        (:meth:`_learns_again`: a binary learner until it knows both classes,
        and a learner that cannot forget columns, ``_cuts_columns``, fed named
        rows).
        """
        saved = dict(self.__dict__)
        again = (self._learns_again(saved, y, extra.get("classes"))
                 or (is_named_batch(X) and not self._cuts_columns))
        copies = self._batch_copies(again)
        features = saved.get("_features")
        size = 0 if features is None else features.size
        try:
            return self._progressive_pass(X, y, record, **extra)
        except PartialUpdateError as err:
            k = err.rows_kept
            if k and not again:
                self._keep_first_rows(k, X, y, extra, {**saved, **copies}, size)
            else:
                self._restore({**saved, **copies}, features, size)
                if k:
                    weights = _first_rows(extra.get("sample_weight"), k)
                    self._progressive_pass(_first_rows(X, k), _first_rows(y, k), False,
                                           **{**extra, "sample_weight": weights})
            raise

    def _batch_copies(self, whole):
        """Copies of the attributes that a batch's start changes in place (``_batch_in_place``), or all (``whole``)."""
        state = self.__dict__
        if whole:
            return {name: copy.deepcopy(value) for name, value in state.items() if name != "_features"}
        return {name: copy.deepcopy(state[name]) for name in self._batch_in_place if name in state}

    def _learns_again(self, state, y, classes):
        """Whether a batch that an overflow stops is undone and its rows kept learned again (else cut to them).

        So for a learner whose updates of the first rows depend on the classes
        the later rows bring (a binary learner's second class changes which
        one is +1, and for some the rule itself): it is then copied whole when
        the batch begins. ``state`` is its attributes before the batch, ``y``
        and ``classes`` the batch's labels and declared classes.
        """
        return False

    def _restore(self, saved, features, size):
        """Put back the attributes ``saved`` and the vocabulary's first ``size`` names."""
        self.__dict__.clear()
        self.__dict__.update(saved)
        if features is not None:
            features.truncate(size)

    def _keep_first_rows(self, k, X, y, extra, before, size):
        """After a pass kept only the rows ``X[:k]``: forget the names, columns and classes only the others brought.

        ``before`` holds the attributes before the call (those changed in
        place as copies), ``size`` the size of its vocabulary. The names of
        ``X[:k]`` are read again into the vocabulary as the call read them
        (as a fresh learner fed ``X[:k]`` reads them), which gives the columns
        that the rows kept span (:meth:`_columns_of`); the columns past them
        are forgotten (:meth:`_narrow`). The classes are the learner's own
        (:meth:`_keep_classes`).
        """
        features = self.__dict__.get("_features")
        if features is not None:
            features.truncate(size)
            width = self._columns_of(_first_rows(X, k), features, before.get("n_features_in_", 0))
            if width is not None and width < self.n_features_in_ and getattr(self, "n_features", None) is None:
                self._narrow(width)
        self._keep_classes(k, _first_rows(y, k), extra.get("classes"), before)

    def _columns_of(self, X, features, base):
        """The columns that the rows X span from ``base`` on, their new names read into ``features``; None when
        they span all the batch's (the rows of an array or a sparse matrix: its width is theirs)."""
        if not is_named_batch(X):
            return None
        return max(base, self._named_matrix(X, "X", features, True, base)[0].shape[1])

    def _narrow(self, n_features):
        """Forget the columns from ``n_features`` on, which no row kept learned: their weights are still initial.

        The arrays keep their room; a column past ``n_features_in_`` holds
        what a column that grows in takes.
        """
        self.n_features_in_ = int(n_features)

    def _keep_classes(self, k, y, classes, before):
        """After a pass kept only its first ``k`` rows, of labels ``y``: forget the classes only the others brought."""

    # -- named features -------------------------------------------------------

    @property
    def vocabulary_(self):
        """The names of the features learned, ``{name: column}`` in the order learned (a copy).

        A name is a key of a dict example that is not an integer, or
        ``"key=value"`` for a str value; a DataFrame given to ``fit`` or the
        first ``partial_fit`` names the columns 0, 1, ... With ``n_bits`` set
        names are hashed, not stored, and the vocabulary holds only a
        DataFrame's column names. See :mod:`olearn._features`.
        """
        if not self._named_features:
            raise AttributeError(f"{type(self).__name__} learns target vectors, not named features: no vocabulary_")
        self._check_started()
        return self._feature_map().vocabulary()

    def _feature_map(self):
        """The learner's :class:`~olearn._features.FeatureMap`; a fresh one, not kept, before learning starts."""
        features = self.__dict__.get("_features")
        if features is None:
            if not FEATURE_CONSTRAINTS["n_bits"].accepts(self.n_bits):
                check_params(self, FEATURE_CONSTRAINTS)
            names = getattr(self, "feature_names_in_", None)
            features = FeatureMap(self.n_bits, () if names is None else list(names))
        return features

    def _first_free_column(self):
        """The first column a name learned next may take: after every column of the model."""
        return self.__dict__.get("n_features_in_", 0)

    def _refuse_names_in_fixed_space(self, new):
        """Refuse new names for a vocabulary in a fixed ``n_features``: they could take an indexed column.

        Such a model never grows, so a new name would have to take a column
        from 0 up, one that an integer key or an array column may already have
        learned, and the two would share a weight without a word. Its names
        are those of the DataFrame it was fitted on; hashing (``n_bits``) or
        ``n_features=None`` take any name.
        """
        if getattr(self, "n_features", None) is None or self.n_bits is not None:
            return
        shown = ", ".join(repr(name) for name, _ in new[:3])
        raise ValueError(
            f"{type(self).__name__}: the names {shown}{' ...' if len(new) > 3 else ''} are new, and with a fixed "
            f"n_features={self.n_features} and a vocabulary (n_bits=None) a new name has no column of its own: the "
            "columns are indexed. Set n_features=None (the vocabulary grows the model), or n_bits to hash names"
        )

    def _row(self, x):
        """``(indices, data, n_features)`` of one example to predict: a dict, an array or a sparse row.

        A name the model never learned adds nothing to w.x; a kernel reads it
        as an index it never learned (:meth:`_places_unknown_names`).
        """
        if type(x) is dict or isinstance(x, Mapping):
            if self._places_unknown_names():
                indices, data, n_features, _ = self._feature_map().row(x, self._first_free_column(), True)
            else:
                indices, data, n_features, _ = self._feature_map().row(x, 0, False)
            return indices, data, n_features
        return check_row(x)

    def _places_unknown_names(self):
        """Whether a name never learned is read, to predict, as an index never learned rather than left out.

        Only a kernel reads such a feature (in ``||x||``, hence in K(x, x_i));
        w.x and a feature map leave it out, as a fixed ``n_features`` does.
        """
        return getattr(self, "kernel", None) is not None and getattr(self, "n_features", None) is None

    def _learning_row(self, x):
        """``(indices, data, n_features, new)`` of one example to learn; ``new`` lists the names it adds, or None.

        The names are added by ``_learn_row`` when the example is accepted
        (:meth:`_first_call_atomic`).
        """
        if type(x) is dict or isinstance(x, Mapping):
            return self._feature_map().row(x, self._first_free_column(), True)
        indices, data, n_features = check_row(x)
        return indices, data, n_features, None

    def _named_matrix(self, X, name, features, learning, base):
        """A list of dicts as a CSR matrix by ``features`` (one :meth:`FeatureMap.row` each), and the names it adds.

        With ``learning`` the names are added to ``features`` (a row's
        names are known to the rows after it); errors name the row.
        """
        grow = getattr(self, "n_features", None) is None
        indptr, indices, data, width, new = features.rows(X, base, learning, grow, name)
        import scipy.sparse as sp

        return sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, width)), new

    # -- the columns of a batch -----------------------------------------------

    def _check_X(self, X, name="X", learning=False):
        """``check_X(X)``, then the columns checked against what the learner learned from.

        The rule (scikit-learn's ``n_features_in_`` and ``feature_names_in_``
        for dense batches, olearn's growing feature space for the rest):

        * a dense batch (array, DataFrame, list of rows) states the value of
          every feature, so once the model has features it must have exactly
          ``n_features_in_`` columns, in ``partial_fit`` and ``run`` as in
          ``predict`` and ``decision_function``; a different width is a
          different layout of the features, refused rather than misread (a
          model started with no feature, by ``classes=`` on an empty batch,
          takes the width of its first batch);
        * a sparse matrix and a single example (``learn_one``) name their
          features by index: any width, a new index grows the model and an
          index it never learned counts 0 in a score;
        * with a fixed ``n_features`` the feature space is declared by it, and
          every batch is read by index (a dense one may be narrower);
        * a DataFrame whose column names are all strings records them as
          ``feature_names_in_`` when learning starts; later DataFrames must
          have the same names in the same order (a reordered or renamed frame
          is refused, never silently misread). A batch without names for a
          learner fitted with them, or the reverse, is read by position with
          scikit-learn's warning;
        * a list (or tuple) of dicts names its features as ``learn_one``'s
          dicts do, one conversion per row (:meth:`_check_named`): any width.
          With ``learning`` (``partial_fit``, ``run``) the names it adds are
          given as ``new_names`` of the result, for :meth:`_first_call_atomic`.
        """
        if is_named_batch(X):
            return self._check_named(X, name, learning)
        if not self._is_started():
            return check_X(X, name)
        # the names first: a frame with other columns is refused as such, whatever its values
        fitted = getattr(self, "feature_names_in_", None)
        given = feature_names(X)
        cls = type(self).__name__
        if fitted is not None and given is not None:
            if given.size != fitted.size or (given != fitted).any():
                raise ValueError(self._names_mismatch(fitted, given, name))
        elif fitted is not None:
            warnings.warn(f"{name} does not have valid feature names, but {cls} was fitted with feature names",
                          UserWarning, stacklevel=3)
        elif given is not None:
            warnings.warn(f"{name} has feature names, but {cls} was fitted without feature names",
                          UserWarning, stacklevel=3)
        arrays = check_X(X, name)
        width = self.n_features_in_
        if arrays.dense and getattr(self, "n_features", None) is None and width and arrays.n_features != width:
            # scikit-learn's wording (its checks look for "X has"), whatever the argument's name
            raise ValueError(
                f"X has {arrays.n_features} features, but {cls} is expecting {self.n_features_in_} features "
                f"as input: a dense batch ({name}) must have as many columns as the model has features (a sparse "
                "matrix or learn_one may name any feature index)"
            )
        return arrays

    def _check_named(self, X, name, learning):
        """The CSR arrays of a list of dicts, by the learner's FeatureMap, which is left as it was.

        The names the batch adds are in ``new_names``: the learner adds them
        when it accepts the batch. Read rows grow as the stream of their
        ``learn_one`` would: a row's new names after every column before it.
        """
        features = self._feature_map()
        size = features.size
        # to predict, the names never learned are read as in _row
        placed = learning or self._places_unknown_names()
        try:
            matrix, new = self._named_matrix(X, name, features, placed, self._first_free_column())
        finally:
            if placed:
                features.truncate(size)
        arrays = check_X(matrix, name)
        arrays.new_names = new if learning else None
        return arrays

    @staticmethod
    def _names_mismatch(fitted, given, name):
        """scikit-learn's message for columns named otherwise than at fit (its checks read it), and the fix."""
        seen = set(fitted)
        now = set(given)
        unexpected = [str(n) for n in given if n not in seen]
        missing = [str(n) for n in fitted if n not in now]
        message = "The feature names should match those that were passed during fit.\n"
        if unexpected:
            message += "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unexpected[:5])
        if missing:
            message += "Feature names seen at fit time, yet now missing:\n" + "".join(f"- {n}\n" for n in missing[:5])
        if not unexpected and not missing:
            message += "Feature names must be in the same order as they were in fit.\n"
        return message + f"({name}'s columns are read by position; select them as X[est.feature_names_in_])"

    def _copied_in_place(self):
        """The attributes changed in place (``_changed_in_place``) that a call which may be refused copies when it
        begins (:meth:`_first_call_atomic`): all of them, unless the learner knows that some cannot change."""
        return self._changed_in_place

    @contextlib.contextmanager
    def _first_call_atomic(self, arrays=None, new=None):
        """Start the learned state if needed, and take the names ``new``; undo what the block changed if it fails.

        A refused call (bad labels, a feature index past the limits) must leave
        the estimator exactly as it was: unfitted if it was, and otherwise with
        the attributes it had. The growth of arrays done in the block replaces
        them rather than writing into them, so the saved references are the old
        state; the attributes changed in place (``_changed_in_place``: those
        :meth:`_copied_in_place` names) are saved as copies. ``arrays``, the
        batch that starts the learning, gives ``feature_names_in_`` (see
        :meth:`_check_X`). The names of a learned
        example (``new``, or the ``new_names`` of ``arrays``) join the
        vocabulary here, and leave it again (:meth:`FeatureMap.truncate`) if
        the block fails: a model that keeps a fixed ``n_features`` and never
        grows must still pass its new names through this block.
        """
        started = self._is_started()
        saved = dict(self.__dict__)
        features = saved.get("_features")
        size = 0 if features is None else features.size
        if started:
            for name in self._copied_in_place():
                if name in saved:
                    saved[name] = copy.deepcopy(saved[name])
        else:
            self._start()
            if arrays is not None and arrays.feature_names is not None:
                self.feature_names_in_ = arrays.feature_names
        if arrays is not None and arrays.new_names:
            new = arrays.new_names
        try:
            if self._named_features and (new or features is None):
                # the names are the learner's once it accepts the example: taken back below if refused
                self._features = self._feature_map()
                if new:
                    self._refuse_names_in_fixed_space(new)
                    self._features.add(new)
            yield
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            if features is not None:
                features.truncate(size)
            raise


class ManyRows:
    """River's batch API for a learner of rows: ``learn_many`` and ``predict_many`` over a DataFrame of named columns."""

    @locked
    def learn_many(self, X, y):
        """Learn the rows of the DataFrame ``X`` in order, as named examples; returns self.

        River's ``learn_many``: the columns are feature names, in any order
        and any subset (an integer column name is a column index); the values
        of object, str and categorical columns are categories (one-hot
        ``"column=value"``, a missing value absent), the others numbers. The
        same as ``partial_fit`` of the rows as dicts (see :mod:`olearn._features`).
        """
        return self.partial_fit(frame_rows(X), y)

    @locked
    def predict_many(self, X):
        """Predictions for the rows of the DataFrame ``X`` read as named examples, a pandas Series on X's index."""
        predictions = self.predict(frame_rows(X))
        import pandas as pd

        if np.ndim(predictions) == 2:
            return pd.DataFrame(predictions, index=X.index, columns=getattr(self, "classes_", None))
        return pd.Series(predictions, index=X.index)


# the second half of why scikit-learn's sample-weight equivalence checks fail, true of every online learner
_SHUFFLED_COPIES = (
    "whatever the rule, an online learner's model depends on the order of its examples: fit's passes visit the rows "
    "in a fresh random order, a row of weight w is one round where its w copies are w rounds at w places of a "
    "pass, and the check orders its weighted rows otherwise than its repeated ones"
)

# why scikit-learn's class-weight check fails for a learner without an intercept (measured on the check's data)
_NO_INTERCEPT = (
    "without an intercept (fit_intercept=False) the boundary passes through the origin, and no half-plane through "
    "the origin holds more than 60% of the test points of the check's blobs (they are not centred on 0), short of "
    "the 87% of class 0 it asks"
)


def _first_rows(data, k):
    """The first ``k`` rows of ``data`` (an array, a sparse matrix, a list, a DataFrame or Series), or None for None."""
    if data is None:
        return None
    if hasattr(data, "iloc"):
        return data.iloc[:k]
    return data[:k]


def _take(data, order):
    """The rows ``order`` of ``data`` (an array, a sparse matrix, a list, or a batch that picks its own rows with
    ``reordered``), or ``data`` for None."""
    if data is None or order is None:
        return data
    if hasattr(data, "reordered"):
        return data.reordered(order)
    if issparse(data) or isinstance(data, np.ndarray):
        return data[order]
    return [data[i] for i in order]


def is_named_batch(X):
    """Whether ``X`` is a batch of named examples: a list or tuple of dicts (its first element a mapping)."""
    return isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], Mapping)


def frame_rows(X, name="X"):
    """The rows of the DataFrame ``X`` as dicts keyed by its column names, for :meth:`OnlineLearner.learn_many`.

    A missing value of an object, str or categorical column (None, NaN,
    ``pd.NA``) is an absent feature; a missing number is refused by the
    conversion, as in a dict.
    """
    if not (hasattr(X, "columns") and hasattr(X, "itertuples") and hasattr(X, "index")):
        raise TypeError(f"{name} must be a pandas DataFrame whose columns name the features; got {type(X).__name__}")
    columns = []
    for k, dtype in enumerate(X.dtypes):
        values = X.iloc[:, k]
        if dtype.kind not in "biuf":
            values = values.astype(object).where(values.notna(), None)
        columns.append(values.tolist())
    names = list(X.columns)
    return [dict(zip(names, row)) for row in zip(*columns)] if columns else [{} for _ in range(len(X))]
