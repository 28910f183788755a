"""What a user reaches first: the subpackages from ``import olearn``, run's refusal of what it cannot drive, public imports in the docs."""

import importlib
import pathlib
import pkgutil
import re
import subprocess
import sys

import numpy as np
import pytest

import olearn

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_public_subpackage_is_an_attribute_of_olearn():
    public = sorted(info.name for info in pkgutil.iter_modules(olearn.__path__)
                    if info.ispkg and not info.name.startswith("_") and info.name != "cli")
    code = "import olearn, sys; print([getattr(olearn, name).__name__ for name in sys.argv[1:]])"
    # a fresh interpreter: none of them imported by anything else first
    out = subprocess.run([sys.executable, "-c", code, *public], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str([f"olearn.{name}" for name in public])
    assert "plots" in public


def test_olearn_plots_loads_on_first_use_without_importing_matplotlib_at_import_time():
    code = "import sys, olearn; before = 'matplotlib.pyplot' in sys.modules; olearn.plots; print(before)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_run_refuses_a_pipeline_and_says_why():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), olearn.PAClassifier())
    with pytest.raises(TypeError, match=r"not a Pipeline \(StandardScaler, PAClassifier\)") as err:
        olearn.run(pipe, np.eye(3), [0, 1, 0])
    assert "leak the future" in str(err.value) and "prefix" in str(err.value)
    assert not hasattr(pipe[-1], "coef_")  # nothing was learned


@pytest.mark.parametrize("thing", ["PAClassifier", None, "sklearn"])
def test_run_refuses_what_is_not_an_olearn_learner(thing):
    if thing == "sklearn":
        from sklearn.linear_model import Perceptron

        thing = Perceptron()
    with pytest.raises(TypeError, match=r"olearn.run takes an olearn learner .*not a (str|NoneType|Perceptron)"):
        olearn.run(thing, np.eye(2), [0, 1])


def _code_lines(text):
    """The lines of Python code of a Markdown text: those of ```python blocks, and doctest lines."""
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        yield from block.splitlines()
    for line in text.splitlines():
        if line.startswith((">>> ", "... ")):
            yield line[4:]


@pytest.mark.parametrize("path", sorted([*ROOT.joinpath("docs").glob("*.md"), ROOT / "README.md"]),
                         ids=lambda p: p.name)
def test_documented_code_imports_only_public_modules(path):
    if not path.exists():
        pytest.skip("docs are not beside the tests")
    for line in _code_lines(path.read_text(encoding="utf-8")):
        for module in re.findall(r"(?:from|import)\s+(olearn(?:\.\w+)*)", line):
            private = [part for part in module.split(".") if part.startswith("_")]
            assert not private, f"{path.name}: {line.strip()!r} imports the private {module}"
            importlib.import_module(module)
