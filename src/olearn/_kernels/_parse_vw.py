"""Compiled Vowpal Wabbit text parser with feature hashing.

Grammar of a data line (blank lines are skipped)::

    [label [importance]] ['tag | tag] |[namespace] feature[:value] ... |[namespace] ...

As in Vowpal Wabbit, the last token before the first '|' is the tag when it touches the bar (``1 2|a x``: label
1, tag ``2``, importance 1; ``1|a x``: tag ``1``, no label) or starts with ``'``; the other tokens are the label
and the importance weight, numbers. A word in their place (``1 yes | a``) is an error where Vowpal Wabbit 9 warns
and reads it as 0; a third number (VW's initial prediction) is an error too.

A feature's column is ``murmur3_32(name, seed=murmur3_32(namespace, seed=0))``
masked to ``n_bits`` bits (MurmurHash3 x86_32 over the UTF-8 bytes; the
default namespace is the empty string). Rows come out in file order and may
hold repeated columns; ``_parse_rows.sort_and_sum_rows`` merges them once the
deferred numbers are converted.
"""

import numpy as np
from numba import literal_unroll
from numba.cpython.unsafe.numbers import trailing_zeros

from ._jit import njit
from ._parse_codes import (
    C_FIXUPS,
    C_STATUS,
    FIX_DATA,
    FIX_LABEL,
    FIX_WEIGHT,
    OK,
)
from ._parse_number import (
    BAR,
    COLON,
    CR,
    NEWLINE,
    NUMBER_FIXUP,
    NUMBER_INVALID,
    QUOTE,
    SPACE,
    TAB,
    byte_at,
    fail,
    is_blank,
    scan_number,
)
from ._parse_vw_codes import (
    C_NNZ,
    C_ROWS,
    E_EMPTY_NAME,
    E_EMPTY_VALUE,
    E_HEADER,
    E_LABEL_WORD,
    E_NAMESPACE_WEIGHT,
    E_NEGATIVE_WEIGHT,
    E_NO_BAR,
    E_VALUE,
    E_WEIGHT_WORD,
    FULL_FIXUPS,
)

_MASK32 = 0xFFFFFFFF

# The bytes that end a feature's name: the blanks, the line break, '|' and ':'
_FEATURE_ENDS = (SPACE, TAB, CR, 11, 12, NEWLINE, BAR, COLON)
_ENDS_FEATURE = np.zeros(256, dtype=np.bool_)
_ENDS_FEATURE[list(_FEATURE_ENDS)] = True
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_SPREAD_ENDS = tuple(np.uint64(c * 0x0101010101010101) for c in _FEATURE_ENDS)


@njit(cache=True)
def _exact_bounds(buf, start, end):
    """Bounds for allocation: (non-blank lines, feature-token starts) in ``buf[start:end]``.

    Each non-blank line is one row of ``parse_vw``; every feature token
    follows a '|' or a blank after the line's first '|', so their count bounds
    the entries. Blank lines and the headers before '|' cost no allocation.
    """
    n_lines = 0
    n_separators = 0
    at_line_start = True  # nothing but blanks yet on this line
    in_features = False  # past the line's first '|'
    for i in range(start, end):
        c = byte_at(buf, i)
        if c == NEWLINE:
            at_line_start = True
            in_features = False
            continue
        if at_line_start and not is_blank(c):
            at_line_start = False
            n_lines += 1
        if c == BAR:
            in_features = True
            n_separators += 1
        elif in_features and is_blank(c):
            n_separators += 1
    return n_lines, n_separators


# Bytes the reader allocates at most per row (label, importance, indptr) and per entry (index, value)
_ROW_BYTES = 24
_ENTRY_BYTES = 16
# The quick bounds are taken while they allocate at most this many bytes per byte of text
_QUICK_BYTES_PER_BYTE = 4


@njit(cache=True)
def count_bounds(buf, start, end):
    """Upper bounds for allocation: (rows, entries) of ``parse_vw`` in ``buf[start:end]``.

    First quick ones: every row is a line, every feature token follows a '|'
    or a blank, so the newlines (plus one) and the '|' and blanks of the text
    bound them, counted with no branch per byte, a loop the compiler
    vectorises (0.04 s over 188 MB, against 0.26 s for the exact count). They
    also count blank lines and the blanks before a line's first '|': where
    those would make the allocation more than ``_QUICK_BYTES_PER_BYTE`` times
    the text (a file of blank lines, say), the exact count of
    :func:`_exact_bounds` is taken instead.
    """
    n_newlines = 0
    n_separators = 0
    for i in range(start, end):
        c = byte_at(buf, i)
        n_newlines += np.int64(c == NEWLINE)
        n_separators += np.int64((c == BAR) | (c == SPACE) | (c == TAB) | (c == CR) | (c == 11) | (c == 12))
    n_rows = n_newlines + 1
    if n_rows * _ROW_BYTES + n_separators * _ENTRY_BYTES <= _QUICK_BYTES_PER_BYTE * (end - start) + _ROW_BYTES:
        return n_rows, n_separators
    return _exact_bounds(buf, start, end)


@njit(cache=True, inline="always")
def _mul32(a, b):
    # (a * b) mod 2**32 for a, b < 2**32 without leaving the int64 range.
    return ((a & 0xFFFF) * b + ((((a >> 16) * b) & 0xFFFF) << 16)) & _MASK32


@njit(cache=True, inline="always")
def _rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK32


@njit(cache=True, inline="always")
def _mixed_block(k):
    """A block (or the tail) ``k`` of MurmurHash3 x86_32 as it is mixed into the state."""
    return _mul32(_rotl32(_mul32(k, 0xCC9E2D51), 15), 0x1B873593)


@njit(cache=True, inline="always")
def _next_state(h, k):
    """The state after the block ``k``."""
    return (_mul32(_rotl32(h ^ _mixed_block(k), 13), 5) + 0xE6546B64) & _MASK32


@njit(cache=True, inline="always")
def _finish(h, n):
    """The hash of ``n`` bytes from the state ``h`` after the blocks and the tail."""
    h ^= n
    h ^= h >> 16
    h = _mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = _mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@njit(cache=True)
def murmur3_32(buf, lo, hi, seed):
    """MurmurHash3 x86_32 of ``buf[lo:hi]`` with ``seed``, as a non-negative int."""
    h = seed & _MASK32
    n = hi - lo
    tail = lo + (n // 4) * 4
    for p in range(lo, tail, 4):
        k = (
            int(buf[p])
            | (int(buf[p + 1]) << 8)
            | (int(buf[p + 2]) << 16)
            | (int(buf[p + 3]) << 24)
        )
        h = _next_state(h, k)
    k = 0
    rest = hi - tail
    if rest == 3:
        k ^= int(buf[tail + 2]) << 16
    if rest >= 2:
        k ^= int(buf[tail + 1]) << 8
    if rest >= 1:
        k ^= int(buf[tail])
        h ^= _mixed_block(k)
    return _finish(h, n)


@njit(cache=True, inline="always")
def _murmur3_short(word, n, seed):
    """:func:`murmur3_32` of the first ``n`` < 8 bytes of the little-endian uint64 ``word``, without a branch on
    ``n``.

    A name of four bytes or more has one whole block, the low half of
    ``word``, mixed in or not by a select; the bytes after the blocks, zero
    above the name, are the tail (MurmurHash3 mixes in no tail when there is
    none, and a zero tail mixes in nothing: the same hash).
    """
    h = seed & _MASK32
    low = np.int64(word & np.uint64(_MASK32))
    whole = n >= 4
    h = _next_state(h, low) if whole else h
    tail = np.int64(word >> np.uint64(32)) if whole else low
    h ^= _mixed_block(tail & ((1 << (8 * (n & 3))) - 1))
    return _finish(h, n)


@njit(cache=True)
def name_columns(buf, spans, n_bits, out):
    """The column :func:`parse_vw` gives each feature name: ``spans[i]`` holds the byte ranges of its
    namespace and of its name in ``buf`` (namespace start, end, name start, end); ``out[i]`` receives
    the hash of the name seeded by the namespace's, modulo ``2**n_bits``."""
    mask = (1 << n_bits) - 1
    for i in range(spans.shape[0]):
        seed = murmur3_32(buf, spans[i, 0], spans[i, 1], 0)
        out[i] = murmur3_32(buf, spans[i, 2], spans[i, 3], seed) & mask


@njit(cache=True, inline="always")
def _load8(buf, i):
    """The eight bytes ``buf[i:i + 8]`` as a little-endian uint64 (one unaligned load once compiled)."""
    word = np.uint64(0)
    for b in range(8):
        word |= np.uint64(byte_at(buf, i + b)) << np.uint64(8 * b)
    return word


@njit(cache=True, inline="always")
def _bytes_equal(word, spread):
    """The high bit of each byte of ``word`` equal to the byte repeated in ``spread``, exact up to the first such
    byte (a byte after it may be flagged too): the classic zero-byte test of ``word ^ spread``."""
    x = word ^ spread
    return (x - _ONES) & ~x & _HIGHS


@njit(cache=True, inline="always")
def _ending_flags(word):
    """The high bit of the bytes of ``word`` that end a feature's name, exact up to the first (:func:`_bytes_equal`)."""
    flags = np.uint64(0)
    for spread in literal_unroll(_SPREAD_ENDS):
        flags |= _bytes_equal(word, spread)
    return flags


@njit(cache=True, inline="always")
def _feature_name_end(buf, i, end):
    """The first index at or after ``i`` whose byte ends a feature's name (``_FEATURE_ENDS``), or ``end``.

    Eight bytes at a time while they lie before ``end``: the bytes equal to each
    ending byte are flagged at once (:func:`_bytes_equal`) and the first flag
    found by counting trailing zeros, with no branch per byte.
    """
    while i + 8 <= end:
        flags = _ending_flags(_load8(buf, i))
        if flags:
            return i + (trailing_zeros(flags) >> 3)
        i += 8
    while i < end and not _ENDS_FEATURE[byte_at(buf, i)]:
        i += 1
    return i


@njit(cache=True, inline="always")
def _hash_feature_name(buf, i, end, seed):
    """``(stop, murmur3_32(buf[i:stop], seed))``, ``stop`` being :func:`_feature_name_end`'s.

    A name shorter than eight bytes (the common one) is found and hashed from
    one load of eight bytes (:func:`_murmur3_short`).
    """
    if i + 8 <= end:
        word = _load8(buf, i)
        flags = _ending_flags(word)
        if flags:
            n = trailing_zeros(flags) >> 3
            return i + n, _murmur3_short(word, n, seed)
    stop = _feature_name_end(buf, i, end)
    return stop, murmur3_32(buf, i, stop, seed)


@njit(cache=True, inline="always")
def _ends_name(buf, i, end):
    return i >= end or is_blank(byte_at(buf, i)) or byte_at(buf, i) == NEWLINE or byte_at(buf, i) == BAR


@njit(cache=True, inline="always", _nrt=False)
def put_fixup(fixups, n_fix, start, stop, kind, index):
    """Write row ``n_fix`` of ``fixups``: the number at ``buf[start:stop]`` goes to position ``index`` of the
    ``kind`` output (the caller has checked there is room)."""
    fixups[n_fix, 0] = start
    fixups[n_fix, 1] = stop
    fixups[n_fix, 2] = kind
    fixups[n_fix, 3] = index


# Compiled without numba's reference counting, as the LIBSVM parser: the parse allocates nothing (a
# full ``fixups`` stops it, and the caller parses again with more room), and the counts' calls made
# about two thirds of its time (0.24 s against 0.07-0.09 s over 1.2 million features).
@njit(cache=True, _nrt=False)
def parse_vw(buf, start, end, n_bits, indptr, indices, data, labels, weights, counts, fixups, hashes=None,
             spaces=None):
    """Parse the VW lines of ``buf[start:end]`` into hashed CSR arrays.

    Parameters
    ----------
    buf : uint8 array
    start, end : int
        Byte range; ``start`` is at a line start.
    n_bits : int
        Columns are hashes modulo ``2**n_bits``.
    indptr, indices, data, labels, weights : arrays
        Outputs, allocated from ``count_bounds``. A line without a label gets
        label NaN; without an importance, weight 1.
    counts : int64 array of length ``N_COUNTS``
        Output: status, error position and sizes (see ``C_*``).
    fixups : int64 array (m, 4)
        Output: numbers left to the Python conversion (rows written by
        ``put_fixup``). When it is full the parse stops with status
        ``FULL_FIXUPS``: parse again with one row per number of the text.
    hashes, spaces : int64 and uint8 arrays as long as ``indices``, or None
        Outputs if given: each entry's whole 32-bit hash, and the first byte of
        its namespace (a space for the default one), as
        :mod:`._interactions` needs them to cross namespaces.

    Returns nothing: the outputs are written in place (a kernel compiled
    without reference counting returns no array).
    """
    mask = (1 << n_bits) - 1
    row = 0
    k = 0
    n_fix = 0
    indptr[0] = 0
    counts[C_STATUS] = OK
    i = start
    while i < end:
        while i < end and is_blank(byte_at(buf, i)):
            i += 1
        if i >= end:
            break
        if byte_at(buf, i) == NEWLINE:
            i += 1
            continue
        labels[row] = np.nan
        weights[row] = 1.0
        n_numbers = 0
        tagged = False
        # Header: label, importance and tag, up to the first '|'.
        while True:
            while i < end and is_blank(byte_at(buf, i)):
                i += 1
            if i >= end or byte_at(buf, i) == NEWLINE:
                fail(counts, E_NO_BAR, i, n_fix)
                return
            if byte_at(buf, i) == BAR:
                break
            tok = i
            while not _ends_name(buf, i, end):
                i += 1
            if tagged:
                fail(counts, E_HEADER, tok, n_fix)
                return
            if buf[tok] == QUOTE:
                tagged = True
                continue
            if i < end and byte_at(buf, i) == BAR:
                tagged = True  # a token touching the bar is the tag, even a number (VW's reading)
                continue
            stop, kind, value = scan_number(buf, tok, i)
            if kind != NUMBER_INVALID and stop == i and n_numbers < 2:
                if n_numbers == 0:
                    labels[row] = value
                    if kind == NUMBER_FIXUP:
                        if n_fix >= fixups.shape[0]:
                            fail(counts, FULL_FIXUPS, tok, n_fix)
                            return
                        put_fixup(fixups, n_fix, tok, i, FIX_LABEL, row)
                        n_fix += 1
                else:
                    if value < 0:
                        fail(counts, E_NEGATIVE_WEIGHT, tok, n_fix)
                        return
                    weights[row] = value
                    if kind == NUMBER_FIXUP:
                        if n_fix >= fixups.shape[0]:
                            fail(counts, FULL_FIXUPS, tok, n_fix)
                            return
                        put_fixup(fixups, n_fix, tok, i, FIX_WEIGHT, row)
                        n_fix += 1
                n_numbers += 1
                continue
            # A word where a number goes, or a third number (VW's initial prediction): an error, named as the line's
            # missing '|' when it has none
            j = i
            while j < end and byte_at(buf, j) != NEWLINE and byte_at(buf, j) != BAR:
                j += 1
            if j >= end or byte_at(buf, j) != BAR:
                fail(counts, E_NO_BAR, j, n_fix)
            elif n_numbers == 2:
                fail(counts, E_HEADER, tok, n_fix)
            else:
                fail(counts, E_LABEL_WORD if n_numbers == 0 else E_WEIGHT_WORD, tok, n_fix)
            return
        # Namespaces: at a '|' here.
        while i < end and byte_at(buf, i) == BAR:
            i += 1
            ns = i
            while not _ends_name(buf, i, end):
                if byte_at(buf, i) == COLON:
                    fail(counts, E_NAMESPACE_WEIGHT, ns, n_fix)
                    return
                i += 1
            seed = murmur3_32(buf, ns, i, 0)
            letter = 32 if i == ns else buf[ns]  # VW names a namespace by its first byte
            while True:
                while i < end and is_blank(byte_at(buf, i)):
                    i += 1
                if i >= end or byte_at(buf, i) == NEWLINE or byte_at(buf, i) == BAR:
                    break
                tok = i
                i, column = _hash_feature_name(buf, i, end, seed)
                if i == tok:
                    fail(counts, E_EMPTY_NAME, tok, n_fix)
                    return
                value = 1.0
                if i < end and byte_at(buf, i) == COLON:
                    i += 1
                    if _ends_name(buf, i, end):
                        fail(counts, E_EMPTY_VALUE, i, n_fix)
                        return
                    stop, kind, value = scan_number(buf, i, end)
                    if kind == NUMBER_INVALID or not _ends_name(buf, stop, end):
                        fail(counts, E_VALUE, i, n_fix)
                        return
                    if kind == NUMBER_FIXUP:
                        if n_fix >= fixups.shape[0]:
                            fail(counts, FULL_FIXUPS, i, n_fix)
                            return
                        put_fixup(fixups, n_fix, i, stop, FIX_DATA, k)
                        n_fix += 1
                    i = stop
                indices[k] = column & mask
                if hashes is not None:
                    hashes[k] = column
                    spaces[k] = letter
                data[k] = value
                k += 1
        if i < end:
            i += 1  # the newline
        row += 1
        indptr[row] = k
    counts[C_ROWS] = row
    counts[C_NNZ] = k
    counts[C_FIXUPS] = n_fix
