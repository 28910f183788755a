"""CoNLL-style sequence files (one token per line, a blank line between sequences), with hashed features."""

import os

import numpy as np
import scipy.sparse as sp

from olearn._kernels import _compiled
from olearn.exceptions import DataFormatError

from ._checks import check_int
from ._errors import shorten
from ._io import compression_of, iter_line_blocks, once_input
from ._markers import DOCUMENT_START
from ._rows import row_sort_scratch

_DEFAULT_BLOCK_SIZE = 1 << 22
_MAX_BITS = 31  # columns must fit int32
# the memo of hashed names is emptied when it holds this many (as olearn._features does)
_MEMO_SIZE = 1 << 20


class _Hashing:
    """The column of a feature name: MurmurHash3 x86_32 of its bytes, seed 0, modulo ``2**n_bits`` (memoised)."""

    def __init__(self, n_bits):
        self.mask = (1 << n_bits) - 1
        self.memo = {}

    def columns(self, names):
        memo = self.memo
        columns = [*map(memo.get, names)]
        if None in columns:
            new = list({name for name, column in zip(names, columns) if column is None})
            if len(memo) + len(new) > _MEMO_SIZE:
                memo.clear()
            # all the new names hashed by one compiled call
            ends = np.cumsum([len(name) for name in new], dtype=np.int64)
            hashed = _compiled.hash_names(np.frombuffer(b"".join(new), dtype=np.uint8), ends, self.mask)
            memo.update(zip(new, hashed.tolist()))
            columns = [*map(memo.__getitem__, names)]
        return columns


class _Chunk:
    """The tokens of the sequences read since the last chunk was handed out.

    The feature names of a block are hashed when the block is done, so that
    a chunk holds 4 bytes per feature (and a pointer to a shared str per
    tag), not the names themselves.
    """

    def __init__(self, hashing):
        self.hashing = hashing
        self.names = []  # the feature names of the block's tokens, token after token
        self.widths = []  # features per token, of the block
        self.column_parts = []  # the hashed features of the blocks before, an array per block
        self.width_parts = []
        self.tags = []
        self.lengths = []  # tokens per finished sequence
        self.open = 0  # tokens of the sequence being read

    def close_sequence(self):
        if self.open:
            self.lengths.append(self.open)
            self.open = 0

    def end_block(self):
        if self.widths:
            self.column_parts.append(np.array(self.hashing.columns(self.names), dtype=np.int32))
            self.width_parts.append(np.array(self.widths, dtype=np.int64))
            self.names, self.widths = [], []

    def take(self, labelled):
        """The finished sequences as ``(X, y)`` (y None unless ``labelled``); the open one stays."""
        self.end_block()
        n_tokens = sum(self.lengths)
        columns, widths = np.concatenate(self.column_parts), np.concatenate(self.width_parts)
        indptr = np.zeros(n_tokens + 1, dtype=np.int64)
        np.cumsum(widths[:n_tokens], out=indptr[1:])
        nnz = int(indptr[-1])
        index_dtype = np.int32 if nnz < 2**31 else np.int64
        indptr = indptr.astype(index_dtype)
        indices = columns[:nnz].astype(index_dtype)
        data = np.ones(nnz)
        tags, lengths = self.tags[:n_tokens], self.lengths
        self.column_parts, self.width_parts = [columns[nnz:].copy()], [widths[n_tokens:].copy()]
        self.tags, self.lengths = self.tags[n_tokens:], []
        # a feature named twice on a line (or two names sharing a column) is one feature: summed
        _compiled.sort_and_sum_rows(indptr, indices, data, n_tokens, *row_sort_scratch(indptr, n_tokens))
        X, y = [], [] if labelled else None
        start = 0
        for length in lengths:
            stop = start + length
            rows = indptr[start : stop + 1]
            matrix = sp.csr_matrix((data[rows[0] : rows[-1]], indices[rows[0] : rows[-1]], rows - rows[0]),
                                   shape=(length, self.hashing.mask + 1))
            matrix.has_sorted_indices = True
            matrix.has_canonical_format = True
            X.append(matrix)
            if labelled:
                y.append(np.array(tags[start:stop]))
            start = stop
        return X, y


def _chunks(path, chunk_size, n_bits, labelled, block_size):
    """Yield ``(X, y)`` of at most ``chunk_size`` sequences (fewer as a stream's bytes arrive)."""
    chunk = _Chunk(_Hashing(n_bits))
    tag_of = {}  # each distinct tag decoded once, and held once
    as_they_come = once_input(path) is not None
    tokens = 0
    for buf, end, first_line in iter_line_blocks(path, block_size):
        lines = buf[:end].split(b"\n")
        if lines[-1] == b"":
            lines.pop()  # the empty text after the block's last line break is no line
        for number, line in enumerate(lines, start=first_line + 1):
            fields = line.split()
            if not fields or fields[0] == DOCUMENT_START:
                chunk.close_sequence()
                if len(chunk.lengths) == chunk_size:
                    yield chunk.take(labelled)
                continue
            if labelled:
                if len(fields) < 2:
                    raise DataFormatError(
                        f"a token line needs its features and then its tag, found the one field "
                        f"{shorten(fields[0].decode('utf-8', 'replace'))!r}; mark an unlabelled file as such "
                        "(labelled=False, or --no-label) if every field is a feature", path, number, 1)
                tag = fields.pop()
                text = tag_of.get(tag)
                if text is None:
                    try:
                        text = tag_of[tag] = tag.decode("utf-8")
                    except UnicodeDecodeError:
                        column = len(line[: len(line.rstrip()) - len(tag)].decode("utf-8", "replace")) + 1
                        raise DataFormatError(f"the tag {shorten(tag.decode('utf-8', 'replace'))!r} is not valid "
                                              "UTF-8", path, number, column) from None
                chunk.tags.append(text)
            chunk.names += fields
            chunk.widths.append(len(fields))
            chunk.open += 1
            tokens += 1
        chunk.end_block()
        if as_they_come and chunk.lengths:
            yield chunk.take(labelled)
    chunk.close_sequence()
    if chunk.lengths:
        yield chunk.take(labelled)
    if tokens == 0:
        raise DataFormatError("holds no token lines (a CoNLL file has one token per line, its features and then "
                              "its tag, and a blank line after each sequence)", path)


def iter_conll(path, chunk_size=10_000, n_bits=18, labelled=True, block_size=_DEFAULT_BLOCK_SIZE):
    """Stream a CoNLL-style sequence file as chunks of ``chunk_size`` sequences.

    Same format, hashing and errors as :func:`load_conll`; the file is read
    ``block_size`` bytes at a time, so memory stays bounded by about one
    chunk plus one block, and errors name the file's own line. The error for
    a file without tokens comes after the (empty) iteration.

    Parameters
    ----------
    path : str or os.PathLike
    chunk_size : int, default 10_000
        Sequences per chunk; the last chunk holds the remainder.
    n_bits : int, default 18
    labelled : bool, default True
    block_size : int, default 4 MiB
        Bytes read per step.

    Yields
    ------
    X_chunk : list of scipy.sparse.csr_matrix
    y_chunk : list of ndarray of str, or None when not ``labelled``

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import iter_conll
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.conll")
    >>> with open(path, "w") as f:
    ...     _ = f.write("The DT\\ncat NN\\n\\nDogs NNS\\n\\nrun VBP\\n")
    >>> [[t.tolist() for t in y] for X, y in iter_conll(path, chunk_size=2, n_bits=8)]
    [[['DT', 'NN'], ['NNS']], [['VBP']]]
    """
    chunk_size = check_int("chunk_size", chunk_size, 1)
    block_size = check_int("block_size", block_size, 1)
    n_bits = check_int("n_bits", n_bits, 1, _MAX_BITS)
    path = os.fspath(path)
    compression_of(path)  # a missing file is reported now, not at the first next()
    return _chunks(path, chunk_size, n_bits, bool(labelled), block_size)


def load_conll(path, n_bits=18, labelled=True):
    """Load a CoNLL-style sequence file: one token per line, its features and then its tag.

    Format::

        feature feature ... tag
        feature feature ... tag

        feature ... tag

    * Fields are separated by blanks (spaces, tabs); every field but the last
      is a feature, the last is the token's tag (read as a string). With
      ``labelled=False`` every field is a feature (a file to predict).
    * A blank line ends a sequence; several blank lines are one separator.
    * A line whose first field is ``-DOCSTART-`` (CoNLL-2003's document
      marker) also ends a sequence and is skipped.
    * There are no comment lines: ``#`` is a token of the Penn Treebank
      (CoNLL-2000 has the line ``# # B-NP``), so a line starting with ``#``
      is a token like any other.
    * A feature is present (value 1) or absent: ``name:value`` is not read
      as a weight, since tokens hold colons (``3:30``, ``http://...``); the
      whole field, colons included, is the feature's name. A name given
      twice on one line has the value 2.
    * Lines end with ``\\n``, ``\\r\\n`` or ``\\r``, even mixed in one file; compressed files
      (gzip, bzip2, xz) are read transparently.

    The column of feature ``f`` is ``murmur3_32(f, seed=0) % 2**n_bits``
    (MurmurHash3 x86_32 of the field's bytes, UTF-8 for text): the column
    that :func:`load_vw` gives ``f`` in the default namespace, and that
    ``PASequence(n_bits=n_bits)`` gives the dict key ``f``, so a model
    learned from a CoNLL file answers dict rows that name the same
    features. Names that share a column are summed. No constant feature is
    added (``PASequence(fit_intercept=True)`` learns a per-tag bias).

    Parameters
    ----------
    path : str or os.PathLike
    n_bits : int, default 18
        Number of hash bits, 1 to 31.
    labelled : bool, default True
        Whether the last field of a line is its tag.

    Returns
    -------
    X : list of scipy.sparse.csr_matrix
        One matrix of shape (length, 2**n_bits) per sequence, in file order.
    y : list of ndarray of str, or None
        The tags of each sequence; None when not ``labelled``.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        Naming file and line: a labelled line with one field (a tag without
        features), a tag that is not valid UTF-8, a file without any token
        line; a truncated or corrupt compressed stream, naming the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import load_conll
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.conll")
    >>> with open(path, "w") as f:
    ...     _ = f.write("-DOCSTART- O\\n\\nThe w=the DT\\ncat w=cat NN\\n\\nDogs w=dogs NNS\\n")
    >>> X, y = load_conll(path, n_bits=10)
    >>> [x.shape for x in X], [t.tolist() for t in y]
    ([(2, 1024), (1, 1024)], [['DT', 'NN'], ['NNS']])
    >>> X[0][0].nnz
    2
    """
    X, y = [], [] if labelled else None
    for X_chunk, y_chunk in iter_conll(path, chunk_size=1 << 20, n_bits=n_bits, labelled=labelled):
        X += X_chunk
        if labelled:
            y += y_chunk
    return X, y
