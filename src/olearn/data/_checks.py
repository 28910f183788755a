"""Argument checks shared by the readers and generators."""

import math
import numbers

import numpy as np


def check_int(name, value, low, high=None):
    """``int(value)`` if it is an integer in ``[low, high]``, else TypeError / ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return int(value)


def check_real(name, value, low, high=None):
    """``float(value)`` if it is a finite real in ``[low, high]``, else TypeError / ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not (math.isfinite(value) and value >= low and (high is None or value <= high)):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be a finite number {bounds}, got {value}")
    return float(value)


def check_float_dtype(dtype):
    """``np.dtype(dtype)`` if it is a floating-point type, else TypeError."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"dtype must be a floating-point type, got {dtype}")
    return dtype
