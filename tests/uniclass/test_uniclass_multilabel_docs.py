"""The examples of docs/uniclass_multilabel.md run as written."""

import doctest
import pathlib

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "uniclass_multilabel.md"


@pytest.mark.skipif(not DOC.exists(), reason="the docs are not beside the tests")
def test_uniclass_multilabel_doc_examples(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    failed, attempted = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert attempted > 20 and failed == 0
