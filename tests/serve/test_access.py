"""Who may call the service: a token for every route but ``/live`` by default, read and write tokens apart,
``--public-reads`` as an explicit opt-out, and the Host header checked against the names the service answers to."""

import subprocess
import sys

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

READ_TOKEN = "read-token-abcdefghijklmnop"
READS = [("GET", "/health", None), ("GET", "/metrics", None), ("GET", "/openapi.json", None),
         ("GET", "/model", None), ("POST", "/predict", {"x": {"1": 1.0}})]


def _call(client, method, route, body=None, **kwargs):
    return client.request(method, route, json=body, **kwargs)


@pytest.fixture
def read_token_file(tmp_path):
    path = tmp_path / "read-token.txt"
    path.write_text(READ_TOKEN + "\n")
    return str(path)


def test_every_route_but_live_needs_a_token_by_default(serve):
    server = serve(["--algo", "pa1"])
    with server.client() as client:
        assert client.post("/learn", json={"x": {"1": 1.0, "user": "alice@example.com"}, "y": 1}).status_code == 200
        for method, route, body in READS:
            assert _call(client, method, route, body).status_code == 200, route
    with server.client(token=None) as client:
        for method, route, body in READS:
            response = _call(client, method, route, body)
            assert response.status_code == 401, route
            assert response.json() == {"error": "missing or wrong bearer token"}
            assert "alice" not in response.text
        live = client.get("/live")
        assert live.status_code == 200 and live.json() == {"status": "alive"}


def test_a_read_token_reads_and_does_not_write(serve, tmp_path, read_token_file):
    server = serve(["--algo", "pa1", "--read-token-file", read_token_file])
    with server.client() as client:  # the write token reads too
        assert client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).status_code == 200
        assert client.get("/health").status_code == 200
    with server.client(token=READ_TOKEN) as client:
        for method, route, body in READS:
            assert _call(client, method, route, body).status_code == 200, route
        for route in ("/learn", "/predict_learn"):
            assert client.post(route, json={"x": {"1": 1.0}, "y": 1}).status_code == 401
        assert client.get("/health").json()["updates"] == 1
    # a read-only service: the read token only, and writes refused to everyone
    server = serve(["--algo", "pa1", "--read-token-file", read_token_file], tmp_path / "read-only", token=False)
    with server.client(token=READ_TOKEN) as client:
        assert client.get("/health").status_code == 200
        assert client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).status_code == 403
    with server.client(token=None) as client:
        assert client.get("/health").status_code == 401


def test_public_reads_opt_out_of_the_read_token_only(serve):
    server = serve(["--algo", "pa1", "--public-reads"])
    with server.client(token=None) as client:
        for method, route, body in READS:
            assert _call(client, method, route, body).status_code in (200, 409), route  # 409: no model yet
        assert client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).status_code == 401


def test_a_service_nobody_could_read_does_not_start(tmp_path):
    command = [sys.executable, "-m", "olearn", "serve", "--algo", "pa1", "--state-dir", str(tmp_path / "state"),
               "--port", "0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--public-reads" in done.stderr and "--token-file" in done.stderr
    assert not (tmp_path / "state").exists()


def test_the_host_header_must_name_this_service(serve):
    server = serve(["--algo", "pa1"])
    port = server.port
    with server.client() as client:
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "10.0.0.1", "[::2]"):
            for route in ("/live", "/health"):
                response = client.get(route, headers={"Host": host})
                assert response.status_code == 421 and "--allowed-hosts" in response.json()["error"], host
        for host in (f"127.0.0.1:{port}", "localhost", "localhost.", f"LOCALHOST:{port}", f"[::1]:{port}"):
            assert client.get("/health", headers={"Host": host}).status_code == 200, host
    server = serve(["--algo", "pa1", "--allowed-hosts", "svc.example,other.example", "--allowed-hosts", "third"],
                   server.state_dir + "-named")
    with server.client() as client:
        for host in ("svc.example", f"other.example:{port}", "third", "localhost"):
            assert client.get("/health", headers={"Host": host}).status_code == 200, host
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 421
