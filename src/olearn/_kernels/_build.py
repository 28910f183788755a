"""Compile the kernels of :data:`._compiled.KERNELS` ahead of time, with ``numba.pycc``.

olearn's ``setup.py`` calls :func:`extension` when it builds olearn; ``python -m
olearn._kernels._build DIR`` writes the extension module into ``DIR`` (a source tree
run without installing: ``DIR`` is this folder). Each kernel is compiled from the
same function, for the same argument types, as the numba kernel it stands for, once
for each of its signatures (exported under :func:`._compiled.export_name`); the
module also answers ``source_key()``, the stamp :mod:`._compiled` compares.

Where the build machine's CPU can be identified (:func:`._compiled.cpu_identity`) the
machine code targets that CPU, as numba's kernels do, and the module is named after it
(:func:`._compiled.extension_name`), so that only a CPU of that identity imports it;
elsewhere it targets the generic CPU of the platform.

Every exported function releases the GIL while it runs, as a numba kernel compiled with
``nogil=True`` does (:class:`ReleasingCC`): the kernels touch no Python object, and so the
blocks of a file can be parsed on several threads at once. A numba whose pycc cannot be made
to release it fails the build, which setup.py turns into a warning and an install without the
extension (numba's kernels are used instead, compiled with ``nogil=True`` where it matters).
"""

import contextlib
import sys
import warnings

from numba import from_dtype, types
from numba.core.errors import NumbaPendingDeprecationWarning

from ._compiled import (KERNELS, _numba_kernel, cpu_identity, export_name, extension_name, key_number, parse_type,
                        signatures)

with warnings.catch_warnings():
    # numba announces that pycc will be replaced; it is what compiles ahead of time today
    warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
    from numba.pycc import CC
    from numba.pycc import compiler as pycc_compiler

KEY = key_number()


def numba_type(code):
    """The numba type of one argument type of :data:`._compiled.KERNELS`."""
    kind, dtype, ndim, read_only, any_layout = parse_type(code)
    if kind == "none":
        return types.none
    if kind == "scalar":
        return from_dtype(dtype)
    return types.Array(from_dtype(dtype), ndim, "A" if any_layout else "C", readonly=read_only)


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


@contextlib.contextmanager
def releasing_gil(compiled):
    """While in the block, pycc compiles every export with numba's ``release_gil`` flag (``nogil=True``).

    pycc compiles each exported function with ``numba.core.compiler.compile_extra`` and one
    ``Flags()`` of its own, which it gives no way to set; the flag makes numba's CPython wrapper
    of the function release the GIL around the call (and take it back before raising the
    function's exception). Each function compiled so is added to ``compiled``.
    """
    compile_extra = pycc_compiler.compile_extra

    def compile_releasing(typingctx, targetctx, func, args, return_type, flags, *rest, **options):
        flags.release_gil = True
        compiled.append(func)
        return compile_extra(typingctx, targetctx, func, args, return_type, flags, *rest, **options)

    pycc_compiler.compile_extra = compile_releasing
    try:
        yield
    finally:
        pycc_compiler.compile_extra = compile_extra


class ReleasingCC(CC):
    """A ``numba.pycc.CC`` whose exported functions release the GIL (see :func:`releasing_gil`).

    Both ways of building (``compile()`` and setup.py's ``build_ext``) compile the exports in
    ``_compile_object_files``; if a numba release compiles them otherwise, so that not every
    export went through :func:`releasing_gil`, the build fails rather than hold the GIL.
    """

    def _compile_object_files(self, build_dir):
        compiled = []
        with releasing_gil(compiled):
            built = super()._compile_object_files(build_dir)
        missed = [entry.symbol for entry in self._export_entries if entry.function not in compiled]
        if missed:
            raise RuntimeError(f"numba.pycc compiled {', '.join(missed)} without releasing the GIL")
        return built


def compiler():
    """A :class:`ReleasingCC` with every kernel of :data:`KERNELS`, for each of its signatures, and ``source_key``
    exported (each kernel under :func:`._compiled.export_name`)."""
    identity = cpu_identity()
    cc = ReleasingCC(extension_name(identity), source_module=__name__)
    cc.target_cpu = "host" if identity else "generic"
    for name in KERNELS:
        kernel = _numba_kernel(name)
        for n, codes in enumerate(signatures(name)):
            argtypes = tuple(numba_type(code) for code in codes)
            kernel.compile(argtypes)  # numba's own typing of the kernel decides what it returns
            cc.export(export_name(name, n), kernel.overloads[argtypes].signature)(caller(kernel, len(argtypes)))
    cc.export("source_key", types.int64())(_source_key)
    return cc


def extension():
    """The setuptools ``Extension`` that builds the module in this package."""
    return compiler().distutils_extension()


if __name__ == "__main__":
    cc = compiler()
    cc.output_dir = sys.argv[1]
    cc.compile()
