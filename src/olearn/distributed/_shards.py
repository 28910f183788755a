"""Shards: the parts of a data set that the workers read, in chunks, on their own.

Data come as *parts* in a fixed order: files (one path, several, a glob or a
directory; Parquet tables among them, :mod:`._tables`),
``(X, y)`` pairs in memory, the row blocks of a Dask array pair ``(X, y)``,
the partitions of a Dask bag of ``(x, y)`` examples or of a Dask DataFrame. A shard is a run of
consecutive parts (``n_shards`` groups them; by default each part is a shard;
one LIBSVM or VW file is cut into ``n_shards`` byte ranges on line boundaries,
:func:`split_file`; the kinds of part, :mod:`._parts`), and it is read on a worker
chunk by chunk: LIBSVM and VW files through
:func:`olearn.data.iter_libsvm` / :func:`olearn.data.iter_vw`, so a shard
never needs to fit in a worker's memory; a Dask partition is computed on the
worker when its turn comes. Results depend on the shards, never on which
worker reads which shard.
"""

import dataclasses
import glob
import itertools
import os
import sys
from dataclasses import dataclass

import numpy as np

from .._sparse import CSRRows
from ._parts import ComputedPart, DaskArrayPart, DaskBagPart, FilePart, MemoryPart, file_stamp, rows_of

DEFAULT_CHUNK_SIZE = 10_000


SPLITTABLE_FORMATS = ("libsvm", "vw")


def split_file(part, n):
    """``part`` (a whole, uncompressed LIBSVM or VW file) as up to ``n`` parts of about equal bytes, cut on line
    boundaries: part i starts at the first line that starts at or after byte ``i * size / n`` (fewer parts when lines
    are longer than the share of a part).

    Only the ``n - 1`` cuts are read here (the bytes from each share's start to the next line break), never the file.
    """
    size = part.stamp[0]
    cuts = [0]
    with open(part.path, "rb") as f:
        for i in range(1, n):
            cut = _line_start(f, max(i * size // n, cuts[-1]), size)
            if cuts[-1] < cut < size:
                cuts.append(cut)
    cuts.append(size)
    return [dataclasses.replace(part, byte_range=(lo, hi)) for lo, hi in itertools.pairwise(cuts)]


def _line_start(f, at, size):
    """The first byte at or after ``at`` that starts a line of the file ``f`` (``size`` if none does)."""
    if at == 0:
        return 0
    pos = at - 1  # a byte just after a line break starts a line
    f.seek(pos)
    while block := f.read(1 << 16):
        found = block.find(b"\n")
        if found >= 0:
            return pos + found + 1
        pos += len(block)
    return size


def why_not_splittable(part):
    """Why a file part cannot be cut into byte ranges (None if it can)."""
    from ..data._io import compression_of

    if part.resolved_format() not in SPLITTABLE_FORMATS:
        return f"{part.name()} is {part.resolved_format()}, and only LIBSVM and VW text is cut into byte ranges"
    if compression_of(part.path) is not None:
        return f"{part.name()} is compressed ({compression_of(part.path)}), and a compressed stream cannot be cut"
    return None


def _refuse_weights(where, weight):
    """Delayed updates are unweighted: importance weights other than 1 are an error, never dropped."""
    if weight is not None and np.any(np.asarray(weight) != 1.0):
        raise ValueError(f"{where}: gives importance weights other than 1, and delayed updates do not "
                         "honour them: learn it by parameter mixing (the default of --workers/--scheduler), or "
                         "without Dask, where they are honoured")


@dataclass(frozen=True)
class Shard:
    """Consecutive parts read one after the other; ``number`` is the shard's place in the data."""

    number: int
    parts: tuple
    chunk_size: int = DEFAULT_CHUNK_SIZE

    def chunks(self):
        """Yield the shard's ``(X, y)`` chunks in order, at most ``chunk_size`` rows each (the rows of a LIBSVM or
        VW file as a scipy CSR matrix, as :func:`olearn.data.iter_libsvm` gives them)."""
        for X, y, _, _ in self.located_chunks():
            yield (X.tocsr() if isinstance(X, CSRRows) else X), y

    def located_chunks(self):
        """Yield ``(X, y, part, first)``: each chunk with its part and the 0-based row of its part it starts at;
        importance weights other than 1 are an error."""
        for X, y, weight, part, first in self.weighted_chunks():
            _refuse_weights(part.path if isinstance(part, FilePart) else self.describe(), weight)
            yield X, y, part, first

    def weighted_chunks(self):
        """Yield ``(X, y, sample_weight, part, first)``, as :meth:`located_chunks` with each chunk's importance
        weights (None: every row weighs 1)."""
        for part in self.parts:
            first = 0
            for X, y, *weight in part.chunks(self.chunk_size):
                yield X, y, weight[0] if weight else None, part, first
                first += rows_of(X)

    def in_chunks_of(self, rows):
        """The same shard, read ``rows`` rows at a time."""
        return dataclasses.replace(self, chunk_size=rows)

    @staticmethod
    def where(part, row_in_part, shard_row):
        """A row as its source numbers it: ``example 13 of a.svm`` (1-based) in a file, else ``row 12`` of the shard."""
        if isinstance(part, FilePart):
            return f"example {row_in_part + 1} of {part.name()}"
        return f"row {shard_row}"

    def graphs(self):
        """The delayed objects of the shard's Dask parts, in order."""
        return [graph for part in self.parts if hasattr(part, "graphs") for graph in part.graphs()]

    def without_graphs(self):
        """The shard as a worker receives it: each Dask part a :class:`ComputedPart`."""
        parts = tuple(ComputedPart(type(part), len(part.graphs()), getattr(part, "settings", ()))
                      if hasattr(part, "graphs") else part for part in self.parts)
        return Shard(self.number, parts, self.chunk_size)

    def with_values(self, values):
        """The shard read on a worker: each :class:`ComputedPart` replaced by its part made of ``values`` (in order)."""
        parts, at = [], 0
        for part in self.parts:
            if isinstance(part, ComputedPart):
                parts.append(part.source.computed(values[at : at + part.n_values], *part.settings))
                at += part.n_values
            else:
                parts.append(part)
        return Shard(self.number, tuple(parts), self.chunk_size)

    def describe(self):
        names = [p.name() if isinstance(p, FilePart)
                 else (p.source if isinstance(p, ComputedPart) else type(p)).__name__ for p in self.parts]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"shard {self.number} ({shown})"


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


def _local_path(path):
    """A path every worker opens with ``open``: ``file://`` URLs as paths; another URL scheme is refused."""
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    url = urlparse(path)
    if url.scheme == "file":
        return url2pathname(url.path)
    if len(url.scheme) > 1 and "://" in path:  # not a Windows drive letter
        raise ValueError(
            f"{path}: file shards are paths that every worker can open (a shared file system); for a "
            f"{url.scheme}:// store, read the data with Dask, which reaches it through fsspec (pip install fsspec "
            f"and the store's package, e.g. s3fs), and pass the collection: "
            f"dask.dataframe.read_parquet({path!r}) with label_column=, or dask.bag.read_text(...)")
    return path


def expanded_paths(paths):
    """The files of ``paths`` in order: a glob's matches and a directory's files (not hidden ones such as
    ``.crc``, nor ``_SUCCESS``/``_metadata``), each sorted by name."""
    found = []
    for path in paths:
        path = _local_path(os.fspath(path))
        if not os.path.exists(path) and glob.has_magic(path):
            matches = sorted(glob.glob(path))
            if not matches:
                raise FileNotFoundError(f"{path}: no file matches this pattern")
            found.extend(matches)
        elif os.path.isdir(path):
            files = sorted(os.path.join(path, name) for name in os.listdir(path)
                           if not name.startswith((".", "_")) and os.path.isfile(os.path.join(path, name)))
            if not files:
                raise FileNotFoundError(f"{path}: the directory holds no data file")
            found.extend(files)
        elif not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such file")
        else:
            found.append(path)
    return found


def _file_parts(paths, fmt, n_features, bits, zero_based, label_column=None):
    from ._tables import is_parquet, parquet_part

    found = expanded_paths(paths)
    tables = [is_parquet(path, fmt) for path in found]
    if label_column is not None and not all(tables):
        raise ValueError(f"label_column={label_column!r} applies to tables (Parquet files, Dask DataFrames); "
                         f"{found[tables.index(False)]} is none")
    parts = [FilePart(path, fmt, n_features, bits) for path, table in zip(found, tables) if not table]
    if zero_based == "auto":
        # decided once for all the files, as one stream, never shard by shard
        from ..data._libsvm import detect_zero_based

        zero_based = bool(detect_zero_based([p.path for p in parts if p.resolved_format() == "libsvm"]))
    elif zero_based not in (True, False):
        raise ValueError(f"zero_based must be 'auto', True or False, got {zero_based!r}")
    return [parquet_part(path, label_column, file_stamp(path)) if table
            else FilePart(path, fmt, n_features, bits, zero_based, file_stamp(path))
            for path, table in zip(found, tables)]


def _dask_parts(data, label_column):
    """Parts of a Dask bag, of a pair of Dask arrays or of a Dask DataFrame; None for anything else.

    A Dask collection exists only once its module was imported (by whoever made it), so the modules are looked up,
    never imported: a run from files does not pay for importing them (seconds, with pandas).
    """
    frame = _dask_frame(data)
    if frame is not None:
        from ._tables import frame_parts

        return frame_parts(frame, label_column)
    da, db = sys.modules.get("dask.array"), sys.modules.get("dask.bag")
    if db is not None and isinstance(data, db.Bag):
        return [DaskBagPart(partition) for partition in data.to_delayed()]
    if da is not None and isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], da.Array):
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


def _dask_frame(data):
    """``data`` if it is a Dask DataFrame (its module imported, as :func:`_dask_parts` looks it up), else None."""
    dd = sys.modules.get("dask.dataframe")
    return data if dd is not None and isinstance(data, dd.DataFrame) else None


def make_shards(data, n_shards=None, chunk_size=DEFAULT_CHUNK_SIZE, fmt="auto", n_features=None, bits=18,
                zero_based="auto", label_column=None):
    """Split ``data`` into shards.

    Parameters
    ----------
    data : path, glob, directory, list of them, list of (X, y) or (X, y, sample_weight), (dask X, dask y), dask bag
        or dask DataFrame
        A path may be a ``file://`` URL; a directory stands for its files
        (sorted by name, hidden ones and ``_SUCCESS``-like ones left out);
        ``.parquet`` / ``.pq`` files are Parquet tables.
    n_shards : int, optional
        Group the parts into this many shards of consecutive parts (as equal
        in number of parts as possible); default: one shard per part. One
        uncompressed LIBSVM or VW file is cut into this many byte ranges of
        about equal size on line boundaries (fewer if it has fewer lines),
        each a shard read on its own.
    chunk_size : int
        Rows per chunk read on a worker.
    fmt, n_features, bits
        How to read files (as in :func:`olearn.data.read_any`; ``bits`` for
        VW); ``fmt="parquet"`` reads every file as Parquet.
    zero_based : {"auto", False, True}, default "auto"
        LIBSVM files: whether indices start at 0 (as in
        :func:`olearn.data.load_libsvm`). "auto" decides once for all the
        files, read in order as one stream: 0-based if an index 0 occurs in
        the first 4 MiB holding features; an index 0 in a later file of a
        data set taken as 1-based is then an error, never a shifted shard.
    label_column : str or int, optional
        Tables (Parquet files, a Dask DataFrame): the column holding the
        labels, by name (else an integer is its position); the other columns are the features (see
        :mod:`olearn.distributed._tables`).

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
        elif isinstance(data, (list, tuple)) and data and all(isinstance(p, tuple) and len(p) in (2, 3)
                                                              for p in data):
            parts = [MemoryPart(*pair) for pair in data]
        else:
            raise TypeError(
                "data must be a file path, a glob, a list of paths, a list of (X, y) pairs or (X, y, sample_weight) "
                "triples, "
                "a pair of Dask arrays (X, y), a Dask bag of (x, y) examples or a Dask DataFrame"
            )
    if not parts:
        raise ValueError("data has no parts")
    if label_column is not None and not all(hasattr(part, "label") for part in parts):
        raise ValueError(f"label_column={label_column!r} applies to tables (Parquet files, Dask DataFrames); the "
                         "other data carry their labels themselves")
    if n_shards is None:
        n_shards = len(parts)
    if (len(parts) == 1 and isinstance(parts[0], FilePart) and not isinstance(n_shards, bool)
            and isinstance(n_shards, (int, np.integer)) and n_shards > 1):
        reason = why_not_splittable(parts[0])
        if reason is not None:
            raise ValueError(f"n_shards={n_shards} cuts one file into byte ranges, and {reason}: split it into "
                             "files (e.g. split -n l/8 big.svm part-) or give n_shards=None")
        parts = split_file(parts[0], int(n_shards))
        n_shards = len(parts)
    if isinstance(n_shards, bool) or not isinstance(n_shards, (int, np.integer)) or not 1 <= n_shards <= len(parts):
        raise ValueError(f"n_shards must be an integer from 1 to the number of parts ({len(parts)}); got {n_shards!r}")
    bounds = np.linspace(0, len(parts), n_shards + 1).round().astype(int)
    return [Shard(i, tuple(parts[lo:hi]), int(chunk_size)) for i, (lo, hi) in enumerate(itertools.pairwise(bounds))]
