"""Parsed rows in CSR pieces, and regrouping them into chunks of a fixed row count."""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._io import compression_of, iter_line_blocks, once_input


@dataclass
class Rows:
    """CSR rows with their labels (and importance weights).

    ``indptr`` may start above 0 (a view into a larger parse); entries live in
    ``indices[indptr[0]:indptr[-1]]``. ``y`` is an array, or a list of tuples
    for multilabel data; ``weight`` an array or ``None``.
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    y: object
    weight: object = None

    def __len__(self):
        return self.indptr.shape[0] - 1

    def split(self, n):
        """``(first n rows, the rest)`` as views."""
        return (
            Rows(self.indptr[: n + 1], self.indices, self.data, self.y[:n], _head(self.weight, n)),
            Rows(self.indptr[n:], self.indices, self.data, self.y[n:], _tail(self.weight, n)),
        )

    def to_csr(self, n_columns=None, copy=True):
        """A CSR matrix of these rows, whose indices are sorted and duplicate-free.

        ``n_columns`` defaults to one past the largest column present. With
        ``copy`` the matrix owns its arrays instead of viewing the parse buffers.
        """
        lo, hi = self.indptr[0], self.indptr[-1]
        indices = self.indices[lo:hi]
        data = self.data[lo:hi]
        if copy:
            indices, data = indices.copy(), data.copy()
        if n_columns is None:
            n_columns = int(indices.max()) + 1 if indices.size else 0
        X = sp.csr_matrix(
            (data, indices, self.indptr - lo),
            shape=(len(self), n_columns),
            copy=False,
        )
        X.has_sorted_indices = True
        X.has_canonical_format = True
        return X

    @staticmethod
    def concat(parts):
        """One ``Rows`` holding ``parts`` in order."""
        if len(parts) == 1:
            return parts[0]
        indptrs = [np.zeros(1, dtype=parts[0].indptr.dtype)]
        total = 0
        for p in parts:
            indptrs.append(p.indptr[1:] - p.indptr[0] + total)
            total += p.indptr[-1] - p.indptr[0]
        indices = np.concatenate([p.indices[p.indptr[0] : p.indptr[-1]] for p in parts])
        data = np.concatenate([p.data[p.indptr[0] : p.indptr[-1]] for p in parts])
        if isinstance(parts[0].y, list):
            y = [label for p in parts for label in p.y]
        else:
            y = np.concatenate([p.y for p in parts])
        weight = None if parts[0].weight is None else np.concatenate([p.weight for p in parts])
        return Rows(np.concatenate(indptrs), indices, data, y, weight)


def row_range(X, lo, hi):
    """Rows ``lo:hi`` of the matrix ``X``; of a CSR matrix, a CSR matrix that views its column indices and values
    (scipy's slicing copies them)."""
    if not (sp.issparse(X) and X.format == "csr"):
        return X[lo:hi]
    a, b = X.indptr[lo], X.indptr[hi]
    return type(X)((X.data[a:b], X.indices[a:b], X.indptr[lo : hi + 1] - a), shape=(hi - lo, X.shape[1]), copy=False)


def trimmed(a, n):
    """``a[:n]``, copied if the view would keep a much larger allocation alive."""
    return a[:n] if 4 * n >= 3 * a.shape[0] else a[:n].copy()


def _head(a, n):
    return None if a is None else a[:n]


def _tail(a, n):
    return None if a is None else a[n:]


def rechunk(pieces, chunk_size):
    """Regroup an iterable of ``Rows`` into ``Rows`` of exactly ``chunk_size`` rows.

    The last chunk holds the remainder (and is omitted if empty). Memory holds
    at most one chunk plus one piece.
    """
    pending = []
    n_pending = 0
    for piece in pieces:
        if len(piece) == 0:
            continue
        pending.append(piece)
        n_pending += len(piece)
        if n_pending < chunk_size:
            continue
        rows = Rows.concat(pending)
        while len(rows) >= chunk_size:
            chunk, rows = rows.split(chunk_size)
            yield chunk
        pending = [rows] if len(rows) else []
        n_pending = len(rows)
    if pending:
        yield Rows.concat(pending)


def parse_chunks(path, parse, chunk_size, block_size):
    """Stream the text file ``path`` as ``Rows`` of ``chunk_size`` rows (the last: the rest).

    The file is read ``block_size`` bytes at a time (see ``iter_line_blocks``)
    and ``parse(buf, end, first_line)`` turns the whole lines ``buf[:end]`` of
    each block into ``Rows``. A missing file raises FileNotFoundError here,
    not at the first ``next()``. A stream registered with ``open_once`` is
    parsed as its bytes arrive, and its rows are yielded without waiting to
    fill a chunk (at most ``chunk_size`` rows each).
    """
    compression_of(path)
    pieces = (parse(buf, end, first_line) for buf, end, first_line in iter_line_blocks(path, block_size))
    if once_input(path) is not None:
        return _as_they_come(pieces, chunk_size)
    return rechunk(pieces, chunk_size)


def _as_they_come(pieces, chunk_size):
    """The rows of ``pieces`` in chunks of at most ``chunk_size`` rows, none waiting for rows still to come."""
    for rows in pieces:
        while len(rows) > chunk_size:
            chunk, rows = rows.split(chunk_size)
            yield chunk
        if len(rows):
            yield rows
