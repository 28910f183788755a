"""A snapshot's log takes over in the task that logs the groups, between two groups, while the writer goes on
applying: a prediction's features are kept (and answered) while the new log is fsynced and takes its name, and an
update that arrives meanwhile is acknowledged only once its group is logged after the switch, to the new log. A
restart from that log recovers both."""

import asyncio
import os
import threading

from serve_helpers import PATIENCE, require_serve_extra, settled

require_serve_extra()

import numpy as np  # noqa: E402

import olearn  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import read_log  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402

_XS = [{"a": 1.0, "b": -0.5}, {"a": -1.0, "c": 2.0}, {"b": 1.5}, {"c": -1.0, "d": 0.5}]
_YS = [1, -1, 1, -1]


def _records(folder, seq):
    return [(record["op"], record.get("seq", record.get("ids"))) for record in
            read_log(os.path.join(folder, f"log-{seq:016d}.wal"))[0]]


def test_predictions_are_kept_while_a_snapshot_log_takes_over_and_updates_wait_for_it(tmp_path, monkeypatch):
    """--snapshot-every 3: 3 examples learned make a snapshot due; its log's switch is held. Meanwhile an update is
    applied but not acknowledged, and a prediction kept is answered (before: both waited for the switch, the writer
    held). Released, the new log holds the checkpoint of 3, then the update and the kept prediction in the order
    they were applied; a restart from it serves the same model with the prediction waiting."""
    folder = str(tmp_path / "state")
    order, entered, released = [], threading.Event(), threading.Event()
    switch_log = Store.switch_log

    def held_switch(store, copied, partial, since):
        if copied.seq == 3:
            entered.set()
            released.wait(PATIENCE)  # a hang guard only
            order.append("switched")
        return switch_log(store, copied, partial, since)

    monkeypatch.setattr(Store, "switch_log", held_switch)

    async def scenario():
        store = Store(folder)
        model = store.open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
        writer = Writer(model, store, Metrics(), snapshot_every=3, snapshot_seconds=3600.0)
        writer.start()
        try:
            examples = read_labelled({"x": _XS[:3], "y": _YS[:3]}, Limits())
            assert (await writer.update("learn", examples, None))["seq"] == 3
            assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, PATIENCE)
            update = asyncio.ensure_future(writer.update("learn", read_labelled({"x": _XS[3], "y": _YS[3]},
                                                                                Limits()), None))
            await asyncio.sleep(0)  # the update is queued first
            assert await writer.keep([{"a": 2.0}], ["p"]) is not None
            order.append("kept")
            assert not update.done()  # its group is logged after the switch
            released.set()
            assert (await update)["seq"] == 4
            order.append("acknowledged")
            await settled(writer)
            return model.estimator.decision_function(_XS)
        finally:
            await writer.stop()

    served = asyncio.run(scenario())
    assert order == ["kept", "switched", "acknowledged"]
    assert _records(folder, 0) == [("checkpoint", 0), ("learn", 3)]
    assert _records(folder, 3) == [("checkpoint", 3), ("learn", 4), ("predict", ["p"])]
    monkeypatch.setattr(Store, "switch_log", switch_log)
    recovered = Store(folder).open(lambda: olearn.PAClassifier(), pending=Pending(), say=lambda text: None)
    assert recovered.seq == 4 and recovered.pending.features(["p"]) == [{"a": 2.0}]
    np.testing.assert_array_equal(recovered.estimator.decision_function(_XS), served)
