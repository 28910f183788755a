"""The parts of a data set, each read in chunks: a file, ``(X, y)`` in memory, a row block of a Dask array
pair, a partition of a Dask bag (:mod:`._shards` groups them into shards; :mod:`._tables` adds the tables).

A file must stay as it was while it is learned from: each epoch reads it
again, and a file rewritten between two epochs would make a model of neither
data set. So a file part keeps the size and modification time (in ns) its
file had when the shards were made, and every reading checks them before and
after it reads the file, refusing a changed file with a DistributedError that
names it.
"""

import os
from dataclasses import dataclass

import numpy as np

from .._sparse import issparse
from .._validation import check_row
from ..data._io import ByteRange
from ..exceptions import DataFormatError
from ._cluster import DistributedError


@dataclass(frozen=True)
class FilePart:
    """A data file, read in chunks (LIBSVM, VW; CoNLL, in chunks of sequences) or whole (CSV, olearn cache)."""

    path: str
    format: str = "auto"
    n_features: object = None
    bits: int = 18
    zero_based: object = "auto"
    stamp: tuple = None  # (size, modification time in ns) of the file when the shards were made
    byte_range: tuple = None  # (start, stop): only these bytes of the file, cut on line boundaries (split_file)

    def resolved_format(self):
        from .. import data

        return data.detect_format(self.path) if self.format == "auto" else self.format

    def name(self):
        """The file's name, with its byte range if it is one: ``big.svm[bytes 0-52,428,800]``."""
        name = os.path.basename(self.path)
        return name if self.byte_range is None else f"{name}[bytes {self.byte_range[0]:,}-{self.byte_range[1]:,}]"

    def chunks(self, chunk_size):
        self._check_unchanged()
        try:
            yield from self._read(chunk_size)
        except DataFormatError as err:
            if self.byte_range is None or err.line is None:
                raise
            # the readers count the lines of the range; the file's own line number is the one to fix
            raise DataFormatError(err.message, self.path, err.line + _lines_before(self.path, self.byte_range[0]),
                                  err.column) from None
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
        """The file's chunks; a LIBSVM or VW file's rows as its reader parsed them (:class:`CSRRows`, as the
        serial command line learns them: no scipy matrix is built on the way)."""
        from .. import data
        from ..data._libsvm import iter_libsvm_rows
        from ..data._vw import iter_vw_rows

        fmt = self.resolved_format()
        path = self.path if self.byte_range is None else ByteRange(self.path, *self.byte_range)
        if fmt == "libsvm":
            yield from iter_libsvm_rows(path, chunk_size=chunk_size, n_features=self.n_features,
                                        zero_based=self.zero_based)
        elif fmt == "vw":
            yield from iter_vw_rows(path, chunk_size=chunk_size, n_bits=self.bits, require_labels=True)
        elif fmt == "conll":
            yield from data.iter_conll(self.path, chunk_size=chunk_size, n_bits=self.bits)
        elif fmt in ("csv", "cache"):
            X, y, *weight = (data.load_csv if fmt == "csv" else data.load_cache)(self.path)
            yield from _sliced(X, y, chunk_size, weight[0] if weight else None)
        else:
            raise ValueError(f"{self.path}: fmt must be 'auto', 'libsvm', 'vw', 'conll', 'csv', 'cache' or 'parquet'; "
                             f"got {fmt!r}")


def _lines_before(path, offset):
    """The number of lines of the file at ``path`` before byte ``offset`` (a line boundary), as its readers count them."""
    from ..data._io import _blocks

    return sum(block.count(b"\n") for block in _blocks(ByteRange(path, 0, offset), 1 << 20))


def file_stamp(path):
    """``(size, modification time in ns)`` of the file at ``path``."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


@dataclass(frozen=True)
class MemoryPart:
    """An ``(X, y)`` pair held in memory, or an ``(X, y, sample_weight)`` triple."""

    X: object
    y: object
    sample_weight: object = None

    def chunks(self, chunk_size):
        yield from _sliced(self.X, self.y, chunk_size, self.sample_weight)


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
class ExamplesPart:
    """A list of ``(x, y)`` examples (a computed partition of a Dask bag)."""

    examples: list

    def chunks(self, chunk_size):
        for lo in range(0, len(self.examples), chunk_size):
            yield _examples_to_csr(self.examples[lo : lo + chunk_size])


@dataclass(frozen=True)
class ComputedPart:
    """Stands for a Dask part in a shard sent to a worker; its ``n_values`` values come with the task, and
    ``source.computed(values, *settings)`` makes the part read on the worker."""

    source: type
    n_values: int
    settings: tuple = ()


def _sliced(X, y, chunk_size, sample_weight=None):
    """``(X, y, sample_weight)`` chunks of ``chunk_size`` rows of a part in memory (of sequences, when X is a list
    of sequences); y None for a stream without labels (uniclass); ``sample_weight`` None (every row weighs 1), a
    number for every row, or one per row."""
    if not is_sequences(X):
        X = X if issparse(X) else np.asarray(X)
    if y is not None and not _label_sets(y):
        y = np.asarray(y)
    n = rows_of(X)
    if y is not None and len(y) != n:
        raise ValueError(f"a part has {n} rows in X and {len(y)} labels in y")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        sample_weight = np.full(n, float(sample_weight)) if sample_weight.ndim == 0 else sample_weight
        if sample_weight.shape != (n,):
            raise ValueError(f"a part has {n} rows in X and {sample_weight.size} sample weights")
    for lo in range(0, n, chunk_size):
        yield (X[lo : lo + chunk_size], None if y is None else y[lo : lo + chunk_size],
               None if sample_weight is None else sample_weight[lo : lo + chunk_size])


def _label_sets(y):
    """Whether y is a list of label sets (a multilabel row's labels, a sequence's tags), kept as a list."""
    return isinstance(y, list) and bool(y) and not np.isscalar(y[0])


def is_sequences(X):
    """Whether X is a list of sequences (each a 2-d array, a sparse matrix or a list of rows), as
    :class:`olearn.sequence.PASequence` learns, rather than a matrix of rows."""
    if not isinstance(X, list) or not X:
        return False
    first = X[0]
    return issparse(first) or np.ndim(first) == 2 or (isinstance(first, list) and bool(first)
                                                         and isinstance(first[0], (dict, list, np.ndarray)))


def rows_of(X):
    """The number of rows (sequences, for a list of sequences) of a chunk."""
    return len(X) if isinstance(X, list) else X.shape[0]


def _examples_to_csr(examples):
    """``(x, y)`` examples as one CSR chunk and its labels."""
    import scipy.sparse as sp

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
