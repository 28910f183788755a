"""Sphinx configuration of olearn's API reference, built from the docstrings.

Build it with ``python -m sphinx -W -b html docs/api docs/_build/api`` (``pip install
"olearn[docs]"`` first). Each page holds the directive ``olearn-public``, which documents
the public names of one package: its ``__all__`` (or, for a module without one, the
classes and functions it defines). An object is documented once, in the first package
that lists it (``olearn`` itself first, then the subpackages in alphabetical order); the
other packages that export it link to it.
"""

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

# document the source tree this folder belongs to, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import olearn  # noqa: E402

project = "olearn"
version = release = olearn.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
# the methods are documented in full by autodoc's :members:, not listed again by numpydoc
numpydoc_show_class_members = False
autodoc_member_order = "bysource"
html_theme = "alabaster"
html_static_path = []
exclude_patterns = ["_build"]


def public_modules():
    """``olearn`` and its public subpackages and modules (no leading underscore), in documentation order."""
    names = sorted(info.name for info in pkgutil.iter_modules(olearn.__path__) if not info.name.startswith("_"))
    return ["olearn"] + [f"olearn.{name}" for name in names]


def public_names(module):
    """The module's ``__all__``, or the classes and functions it defines when it has none."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name for name, obj in vars(module).items()
        if not name.startswith("_") and (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__ == module.__name__
    ]


def homes():
    """{id(object): "package.name"}: where each public object is documented."""
    home = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for name in public_names(module):
            obj = getattr(module, name)
            if not inspect.ismodule(obj) and (inspect.isclass(obj) or inspect.isroutine(obj)):
                home.setdefault(id(obj), f"{module_name}.{name}")
    return home


class PublicNames(SphinxDirective):
    """``.. olearn-public:: olearn.linear``: the module's docstring and its public names."""

    required_arguments = 1

    def run(self):
        module_name = self.arguments[0]
        module = importlib.import_module(module_name)
        home = homes()
        lines = [f".. automodule:: {module_name}", "   :no-members:", ""]
        elsewhere, subpackages = [], []
        for name in public_names(module):
            obj = getattr(module, name)
            target = f"{module_name}.{name}"
            if inspect.ismodule(obj):
                subpackages.append(f":mod:`{obj.__name__}`")
            elif inspect.isclass(obj) or inspect.isroutine(obj):
                if home[id(obj)] != target:
                    role = "class" if inspect.isclass(obj) else "func"
                    elsewhere.append(f":{role}:`{name} <{home[id(obj)]}>`")
                elif inspect.isclass(obj):
                    # inherited from olearn's own bases, not from Python's (exceptions, tuples) nor River's
                    foreign = ", ".join(base.__name__ for base in obj.__mro__
                                        if base.__module__.partition(".")[0] != "olearn")
                    lines += [f".. autoclass:: {target}", "   :members:", f"   :inherited-members: {foreign}", ""]
                else:
                    lines += [f".. autofunction:: {target}", ""]
            else:
                lines += [f".. autodata:: {target}", "   :no-value:", ""]
        if subpackages:
            lines[3:3] = ["Its subpackages " + ", ".join(subpackages) + " are imported on first use.", ""]
        if elsewhere:
            lines[3:3] = ["Also exported here, and documented where first exported: " + ", ".join(elsewhere) + ".", ""]
        return self.parse_text_to_nodes(StringList(lines, source=f"<olearn-public {module_name}>"))


def click_help_verbatim(app, what, name, obj, options, lines):
    """Show a click command's docstring as the terminal shows it: it is help text, not reStructuredText."""
    import click

    if isinstance(obj, click.Command):
        # click's "\b" lines only stop it from rewrapping the paragraph that follows
        help_lines = [line for line in lines if line.strip() != "\b"]
        # a summary line first: numpydoc dedents the paragraphs after it as one block
        summary = f"The click command ``{obj.name}``."
        lines[:] = [summary, "", "Its help text:", "", ".. code-block:: text", ""] + ["    " + line for line in help_lines]


def setup(app):
    app.add_directive("olearn-public", PublicNames)
    # before numpydoc (priority 500) reads the docstring as numpydoc sections
    app.connect("autodoc-process-docstring", click_help_verbatim, priority=400)
    return {"parallel_read_safe": True}
