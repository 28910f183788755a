"""olearn's build: the package (configured in pyproject.toml) and the kernels compiled ahead of time.

The extension module ``olearn._kernels._precompiled...`` holds the kernels of the commonest runs,
compiled by ``numba.pycc`` from the same functions as the numba kernels, so that such a run starts
no numba (see ``olearn._kernels._compiled``). When it cannot be built (no ``numba.pycc`` in a future
numba, no C compiler) olearn is installed without it and compiles every kernel with numba at run
time, as it does for the kernels the extension does not hold.
"""

import os
import sys
import warnings

from setuptools import setup


def _warn(err):
    warnings.warn(f"olearn: the kernels compiled ahead of time are not built ({type(err).__name__}: {err}); "
                  "olearn will compile them with numba when they are first used", stacklevel=2)


def kernel_extensions():
    """``([extension], {"build_ext": command})``, or nothing when numba cannot compile ahead of time here."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
    try:
        from olearn._kernels._build import extension
        ext = extension()  # numba's build_ext, which compiles the kernels' object files, replaces setuptools'
    except Exception as err:  # noqa: BLE001 - any failure leaves the pure-Python install
        _warn(err)
        return [], {}
    finally:
        sys.path.pop(0)
    from setuptools.command.build_ext import build_ext

    class BuildKernels(build_ext):
        """numba's build_ext, a failure to build the kernels turned into a warning."""

        def build_extension(self, ext):
            try:
                super().build_extension(ext)
            except Exception as err:  # noqa: BLE001
                _warn(err)

    return [ext], {"build_ext": BuildKernels}


ext_modules, cmdclass = kernel_extensions()
setup(ext_modules=ext_modules, cmdclass=cmdclass)
