"""``--freeze-features`` after a rollback: the features frozen are those of the version served, not those of the
model at the start (a version taken before the service froze its features may know fewer or more of them)."""

import asyncio

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, RequestError, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def _examples(x, y):
    return read_labelled({"x": x, "y": y}, Limits())


def _run(state, frozen, scenario):
    """Run ``scenario(writer, model)`` on a writer of the state folder ``state``; its result."""

    async def main():
        store = Store(state)
        model = store.open(lambda: olearn.PAClassifier(), frozen=frozen, pending=Pending(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=1000, snapshot_seconds=60)
        writer.start()
        try:
            return await scenario(writer, model)
        finally:
            await writer.stop()

    return asyncio.run(main())


async def _refusal(call):
    with pytest.raises(RequestError) as refused:
        await call
    return refused.value


def test_a_rollback_freezes_the_features_of_the_version_served(tmp_path):
    state = tmp_path / "state"

    async def taken_without_freezing(writer, model):
        empty = await writer.take_version()  # 1: nothing learned yet
        await writer.update("learn", _examples([{"a": 1.0}, {"b": 1.0}], [1, -1]), None)
        first = await writer.take_version()  # 2: knows a and b
        await writer.update("learn", _examples({"c": 1.0}, 1), None)
        second = await writer.take_version()  # 3: knows a, b and c
        return empty["version"], first["version"], second["version"]

    assert _run(state, False, taken_without_freezing) == (1, 2, 3)

    async def frozen(writer, model):
        assert model.frozen[1] == {"a", "b", "c"}  # the features at the start
        assert (await writer.roll_back(2))["version"] == 2
        served = model.estimator
        refused = await _refusal(writer.update("learn", _examples({"c": 2.0}, -1), None))
        unchanged = model.estimator is served and set(served.vocabulary_) == {"a", "b"}
        predicted = await _refusal(writer.update("predict_learn", _examples({"c": 1.0}, 1), None))
        known = await writer.update("learn", _examples({"a": 0.5}, 1), None)
        assert (await writer.roll_back(3))["version"] == 3
        learned = await writer.update("learn", _examples({"c": 2.0}, -1), None)  # c is the version's own
        empty = await _refusal(writer.roll_back(1))
        return refused, unchanged, predicted, known, learned, empty, model.version, set(model.estimator.vocabulary_)

    refused, unchanged, predicted, known, learned, empty, version, vocabulary = _run(state, True, frozen)
    assert refused.status == 422 and "'c' is not in the model's fixed vocabulary" in refused.message
    assert unchanged and predicted.status == 422
    assert known["learned"] == 1 and learned["learned"] == 1
    assert empty.status == 409 and "version 1 has learned nothing" in empty.message
    assert version == 3 and vocabulary == {"a", "b", "c"}  # the refused rollback changed nothing

    async def restarted(writer, model):  # a restart freezes the features of the version rolled back to
        await writer.roll_back(2)
        return model.frozen[1]

    assert _run(state, True, restarted) == {"a", "b"}
