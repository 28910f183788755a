"""The Host check answers a Host header the same way each time it is seen, however many other names came between:
its verdicts are remembered, in bounded memory, never mixed up."""

import asyncio
import json

from olearn.serve._auth import HostCheck, Hosts


SENT = []  # the messages of the last request


async def _application(scope, receive, send):
    SENT.append({"type": "http.response.start", "status": 200})


async def _send(message):
    SENT.append(message)


def _status(check, host):
    """The status a request with the Host header ``host`` (bytes, or None for none) gets from ``check``: 200 when it
    reaches the application, else the refusal's."""
    SENT.clear()
    headers = [(b"accept", b"*/*")] + ([] if host is None else [(b"host", host)])
    asyncio.run(check({"type": "http", "headers": headers}, None, _send))
    if SENT[0]["status"] != 200:
        assert "error" in json.loads(SENT[1]["body"])
    return SENT[0]["status"]


def test_a_host_is_answered_the_same_each_time_past_the_names_remembered():
    check = HostCheck(_application, Hosts("127.0.0.1", ["svc.example"]))
    for _ in range(2):
        assert _status(check, b"127.0.0.1:8080") == 200
        assert _status(check, b"svc.example") == 200
        assert _status(check, b"evil.example") == 421
        assert _status(check, None) == 400
    for k in range(300):  # many names refused in turn: the memory of verdicts starts afresh, the verdicts stay
        assert _status(check, b"evil%d.example" % k) == 421
        assert _status(check, b"localhost") == 200
    assert len(check._verdicts) <= 64
    assert _status(check, b"evil.example") == 421 and _status(check, b"SVC.example.") == 200
