"""The service's client examples in README.md and docs/serve.md run as written against a running service:
the Python (httpx) blocks, and the bodies the curl lines send."""

import contextlib
import io
import pathlib
import re

import pytest

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "serve.md"]
pytestmark = pytest.mark.skipif(not all(page.exists() for page in PAGES), reason="docs are not beside the tests")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_client_examples_run(serve, tmp_path, monkeypatch, page):
    text = page.read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "httpx" in b]
    curls = re.findall(r"curl -s (.*?)-d '(\{.*?\})' localhost:8080(/\w+)", text)
    assert blocks and curls
    server = serve(["--algo", "pa1", "-C", "0.1"])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "token.txt").write_text(TOKEN + "\n")
    with server.client() as client:
        for headers, body, route in curls:
            response = client.post(route, content=body.encode())
            assert response.status_code == 200, (body, response.text)
            assert "Authorization" in headers  # every route but /live needs the token
    for block in blocks:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block.replace("http://127.0.0.1:8080", server.url), page.name, "exec"), {})
        assert printed.getvalue().strip()
