"""No client exhausts the service's connections: request heads are bounded in bytes and headers, slow heads
and bodies time out, connections past a cap are refused at once, and the open files limit is raised.

Raw sockets on the loopback interface, a bounded number of them; the timeouts given to sockets are hang
guards only (nothing asserts how long anything took).
"""

import os
import resource
import socket
import time

import pytest

from serve_helpers import TOKEN, require_serve_extra

require_serve_extra()

GUARD = 60.0  # seconds: a hang guard, far above the service's timeouts in these tests


def _connect(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=GUARD)
    return sock


def _answer(sock):
    """Everything the service sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _status(answer):
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None


def _send_all(sock, data):
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the service refused before reading it all: its answer says why


def test_request_heads_are_bounded_in_bytes_and_in_headers(serve):
    server = serve(["--algo", "pa1", "--max-header-bytes", "8192", "--max-headers", "20"])
    with _connect(server) as sock:
        _send_all(sock, b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
        answer = _answer(sock)
    assert _status(answer) == 431 and b"over 8192 bytes" in answer
    with _connect(server) as sock:
        headers = b"".join(b"X-%d: v\r\n" % i for i in range(30))
        _send_all(sock, b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
        answer = _answer(sock)
    assert _status(answer) == 431 and b"over 20 headers" in answer
    with _connect(server) as sock:  # a head of too many headers that is not complete: refused, not left to time out
        _send_all(sock, b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers)
        answer = _answer(sock)
    assert _status(answer) == 431 and b"over 20 headers" in answer
    with server.client() as client:  # a head within the bounds, with a body larger than them
        body = {"x": {f"f{i}": 1.0 for i in range(2000)}, "y": 1}
        assert client.post("/learn", json=body, headers={f"X-{i}": "v" for i in range(10)}).status_code == 200


def test_slow_heads_and_bodies_time_out_and_free_their_connections(serve):
    server = serve(["--algo", "pa1", "--header-timeout", "1", "--body-timeout", "1"])
    tricklers = [_connect(server) for _ in range(20)]
    silent = _connect(server)  # connects and sends nothing
    head = b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    open_ = list(tricklers)
    deadline = time.monotonic() + GUARD
    sent = 0
    while open_ and time.monotonic() < deadline:  # one byte per connection per round, until each is closed
        for sock in list(open_):
            try:
                sock.send(head[sent:sent + 1] if sent < len(head) else b"a")
            except (BrokenPipeError, ConnectionResetError):
                open_.remove(sock)
                continue
            sock.settimeout(0.001)
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    open_.remove(sock)
            except (BlockingIOError, socket.timeout):
                pass
            except ConnectionResetError:
                open_.remove(sock)
            sock.settimeout(GUARD)
        sent += 1
        time.sleep(0.05)
    assert not open_, "slow heads were never timed out"
    for sock in [*tricklers, silent]:
        answer = _answer(sock)
        assert answer == b"" or (_status(answer) == 408 and b"head was not complete" in answer)
        sock.close()
    with _connect(server) as sock:  # a body that stops half-way
        sock.sendall(b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN.encode()
                     + b"\r\nContent-Length: 100\r\n\r\n{\"x\":")
        answer = _answer(sock)
    assert _status(answer) == 408 and b"body was not complete" in answer
    with server.client() as client:
        assert client.get("/health").status_code == 200


def _answer_to_one(sock):
    """The answer to one request on a kept-alive connection (its head and its Content-Length's bytes)."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.mark.parametrize("timeouts, request_, late", [
    # the body's deadline comes before the connection's timer, made for the head's
    (["--header-timeout", "600", "--body-timeout", "1"],
     b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"x\":", b"body was not complete"),
    # the head's deadline comes after the timer made for the request before (and fired, or not yet)
    (["--header-timeout", "1", "--body-timeout", "600"], b"GET /live HTTP/1.1\r\nHost: 1", b"head was not complete"),
])
def test_a_kept_alive_connection_times_a_later_slow_request_out(serve, timeouts, request_, late):
    server = serve(["--algo", "pa1", *timeouts])
    with _connect(server) as sock:
        for _ in range(3):  # answered requests first, each setting and clearing the connection's deadlines
            sock.sendall(b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert _status(_answer_to_one(sock)) == 200
        sock.sendall(request_.replace(b"POST /predict HTTP/1.1\r\n", b"POST /predict HTTP/1.1\r\nAuthorization: "
                                      b"Bearer " + TOKEN.encode() + b"\r\n"))
        answer = _answer(sock)  # the connection is closed (a hang guard otherwise)
    # a late head that follows an answered request is answered 408 as the first request's would be (its answer is
    # complete, so the 408 cannot break into it)
    assert _status(answer) == 408 and late in answer


def test_connections_past_the_cap_are_refused_at_once(serve):
    server = serve(["--algo", "pa1", "--max-connections", "4", "--header-timeout", "600"])
    held = [_connect(server) for _ in range(4)]
    try:
        with server.client() as client:
            for sock in held:  # every one of them is open: the service answers on each
                sock.sendall(b"GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            with _connect(server) as extra:
                answer = _answer(extra)
            assert _status(answer) == 503 and b"4 connections" in answer
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:  # the closed ones are let go: a new client gets through
        with server.client() as client:
            try:
                if client.get("/health").status_code == 200:
                    break
            except Exception:
                pass
        time.sleep(0.1)
    else:
        raise AssertionError("the service kept refusing after its connections closed")


@pytest.mark.skipif(not os.path.exists("/proc/self/limits"), reason="reads /proc/PID/limits (Linux)")
def test_the_open_files_soft_limit_is_raised_to_the_hard_one(serve):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 512:
        pytest.skip("needs a finite hard limit on open files above 512")
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))  # inherited by the service
    try:
        server = serve(["--algo", "pa1", "--max-connections", "100"])
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with open(f"/proc/{server.process.pid}/limits") as fh:
        line = next(line for line in fh if line.startswith("Max open files"))
    assert line.split()[3:5] == [str(hard), str(hard)]
