"""The writer applies the next group while the last one is written and fsynced, and answers each group only once
its own records are durable, in order (in process: the log's append is held by the test)."""

import asyncio
import threading

import pytest

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, parse_json, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._wal import read_log  # noqa: E402
from olearn.serve._writer import Writer, WriterStopped  # noqa: E402


def _example(i):
    return read_labelled(parse_json(f'{{"x": {{"f{i}": 1.0}}, "y": {1 if i % 2 else -1}}}'), Limits())


class _HeldLog:
    """Wraps a store's append: the first call waits for ``release`` (set by the test), then appends or fails."""

    def __init__(self, store, fail=False):
        self.append, self.fail = store.append, fail
        self.entered, self.release = threading.Event(), threading.Event()
        self.calls = []

    def __call__(self, records):
        self.calls.append(len(records))
        if len(self.calls) == 1:
            self.entered.set()
            self.release.wait(30)
            if self.fail:
                raise OSError(5, "Input/output error")
        self.append(records)


async def _until(condition):
    for _ in range(3000):  # a hang guard, not a timing: each step yields to the writer
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the writer never got there")


def test_the_next_group_is_applied_while_the_last_is_fsynced(tmp_path):
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        held = _HeldLog(store)
        store.append = held
        writer = Writer(model, store, Metrics())
        writer.start()
        first = asyncio.ensure_future(writer.update("learn", _example(0), None))
        await _until(held.entered.is_set)
        second = asyncio.ensure_future(writer.update("learn", _example(1), None))
        await _until(lambda: model.seq == 2)  # applied while the first group's log is held
        assert not first.done() and not second.done() and held.calls == [1]
        held.release.set()
        answers = await asyncio.gather(first, second)
        await writer.stop()
        return answers, held.calls

    answers, calls = asyncio.run(scenario())
    assert answers == [{"seq": 1, "learned": 1}, {"seq": 2, "learned": 1}] and calls == [1, 1]
    records, _ = read_log(next((tmp_path / "state").glob("log-*.wal")))
    assert [r["seq"] for r in records if r.get("op") == "learn"] == [1, 2]  # in the order applied


def test_a_failed_log_answers_the_group_applied_after_it_503(tmp_path):
    failures = []

    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        held = _HeldLog(store, fail=True)
        store.append = held
        writer = Writer(model, store, Metrics(), on_failure=failures.append)
        writer.start()
        first = asyncio.ensure_future(writer.update("learn", _example(0), None))
        await _until(held.entered.is_set)
        second = asyncio.ensure_future(writer.update("learn", _example(1), None))
        await _until(lambda: model.seq == 2)
        held.release.set()
        for waiting in (first, second):
            with pytest.raises(WriterStopped, match="Input/output error"):
                await waiting
        with pytest.raises(WriterStopped):
            await writer.update("learn", _example(2), None)
        await writer.stop()
        return held.calls

    assert asyncio.run(scenario()) == [1]  # the second group was never written: its request was not acknowledged
    assert len(failures) == 1 and isinstance(failures[0], OSError)


class _SteppedLog:
    """Wraps a store's append: call k waits for ``released[k]`` (set by the test), then appends; the records made
    durable and the answers given are recorded in ``events``, in their order."""

    def __init__(self, store, calls=3):
        self.append = store.append
        self.entered = [threading.Event() for _ in range(calls)]
        self.released = [threading.Event() for _ in range(calls)]
        self.calls, self.events = [], []

    def __call__(self, records):
        k = len(self.calls)
        self.calls.append(len(records))
        self.entered[k].set()
        self.released[k].wait(30)
        self.append(records)
        self.events.append(("durable", sum(self.calls)))  # the updates on disk so far (one record each)

    def submit(self, writer, i):
        answer = asyncio.ensure_future(writer.update("learn", _example(i), None))
        answer.add_done_callback(lambda done: self.events.append(("answered", done.result()["seq"])))
        return answer


def test_the_updates_arriving_during_an_fsync_are_the_next_group_answered_once_it_is_durable(tmp_path):
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        log = _SteppedLog(store)
        store.append = log
        writer = Writer(model, store, Metrics())
        writer.start()
        first = log.submit(writer, 0)
        await _until(log.entered[0].is_set)
        later = [log.submit(writer, 1)]
        await _until(lambda: model.seq == 2)
        later.append(log.submit(writer, 2))  # a later turn of the writer, while the same fsync runs
        await _until(lambda: model.seq == 3)
        assert not first.done() and not any(answer.done() for answer in later)
        log.released[0].set()
        await _until(log.entered[1].is_set)
        assert first.done() and not any(answer.done() for answer in later)
        log.released[1].set()
        answers = await asyncio.gather(first, *later)
        await writer.stop()
        return answers, log

    answers, log = asyncio.run(scenario())
    assert answers == [{"seq": 1, "learned": 1}, {"seq": 2, "learned": 1}, {"seq": 3, "learned": 1}]
    assert log.calls == [1, 2]  # one write and fsync for the two updates that arrived during the first
    durable = 0
    for kind, count in log.events:  # every answer after the fsync of its record and of every record before it
        if kind == "durable":
            durable = count
        else:
            assert count <= durable, log.events
