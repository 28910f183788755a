"""Opening data files: transparent decompression, line endings, reading in line-aligned blocks."""

import bz2
import contextlib
import gzip
import lzma
import os
import zlib

from olearn.exceptions import DataFormatError

_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}
# bzip2 streams begin 'BZh', a block-size digit, then the 48-bit block magic
# (pi) or end-of-stream magic (sqrt pi); checking all of it keeps a text file
# that happens to start with "BZh" from being taken for bzip2.
_BZ2_BLOCK_MAGICS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
LF = b"\n"
CR = b"\r"


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
        with open(path, "rb") as f:
            yield f
        return
    try:
        with _OPENERS[kind](path, "rb") as f:
            yield f
    except EOFError:
        raise DataFormatError(f"truncated {kind} stream (it ends before its end marker)", path) from None
    except (zlib.error, lzma.LZMAError) as e:
        raise DataFormatError(f"corrupt {kind} stream: {e}", path) from None
    except OSError as e:
        if e.errno is not None:  # the system's error, not the decompressor's (errno None)
            raise
        raise DataFormatError(f"corrupt {kind} stream: {e}", path) from None


def _lone_cr_first(data, more_follows):
    """Whether the first line break of ``data`` is a lone ``\\r`` (old Mac OS line endings).

    True or False, or None if ``data`` holds no line break yet, or ends in a
    ``\\r`` whose next byte (``more_follows``) decides between CR and CRLF.
    """
    lf = data.find(LF)
    cr = data.find(CR, 0, len(data) if lf < 0 else lf)
    if cr < 0:
        return None if lf < 0 else False
    if cr + 1 < len(data):
        return data[cr + 1 : cr + 2] != LF
    return None if more_follows else True


def _to_lf(data):
    return data.replace(CR, LF)


def read_text(path):
    """The whole (decompressed) content of ``path`` with ``\\n`` line breaks.

    A file whose first line break is a lone ``\\r`` (old Mac OS) has every
    ``\\r`` read as ``\\n``; otherwise (``\\n`` or ``\\r\\n``) the bytes are
    returned as they are, and the parsers take a ``\\r`` for a blank.
    """
    with open_binary(path) as f:
        data = f.read()
    return _to_lf(data) if _lone_cr_first(data, False) else data


def read_head(path, n_bytes=65536):
    """At most ``n_bytes`` of the (decompressed) start of ``path``, line breaks as in ``read_text``."""
    with open_binary(path) as f:
        data = f.read(n_bytes)
    return _to_lf(data) if _lone_cr_first(data, False) else data


def iter_line_blocks(path, block_size):
    """Yield ``(buf, end, first_line)`` covering the file in whole lines.

    ``buf[:end]`` holds complete lines (the last block may lack a final
    newline); ``first_line`` is the 0-based number of the file line at
    ``buf[0]``, so errors can name global line numbers. A line longer than
    ``block_size`` is read whole before it is yielded; the blocks of such a
    line are joined once, so reading stays linear in the file size. Line
    breaks are read as in ``read_text`` (lone ``\\r`` files are converted).
    """
    line = 0
    pending = []  # blocks read since the last yielded line break
    lone_cr = None  # decided at the file's first line break
    cr_tail = b""  # b"\r" if the previous block ended in a '\r' that is still undecided
    with open_binary(path) as f:
        while True:
            block = f.read(block_size)
            if lone_cr is None:
                # Undecided means no line break so far, except a final '\r'.
                lone_cr = _lone_cr_first(cr_tail + block, True) if block else bool(cr_tail)
                cr_tail = CR if lone_cr is None and block.endswith(CR) else b""
                if lone_cr:
                    pending = [_to_lf(p) for p in pending]
            if not block:
                break
            if lone_cr:
                block = _to_lf(block)
            cut = block.rfind(LF) + 1
            if cut == 0:
                pending.append(block)
                continue
            pending.append(block)
            buf = b"".join(pending) if len(pending) > 1 else block
            end = len(buf) - (len(block) - cut)
            yield buf, end, line
            line += buf.count(LF, 0, end)
            pending = [buf[end:]] if end < len(buf) else []
    if pending:
        carry = b"".join(pending)
        yield carry, len(carry), line
