"""A rollback releases the model it replaces, the one the service started with included: the service freezes what
its start made out of the garbage collector (``gc.freeze``), which never frees a reference cycle of frozen objects,
so the model must go by its reference count alone."""

import asyncio
import gc
import weakref

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def _learn(writer, x, y):
    return writer.update("learn", read_labelled({"x": x, "y": y}, Limits()), None)


def test_a_rollback_releases_the_frozen_starting_model_and_the_next_one(tmp_path):
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(olearn.PAClassifier, pending=Pending(), say=lambda text: None)
        metrics = Metrics()
        metrics.watch(model)
        writer = Writer(model, store, metrics, snapshot_every=1000, snapshot_seconds=3600.0)
        writer.start()
        await _learn(writer, {"a": 1.0}, 1)
        await writer.take_version()
        started = weakref.ref(model.estimator)
        gc.collect()
        gc.freeze()  # as the service does once started
        try:
            await _learn(writer, {"b": 1.0}, -1)
            await writer.roll_back(1)
            released = [started() is None]
            served = weakref.ref(model.estimator)
            await writer.roll_back(1)
            released.append(served() is None)
        finally:
            gc.unfreeze()
            await writer.stop()
        return released

    assert asyncio.run(scenario()) == [True, True]
