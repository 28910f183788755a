"""Class labels of one type, numbers or strings, in every classifier; hyperparameters beyond a float's range.

NumPy makes the labels 1 and "1" one array of strings: a multiclass learner
took them for two classes ``['1', '1']``, saved them and then refused its own
file ("repeats a label"). Object arrays mixing 1 with "a" or holding None made
NumPy's sort raise a raw TypeError; C=10**400 an OverflowError.
"""

import json
import pickle

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import olearn
from olearn.exceptions import ModelFormatError
from olearn.multiclass import MulticlassPerceptron, PAMulticlass

MULTICLASS = [PAMulticlass, MulticlassPerceptron]
BINARY = [olearn.PAClassifier, olearn.AROW, olearn.Winnow]


def _same_model(est, untouched, labels):
    """``est`` predicts as ``untouched`` and, fed the same two examples, learns exactly as it does."""
    X = np.array([[0.5, -1.0, 0.0, 2.0], [1.0, 0.0, 3.0, -1.0]])
    for model in (est, untouched):
        for row, label in zip(X, labels):
            model.learn_one(dict(enumerate(row)), label)
    assert_array_equal(est.classes_, untouched.classes_)
    assert_array_equal(est.decision_function(X), untouched.decision_function(X))


@pytest.mark.parametrize("cls", MULTICLASS)
@pytest.mark.parametrize(("first", "second", "match"), [
    (1, "1", "label '1' at row 0 is a string, but the class learned before, 1, is a number"),
    ("1", 1, "label 1 at row 0 is a number, but the class learned before, '1', is a string"),
    (np.int64(2), "b", "label 'b' at row 0 is a string, but the class learned before, 2, is a number"),
])
def test_a_multiclass_learner_refuses_a_second_label_type_and_stays_as_it_was(cls, first, second, match):
    est = cls().learn_one({0: 1.0}, first)
    untouched = pickle.loads(pickle.dumps(est))
    with pytest.raises(ValueError, match=f"{cls.__name__}: {match}; give the classes one type"):
        est.learn_one({0: -1.0, 3: 2.0}, second)
    assert_array_equal(est.classes_, [first])
    _same_model(est, untouched, [first, type(first)(7) if not isinstance(first, str) else "z"])


@pytest.mark.parametrize("cls", MULTICLASS)
def test_a_multiclass_batch_of_objects_mixing_types_is_refused(cls):
    with pytest.raises(ValueError, match=r"label 'a' at row 2 is a string, but the label at row 0, 1, is a number"):
        cls().partial_fit(np.eye(3), np.array([1, 2, "a"], dtype=object))


@pytest.mark.parametrize("cls", [*MULTICLASS, *BINARY])
@pytest.mark.parametrize(("y", "label", "row", "match"), [
    ([1, "a"], "'a'", 1, "is a string, but the label at row 0, 1, is a number"),
    (["a", 1], "1", 1, "is a number, but the label at row 0, 'a', is a string"),
    ([None, 1], "None", 0, "is a NoneType; class labels are numbers or strings"),
    ([1, None], "None", 1, "is a NoneType; class labels are numbers or strings"),
], ids=["int-str", "str-int", "none-first", "none-second"])
def test_object_labels_of_two_types_or_none_name_the_label(cls, y, label, row, match):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: label {label} at row {row} {match}"):
        cls().partial_fit(np.eye(2), np.array(y, dtype=object))


@pytest.mark.parametrize("cls", BINARY)
def test_a_started_binary_learner_refuses_objects_of_the_other_type_and_stays_as_it_was(cls):
    est = cls().partial_fit(np.eye(2), [0, 1])
    untouched = pickle.loads(pickle.dumps(est))
    with pytest.raises(ValueError, match=r"label 'x' at row 1 is a string, but the class learned before, 0, is a "
                                         r"number"):
        est.partial_fit(np.eye(2), np.array([1, "x"], dtype=object))
    _same_model(est, untouched, [1, 0])


@pytest.mark.parametrize("cls", MULTICLASS)
@pytest.mark.parametrize("labels", [[3, 1, 2], ["c", "a", "b"]], ids=["ints", "strings"])
def test_multiclass_labels_keep_their_type_through_save_and_load(cls, labels, tmp_path):
    est = cls()
    for k, label in enumerate(labels):
        est.learn_one({k: 1.0}, label)
    loaded = olearn.load(est.save(tmp_path / "m.npz"))
    assert_array_equal(loaded.classes_, sorted(labels))
    assert loaded.classes_.dtype.kind == ("i" if isinstance(labels[0], int) else "U")
    predicted = loaded.predict_one({2: 1.0})
    assert predicted == labels[2] and type(predicted) is type(labels[2])


@pytest.mark.parametrize("value", [10**400, -(10**400)], ids=["huge", "minus-huge"])
def test_a_real_hyperparameter_beyond_a_float_is_named(value):
    with pytest.raises(ValueError, match=r"PAClassifier: parameter C=-?10{400} is invalid; expected a number in "
                                         r"\(0, inf\) \(the value is beyond the range of a float\)"):
        olearn.PAClassifier(C=value).partial_fit(np.eye(2), [0, 1])


def test_a_saved_hyperparameter_beyond_a_float_is_a_format_error(tmp_path):
    path = olearn.PAClassifier(C=0.5).partial_fit(np.eye(2), [0, 1]).save(tmp_path / "m.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["params"]["C"] = 10**400
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match=r"m\.npz: invalid PAClassifier hyperparameters .*parameter C=10{400} "
                                               r"is invalid"):
        olearn.load(path)
