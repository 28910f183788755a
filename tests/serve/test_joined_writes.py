"""The writes of a connection in one turn of the event loop go out as one: an answer's head and body together, in
order, and nothing held is lost to a close.

A transport that records what it is asked stands for the socket's; the protocol's test feeds it a request's
bytes as uvicorn's server would, on a real event loop."""

import asyncio

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

from olearn.serve._connections import ConnectionLimits, guarded_protocol  # noqa: E402
from olearn.serve._joined_writes import JoinedWrites  # noqa: E402


class RecordingTransport:
    """The calls a transport receives, the bytes of each write as a list."""

    def __init__(self):
        self.calls = []
        self.closing = False

    def write(self, data):
        self.calls.append(("write", [bytes(data)]))

    def writelines(self, lines):
        self.calls.append(("write", [bytes(data) for data in lines]))

    def close(self):
        self.calls.append(("close", None))
        self.closing = True

    def is_closing(self):
        return self.closing

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def pause_reading(self):
        self.calls.append(("pause_reading", None))

    def resume_reading(self):
        self.calls.append(("resume_reading", None))


def _guarded_connection(app):
    """The service's guarded protocol of a uvicorn server of ``app``, on the running event loop, connected to a
    :class:`RecordingTransport`: ``(protocol, transport)``."""
    import uvicorn
    from uvicorn.server import ServerState

    config = uvicorn.Config(app, lifespan="off", log_level="warning")
    config.load()
    protocol = guarded_protocol(ConnectionLimits())(config=config, server_state=ServerState(), app_state={},
                                                     _loop=asyncio.get_running_loop())
    transport = RecordingTransport()
    protocol.connection_made(transport)
    return protocol, transport


def test_the_writes_of_one_turn_go_out_together_at_its_end_in_order():
    async def scenario():
        transport = RecordingTransport()
        joined = JoinedWrites(transport, asyncio.get_running_loop())
        joined.write(b"head")
        joined.write(b"body")
        assert transport.calls == []  # held until the turn ends
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert transport.calls == [("write", [b"head", b"body"])]
        joined.write(b"next")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return transport.calls

    assert asyncio.run(scenario()) == [("write", [b"head", b"body"]), ("write", [b"next"])]


def test_a_buffer_changed_once_written_is_sent_as_it_was_written():
    async def scenario():
        transport = RecordingTransport()
        joined = JoinedWrites(transport, asyncio.get_running_loop())
        buffer = bytearray(b"head")
        joined.write(buffer)
        buffer[:] = b"XXXX"
        joined.write(memoryview(b"body"))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return transport.calls

    assert asyncio.run(scenario()) == [("write", [b"head", b"body"])]


def test_a_close_sends_what_is_held_first():
    async def scenario():
        transport = RecordingTransport()
        joined = JoinedWrites(transport, asyncio.get_running_loop())
        joined.write(b"answer")
        joined.close()
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the end of the turn finds nothing more to send
        return transport.calls

    assert asyncio.run(scenario()) == [("write", [b"answer"]), ("close", None)]


def test_what_is_held_when_the_connection_is_closing_is_dropped():
    async def scenario():
        transport = RecordingTransport()
        joined = JoinedWrites(transport, asyncio.get_running_loop())
        joined.write(b"answer")
        transport.closing = True  # the peer went: the transport would drop it too
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return transport.calls

    assert asyncio.run(scenario()) == []


def test_the_other_calls_are_the_transports():
    async def scenario():
        transport = RecordingTransport()
        joined = JoinedWrites(transport, asyncio.get_running_loop())
        joined.pause_reading()
        joined.resume_reading()
        return transport.calls, joined.get_extra_info("peername"), joined.is_closing()

    assert asyncio.run(scenario()) == ([("pause_reading", None), ("resume_reading", None)], ("127.0.0.1", 50000), False)


def test_an_answer_of_the_guarded_protocol_is_one_write_of_its_head_and_body():
    async def app(scope, receive, send):
        await receive()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"11")]})
        await send({"type": "http.response.body", "body": b'{"seq": 1 }'})

    async def scenario():
        protocol, transport = _guarded_connection(app)
        protocol.data_received(b"POST /learn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
        for _ in range(10):
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return transport.calls

    calls = asyncio.run(scenario())
    writes = [parts for kind, parts in calls if kind == "write"]
    assert len(writes) == 1
    answer = b"".join(writes[0])
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b'\r\n\r\n{"seq": 1 }')
    assert b"content-length: 11\r\n" in answer


@pytest.mark.parametrize("keep_alive", [True, False])
def test_an_answer_before_a_close_of_the_connection_is_sent_whole_before_it(keep_alive):
    async def app(scope, receive, send):
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def scenario():
        protocol, transport = _guarded_connection(app)
        connection = b"" if keep_alive else b"Connection: close\r\n"
        protocol.data_received(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n" + connection + b"\r\n")
        await asyncio.sleep(0)  # the application's task runs: its answer is written, held to the end of the turn
        protocol.shutdown()  # the server stops: the connection closes once its answer is complete
        for _ in range(5):
            await asyncio.sleep(0)
        return transport.calls

    calls = asyncio.run(scenario())
    writes = [parts for kind, parts in calls if kind == "write"]
    kinds = [kind for kind, _ in calls if kind in ("write", "close")]
    assert len(writes) == 1 and b"".join(writes[0]).endswith(b"\r\n\r\nok")
    assert kinds[0] == "write" and set(kinds[1:]) == {"close"}  # written whole, then closed (once or twice)
