"""The examples a group of updates learned are counted once, when the group is durable: a retried id's duplicate
and a refused update count nothing (in process, several updates in one group)."""

import asyncio

from serve_helpers import require_serve_extra

require_serve_extra()
import olearn  # noqa: E402
from olearn.serve._metrics import Metrics  # noqa: E402
from olearn.serve._requests import Limits, RequestError, parse_json, read_labelled  # noqa: E402
from olearn.serve._store import Store  # noqa: E402
from olearn.serve._writer import Writer  # noqa: E402


def _examples(body):
    return read_labelled(parse_json(body), Limits())


def test_a_group_counts_the_examples_it_learned(tmp_path):
    async def scenario():
        store = Store(tmp_path / "state")
        model = store.open(lambda: olearn.PAClassifier(), say=lambda text: None)
        appended = []
        append = store.append
        store.append = lambda records: appended.append(len(records)) or append(records)
        metrics = Metrics()
        writer = Writer(model, store, metrics)
        writer.start()
        # queued before the writer runs: one group
        updates = [writer.update("learn", _examples(b'{"x": [{"a": 1}, {"b": 1}, {"a": -1}], "y": [1, -1, -1]}'),
                                 None),
                   writer.update("learn", _examples(b'{"x": {"c": 1}, "y": 1}'), "r-1"),
                   writer.update("learn", _examples(b'{"x": {"c": 1}, "y": 1}'), "r-1"),  # the retry: a duplicate
                   writer.update("learn", _examples(b'{"x": {"c": 1}, "y": 2}'), None)]  # a third class: refused
        answers = await asyncio.gather(*updates, return_exceptions=True)
        await writer.stop()
        return answers, appended, metrics

    answers, appended, metrics = asyncio.run(scenario())
    assert answers[:3] == [{"seq": 3, "learned": 3}, {"seq": 4, "learned": 1},
                           {"seq": 4, "learned": 1, "duplicate": True}]
    assert isinstance(answers[3], RequestError) and answers[3].status == 422
    assert appended == [2]  # one write and fsync: the batch's record and the single's
    learned = {sample.name: sample.value for family in metrics.registry.collect() for sample in family.samples}
    assert learned["olearn_examples_learned_total"] == 4 and learned["olearn_model_updates"] == 4
