"""What ``--snapshot-every`` counts: the examples logged since the last snapshot, each example learned (a batch's
one by one, a label by id's too) and each prediction kept for feedback; a retried update (a duplicate id) and a
refused one log nothing, and count nothing. The help and the docs say so."""

import asyncio

import pytest
from click.testing import CliRunner

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.cli import cli  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, RequestError, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def _learn(writer, n, request_id=None, label=1):
    x = [{"a": float(i + 1)} for i in range(n)]
    return writer.update("learn", read_labelled({"x": x, "y": [label] * n}, Limits()), request_id)


async def _written(writer):
    while writer._snapshot is not None:
        await asyncio.sleep(0.01)


def test_snapshot_every_counts_the_examples_logged(tmp_path):
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(olearn.PAClassifier, pending=Pending(), say=lambda text: None)
        taken, copy = [], model.snapshot_copy  # a snapshot is of the model copied at one moment
        model.snapshot_copy = lambda: taken.append((model.seq, len(model.pending))) or copy()
        writer = Writer(model, store, Metrics(), snapshot_every=5, snapshot_seconds=3600.0)
        writer.start()
        await _learn(writer, 3, "first")  # 3 examples in one update
        await _learn(writer, 3, "first")  # its retry: nothing logged
        with pytest.raises(RequestError):
            await _learn(writer, 1, label="cat")  # refused (a third class of a binary learner): nothing logged
        await _learn(writer, 1)
        await writer.acknowledged(lambda: None)
        before = list(taken)  # 4 examples logged in 4 requests: none yet
        await _learn(writer, 1)  # the 5th example
        await writer.acknowledged(lambda: None)
        await asyncio.wait_for(_written(writer), 120)  # its files are written in a thread; its log then takes over
        await writer.keep([{"a": 1.0}, {"a": 2.0}, {"a": 3.0}], ["p1", "p2", "p3"])  # 3 predictions kept
        await writer.feedback(["p1", "p2"], [1, -1], None, True)  # 2 examples learned
        await writer.acknowledged(lambda: None)
        await writer.stop()
        return before, taken

    before, taken = asyncio.run(scenario())
    # one snapshot once 5 examples were learned, then one once 3 predictions kept and 2 labels learned
    assert before == []
    assert taken == [(5, 0), (7, 1)]


def test_the_help_of_snapshot_every_says_what_it_counts():
    result = CliRunner().invoke(cli, ["serve", "--help"], terminal_width=2000)
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if "--snapshot-every" in line)
    assert "examples logged" in line and "kept for feedback" in line and "updates" not in line
