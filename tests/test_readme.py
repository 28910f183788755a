"""The README's self-contained Python examples run as written."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S) if README.exists() else []
# examples that read the user's own files (train.svm, ...) are shown, not run, and so are the clients of a
# running service (olearn serve: tests/serve/test_docs.py runs them against one)
SELF_CONTAINED = [block for block in BLOCKS if not re.search(r"\.(svm|vw|csv|olc)\b|\.gz\b|httpx", block)]


@pytest.mark.skipif(not SELF_CONTAINED, reason="README.md is not beside the tests")
@pytest.mark.parametrize("index", range(len(SELF_CONTAINED)))
def test_readme_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(SELF_CONTAINED[index], f"README.md example {index}", "exec"), {})
