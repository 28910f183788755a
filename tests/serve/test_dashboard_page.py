"""``GET /`` answers the live page to a caller with a read token (header or ``?token=``), and the page loads
nothing from elsewhere: no URL in it, and a Content-Security-Policy that lets it reach its own service only."""

import re

from olearn.serve._dashboard import PAGE

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()


def test_the_page_needs_a_read_token_and_reaches_nothing_else(serve, tmp_path):
    (tmp_path / "read.txt").write_text("read-token-0123456789abcdef\n")
    (tmp_path / "read.txt").chmod(0o600)
    server = serve(["--algo", "pa1", "--read-token-file", str(tmp_path / "read.txt")])
    with server.client(token=None) as client:
        assert client.get("/").status_code == 401
        assert client.get("/", params={"token": "wrong-token-0123456789"}).status_code == 401
        page = client.get("/", params={"token": "read-token-0123456789abcdef"})
    with server.client() as client:
        assert client.get("/").text == page.text  # the write token reads too, in the header
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert page.headers["referrer-policy"] == "no-referrer"
    assert not re.search(r"(https?:)?//[a-z]", PAGE.replace("http-equiv", ""))  # no address of anything elsewhere
    assert 'fetch("metrics"' in PAGE  # the page reads the service's /metrics, with the token of its URL
    assert TOKEN not in page.text
