"""The HTTP routes of ``olearn serve`` (Starlette), their checks, errors and metrics.

Starlette is imported by :func:`create_app`, so that this module, like all
of olearn, imports without the ``serve`` extra.
"""

import contextlib
import hmac
import time

from ._openapi import openapi_document
from ._requests import RequestError, parse_json, read_features, read_labelled, read_request_id
from ._writer import WriterStopped


class Settings:
    """What a service allows: the token of writes (bytes, or None for none needed), whether predictions need
    it too, the largest body in bytes and the caps of :class:`~olearn.serve._requests.Limits`."""

    def __init__(self, token=None, protect_predict=False, max_body_bytes=1 << 20, limits=None):
        self.token = token
        self.protect_predict = protect_predict
        self.max_body_bytes = max_body_bytes
        self.limits = limits


def _error(status, message, headers=None):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _authorized(request, token):
    """Whether the request carries ``Authorization: Bearer <token>`` (compared in constant time)."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token)


async def _body(request, cap):
    """The request's body, refused (413) past ``cap`` bytes before it is read whole."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > cap):
        raise RequestError(413, f"the body is {declared} bytes; this service takes at most {cap}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise RequestError(413, f"the body is over {cap} bytes; this service takes at most {cap}")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(model, writer, metrics, settings):
    """The Starlette application serving ``model`` (a ServedModel) through ``writer`` (its Writer)."""
    from prometheus_client import CONTENT_TYPE_LATEST
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def route(path, handler, methods, write=False, read=False):
        needs_token = settings.token is not None and (write or (read and settings.protect_predict))

        async def endpoint(request):
            started = time.perf_counter()
            try:
                if write and settings.token is None:
                    response = _error(403, "this service takes no updates: it was started without --token-file")
                elif needs_token and not _authorized(request, settings.token):
                    response = _error(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})
                else:
                    response = await handler(request)
            except RequestError as err:
                response = _error(err.status, err.message)
            except WriterStopped as err:
                response = _error(503, str(err))
            metrics.requests.labels(path, str(response.status_code)).inc()
            metrics.latency.labels(path).observe(time.perf_counter() - started)
            return response

        return Route(path, endpoint, methods=methods)

    async def predict(request):
        examples = read_features(parse_json(await _body(request, settings.max_body_bytes)), settings.limits)
        return JSONResponse(model.predict(examples))

    def updating(op):
        async def handler(request):
            document = parse_json(await _body(request, settings.max_body_bytes))
            request_id = read_request_id(document)
            examples = read_labelled(document, settings.limits)
            return JSONResponse(await writer.update(op, examples, request_id))

        return handler

    async def model_file(request):
        snapshot = await writer.snapshot()
        if snapshot is None:
            raise RequestError(409, "the model has learned nothing yet: there is no model file to send")
        seq, content = snapshot
        return Response(content, media_type="application/octet-stream",
                        headers={"X-Olearn-Updates": str(seq),
                                 "Content-Disposition": 'attachment; filename="model.npz"'})

    async def health(request):
        snapshot = writer.snapshot_state()
        answer = {"status": "ok" if snapshot["ok"] else "degraded", "updates": model.seq,
                  "estimator": type(model.estimator).__name__, "snapshot": snapshot}
        classes = getattr(model.estimator, "classes_", None)
        if classes is not None:
            answer["classes"] = classes.tolist()  # the order of a multiclass or multilabel score
        return JSONResponse(answer)

    async def metrics_text(request):
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    async def openapi(request):
        return JSONResponse(openapi_document())

    @contextlib.asynccontextmanager
    async def lifespan(app):
        writer.start()
        yield
        await writer.stop()

    routes = [
        route("/predict", predict, ["POST"], read=True),
        route("/learn", updating("learn"), ["POST"], write=True),
        route("/predict_learn", updating("predict_learn"), ["POST"], write=True),
        route("/model", model_file, ["GET"], read=True),
        route("/health", health, ["GET"]),
        route("/metrics", metrics_text, ["GET"]),
        route("/openapi.json", openapi, ["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        404: lambda request, exc: _error(404, f"no route {request.url.path}; see /openapi.json"),
        405: lambda request, exc: _error(405, f"{request.method} is not allowed on {request.url.path}"),
        500: lambda request, exc: _error(500, f"internal error: {type(exc).__name__}"),
    })
