"""Run every docstring example of the installed package as a test."""

import doctest
import importlib
import pkgutil

import pytest

import olearn


def _modules():
    yield "olearn"
    for info in pkgutil.walk_packages(olearn.__path__, prefix="olearn."):
        if not info.name.endswith("__main__"):
            yield info.name


@pytest.mark.parametrize("name", sorted(_modules()))
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert failed == 0, f"{failed} docstring example(s) failed in {name}; run python -m doctest -v on it"
