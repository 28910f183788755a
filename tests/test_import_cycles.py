"""Imports go downwards (docs/design.md): within a group of olearn's packages, no module imports one that imports it
back, at its top or inside a function (a late import hides a cycle, it does not remove it).

The graph is read from the source (tests/import_graph.py); only the modules of the group's packages are nodes, so a
group of two packages checks that the two do not import each other in a circle.
"""

import pytest

import import_graph as graphs
from import_graph import find_cycle, import_graph

# each group's packages (paths below olearn; "" is olearn's own modules)
GROUPS = [
    ("",),
    ("_kernels",),
    ("bounds",),
    ("cli",),
    ("compose", "preprocessing"),
    ("data",),
    ("distributed",),
    ("dual",),
    ("evaluate",),
    ("experiments",),
    ("experts",),
    ("kernel",),
    ("linear",),
    ("metrics",),
    ("multiclass",),
    ("multilabel",),
    ("oco",),
    ("plots",),
    ("quasi_additive",),
    ("second_order",),
    ("sequence",),
    ("serve",),
    ("uniclass",),
]


@pytest.mark.parametrize("packages", GROUPS, ids=lambda group: "+".join(name or "olearn" for name in group))
def test_imports_go_downwards(packages):
    cycle = find_cycle(import_graph(packages))
    assert cycle is None, "import circle: " + " -> ".join(
        f"{package}/{module}".lstrip("/") for package, module in [*cycle, cycle[0]])


def test_the_graph_sees_a_circle_through_a_late_import(tmp_path, monkeypatch):
    """The check itself: two modules of a package, one importing the other inside a function, make a circle;
    a package importing a module of another through ``from ..other import`` is an edge to that module."""
    top = tmp_path / "olearn"
    (top / "a").mkdir(parents=True)
    (top / "b").mkdir()
    (top / "a" / "__init__.py").write_text("")
    (top / "a" / "_x.py").write_text("from ._y import f\n")
    (top / "a" / "_y.py").write_text("def f():\n    from . import _x\n")
    (top / "b" / "__init__.py").write_text("from ._z import g\n")
    (top / "b" / "_z.py").write_text("def g():\n    from ..a._x import f\n")
    monkeypatch.setattr(graphs, "ROOT", top)
    assert find_cycle(import_graph(("a",))) == [("a", "_x"), ("a", "_y")]
    assert import_graph(("a", "b"))["b", "_z"] == {("a", "_x")}
    (top / "a" / "_y.py").write_text("def f():\n    from ..b import g\n")
    assert find_cycle(import_graph(("a", "b"))) == [("a", "_x"), ("a", "_y"), ("b", "__init__"), ("b", "_z")]
    (top / "b" / "_z.py").write_text("def g():\n    pass\n")
    assert find_cycle(import_graph(("a", "b"))) is None
