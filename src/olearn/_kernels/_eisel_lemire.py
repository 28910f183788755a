"""Correctly rounded conversion of a decimal ``w * 10**q`` to float64 by the Eisel-Lemire algorithm, when it can decide.

D. Lemire, "Number Parsing at a Gigabyte per Second", Software: Practice and
Experience 51(8), 2021, as Go's ``strconv`` (``eisel_lemire.go``) and Wuffs write
it (N. Tao, "The Eisel-Lemire ParseNumberF64 Algorithm", 2020): the 64-bit
integer ``w``, shifted until its top bit is set, is multiplied by a 128-bit
truncation of ``10**q`` (:data:`POWERS_OF_TEN`, its top bit set), first by
its high 64 bits, then, when the product's bits below the 54 kept ones are
within the error of that product of a carry, by all 128; the 54 bits then
give the float's 53 by rounding half to even. :func:`eisel_lemire` answers
``ok`` False where 128 bits do not decide (a product that may sit on a
halfway point or just across a carry), and for a result that is subnormal,
overflows, or a ``q`` outside the table: its caller then converts the
literal by Python's ``float()``. Where ``ok`` is True the value is the
correctly rounded one, ``float()``'s.
"""

import math

import numpy as np

from ._jit import njit

MIN_EXPONENT = -348
MAX_EXPONENT = 347


def _truncated_power_of_ten(q):
    """``(high, low)`` 64-bit halves of ``10**q`` scaled by a power of two into [2**127, 2**128), truncated."""
    if q >= 0:
        power = 10**q
        bits = power.bit_length()
        value = power << (128 - bits) if bits <= 128 else power >> (bits - 128)
    else:
        divisor = 10**-q
        value = (1 << (128 + divisor.bit_length())) // divisor
        value >>= max(value.bit_length() - 128, 0)
    return value >> 64, value & (2**64 - 1)


# row q - MIN_EXPONENT: the high and the low 64 bits of the truncated 10**q
POWERS_OF_TEN = np.array([_truncated_power_of_ten(q) for q in range(MIN_EXPONENT, MAX_EXPONENT + 1)], dtype=np.uint64)

_LOW_32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U9 = np.uint64(9)
_LOW_9 = np.uint64(0x1FF)
_ALL_ONES = np.uint64(2**64 - 1)
_TOP_BIT = np.uint64(2**63)
_IMPLICIT_BIT = np.uint64(2**53)


@njit(cache=True)
def _product(a, b):
    """``(high, low)`` 64-bit halves of the 128-bit product of the uint64 ``a`` and ``b``."""
    a_low, a_high = a & _LOW_32, a >> _U32
    b_low, b_high = b & _LOW_32, b >> _U32
    low_low = a_low * b_low
    low_high = a_low * b_high
    high_low = a_high * b_low
    middle = (low_low >> _U32) + (low_high & _LOW_32) + (high_low & _LOW_32)
    high = a_high * b_high + (low_high >> _U32) + (high_low >> _U32) + (middle >> _U32)
    return high, (middle << _U32) | (low_low & _LOW_32)


@njit(cache=True)
def _normalized(w):
    """``(w << shift, shift)`` for the uint64 ``w`` > 0, shifted until its top bit is set."""
    shift = 0
    for step in (32, 16, 8, 4, 2, 1):
        if w < (_U1 << np.uint64(64 - step)):
            w <<= np.uint64(step)
            shift += step
    return w, shift


@njit(cache=True)
def eisel_lemire(w, q):
    """``(ok, value)``: ``value`` the float64 nearest ``w * 10**q`` (``w`` an int64 > 0, ``q`` an int), ties to
    even, when ``ok``; ``ok`` False where the algorithm does not decide (see the module's docstring)."""
    if q < MIN_EXPONENT or q > MAX_EXPONENT:
        return False, 0.0
    w, shift = _normalized(np.uint64(w))
    exponent = ((217706 * q) >> 16) + 64 + 1023 - shift  # floor(q log2(10)) + 64 + the bias, less the shift
    power_high = POWERS_OF_TEN[q - MIN_EXPONENT, 0]
    power_low = POWERS_OF_TEN[q - MIN_EXPONENT, 1]
    high, low = _product(w, power_high)
    if high & _LOW_9 == _LOW_9 and low + w < w:  # the product's error may carry into the kept bits
        low_high, low_low = _product(w, power_low)
        merged_low = low + low_high
        if merged_low < low:
            high += _U1
        if high & _LOW_9 == _LOW_9 and merged_low == _ALL_ONES and low_low + w < w:
            return False, 0.0
        low = merged_low
    top = high >> np.uint64(63)
    mantissa = high >> (top + _U9)  # 54 bits: the 53 of the float and the one that rounds them
    exponent -= 1 - int(top)
    if low == _U0 and high & _LOW_9 == _U0 and mantissa & np.uint64(3) == _U1:  # maybe a halfway point
        return False, 0.0
    mantissa = (mantissa + (mantissa & _U1)) >> _U1
    if mantissa >= _IMPLICIT_BIT:  # rounded up to the next power of two
        mantissa >>= _U1
        exponent += 1
    if exponent < 1 or exponent > 2046:  # subnormal or infinite
        return False, 0.0
    return True, math.ldexp(float(mantissa), exponent - 1075)
