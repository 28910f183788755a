"""Shards: the parts of a data set that the workers read, in chunks, on their own.

Data come as *parts* in a fixed order: files (one path, several, or a glob),
``(X, y)`` pairs in memory, the row blocks of a Dask array pair ``(X, y)``,
or the partitions of a Dask bag of ``(x, y)`` examples. A shard is a run of
consecutive parts (``n_shards`` groups them; by default each part is a shard),
and it is read on a worker chunk by chunk: LIBSVM and VW files through
:func:`olearn.data.iter_libsvm` / :func:`olearn.data.iter_vw`, so a shard
never needs to fit in a worker's memory; a Dask partition is computed on the
worker when its turn comes. Results depend on the shards, never on which
worker reads which shard.

A file must stay as it was while it is learned from: each epoch reads it
again, and a file rewritten between two epochs would make a model of neither
data set. So a file part keeps the size and modification time (in ns) its
file had when the shards were made, and every reading checks them before and
after it reads the file, refusing a changed file with a DistributedError that
names it.
"""

import glob
import itertools
import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._validation import check_row
from ..exceptions import DataFormatError
from ._cluster import DistributedError

DEFAULT_CHUNK_SIZE = 10_000
PARQUET_SUFFIX = ".parquet"


@dataclass(frozen=True)
class FilePart:
    """A data file, read in chunks (LIBSVM, VW, Parquet row batches) or whole (CSV, olearn cache)."""

    path: str
    format: str = "auto"
    n_features: object = None
    bits: int = 18
    zero_based: object = "auto"
    stamp: tuple = None  # (size, modification time in ns) of the file when the shards were made
    label_column: object = None  # Parquet: the label's column, by name or position (default: the last)

    def resolved_format(self):
        from .. import data

        if self.format == "auto" and self.path.lower().endswith(PARQUET_SUFFIX):
            return "parquet"  # a binary file: never sniffed as text
        return data.detect_format(self.path) if self.format == "auto" else self.format

    def chunks(self, chunk_size):
        self._check_unchanged()
        yield from self._read(chunk_size)
        self._check_unchanged()

    def _check_unchanged(self):
        """Raise DistributedError if the file's size or modification time are no longer its ``stamp``."""
        if self.stamp is None:
            return
        now = file_stamp(self.path)
        if now != self.stamp:
            raise DistributedError(
                f"{self.path}: the file changed while it was learned from (size {self.stamp[0]:,} -> {now[0]:,} "
                f"bytes, modification time {self.stamp[1]} -> {now[1]} ns); every epoch must read the same data: "
                "learn again once the file is no longer written")

    def _read(self, chunk_size):
        from .. import data

        fmt = self.resolved_format()
        if fmt == "libsvm":
            yield from data.iter_libsvm(self.path, chunk_size=chunk_size, n_features=self.n_features,
                                        zero_based=self.zero_based)
        elif fmt == "vw":
            for X, y, weight in data.iter_vw(self.path, chunk_size=chunk_size, n_bits=self.bits, require_labels=True):
                _refuse_weights(self.path, weight)
                yield X, y
        elif fmt == "parquet":
            yield from _parquet_chunks(self.path, self.label_column, chunk_size)
        else:
            X, y, *weight = (data.load_csv if fmt == "csv" else data.load_cache)(self.path)
            _refuse_weights(self.path, weight[0] if weight else None)
            yield from _sliced(X, y, chunk_size)


def _parquet_columns(path, label_column):
    """``(feature columns, label column)`` of a Parquet file: the label by name or position (default: the last
    column), the features every other column, in the file's order; a column that is not numeric is refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    names = schema.names
    if label_column is None:
        label = names[-1]
    elif isinstance(label_column, (int, np.integer)) and not isinstance(label_column, bool):
        if not -len(names) <= label_column < len(names):
            raise DataFormatError(f"{path}: has {len(names)} columns; no column {label_column}")
        label = names[label_column]
    elif label_column in names:
        label = label_column
    else:
        raise DataFormatError(f"{path}: no column named {label_column!r} (columns: {', '.join(names)})")
    features = [name for name in names if name != label]
    for name in features:
        kind = schema.field(name).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)):
            raise DataFormatError(
                f"{path}: column {name!r} holds {kind}, not numbers; learning Parquet shards takes numeric "
                "feature columns (encode the column as numbers, e.g. one 0/1 column per category)")
    return features, label


def _parquet_chunks(path, label_column, chunk_size):
    """A Parquet file's row batches of at most ``chunk_size`` rows as ``(X, y)``, X dense, its columns the
    feature columns of :func:`_parquet_columns` in order."""
    import pyarrow.parquet as pq

    features, label = _parquet_columns(path, label_column)
    for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_size, columns=[*features, label]):
        columns = [batch.column(name).to_numpy(zero_copy_only=False).astype(np.float64) for name in features]
        X = np.column_stack(columns) if columns else np.empty((batch.num_rows, 0))
        yield X, batch.column(label).to_numpy(zero_copy_only=False)


def file_stamp(path):
    """``(size, modification time in ns)`` of the file at ``path``."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _refuse_weights(path, weight):
    """Learning on shards is unweighted: importance weights other than 1 are an error, never dropped."""
    if weight is not None and np.any(np.asarray(weight) != 1.0):
        raise ValueError(f"{path}: gives importance weights other than 1, and learning on shards does not "
                         "honour them: learn the file without --workers/--scheduler, where they are honoured")


@dataclass(frozen=True)
class MemoryPart:
    """An ``(X, y)`` pair held in memory."""

    X: object
    y: object

    def chunks(self, chunk_size):
        yield from _sliced(self.X, self.y, chunk_size)


@dataclass(frozen=True)
class DaskArrayPart:
    """One row block of a Dask array pair, as two ``dask.delayed`` objects.

    Its values are computed on the cluster (:func:`on_cluster`) and reach the
    worker as the arguments of its task: the delayed objects never travel
    themselves, since their graph may hold a whole array (``da.from_array``)
    or data only the client can reach (a persisted array).
    """

    X: object
    y: object

    def graphs(self):
        return [self.X, self.y]

    @staticmethod
    def computed(values):
        return MemoryPart(*values)

    def chunks(self, chunk_size):
        import dask

        yield from self.computed(dask.compute(*self.graphs())).chunks(chunk_size)


@dataclass(frozen=True)
class DaskBagPart:
    """One partition of a Dask bag of ``(x, y)`` examples (x a dict, a 1-d array or a sparse row).

    Computed on the cluster, as :class:`DaskArrayPart`.
    """

    partition: object

    def graphs(self):
        return [self.partition]

    @staticmethod
    def computed(values):
        return ExamplesPart(list(values[0]))

    def chunks(self, chunk_size):
        import dask

        yield from self.computed(dask.compute(*self.graphs())).chunks(chunk_size)


@dataclass(frozen=True)
class DaskFramePart:
    """One partition of a Dask DataFrame: its feature columns (numeric, in order) and its label column.

    Computed on the cluster, as :class:`DaskArrayPart`.
    """

    partition: object
    features: tuple
    label: object

    def graphs(self):
        return [self.partition]

    def computed(self, values):
        (frame,) = values
        return MemoryPart(frame[list(self.features)].to_numpy(dtype=np.float64), frame[self.label].to_numpy())

    def chunks(self, chunk_size):
        import dask

        yield from self.computed(dask.compute(*self.graphs())).chunks(chunk_size)


@dataclass(frozen=True)
class ExamplesPart:
    """A list of ``(x, y)`` examples (a computed partition of a Dask bag)."""

    examples: list

    def chunks(self, chunk_size):
        for lo in range(0, len(self.examples), chunk_size):
            yield _examples_to_csr(self.examples[lo : lo + chunk_size])


@dataclass(frozen=True)
class ComputedPart:
    """Stands for a Dask part in a shard sent to a worker; its ``n_values`` values come with the task."""

    source: object  # the Dask part's class, or the part itself when its reading needs its fields (a DataFrame's)
    n_values: int


@dataclass(frozen=True)
class Shard:
    """Consecutive parts read one after the other; ``number`` is the shard's place in the data."""

    number: int
    parts: tuple
    chunk_size: int = DEFAULT_CHUNK_SIZE

    def chunks(self):
        """Yield the shard's ``(X, y)`` chunks in order, at most ``chunk_size`` rows each."""
        for X, y, _, _ in self.located_chunks():
            yield X, y

    def located_chunks(self):
        """Yield ``(X, y, part, first)``: each chunk with its part and the 0-based row of its part it starts at."""
        for part in self.parts:
            first = 0
            for X, y in part.chunks(self.chunk_size):
                yield X, y, part, first
                first += X.shape[0]

    @staticmethod
    def where(part, row_in_part, shard_row):
        """A row as its source numbers it: ``example 13 of a.svm`` (1-based) in a file, else ``row 12`` of the shard."""
        if isinstance(part, FilePart):
            return f"example {row_in_part + 1} of {os.path.basename(part.path)}"
        return f"row {shard_row}"

    def graphs(self):
        """The delayed objects of the shard's Dask parts, in order."""
        return [graph for part in self.parts if hasattr(part, "graphs") for graph in part.graphs()]

    def without_graphs(self):
        """The shard as a worker receives it: each Dask part a :class:`ComputedPart`."""
        parts = tuple(ComputedPart(_bare(part), len(part.graphs())) if hasattr(part, "graphs") else part
                      for part in self.parts)
        return Shard(self.number, parts, self.chunk_size)

    def with_values(self, values):
        """The shard read on a worker: each :class:`ComputedPart` replaced by its part made of ``values`` (in order)."""
        parts, at = [], 0
        for part in self.parts:
            if isinstance(part, ComputedPart):
                parts.append(part.source.computed(values[at : at + part.n_values]))
                at += part.n_values
            else:
                parts.append(part)
        return Shard(self.number, tuple(parts), self.chunk_size)

    def describe(self):
        names = [os.path.basename(p.path) if isinstance(p, FilePart)
                 else _class_name(p.source if isinstance(p, ComputedPart) else p) for p in self.parts]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"shard {self.number} ({shown})"


def _bare(part):
    """What a worker needs of a Dask part to read its values: its class, or, for a DataFrame's partition, the
    part with its columns but without its graph."""
    if isinstance(part, DaskFramePart):
        return DaskFramePart(None, part.features, part.label)
    return type(part)


def _class_name(part):
    return part.__name__ if isinstance(part, type) else type(part).__name__


def on_cluster(client, shards):
    """``(shards as the workers receive them, the futures of each shard's Dask values)``.

    Every Dask partition is computed on the cluster in one submission, so
    that a graph shared by the partitions (the array of ``da.from_array``) is
    sent once, and persisted data are reached where they live. The values
    stay on the cluster while the futures are held (a run holds them to its
    end); a lost one is computed again by Dask from its graph.
    """
    graphs = [shard.graphs() for shard in shards]
    flat = client.compute([graph for shard_graphs in graphs for graph in shard_graphs])
    values, at = [], 0
    for shard_graphs in graphs:
        values.append(flat[at : at + len(shard_graphs)])
        at += len(shard_graphs)
    return [shard.without_graphs() for shard in shards], values


def _sliced(X, y, chunk_size):
    X = X if sp.issparse(X) else np.asarray(X)
    y = np.asarray(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"a part has {X.shape[0]} rows in X and {y.shape[0]} labels in y")
    for lo in range(0, X.shape[0], chunk_size):
        yield X[lo : lo + chunk_size], y[lo : lo + chunk_size]


def _examples_to_csr(examples):
    """``(x, y)`` examples as one CSR chunk and its labels."""
    indptr, indices, data, labels = [0], [], [], []
    width = 0
    for row, example in enumerate(examples):
        try:
            x, label = example
        except (TypeError, ValueError):
            raise ValueError(f"bag element {row} of a partition is not an (x, y) pair") from None
        idx, values, n_features = check_row(x)
        order = np.argsort(idx, kind="stable")
        indices.append(idx[order])
        data.append(values[order])
        indptr.append(indptr[-1] + idx.size)
        labels.append(label)
        width = max(width, n_features)
    X = sp.csr_matrix(
        (np.concatenate(data) if data else np.empty(0), np.concatenate(indices) if indices else np.empty(0, int),
         np.asarray(indptr)),
        shape=(len(examples), width),
    )
    return X, np.asarray(labels)


def _file_parts(paths, fmt, n_features, bits, zero_based, label_column=None):
    found = []
    for path in paths:
        path = os.fspath(path)
        if not os.path.exists(path) and glob.has_magic(path):
            matches = sorted(glob.glob(path))
            if not matches:
                raise FileNotFoundError(f"{path}: no file matches this pattern")
            found.extend(matches)
        elif not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such file")
        else:
            found.append(path)
    parts = [FilePart(path, fmt, n_features, bits) for path in found]
    if zero_based == "auto":
        # decided once for all the files, as one stream, never shard by shard
        from ..data._libsvm import detect_zero_based

        zero_based = bool(detect_zero_based([p.path for p in parts if p.resolved_format() == "libsvm"]))
    elif zero_based not in (True, False):
        raise ValueError(f"zero_based must be 'auto', True or False, got {zero_based!r}")
    parts = [FilePart(path, fmt, n_features, bits, zero_based, file_stamp(path), label_column) for path in found]
    _check_parquet_columns([part for part in parts if part.resolved_format() == "parquet"], label_column)
    return parts


def _check_parquet_columns(parts, label_column):
    """Every Parquet shard must have the first one's feature columns, in its order: a feature is a column's
    place, so another order would mix one column's weight with another's."""
    first = None
    for part in parts:
        columns = _parquet_columns(part.path, label_column)
        if first is None:
            first = (part.path, columns)
        elif columns != first[1]:
            raise DataFormatError(
                f"{part.path}: features {columns[0]} and label {columns[1]!r} differ from those of {first[0]} "
                f"({first[1][0]}, label {first[1][1]!r}); every Parquet shard must have the same columns in the "
                "same order")


def _frame_columns(frame, label_column):
    """``(feature columns, label column)`` of a Dask DataFrame, from its metadata: the label by name or position
    (default: the last column), every other column a numeric feature in order; a text column is refused."""
    import pandas as pd

    names = list(frame.columns)
    if label_column is None:
        label = names[-1]
    elif isinstance(label_column, (int, np.integer)) and not isinstance(label_column, bool):
        if not -len(names) <= label_column < len(names):
            raise DataFormatError(f"the DataFrame has {len(names)} columns; no column {label_column}")
        label = names[label_column]
    elif label_column in names:
        label = label_column
    else:
        raise DataFormatError(f"the DataFrame has no column named {label_column!r} (columns: {names})")
    features = [name for name in names if name != label]
    for name in features:
        if not (pd.api.types.is_numeric_dtype(frame.dtypes[name]) or pd.api.types.is_bool_dtype(frame.dtypes[name])):
            raise DataFormatError(
                f"the DataFrame's column {name!r} holds {frame.dtypes[name]}, not numbers; learning a DataFrame on "
                "shards takes numeric feature columns (encode the column as numbers, e.g. one 0/1 column per "
                "category)")
    return features, label


def _dask_parts(data, label_column=None):
    """Parts of a Dask bag, DataFrame or pair of Dask arrays; None for anything else."""
    try:
        import dask.array as da
        import dask.bag as db
        import dask.dataframe as dd
    except ImportError:
        return None
    if isinstance(data, dd.DataFrame):
        features, label = _frame_columns(data, label_column)
        return [DaskFramePart(partition, tuple(features), label)
                for partition in data[[*features, label]].to_delayed()]
    if isinstance(data, db.Bag):
        return [DaskBagPart(partition) for partition in data.to_delayed()]
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], da.Array):
        X, y = data
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d Dask array; got {X.ndim} dimensions")
        y = y if isinstance(y, da.Array) else da.from_array(np.asarray(y), chunks=(X.chunks[0],))
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows and y {y.shape[0]} labels")
        X = X.rechunk({1: -1})
        y = y.rechunk({0: X.chunks[0]})
        return [DaskArrayPart(xb, yb) for xb, yb in zip(X.to_delayed()[:, 0], y.to_delayed())]
    return None


def make_shards(data, n_shards=None, chunk_size=DEFAULT_CHUNK_SIZE, fmt="auto", n_features=None, bits=18,
                zero_based="auto", label_column=None):
    """Split ``data`` into shards.

    Parameters
    ----------
    data : path, glob, list of paths, list of (X, y), (dask X, dask y), dask bag or dask DataFrame
    n_shards : int, optional
        Group the parts into this many shards of consecutive parts (as equal
        in number of parts as possible); default: one shard per part.
    chunk_size : int
        Rows per chunk read on a worker.
    fmt, n_features, bits
        How to read files (as in :func:`olearn.data.read_any`; ``bits`` for VW).
    zero_based : {"auto", False, True}, default "auto"
        LIBSVM files: whether indices start at 0 (as in
        :func:`olearn.data.load_libsvm`). "auto" decides once for all the
        files, read in order as one stream: 0-based if an index 0 occurs in
        the first 4 MiB holding features; an index 0 in a later file of a
        data set taken as 1-based is then an error, never a shifted shard.
    label_column : str or int, optional
        Parquet files (``*.parquet``, or ``fmt="parquet"``) and Dask
        DataFrames (each partition a part): the label's column, by name or
        position (default: the last). Every other column
        is a numeric feature, in the file's order, and every file must have
        the same columns; a file is read in row batches of ``chunk_size``.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn.distributed import make_shards
    >>> parts = [(np.eye(2), [1, -1]), (np.eye(2), [-1, 1]), (np.eye(2), [1, 1])]
    >>> [len(shard.parts) for shard in make_shards(parts, n_shards=2)]
    [2, 1]
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an integer >= 1; got {chunk_size!r}")
    parts = _dask_parts(data, label_column)
    if parts is None:
        if isinstance(data, (str, os.PathLike)):
            parts = _file_parts([data], fmt, n_features, bits, zero_based, label_column)
        elif isinstance(data, (list, tuple)) and data and all(isinstance(p, (str, os.PathLike)) for p in data):
            parts = _file_parts(data, fmt, n_features, bits, zero_based, label_column)
        elif isinstance(data, (list, tuple)) and data and all(isinstance(p, tuple) and len(p) == 2 for p in data):
            parts = [MemoryPart(X, y) for X, y in data]
        else:
            raise TypeError(
                "data must be a file path, a glob, a list of paths, a list of (X, y) pairs, "
                "a pair of Dask arrays (X, y), a Dask bag of (x, y) examples or a Dask DataFrame"
            )
    if not parts:
        raise ValueError("data has no parts")
    if n_shards is None:
        n_shards = len(parts)
    if isinstance(n_shards, bool) or not isinstance(n_shards, (int, np.integer)) or not 1 <= n_shards <= len(parts):
        raise ValueError(f"n_shards must be an integer from 1 to the number of parts ({len(parts)}); got {n_shards!r}")
    bounds = np.linspace(0, len(parts), n_shards + 1).round().astype(int)
    return [Shard(i, tuple(parts[lo:hi]), int(chunk_size)) for i, (lo, hi) in enumerate(itertools.pairwise(bounds))]
