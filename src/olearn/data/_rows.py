"""Parsed rows in CSR pieces, and regrouping them into chunks of a fixed row count."""

import functools
from dataclasses import dataclass

import numpy as np

from .._sparse import CSRRows, issparse
from ._io import iter_line_windows, once_input
from ._parallel import in_order


def row_sort_scratch(indptr, n_rows):
    """The scratch arrays of ``sort_and_sum_rows`` for the first ``n_rows`` rows of ``indptr``: (keys, spare,
    values), each as long as the longest row."""
    longest = int(np.diff(indptr[: n_rows + 1]).max(initial=0))
    return np.empty(longest, dtype=np.int64), np.empty(longest, dtype=np.int64), np.empty(longest)


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
        """A scipy CSR matrix of these rows, whose indices are sorted and duplicate-free (see :meth:`csr_rows`)."""
        return self.csr_rows(n_columns, copy).tocsr()

    def csr_rows(self, n_columns=None, copy=True):
        """These rows as :class:`~olearn._sparse.CSRRows`, whose indices are sorted and duplicate-free.

        ``n_columns`` defaults to one past the largest column present. With
        ``copy`` the rows own their arrays instead of viewing the parse buffers.
        """
        lo, hi = self.indptr[0], self.indptr[-1]
        indices = self.indices[lo:hi]
        data = self.data[lo:hi]
        if copy:
            indices, data = indices.copy(), data.copy()
        if n_columns is None:
            n_columns = int(indices.max()) + 1 if indices.size else 0
        return CSRRows(data, indices, self.indptr - lo, (len(self), n_columns))


def row_range(X, lo, hi):
    """Rows ``lo:hi`` of the matrix ``X``; of a CSR matrix, a CSR matrix that views its column indices and values
    (scipy's slicing copies them)."""
    if isinstance(X, CSRRows) or not (issparse(X) and X.format == "csr"):
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

    The last chunk holds the remainder (and is omitted if empty). Each row is
    copied once, into the arrays of its chunk, so memory holds the chunk
    being gathered (its arrays grown as rows come) and one piece. The pieces
    have labels in arrays, or in lists (multilabel), and weights in arrays
    or none.
    """
    chunk = None
    for piece in pieces:
        while len(piece):
            if chunk is None:
                chunk = _Gathering(piece, chunk_size)
            piece = chunk.add(piece)
            if chunk.n_rows == chunk_size:
                yield chunk.rows()
                chunk = None
    if chunk is not None:
        yield chunk.rows()


class _Gathering:
    """A chunk of at most ``chunk_size`` rows, filled from consecutive pieces like ``first``."""

    def __init__(self, first, chunk_size):
        self.chunk_size = chunk_size
        self.n_rows = self.nnz = 0
        n_rows = min(chunk_size, 2 * len(first))
        nnz = 2 * int(first.indptr[-1] - first.indptr[0]) + 1
        self.indptr = np.zeros(n_rows + 1, dtype=first.indices.dtype)
        self.indices = np.empty(nnz, dtype=first.indices.dtype)
        self.data = np.empty(nnz, dtype=first.data.dtype)
        self.multilabel = isinstance(first.y, list)
        self.y = [] if self.multilabel else np.empty(n_rows, dtype=first.y.dtype)
        self.weight = None if first.weight is None else np.empty(n_rows, dtype=first.weight.dtype)

    def add(self, piece):
        """Copy in the first rows of ``piece`` that fit; return the rest (a view)."""
        n = min(len(piece), self.chunk_size - self.n_rows)
        head, rest = piece.split(n)
        lo, hi = int(head.indptr[0]), int(head.indptr[-1])
        self._make_room(self.n_rows + n, self.nnz + hi - lo)
        a, b = self.n_rows, self.n_rows + n
        self.indptr[a + 1 : b + 1] = head.indptr[1:] - lo + self.nnz
        self.indices[self.nnz : self.nnz + hi - lo] = head.indices[lo:hi]
        self.data[self.nnz : self.nnz + hi - lo] = head.data[lo:hi]
        if self.multilabel:
            self.y.extend(head.y)
        else:
            self.y[a:b] = head.y
        if self.weight is not None:
            self.weight[a:b] = head.weight
        self.n_rows, self.nnz = b, self.nnz + hi - lo
        return rest

    def _make_room(self, n_rows, nnz):
        """Grow the arrays to hold ``n_rows`` rows and ``nnz`` entries: the rows doubling, the entries to what the
        whole chunk will need at the density of these rows (an eighth more), doubling at least."""
        if n_rows >= self.indptr.shape[0]:
            rows = min(self.chunk_size, max(n_rows, 2 * (self.indptr.shape[0] - 1)))
            self.indptr = grown(self.indptr, self.n_rows + 1, rows + 1)
            if not self.multilabel:
                self.y = grown(self.y, self.n_rows, rows)
            if self.weight is not None:
                self.weight = grown(self.weight, self.n_rows, rows)
        if nnz > self.indices.shape[0]:
            room = max(nnz + (nnz * (self.chunk_size - n_rows) // n_rows) * 9 // 8, 2 * self.indices.shape[0])
            if room > np.iinfo(self.indices.dtype).max:
                self.indptr, self.indices = self.indptr.astype(np.int64), self.indices.astype(np.int64)
            self.indices = grown(self.indices, self.nnz, room)
            self.data = grown(self.data, self.nnz, room)

    def rows(self):
        n, nnz = self.n_rows, self.nnz
        weight = None if self.weight is None else self.weight[:n]
        return Rows(self.indptr[: n + 1], self.indices[:nnz], self.data[:nnz], self.y[:n], weight)


def grown(a, n_used, n):
    """``a`` if it holds ``n`` entries, else an array of ``n`` entries starting with ``a``'s first ``n_used``."""
    if n <= a.shape[0]:
        return a
    bigger = np.empty(n, dtype=a.dtype)
    bigger[:n_used] = a[:n_used]
    return bigger


def parse_chunks(path, parse, chunk_size, block_size, threads=1):
    """Stream the text file ``path`` as ``Rows`` of ``chunk_size`` rows (the last: the rest).

    The file is read ``block_size`` bytes at a time, in windows of whole lines
    (see ``iter_line_windows``: no block copied), and ``parse(buf, end,
    first_line, start=, transient=)`` turns the lines ``buf[start:end]`` of
    each into ``Rows``, ``transient`` when they are copied into their chunk
    at once (so their arrays may be as large as the text allows and are not
    cut to size). With ``threads`` > 1, that many windows are parsed at once
    (:func:`._parallel.in_order`: the rows and errors in file order, at most
    ``threads + 1`` windows read ahead) and their rows gathered into chunks on
    a thread of their own, the next chunk while the caller has the one
    before. A missing file raises FileNotFoundError here, not at the first
    ``next()``. A stream registered with ``open_once`` is parsed as its bytes
    arrive, on one thread, and its rows are yielded without waiting to fill a
    chunk (at most ``chunk_size`` rows each).
    """
    windows = iter_line_windows(path, block_size)
    if once_input(path) is not None:
        return _as_they_come((_parse_window(parse, window, transient=False) for window in windows), chunk_size)
    if threads > 1:
        pieces = in_order(windows, functools.partial(_parse_window, parse, transient=True), threads, threads + 1)
        return in_order(rechunk(pieces, chunk_size), unchanged, 1, 1, "olearn-gather")
    return rechunk((_parse_window(parse, window, transient=True) for window in windows), chunk_size)


def _parse_window(parse, window, transient):
    _, buf, start, end, first_line = window
    return parse(buf, end, first_line, start=start, transient=transient)


def unchanged(item):
    """``item`` itself: the work of a thread of :func:`._parallel.in_order` that only runs the items' generator."""
    return item


def _as_they_come(pieces, chunk_size):
    """The rows of ``pieces`` in chunks of at most ``chunk_size`` rows, none waiting for rows still to come."""
    for rows in pieces:
        while len(rows) > chunk_size:
            chunk, rows = rows.split(chunk_size)
            yield chunk
        if len(rows):
            yield rows
