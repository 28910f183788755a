"""Compiled reading of a JSON batch body ``{"x": [{"name": number, ...}, ...], ...}`` and of its names' columns.

:func:`scan_batch` reads the bytes of a body of a strict, simple subset of
JSON and answers :data:`NOT_MINE` for anything else (its caller then reads the
body as it always does, which stays the reference and names every fault):

* the body is ``{"x": [obj, obj, ...] <rest>``, ``"x"`` the first key, JSON
  whitespace (space, tab, newline, carriage return) where JSON allows it; the
  rest is left to the caller;
* each ``obj`` is ``{}`` or ``{"key": number, ...}``, no key repeated; a key
  holds the bytes 0x20 to 0x7E but ``"`` and ``\\`` (no escape, ASCII only:
  its bytes are the UTF-8 of the name it decodes to);
* a number follows JSON's grammar ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?``
  with 18 significant digits at most (an integer of 19 digits, which orjson
  and json read otherwise, is not taken; zeros between the point and the first
  significant digit are no significant digits: a float's ``repr`` in
  [1e-4, 1e-2) has up to 20 digits after the point, and the route reads such a
  body by json, whose value of a float literal is ``float()``'s) and at most 5
  in the exponent, and is converted exactly as Python's ``float()`` of the
  literal: by Clinger's fast path when the integer of its significant digits
  is at most 2**53 and its decimal exponent, once the point is moved, in
  [-22, 22] (one multiplication or division by an exact power of ten, both
  operands exact, so the one rounding is the correct one), else by
  :func:`~olearn._kernels._eisel_lemire.eisel_lemire` (the 17 digits of a
  float's ``repr``); the few numbers that algorithm leaves undecided (a
  halfway point, a subnormal, an overflow, an exponent past its table) are
  listed as fix-ups, their byte spans, for the caller to convert by
  ``float()`` (so also a JSON integer: ``float()`` of its literal is
  ``float()`` of the ``int`` json makes of it, both correctly rounded). A
  zero is a zero whatever its exponent. JSON's integer ``-0`` is Python's
  ``int`` 0, so 0.0; ``-0.0`` and ``-0e0`` are floats, -0.0;
* at most ``max_batch`` objects, none empty of objects (``"x": []``), and at
  most ``max_features`` keys in an object.

:func:`packed_rows` then looks each key up in a table of names built by
:func:`insert_names` (open addressing over the FNV-1a hash of a name's UTF-8 bytes,
each candidate compared byte for byte, so that a hash collision never gives a
key another name's column) and writes the rows in CSR form, each row's columns
in increasing order; two names of one column in a row are :data:`NOT_MINE`, as is
an unknown name, unless it is left out (a batch to predict).
"""

import numpy as np

from ._eisel_lemire import eisel_lemire
from ._jit import njit
from ._parse_number import NUMBER_EXACT, NUMBER_FIXUP, NUMBER_INVALID, byte_at, is_digit, scan_digits

OK = 0
NOT_MINE = 1

# exactly representable powers of ten: 10**22 is the largest
_POW10 = np.array([10.0**e for e in range(23)])
_MAX_EXACT_MANTISSA = 2**53
_MAX_DIGITS = 18  # significant digits that always fit an int64
_DIGITS_CAP = 10**(_MAX_DIGITS - 1)  # scan_digits' cap: exact for 18 digits, and no overflow past them (refused)
_MAX_EXPONENT_DIGITS = 5
EMPTY = -1  # a free slot of the table
_INT32_MAX = 2**31 - 1
_FEW_KEYS = 32  # an object's keys compared pair by pair up to this many
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)

_QUOTE = 34
_BACKSLASH = 92
_COMMA = 44
_COLON = 58
_MINUS = 45
_PLUS = 43
_POINT = 46
_OPEN_BRACE = 123
_CLOSE_BRACE = 125
_OPEN_BRACKET = 91
_CLOSE_BRACKET = 93


@njit(cache=True)
def _skip_space(buf, i, end):
    """The offset of the first byte at or after ``i`` that is not JSON whitespace (or ``end``).

    Left to LLVM to inline: numba's own inlining (``inline="always"``) of this loop made the scan ten times
    slower."""
    while i < end:
        c = byte_at(buf, i)
        if c != 32 and c != 9 and c != 10 and c != 13:
            return i
        i += 1
    return i


@njit(cache=True)
def _json_number(buf, i, end):
    """``(stop, kind, value)`` of the JSON number at ``i``: ``kind`` ``NUMBER_EXACT`` for a number converted here
    (``value``), ``NUMBER_FIXUP`` for one left to Python's ``float()``, ``NUMBER_INVALID`` for bytes that are no
    JSON number or a number of a run of 19 digits (see the module's docstring)."""
    j = i
    negative = j < end and byte_at(buf, j) == _MINUS
    if negative:
        j += 1
    if j >= end or not is_digit(byte_at(buf, j)):
        return j, NUMBER_INVALID, 0.0
    mantissa = 0
    digits = 0
    if byte_at(buf, j) == 48:  # a leading zero is the whole integer part
        j += 1
        if j < end and is_digit(byte_at(buf, j)):
            return j, NUMBER_INVALID, 0.0
    else:
        stop, mantissa = scan_digits(buf, j, end, _DIGITS_CAP)
        digits = stop - j
        j = stop
        if digits > _MAX_DIGITS:
            return j, NUMBER_INVALID, 0.0
    is_float = False
    exponent = 0
    if j < end and byte_at(buf, j) == _POINT:
        is_float = True
        j += 1
        if j >= end or not is_digit(byte_at(buf, j)):
            return j, NUMBER_INVALID, 0.0
        while j < end and is_digit(byte_at(buf, j)):
            d = byte_at(buf, j) - 48
            if mantissa != 0 or d != 0:  # the zeros before the first significant digit count no digit
                mantissa = mantissa * 10 + d
                digits += 1
                if digits > _MAX_DIGITS:
                    return j, NUMBER_INVALID, 0.0
            exponent -= 1
            j += 1
    if j < end and (byte_at(buf, j) == 101 or byte_at(buf, j) == 69):
        is_float = True
        j += 1
        exponent_negative = False
        if j < end and (byte_at(buf, j) == _PLUS or byte_at(buf, j) == _MINUS):
            exponent_negative = byte_at(buf, j) == _MINUS
            j += 1
        stop, written = scan_digits(buf, j, end, _DIGITS_CAP)
        if stop == j or stop - j > _MAX_EXPONENT_DIGITS:
            return stop, NUMBER_INVALID, 0.0
        j = stop
        exponent += -written if exponent_negative else written
    if mantissa == 0:
        return j, NUMBER_EXACT, -0.0 if negative and is_float else 0.0
    if mantissa <= _MAX_EXACT_MANTISSA and -22 <= exponent <= 22:
        value = float(mantissa)
        if exponent >= 0:
            value = value * _POW10[exponent]
        else:
            value = value / _POW10[-exponent]
        return j, NUMBER_EXACT, -value if negative else value
    decided, value = eisel_lemire(mantissa, exponent)
    if not decided:
        return j, NUMBER_FIXUP, 0.0
    return j, NUMBER_EXACT, -value if negative else value


@njit(cache=True)
def name_hash(buf, start, end):
    """The 64-bit FNV-1a hash of the bytes ``buf[start:end]``, halved to a non-negative int64."""
    h = _FNV_OFFSET
    for k in range(start, end):
        h = (h ^ np.uint64(byte_at(buf, k))) * _FNV_PRIME
    return np.int64(h >> np.uint64(1))


@njit(cache=True)
def _same_bytes(a, a_start, a_end, b, b_start, b_end):
    """Whether ``a[a_start:a_end]`` and ``b[b_start:b_end]`` hold the same bytes."""
    if a_end - a_start != b_end - b_start:
        return False
    for k in range(a_end - a_start):
        if byte_at(a, a_start + k) != byte_at(b, b_start + k):
            return False
    return True


@njit(cache=True)
def _has_repeated_key(buf, keys, hashes, first, last):
    """Whether two of the keys ``first`` to ``last - 1`` (byte spans of ``buf``, with their hashes) are equal: the
    keys of an object of a few compared pair by pair, of a wider one in the order of their hashes (each key with
    those of the same hash after it), so that an object of thousands of keys takes no quadratic time."""
    if last - first <= _FEW_KEYS:
        for a in range(first, last):
            for b in range(a + 1, last):
                if hashes[a] == hashes[b] and _same_bytes(buf, keys[a, 0], keys[a, 1], buf, keys[b, 0], keys[b, 1]):
                    return True
        return False
    order = np.argsort(hashes[first:last]) + first
    for p in range(order.size):
        a = order[p]
        q = p + 1
        while q < order.size and hashes[order[q]] == hashes[a]:
            b = order[q]
            if _same_bytes(buf, keys[a, 0], keys[a, 1], buf, keys[b, 0], keys[b, 1]):
                return True
            q += 1
    return False


@njit(cache=True)
def _not_mine(spans, counts, keys, hashes, values, fixups):
    """:func:`scan_batch`'s answer for a body it does not take."""
    return NOT_MINE, 0, spans[:0], counts[:0], keys[:0], hashes[:0], values[:0], fixups[:0]


@njit(cache=True)
def scan_batch(buf, max_batch, max_features):
    """Read the examples of the batch body ``buf`` (uint8) of the subset of the module's docstring.

    Returns ``(status, x_end, spans, counts, keys, hashes, values, fixups)``: ``status`` :data:`OK` or
    :data:`NOT_MINE` (the rest is then empty), ``x_end`` the offset after the ``]`` of ``"x"``, ``spans`` an
    (n, 2) int64 array of each object's byte span (start, end), ``counts`` its number of keys, ``keys`` an
    (m, 2) array of each key's byte span (without its quotes), ``hashes`` its :func:`name_hash` and ``values``
    its number, in the body's order; ``fixups`` a (k, 3) array of the numbers left to Python's ``float()``
    (see the module's docstring): each one's byte span (start, end) and its place in ``values``.
    """
    end = buf.size
    spans = np.empty((end // 2 + 1, 2), dtype=np.int64)
    counts = np.empty(end // 2 + 1, dtype=np.int64)
    keys = np.empty((end // 4 + 1, 2), dtype=np.int64)
    hashes = np.empty(end // 4 + 1, dtype=np.int64)
    values = np.empty(end // 4 + 1, dtype=np.float64)
    fixups = np.empty((end // 4 + 1, 3), dtype=np.int64)
    n = 0
    m = 0
    n_fixups = 0
    i = _skip_space(buf, 0, end)
    if i + 4 > end or byte_at(buf, i) != _OPEN_BRACE:
        return _not_mine(spans, counts, keys, hashes, values, fixups)
    i = _skip_space(buf, i + 1, end)
    if i + 3 > end or byte_at(buf, i) != _QUOTE or byte_at(buf, i + 1) != 120 or byte_at(buf, i + 2) != _QUOTE:
        return _not_mine(spans, counts, keys, hashes, values, fixups)
    i = _skip_space(buf, i + 3, end)
    if i >= end or byte_at(buf, i) != _COLON:
        return _not_mine(spans, counts, keys, hashes, values, fixups)
    i = _skip_space(buf, i + 1, end)
    if i >= end or byte_at(buf, i) != _OPEN_BRACKET:
        return _not_mine(spans, counts, keys, hashes, values, fixups)
    i = _skip_space(buf, i + 1, end)
    while True:  # an object, then "," or "]"
        if i >= end or byte_at(buf, i) != _OPEN_BRACE or n >= max_batch:
            return _not_mine(spans, counts, keys, hashes, values, fixups)
        spans[n, 0] = i
        first = m
        i = _skip_space(buf, i + 1, end)
        if i < end and byte_at(buf, i) != _CLOSE_BRACE:
            while True:  # a key, ":", a number, then "," or "}"
                if i >= end or byte_at(buf, i) != _QUOTE or m - first >= max_features:
                    return _not_mine(spans, counts, keys, hashes, values, fixups)
                i += 1
                keys[m, 0] = i
                while i < end and byte_at(buf, i) != _QUOTE:
                    c = byte_at(buf, i)
                    if c < 32 or c > 126 or c == _BACKSLASH:
                        return _not_mine(spans, counts, keys, hashes, values, fixups)
                    i += 1
                if i >= end:
                    return _not_mine(spans, counts, keys, hashes, values, fixups)
                keys[m, 1] = i
                hashes[m] = name_hash(buf, keys[m, 0], i)
                i = _skip_space(buf, i + 1, end)
                if i >= end or byte_at(buf, i) != _COLON:
                    return _not_mine(spans, counts, keys, hashes, values, fixups)
                start = _skip_space(buf, i + 1, end)
                i, kind, value = _json_number(buf, start, end)
                if kind == NUMBER_INVALID:
                    return _not_mine(spans, counts, keys, hashes, values, fixups)
                if kind == NUMBER_FIXUP:
                    fixups[n_fixups, 0] = start
                    fixups[n_fixups, 1] = i
                    fixups[n_fixups, 2] = m
                    n_fixups += 1
                values[m] = value
                m += 1
                i = _skip_space(buf, i, end)
                if i < end and byte_at(buf, i) == _COMMA:
                    i = _skip_space(buf, i + 1, end)
                    continue
                if i < end and byte_at(buf, i) == _CLOSE_BRACE:
                    break
                return _not_mine(spans, counts, keys, hashes, values, fixups)
        if i >= end:
            return _not_mine(spans, counts, keys, hashes, values, fixups)
        if _has_repeated_key(buf, keys, hashes, first, m):
            return _not_mine(spans, counts, keys, hashes, values, fixups)
        i += 1
        spans[n, 1] = i
        counts[n] = m - first
        n += 1
        i = _skip_space(buf, i, end)
        if i < end and byte_at(buf, i) == _COMMA:
            i = _skip_space(buf, i + 1, end)
            continue
        if i < end and byte_at(buf, i) == _CLOSE_BRACKET:
            return OK, i + 1, spans[:n], counts[:n], keys[:m], hashes[:m], values[:m], fixups[:n_fixups]
        return _not_mine(spans, counts, keys, hashes, values, fixups)


@njit(cache=True)
def insert_names(slots, names, bounds, hashes, first, last):
    """Enter the names ``first`` to ``last - 1`` (byte spans ``bounds`` of ``names``) in the open-addressing table
    ``slots`` (a power of two in size, :data:`EMPTY` where free, else a name's number), their :func:`name_hash`
    written in ``hashes``: a name of the same bytes as one entered before takes its slot (the later one's column
    holds)."""
    mask = slots.size - 1
    for k in range(first, last):
        hashes[k] = name_hash(names, bounds[k, 0], bounds[k, 1])
        s = hashes[k] & mask
        while slots[s] != EMPTY:
            other = slots[s]
            if hashes[other] == hashes[k] and _same_bytes(names, bounds[other, 0], bounds[other, 1],
                                                          names, bounds[k, 0], bounds[k, 1]):
                break
            s = (s + 1) & mask
        slots[s] = k


@njit(cache=True)
def packed_rows(buf, counts, keys, key_hashes, values, slots, names, bounds, hashes, columns, drop_unknown):
    """The rows of a scanned batch (:func:`scan_batch`'s ``counts``, ``keys``, ``hashes`` and ``values`` of the
    body ``buf``) in the columns of a table of names (:func:`insert_names`; ``columns`` each name's):
    ``(status, indptr, indices, data, width)``, each row's columns in increasing order, ``width`` one more than
    the largest column (0 for none); ``status`` :data:`NOT_MINE` for two keys of one column in a row, or for a
    key the table lacks unless ``drop_unknown``, which leaves it out of its row (as a prediction reads a name
    it never learned: :meth:`~olearn._features.FeatureMap.known_rows` with ``drop_unknown``)."""
    n = counts.size
    m = values.size
    indptr = np.empty(n + 1, dtype=np.int64)
    indices = np.empty(m, dtype=np.int32)
    data = np.empty(m, dtype=np.float64)
    mask = slots.size - 1
    width = 0
    indptr[0] = 0
    at = 0  # the key read
    out = 0  # the entries written
    for row in range(n):
        start = out
        for k in range(counts[row]):
            s = key_hashes[at] & mask
            column = -1
            while slots[s] != EMPTY:
                other = slots[s]
                if hashes[other] == key_hashes[at] and _same_bytes(names, bounds[other, 0], bounds[other, 1],
                                                                   buf, keys[at, 0], keys[at, 1]):
                    column = columns[other]
                    break
                s = (s + 1) & mask
            value = values[at]
            at += 1
            if column < 0 and drop_unknown:
                continue
            if column < 0 or column > _INT32_MAX:
                return NOT_MINE, indptr[:0], indices[:0], data[:0], 0
            # insertion into the row's sorted columns
            p = out
            while p > start and indices[p - 1] > column:
                indices[p] = indices[p - 1]
                data[p] = data[p - 1]
                p -= 1
            if p > start and indices[p - 1] == column:
                return NOT_MINE, indptr[:0], indices[:0], data[:0], 0
            indices[p] = column
            data[p] = value
            width = max(width, column + 1)
            out += 1
        indptr[row + 1] = out
    return OK, indptr, indices[:out], data[:out], width
