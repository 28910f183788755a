"""Tables as shards: the partitions of a Dask DataFrame and Parquet files, read on the workers.

A table's rows are examples, one column (``label_column``, by name, or by
position when no column has that name) their label and the others their features, named as the library names the columns
of a DataFrame (:meth:`olearn.OnlineLearner.learn_many`, :mod:`olearn._features`):
a numeric column is the feature of its name; a value ``v`` of a text,
categorical or object column ``c`` is the feature ``c=v`` of value 1 (one-hot,
a missing value absent).

Every shard must give a name the same column, so the names map to columns
through one :class:`~olearn._features.FeatureMap` fixed before learning
(:func:`with_features`): hashing into ``2**n_bits`` columns when the learner
has ``n_bits``, else a vocabulary gathered by a first pass on the workers,
where each part sends back only the names it holds, in the order it first
shows them; the vocabulary takes them part after part, after the names the
learner knew already, so it is the one a serial pass over the parts in order
would build (:meth:`FeatureMap.rows`). The rows never reach the client.

A Dask DataFrame's partitions are computed on the cluster as the other Dask
collections' (:func:`olearn.distributed._shards.on_cluster`). A Parquet file
is a file part: read on the worker of its shard, record batch by record
batch (``chunk_size`` rows, through pyarrow), so it never needs to fit in a
worker's memory, and checked for changes as every file part is.
"""

import copy
import dataclasses
import os
from dataclasses import dataclass

import numpy as np

from .._features import FeatureMap
from .._learner import frame_rows
from ..exceptions import DataFormatError
from ._parts import FilePart

PARQUET_SUFFIXES = (".parquet", ".pq")
PYARROW_HINT = 'pip install "olearn[distributed]" (Parquet files are read with pyarrow)'


def is_parquet(path, fmt):
    """Whether ``path`` is read as Parquet: ``fmt="parquet"``, or ``fmt="auto"`` and a ``.parquet``/``.pq`` name."""
    return fmt == "parquet" or (fmt == "auto" and os.path.splitext(os.fspath(path))[1].lower() in PARQUET_SUFFIXES)


def table_chunk(frame, label, features, where):
    """``(X, y)`` of a pandas DataFrame's rows: the column ``label`` the labels, the others features by ``features``."""
    import scipy.sparse as sp

    if label not in frame.columns:
        raise ValueError(f"{where}: no column named {label!r} holds the label; the columns are "
                         f"{', '.join(map(str, frame.columns))}")
    y = frame[label].to_numpy()
    missing = np.flatnonzero(np.asarray(frame[label].isna()))
    if missing.size:
        raise ValueError(f"{where}: row {missing[0]} has no label (column {label!r} is missing)")
    rows = frame.drop(columns=[label])
    block = _number_block(rows)
    columns = None if block is None else features.columns_of(block[0])
    if columns is not None:  # the rows frame_rows would make, every column of each, in order: made at once
        values = block[1]
        indptr = np.arange(0, values.size + 1, values.shape[1], dtype=np.int64)
        indices, data, width = np.tile(columns, values.shape[0]), values.ravel(), int(columns.max()) + 1
    else:
        indptr, indices, data, width, _ = features.rows(frame_rows(rows), 0, False, False, where)
    n_columns = (1 << features.n_bits) if features.hashing else features.size
    return sp.csr_matrix((data, indices, indptr), shape=(len(frame), max(width, n_columns))), np.asarray(y)


def names_in(frames, label, where):
    """The feature names of ``frames`` (pandas DataFrames), in the order they first appear."""
    found = FeatureMap()
    for frame in frames:
        if label not in frame.columns:
            raise ValueError(f"{where}: no column named {label!r} holds the label; the columns are "
                             f"{', '.join(map(str, frame.columns))}")
        rows = frame.drop(columns=[label])
        block = _number_block(rows)
        # a frame of numbers: every row holds every column, in order, so the first row places all the names
        found.rows([dict.fromkeys(block[0], 1.0)] if block else frame_rows(rows), 0, True, True, where)
    return list(found.vocabulary())


def _number_block(frame):
    """``(names, values)`` of a pandas DataFrame of features whose columns are all NumPy number columns (not
    booleans) named by distinct ``str`` and whose values are all finite, as one float64 array of its rows:
    every row :func:`~olearn._learner.frame_rows` reads from it is then each column's name and plain number, in
    the order of the columns; None for any other frame (or one of no rows), which is read row by row."""
    names = list(frame.columns)
    if (not len(frame) or not names or len(set(names)) < len(names) or any(type(name) is not str for name in names)
            or any(not isinstance(dtype, np.dtype) or dtype.kind not in "iuf" for dtype in frame.dtypes)):
        return None
    values = frame.to_numpy(dtype=np.float64)
    return (names, values) if np.isfinite(values).all() else None


@dataclass(frozen=True)
class TablePart:
    """A pandas DataFrame (a computed partition of a Dask DataFrame), read ``chunk_size`` rows at a time."""

    frame: object
    label: object
    features: object

    def chunks(self, chunk_size):
        for lo in range(0, len(self.frame), chunk_size):
            yield table_chunk(self.frame.iloc[lo : lo + chunk_size], self.label, self.features, "a partition")


@dataclass(frozen=True)
class FramePart:
    """One partition of a Dask DataFrame, as a ``dask.delayed`` object (computed on the cluster, as
    :class:`~olearn.distributed._parts.DaskArrayPart`); ``features`` is set by :func:`with_features`."""

    partition: object
    label: object
    features: object = None

    def graphs(self):
        return [self.partition]

    @property
    def settings(self):
        return (self.label, self.features)

    @staticmethod
    def computed(values, label, features):
        return TablePart(values[0], label, features)

    def chunks(self, chunk_size):
        import dask

        yield from self.computed(dask.compute(*self.graphs()), *self.settings).chunks(chunk_size)

    def names(self):
        import dask

        return dask.delayed(names_in)([self.partition], self.label, "a partition")

    def bound(self, features):
        return FramePart(self.partition, self.label, features)


@dataclass(frozen=True)
class ParquetPart(FilePart):
    """A Parquet file, read record batch by record batch; ``label`` names its label column."""

    label: object = None
    features: object = None

    def resolved_format(self):
        return "parquet"

    def _batches(self, chunk_size):
        pq = _pyarrow_parquet()
        try:
            reader = pq.ParquetFile(self.path)
        except Exception as err:  # pyarrow's ArrowInvalid (not Parquet) or OSError
            raise DataFormatError(f"not a readable Parquet file ({err})", self.path) from None
        for batch in reader.iter_batches(batch_size=chunk_size):
            yield batch.to_pandas()

    def _read(self, chunk_size):
        where = self.path
        for frame in self._batches(chunk_size):
            yield table_chunk(frame, self.label, self.features, where)

    def names(self):
        import dask

        return dask.delayed(_file_names, pure=False)(self)

    def bound(self, features):
        return dataclasses.replace(self, features=features)


def _file_names(part):
    part._check_unchanged()
    return names_in(part._batches(1 << 16), part.label, part.path)


def _pyarrow_parquet():
    try:
        import pyarrow.parquet as pq
    except ImportError as err:
        raise ImportError(f"reading Parquet files needs pyarrow: {PYARROW_HINT}") from err
    return pq


def with_features(est, shards, client):
    """``(shards, feature map)``: the table parts of ``shards`` bound to the feature map every shard reads names by.

    ``(shards, None)`` when no part is a table. Hashing when ``est`` has
    ``n_bits``; else the learner's vocabulary (empty for a fresh one) grown by
    the names of the parts, gathered on the workers, part after part.
    """
    tables = [part for shard in shards for part in shard.parts if isinstance(part, (FramePart, ParquetPart))]
    if not tables:
        return shards, None
    if not getattr(est, "_named_features", False):
        raise ValueError(f"{type(est).__name__} learns no named features, and a table's columns are named")
    features = copy.deepcopy(est._feature_map())
    if not features.hashing:
        found = client.gather(client.compute([part.names() for part in tables]))
        known = set(features.vocabulary())
        new = list(dict.fromkeys(name for names in found for name in names if name not in known))
        if new:
            features.rows([dict.fromkeys(new, 1.0)], est._first_free_column(), True, True, "the tables")
    bound = [type(shard)(shard.number, tuple(part.bound(features) if isinstance(part, (FramePart, ParquetPart))
                                             else part for part in shard.parts), shard.chunk_size)
             for shard in shards]
    return bound, features


def label_name(label_column, names, where):
    """The name of the label's column among ``names``: ``label_column`` itself if a column has that name (or
    its text: Parquet names are text, and ``--label-column 3`` arrives as the number 3), else the column at that
    position (an integer, negative from the end)."""
    if label_column is None:
        raise ValueError(f"{where} needs label_column=, the name (or position) of the column holding the labels")
    names = list(names)
    for name in (label_column, str(label_column)):
        if name in names:
            return name
    if isinstance(label_column, (int, np.integer)) and not isinstance(label_column, bool):
        if -len(names) <= label_column < len(names):
            return names[label_column]
        raise ValueError(f"{where}: label_column={label_column!r} is no column position; it has {len(names)} "
                         "columns")
    raise ValueError(f"{where}: no column named {label_column!r} holds the label; the columns are "
                     f"{', '.join(map(str, names))}")


def frame_parts(data, label_column):
    """The parts of a Dask DataFrame whose column ``label_column`` (name or position) holds the labels."""
    label = label_name(label_column, data.columns, "a Dask DataFrame")
    return [FramePart(partition, label) for partition in data.to_delayed()]


def parquet_part(path, label_column, stamp):
    """The part of the Parquet file at ``path``; its columns (read from its footer here) must hold the label."""
    pq = _pyarrow_parquet()
    try:
        names = pq.read_schema(path).names
    except Exception as err:
        raise DataFormatError(f"not a readable Parquet file ({err})", path) from None
    return ParquetPart(path, "parquet", stamp=stamp, label=label_name(label_column, names, path))


def keep_features(est, features):
    """Give the learned ``est`` the feature map its tables were read by (None: no table), so that it names
    its columns (``vocabulary_``) and reads a DataFrame's rows or dicts as the shards were read."""
    if features is not None:
        est._features = features
