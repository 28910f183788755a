"""What the online transformers share: checked settings, the dict and batch forms, and ``|``.

A transformer learns from a stream without labels. Its numeric core (the
statistics of a column and the scaling of a row) is compiled and works on
the ``(indices, data)`` of a row, so that a :class:`~olearn.compose.Pipeline`
runs it on the row it converted once; the dict and batch forms here convert
their input through a :class:`~olearn._features.FeatureMap` of their own.
"""

import numpy as np
import scipy.sparse as sp

from .._batch_rows import batch_rows, column_key, rows_of
from .._features import FeatureMap
from .._params import check_params
from .._settings import SettingsCache, changes_in_place, freeze
from .._state_schema import COUNT, Array, Count, StateSchema
from ..compose import Pipeline
from ..compose._step import Step
from ..exceptions import NotFittedError


class Transformer(SettingsCache, Step):
    """Base class of olearn's online transformers."""

    _constraints = {}

    def _config(self):
        """The settings of the hyperparameters, checked and built again only after a change.

        Called on every example a pipeline converts, so it costs O(1), as a
        learner's settings check: an assignment drops them
        (:meth:`__setattr__`), and only the values that can change in place (a
        list of ``features``) are compared with their values when built.
        """
        cache = self._config_cache
        if cache is not None:
            settings, watched = cache
            if not watched or all(freeze(getattr(self, name)) == before for name, before in watched):
                return settings
        names = self._get_param_names()
        values = tuple(getattr(self, name) for name in names)
        check_params(self, self._constraints)
        watched = tuple((name, freeze(value)) for name, value in zip(names, values) if changes_in_place(value))
        settings = self._settings(values)
        self._config_cache = (settings, watched)
        return settings

    @staticmethod
    def _settings(values):
        """What the transformer's code takes of its hyperparameters ``values`` (a tuple, in name order)."""
        return values

    # -- saved with a pipeline (olearn.compose.Pipeline.save) -------------------------

    def _all_constraints(self):
        return self._constraints

    @classmethod
    def _saved_params(cls, params):
        return params

    def _state_schema(self):
        """The saved state of a transformer that learns nothing: none."""
        return StateSchema()

    def _get_state(self):
        return {}, {}

    def _set_state(self, arrays, state):
        pass

    def __or__(self, other):
        """``self | other``: the pipeline of ``self`` followed by ``other`` (a transformer, a learner or a pipeline)."""
        return Pipeline(self) | other

    def learn_many(self, X):
        """Learn from the rows of a batch (River's name for :meth:`partial_fit`); returns self."""
        return self.partial_fit(X)

    def transform_many(self, X):
        """Transform the rows of a batch (River's name for :meth:`transform`)."""
        return self.transform(X)


class NameTransformer(Transformer):
    """Base class of the stateless transformers that act on the names of a dict's features (one-hot, hashing,
    crossing): nothing to learn, and their examples must be dicts."""

    _acts_on_names = True

    def learn_one(self, x):
        """Nothing to learn (the transformer is stateless); checks that ``x`` is a dict, returns self."""
        self._config()
        _check_dict(x, type(self).__name__)
        return self

    def partial_fit(self, X, y=None):
        """Nothing to learn; returns self."""
        self._config()
        return self


def _check_dict(x, owner):
    if not isinstance(x, dict):
        raise TypeError(f"{owner}: an example must be a dict {{feature: value}}; got {type(x).__name__}")


class ColumnTransformer(Transformer):
    """A transformer of the values of columns, with statistics learned per column.

    Subclasses set ``_n_stats`` (the rows of their statistics) and the four
    compiled kernels of :mod:`olearn._kernels._preprocessing`
    (``_transform_kernel``, ``_learn_kernel``, ``_progressive_kernel``,
    ``_learn_rows_kernel``); this class holds the state, ``_arrays`` =
    (``seen``, the count of examples as a 1-array; ``stats``, one row per
    statistic and one column per feature column, grown by doubling), and the
    FeatureMap of the dict form. The settings are a float64 array of flags.
    """

    _n_stats = 1

    @staticmethod
    def _settings(values):
        return np.array(values, dtype=np.float64)

    # -- learned state -----------------------------------------------------------

    def _is_started(self):
        return "n_features_in_" in self.__dict__

    def _start(self):
        self.feature_map_ = FeatureMap()
        self.n_features_in_ = 0
        self._arrays = (np.zeros(1), np.zeros((self._n_stats, 0)))

    def _reset(self):
        for name in ("feature_map_", "n_features_in_", "_arrays"):
            self.__dict__.pop(name, None)

    def _stat(self, row):
        """The statistic ``row`` of the first ``n_features_in_`` columns."""
        return self._arrays[1][row, : self.n_features_in_]

    @property
    def n_seen_(self):
        """The number of examples learned."""
        return int(self._arrays[0][0])

    def _grow(self, n_features):
        """Room in the statistics for columns below ``n_features`` (new arrays: the old ones stay intact)."""
        if n_features > self._arrays[1].shape[1]:
            self._arrays = self._stats_copy(n_features, copy=False)
        if n_features > self.n_features_in_:
            self.n_features_in_ = n_features

    def _snapshot(self):
        return self.n_features_in_, tuple(array.copy() for array in self._arrays)

    def _restore(self, saved):
        self.n_features_in_, self._arrays = saved

    def _stats_copy(self, n_features, copy=True):
        """The state with room for ``n_features`` columns (grown by doubling), copied unless ``copy`` is False."""
        seen, stats = self._arrays
        capacity = stats.shape[1]
        if n_features <= capacity:
            return (seen.copy(), stats.copy()) if copy else self._arrays
        grown = np.zeros((stats.shape[0], max(n_features, 2 * capacity)))
        grown[:, :capacity] = stats
        return (seen.copy() if copy else seen, grown)

    def _adopt(self, state, n_features):
        """Take ``state`` (from :meth:`_stats_copy`, then learned into) as the state."""
        self._arrays = state
        self.n_features_in_ = max(self.n_features_in_, n_features)

    # -- saved with a pipeline -------------------------------------------------------

    # {name of a saved array: (row of the statistics, what its entries may hold)}
    _saved_stats = {}

    def _state_schema(self):
        """The saved state: ``seen`` (the count of examples, one entry) and a row of statistics per column.

        Subclasses name their rows in ``_saved_stats`` and add the relations between them
        (``_stats_relations``).
        """
        arrays = {"seen": Array("float64", (1,), values=COUNT)}
        arrays.update((name, Array("float64", ("n_features_in",), values=values))
                      for name, (_, values) in self._saved_stats.items())
        return StateSchema(scalars={"n_features_in": Count("n_features_in")}, arrays=arrays,
                           relations=self._stats_relations())

    def _stats_relations(self):
        return []

    def _get_state(self):
        if not self._is_started():
            raise NotFittedError(f"this {type(self).__name__} has learned nothing yet; nothing to save")
        seen, stats = self._arrays
        arrays = {"seen": seen.copy()}
        arrays.update((name, stats[row, : self.n_features_in_].copy()) for name, (row, _) in self._saved_stats.items())
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        n_features = state["n_features_in"]
        stats = np.zeros((self._n_stats, n_features))
        for name, (row, _) in self._saved_stats.items():
            stats[row] = arrays[name]
        self.feature_map_ = FeatureMap()
        self.n_features_in_ = n_features
        self._arrays = (np.array(arrays["seen"], dtype=np.float64), stats)

    def _state(self):
        """``(seen, stats)`` for transforming: empty before anything was learned."""
        arrays = self.__dict__.get("_arrays")
        if arrays is None:
            return np.zeros(1), np.zeros((self._n_stats, 0))
        return arrays

    # -- one example ---------------------------------------------------------------

    def learn_one(self, x):
        """Update the statistics with the dict ``x``; returns self.

        An absent feature counts as 0 in the statistics of its column. A
        refused example (a value that is not a finite number, a key of a wrong
        type, statistics that would overflow) leaves the transformer as it was.
        """
        self._config()
        _check_dict(x, type(self).__name__)
        started = self._is_started()
        if not started:
            self._start()
        saved = self._snapshot()
        fm = self.feature_map_
        try:
            indices, data, n_features, new = fm.row(x, base=self.n_features_in_, learning=True)
            self._learn_checked(indices, data, n_features, lambda j: column_key(fm, new, j))
        except BaseException:
            if started:
                self._restore(saved)
            else:
                self._reset()
            raise
        if new:
            fm.add(new)
        return self

    def transform_one(self, x):
        """The dict ``x`` transformed by the statistics learned so far: a dict with the same keys.

        A categorical value (``{"city": "Paris"}``) is the one-hot feature
        ``"city=Paris"`` of value 1, and is keyed so; a None value is absent
        and left out. Nothing is learned.
        """
        settings = self._config()
        _check_dict(x, type(self).__name__)
        fm = self.feature_map_ if self._is_started() else FeatureMap()
        indices, data, n_features, new = fm.row(x, base=getattr(self, "n_features_in_", 0), learning=True)
        out = np.empty_like(data)
        seen, stats = self._state()
        bad = self._transform_kernel(indices, data, stats, seen, settings, out)
        if bad >= 0:
            raise self._overflow(column_key(fm, new, indices[bad]), data[bad], "its transform")
        return {column_key(fm, new, j): value for j, value in zip(indices.tolist(), out.tolist())}

    def _learn_checked(self, indices, data, n_features, key_of):
        """Learn one converted row; an overflow is refused (ValueError naming the feature) with nothing changed."""
        self._grow(n_features)
        seen, stats = self._arrays
        bad = self._learn_kernel(indices, data, stats, seen)
        if bad >= 0:
            raise self._overflow(key_of(indices[bad]), data[bad], "its running statistics")

    def _overflow(self, key, value, what):
        return ValueError(
            f"{type(self).__name__}: feature {key!r} has value {float(value)!r}, and {what} would overflow; "
            "expected values whose squares are finite (rescale the feature); the transformer is unchanged"
        )

    # -- batches -------------------------------------------------------------------

    def partial_fit(self, X, y=None):
        """Update the statistics with every row of X, in order; returns self (``y`` is ignored).

        X is a 2-d array (every entry of a row is present, zeros included), a
        sparse matrix (the stored entries), a list of dicts or a DataFrame. A
        refused batch leaves the transformer as it was.
        """
        self._config()
        started = self._is_started()
        if not started:
            self._start()
        saved = self._snapshot()
        fm = self.feature_map_
        size = fm.size
        try:
            batch = batch_rows(fm, X, self.n_features_in_)
            self._grow(batch.n_features)
            seen, stats = self._arrays
            row, bad = self._learn_rows_kernel(batch.indptr, batch.indices, batch.data, stats, seen)
            if row >= 0:
                overflow = self._overflow(column_key(fm, None, batch.indices[bad]), batch.data[bad], "its running statistics")
                raise ValueError(f"row {row}: {overflow}")
        except BaseException:
            if started:
                fm.truncate(size)
                self._restore(saved)
            else:
                self._reset()
            raise
        return self

    def transform(self, X):
        """Every row of X transformed by the statistics learned so far, in the form X came in.

        An array gives an array, a sparse matrix a sparse matrix of the same
        entries, a list of dicts a list of dicts, a DataFrame a DataFrame.
        """
        settings = self._config()
        fm = self.feature_map_ if self._is_started() else FeatureMap()
        size = fm.size
        try:
            batch = batch_rows(fm, X, getattr(self, "n_features_in_", 0))
            out = np.empty_like(batch.data)
            seen, stats = self._state()
            bad = self._transform_kernel(batch.indices, batch.data, stats, seen, settings, out)
            if bad >= 0:
                row = int(np.searchsorted(batch.indptr, bad, side="right") - 1)
                overflow = self._overflow(column_key(fm, None, batch.indices[bad]), batch.data[bad], "its transform")
                raise ValueError(f"row {row}: {overflow}")
            return _shaped(batch, out, fm, X)
        finally:
            fm.truncate(size)


def _shaped(batch, out, fm, X):
    """The transformed values ``out`` of ``batch`` in the form of the batch ``X``."""
    if batch.kind == "dense":
        return out.reshape(batch.n_rows, -1)
    if batch.kind == "sparse":
        return sp.csr_matrix((out, batch.indices, batch.indptr), shape=X.shape)
    if batch.kind == "frame" and batch.columns is not None:
        import pandas as pd

        return pd.DataFrame(out.reshape(batch.n_rows, -1), columns=batch.columns, index=batch.index)
    rows = rows_of(batch, out, fm)
    if batch.kind == "frame":
        import pandas as pd

        return pd.DataFrame(rows, index=batch.index)
    return rows
