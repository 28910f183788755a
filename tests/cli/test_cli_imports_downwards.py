"""The modules of ``olearn.cli`` import downwards: no import circle, and no module imports a command.

The commands (``_run``, ``_predict``, ``_inspect``, ``_compare``, ``_serve``, ``_demo``, ``_reproduce``) are on top;
the pieces they share (input opening, model resumption, prediction writing, the chunk loop, the hold-out,
the tables) are below them, and so are the sequence and Dask paths the commands hand over to
(docs/design.md, "The command line"). The graph is read from the source with :mod:`ast`, imports inside
functions included: a function-level import dodges a circle at import time but is one all the same.
"""

import ast
import importlib.util
import pathlib

import olearn.cli
from olearn.cli._app import COMMANDS


def sibling_imports(package_dir, package):
    """{module: the modules of the same package it imports, anywhere in its source} for the modules (file stems)
    of ``package_dir``, the package named ``package``; ``__init__`` is the package itself, imported for a name
    that is not one of its modules."""
    modules = {path.stem for path in pathlib.Path(package_dir).glob("*.py")}

    def module_of(target):
        if not target.startswith(f"{package}."):
            return "__init__" if target == package else None
        first = target[len(package) + 1:].split(".")[0]
        return first if first in modules else "__init__"

    graph = {}
    for name in modules:
        graph[name] = set()
        source = (pathlib.Path(package_dir) / f"{name}.py").read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                targets = [f"{base}.{alias.name}" for alias in node.names] if base == package else [base]
            else:
                continue
            graph[name] |= {module_of(target) for target in targets} - {None, name}
    return graph


def circles(graph):
    """Every import circle of ``graph``, each as the path ``a -> b -> ... -> a`` found from its first module."""
    found, state = [], {}

    def visit(module, path):
        state[module] = "open"
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == "open":
                found.append(" -> ".join(path[path.index(imported):] + [imported]))
            elif imported not in state:
                visit(imported, path + [imported])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


CLI_DIR = pathlib.Path(olearn.cli.__file__).parent


def test_the_cli_modules_import_in_no_circle():
    assert circles(sibling_imports(CLI_DIR, "olearn.cli")) == []


def test_no_cli_module_imports_a_command():
    # a command registers itself on the group when imported; the group loads it by name (_app.load_commands)
    commands = {f"_{name}" for name in COMMANDS}
    graph = sibling_imports(CLI_DIR, "olearn.cli")
    assert sorted((module, imported) for module, imports in graph.items() for imported in imports & commands) == []


def test_the_graph_sees_a_circle_closed_by_a_function_level_import(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "_top.py").write_text("from ._shared import helper\n\n\ndef command():\n    return helper()\n")
    (tmp_path / "_shared.py").write_text("def helper():\n    from pkg import _top\n\n    return _top\n")
    (tmp_path / "_leaf.py").write_text("import pkg._shared\nfrom . import _shared\n")
    graph = sibling_imports(tmp_path, "pkg")
    assert graph == {"__init__": set(), "_top": {"_shared"}, "_shared": {"_top"}, "_leaf": {"_shared"}}
    assert circles(graph) == ["_shared -> _top -> _shared"]
