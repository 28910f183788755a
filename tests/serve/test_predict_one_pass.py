"""A batch ``/predict`` of a binary classifier or a linear regressor checks and scores its rows once: the labels are
decoded from the scores (a regressor's are its scores), and equal those a plain NumPy transcription gives; other
learners take their two calls. The ids of the features kept are checked at once, and the id at fault still named."""

import random

import numpy as np
import pytest

from serve_helpers import require_serve_extra

require_serve_extra()

import olearn  # noqa: E402
from olearn._learner import OnlineLearner  # noqa: E402
from olearn.multiclass import PAMulticlass  # noqa: E402
from olearn.serve._feedback import Pending  # noqa: E402
from olearn.serve._model import ServedModel  # noqa: E402
from olearn.serve._requests import Limits, RequestError, read_features  # noqa: E402


def _rows(rng, n, names):
    return [{f"f{j}": round(rng.gauss(0, 1), 4) for j in rng.sample(range(names), 4)} for _ in range(n)]


def _trained(learner, label):
    rng = random.Random(7)
    for x in _rows(rng, 40, 8):
        learner.learn_one(x, label(x))
    return learner


def _counted_checks(monkeypatch):
    calls = []
    check = OnlineLearner._check_X
    monkeypatch.setattr(OnlineLearner, "_check_X", lambda self, *args, **kw: calls.append(1) or check(self, *args,
                                                                                                       **kw))
    return calls


def _plain_scores(learner, batch):
    """w.x + b over the names the learner knows (plain NumPy), the others left out."""
    weights = dict(zip(learner.vocabulary_, np.ravel(learner.coef_)[list(learner.vocabulary_.values())]))
    return np.array([sum(weights[k] * v for k, v in x.items() if k in weights) for x in batch]) \
        + float(np.ravel(learner.intercept_)[0])


@pytest.mark.parametrize("learner, label", [
    (olearn.PAClassifier(), lambda x: 1 if x.get("f0", 0) - x.get("f1", 0) > 0 else -1),
    (olearn.PARegressor(), lambda x: 2.0 * x.get("f0", 0) - x.get("f2", 0)),
])
def test_a_binary_or_regression_batch_is_checked_and_scored_once(learner, label, monkeypatch):
    model = ServedModel(_trained(learner, label))
    batch = _rows(random.Random(8), 25, 10)  # f8 and f9 unknown
    calls = _counted_checks(monkeypatch)
    answer = model.predict(read_features({"x": batch}, Limits()))
    assert len(calls) == 1  # before: one for the labels, one for the scores
    expected = _plain_scores(learner, batch)
    np.testing.assert_allclose(answer["score"], expected, rtol=1e-12, atol=1e-12)
    if isinstance(learner, olearn.PARegressor):
        assert answer["y"] == answer["score"]
    else:
        assert answer["y"] == [1 if s > 0 else -1 for s in expected]


def test_a_multiclass_batch_keeps_its_labels_and_scores():
    learner = _trained(PAMulticlass(), lambda x: "abc"[int(abs(x.get("f0", 0.5) * 3)) % 3])
    batch = _rows(random.Random(9), 12, 8)
    answer = ServedModel(learner).predict(read_features({"x": batch}, Limits()))
    assert answer["y"] == [learner.predict_one(x) for x in batch]
    np.testing.assert_allclose(answer["score"], learner.decision_function(batch).tolist(), rtol=1e-12)


@pytest.mark.parametrize("ids, fault", [(["a", "b", "a"], "'a'"), (["c", "w"], "'w'"), (["d", "l"], "'l'")])
def test_ids_in_use_are_refused_by_name(ids, fault):
    pending = Pending()
    pending.add(["w"], [{"f": 1.0}], 0.0)
    pending.add(["l"], [{"f": 2.0}], 0.0)
    pending.learned(["l"], 1)
    with pytest.raises(RequestError) as refused:
        pending.check_new(ids)
    assert refused.value.status == 409 and fault in refused.value.message
    pending.check_new(["x", "y"])
