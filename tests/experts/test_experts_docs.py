"""The examples of docs/experts_oco.md run and print what the page says."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "experts_oco.md"


def test_user_guide_examples():
    failed, attempted = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert attempted > 10 and failed == 0
