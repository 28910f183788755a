"""A package's public names, each loaded with its module on first use (PEP 562)."""

import importlib
import sys


def lazy_names(package, homes, subpackages=()):
    """``(__getattr__, __dir__)`` for the ``__init__`` of ``package``.

    ``homes`` maps a public name to the submodule (relative to ``package``)
    that defines it; a name in ``subpackages`` is that subpackage. A name
    found is kept in the package, so later lookups are plain attribute reads.
    """
    module = sys.modules[package]

    def __getattr__(name):
        if name in subpackages:
            return importlib.import_module(f"{package}.{name}")
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(module, name, value)
        return value

    def __dir__():
        return sorted({*vars(module), *module.__all__})

    return __getattr__, __dir__


class LazyModule:
    """Stands for the module ``name``: imports it at the first read of an attribute, then keeps each one read.

    A module that calls numba kernels in some of its methods only holds their
    module this way, so that importing it starts no numba (a run whose kernels
    were compiled at install never does: :mod:`olearn._kernels._compiled`).
    """

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self):
        return f"<lazy module {self._name!r}>"


def is_loaded_instance(obj, module, name):
    """Whether ``obj`` is an instance of the class ``name`` of ``module``, without importing ``module``: an object
    of that class cannot exist before its module is loaded (a run with no pipeline never loads the pipelines)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(obj, getattr(loaded, name))
