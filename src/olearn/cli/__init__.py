"""The ``olearn`` command line: ``run``, ``predict``, ``compare``, ``serve``, ``demo`` and ``reproduce``.

Run ``olearn --help`` or see ``docs/cli.md``.
"""

from . import _run, _predict, _compare, _serve, _demo, _reproduce  # noqa: F401  (each registers its command, in this order)
from ._app import cli, main

__all__ = ["cli", "main"]
