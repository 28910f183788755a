"""The HTTP routes of ``olearn serve`` (Starlette), their checks, errors and metrics.

Starlette is imported by :func:`create_app`, so that this module, like all
of olearn, imports without the ``serve`` extra.
"""

import contextlib
import time

from ._auth import READ, WRITE
from ._bound import Bounds
from ._dashboard import dashboard_endpoint
from ._model_file import ModelFile
from ._openapi import openapi_document
from ._fast_json import parse_json_fast
from ._feedback import new_ids
from ._packed_batch import read_packed_features, read_packed_labelled
from ._json_route import REFUSALS, JsonRoute, read_body, refusal_answer, starlette_app
from ._requests import RequestError, parse_json, read_features, read_feedback, read_labelled, \
    read_prediction_ids, read_request_id


class Settings:
    """What a service allows: who may call it (an :class:`~olearn.serve._auth.Access`), the largest
    body in bytes and the caps of :class:`~olearn.serve._requests.Limits`. The Host names it answers
    to are checked around the whole application (:class:`~olearn.serve._auth.HostCheck`, probes
    included)."""

    def __init__(self, access, max_body_bytes=1 << 20, limits=None):
        self.access = access
        self.max_body_bytes = max_body_bytes
        self.limits = limits


def _error(status, message, headers=None):
    from starlette.responses import JSONResponse

    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _body(request, cap):
    """The request's body, refused (413) past ``cap`` bytes before it is read whole (408 if it never is)."""
    return await read_body(request.receive, request.headers.get("content-length"), cap)


def create_app(model, writer, metrics, settings):
    """The Starlette application serving ``model`` (a ServedModel) through ``writer`` (its Writer)."""
    from prometheus_client import CONTENT_TYPE_LATEST
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def route(path, handler, methods, access=READ):
        """The route of ``handler``, for callers with the token of ``access`` (WRITE or READ)."""

        async def endpoint(request):
            started = time.perf_counter()
            try:
                settings.access.check(request.headers, access)
                response = await handler(request)
            except REFUSALS as err:
                response = _error(*refusal_answer(err))
            metrics.requests.observe(path, str(response.status_code), time.perf_counter() - started)
            return response

        return Route(path, endpoint, methods=methods)

    async def predict(body):
        """Predict at once, on the model as the last update applied left it (updates are applied whole, between
        two requests' turns on the event loop), then, with feedback on, wait until the features are kept (409 for
        an id in use); a batch of plain named features read from the body by compiled passes (see
        :mod:`~olearn.serve._packed_batch`), any other body decoded by orjson; the answer encoded by orjson (a plain
        ASGI route, see :mod:`~olearn.serve._json_route`)."""
        known = ("x", "id") if model.pending.enabled else ("x",)
        packed = read_packed_features(body, settings.limits, known)  # a batch of plain named features, or None
        if packed is not None:
            examples, document = packed
        else:
            document = parse_json_fast(body)
            examples = read_features(document, settings.limits, known)
        if not model.pending.enabled:
            return model.predict(examples)
        ids = read_prediction_ids(document, examples) or new_ids(len(examples))
        answer = model.predict(examples)
        await writer.keep(examples.kept_features(), ids)
        answer["id"] = ids if examples.batch else ids[0]
        return answer

    def updating(op):
        """The JSON route of ``op``: a body's update, answered once it is durable (a plain ASGI route, see
        :mod:`~olearn.serve._json_route`)."""

        async def handler(body):
            examples = read_packed_labelled(body, settings.limits) if op == "learn" else None
            if examples is not None:  # a batch of plain named features, with no update id
                return await writer.update(op, examples, None, body)
            document = parse_json_fast(body)
            if op == "learn" and "x" not in document and "id" in document:  # feedback by id
                return await writer.feedback(*read_feedback(document, settings.limits))
            request_id = read_request_id(document)
            examples = read_labelled(document, settings.limits)
            return await writer.update(op, examples, request_id, body)  # the body logged as received

        return JsonRoute(f"/{op}", handler, WRITE, settings, metrics)

    model_files = ModelFile(model, writer)

    async def model_file(request):
        made = await model_files.content()
        if made is None:
            raise RequestError(409, "the model has learned nothing yet: there is no model file to send")
        seq, content = made
        return Response(content, media_type="application/octet-stream",
                        headers={"X-Olearn-Updates": str(seq),
                                 "Content-Disposition": 'attachment; filename="model.npz"'})

    async def health(request):
        snapshot = writer.snapshot_state()
        answer = {"status": "ok" if snapshot["ok"] else "degraded", "updates": model.seq,
                  "estimator": type(model.estimator).__name__, "feature_keys": model.feature_keys,
                  "snapshot": snapshot}
        classes = getattr(model.estimator, "classes_", None)
        if classes is not None:
            answer["classes"] = classes.tolist()  # the order of a multiclass or multilabel score
        return JSONResponse(answer)

    async def metrics_text(request):
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    # -- versions and rollback ---------------------------------------------------------------------------
    async def versions(request):
        if request.method == "POST":
            return JSONResponse(await writer.take_version())
        return JSONResponse({"current": {"updates": model.seq, "rolled_back_to": model.version,
                                         "progressive": model.progress.summary()},
                             "versions": writer.store.versions.listing()})

    async def rollback(request):
        document = parse_json(await _body(request, settings.max_body_bytes))
        number = document.get("version")
        if set(document) != {"version"} or isinstance(number, bool) or not isinstance(number, int):
            raise RequestError(422, 'the body must be {"version": N}, N the number of a version (GET /versions)')
        return JSONResponse(await writer.roll_back(number))

    bounds = Bounds(model)

    async def bound(request):
        return JSONResponse(await bounds.answer())

    async def openapi(request):
        return JSONResponse(openapi_document())

    @contextlib.asynccontextmanager
    async def lifespan(app):
        writer.start()
        yield
        await writer.stop()

    routes = [
        Route("/predict", JsonRoute("/predict", predict, READ, settings, metrics), methods=["POST"]),
        Route("/learn", updating("learn"), methods=["POST"]),
        Route("/predict_learn", updating("predict_learn"), methods=["POST"]),
        route("/model", model_file, ["GET"]),
        route("/health", health, ["GET"]),
        route("/metrics", metrics_text, ["GET"]),
        route("/openapi.json", openapi, ["GET"]),
        # versions and rollback
        route("/versions", versions, ["GET"]),
        route("/versions", versions, ["POST"], WRITE),
        route("/rollback", rollback, ["POST"], WRITE),
        route("/bound", bound, ["GET"]),  # the papers' bounds beside the measured mistakes (the live page's)
        Route("/", dashboard_endpoint(settings.access), methods=["GET"]),  # the live page (a token in its URL too)
    ]
    return starlette_app(routes, lifespan=lifespan, exception_handlers={
        404: lambda request, exc: _error(404, f"no route {request.url.path}; see /openapi.json"),
        405: lambda request, exc: _error(405, f"{request.method} is not allowed on {request.url.path}"),
        500: lambda request, exc: _error(500, f"internal error: {type(exc).__name__}"),
    })
