"""One-example predictions are plain Python labels of the type given, as River users compare and print them.

``predict_one(x) == y`` must be a bool and ``print(predict_one(x))`` must show ``a``, not
``np.str_('a')``: for every classifier of ``olearn.all_estimators()``, a pipeline and an
ensemble, with int, str and bool labels, the type of each prediction is exactly the
type of the labels learned.
"""

import numpy as np
import pytest

import olearn
from olearn import PAClassifier, Perceptron
from olearn.experts import LearnerEnsemble
from olearn.preprocessing import StandardScaler

LABELS = {"int": [0, 1], "str": ["no", "yes"], "bool": [False, True]}
CLASSIFIERS = [(name, cls) for name, cls in olearn.all_estimators()
               if getattr(cls, "_task", None) in ("binary", "multiclass") and hasattr(cls, "predict_one")]


def stream(labels, n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    return [({j: float(v) for j, v in enumerate(row)}, labels[int(row[0] + 0.3 * row[1] > 0)]) for row in X]


def predictions(model, labels):
    """Every answer of predict_one and predict_learn_one over a stream (None answers left out)."""
    answers = []
    for x, y in stream(labels):
        answers.append(model.predict_one(x))
        answers.append(model.predict_learn_one(x, y) if hasattr(model, "predict_learn_one") else None)
        if not hasattr(model, "predict_learn_one"):
            model.learn_one(x, y)
        answers.append(model.predict_one(x))
    return [a for a in answers if a is not None]


def test_every_classifier_is_covered():
    assert {"PAClassifier", "Perceptron", "AROW", "PAMulticlass", "MIRA"} <= {name for name, _ in CLASSIFIERS}


@pytest.mark.parametrize("kind", LABELS)
@pytest.mark.parametrize("name,cls", CLASSIFIERS, ids=[name for name, _ in CLASSIFIERS])
def test_prediction_is_the_labels_python_type(name, cls, kind):
    labels = LABELS[kind]
    answers = predictions(cls(), labels)
    assert answers, "the stream gave no prediction"
    assert {type(a) for a in answers} == {type(labels[0])}
    assert set(answers) <= set(labels)


@pytest.mark.parametrize("kind", LABELS)
@pytest.mark.parametrize("model", [
    lambda labels: PAClassifier(average=True),
    lambda labels: PAClassifier(kernel="rbf"),
    lambda labels: PAClassifier(class_weight={labels[0]: 1.0, labels[1]: 2.0}),
    lambda labels: StandardScaler() | PAClassifier(),
    lambda labels: StandardScaler() | olearn.PAMulticlass(),
], ids=["averaged", "kernel", "class_weight", "pipeline", "pipeline_multiclass"])
def test_prediction_type_other_paths(model, kind):
    labels = LABELS[kind]
    answers = predictions(model(labels), labels)
    assert answers and {type(a) for a in answers} == {type(labels[0])}


@pytest.mark.parametrize("kind", LABELS)
def test_ensemble_prediction_type(kind):
    labels = LABELS[kind]
    ens = LearnerEnsemble([Perceptron(), PAClassifier()])
    answers = []
    for x, y in stream(labels):
        ens.learn_one(x, y)
        answers.append(ens.predict_one(x))
    assert {type(a) for a in answers} == {type(labels[0])}


def test_learned_from_numpy_labels_predicts_python_values():
    # labels read into a NumPy array (a CSV column) come back as the Python values they hold
    model = PAClassifier()
    for (x, _), y in zip(stream(LABELS["str"]), np.array(["no", "yes"] * 20)):
        model.learn_one(x, y)
    assert type(model.predict_one({0: 1.0})) is str
