"""The parameter entries that every family shares are written once (olearn._docstrings): each public learner's
``average``, ``class_weight``, ``n_bits``, epochs (``max_iter, tol, ...``) and ``partial_fit`` ``sample_weight`` entry
opens with that text, as ``help()`` and the Sphinx reference show it, whatever the family adds after it."""

import importlib
import inspect
import pkgutil

import pytest

import olearn
from olearn._docstrings import ENTRIES
from olearn._learner import OnlineLearner

# the families whose learners take the shared parameters (at least these; any other public learner is checked too)
FAMILIES = {"linear", "second_order", "quasi_additive", "dual", "multiclass", "multilabel", "sequence", "uniclass"}


def public_learners():
    """Every public learner (an OnlineLearner with ``partial_fit``) of olearn's subpackages, once."""
    found = {}
    for info in pkgutil.iter_modules(olearn.__path__):
        if info.ispkg and not info.name.startswith("_") and info.name not in ("cli", "plots"):
            module = importlib.import_module(f"olearn.{info.name}")
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                if inspect.isclass(obj) and issubclass(obj, OnlineLearner) and hasattr(obj, "partial_fit"):
                    found.setdefault(obj, f"olearn.{info.name}.{name}")
    return found


# the shared entry of each parameter (the epochs' entry is named by its first parameter, max_iter)
SHARED = {"average": "average", "class_weight": "class_weight", "n_bits": "n_bits", "max_iter": "epochs"}


def entry(doc, name):
    """The description lines of parameter ``name`` (alone or first of a list) in a numpydoc docstring, or None."""
    lines = inspect.cleandoc(doc).splitlines()
    for i, line in enumerate(lines):
        names = line.strip().partition(" : ")[0].split(", ")
        if names[0] == name and (" : " in line or len(names) > 1):
            indent = len(line) - len(line.lstrip())
            body = []
            for below in lines[i + 1:]:
                if below.strip() and len(below) - len(below.lstrip()) <= indent:
                    break
                body.append(below.strip())
            return body
    return None


def cases():
    for cls, where in public_learners().items():
        parameters = inspect.signature(cls.__init__).parameters
        for name, shared in SHARED.items():
            if name in parameters:
                yield where, name, shared, cls.__doc__
        if "sample_weight" in inspect.signature(cls.partial_fit).parameters:
            yield f"{where}.partial_fit", "sample_weight", "sample_weight", cls.partial_fit.__doc__


CASES = sorted(cases())


def test_the_learners_of_every_family_take_part():
    families = {where.split(".")[1] for where, *_ in CASES}
    assert FAMILIES <= families
    assert {shared for _, _, shared, _ in CASES} == set(ENTRIES)


@pytest.mark.parametrize(("where", "name", "shared", "doc"), CASES,
                         ids=[f"{where}:{name}" for where, name, *_ in CASES])
def test_the_entry_opens_with_the_shared_text(where, name, shared, doc):
    body = entry(doc, name)
    assert body is not None, f"{where} documents no {name}"
    shared = ENTRIES[shared].splitlines()
    assert body[: len(shared)] == shared, f"{where}'s {name} entry has drifted from olearn._docstrings.ENTRIES"
    assert not any("<shared entry" in line for line in body)
