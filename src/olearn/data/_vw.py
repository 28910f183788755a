"""Vowpal Wabbit text reader with feature hashing: whole-file and streaming."""

import functools
import os

import numpy as np

from olearn._kernels import _compiled
from olearn._kernels import _parse_vw_codes as K
from olearn._kernels._parse_codes import C_ERR_POS, C_FIXUPS, C_STATUS, FIX_DATA, FIX_LABEL, FIX_WEIGHT, OK

from ._checks import check_float_dtype, check_int
from ._errors import number_message, raise_at, token_at
from ._io import read_text
from ._namespaces import Namespaces
from ._numbers import apply_fixups, check_integer_labels
from ._rows import Rows, parse_chunks, row_sort_scratch, trimmed

_DEFAULT_BLOCK_SIZE = 1 << 22
_MAX_BITS = 31  # columns must fit int32


def _parse(buf, end, first_line, path, n_bits, dtype, require_labels=False, namespaces=None, *, start=0,
           transient=False):
    """Parse ``buf[start:end]`` (whole lines) into ``Rows`` with importance weights, crossed as ``namespaces`` says
    (a :class:`~olearn.data._namespaces.Namespaces`, or None).

    The arrays are allocated from bounds of what the text can hold, counted by
    ``count_bounds`` and the rows cut to size; or, ``transient`` (the caller
    copies the rows at once, as :func:`~olearn.data._rows.rechunk` does), from
    bounds of its length alone, with no pass over the text and no cut: a row
    takes at least two bytes (a '|' and its line break) but the last, an entry
    at least two (a blank and a name byte). Only the pages written are ever
    touched.
    """
    arr = np.frombuffer(buf, dtype=np.uint8, count=end)
    if transient:
        n_rows_max, n_separators = (end - start) // 2 + 1, (end - start) // 2
    else:
        n_rows_max, n_separators = _compiled.count_bounds(arr, start, end)
    indptr = np.empty(n_rows_max + 1, dtype=np.int32 if n_separators < 2**31 else np.int64)
    indices = np.empty(n_separators, dtype=indptr.dtype)
    data = np.empty(n_separators, dtype=dtype)
    labels = np.empty(n_rows_max)
    weights = np.empty(n_rows_max)
    counts = np.zeros(K.N_COUNTS, dtype=np.int64)
    tagged = () if namespaces is None else (np.empty(n_separators, dtype=np.int64),
                                            np.empty(n_separators, dtype=np.uint8))
    fixups = np.empty((256, 4), dtype=np.int64)
    while True:
        _compiled.parse_vw(arr, start, end, n_bits, indptr, indices, data, labels, weights, counts, fixups, *tagged)
        if counts[C_STATUS] != K.FULL_FIXUPS:
            break
        # room for every number of the text (labels, weights, values): the parse cannot fill it
        fixups = np.empty((2 * n_rows_max + n_separators, 4), dtype=np.int64)
    fixups = fixups[: counts[C_FIXUPS]]
    values = apply_fixups(
        arr, buf, fixups, {FIX_DATA: data, FIX_LABEL: labels, FIX_WEIGHT: weights}, path, first_line
    )
    check_integer_labels(buf, fixups, values, fixups[:, 2] == FIX_LABEL, path, first_line)
    negative = np.flatnonzero((fixups[:, 2] == FIX_WEIGHT) & (values < 0))
    if negative.size:
        _raise(K.E_NEGATIVE_WEIGHT, fixups[negative[0], 0], buf, first_line, path)
    if counts[C_STATUS] != OK:
        _raise(counts[C_STATUS], counts[C_ERR_POS], buf, first_line, path)
    n_rows = counts[K.C_ROWS]
    if require_labels:
        unlabelled = np.flatnonzero(np.isnan(labels[:n_rows]))
        if unlabelled.size:
            _raise_unlabelled(buf, start, end, int(unlabelled[0]), first_line, path)
    if namespaces is not None:
        indptr, indices, data = namespaces.cross(indptr, tagged[0], data, tagged[1], n_rows, n_bits)
    nnz = _compiled.sort_and_sum_rows(indptr, indices, data, n_rows, *row_sort_scratch(indptr, n_rows))
    cut = _first if transient else trimmed
    return Rows(cut(indptr, n_rows + 1), cut(indices, nnz), cut(data, nnz), cut(labels, n_rows), cut(weights, n_rows))


def _first(a, n):
    return a[:n]


def _raise_unlabelled(buf, start, end, row, first_line, path):
    """Raise DataFormatError at the line of the ``row``-th (0-based) non-blank line of ``buf[start:end]``."""
    seen = 0
    while True:
        stop = buf.find(b"\n", start, end)
        stop = end if stop < 0 else stop
        if buf[start:stop].strip(b" \t\r\x0b\x0c"):
            if seen == row:
                raise_at(_unlabelled_message(buf[start:stop]), path, buf, start, first_line)
            seen += 1
        start = stop + 1


def _unlabelled_message(line):
    """Why a line has no label: none given, or a token touching the bar (``1|a x``), which the VW format reads as
    the line's tag. (A word where the label goes, ``yes | ...``, is refused by the parser, labels required or
    not.)"""
    before_bar = line.split(b"|", 1)[0]
    header = before_bar.split()
    if len(header) == 1 and before_bar.endswith(header[0]):
        word = header[0].decode("utf-8", "replace")
        return (f"{word!r} touches the '|', and the VW format reads a token touching the bar as the line's tag, "
                "not its label, so the line has none; put a blank before the '|' ('label | features')")
    return ("the line has no label, and learning needs one ('label [importance] | features'); "
            "unlabelled lines can only be predicted")


def _raise(code, pos, buf, first_line, path):
    pos = int(pos)
    token = token_at(buf, pos, b"|")
    if code == K.E_NO_BAR:
        message = "expected '|' starting a namespace before the end of the line"
    elif code == K.E_HEADER:
        message = (f"expected 'label [importance] [tag]' before the first '|', found {token!r} (the tag comes last; "
                   "a third number is Vowpal Wabbit's initial prediction, which olearn does not take)")
    elif code == K.E_LABEL_WORD:
        message = (f"the label {token!r} is not a number: VW labels are numbers (-1/1 or 0/1 for two classes, 1..k "
                   "for k classes, any value for regression), and a tag touches the '|' or starts with \"'\" "
                   f"({token}| or '{token}); Vowpal Wabbit 9 reads such a label as 0, with a warning")
    elif code == K.E_WEIGHT_WORD:
        message = (f"the importance weight {token!r} is not a number ('label [importance] [tag] | features'), and a "
                   f"tag touches the '|' or starts with \"'\" ({token}| or '{token}); Vowpal Wabbit 9 reads such "
                   "a weight as 0, with a warning, and learns nothing from the line")
    elif code == K.E_NEGATIVE_WEIGHT:
        message = f"importance weight must be >= 0, found {token!r}"
    elif code == K.E_NAMESPACE_WEIGHT:
        message = f"namespace weights ('|namespace:weight') are not supported, found {token!r}"
    elif code == K.E_EMPTY_NAME:
        message = f"empty feature name in {token!r}, expected 'name[:value]'"
    elif code == K.E_EMPTY_VALUE:
        message = "empty value after ':', expected a number"
    else:
        message = number_message(token, "feature value", "a numeric feature value after ':'")
    raise_at(message, path, buf, pos, first_line)


def load_vw(path, n_bits=18, dtype=np.float64, require_labels=False, interactions=None, ignore=None, keep=None,
            ngram=None, skips=None):
    """Load a Vowpal Wabbit text file, hashing feature names into ``2**n_bits`` columns.

    Line format (blank lines are skipped)::

        [label [importance]] [tag] |[namespace] feature[:value] ... |[namespace] ...

    Lines end with ``\\n``, ``\\r\\n`` or ``\\r``, even mixed in one file. A tag is the last token before the
    first ``|`` when it touches the bar (a number too, as Vowpal Wabbit reads it: ``1 2|a x`` is the label 1 with
    the tag ``2``, not an importance of 2) or starts with ``'``; tags are read and discarded. The other tokens are
    numbers: a word in their place (``1 yes | a``) is a DataFormatError where Vowpal Wabbit 9 warns and reads 0,
    and so is a third number, VW's initial prediction. A
    namespace name touches its ``|``; a ``|`` followed by a blank opens the default (empty) namespace.
    Feature values default to 1.0; features whose names hash to the same
    column within a row are summed, left to right in the order of the line
    (an entry that sums to 0 is kept as an explicit zero). Compressed files (gzip, bzip2, xz) are
    read transparently.

    The column of feature ``f`` in namespace ``ns`` is::

        murmur3_32(f, seed=murmur3_32(ns, seed=0)) % 2**n_bits

    with MurmurHash3 x86_32 over the UTF-8 bytes of the names. Every name is
    hashed as a string, including integer-looking ones, so the columns do
    *not* match those of Vowpal Wabbit itself.

    **Namespaces**, as Vowpal Wabbit's options of the same names: a namespace
    is named by its first character (the default one by ``' '``), and the
    namespaces sharing it are one. ``ignore="ab"`` drops the features of the
    namespaces starting with a or b, ``keep="ab"`` all the others;
    ``ngram="a2"`` adds the 2-grams of namespace a's features, in line order
    (``"3"``: 2- and 3-grams of every namespace), and ``skips="a1"`` those
    skipping one feature in all; ``interactions=["ab", "abc", "a:"]`` adds the
    crossed features: one per choice of one feature of each namespace of a
    term (``:`` is every namespace of the line), of value the product of
    their values, hashed into the same ``2**n_bits`` columns. In a term that
    repeats a namespace (``"aa"``) a pair is taken once, as VW does by
    default; ``"ba"`` after ``"ab"`` is left out, and namespaces a term
    crossed are not crossed again by a wildcard. The hashes are
    :mod:`olearn._kernels._interactions`'s, VW's formulas over olearn's
    feature hashes (docs/cli.md, "Interactions").

    Parameters
    ----------
    path : str or os.PathLike
    n_bits : int, default 18
        Number of hash bits, 1 to 31.
    dtype : floating dtype, default float64
        Dtype of ``X.data``.
    require_labels : bool, default False
        Refuse a line without a label (data to learn from) instead of
        giving it the label NaN (data to predict).
    interactions : str or list of str, optional
        Namespace letters to cross: ``"ab"`` (VW's ``-q ab``), ``"abc"``
        (``--cubic abc``), of any length, ``:`` for every namespace.
    ignore, keep : str, optional
        Letters of the namespaces to drop / to keep alone (not both).
    ngram, skips : str or list of str, optional
        VW's ``--ngram``/``--skips``: ``"a2"`` for namespace a, ``"2"`` for
        every namespace.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, 2**n_bits)
    y : ndarray of float64 of shape (n_samples,)
        NaN for lines without a label (unless ``require_labels``).
    importance : ndarray of float64 of shape (n_samples,)
        1.0 where the line gives none.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        Naming file, line and column: a line without ``|``, a non-numeric
        label or stray token before the first ``|``, a negative or
        non-finite importance, a non-numeric, empty or non-finite feature
        value, an empty feature name, a namespace weight (``|ns:2``, not
        supported), a line without a label when ``require_labels``, or an integer label that float64 cannot hold exactly; a
        truncated or corrupt compressed stream, naming the file.
    ValueError
        If the namespace options are malformed (an interaction of one letter,
        a non-ASCII letter, ``ignore`` with ``keep``, ``skips`` without
        ``ngram``).

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import load_vw
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.vw")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 2.0 'first |words price:0.5 tall\\n-1 |words short\\n")
    >>> X, y, importance = load_vw(path, n_bits=10)
    >>> X.shape, y, importance
    ((2, 1024), array([ 1., -1.]), array([2., 1.]))
    >>> X[0].nnz, sorted(X[0].data.tolist())
    (2, [0.5, 1.0])
    """
    n_bits = check_int("n_bits", n_bits, 1, _MAX_BITS)
    dtype = check_float_dtype(dtype)
    namespaces = Namespaces.of(interactions, ignore, keep, ngram, skips)
    path = os.fspath(path)
    buf = read_text(path)
    rows = _parse(buf, len(buf), 0, path, n_bits, dtype, require_labels, namespaces)
    return rows.to_csr(1 << n_bits, copy=False), rows.y, rows.weight


def iter_vw(path, chunk_size=100_000, n_bits=18, dtype=np.float64, block_size=_DEFAULT_BLOCK_SIZE,
            require_labels=False, threads=1, interactions=None, ignore=None, keep=None, ngram=None, skips=None):
    """Stream a Vowpal Wabbit text file as chunks of ``chunk_size`` rows.

    Same format, hashing and errors as :func:`load_vw`; the file is read
    ``block_size`` bytes at a time, so memory stays bounded by about one
    chunk plus one block, and errors name the global line.

    Parameters
    ----------
    path : str or os.PathLike
    chunk_size : int, default 100_000
        Rows per chunk; the last chunk holds the remainder.
    n_bits : int, default 18
    dtype : floating dtype, default float64
    block_size : int, default 4 MiB
        Bytes read per step.
    require_labels : bool, default False
        As for :func:`load_vw`: a line without a label is an error.
    threads : int, default 1
        Blocks parsed at once, each on a thread of its own (the compiled
        parser releases the GIL); the chunks and errors are those of one
        thread, in file order. Memory then holds up to ``threads + 1``
        blocks and their rows, and two chunks (the one given and the next,
        gathered meanwhile on a thread of its own). A stream is parsed on
        one thread.
    interactions, ignore, keep, ngram, skips : optional
        The namespace options of :func:`load_vw`, the same features.

    Yields
    ------
    X_chunk : scipy.sparse.csr_matrix of shape (n_rows, 2**n_bits)
    y_chunk : ndarray of float64
    importance_chunk : ndarray of float64

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import iter_vw
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.vw")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 | a b\\n-1 | c\\n1 0.5 | a\\n")
    >>> [(X.shape, y.tolist(), w.tolist()) for X, y, w in iter_vw(path, chunk_size=2, n_bits=4)]
    [((2, 16), [1.0, -1.0], [1.0, 1.0]), ((1, 16), [1.0], [0.5])]
    """
    chunks = iter_vw_rows(path, chunk_size, n_bits, dtype, block_size, require_labels, threads, interactions, ignore,
                          keep, ngram, skips)
    return ((X.tocsr(), y, weight) for X, y, weight in chunks)


def iter_vw_rows(path, chunk_size=100_000, n_bits=18, dtype=np.float64, block_size=_DEFAULT_BLOCK_SIZE,
                 require_labels=False, threads=1, interactions=None, ignore=None, keep=None, ngram=None, skips=None):
    """:func:`iter_vw`, whose chunks are :class:`~olearn._sparse.CSRRows` (the command line's: no scipy)."""
    chunk_size = check_int("chunk_size", chunk_size, 1)
    block_size = check_int("block_size", block_size, 1)
    n_bits = check_int("n_bits", n_bits, 1, _MAX_BITS)
    dtype = check_float_dtype(dtype)
    threads = check_int("threads", threads, 1)
    namespaces = Namespaces.of(interactions, ignore, keep, ngram, skips)
    path = os.fspath(path)
    parse = functools.partial(_parse, path=path, n_bits=n_bits, dtype=dtype, require_labels=bool(require_labels),
                              namespaces=namespaces)
    chunks = parse_chunks(path, parse, chunk_size, block_size, threads)
    # each chunk's arrays are its own (gathered by rechunk, or cut from a stream's parse): no copy
    return ((rows.csr_rows(1 << n_bits, copy=False), rows.y, rows.weight) for rows in chunks)
