"""The import graph of olearn's modules, read from the source with :mod:`ast` (tests/test_import_cycles.py).

A node is a module file, an edge is an ``import`` or ``from ... import`` of olearn's code anywhere in it, resolved
to the module file it names (a package's ``__init__``, or the module file of each name imported from a package when
there is one). Only the modules of the packages asked for are nodes.
"""

import ast
import pathlib

import olearn

ROOT = pathlib.Path(olearn.__file__).parent


def _module_of(path):
    """(package, module) of the file a dotted path below olearn names: a package's ``__init__`` or a module; or
    None for a name that is neither (an attribute)."""
    if ROOT.joinpath(*path, "__init__.py").is_file():
        return "/".join(path), "__init__"
    if path and ROOT.joinpath(*path[:-1], path[-1] + ".py").is_file():
        return "/".join(path[:-1]), path[-1]
    return None


def _imported(node, package):
    """The olearn modules an import statement in a module of ``package`` (a tuple of names) names."""
    if isinstance(node, ast.Import):
        paths = [tuple(alias.name.split(".")[1:]) for alias in node.names if alias.name.split(".")[0] == "olearn"]
        return {_module_of(path) for path in paths} - {None}
    if node.level:
        if node.level - 1 > len(package):
            return set()
        base = package[:len(package) - (node.level - 1)]
    elif (node.module or "").split(".")[0] == "olearn":
        base = ()
    else:
        return set()
    words = tuple((node.module or "").split(".")) if node.module else ()
    target = base + (words[1:] if not node.level else words)
    from_package = ROOT.joinpath(*target, "__init__.py").is_file()
    found = set()
    for alias in node.names:
        # `from package import module` imports the module's file; any other name comes from the package itself
        found.add((from_package and _module_of(target + (alias.name,))) or _module_of(target))
    return found - {None}


def import_graph(packages):
    """{(package, module): the modules of ``packages`` it imports}, for every module of ``packages``."""
    graph = {}
    for name in packages:
        package = tuple(name.split(".")) if name else ()
        for file in sorted(ROOT.joinpath(*package).glob("*.py")):
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
            imported = set()
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    imported |= _imported(node, package)
            graph["/".join(package), file.stem] = imported
    return {node: {target for target in targets if target in graph and target != node}
            for node, targets in graph.items()}


def find_cycle(graph):
    """A list of modules, each importing the next and the last the first, or None when the graph has no cycle."""
    done, path = set(), []

    def visit(node):
        path.append(node)
        for target in sorted(graph[node]):
            if target in path:
                return path[path.index(target):]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        if node not in done:
            cycle = visit(node)
            if cycle:
                return cycle
    return None
