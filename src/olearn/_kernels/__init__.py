"""Compiled per-example loops (numba).

A leaf package: it imports only numpy, numba and math (and the standard library
to place numba's cache), never anything above it. Kernels take arrays and
scalars only, in the order data -> labels -> state -> hyperparameters ->
outputs; outputs are preallocated by the caller. Choices (step rule, loss,
learning-rate schedule) enter as the small integer codes of
:mod:`olearn._kernels._codes`.

This module and the constants' modules (:mod:`._codes`, :mod:`._parse_codes`,
:mod:`._parse_vw_codes`, :mod:`._second_order_codes`, :mod:`._multiclass_codes`)
import no numba, so that a command whose kernels were compiled when olearn was
installed (:mod:`._compiled`) never starts numba. Each
kernel module takes its decorator from :mod:`._jit`, which places numba's cache.

:data:`SOURCE_KEY` is a hash of all the package's modules. It names numba's
cache directory (:mod:`._jit`) and stamps the kernels compiled at install
(:mod:`._compiled`): machine code compiled from other sources is never used.
"""

import hashlib
import os

_HERE = os.path.dirname(os.path.realpath(__file__))


def source_key(folder=_HERE):
    """A short hash of the names and contents of every module (``*.py``) in ``folder``."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as fh:
                digest.update(f"{name}\0{os.fstat(fh.fileno()).st_size}\0".encode())
                digest.update(fh.read())
    return digest.hexdigest()[:20]


SOURCE_KEY = source_key()

# What to tell of a slow first compile (:func:`notify_slow_compile`); read by :mod:`._jit`'s listener.
slow_compile_notice = {"callback": None, "delay": 1.0}


def notify_slow_compile(callback, delay=1.0):
    """Call ``callback(name)`` once, when numba has been compiling the kernel ``name`` for ``delay`` seconds.

    numba compiles a kernel on its first use when neither the kernels compiled
    at install (:mod:`._compiled`) nor numba's cache (:mod:`._jit`) has it for
    these sources and argument types; loading from the cache is no compile.
    A compile that ends within ``delay`` seconds calls nothing. The callback
    is called at most once (then forgotten), from a timer thread, while the
    compile goes on; ``callback=None`` calls nothing. Imports no numba: the
    command line sets it before any kernel is loaded.
    """
    slow_compile_notice.update(callback=callback, delay=delay)
