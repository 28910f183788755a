"""The doctest examples of docs/*.md run as written (python -m doctest docs/NAME.md).

The pages whose examples a test of their family runs already (``FAMILY_TESTS``) run here with ``-m slow``
only; every other page runs in the default suite.
"""

import doctest
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
WITH_EXAMPLES = sorted(p for p in DOCS.glob("*.md") if re.search(r"^>>> ", p.read_text(encoding="utf-8"), re.M)) \
    if DOCS.exists() else []
PAGES = pytest.mark.parametrize("path", WITH_EXAMPLES, ids=lambda p: p.name)
FAMILY_TESTS = {
    "experts_oco.md": "tests/experts/test_experts_docs.py",
    "probabilities.md": "tests/linear/test_probabilities.py",
    "uniclass_multilabel.md": "tests/uniclass/test_uniclass_multilabel_docs.py",
}


@PAGES
def test_a_closing_fence_is_not_read_as_expected_output(path):
    # doctest reads an example's output up to the next blank line, so a fence right under the output
    # becomes part of what the example must print, and the example fails as written
    lines = path.read_text(encoding="utf-8").splitlines()
    in_block = has_examples = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```") and not in_block:
            in_block, has_examples = True, False
        elif in_block and line.strip() == "```":
            assert not (has_examples and lines[number - 2].strip()), (
                f"{path.name}:{number}: put a blank line between the example's output and the closing fence"
            )
            in_block = False
        elif in_block and line.startswith(">>> "):
            has_examples = True


@pytest.mark.parametrize("path", [
    pytest.param(path, marks=[pytest.mark.slow] if path.name in FAMILY_TESTS else []) for path in WITH_EXAMPLES
], ids=lambda p: p.name)
def test_the_examples_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(path), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) of {path.name} failed; run python -m doctest on it"
