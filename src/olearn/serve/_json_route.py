"""The hot routes of a service as plain ASGI applications: a JSON body in, a JSON answer out.

A request of one example spends about as much CPU in Starlette (its
middleware stack, router, ``Request`` and ``Response`` objects) as in
reading the example and learning it. A :class:`JsonRoute` answers with the
HTTP semantics of the service's other routes, without them:

* the bearer token of its access (:mod:`._auth`: 401 with
  ``WWW-Authenticate: Bearer``, or 403), checked before the body is read;
* the body read up to the service's cap (:func:`read_body`: 413 from its
  ``Content-Length`` or while it is read, 408 if the connection closes first);
* the answer of ``handler(body)``, a JSON-ready value, as ``application/json``
  (:func:`json_content`); a :class:`~._requests.RequestError` or a
  :class:`~._auth.Refusal` as its status and ``{"error": message}``, a
  :class:`~._writer.WriterStopped` as a 503, any other exception as a 500
  ``{"error": "internal error: <its type>"}`` (then raised, for the server's log);
* the request counted and timed in the service's metrics (``olearn_requests``
  by route and status, ``olearn_request_seconds``).

A JsonRoute is a Starlette ``Route``'s endpoint, so that the router answers
405 for another method, lists the route and serves it under a test client;
:func:`starlette_app` sends the requests of its path and method to it
directly, before Starlette's middleware and router.
"""

import json
import time

from .._lazy import LazyModule
from ._auth import Refusal
from ._requests import RequestError
from ._writer import WriterStopped

orjson = LazyModule("orjson")  # the serve extra's, imported when a service answers

# what a route refuses a request with: each answered with its status and {"error": message}
REFUSALS = (Refusal, RequestError, WriterStopped)


def refusal_answer(err):
    """The status, error message and headers (a dict) of the answer to a request refused with ``err``, one of
    :data:`REFUSALS` (a writer stopped: 503)."""
    if isinstance(err, WriterStopped):
        return 503, str(err), {}
    return err.status, err.message, getattr(err, "headers", None) or {}


def json_content(answer):
    """The JSON-ready ``answer`` as UTF-8 bytes: by orjson; by :mod:`json`, strictly (a NaN or an infinity is a
    ValueError), when orjson does not write it (an integer past 64 bits) or writes a null, which may be a NaN or
    an infinity it wrote so. Compact, as Starlette's ``JSONResponse`` writes."""
    try:
        content = orjson.dumps(answer)
    except TypeError:
        content = None
    if content is None or b"null" in content:
        return json.dumps(answer, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    return content


async def read_body(receive, declared, cap):
    """The body of a request from its ASGI ``receive``, refused (413) past ``cap`` bytes before it is read whole:
    at once by its ``Content-Length`` ``declared`` (a str, or None), else while it is read; 408 if the connection
    closes before it is whole (the client went, or its body took too long: see :mod:`._connections`)."""
    if declared is not None and (not declared.isdigit() or int(declared) > cap):
        raise RequestError(413, f"the body is {declared} bytes; this service takes at most {cap}")
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # http.disconnect
            raise RequestError(408, "the connection closed before the body was whole")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            raise RequestError(413, f"the body is over {cap} bytes; this service takes at most {cap}")
        if not message.get("more_body", False):
            return b"".join((*chunks, chunk)) if chunks else chunk
        chunks.append(chunk)


class JsonRoute:
    """The ASGI application of the route ``path``: ``await handler(body)`` answered as JSON, for callers with the
    token of ``access`` (``WRITE`` or ``READ`` of :mod:`._auth`) under ``settings`` (an
    :class:`~._app.Settings`); requests counted in ``metrics`` (a :class:`~._metrics.Metrics`)."""

    def __init__(self, path, handler, access, settings, metrics):
        self.path = path
        self._handler = handler
        self._access = access
        self._settings = settings
        self._metrics = metrics

    async def __call__(self, scope, receive, send):
        started = time.perf_counter()
        authorization = declared = None
        for name, value in scope["headers"]:
            if name == b"authorization" and authorization is None:
                authorization = value.decode("latin-1")
            elif name == b"content-length" and declared is None:
                declared = value.decode("latin-1")
        headers = ()
        try:
            self._settings.access.check({"authorization": authorization or ""}, self._access)
            body = await read_body(receive, declared, self._settings.max_body_bytes)
            status, content = 200, json_content(await self._handler(body))
        except REFUSALS as err:
            status, message, extra = refusal_answer(err)
            content = json_content({"error": message})
            headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in extra.items()]
        except Exception as err:
            self._count(500, started)
            await _respond(send, 500, json_content({"error": f"internal error: {type(err).__name__}"}), ())
            raise
        self._count(status, started)
        await _respond(send, status, content, headers)

    def _count(self, status, started):
        self._metrics.requests.observe(self.path, str(status), time.perf_counter() - started)


async def _respond(send, status, content, headers):
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(content)),
                            *headers]})
    await send({"type": "http.response.body", "body": content})


def starlette_app(routes, **options):
    """A Starlette application of ``routes`` (and its ``options``) that sends a request of the path and method of
    a route whose endpoint is a :class:`JsonRoute` to it directly, before Starlette's middleware and router."""
    from starlette.applications import Starlette

    direct = {(method, route.path): route.endpoint for route in routes if isinstance(route.endpoint, JsonRoute)
              for method in route.methods}

    class DirectStarlette(Starlette):
        async def __call__(self, scope, receive, send):
            if scope["type"] == "http":
                endpoint = direct.get((scope["method"], scope["path"]))
                if endpoint is not None:
                    await endpoint(scope, receive, send)
                    return
            await super().__call__(scope, receive, send)

    return DirectStarlette(routes=routes, **options)
