"""Compiled scanning of decimal numbers and bytes, shared by the text parsers.

Correctly rounded decimal-to-binary conversion of *every* input needs
big-integer arithmetic, which numba does not offer. ``scan_number`` therefore
converts exactly only Clinger's fast path -- a mantissa of at most 2**53 and a
decimal exponent in [-22, 22], where both operands of one IEEE multiplication or
division are exact, so the single rounding is the correct one -- and reports any
other well-formed number as ``NUMBER_FIXUP``. The parsers record such tokens
and the Python layer converts them with NumPy's (correctly rounded) string
conversion, so every value read equals ``float(token)``.

The parsers also share the bookkeeping around that: the fix-up rows
(``add_fixup``) and the leading slots of their ``counts`` output (``C_*``
below: status, error position and detail, number of fix-ups), which ``fail``
fills on a format error.
"""

import numpy as np

from ._jit import njit
from ._parse_codes import C_ERR_INFO, C_ERR_POS, C_FIXUPS, C_STATUS

NUMBER_INVALID = 0
NUMBER_EXACT = 1
NUMBER_FIXUP = 2

# Exactly representable powers of ten: 10**22 is the largest below 2**53 * 2**22.
_POW10 = np.array([10.0**e for e in range(23)])
_MAX_EXACT_MANTISSA = 2**53
# Eighteen decimal digits always fit an int64; longer mantissas go to the fix-up.
_MAX_MANTISSA_DIGITS = 18
# Exponents beyond this over- or underflow anyway; capping avoids int overflow.
_EXPONENT_CAP = 100_000
_INT64_MAX = 2**63 - 1

SPACE = 32
TAB = 9
CR = 13
NEWLINE = 10
HASH = 35
COLON = 58
COMMA = 44
BAR = 124
QUOTE = 39


@njit(cache=True, inline="always")
def byte_at(buf, i):
    """``buf[i]`` for an offset ``i >= 0`` (every parser's is), read as unsigned.

    numba takes a negative signed index as counted from the end, so each
    ``buf[i]`` would test ``i < 0`` first; the parsers' byte loops are about
    a quarter faster without that test (issue #16).
    """
    return buf[np.uint64(i)]


@njit(cache=True, inline="always")
def is_blank(c):
    """Space, tab, carriage return, vertical tab or form feed (not newline)."""
    return c == SPACE or c == TAB or c == CR or c == 11 or c == 12


@njit(cache=True, inline="always")
def is_digit(c):
    return 48 <= c <= 57


@njit(cache=True)
def skip_line(buf, i, end):
    """Index just past the next newline at or after ``i`` (or ``end``)."""
    while i < end and byte_at(buf, i) != NEWLINE:
        i += 1
    return min(i + 1, end)


@njit(cache=True, inline="always")
def next_token(buf, i, end):
    """Skip the blanks at ``i`` of a line whose ``#`` starts a comment.

    Returns ``(j, line_done)``: ``j`` is the start of the next token of the
    line and ``line_done`` False, or, if the line holds no more tokens (a
    newline, a comment or the end of the buffer comes first), ``j`` is just
    past the line and ``line_done`` True.
    """
    while i < end and is_blank(byte_at(buf, i)):
        i += 1
    if i >= end:
        return i, True
    if byte_at(buf, i) == NEWLINE or byte_at(buf, i) == HASH:
        return skip_line(buf, i, end), True
    return i, False


@njit(cache=True, inline="always")
def scan_sign(buf, i, end):
    """Skip an optional ``+`` or ``-`` at ``byte_at(buf, i)``; returns ``(i, negative)``."""
    if i < end and (byte_at(buf, i) == 43 or byte_at(buf, i) == 45):
        return i + 1, byte_at(buf, i) == 45
    return i, False


@njit(cache=True, inline="always")
def scan_digits(buf, i, end, cap):
    """Read the decimal digits from ``byte_at(buf, i)``; returns ``(stop, value)``.

    No digit gives ``stop == i`` and value 0. Once the value reaches ``cap``
    further digits no longer change it, so it never overflows; callers pick a
    ``cap`` far beyond any value they accept.
    """
    value = 0
    while i < end and is_digit(byte_at(buf, i)):
        if value < cap:
            value = value * 10 + (byte_at(buf, i) - 48)
        i += 1
    return i, value


@njit(cache=True, inline="always")
def scan_int64(buf, i, end):
    """Read the decimal digits from ``byte_at(buf, i)`` exactly; returns ``(stop, value, fits)``.

    ``fits`` is False if the digits exceed ``2**63 - 1`` (``value`` is then
    meaningless); no digit gives ``stop == i``.
    """
    value = 0
    fits = True
    while i < end and is_digit(byte_at(buf, i)):
        d = byte_at(buf, i) - 48
        if fits and value <= (_INT64_MAX - d) // 10:
            value = value * 10 + d
        else:
            fits = False
        i += 1
    return i, value, fits


@njit(cache=True, inline="always")
def scan_number(buf, i, end):
    """Scan ``[+-]digits[.digits][(e|E)[+-]digits]`` starting at ``byte_at(buf, i)``.

    Returns ``(stop, kind, value)``: ``stop`` is the index after the last byte
    of the number, ``kind`` one of ``NUMBER_INVALID`` / ``NUMBER_EXACT`` /
    ``NUMBER_FIXUP``; ``value`` is meaningful only for ``NUMBER_EXACT``. The
    caller decides whether the byte at ``stop`` may end the token.

    The common plain decimal (``[-]digits[.digits]``, at most 18 digits in
    all, leading zeros included) is read by a short loop; its value is the
    general scan's (the same mantissa divided by the same power of ten),
    and anything else is left to the general scan.
    """
    j = i
    negative = j < end and byte_at(buf, j) == 45
    if negative:
        j += 1
    mantissa = 0
    n_digits = 0
    while j < end and is_digit(byte_at(buf, j)):
        mantissa = mantissa * 10 + (byte_at(buf, j) - 48)
        n_digits += 1
        j += 1
    n_fraction = 0
    if j < end and byte_at(buf, j) == 46:
        j += 1
        while j < end and is_digit(byte_at(buf, j)):
            mantissa = mantissa * 10 + (byte_at(buf, j) - 48)
            n_fraction += 1
            j += 1
    n_digits += n_fraction
    # Past 18 digits the mantissa may have wrapped: the general scan reads those.
    if (
        0 < n_digits <= _MAX_MANTISSA_DIGITS
        and mantissa <= _MAX_EXACT_MANTISSA
        and not (j < end and (byte_at(buf, j) == 101 or byte_at(buf, j) == 69))
    ):
        value = float(mantissa) / _POW10[n_fraction]
        return j, NUMBER_EXACT, -value if negative else value
    return _scan_number_general(buf, i, end)


@njit(cache=True)
def _scan_number_general(buf, i, end):
    """``scan_number`` for any number (signs, exponents, long mantissas)."""
    i, negative = scan_sign(buf, i, end)
    mantissa = 0
    n_digits = 0
    exp10 = 0
    seen_digit = False
    truncated = False
    while i < end and is_digit(byte_at(buf, i)):
        seen_digit = True
        d = byte_at(buf, i) - 48
        if mantissa != 0 or d != 0:  # leading zeros are no significant digits
            if n_digits < _MAX_MANTISSA_DIGITS:
                mantissa = mantissa * 10 + d
                n_digits += 1
            else:
                truncated = True
                exp10 += 1
        i += 1
    if i < end and byte_at(buf, i) == 46:
        i += 1
        while i < end and is_digit(byte_at(buf, i)):
            seen_digit = True
            d = byte_at(buf, i) - 48
            if mantissa == 0 and d == 0:
                exp10 -= 1
            elif n_digits < _MAX_MANTISSA_DIGITS:
                mantissa = mantissa * 10 + d
                n_digits += 1
                exp10 -= 1
            else:
                truncated = True
            i += 1
    if not seen_digit:
        return i, NUMBER_INVALID, 0.0
    if i < end and (byte_at(buf, i) == 101 or byte_at(buf, i) == 69):
        j, exp_negative = scan_sign(buf, i + 1, end)
        if j >= end or not is_digit(byte_at(buf, j)):
            return j, NUMBER_INVALID, 0.0
        i, e = scan_digits(buf, j, end, _EXPONENT_CAP)
        exp10 += -e if exp_negative else e
    if mantissa == 0:
        return i, NUMBER_EXACT, -0.0 if negative else 0.0
    if truncated or mantissa > _MAX_EXACT_MANTISSA or exp10 < -22 or exp10 > 22:
        return i, NUMBER_FIXUP, 0.0
    value = float(mantissa)
    if exp10 >= 0:
        value = value * _POW10[exp10]
    else:
        value = value / _POW10[-exp10]
    return i, NUMBER_EXACT, -value if negative else value


@njit(cache=True)
def grow_rows(a, n_needed):
    """``a`` itself if it has ``n_needed`` rows, else a copy with at least double the rows."""
    if n_needed <= a.shape[0]:
        return a
    bigger = np.empty((max(n_needed, 2 * a.shape[0]), a.shape[1]), a.dtype)
    # Element loops: a 2-d slice assignment costs seconds of compile time.
    for r in range(a.shape[0]):
        for c in range(a.shape[1]):
            bigger[r, c] = a[r, c]
    return bigger




@njit(cache=True, inline="always")
def add_fixup(fixups, n_fix, start, stop, kind, index):
    """Record row ``n_fix`` = ``(start, stop, kind, index)``: the number at
    ``buf[start:stop]`` goes to position ``index`` of the ``kind`` output.

    Returns ``fixups`` or a grown copy.
    """
    fixups = grow_rows(fixups, n_fix + 1)
    fixups[n_fix, 0] = start
    fixups[n_fix, 1] = stop
    fixups[n_fix, 2] = kind
    fixups[n_fix, 3] = index
    return fixups


@njit(cache=True, inline="always")
def fail(counts, code, pos, n_fix, info=0):
    """Record format error ``code`` at byte ``pos`` (with detail ``info``) in ``counts``.

    The fix-ups recorded so far all precede it; the caller still converts them,
    so that an earlier non-finite number is reported first.
    """
    counts[C_STATUS] = code
    counts[C_ERR_POS] = pos
    counts[C_ERR_INFO] = info
    counts[C_FIXUPS] = n_fix


@njit(cache=True)
def gather_spans(buf, spans, lo, hi, out):
    """Copy the byte spans ``spans[lo:hi]`` into the rows of ``out``, NUL-padded.

    Each span fits its row (the caller sizes ``out`` to the longest one).
    """
    out[:] = 0
    for r in range(lo, hi):
        start = spans[r, 0]
        for j in range(spans[r, 1] - start):
            out[r - lo, j] = buf[start + j]
