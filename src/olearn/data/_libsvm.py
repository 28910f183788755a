"""LIBSVM / SVMlight text reader: whole-file and streaming."""

import os

import numpy as np

from olearn._kernels import _compiled
from olearn._kernels import _parse_codes as K
from olearn._kernels._parse_codes import FIX_DATA, FIX_LABEL
from olearn._lazy import LazyModule

from ._checks import check_float_dtype, check_int
from ._errors import number_message, raise_at, token_at
from ._io import iter_line_windows, line_windows, once_input, read_text
from ._numbers import apply_fixups, check_integer_labels
from ._parallel import in_order
from ._rows import Rows, grown, rechunk, unchanged

_parse_rows = LazyModule("olearn._kernels._parse_rows")

# Columns are int32 so that scipy keeps the arrays as they are; this is the
# largest index (as written in the file) accepted when n_features is not given.
_MAX_INDEX = np.iinfo(np.int32).max - 1
_DEFAULT_BLOCK_SIZE = 1 << 22


class _Options:
    """Validated reader arguments and the index base, which "auto" may settle late."""

    def __init__(self, path, n_features, dtype, zero_based, multilabel):
        if zero_based not in ("auto", True, False):
            raise ValueError(f"zero_based must be 'auto', True or False, got {zero_based!r}")
        self.path = os.fspath(path)
        if n_features is not None:
            n_features = check_int("n_features", n_features, 1, _MAX_INDEX)
        self.n_features = n_features
        self.dtype = check_float_dtype(dtype)
        self.zero_based = zero_based
        self.multilabel = bool(multilabel)
        # None while "auto" has seen no feature yet; then 0 or 1.
        self.base = None if zero_based == "auto" else (0 if zero_based else 1)

    def limit(self, base):
        """Largest index as written that is valid under ``base`` (None: not yet known)."""
        if self.n_features is None:
            return _MAX_INDEX
        return self.n_features - 1 if base == 0 else self.n_features


class _Chunk:
    """CSR rows (and labels) parsed from windows of text, appended to until the chunk is taken.

    The arrays grow when the parser finds one full (it stops before the line
    that does not fit), and are cut to their use when taken; so a chunk's
    rows are parsed into place, never copied to regroup them.
    """

    def __init__(self, opt, max_rows=None, hint=(1 << 10, 1 << 16)):
        self.opt = opt
        self.max_rows = max_rows
        self._empty(*hint)

    def _empty(self, n_rows, nnz):
        """No rows yet; room for ``n_rows`` rows and ``nnz`` entries (the first guesses, grown as needed)."""
        opt = self.opt
        if self.max_rows is not None:
            n_rows = min(n_rows, self.max_rows)
        self.counts = np.zeros(K.N_COUNTS, dtype=np.int64)
        index_dtype = np.int32 if nnz < _MAX_INT32_NNZ else np.int64
        self.indptr = np.zeros(n_rows + 1, dtype=index_dtype)
        self.indices = np.empty(nnz, dtype=index_dtype)
        self.data = np.empty(nnz, dtype=opt.dtype)
        self.labels = np.empty(0 if opt.multilabel else n_rows)
        self.mlabels = np.empty(n_rows if opt.multilabel else 0, dtype=np.int64)
        self.mlabel_ptr = np.zeros(n_rows + 1 if opt.multilabel else 0, dtype=np.int64)
        self.unsorted = np.empty((16, 2), dtype=np.int64)
        self.fixups = np.empty((256, 4), dtype=np.int64)

    def __len__(self):
        return int(self.counts[K.C_ROWS])

    def parse(self, arr, buf, start, end, first_line, base, limit):
        """Append the rows of the whole lines ``buf[start:end]``, stopping when the chunk is full.

        Returns the offset where parsing stopped: ``end``, or the start of the
        first line left for the next chunk.
        """
        opt, counts = self.opt, self.counts
        max_rows = _NO_ROW_LIMIT if self.max_rows is None else self.max_rows
        while True:
            _compiled.parse_libsvm(
                arr,
                start,
                end,
                base,
                limit,
                max_rows,
                self.indptr,
                self.indices,
                self.data,
                self.labels,
                self.mlabels if opt.multilabel else None,  # None: the kernel compiles without multilabel code
                self.mlabel_ptr if opt.multilabel else None,
                counts,
                self.unsorted,
                self.fixups,
            )
            fixups = self.fixups[: counts[K.C_FIXUPS]]
            values = apply_fixups(arr, buf, fixups, {FIX_DATA: self.data, FIX_LABEL: self.labels}, opt.path,
                                  first_line)
            check_integer_labels(buf, fixups, values, fixups[:, 2] == FIX_LABEL, opt.path, first_line)
            status = counts[K.C_STATUS]
            if status != K.OK and status != K.OUT_OF_ROOM:
                _raise_kernel_error(buf, first_line, opt, base, counts)
            n_unsorted = counts[K.C_UNSORTED]
            if n_unsorted:
                bad = _parse_rows.sort_listed_rows(self.indptr, self.indices, self.data, self.unsorted, n_unsorted)
                if bad >= 0:
                    _raise_duplicate(buf, first_line, opt, self.unsorted[bad, 1])
            start = int(counts[K.C_STOP])
            if status == K.OK:
                return start
            self._grow()

    def _grow(self):
        """Grow the arrays that the parser found full: double them at least (a line may hold more entries than
        there were); the entries of a chunk of ``max_rows`` rows to what the rest of the chunk will need."""
        rows, nnz, n_mlabels = (int(n) for n in self.counts[K.C_ROWS : K.C_MLABELS + 1])
        full = self.counts[K.C_ERR_INFO]
        if full == K.FULL_ROWS:
            n_rows = 2 * rows + 1 if self.max_rows is None else min(2 * rows + 1, self.max_rows)
            self.indptr = grown(self.indptr, rows + 1, n_rows + 1)
            self.labels = grown(self.labels, rows, 0 if self.opt.multilabel else n_rows)
            self.mlabel_ptr = grown(self.mlabel_ptr, rows + 1, n_rows + 1 if self.opt.multilabel else 0)
        elif full == K.FULL_ENTRIES:
            n = 2 * self.indices.shape[0] + 1
            if self.max_rows is not None and rows:
                # room for the rest of the chunk at the density of its rows so far (an eighth more)
                n = max(n, nnz + (nnz * (self.max_rows - rows) // rows) * 9 // 8 + 1)
            if n >= _MAX_INT32_NNZ and self.indptr.dtype != np.int64:
                self.indptr, self.indices = self.indptr.astype(np.int64), self.indices.astype(np.int64)
            self.indices = grown(self.indices, nnz, n)
            self.data = grown(self.data, nnz, n)
        elif full == K.FULL_MLABELS:
            self.mlabels = grown(self.mlabels, n_mlabels, 2 * self.mlabels.shape[0] + 1)
        elif full == K.FULL_UNSORTED:  # the rows it lists are sorted already: only room is needed
            self.unsorted = np.empty((2 * self.unsorted.shape[0], 2), dtype=np.int64)
        else:  # FULL_FIXUPS; likewise, its numbers are converted already
            self.fixups = np.empty((2 * self.fixups.shape[0], 4), dtype=np.int64)

    def take(self):
        """The rows parsed so far, in arrays of their own cut to size; the chunk starts empty again, with room for
        a little more than it took."""
        opt = self.opt
        n_rows, nnz = len(self), int(self.counts[K.C_NNZ])
        if opt.multilabel:
            flat = self.mlabels[: self.counts[K.C_MLABELS]].tolist()
            ptr = self.mlabel_ptr[: n_rows + 1].tolist()
            y = [tuple(sorted(flat[a:b])) for a, b in zip(ptr[:-1], ptr[1:])]
        else:
            y = _cut(self.labels, n_rows)
        rows = Rows(_cut(self.indptr, n_rows + 1), _cut(self.indices, nnz), _cut(self.data, nnz), y)
        self._empty(n_rows + 1, nnz + nnz // 8 + 1)
        return rows


# Beyond this many entries, a chunk's indptr and indices are int64.
_MAX_INT32_NNZ = np.iinfo(np.int32).max
_NO_ROW_LIMIT = np.iinfo(np.int64).max


def _cut(a, n):
    """``a`` cut to its first ``n`` entries in place (``a`` owns its memory, which shrinks without a copy)."""
    a.resize(n, refcheck=False)
    return a


def _parse_whole(arr, buf, windows, first_line, opt):
    """The rows of the windows ``(start, end)`` of ``buf``, as one ``Rows``.

    With ``zero_based="auto"`` (``opt.base`` None) the indices are read as
    written and the base is decided (and settled in ``opt``) once all are
    seen, as scikit-learn does.
    """
    windows = list(windows)
    chunk = _Chunk(opt)
    base = 0 if opt.base is None else opt.base
    limit = opt.limit(opt.base)
    for start, end in windows:
        chunk.parse(arr, buf, start, end, first_line, base, limit)
    rows = chunk.take()
    if opt.base is None and len(rows.data):
        # scikit-learn's rule: any index 0 means the file is 0-based.
        opt.base = 0 if rows.indices.min() == 0 else 1
        if opt.base == 1:
            rows.indices -= 1
        elif opt.n_features is not None and rows.indices.max() >= opt.n_features:
            # Index n_features passed as a valid 1-based index; rerun 0-based to locate it.
            chunk = _Chunk(opt, hint=(len(rows), len(rows.data)))
            for start, end in windows:
                chunk.parse(arr, buf, start, end, first_line, 0, opt.limit(0))
    return rows


def _raise_kernel_error(buf, first_line, opt, base, counts):
    code, pos, info = (int(v) for v in counts[K.C_STATUS : K.C_ERR_INFO + 1])
    token = token_at(buf, pos)
    if code == K.E_LABEL:
        message = number_message(token, "label", "a numeric label")
    elif code == K.E_LABEL_INT:
        message = (
            f"expected comma-separated integer labels (multilabel=True), "
            f"found {token_at(buf, pos, b',')!r}"
        )
    elif code == K.E_LABEL_RANGE:
        message = (
            f"multilabel label {token_at(buf, pos, b',')!r} is beyond the 64-bit integer range "
            f"(at most {np.iinfo(np.int64).max} in absolute value)"
        )
    elif code == K.E_MISSING_COLON:
        message = f"expected a feature 'index:value', found {token!r} (missing ':')"
    elif code == K.E_EMPTY_INDEX:
        message = f"empty feature index in {token!r}, expected 'index:value'"
    elif code == K.E_INDEX:
        index_text = token.split(":", 1)[0]
        message = f"feature index must be a non-negative integer, found {index_text!r} in {token!r}"
    elif code == K.E_QID:
        message = (
            "'qid:' tokens (query ids of ranking data) are not supported; "
            "sklearn.datasets.load_svmlight_file(..., query_id=True) reads them"
        )
    elif code == K.E_INDEX_ZERO:
        if opt.zero_based == "auto":
            message = (
                "feature index 0 in a file taken as 1-based (zero_based='auto' saw no index 0 "
                "in the first block); pass zero_based=True for a 0-based file"
            )
        else:
            message = "feature index 0 is invalid with 1-based indices (zero_based=False)"
    elif code == K.E_INDEX_RANGE:
        message = _range_message(token.split(":", 1)[0], opt, base)
    elif code == K.E_EMPTY_VALUE:
        message = "empty value after ':', expected a number"
    elif code == K.E_VALUE:
        message = number_message(token, "feature value", "a numeric feature value after ':'")
    else:
        message = f"duplicate feature index {info} in this row"
    raise_at(message, opt.path, buf, pos, first_line)


def _range_message(index, opt, base):
    if opt.n_features is None:
        return f"feature index {index} exceeds the largest supported index {_MAX_INDEX}"
    n = opt.n_features
    allowed = f"0..{n - 1} (0-based)" if base == 0 else f"1..{n} (1-based)"
    return f"feature index {index} is out of range for n_features={n}: expected {allowed}"


def _raise_duplicate(buf, first_line, opt, line_start):
    """Locate the first feature token of the line that repeats an earlier index."""
    line_end = buf.find(b"\n", line_start)
    line = buf[line_start : len(buf) if line_end < 0 else line_end].split(b"#", 1)[0]
    seen = set()
    pos = 0
    for token in line.split():
        pos = line.index(token, pos)
        if b":" in token:  # labels never hold ':'; feature tokens always do
            index = int(token.split(b":", 1)[0])
            if index in seen:
                raise_at(
                    f"duplicate feature index {index} in this row",
                    opt.path,
                    buf,
                    line_start + pos,
                    first_line,
                )
            seen.add(index)
        pos += len(token)


def load_libsvm(path, n_features=None, dtype=np.float64, zero_based="auto", multilabel=False):
    """Load a LIBSVM / SVMlight text file into a CSR matrix.

    Each data line is ``label index:value index:value ... [# comment]``; blank
    lines and lines starting with ``#`` are skipped. Lines end with ``\\n``,
    ``\\r\\n`` or (old Mac OS) ``\\r``, even mixed in one file. Files compressed with gzip, bzip2
    or xz (by suffix or magic bytes) are read transparently. The
    text is parsed by a compiled kernel; values equal Python's ``float`` of
    the token (correctly rounded).

    Parameters
    ----------
    path : str or os.PathLike
    n_features : int, optional
        Number of columns. Any index beyond it is an error. Default: one past
        the largest column present.
    dtype : floating dtype, default float64
        Dtype of ``X.data``; labels are always float64.
    zero_based : {"auto", False, True}, default "auto"
        False: indices are 1-based (LIBSVM convention), index ``i`` is column
        ``i - 1``, and index 0 is an error. True: index ``i`` is column ``i``.
        "auto": 0-based if any index 0 appears in the file, else 1-based (as
        scikit-learn decides it).
    multilabel : bool, default False
        Labels are comma-separated integers (``1,3,7``, or empty when the line
        starts with a feature), read exactly within the int64 range; ``y`` is
        then a list of sorted tuples of ints.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Sorted column indices, no duplicates, explicit zeros kept as written.
    y : ndarray of float64 of shape (n_samples,), or list of tuples of int

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    olearn.exceptions.DataFormatError
        On any malformed line, naming file, line, column and what was
        expected: non-numeric label or value, NaN or infinite numbers, a
        feature without ':', an empty index or value, an index that is not a
        non-negative integer, index 0 in a 1-based file, an index beyond
        ``n_features``, or an index repeated within a row, an integer label
        that float64 cannot hold exactly (``100000000000000001``) or a
        multilabel label beyond the int64 range. ``qid:`` tokens are rejected
        (ranking data is out of scope). A truncated or corrupt compressed
        stream raises it too, naming the file.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import load_libsvm
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:2\\n# a comment line\\n-1 2:1.5\\n")
    >>> X, y = load_libsvm(path)
    >>> X.toarray()
    array([[0.5, 0. , 2. ],
           [0. , 1.5, 0. ]])
    >>> y
    array([ 1., -1.])
    """
    opt = _Options(path, n_features, dtype, zero_based, multilabel)
    buf = read_text(opt.path)
    rows = _parse_whole(np.frombuffer(buf, np.uint8), buf, line_windows(buf, _DEFAULT_BLOCK_SIZE), 0, opt)
    return rows.to_csr(opt.n_features, copy=False), rows.y


def iter_libsvm(
    path,
    chunk_size=100_000,
    n_features=None,
    dtype=np.float64,
    zero_based="auto",
    multilabel=False,
    block_size=_DEFAULT_BLOCK_SIZE,
    threads=1,
):
    """Stream a LIBSVM / SVMlight file as chunks of ``chunk_size`` rows.

    The file is read ``block_size`` bytes at a time, cut at line boundaries
    and parsed by the same kernel as :func:`load_libsvm`, so memory stays
    bounded by about one chunk plus one block. Each chunk's rows are parsed into arrays of its own, which the matrix keeps.
    Errors name the global line.

    Parameters
    ----------
    path : str or os.PathLike
    chunk_size : int, default 100_000
        Rows per chunk; the last chunk holds the remainder.
    n_features : int, optional
        If given, every chunk has this many columns and larger indices are
        errors. If not, each chunk's ``shape[1]`` is one past the largest
        column *in that chunk* (the file's maximum is not known in advance).
    dtype, multilabel
        As in :func:`load_libsvm`.
    zero_based : {"auto", False, True}, default "auto"
        As in :func:`load_libsvm`, except that "auto" must decide before the
        whole file is seen: it decides on the first block holding a feature
        (0-based if an index 0 occurs there). An index 0 met later in a
        stream taken as 1-based is an error suggesting ``zero_based=True``.
    block_size : int, default 4 MiB
        Bytes read per step.
    threads : int, default 1
        Blocks parsed at once, each on a thread of its own (the parser
        releases the GIL, so they run on as many cores, while the caller
        works on the chunks already given). The chunks and errors are the
        same: the rows of the blocks are gathered into the same chunks, in
        file order, and the error raised is that of the first bad line of
        the file, after every chunk before it. Memory then holds about two
        chunks (the one given and the next, gathered meanwhile on a thread
        of its own) plus ``threads + 1`` blocks and their rows. A stream
        (standard input, a pipe) is parsed on one thread, as its bytes
        arrive.

    Yields
    ------
    X_chunk : scipy.sparse.csr_matrix
    y_chunk : ndarray of float64, or list of tuples of int

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data import iter_libsvm
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:1\\n-1 2:1\\n1 1:2 2:2\\n")
    >>> for X, y in iter_libsvm(path, chunk_size=2, n_features=2):
    ...     print(X.shape, y)
    (2, 2) [ 1. -1.]
    (1, 2) [1.]
    """
    chunks = iter_libsvm_rows(path, chunk_size, n_features, dtype, zero_based, multilabel, block_size, threads)
    return ((X.tocsr(), y) for X, y in chunks)


def iter_libsvm_rows(path, chunk_size=100_000, n_features=None, dtype=np.float64, zero_based="auto", multilabel=False,
                     block_size=_DEFAULT_BLOCK_SIZE, threads=1):
    """:func:`iter_libsvm`, whose chunks are :class:`~olearn._sparse.CSRRows` (the command line's: no scipy)."""
    chunk_size = check_int("chunk_size", chunk_size, 1)
    block_size = check_int("block_size", block_size, 1)
    threads = check_int("threads", threads, 1)
    opt = _Options(path, n_features, dtype, zero_based, multilabel)
    windows = iter_line_windows(opt.path, block_size)
    chunks = _parse_stream(windows, opt, chunk_size, as_they_come=once_input(opt.path) is not None, threads=threads)
    return ((rows.csr_rows(opt.n_features, copy=False), rows.y) for rows in chunks)


def _parse_stream(windows, opt, chunk_size, as_they_come, threads=1):
    """``Rows`` of ``chunk_size`` rows (the last: the rest) parsed from ``windows`` (see ``iter_line_windows``).

    ``as_they_come``: yield the rows of each window without waiting to fill a
    chunk (a stream, whose next bytes may take long to arrive). With
    ``zero_based="auto"`` the first window holding a feature decides the base.
    ``threads`` > 1 (not ``as_they_come``): parse that many windows at once
    (:func:`_parsed_windows`) and gather their rows into the same chunks, the
    next chunk while the caller has the one before.
    """
    if threads > 1 and not as_they_come:
        # gathered on a thread of its own too, while the caller works on the chunk before
        yield from in_order(rechunk(_parsed_windows(windows, opt, threads), chunk_size), unchanged, 1, 1, "olearn-gather")
        return
    chunk = _Chunk(opt, chunk_size)
    for arr, buf, start, end, first_line in windows:
        base, limit = _settled_base(arr, buf, start, end, first_line, opt)
        while start < end:
            start = chunk.parse(arr, buf, start, end, first_line, base, limit)
            if start < end or (as_they_come and len(chunk)):
                yield chunk.take()
    if len(chunk):
        yield chunk.take()


def _settled_base(arr, buf, start, end, first_line, opt):
    """``(base, limit)`` to parse a window with. With ``zero_based="auto"``, the first window holding a feature
    decides the base; a window before it (holding none) is parsed 0-based."""
    if opt.base is None:
        _parse_whole(arr, buf, [(start, end)], first_line, opt)
    base = 0 if opt.base is None else opt.base
    return base, opt.limit(base)


def _parsed_windows(windows, opt, threads):
    """The ``Rows`` of each of ``windows``, in file order, parsed on ``threads`` threads (:func:`._parallel.in_order`:
    at most ``threads + 1`` windows read ahead, errors in file order, the threads stopped on leaving early).

    The base is settled (``_settled_base``) as the windows are read, in order.
    A window whose parse fails is parsed again in its turn, here, a row at a
    time: its rows before the bad line are given (and the chunks they
    complete yielded) before its error is raised, as on one thread.
    """
    settled = ((window, *_settled_base(*window, opt)) for window in windows)
    for window, base, limit, rows in in_order(settled, _window_parser(opt), threads, threads + 1):
        if rows is None:
            yield from _rows_one_by_one(window, opt, base, limit)
        else:
            yield rows


def _window_parser(opt):
    """A function parsing a settled window ``(window, base, limit)`` into ``(window, base, limit, Rows)``; None for
    the rows if the parse fails. Its arrays are first sized a little above the last window's rows."""
    hint = [(1 << 10, 1 << 16)]

    def parse(settled):
        window, base, limit = settled
        chunk = _Chunk(opt, hint=hint[0])
        try:
            chunk.parse(*window, base, limit)
        except Exception:  # noqa: BLE001 - the window is parsed again in its turn, which raises the error there
            return window, base, limit, None
        rows = chunk.take()
        hint[0] = (len(rows) + len(rows) // 8 + 1, len(rows.data) + len(rows.data) // 8 + 1)
        return window, base, limit, rows

    return parse


def _rows_one_by_one(window, opt, base, limit):
    """The rows of ``window`` one at a time, as ``Rows``, until its parse raises its error."""
    arr, buf, start, end, first_line = window
    chunk = _Chunk(opt, max_rows=1)
    while start < end:
        start = chunk.parse(arr, buf, start, end, first_line, base, limit)
        if len(chunk):
            yield chunk.take()


def detect_zero_based(paths, block_size=_DEFAULT_BLOCK_SIZE, multilabel=False):
    """How ``zero_based="auto"`` decides for LIBSVM files read as one stream.

    The first block of ``block_size`` bytes that holds a feature, in the
    first of ``paths`` that holds one, decides: 0-based if an index 0 occurs
    there, else 1-based. This is the decision :func:`iter_libsvm` makes with
    "auto" for a single file; reading every file with the returned value keeps
    a later file from deciding otherwise (a train and a test file, the shards
    of one data set).

    Parameters
    ----------
    paths : str, os.PathLike, or a sequence of them
    block_size : int, default 4 MiB
    multilabel : bool, default False
        The labels are comma-separated sets, as in :func:`load_libsvm`.

    Returns
    -------
    bool or None
        True for 0-based, False for 1-based, None if no file holds a feature.

    Examples
    --------
    >>> import os, tempfile
    >>> from olearn.data._libsvm import detect_zero_based
    >>> folder = tempfile.mkdtemp()
    >>> train, test = os.path.join(folder, "train.svm"), os.path.join(folder, "test.svm")
    >>> with open(train, "w") as f:
    ...     _ = f.write("1 0:1 2:1\\n")
    >>> with open(test, "w") as f:
    ...     _ = f.write("1 1:1\\n")
    >>> detect_zero_based([train, test]), detect_zero_based(test)
    (True, False)
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    block_size = check_int("block_size", block_size, 1)
    for path in paths:
        opt = _Options(path, None, np.float64, "auto", multilabel)
        for arr, buf, start, end, first_line in iter_line_windows(opt.path, block_size):
            _parse_whole(arr, buf, [(start, end)], first_line, opt)
            if opt.base is not None:
                return opt.base == 0
    return None
