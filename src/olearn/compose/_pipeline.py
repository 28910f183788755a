"""Pipelines: online transformers chained before a learner, run in the honest progressive order."""

import numpy as np
import scipy.sparse as sp

from .._batch_rows import _is_frame, batch_rows, column_key
from .._estimator import Estimator, only_when
from ..exceptions import PartialUpdateError
from .._features import FeatureMap
from .._held_out import CHUNK_REFUSALS
from .._learner import OnlineLearner, _first_rows
from .._params import Interval, NoneOr, check_params
from ._locks import holding_steps
from ._plan import Plan
from ._saving import pipeline_contents, pipeline_from_file


def _default_name(step):
    return type(step).__name__.lower()


class Pipeline(Estimator):
    """Online transformers followed by a learner, run example by example in the honest progressive order.

    ``Pipeline(StandardScaler(), PAClassifier())`` is also written
    ``StandardScaler() | PAClassifier()``. Every step but the last is an
    olearn transformer (:mod:`olearn.preprocessing`); the last is a
    transformer or a learner of rows (a learner can only be last).

    **The order of a round.** ``learn_one(x, y)`` transforms ``x`` with the
    statistics of the examples *before* it, the learner learns the transformed
    example, and only then do the transformers update their statistics with
    ``x``. So ``predict_learn_one`` (and :func:`olearn.run` on a pipeline)
    predicts every example with a model and statistics that have not seen it,
    and the recorded mistakes are honest progressive validation. River's
    pipeline updates an unsupervised transformer *before* transforming the
    example it learns (its ``learn_one`` calls ``learn_one`` then
    ``transform_one`` on each transformer), so its learner learns an example
    scaled with statistics that include it, one step ahead of the statistics
    it will be predicted with; the two orders converge as the statistics
    settle, and differ on the first examples of a stream (River's first
    example scales to 0 in learning, olearn's too, for the first statistics
    have nothing before them).

    **One conversion.** The pipeline owns one
    :class:`~olearn._features.FeatureMap` (``feature_map_``): each dict is
    converted once into the columns and values of a row, the transformers'
    compiled cores scale that row in place of a dict, and the learner is
    handed integer columns through its row-level protocol (``_learn_row``,
    ``_predict_row``). Names map to columns by a growing vocabulary, or by
    hashing with ``n_bits`` (or a :class:`~olearn.preprocessing.FeatureHasher`
    step, which says the same). The transformers keep their statistics
    themselves (``pipeline["standardscaler"].mean_``), over the pipeline's
    columns, and share its map.

    **Batches.** ``partial_fit(X, y)`` (and ``learn_many``, and ``run``) is
    ``learn_one`` row by row: the transformers being unsupervised, each one's
    progressive transform of the whole batch is one compiled pass, and then the
    learner's compiled pass learns the result. ``predict``,
    ``decision_function`` (and ``predict_many``) transform with the current
    statistics and learn nothing.

    **Saving.** ``save(path)`` writes a learned pipeline as a learner's
    ``save`` does (atomic, portable, no pickle) and :func:`olearn.load` reads
    it back: the steps' names, classes and hyperparameters, each transformer's
    statistics, the learner's state and the pipeline's names of features, each
    checked on loading (:mod:`olearn.compose._saving`). The loaded pipeline
    predicts as this one and goes on learning exactly as it would have.

    Parameters
    ----------
    *steps : estimators, or (name, estimator) pairs
        The transformers, then the learner. A step's name (for ``get_params``
        and ``pipeline[name]``) is its class name in lower case, numbered when
        several steps share it (``standardscaler-1``, ``standardscaler-2``).
    n_bits : int or None, default=None
        None for a vocabulary of names, else the number of bits of the hash of
        names (1 to 31; see :class:`~olearn._features.FeatureMap`).

    Examples
    --------
    >>> from olearn import PAClassifier
    >>> from olearn.preprocessing import StandardScaler
    >>> model = StandardScaler() | PAClassifier()
    >>> model
    Pipeline(StandardScaler(), PAClassifier())
    >>> for x, y in [({"age": 20, "income": 1e4}, "no"), ({"age": 60, "income": 9e4}, "yes"),
    ...              ({"age": 25, "income": 2e4}, "no"), ({"age": 50, "income": 8e4}, "yes")]:
    ...     _ = model.learn_one(x, y)
    >>> print(model.predict_one({"age": 55, "income": 7e4}))
    yes
    >>> model["standardscaler"].mean_.tolist()
    [38.75, 50000.0]
    """

    _locking = staticmethod(holding_steps)

    @property
    def _estimator_type(self):
        # scikit-learn's kind of the pipeline is its last step's ("classifier", "regressor", "transformer")
        return getattr(self.steps[-1][1], "_estimator_type", None) if self.steps else None

    @property
    def _task(self):
        # the problem the pipeline solves is its learner's (olearn.run's metrics check it)
        return getattr(self.steps[-1][1], "_task", None) if self.steps else None

    @property
    def classes_(self):
        """The learner's classes (AttributeError before it knows any, or for a learner without classes)."""
        if not self.steps:
            raise AttributeError("Pipeline has no steps, so no classes_")
        return self.steps[-1][1].classes_

    def __init__(self, *steps, n_bits=None):
        named, counts = [], {}
        pairs = [step if isinstance(step, tuple) else (None, step) for step in steps]
        for name, step in pairs:
            if name is None:
                counts[_default_name(step)] = counts.get(_default_name(step), 0) + 1
        seen = {}
        for name, step in pairs:
            if name is None:
                base = _default_name(step)
                if counts[base] > 1:
                    seen[base] = seen.get(base, 0) + 1
                    name = f"{base}-{seen[base]}"
                else:
                    name = base
            named.append((name, step))
        self.steps = named
        self.n_bits = n_bits

    # -- parameters ----------------------------------------------------------------

    def get_params(self, deep=True):
        """``n_bits``, each step by name, and with ``deep`` each step's parameters as ``name__param``."""
        params = {"n_bits": self.n_bits}
        for name, step in self.steps:
            params[name] = step
            if deep:
                params.update((f"{name}__{key}", value) for key, value in step.get_params(deep=True).items())
        return params

    def set_params(self, **params):
        """Set ``n_bits``, replace a step (``name=step``) or set a step's parameter (``name__param``); returns self."""
        names = [name for name, _ in self.steps]
        nested = {}
        for key, value in params.items():
            name, delimiter, inner = key.partition("__")
            if name == "n_bits" and not delimiter:
                self.n_bits = value
            elif name not in names:
                raise ValueError(
                    f"invalid parameter {name!r} for Pipeline; valid parameters: n_bits, {', '.join(names)}"
                )
            elif delimiter:
                nested.setdefault(name, {})[inner] = value
            else:
                self.steps[names.index(name)] = (name, value)
        for name, inner in nested.items():
            self[name].set_params(**inner)
        return self

    def __sklearn_clone__(self):
        from sklearn.base import clone

        return Pipeline(*[(name, clone(step)) for name, step in self.steps], n_bits=self.n_bits)

    def __getitem__(self, key):
        """The step of name ``key``, or at position ``key``."""
        if isinstance(key, str):
            for name, step in self.steps:
                if name == key:
                    return step
            raise KeyError(f"no step named {key!r}; the steps are {[name for name, _ in self.steps]}")
        return self.steps[key][1]

    def __len__(self):
        return len(self.steps)

    def __repr__(self):
        shown = [repr(step) if name == _default_name(step) else repr((name, step)) for name, step in self.steps]
        if self.n_bits is not None:
            shown.append(f"n_bits={self.n_bits!r}")
        return f"Pipeline({', '.join(shown)})"

    def __or__(self, other):
        """This pipeline followed by ``other`` (a transformer, a learner or a pipeline): a new pipeline."""
        if not isinstance(other, Estimator):
            return NotImplemented
        tail = [step for _, step in other.steps] if isinstance(other, Pipeline) else [other]
        steps = [step for _, step in self.steps] + tail
        n_bits = self.n_bits
        if n_bits is None and isinstance(other, Pipeline):
            n_bits = other.n_bits
        return Pipeline(*steps, n_bits=n_bits)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_plan_cache", None)
        state.pop("_last_one", None)
        return state

    # -- saving ----------------------------------------------------------------------

    def save(self, path):
        """Write the learned pipeline to ``path`` (atomic; read it back with :func:`olearn.load`); returns ``path``.

        The file holds the steps' names, classes and hyperparameters, each
        transformer's statistics, the learner's state and the pipeline's names
        of features, so that the loaded pipeline predicts and goes on learning
        exactly as this one would (see :mod:`olearn.compose._saving`).
        """
        from .._persistence import save

        save(self, path)
        return path

    def _file_contents(self):
        return pipeline_contents(self)

    @classmethod
    def _from_file(cls, path, meta, arrays):
        return pipeline_from_file(cls, path, meta, arrays)

    # -- the plan: the steps checked --------------------------------------------------

    def _plan_key(self):
        # the encoders' and hashers' settings shape the plan; the scalers check theirs on each use
        names = tuple(tuple(step.get_params(deep=False).values()) for _, step in self.steps
                      if getattr(step, "_acts_on_names", False))
        return tuple(self.steps), (type(self.n_bits), self.n_bits), names

    def _plan(self):
        """The checked plan of the steps, rebuilt only when the steps or their settings change."""
        plan = self.__dict__.get("_plan_cache")
        # a step compares equal only to itself: the cheap check of every example
        if (plan is not None and plan.key[0] == tuple(self.steps) and plan.key[1] == (type(self.n_bits), self.n_bits)
                and (not plan.key[2] or plan.key == self._plan_key())):
            return plan
        key = self._plan_key()
        check_params(self, {"n_bits": NoneOr(Interval(1, 31, integer=True))})
        plan = Plan.of(key, self.steps, self.n_bits)
        self._plan_cache = plan
        return plan

    # -- learned state ---------------------------------------------------------------

    def _is_started(self):
        return "feature_map_" in self.__dict__

    def _start(self, plan):
        for step in plan.scalers:
            if step._is_started():
                raise ValueError(
                    f"Pipeline: {type(step).__name__} has learned outside this pipeline, over other columns; give "
                    "the pipeline fresh transformers (sklearn.base.clone them)"
                )
        if plan.learner is not None and plan.learner._is_started():
            raise ValueError(
                f"Pipeline: {type(plan.learner).__name__} has learned outside this pipeline, over other columns; give "
                "the pipeline a fresh learner (sklearn.base.clone it)"
            )
        fm = FeatureMap(n_bits=plan.n_bits)
        for step in plan.scalers:
            step._start()
            step.feature_map_ = fm
        self.feature_map_ = fm
        self.n_features_in_ = 0

    def _started(self, plan):
        """Whether the pipeline had learned before; it has started now, its map checked against ``plan``."""
        started = self._is_started()
        if not started:
            self._start(plan)
        else:
            self._check_map(plan)
        return started

    def _unstart(self, plan):
        for step in plan.scalers:
            step._reset()
        del self.feature_map_, self.n_features_in_

    def _check_map(self, plan):
        if self.feature_map_.n_bits != plan.n_bits:
            raise ValueError(
                f"Pipeline: n_bits is now {plan.n_bits!r}, and the pipeline learned its columns with "
                f"n_bits={self.feature_map_.n_bits!r}; a learned pipeline keeps its mapping of names"
            )

    # -- one example -----------------------------------------------------------------

    def _transform_row(self, plan, indices, data, fm, new):
        """The row through every scaler: the inputs of each (for their learning) and the last output."""
        inputs = []
        for step in plan.scalers:
            settings = step._config()
            out = np.empty(data.size)
            seen, stats = step._state()
            bad = step._transform_kernel(indices, data, stats, seen, settings, out)
            if bad >= 0:
                raise step._overflow(column_key(fm, new, indices[bad]), data[bad], "its transform")
            inputs.append((step, data, settings))
            data = out
        return inputs, data

    def _remember(self, x, plan, fm, indices, n_features, inputs, data):
        """Keep ``predict_one``'s work on ``x`` for a ``learn_one(x, y)`` that follows (River's idiom).

        Only for a dict whose every key has a column (no unknown name, no None,
        nothing summed): converting it to learn would give the same row. A copy
        of the dict (to see a change made in between), and the statistics each
        step had and the settings it used, are kept with it.
        """
        if type(x) is dict and indices.size == len(x) and fm is self.__dict__.get("feature_map_"):
            steps = [(step, step._arrays, step._arrays[0][0], settings) for step, _, settings in inputs]
            self._last_one = (x.copy(), plan, steps, indices, n_features, inputs, data)

    def _recall(self, x, plan):
        """``predict_one``'s (indices, n_features, inputs, data) of a dict equal to ``x``, if nothing else changed."""
        memo = self.__dict__.pop("_last_one")
        if memo[1] is not plan or type(x) is not dict or x != memo[0]:
            return None
        for step, arrays, seen, settings in memo[2]:
            if step._arrays is not arrays or arrays[0][0] != seen or step._config() is not settings:
                return None
        return memo[3:]

    def _round(self, x, y, sample_weight, plan):
        """One honest round: transform with the statistics before ``x``, learn, then update; the prediction made."""
        learner = plan.learner
        if learner is None:
            raise TypeError(
                "Pipeline: the last step is a transformer; learn_one(x) learns, transform_one(x) transforms"
            )
        fm = self.__dict__.get("feature_map_")
        started = fm is not None
        if not started:
            self._start(plan)
            fm = self.feature_map_
        elif fm.n_bits != plan.n_bits:
            self._check_map(plan)
        try:
            recalled = self._recall(x, plan) if "_last_one" in self.__dict__ else None
            if recalled is not None:
                indices, n_features, inputs, data = recalled
                new = None
            else:
                if type(x) is dict and not plan.features:
                    indices, data, n_features, new = fm.row(x, self.n_features_in_, True)
                else:
                    indices, data, n_features, new = plan.row(x, fm, self.__dict__.get("n_features_in_", 0), True)
                inputs, data = self._transform_row(plan, indices, data, fm, new)
            prediction = learner._learn_row(indices, data, n_features, y, sample_weight)
        except BaseException:
            if not started:
                self._unstart(plan)
            raise
        if new:
            fm.add(new)
        if n_features > self.n_features_in_:
            self.n_features_in_ = n_features
        for step, values, _ in inputs:
            if n_features > step.n_features_in_:
                step._grow(n_features)
            seen, stats = step._arrays
            step._learn_kernel(indices, values, stats, seen)
        return prediction

    def learn_one(self, x, y=None, sample_weight=None):
        """Learn one example (dict, 1-d array or sparse row) in the honest order; returns self.

        ``x`` is transformed with the statistics of the examples before it,
        the learner learns it (with label ``y`` and weight ``sample_weight``),
        then the transformers update their statistics with it. A refused
        example (bad value, bad label, an overflow) leaves the whole pipeline
        as it was. A pipeline of transformers only learns ``x`` (``y`` unused).
        """
        plan = self._plan()
        if plan.learner is None:
            self._learn_transformers(x)
        else:
            self._round(x, y, sample_weight, plan)
        return self

    def predict_learn_one(self, x, y, sample_weight=None):
        """Predict ``x``, then learn it: one round of progressive validation, converted once; the prediction."""
        return self._round(x, y, sample_weight, self._plan())

    def _predicting(self):
        """(plan, feature map, learner) for predicting; an unstarted pipeline predicts with no statistics."""
        plan = self._plan()
        if plan.learner is None:
            raise TypeError("Pipeline: the last step is a transformer, which predicts nothing; use transform_one")
        if self._is_started():
            self._check_map(plan)
            return plan, self.feature_map_
        return plan, FeatureMap(n_bits=plan.n_bits)

    def _transformed_one(self, x):
        plan = self._plan()
        fm = self.__dict__.get("feature_map_")
        if plan.learner is None or fm is None or fm.n_bits != plan.n_bits:
            plan, fm = self._predicting()
        if type(x) is dict and not plan.features:
            indices, data, n_features, _ = fm.row(x, self.__dict__.get("n_features_in_", 0), False)
        else:
            indices, data, n_features, _ = plan.row(x, fm, self.__dict__.get("n_features_in_", 0), False)
        inputs, data = self._transform_row(plan, indices, data, fm, None)
        if plan.scalers:
            self._remember(x, plan, fm, indices, n_features, inputs, data)
        return plan, indices, data, n_features

    def predict_one(self, x):
        """The learner's prediction for ``x`` transformed by the statistics so far (unknown names count 0)."""
        plan, indices, data, n_features = self._transformed_one(x)
        return plan.learner._predict_row(indices, data, n_features)

    def _why_no_proba_one(self):
        steps = self.steps
        if steps and hasattr(steps[-1][1], "predict_proba_one"):
            return None
        return "its last step has no predict_proba_one"

    @only_when(_why_no_proba_one)
    def predict_proba_one(self, x):
        """The learner's ``predict_proba_one`` of ``x`` transformed (where the learner has one)."""
        plan, indices, data, _ = self._transformed_one(x)
        return plan.learner.predict_proba_one(dict(zip(indices.tolist(), data.tolist())))

    def transform_one(self, x):
        """``x`` through the transformers (not the learner), keyed by feature names (or column indices)."""
        plan = self._plan()
        fm = self.feature_map_ if self._is_started() else FeatureMap(n_bits=plan.n_bits)
        indices, data, _, new = plan.row(x, fm, self.__dict__.get("n_features_in_", 0), True)
        _, data = self._transform_row(plan, indices, data, fm, new)
        return {column_key(fm, new, j): value for j, value in zip(indices.tolist(), data.tolist())}

    def _learn_transformers(self, x):
        plan = self._plan()
        started = self._started(plan)
        fm = self.feature_map_
        try:
            indices, data, n_features, new = plan.row(x, fm, self.__dict__.get("n_features_in_", 0), True)
            inputs, _ = self._transform_row(plan, indices, data, fm, new)
        except BaseException:
            if not started:
                self._unstart(plan)
            raise
        if new:
            fm.add(new)
        self.n_features_in_ = max(self.n_features_in_, n_features)
        for step, values, _ in inputs:
            step._grow(n_features)
            seen, stats = step._arrays
            step._learn_kernel(indices, values, stats, seen)

    # -- batches ---------------------------------------------------------------------

    def _batch(self, X, plan, fm, learning, held=None):
        """X's rows transformed in the honest order (learning) or by the current statistics: (batch, values, stats).

        ``held`` (learning): a boolean per row, the held-out rows of a multi-pass run, transformed by the statistics
        of their moment and not learned (:meth:`_held_out_pass`).
        """
        if plan.features:
            X = plan.encoded_batch(X)
        batch = batch_rows(fm, X, self.n_features_in_)
        if fm.hashing and batch.n_features > (1 << fm.n_bits):
            raise ValueError(f"X has a feature index {batch.n_features - 1}, past the 2**{fm.n_bits} columns")
        values, learned = batch.data, []
        for step in plan.scalers:
            settings = step._config()
            out = np.empty_like(values)
            if learning:
                state = step._stats_copy(batch.n_features)
                row, bad = step._progressive_kernel(batch.indptr, batch.indices, values, state[1], state[0], settings,
                                                    out, held)
                learned.append((step, state))
            else:
                seen, stats = step._state()
                bad = step._transform_kernel(batch.indices, values, stats, seen, settings, out)
                row = int(np.searchsorted(batch.indptr, bad, side="right") - 1) if bad >= 0 else -1
            if row >= 0:
                overflow = step._overflow(column_key(fm, None, batch.indices[bad]), values[bad], "its transform")
                raise ValueError(f"X: row {row}: {overflow}")
            values = out
        return batch, values, learned

    def _learned_batch(self, X, y, params, learn):
        """Transform X in the honest order, let ``learn(rows, y, params)`` (the learner) learn it, keep the statistics.

        When an overflow stops the learner at row k (``PartialUpdateError``),
        the pipeline is left what learning ``X[:k]`` alone makes it
        (:meth:`_keep_rows`); at k = 0, as it was (the learner puts itself
        back, see :meth:`OnlineLearner._progressive`).
        """
        plan = self._plan()
        if plan.learner is None:
            raise TypeError("Pipeline: the last step is a transformer; partial_fit(X) needs no labels")
        started = self._started(plan)
        fm = self.feature_map_
        size = fm.size
        if not (sp.issparse(X) or _is_frame(X) or isinstance(X, (np.ndarray, list, tuple))):
            X = list(X)  # an iterator: kept, so the rows an overflow left learned can be read again
        learner = plan.learner
        # a learner that cannot forget columns is copied, to learn the rows kept again if an overflow stops it
        # after the batch's names widened it (only rows of names do; the rows of an array span its columns)
        before = None
        if not learner._cuts_columns and isinstance(X, (list, tuple)) and X and isinstance(X[0], dict):
            before = {**learner.__dict__, **learner._batch_copies(True)}
        width = learner.__dict__.get("n_features_in_", 0)
        try:
            batch, values, learned = self._batch(X, plan, fm, True)
            rows = sp.csr_matrix((values, batch.indices, batch.indptr),
                                 shape=(batch.n_rows, max(batch.n_features, self.n_features_in_)))
            result = learn(rows, y, params)
        except PartialUpdateError as err:
            if err.rows_kept:
                self._keep_rows(X, y, params, plan, learn, (fm, size), (before, width), err.rows_kept)
            else:
                self._forget_chunk(plan, started, size)
            raise
        except BaseException:
            self._forget_chunk(plan, started, size)
            raise
        self._adopt(batch, learned)
        return result

    def _adopt(self, batch, learned):
        for step, state in learned:
            step._adopt(state, batch.n_features)
        self.n_features_in_ = max(self.n_features_in_, batch.n_features)

    def _keep_rows(self, X, y, params, plan, learn, names, learner_before, n_rows):
        """After the learner kept only the first ``n_rows`` rows of X: the pipeline keeps exactly those rows too.

        The names and statistics of those rows are learned again from a
        vocabulary without the batch's names, through the same code; the
        learner (which kept their updates, and only their classes) forgets the
        columns that only the later rows brought, or, if it cannot
        (``_cuts_columns``), is put back (``learner_before``: its attributes
        and width before the call) and learns those rows again. So the
        pipeline is what learning ``X[:n_rows]`` alone makes it.
        """
        fm, size = names
        before, width = learner_before
        fm.truncate(size)
        batch, values, learned = self._batch(_first_rows(X, n_rows), plan, fm, True)
        columns = max(batch.n_features, self.n_features_in_)
        learner = plan.learner
        if before is not None and columns < learner.n_features_in_:
            learner._restore(before, None, 0)
            weights = params.get("sample_weight")
            kept = {**params, "sample_weight": _first_rows(weights, n_rows)} if np.ndim(weights) else params
            learn(sp.csr_matrix((values, batch.indices, batch.indptr), shape=(n_rows, columns)),
                  _first_rows(y, n_rows), kept)
        elif getattr(learner, "n_features", None) is None and max(columns, width) < learner.n_features_in_:
            learner._narrow(max(columns, width))
        self._adopt(batch, learned)

    def partial_fit(self, X, y=None, **params):
        """Learn the rows of X (array, sparse matrix, dicts, DataFrame) in order, as ``learn_one`` would; returns self.

        ``params`` (``classes``, ``sample_weight``) go to the learner's
        ``partial_fit``. A pipeline of transformers only learns X.
        """
        if self._plan().learner is None:
            self._learn_transformers_batch(X)
            return self
        self._learned_batch(X, y, params, lambda rows, y, params: self._plan().learner.partial_fit(rows, y, **params))
        return self

    def learn_many(self, X, y=None, **params):
        """River's name for :meth:`partial_fit`; returns self."""
        return self.partial_fit(X, y, **params)

    def _row_weights(self, X, y, sample_weight):
        learner = self._plan().learner
        if learner is None:
            raise TypeError("olearn.run takes a pipeline that ends with a learner; this one ends with a transformer")
        return learner._row_weights(X, y, sample_weight)

    def _progressive(self, X, y, record, **params):
        """:func:`olearn.run`'s pass: the transformers' progressive transform of X, then the learner's own pass."""
        return self._learned_batch(
            X, y, params, lambda rows, y, params: self._plan().learner._progressive(rows, y, record=record, **params))

    def _held_out_pass(self, X, y, held, sample_weight=None, **params):
        """A chunk of ``olearn run --passes N --scale ...`` with held-out rows in one pass (:mod:`olearn._held_out`).

        The transformers scale each row by the statistics of the rows learned
        before it and learn only the rows not ``held``; the learner's own
        ``_held_out_pass`` then learns those rows and scores the held-out ones.
        Each held-out row is so predicted as :meth:`predict` would predict it
        at its moment; ``params`` go to the learner's pass (``log_odds``).
        Returns the learner's outputs, or None, the pipeline as it was, where
        the learner has no such pass or the chunk is refused (the caller then
        learns it by the general path, which says why).
        """
        plan = self._plan()
        masked = getattr(plan.learner, "_held_out_pass", None)
        if masked is None:
            return None
        try:
            started = self._started(plan)
        except CHUNK_REFUSALS:
            return None
        fm = self.feature_map_
        size = fm.size
        try:
            try:
                batch, values, learned = self._batch(X, plan, fm, True, held)
            except CHUNK_REFUSALS:
                outputs = None
            else:
                rows = sp.csr_matrix((values, batch.indices, batch.indptr),
                                     shape=(batch.n_rows, max(batch.n_features, self.n_features_in_)))
                outputs = masked(rows, y, held, sample_weight, **params)
        except BaseException:
            self._forget_chunk(plan, started, size)
            raise
        if outputs is None:
            self._forget_chunk(plan, started, size)
            return None
        self._adopt(batch, learned)
        return outputs

    def _forget_chunk(self, plan, started, size):
        """Back to before a chunk that was not learned: unstarted if it was, else the vocabulary's first ``size``
        names (the transformers' statistics are learned into copies, adopted only with the chunk)."""
        if not started:
            self._unstart(plan)
        else:
            self.feature_map_.truncate(size)

    def _transformed(self, X):
        plan, fm = self._predicting()
        size = fm.size
        try:
            batch, values, _ = self._batch(X, plan, fm, False)
        finally:
            fm.truncate(size)
        rows = sp.csr_matrix((values, batch.indices, batch.indptr), shape=(batch.n_rows, max(batch.n_features, 1)))
        return plan.learner, rows

    @only_when(lambda self: None if self.steps and hasattr(self.steps[-1][1], "decision_function")
               else "its last step has no decision_function")
    def decision_function(self, X):
        """The learner's ``decision_function`` of the rows of X transformed by the current statistics."""
        learner, rows = self._transformed(X)
        return learner.decision_function(rows)

    def predict(self, X):
        """The learner's predictions for the rows of X transformed by the current statistics."""
        learner, rows = self._transformed(X)
        return learner.predict(rows)

    @only_when(lambda self: None if self.steps and hasattr(self.steps[-1][1], "predict_proba")
               else "its last step has no predict_proba")
    def predict_proba(self, X):
        """The learner's ``predict_proba`` of the rows of X transformed (where the learner has one)."""
        learner, rows = self._transformed(X)
        return learner.predict_proba(rows)

    def _why_no_fit(self):
        learner = self.steps[-1][1] if self.steps else None
        if isinstance(learner, OnlineLearner) and hasattr(learner, "_learn_row") and hasattr(learner, "max_iter"):
            return None
        return "its last step is not a learner that fit makes passes for (max_iter, tol, shuffle)"

    @only_when(_why_no_fit)
    def fit(self, X, y=None, sample_weight=None):
        """Forget what every step learned, then learn X in passes as the learner's ``fit`` does; returns self.

        The passes are the learner's (:meth:`olearn._learner.OnlineLearner.fit`):
        up to its ``max_iter``, each in a new order drawn from its
        ``random_state`` when its ``shuffle`` (else in X's order), stopped by
        its ``tol`` and ``n_iter_no_change`` on the mean loss of a pass
        (scikit-learn's ``SGDClassifier`` rule), with its
        :class:`~olearn.exceptions.ConvergenceWarning` when they run out. Each
        pass is one :meth:`partial_fit` of the rows in that order: every row
        is transformed with the statistics of the rows before it, learned,
        then counted in the statistics, which thus keep learning over the
        passes (for a mean, variance or largest absolute value the rows seen
        again change nothing but the count). So ``shuffle=False, max_iter=1``
        is one ``partial_fit`` of a fresh pipeline.

        X is what :meth:`partial_fit` takes: an array, a sparse matrix, a list
        of dicts or a DataFrame (its text columns one-hot as ``name=value``).
        Input refused before anything is learned leaves the pipeline as it was;
        a pass stopped midway keeps the rows learned before it, as the
        learner's ``fit`` does.
        """
        from .._epochs import make_passes, warn_unconverged
        from .._validation import check_fit_size

        check_fit_size(X)
        plan = self._plan()
        learner = plan.learner
        learner._check_hyperparameters()
        frame = _is_frame(X)
        if not (frame or sp.issparse(X) or isinstance(X, np.ndarray)):
            X = list(X)
        n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
        labels = None if y is None else np.asarray(y)
        weights = learner._row_weights(X, labels, sample_weight, fitting=True)  # as the learner's fit: "balanced" too
        saved = [(part, dict(part.__dict__)) for part in (self, *(step for _, step in self.steps))]
        for step in plan.scalers:
            step._reset()
        learner._reset()
        for name in ("feature_map_", "n_features_in_", "_last_one"):
            self.__dict__.pop(name, None)

        def learn_pass(order):
            rows = X if order is None else X.iloc[order] if frame else X[order] if not isinstance(X, list) \
                else [X[i] for i in order]
            extra = {} if weights is None else {"sample_weight": weights if order is None else weights[order]}
            return self._progressive(rows, labels if order is None else labels[order], record=False, **extra)[5]

        try:
            learner.n_iter_, ran_out = make_passes(learner, n_rows, learn_pass)
        except BaseException:
            if not self._is_started():
                for part, state in saved:  # nothing learned: the pipeline as it was
                    part.__dict__.clear()
                    part.__dict__.update(state)
            raise
        if ran_out:
            warn_unconverged(learner, "Pipeline", f" of {type(learner).__name__}")
        return self

    @only_when(lambda self: None if self.steps and getattr(self.steps[-1][1], "_estimator_type", None)
               in ("classifier", "regressor") else "its last step is neither a classifier nor a regressor")
    def score(self, X, y, sample_weight=None):
        """The learner's ``score`` of the pipeline's predictions: the accuracy of a classifier, R^2 of a regressor."""
        from .._estimator import ClassifierEstimator, RegressorEstimator

        kind = ClassifierEstimator if self._estimator_type == "classifier" else RegressorEstimator
        return kind.score(self, X, y, sample_weight)

    def predict_many(self, X):
        """River's ``predict_many``: the predictions, as a pandas Series on X's index when X is a DataFrame."""
        predicted = self.predict(X)
        if _is_frame(X):
            import pandas as pd

            return pd.Series(predicted, index=X.index)
        return predicted

    def transform(self, X):
        """The rows of X through the transformers (not the learner), as a CSR matrix over the pipeline's columns."""
        plan = self._plan()
        fm = self.feature_map_ if self._is_started() else FeatureMap(n_bits=plan.n_bits)
        size = fm.size
        try:
            batch, values, _ = self._batch(X, plan, fm, False)
        finally:
            fm.truncate(size)
        return sp.csr_matrix((values, batch.indices, batch.indptr), shape=(batch.n_rows, batch.n_features))

    def _learn_transformers_batch(self, X):
        plan = self._plan()
        started = self._started(plan)
        fm = self.feature_map_
        size = fm.size
        try:
            batch, _, learned = self._batch(X, plan, fm, True)
        except BaseException:
            self._forget_chunk(plan, started, size)
            raise
        self._adopt(batch, learned)
