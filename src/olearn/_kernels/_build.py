"""Compile the kernels of :data:`._compiled.KERNELS` ahead of time, with ``numba.pycc``.

olearn's ``setup.py`` calls :func:`extension` when it builds olearn; ``python -m
olearn._kernels._build DIR`` writes the extension module into ``DIR`` (a source tree
run without installing: ``DIR`` is this folder). Each kernel is compiled from the
same function, for the same argument types, as the numba kernel it stands for; the
module also answers ``source_key()``, the stamp :mod:`._compiled` compares.

Where the build machine's CPU can be identified (:func:`._compiled.cpu_identity`) the
machine code targets that CPU, as numba's kernels do, and the module is named after it
(:func:`._compiled.extension_name`), so that only a CPU of that identity imports it;
elsewhere it targets the generic CPU of the platform.
"""

import sys
import warnings

from numba import from_dtype, types
from numba.core.errors import NumbaPendingDeprecationWarning

from ._compiled import KERNELS, _numba_kernel, cpu_identity, extension_name, key_number, parse_type

with warnings.catch_warnings():
    # numba announces that pycc will be replaced; it is what compiles ahead of time today
    warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
    from numba.pycc import CC

KEY = key_number()


def numba_type(code):
    """The numba type of one argument type of :data:`._compiled.KERNELS`."""
    kind, dtype, ndim, read_only = parse_type(code)
    if kind == "none":
        return types.none
    if kind == "scalar":
        return from_dtype(dtype)
    return types.Array(from_dtype(dtype), ndim, "C", readonly=read_only)


def _source_key():
    return KEY


def caller(kernel, n_args):
    """A function of ``n_args`` arguments returning ``kernel`` of them, to export.

    pycc's own pipeline types a function it is given otherwise than numba's
    dispatcher does (an index unified to float64, for one); a function that calls
    the dispatcher gets the dispatcher's typing and compiled kernel.
    """
    names = ", ".join(f"a{i}" for i in range(n_args))
    scope = {"kernel": kernel}
    exec(f"def call({names}):\n    return kernel({names})\n", scope)  # noqa: S102 - the source is the line above
    return scope["call"]


def compiler():
    """A ``numba.pycc.CC`` with every kernel of :data:`KERNELS` and ``source_key`` exported."""
    identity = cpu_identity()
    cc = CC(extension_name(identity), source_module=__name__)
    cc.target_cpu = "host" if identity else "generic"
    for name, (_, codes) in KERNELS.items():
        kernel = _numba_kernel(name)
        argtypes = tuple(numba_type(code) for code in codes.split())
        kernel.compile(argtypes)  # numba's own typing of the kernel decides what it returns
        cc.export(name, kernel.overloads[argtypes].signature)(caller(kernel, len(argtypes)))
    cc.export("source_key", types.int64())(_source_key)
    return cc


def extension():
    """The setuptools ``Extension`` that builds the module in this package."""
    return compiler().distutils_extension()


if __name__ == "__main__":
    cc = compiler()
    cc.output_dir = sys.argv[1]
    cc.compile()
