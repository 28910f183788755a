"""No module of ``olearn.cli`` imports a command (docs/design.md, "The command line").

The commands (``_run``, ``_predict``, ``_inspect``, ``_compare``, ``_serve``, ``_demo``, ``_reproduce``) are on top;
the pieces they share (input opening, model resumption, prediction writing, the chunk loop, the hold-out,
the tables) are below them, and so are the sequence and Dask paths the commands hand over to. That the modules
import in no circle is checked with every package's in tests/test_import_cycles.py.
"""

from import_graph import import_graph

from olearn.cli._app import COMMANDS


def test_no_cli_module_imports_a_command():
    # a command registers itself on the group when imported; the group loads it by name (_app.load_commands)
    commands = {("cli", f"_{name}") for name in COMMANDS}
    graph = import_graph(("cli",))
    assert sorted((module, imported) for module, imports in graph.items() for imported in imports & commands) == []
