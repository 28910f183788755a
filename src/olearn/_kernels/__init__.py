"""Compiled per-example loops (numba).

A leaf package: it imports only numpy, numba and math, never anything above it.
Kernels take arrays and scalars only, in the order data -> labels -> state ->
hyperparameters -> outputs; outputs are preallocated by the caller. Choices (step
rule, loss, learning-rate schedule) enter as the small integer codes of
:mod:`olearn._kernels._codes`.
"""
