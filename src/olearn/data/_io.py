"""Opening data files: transparent decompression, line endings, reading in line-aligned blocks.

Files are read, not memory-mapped: a mapped file that another process
truncates while it is parsed kills the reader with SIGBUS, and reading costs
no measurable time against the parse (one 187 MB run: 1.56-1.70 s read,
1.54-1.92 s mapped).
"""

import bz2
import contextlib
import gzip
import lzma
import os
import re
import stat
import zlib

import numpy as np

from olearn._config import format_bytes, get_config
from olearn.exceptions import DataFormatError

_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}
# bzip2 streams begin 'BZh', a block-size digit, then the 48-bit block magic
# (pi) or end-of-stream magic (sqrt pi); checking all of it keeps a text file
# that happens to start with "BZh" from being taken for bzip2.
_BZ2_BLOCK_MAGICS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
LF = b"\n"
CR = b"\r"
_LONE_CR = re.compile(rb"\r(?!\n)")
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark, which some editors write at the start of a text file


# the name standard input is read by, as Python names it: a location of the readers' errors (``<stdin>:3:5: ...``)
STDIN_NAME = "<stdin>"


class OnceInput:
    """An input that can be read only once: standard input, a FIFO, a pipe such as ``<(zcat data.svm.gz)``.

    Until :meth:`start` is called, every opening reads the input from its
    beginning: the bytes that format and index-base detection read are kept
    in memory. The one opening after :meth:`start` reads those kept bytes
    first and then the rest of the stream, keeping nothing; an opening after
    that is an error, since the bytes are gone. So the data are read exactly
    once, and detection costs no bytes.
    """

    def __init__(self, name, file):
        self.name = name
        self._file = file
        self._head = bytearray()
        self._exhausted = False
        self._started = False
        self._done = False

    def start(self):
        """The next opening is the reading of the data themselves (the last one)."""
        self._started = True

    def open(self):
        self._check_unread()
        if not self._started:
            return _Replay(self)
        self._done = True
        return _Rest(self)

    def peek(self, n):
        """The first ``n`` bytes, whatever was opened so far (as long as the data are not being read)."""
        self._check_unread()
        return self._head_bytes(n)

    def _check_unread(self):
        if self._done:
            raise OSError(f"{self.name}: a stream (standard input, a pipe, a FIFO) can be read only once, "
                          "and it was read already")

    def _head_bytes(self, n):
        """The first ``n`` bytes (fewer at the end of the stream), read from the stream and kept as needed."""
        while len(self._head) < n and not self._exhausted:
            block = self._file.read(n - len(self._head))
            if not block:
                self._exhausted = True
            self._head += block
        return bytes(self._head[:n])


class _Replay:
    """A reader of an OnceInput from its beginning that keeps what it reads (detection)."""

    def __init__(self, source):
        self._source = source
        self._pos = 0

    def read(self, n=-1):
        if n is None or n < 0:
            while not self._source._exhausted:
                self._source._head_bytes(len(self._source._head) + (1 << 20))
            n = len(self._source._head) - self._pos
        data = self._source._head_bytes(self._pos + n)[self._pos :]
        self._pos += len(data)
        return data

    def close(self):
        """Nothing to release: the bytes belong to the OnceInput, and the next reader replays them."""


class _Rest:
    """The last reader of an OnceInput: the kept bytes, then the stream, whatever has arrived (no waiting for more)."""

    def __init__(self, source):
        self._head = source._head
        self._file = source._file
        source._head = bytearray()
        self._pos = 0

    def read(self, n=-1):
        if self._pos < len(self._head):
            end = len(self._head) if n is None or n < 0 else min(len(self._head), self._pos + n)
            data = bytes(self._head[self._pos : end])
            self._pos = end
            if n is None or n < 0:
                data += self._file.read()
            return data
        if n is None or n < 0:
            return self._file.read()
        read1 = getattr(self._file, "read1", self._file.read)
        return read1(n)

    def close(self):
        self._file.close()


# the inputs that can be read only once, by the name their readers are given
_ONCE_INPUTS = {}


def is_stream(path):
    """Whether ``path`` is "-" (standard input) or names something other than a file or folder (a pipe, a FIFO)."""
    if os.fspath(path) == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def open_once(path, stdin=None):
    """Register ``path`` ("-": the binary stream ``stdin``) as an :class:`OnceInput`; return the name to read it by.

    Standard input is named :data:`STDIN_NAME`; a pipe or FIFO keeps its path. The
    readers of this package open a registered name through it.
    """
    path = os.fspath(path)
    if path == "-":
        name, file = STDIN_NAME, stdin
    else:
        name, file = path, open(path, "rb")
    _ONCE_INPUTS[name] = OnceInput(name, file)
    return name


def once_input(name):
    """The :class:`OnceInput` registered as ``name``, or None."""
    return _ONCE_INPUTS.get(os.fspath(name))


class ByteRange(str):
    """The bytes ``[start, stop)`` of the file at a path, read by this package's readers as a file of their own.

    The string is the file's path (what ``os.stat``, format and compression
    detection see); only the reading of its bytes (:func:`open_raw`) is
    limited to the range, so a range cut on line boundaries reads as the
    lines it holds. Line numbers in the readers' errors count from ``start``.
    """

    def __new__(cls, path, start, stop):
        text = super().__new__(cls, os.fspath(path))
        text.start, text.stop = int(start), int(stop)
        return text

    def __reduce__(self):
        return ByteRange, (str(self), self.start, self.stop)

    def open(self):
        f = open(str(self), "rb")
        f.seek(self.start)
        return _Bounded(f, self.stop - self.start)


class _Bounded:
    """A binary file's reader that ends after ``n`` bytes."""

    def __init__(self, file, n):
        self._file, self._left = file, n

    def read(self, n=-1):
        n = self._left if n is None or n < 0 else min(n, self._left)
        data = self._file.read(n)
        self._left -= len(data)
        return data

    def close(self):
        self._file.close()


@contextlib.contextmanager
def open_raw(path):
    """``path``'s bytes as stored (not decompressed): a registered :class:`OnceInput`'s reader, a
    :class:`ByteRange`'s, or the file."""
    if isinstance(path, ByteRange):
        with contextlib.closing(path.open()) as f:
            yield f
        return
    once = once_input(path)
    f = open(path, "rb") if once is None else once.open()
    try:
        yield f
    finally:
        if once is None:
            f.close()


def strip_compression_suffix(path):
    """The file name without a trailing ``.gz``/``.bz2``/``.xz`` (lower-cased suffix test)."""
    root, ext = os.path.splitext(os.fspath(path))
    return root if ext.lower() in _COMPRESSION_SUFFIXES else os.fspath(path)


def compression_of(path):
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``None``, from the suffix, else from magic bytes."""
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext in _COMPRESSION_SUFFIXES:
        return _COMPRESSION_SUFFIXES[ext]
    once = once_input(path)
    if once is not None:
        head = once.peek(10)
    else:
        with open(path, "rb") as f:
            head = f.read(10)
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in _BZ2_BLOCK_MAGICS:
        return "bz2"
    return None


@contextlib.contextmanager
def open_binary(path):
    """Open ``path`` for binary reading, decompressing it if needed.

    A damaged compressed stream raises DataFormatError naming the file
    ("truncated gzip stream", "corrupt xz stream: ..."), not the
    decompressor's EOFError, zlib.error, LZMAError or OSError. Errors of the
    operating system itself (a missing file, a failing disk) pass unchanged.
    """
    path = os.fspath(path)
    kind = compression_of(path)
    if kind is None:
        with open_raw(path) as f:
            yield f
        return
    try:
        with open_raw(path) as raw, _OPENERS[kind](raw, "rb") as f:
            yield f
    except EOFError:
        raise DataFormatError(f"truncated {kind} stream (it ends before its end marker)", path) from None
    except (zlib.error, lzma.LZMAError) as e:
        raise DataFormatError(f"corrupt {kind} stream: {e}", path) from None
    except OSError as e:
        if e.errno is not None:  # the system's error, not the decompressor's (errno None)
            raise
        raise DataFormatError(f"corrupt {kind} stream: {e}", path) from None


def to_lf(data):
    """``data`` with every line break ending in ``\\n``: each lone ``\\r`` becomes ``\\n``, a ``\\r\\n`` stays.

    This is the one line-ending rule of every reader (LIBSVM, CSV, VW, CoNLL),
    the universal newlines of Python's text files (which read the cost
    files): a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, wherever it is
    in the file, so a file mixing the three reads as its lines show in an
    editor, and line numbers in errors count them so. The parsers take the
    ``\\r`` of a ``\\r\\n`` for a blank.
    """
    if CR not in data:
        return data
    return _LONE_CR.sub(LF, data)


def read_text(path):
    """The whole (decompressed) content of ``path``, without a leading UTF-8 BOM, line breaks read by :func:`to_lf`."""
    with open_binary(path) as f:
        data = f.read()
    return to_lf(data.removeprefix(BOM))


def read_head(path, n_bytes=65536):
    """At most ``n_bytes`` of the (decompressed) start of ``path``, read as by :func:`read_text`."""
    return read_start(path, n_bytes)[0]


def read_start(path, n_bytes):
    """``(text, whole)``: :func:`read_head`'s text and whether it is the whole file (the text may be shorter
    than ``n_bytes`` without being whole: a leading BOM is skipped)."""
    with open_binary(path) as f:
        data = _first_read(f, n_bytes)
        whole = not f.read(1)
    return to_lf(data), whole


def _first_read(f, n_bytes):
    """The first read of ``f``, at most ``n_bytes`` bytes but enough to tell a leading UTF-8 BOM, which is skipped.

    A file may start with a BOM (Windows editors write one); every reader
    skips it, so that it is not read as part of the first label, feature name
    or CSV header name.
    """
    data = f.read(max(n_bytes, len(BOM)))
    while len(data) < len(BOM) and BOM.startswith(data):
        more = f.read(len(BOM) - len(data))
        if not more:
            break
        data += more
    if data == BOM:
        return f.read(n_bytes)
    return data.removeprefix(BOM)


def iter_line_blocks(path, block_size):
    """Yield ``(buf, end, first_line)`` covering the file in whole lines.

    ``buf[:end]`` holds complete lines (the last block may lack a final
    newline); ``first_line`` is the 0-based number of the file line at
    ``buf[0]``, so errors can name global line numbers. A line longer than
    ``block_size`` is read whole before it is yielded; the blocks of such a
    line are joined once, so reading stays linear in the file size. Such a
    line is refused (a DataFormatError naming it) as soon as more than
    ``max_line_bytes`` (:func:`olearn.set_config`) of it are held, so a file
    without line breaks is not read whole into memory. Line breaks are read
    by :func:`to_lf`.
    """
    line = 0
    pending = []  # blocks read since the last yielded line break
    held = 0  # their bytes
    limit = get_config()["max_line_bytes"]
    for block in _blocks(path, block_size):
        first = block.find(LF)
        _check_line_length(held + (len(block) if first < 0 else first), limit, path, line)
        pending.append(block)
        if first < 0:
            held += len(block)
            continue
        cut = block.rfind(LF) + 1
        buf = b"".join(pending) if len(pending) > 1 else block
        end = len(buf) - (len(block) - cut)
        yield buf, end, line
        line += buf.count(LF, 0, end)
        pending = [buf[end:]] if end < len(buf) else []
        held = len(buf) - end
    if pending:
        carry = b"".join(pending)
        yield carry, len(carry), line


def _blocks(path, block_size):
    """The bytes of ``path`` in reads of ``block_size``, read as by :func:`read_text` (no leading BOM, ``\\n`` breaks).

    A ``\\r`` that ends a read is held until the next byte is read, which
    tells a ``\\r\\n`` cut between two reads (one line break) from a lone ``\\r``.
    """
    held_cr = b""
    with open_binary(path) as f:
        block = _first_read(f, block_size)
        while True:
            if not block:
                if held_cr:
                    yield LF
                return
            block = held_cr + block if held_cr else block
            held_cr = CR if block.endswith(CR) else b""
            if held_cr:
                block = block[:-1]
            if block:
                yield to_lf(block)
            block = f.read(block_size)


def iter_line_windows(path, block_size):
    """Cover ``path`` in whole lines, as ``iter_line_blocks`` does, yielding ``(arr, buf, start, end, first_line)``.

    ``buf[start:end]`` holds whole lines (``arr`` is ``buf`` as a read-only
    uint8 array) and ``first_line`` is the number of file lines before
    ``buf[0]``. No block is copied: a block's lines after its first line
    break are a window of the block as read, and the line that spans two
    blocks is a window of its own (the only bytes joined), refused past
    ``max_line_bytes`` as in ``iter_line_blocks``. Opening happens at the
    call, so a missing file raises FileNotFoundError there.
    """
    compression_of(path)
    return _windows(path, block_size)


def _windows(path, block_size):
    line = 0  # the number of the line that starts the carried bytes
    carry = []  # the bytes of the line begun in the blocks before, which hold no line break after it
    carried = 0  # their bytes
    limit = get_config()["max_line_bytes"]
    scratch = np.empty(0, dtype=bool)
    for block in _blocks(path, block_size):
        first = block.find(LF)
        if first < 0:
            carry.append(block)
            carried += len(block)
            _check_line_length(carried, limit, path, line)
            continue
        _check_line_length(carried + first, limit, path, line)
        last = block.rfind(LF) + 1
        if carry:
            seam = b"".join(carry) + block[: first + 1]
            yield _window(seam, 0, len(seam), line)
            line += 1
            body = first + 1
        else:
            body = 0
        if body < last:
            yield _window(block, body, last, line - (body > 0))
            text = np.frombuffer(block, np.uint8, count=last - body, offset=body)
            if scratch.size < text.size:
                scratch = np.empty(text.size, dtype=bool)
            line += int(np.count_nonzero(np.equal(text, LF[0], out=scratch[: text.size])))
        carry = [block[last:]] if last < len(block) else []
        carried = len(block) - last
    if carry:
        rest = b"".join(carry)
        yield _window(rest, 0, len(rest), line)


def _check_line_length(n_bytes, limit, path, line):
    """Refuse line ``line`` (0-based) of ``path`` once ``n_bytes`` of it are held, if that is past ``limit``."""
    if n_bytes > limit:
        raise DataFormatError(f"the line is longer than max_line_bytes={format_bytes(limit)} (no line break in its "
                              f"first {limit:,} bytes); if the file is right, raise the limit with "
                              "olearn.set_config(max_line_bytes=...)", os.fspath(path), line + 1)


def _window(buf, start, end, first_line):
    return np.frombuffer(buf, np.uint8), buf, start, end, first_line


def line_windows(buf, block_size):
    """``(start, end)`` of the consecutive pieces of ``buf`` that hold whole lines, about ``block_size`` bytes each
    (a longer line whole); the last may lack a final line break."""
    size = len(buf)
    start = 0
    while start < size:
        end = start + block_size
        if end >= size:
            end = size
        else:
            cut = buf.rfind(LF, start, end)
            if cut < 0:
                cut = buf.find(LF, end)
            end = size if cut < 0 else cut + 1
        yield start, end
        start = end


