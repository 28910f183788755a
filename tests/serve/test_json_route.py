"""The update routes as plain ASGI applications (olearn.serve._json_route): the HTTP answers of the service's
Starlette routes (statuses, JSON errors, headers, caps, token, metrics), and requests of their path and method
sent to them without Starlette's middleware and router."""

import asyncio
import json
import math

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

from olearn.serve._app import Settings  # noqa: E402
from olearn.serve._auth import READ, WRITE, Access  # noqa: E402
from olearn.serve._json_route import JsonRoute, json_content, starlette_app  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import RequestError  # noqa: E402
from olearn.serve._writer import WriterStopped  # noqa: E402

TOKEN = b"write-token-0123456789"


def _scope(path="/learn", method="POST", token=TOKEN, length=None):
    headers = [(b"host", b"127.0.0.1")]
    if token is not None:
        headers.append((b"authorization", b"Bearer " + token))
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": "",
            "query_string": b"", "headers": headers, "scheme": "http", "http_version": "1.1",
            "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 5000), "asgi": {"version": "3.0"}}


def _call(app, scope, messages):
    """Run the ASGI ``app`` on ``scope`` with the request ``messages``: (status, headers, body, messages read)."""
    sent, read = [], []

    async def receive():
        read.append(messages[len(read)])
        return read[-1]

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"], len(read)


def _body(content):
    return [{"type": "http.request", "body": content, "more_body": False}]


class Handler:
    """A route's handler: records the bodies it was given, answers ``answer`` or raises ``error``."""

    def __init__(self, answer=None, error=None):
        self.answer, self.error, self.bodies = answer, error, []

    async def __call__(self, body):
        self.bodies.append(body)
        if self.error is not None:
            raise self.error
        return self.answer


def _route(handler, cap=1000, access=WRITE, metrics=None):
    settings = Settings(Access(write_token=TOKEN), max_body_bytes=cap)
    return JsonRoute("/learn", handler, access, settings, metrics or Metrics())


def _counts(metrics):
    return {(sample.labels["route"], sample.labels["status"]): sample.value
            for family in metrics.registry.collect() if family.name == "olearn_requests"
            for sample in family.samples if sample.name == "olearn_requests_total"}


def test_an_answer_is_compact_json_with_its_length():
    handler = Handler({"seq": 7, "learned": 1, "y": "spam", "score": 0.25})
    status, headers, body, _ = _call(_route(handler), _scope(length=9), _body(b'{"x": {}}'))
    assert status == 200 and body == b'{"seq":7,"learned":1,"y":"spam","score":0.25}'
    assert headers == {b"content-type": b"application/json", b"content-length": str(len(body)).encode()}
    assert handler.bodies == [b'{"x": {}}']


def test_a_body_sent_in_chunks_is_joined():
    handler = Handler({"seq": 1, "learned": 1})
    chunks = [{"type": "http.request", "body": part, "more_body": True} for part in (b'{"x"', b": {},")]
    chunks.append({"type": "http.request", "body": b' "y": 1}', "more_body": False})
    status, _, _, read = _call(_route(handler), _scope(), chunks)
    assert status == 200 and read == 3 and handler.bodies == [b'{"x": {}, "y": 1}']


@pytest.mark.parametrize("token", [None, b"wrong-token-0123456789", TOKEN + b"x"])
def test_a_write_without_the_token_is_refused_before_its_body_is_read(token):
    handler = Handler({"seq": 1, "learned": 1})
    metrics = Metrics()
    status, headers, body, read = _call(_route(handler, metrics=metrics), _scope(token=token, length=2),
                                        _body(b"{}"))
    assert status == 401 and json.loads(body) == {"error": "missing or wrong bearer token"}
    assert headers[b"www-authenticate"] == b"Bearer" and headers[b"content-type"] == b"application/json"
    assert read == 0 and handler.bodies == []
    assert _counts(metrics) == {("/learn", "401"): 1.0}


def test_a_read_route_takes_the_write_token_and_a_service_without_one_takes_no_writes():
    handler = Handler({"y": 1})
    assert _call(_route(handler, access=READ), _scope(), _body(b"{}"))[0] == 200
    settings = Settings(Access(read_token=b"read-token-0123456789"))
    status, _, body, read = _call(JsonRoute("/learn", handler, WRITE, settings, Metrics()), _scope(), _body(b"{}"))
    assert status == 403 and "without --token-file" in json.loads(body)["error"] and read == 0


def test_a_body_past_the_cap_is_refused_by_its_length_or_while_it_is_read():
    handler = Handler({"seq": 1, "learned": 1})
    status, _, body, read = _call(_route(handler, cap=10), _scope(length=11), _body(b"x" * 11))
    assert status == 413 and read == 0 and json.loads(body) == {
        "error": "the body is 11 bytes; this service takes at most 10"}
    chunks = [{"type": "http.request", "body": b"x" * 6, "more_body": True}] * 3
    status, _, body, read = _call(_route(handler, cap=10), _scope(), chunks)
    assert status == 413 and read == 2 and "over 10 bytes" in json.loads(body)["error"]
    assert _call(_route(handler, cap=10), _scope(length=10), _body(b"x" * 10))[0] == 200
    assert handler.bodies == [b"x" * 10]


def test_a_connection_closed_before_the_body_is_whole_is_a_408():
    handler = Handler({"seq": 1, "learned": 1})
    messages = [{"type": "http.request", "body": b'{"x"', "more_body": True}, {"type": "http.disconnect"}]
    status, _, body, _ = _call(_route(handler), _scope(), messages)
    assert status == 408 and "closed before the body was whole" in json.loads(body)["error"]
    assert handler.bodies == []


@pytest.mark.parametrize("error, status", [(RequestError(422, "x is a JSON array"), 422),
                                           (RequestError(409, "id 'a' was used"), 409),
                                           (WriterStopped("the service is shutting down"), 503)])
def test_a_refused_request_is_its_status_and_message(error, status):
    metrics = Metrics()
    answer = _call(_route(Handler(error=error), metrics=metrics), _scope(), _body(b"{}"))
    assert answer[0] == status and json.loads(answer[2]) == {"error": str(error)}
    assert _counts(metrics) == {("/learn", str(status)): 1.0}


def test_an_unexpected_error_is_a_json_500_then_raised_for_the_log():
    metrics = Metrics()
    sent = []

    async def receive():
        return _body(b"{}")[0]

    async def send(message):
        sent.append(message)

    with pytest.raises(ZeroDivisionError):
        asyncio.run(_route(Handler(error=ZeroDivisionError("division by zero")), metrics=metrics)(
            _scope(), receive, send))
    assert sent[0]["status"] == 500 and json.loads(sent[1]["body"]) == {"error": "internal error: ZeroDivisionError"}
    assert _counts(metrics) == {("/learn", "500"): 1.0}


def test_requests_are_counted_by_status_and_timed():
    metrics = Metrics()
    route = _route(Handler({"seq": 1, "learned": 1}), metrics=metrics)
    for token in (TOKEN, TOKEN, None, TOKEN):
        _call(route, _scope(token=token), _body(b"{}"))
    assert _counts(metrics) == {("/learn", "200"): 3.0, ("/learn", "401"): 1.0}
    timed = {sample.name: sample.value for family in metrics.registry.collect()
             if family.name == "olearn_request_seconds" for sample in family.samples}
    assert timed["olearn_request_seconds_count"] == 4.0


def test_json_content_writes_what_strict_json_writes():
    for answer in ({"seq": 3, "learned": 1}, {"y": None, "score": None}, {"y": "\u00e9t\u00e9", "score": [0.1, -2.5]},
                   {"seq": 2 ** 70, "learned": 1}, {"y": [True, False], "duplicate": True}):
        assert json.loads(json_content(answer)) == answer
        assert json_content(answer) == json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
    for answer in ({"score": math.nan}, {"score": -math.inf}):
        with pytest.raises(ValueError):
            json_content(answer)


def test_the_app_sends_a_json_route_its_requests_directly_and_everything_else_through_starlette():
    from starlette.middleware import Middleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    passed = []

    class Recorder:  # a middleware of Starlette's stack: every request Starlette handles passes through it
        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            if scope["type"] == "http":
                passed.append((scope["method"], scope["path"]))
            await self.app(scope, receive, send)

    async def health(request):
        return PlainTextResponse("ok")

    handler = Handler({"seq": 1, "learned": 1})
    app = starlette_app([Route("/learn", _route(handler), methods=["POST"]), Route("/health", health)],
                        middleware=[Middleware(Recorder)])
    assert _call(app, _scope(), _body(b"{}"))[:3] == (200, {b"content-type": b"application/json",
                                                           b"content-length": b"21"}, b'{"seq":1,"learned":1}')
    assert passed == []
    assert _call(app, _scope(method="GET"), [])[0] == 405
    assert _call(app, _scope("/health", "GET"), [])[2] == b"ok"
    assert _call(app, _scope("/learn/", "POST"), _body(b"{}"))[0] == 307  # Starlette's redirect to /learn
    assert passed == [("GET", "/learn"), ("GET", "/health"), ("POST", "/learn/")]
    assert len(handler.bodies) == 1
    assert [route.path for route in app.routes] == ["/learn", "/health"]
