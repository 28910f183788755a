"""``olearn serve --vw-port``: VW connections are bounded as the HTTP ones are: past ``--max-connections`` a new
connection is answered one error line and closed; a first line not whole within ``--header-timeout``, a line
not whole within ``--body-timeout`` of its first byte, and a connection idle for ``--vw-idle-timeout`` are each
told why in one line and closed. The clients are netcat-style (lines over a socket); the timeouts are small only
to trigger them, and nothing is timed: the socket's own timeout is a hang guard."""

import re
import socket
import time

from serve_helpers import PATIENCE, TOKEN, require_serve_extra

require_serve_extra()


def _vw_port(server):
    return int(re.search(r"VW's daemon protocol on 127\.0\.0\.1:([0-9]+)", server.output())[1])


def _connect(port, text=""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    if text:
        sock.sendall(text.encode())
    return sock


def _line(sock):
    """The next line the service writes (without its newline), or None when it closed the connection."""
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            return answer.decode() or None
        answer += chunk
    return answer[:-1].decode()


def _served(port):
    """Whether a new connection is served (its line answered) rather than refused."""
    with _connect(port, TOKEN + "\n|f a\n") as sock:
        return _line(sock) == "0"


def test_past_max_connections_a_vw_connection_is_refused_with_one_line(serve):
    server = serve(["--algo", "pa1", "--vw-port", "0", "--max-connections", "2"])
    port = _vw_port(server)
    first, second = _connect(port, TOKEN + "\n|f a\n"), _connect(port, TOKEN + "\n|f b\n")
    assert _line(first) == "0" and _line(second) == "0"  # both are being served
    with _connect(port, TOKEN + "\n1 |f a\n") as third:
        assert _line(third) == "error: the service has 2 VW connections open (--max-connections); retry later"
        assert _line(third) is None  # closed
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 0  # the refused connection's line was not learned
    second.sendall(b"|f c\n")
    assert _line(second) == "0"  # the connections served go on
    first.close()
    deadline = time.monotonic() + PATIENCE  # a hang guard: the service sees the close when it next reads
    while not _served(port):
        assert time.monotonic() < deadline
    second.close()


def test_slow_first_lines_slow_lines_and_idle_vw_connections_are_closed_told_why(serve):
    # the first line's timeout is the longest, so that a loaded machine's pause before the first read does not
    # take the lines of the idle and slow connections, sent at once, for late
    server = serve(["--algo", "pa1", "--vw-port", "0", "--header-timeout", "2", "--body-timeout", "0.2",
                    "--vw-idle-timeout", "0.2"])
    port = _vw_port(server)
    with _connect(port) as silent:
        assert _line(silent) == "error: the first line was not whole in time (--header-timeout); the connection " \
                                "is closed"
        assert _line(silent) is None
    with _connect(port, TOKEN + "\n1 |f a\n") as idle:
        assert _line(idle) == "0"
        assert _line(idle) == "error: the connection was idle too long (--vw-idle-timeout); the connection is closed"
        assert _line(idle) is None
    with _connect(port, TOKEN + "\n-1 |f b") as slow:  # a line begun, never ended
        assert _line(slow) == "error: a line was not whole in time (--body-timeout); the connection is closed"
        assert _line(slow) is None
    with server.client() as client:
        assert client.get("/health").json()["updates"] == 1  # the line cut short was not learned
