"""Opening data files: transparent decompression and reading in line-aligned blocks."""

import bz2
import gzip
import lzma
import os

_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}
# bzip2 streams begin 'BZh', a block-size digit, then the 48-bit block magic
# (pi) or end-of-stream magic (sqrt pi); checking all of it keeps a text file
# that happens to start with "BZh" from being taken for bzip2.
_BZ2_BLOCK_MAGICS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


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


def open_binary(path):
    """Open ``path`` for binary reading, decompressing it if needed."""
    path = os.fspath(path)
    kind = compression_of(path)
    return open(path, "rb") if kind is None else _OPENERS[kind](path, "rb")


def read_bytes(path):
    """The whole (decompressed) content of ``path``."""
    with open_binary(path) as f:
        return f.read()


def read_head(path, n_bytes=65536):
    """At most ``n_bytes`` of the (decompressed) start of ``path``."""
    with open_binary(path) as f:
        return f.read(n_bytes)


def iter_line_blocks(path, block_size):
    """Yield ``(buf, end, first_line)`` covering the file in whole lines.

    ``buf[:end]`` holds complete lines (the last block may lack a final
    newline); ``first_line`` is the 0-based number of the file line at
    ``buf[0]``, so errors can name global line numbers. A line longer than
    ``block_size`` is read whole before it is yielded.
    """
    line = 0
    carry = b""
    with open_binary(path) as f:
        while True:
            block = f.read(block_size)
            if not block:
                break
            buf = carry + block if carry else block
            end = buf.rfind(b"\n") + 1
            if end == 0:
                carry = buf
                continue
            yield buf, end, line
            line += buf.count(b"\n", 0, end)
            carry = buf[end:]
    if carry:
        yield carry, len(carry), line
