"""The OpenAPI 3.1 description of the service, served at ``/openapi.json``."""

import functools

from .. import __version__ as _version

_NUMBER_OR_CATEGORY = {"oneOf": [{"type": "number"}, {"type": "boolean"}, {"type": "string"}, {"type": "null"}]}
_FEATURES = {
    "type": "object",
    "description": "One example: every key a feature name, or, when the service's feature keys are indices "
                   "(GET /health says which), every key a column index in digits; a value is a finite number "
                   "(true and false are 1 and 0), a string (a category: the feature 'key=value' with value 1; "
                   "names only) or null (absent).",
    "additionalProperties": _NUMBER_OR_CATEGORY,
}
_SCALAR_LABEL = {"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}
_LABEL = {"description": "A class, a regression target, or an array of the relevant labels (multilabel).",
          "oneOf": [_SCALAR_LABEL, {"type": "array", "items": _SCALAR_LABEL}]}
_WEIGHT = {"type": "number", "minimum": 0}
_ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
_ID = {"type": "string", "pattern": "^[A-Za-z0-9._:~-]{1,128}$"}
_PROGRESSIVE = {"type": "object", "required": ["metric", "value", "rounds"],
                "description": "Progressive validation since the state began: each round predicted just before it "
                              "was learned (/predict_learn, feedback by id)",
                "properties": {"metric": {"type": "string", "enum": ["accuracy", "mae"]},
                               "value": {"type": ["number", "null"]}, "rounds": {"type": "integer"}}}


def _one_or_batch(single, name):
    # anyOf: an array of labels is one multilabel example's label or a batch's labels; "x" tells which
    return {"anyOf": [single, {"type": "array", "items": single, "minItems": 1,
                               "description": f"A batch: one {name} per example (when x is an array)."}]}


_SCHEMAS = {
    "Features": _FEATURES,
    "Label": _LABEL,
    "Error": _ERROR,
    "PredictRequest": {"type": "object", "required": ["x"], "additionalProperties": False,
                       "properties": {"x": _one_or_batch({"$ref": "#/components/schemas/Features"}, "object"),
                                      "id": {**_one_or_batch(_ID, "id"),
                                             "description": "Names the prediction(s), for feedback by id "
                                                            "(else the service names them)."}}},
    "PredictResponse": {
        "type": "object", "required": ["y", "score"],
        "properties": {"id": {"description": "The id of the prediction (an array for a batch), for its feedback; "
                                             "absent when the service keeps no predictions (--max-pending 0)."},
                       "y": {"description": "The prediction (null before anything is learned); an array for "
                                            "a batch."},
                       "score": {"description": "The decision value(s): a number, or one per class; an array "
                                                "for a batch."}}},
    "LearnRequest": {
        "type": "object", "required": ["x", "y"], "additionalProperties": False,
        "properties": {
            "x": _one_or_batch({"$ref": "#/components/schemas/Features"}, "object"),
            "y": _one_or_batch({"$ref": "#/components/schemas/Label"}, "label"),
            "sample_weight": {"oneOf": [_WEIGHT, {"type": "array", "items": _WEIGHT}]},
            "id": {**_ID, "description": "Names the update: a retry with the same id is learned once."},
        }},
    "FeedbackRequest": {
        "type": "object", "required": ["id", "y"], "additionalProperties": False,
        "description": "The label(s) of prediction(s) made by /predict, named by their id(s): learned once each.",
        "properties": {"id": _one_or_batch(_ID, "id"),
                       "y": _one_or_batch({"$ref": "#/components/schemas/Label"}, "label"),
                       "sample_weight": {"oneOf": [_WEIGHT, {"type": "array", "items": _WEIGHT}]}}},
    "LearnOrFeedbackRequest": {"oneOf": [{"$ref": "#/components/schemas/LearnRequest"},
                                         {"$ref": "#/components/schemas/FeedbackRequest"}]},
    "LearnResponse": {
        "type": "object", "required": ["seq", "learned"],
        "properties": {"seq": {"type": "integer", "description": "The number of examples learned once this "
                                                                 "update was (its last example's position)."},
                       "learned": {"type": "integer"},
                       "duplicate": {"type": "boolean", "description": "A retry of an update already learned."}}},
    "PredictLearnResponse": {
        "allOf": [{"$ref": "#/components/schemas/LearnResponse"},
                  {"type": "object", "required": ["y"],
                   "properties": {"y": {"description": "The prediction(s) made before learning."}}}]},
    "Version": {"type": "object", "required": ["version", "updates", "created", "requested", "progressive"],
                "properties": {"version": {"type": "integer"},
                               "updates": {"type": "integer", "description": "The updates (seq) it holds"},
                               "created": {"type": "number", "description": "When it was taken (Unix time)"},
                               "requested": {"type": "boolean",
                                             "description": "Taken on POST /versions (else at a snapshot)"},
                               "progressive": _PROGRESSIVE}},
    "Versions": {"type": "object", "required": ["current", "versions"],
                 "properties": {"current": {"type": "object", "required": ["updates", "rolled_back_to", "progressive"],
                                            "properties": {"updates": {"type": "integer"},
                                                           "rolled_back_to": {"type": ["integer", "null"]},
                                                           "progressive": _PROGRESSIVE}},
                                "versions": {"type": "array", "items": {"$ref": "#/components/schemas/Version"}}}},
    "VersionRequest": {"type": "object", "additionalProperties": False,
                       "description": "Nothing: the body, if any, is not read."},
    "RollbackRequest": {"type": "object", "required": ["version"], "additionalProperties": False,
                        "properties": {"version": {"type": "integer"}}},
    "RollbackResponse": {"type": "object", "required": ["version", "updates", "seq"],
                         "properties": {"version": {"type": "integer"},
                                        "updates": {"type": "integer", "description": "The updates the version holds"},
                                        "seq": {"type": "integer", "description": "The service's seq (unchanged)"}}},
    "Probe": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string"}}},
    "Bound": {"type": "object", "required": ["bounded", "rows"],
              "description": "The papers' bounds of the learner beside what it measured on the rounds it learned, "
                             "as olearn run --bound states them (bounded: false for a learner without theorems, or "
                             "whose rounds are not all known; reason says why there is no row)",
              "properties": {"bounded": {"type": "boolean"},
                             "rounds": {"type": "integer", "description": "The rounds the bounds cover"},
                             "seen": {"type": "integer", "description": "The rounds the learner learned"},
                             "updates": {"type": "integer", "description": "The seq of the model the answer is of"},
                             "learner": {"type": "string"}, "reason": {"type": "string"},
                             "rows": {"type": "array", "items": {
                                 "type": "object", "required": ["theorem", "quantity", "measured", "bound", "holds"],
                                 "properties": {"theorem": {"type": "string"}, "quantity": {"type": "string"},
                                                "measured": {"type": "number"}, "bound": {"type": "number"},
                                                "holds": {"type": "boolean"}}}},
                             "skipped": {"type": "array", "description": "[theorem, why it does not apply]",
                                         "items": {"type": "array", "items": {"type": "string"}}}}},
    "Health": {"type": "object", "required": ["status", "updates"],
               "properties": {"status": {"type": "string", "description": "ok, or degraded while snapshots fail"},
                              "updates": {"type": "integer"},
                              "estimator": {"type": "string"},
                              "feature_keys": {"type": "string", "enum": ["names", "indices"],
                                               "description": "How the keys of an example are read"},
                              "snapshot": {"type": "object", "required": ["ok", "updates"],
                                           "description": "The last snapshot: the updates it holds, and whether "
                                                          "the last attempt succeeded (else its error)",
                                           "properties": {"ok": {"type": "boolean"},
                                                          "updates": {"type": "integer"},
                                                          "error": {"type": "string"}}},
                              "classes": {"type": "array", "description": "The classes known, in the order of "
                                                                          "a score per class"}}},
}


def _json(schema):
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}


def _errors(*statuses):
    text = {400: "Malformed JSON", 401: "Missing or wrong bearer token", 403: "Writes are disabled",
            404: "Unknown or expired id, or no such version",
            409: "Conflict", 413: "Body, batch or example too large", 422: "Invalid example or label",
            500: "The version cannot be loaded (the model served is unchanged)",
            507: "The version cannot be written",
            503: "Starting (see /ready), or the writer stopped (restart the service)"}
    return {str(status): {"description": text[status], "content": _json("Error")} for status in statuses}


def _post(summary, request, response, statuses, secured, body_required=True):
    operation = {"summary": summary, "requestBody": {"required": body_required, "content": _json(request)},
                 "responses": {"200": {"description": "OK", "content": _json(response)}, **_errors(*statuses)}}
    if secured:
        operation["security"] = [{"bearer": []}]
    return {"post": operation}


@functools.cache
def openapi_document():
    """The OpenAPI document (a dict)."""
    writes = (400, 401, 403, 409, 413, 422, 503)
    return {
        "openapi": "3.1.0",
        "info": {"title": "olearn serve", "version": _version,
                 "description": "An online learner that keeps learning: predict, learn, and fetch the model."},
        "paths": {
            "/predict": _post("Predict one example or a batch (kept for feedback by id, durably)", "PredictRequest",
                              "PredictResponse", (400, 401, 409, 413, 422, 503), secured=True),
            "/learn": _post("Learn one example or a batch, or the feedback of predictions by id (durable once "
                            "answered)", "LearnOrFeedbackRequest", "LearnResponse", (404, *writes), secured=True),
            "/predict_learn": _post("Predict, then learn (progressive validation)", "LearnRequest",
                                    "PredictLearnResponse", writes, secured=True),
            "/versions": {
                "get": {"summary": "The versions kept, with their updates and progressive metric, and the model "
                                   "served now",
                        "responses": {"200": {"description": "OK", "content": _json("Versions")}, **_errors(401, 503)}},
                **_post("Take a version of the model now (kept)", "VersionRequest", "Version", (401, 403, 503, 507),
                        secured=True, body_required=False)},
            "/rollback": _post("Serve a version again; the updates since stay in the log as history", "RollbackRequest",
                               "RollbackResponse", (400, 401, 403, 404, 422, 500, 503), secured=True),
            "/bound": {"get": {"summary": "The papers' mistake or loss bounds beside the measured values (the live "
                                         "page's)",
                               "responses": {"200": {"description": "OK", "content": _json("Bound")},
                                             **_errors(401, 503)}}},
            "/model": {"get": {"summary": "The model of the acknowledged updates, as an est.save file",
                               "security": [{"bearer": []}],
                               "responses": {"200": {"description": "The model file (olearn.load reads it)",
                                                     "headers": {"X-Olearn-Updates": {
                                                         "schema": {"type": "integer"},
                                                         "description": "The updates the file holds"}},
                                                     "content": {"application/octet-stream": {
                                                         "schema": {"type": "string", "format": "binary"}}}},
                                             **_errors(401, 409, 503)}}},
            "/": {"get": {"summary": "The live page: progressive metric over time, updates per second, the "
                                     "service's metrics and versions (the read token in the header or as the "
                                     "token query parameter)",
                          "parameters": [{"name": "token", "in": "query", "required": False,
                                          "schema": {"type": "string"}}],
                          "responses": {"200": {"description": "An HTML page", "content": {"text/html": {
                              "schema": {"type": "string"}}}}, **_errors(401, 503)}}},
            "/health": {"get": {"summary": "The number of updates learned, the estimator, its classes and the state "
                                           "of the snapshots",
                                "responses": {"200": {"description": "OK", "content": _json("Health")},
                                              **_errors(401, 503)}}},
            "/live": {"get": {"summary": "Liveness: 200 as long as the process runs, from the moment the port "
                                         "opens (no token needed)", "security": [],
                              "responses": {"200": {"description": "Alive", "content": _json("Probe")}}}},
            "/ready": {"get": {"summary": "Readiness: 200 once the state is recovered and the learner warmed up, "
                                          "while the service takes requests (no token needed)", "security": [],
                               "responses": {"200": {"description": "Ready", "content": _json("Probe")},
                                             **_errors(503)}}},
            "/metrics": {"get": {"summary": "Prometheus metrics",
                                 "responses": {"200": {"description": "Prometheus text format",
                                                       "content": {"text/plain": {"schema": {"type": "string"}}}},
                                               **_errors(401)}}},
            "/openapi.json": {"get": {"summary": "This document",
                                      "responses": {"200": {"description": "OpenAPI 3.1",
                                                            "content": {"application/json": {
                                                                "schema": {"type": "object"}}}},
                                                    **_errors(401)}}},
        },
        # every route needs the bearer token unless the service runs with --public-reads (reads) or says otherwise
        "security": [{"bearer": []}],
        "components": {"schemas": _SCHEMAS,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
