"""numba's ``njit`` for the kernels of this package, their on-disk cache placed first.

numba's on-disk cache (``cache=True``) is keyed on the source of each kernel's
own file only, while kernels inline functions of other modules of this package:
after an edit, a ``git pull`` or an upgrade of olearn, the cached machine code of
an unchanged file could still hold the old inlined code. So every kernel of this
package is cached in a directory named after :data:`olearn._kernels.SOURCE_KEY`,
a hash of all the package's modules, and that hash is the source stamp numba
compares: any change to any module starts a fresh cache. The directory is
``olearn-kernels-<key>`` inside, in order of preference, the user's
``NUMBA_CACHE_DIR`` (when set, it is the only choice), the package's
``__pycache__``, or the user's cache folder (``$XDG_CACHE_HOME/olearn``,
``~/.cache/olearn``, ``~/Library/Caches/olearn`` or ``%LOCALAPPDATA%\\olearn``)
when the install location is read-only. Caches of older sources are never read
again and may be deleted.

Every kernel module imports ``njit`` from here, so the cache locator is
registered before its first kernel is decorated, and so is the listener that
tells :func:`olearn._kernels.notify_slow_compile`'s callback of a slow compile
(:class:`SlowCompileListener`).
"""

import os
import sys
import tempfile
import threading

from numba import njit
from numba.core import caching, config, event

from . import _HERE, SOURCE_KEY, slow_compile_notice

__all__ = ["njit"]

# recent numba releases name these without the underscore of older ones
_CacheImpl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
_CacheLocator = getattr(caching, "CacheLocator", None) or caching._CacheLocator


def _user_cache_root():
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        return os.path.join(os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local"), "olearn")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "olearn")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "olearn")


def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def first_writable(roots):
    """``<root>/olearn-kernels-<SOURCE_KEY>`` for the first root where it can be made and written, or None."""
    paths = (os.path.join(root, f"olearn-kernels-{SOURCE_KEY}") for root in roots)
    return next((path for path in paths if _writable(path)), None)


_cache_dir = []


def cache_dir():
    """The directory of the kernels' numba cache (chosen once per process), or None if none is writable."""
    if not _cache_dir:
        roots = [config.CACHE_DIR] if config.CACHE_DIR else [os.path.join(_HERE, "__pycache__"), _user_cache_root()]
        _cache_dir.append(first_writable(roots))
    return _cache_dir[0]


class KernelCacheLocator(_CacheLocator):
    """numba's cache locator for the functions of this package: :func:`cache_dir`, stamped :data:`SOURCE_KEY`."""

    def __init__(self, py_func):
        self._lineno = py_func.__code__.co_firstlineno

    def ensure_cache_path(self):
        """Nothing to do: :func:`cache_dir` made and tried the directory."""

    def get_cache_path(self):
        return cache_dir()

    def get_source_stamp(self):
        return SOURCE_KEY

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.dirname(os.path.realpath(py_file)) != _HERE or cache_dir() is None:
            return None
        return cls(py_func)


if KernelCacheLocator not in _CacheImpl._locator_classes:
    _CacheImpl._locator_classes.insert(0, KernelCacheLocator)


class SlowCompileListener(event.Listener):
    """Calls ``slow_compile_notice["callback"](name)`` once a compile of the kernel ``name`` has run ``delay`` s.

    numba announces each compile (``numba:compile``, after a miss of its cache) at
    its start and end; a kernel it compiles while compiling another (a callee not
    inlined) is part of the outer compile, so only a compile started from Python
    starts the timer, and only for a kernel of this package. numba compiles under
    one lock, so the compiles of a process nest and never overlap.
    """

    def __init__(self):
        self._depth = 0
        self._timer = None

    def on_start(self, ev):
        self._depth += 1
        callback = slow_compile_notice["callback"]
        # any numba user's compiles come here too (and a lifted loop's dispatcher may have no py_func)
        function = getattr(ev.data.get("dispatcher"), "py_func", None)
        module = getattr(function, "__module__", None) or ""
        if self._depth == 1 and callback is not None and module.startswith(f"{__package__}."):
            self._timer = threading.Timer(slow_compile_notice["delay"], self._tell, (callback, function.__name__))
            self._timer.daemon = True
            self._timer.start()

    def on_end(self, ev):
        self._depth -= 1
        if self._depth == 0 and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @staticmethod
    def _tell(callback, name):
        if slow_compile_notice["callback"] is callback:  # once: the first slow compile tells
            slow_compile_notice["callback"] = None
            callback(name)


event.register("numba:compile", SlowCompileListener())
