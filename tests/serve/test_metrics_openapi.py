"""``GET /metrics`` (read back with prometheus_client's own parser) and ``GET /openapi.json`` (every route
listed with its schemas, and the service's real answers valid under them, checked with jsonschema)."""

import pytest

import olearn
from serve_helpers import require_serve_extra
from olearn.serve._app import Settings, create_app
from olearn.serve._startup import PROBES

require_serve_extra()
jsonschema = pytest.importorskip("jsonschema")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402


def _samples(text):
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_count_requests_examples_and_progressive_accuracy(serve):
    server = serve(["--algo", "pa"])
    offline = olearn.PAClassifier(variant="pa")
    stream = [({"1": 1.0}, 1), ({"2": 1.0}, -1), ({"1": 1.0, "2": 0.5}, 1), ({"2": 2.0}, 1), ({"1": -1.0}, -1)]
    right = 0
    with server.client() as client:
        for x, y in stream:
            answer = client.post("/predict_learn", json={"x": x, "y": y}).json()
            predicted = offline.predict_learn_one(x, y)  # every key a name, as the service reads it
            assert answer["y"] == predicted
            right += predicted == y
        # a prediction is answered before its record is durable; the updates after it are acknowledged after it
        client.post("/predict", json={"x": {"3": 1.0}})
        client.post("/learn", json={"x": [{"3": 1.0}] * 3, "y": [1, -1, 1]})
        client.post("/learn", json={"x": {"3": 1.0}, "y": 5})  # refused
        samples = _samples(client.get("/metrics").text)
    assert samples[("olearn_requests_total", (("route", "/predict_learn"), ("status", "200")))] == 5
    assert samples[("olearn_requests_total", (("route", "/learn"), ("status", "200")))] == 1
    assert samples[("olearn_requests_total", (("route", "/learn"), ("status", "422")))] == 1
    assert samples[("olearn_request_seconds_count", (("route", "/learn"),))] == 2
    assert samples[("olearn_examples_learned_total", ())] == 8
    assert samples[("olearn_model_updates", ())] == 8
    # 6 updates and the prediction kept for feedback logged, one record each
    assert samples[("olearn_log_group_updates_sum", ())] == 7
    # the first prediction is None (no class known yet): a miss
    assert samples[("olearn_progressive_accuracy", ())] == right / 5
    assert samples[("olearn_progressive_rounds", ())] == 5
    assert samples[("olearn_progressive_accuracy_since_start", ())] == right / 5
    assert samples[("olearn_progressive_rounds_since_start", ())] == 5
    assert samples[("olearn_feedback_pending", ())] == 1
    assert samples[("olearn_feedback_pending_bytes", ())] == len('{"3":1.0}')


def _validator(document, name):
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{name}",
                                            "components": document["components"]})


def test_the_openapi_document_lists_every_route_with_its_schemas(serve):
    app = create_app(None, None, None, Settings(None))
    served = {(route.path, method.lower()) for route in app.routes for method in route.methods if method != "HEAD"}
    served |= {(path, "get") for path in PROBES}  # answered before the routes, from the moment the port opens
    server = serve(["--algo", "pa1"])
    with server.client() as client:
        document = client.get("/openapi.json").json()
        documented = {(path, method) for path, item in document["paths"].items() for method in item}
        assert documented == served
        jsonschema.Draft202012Validator.check_schema({"components": document["components"]})
        for (path, method) in documented:
            operation = document["paths"][path][method]
            assert operation["summary"] and "200" in operation["responses"]
            if method == "post":
                ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                assert ref.rsplit("/", 1)[1] in document["components"]["schemas"]
        learn = _validator(document, "LearnRequest")
        for body in ({"x": {"3": 0.5, "age": 1, "city": "Paris", "zip": None}, "y": 1},
                     {"x": [{"1": 1.0}, {"2": 1.0}], "y": ["a", "b"], "sample_weight": [1, 0.5], "id": "r-1"}):
            learn.validate(body)
        for body in ({"x": {"1": 1.0}}, {"x": {"1": [1]}, "y": 1}, {"x": {"1": 1.0}, "y": 1, "other": 2},
                     {"x": {"1": 1.0}, "y": 1, "id": "has space"}, {"x": {"1": 1.0}, "y": 1, "sample_weight": -1}):
            assert not learn.is_valid(body), body
        answers = {
            "LearnResponse": client.post("/learn", json={"x": {"1": 1.0}, "y": 1}).json(),
            "PredictLearnResponse": client.post("/predict_learn", json={"x": {"2": 1.0}, "y": -1, "id": "a"}).json(),
            "PredictResponse": client.post("/predict", json={"x": [{"1": 1.0}]}).json(),
            "Health": client.get("/health").json(),
            "Probe": client.get("/ready").json(),
            "Error": client.post("/learn", json={"x": {"1": 1.0}}).json(),
        }
        answers["LearnResponse (duplicate)"] = client.post("/predict_learn",
                                                           json={"x": {"2": 1.0}, "y": -1, "id": "a"}).json()
        answers["Version"] = client.post("/versions").json()
        answers["RollbackResponse"] = client.post("/rollback", json={"version": 1}).json()
        answers["Versions"] = client.get("/versions").json()
        answers["Bound"] = client.get("/bound").json()
        answers["PredictResponse (caller's ids)"] = client.post("/predict", json={"x": [{"1": 1.0}],
                                                                                 "id": ["p-1"]}).json()
        answers["LearnResponse (feedback)"] = client.post("/learn", json={"id": "p-1", "y": 1}).json()
    feedback = _validator(document, "LearnOrFeedbackRequest")
    for body in ({"id": "p-1", "y": 1}, {"id": ["p-1", "p-2"], "y": [1, -1], "sample_weight": 2},
                 {"x": {"1": 1.0}, "y": 1, "id": "r-1"}):
        feedback.validate(body)
    for body in ({"id": "p-1"}, {"id": "p 1", "y": 1}, {"id": "p-1", "y": 1, "x": {"1": 1.0}, "other": 1}):
        assert not feedback.is_valid(body), body
    for name, answer in answers.items():
        _validator(document, name.split()[0]).validate(answer)
    assert document["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    assert document["paths"]["/learn"]["post"]["security"] == [{"bearer": []}]
