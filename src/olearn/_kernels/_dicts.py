"""The values of a dict example read in one compiled call, for the repeated rows of a stream.

A stream of dicts repeats its keys: every row of a River-style stream has the
same keys, in the same order, and usually the very same key objects (small
integers are shared, and the names come from one header or one literal). Once
:class:`olearn._features.FeatureMap` has converted such a row, the next one
needs only its values, read in the order of the keys and checked. In Python
that is one pass over the keys to compare them and one over the values to
pack them (about 1.5 us for 100 features); here it is one compiled loop over
the dict's own storage, through the interpreter's stable C API:

* ``PyDict_Next`` walks the entries in order; each key must be the very
  object (the same address) that the converted row had at that place, and
  the number of entries the same. The caller keeps those key objects alive,
  so an address cannot be taken by another object meanwhile; anything else
  (another dict, a key equal but not identical) answers :data:`OTHER_KEYS`,
  and the caller compares the keys in Python. The caller passes dicts only
  (``type(x) is dict``): a subclass may give its items otherwise than its
  storage holds them;
* ``PyFloat_AsDouble`` reads each value exactly as ``float(value)`` does for
  a number (and as ``struct.pack("d", value)``); a value it refuses (a str,
  None, an int too large) answers :data:`NOT_A_NUMBER` with the interpreter's
  error cleared, and a value that is not finite :data:`NOT_FINITE`: the
  caller then converts the row in full, which names the feature.

Only addresses are compared and only the C API reads objects, so no layout of
the interpreter's objects is assumed. The loop holds the GIL, as every
compiled call of olearn does.
"""

import ctypes

import llvmlite.binding as llvm
from numba import types

from ._jit import njit


# what dict_values answers
VALUES = 0
OTHER_KEYS = 1
NOT_A_NUMBER = 2
NOT_FINITE = 3

_LARGEST = 1.7976931348623157e308  # the largest finite float64

# the C functions of the running interpreter, made known to the compiled code by address
for _name in ("PyDict_Next", "PyFloat_AsDouble", "PyErr_Occurred", "PyErr_Clear"):
    llvm.add_symbol(_name, ctypes.cast(getattr(ctypes.pythonapi, _name), ctypes.c_void_p).value)

# pointers are passed as integers of their width (the calling convention is the same)
_dict_next = types.ExternalFunction("PyDict_Next", types.int32(types.intp, types.intp, types.intp, types.intp))
_as_double = types.ExternalFunction("PyFloat_AsDouble", types.float64(types.intp))
_error_occurred = types.ExternalFunction("PyErr_Occurred", types.intp())
_clear_error = types.ExternalFunction("PyErr_Clear", types.void())


@njit(cache=True, _nrt=False)
def dict_values(dict_address, key_addresses, out, scratch):
    """Read the values of the dict at ``dict_address`` into ``out``, if its keys are the objects ``key_addresses``.

    ``scratch`` is three ``np.intp`` slots (the width of a pointer and of
    ``Py_ssize_t``) for ``PyDict_Next``: position, key, value. Returns
    :data:`VALUES` when ``out`` holds the values, in the order of the keys,
    all finite; else :data:`OTHER_KEYS`, :data:`NOT_A_NUMBER` or
    :data:`NOT_FINITE` (``out`` then holds nothing of use).
    """
    return read_values(dict_address, key_addresses, out, scratch)


@njit(cache=True, inline="always")
def read_values(dict_address, key_addresses, out, scratch):
    """The loop of :func:`dict_values`, for the compiled calls that go on to learn from the values."""
    scratch[0] = 0
    base = scratch.ctypes.data
    step = scratch.itemsize
    n = key_addresses.size
    k = 0
    while _dict_next(dict_address, base, base + step, base + 2 * step):
        if k == n or scratch[1] != key_addresses[k]:
            return OTHER_KEYS
        value = _as_double(scratch[2])
        if value == -1.0 and _error_occurred() != 0:
            _clear_error()
            return NOT_A_NUMBER
        out[k] = value
        k += 1
    if k != n:
        return OTHER_KEYS
    n_bad = 0
    for k in range(n):
        n_bad += not (abs(out[k]) <= _LARGEST)  # NaN compares false too
    return NOT_FINITE if n_bad else VALUES
