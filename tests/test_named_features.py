"""Named features in every learner of rows: dict keys, lists of dicts and DataFrames through the one FeatureMap.

The oracle is a mapping of names to columns written by hand (:data:`COLUMNS`):
learning a stream of named dicts must leave a learner exactly where learning the
same stream with the names replaced by those columns leaves it.
"""

import math
import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from fuzz._learners import assert_same, cases, differences, learn_batch, snapshot

import olearn
from olearn.data import load_vw
from olearn.exceptions import FeatureLimitError, ModelFormatError, NotFittedError

ROWS = [
    {"age": 0.5, "city": "Paris"},
    {"income": -1.2, "age": 0.3, "city": "Rome", "zip": None},
    {"city": "Paris", "smoker": True},
    {"income": 0.7, "height": 1.5},
    {"age": -0.4, "city": "Oslo", "income": 0.1},
    {"height": -0.9, "smoker": False, "age": 0.2},
]
# each name takes the next column when it is first learned; "city=Paris" is the one-hot feature of a category
COLUMNS = {"age": 0, "city=Paris": 1, "income": 2, "city=Rome": 3, "smoker": 4, "height": 5, "city=Oslo": 6}
INDEXED = [
    {0: 0.5, 1: 1.0},
    {2: -1.2, 0: 0.3, 3: 1.0},
    {1: 1.0, 4: 1.0},
    {2: 0.7, 5: 1.5},
    {0: -0.4, 6: 1.0, 2: 0.1},
    {5: -0.9, 4: 0.0, 0: 0.2},
]
LABELS = {
    "binary": [1, -1, 1, -1, -1, 1],
    "multiclass": ["a", "b", "c", "a", "c", "b"],
    "multilabel": [("a",), ("b", "c"), ("a", "c"), ("b",), ("c",), ("a", "b")],
    "regression": [0.5, -1.0, 2.0, 0.1, -0.3, 1.2],
}


def _matrix(rows, width):
    """The CSR matrix of indexed dicts, every entry kept (a zero too, as a dict's)."""
    indptr = np.cumsum([0] + [len(row) for row in rows])
    indices = [j for row in rows for j in sorted(row)]
    data = [row[j] for row in rows for j in sorted(row)]
    return sp.csr_matrix((data, indices, indptr), shape=(len(rows), width))


ORACLE = _matrix(INDEXED, len(COLUMNS))

# a fixed n_features takes no new name (test_a_fixed_n_features_takes_no_new_name)
ROW_CASES = [(name, task, make) for name, task, make in cases()
             if task in LABELS and getattr(make(), "n_features", None) is None]


def _state(est):
    """Everything learned but the vocabulary (the learners compared map names differently by design)."""
    state = snapshot(est)
    state.pop("_features", None)
    state.pop("n_bits", None)
    return state


def assert_same_state(named, indexed, what):
    diff = differences(_state(indexed), _state(named))
    assert not diff, f"{what}: {diff[:5]}"


@pytest.fixture(params=ROW_CASES, ids=[c[0] for c in ROW_CASES])
def case(request):
    return request.param


def test_learn_one_and_predict_learn_one_of_named_dicts_equal_the_indexed_stream(case):
    name, task, make = case
    named, indexed = make(), make()
    for x, xi, y in zip(ROWS, INDEXED, LABELS[task]):
        assert named.predict_one(x) == indexed.predict_one(xi)
        named.learn_one(x, y)
        indexed.learn_one(xi, y)
    assert_same_state(named, indexed, "learn_one")
    assert named.vocabulary_ == COLUMNS
    named, indexed = make(), make()
    said = [named.predict_learn_one(x, y) for x, y in zip(ROWS, LABELS[task])]
    expected = [indexed.predict_learn_one(x, y) for x, y in zip(INDEXED, LABELS[task])]
    assert said == expected
    assert_same_state(named, indexed, "predict_learn_one")
    # a prediction reads the names learned, and a name never learned as an index never learned
    row, xi = {"city": "Rome", "height": 2.0}, {3: 1.0, 5: 2.0}
    if "feature_map" not in name and "n_features" not in name:  # 8 columns at most there
        row, xi = {**row, "weight": 70.0, "country": "France"}, {**xi, 7: 70.0, 8: 1.0}
    assert named.predict_one(row) == indexed.predict_one(xi)
    np.testing.assert_array_equal(named.predict([row]), indexed.predict(_matrix([xi], max(xi) + 1)))


def test_batches_of_named_dicts_equal_the_indexed_matrix(case):
    _, task, make = case
    named, indexed = make(), make()
    learn_batch(named, task, ROWS, LABELS[task])
    learn_batch(indexed, task, ORACLE, LABELS[task])
    assert_same_state(named, indexed, "partial_fit")
    assert named.vocabulary_ == COLUMNS
    np.testing.assert_array_equal(named.predict(ROWS), indexed.predict(ORACLE))
    named, indexed = make(), make()
    by_names, by_columns = olearn.run(named, tuple(ROWS), LABELS[task]), olearn.run(indexed, ORACLE, LABELS[task])
    assert by_names.n_mistakes == by_columns.n_mistakes
    np.testing.assert_array_equal(by_names.losses, by_columns.losses)
    assert_same_state(named, indexed, "run")


def test_learn_many_of_a_dataframe_equals_the_indexed_matrix(case):
    _, task, make = case
    frame = pd.DataFrame({"age": [0.5, 0.3, -1.0, 0.2], "city": ["Paris", "Rome", None, "Paris"],
                          "income": [1.0, -2.0, 0.5, 0.0]}, index=[10, 11, 12, 13])
    columns = {"age": 0, "city=Paris": 1, "income": 2, "city=Rome": 3}
    X = _matrix([{0: 0.5, 1: 1.0, 2: 1.0}, {0: 0.3, 2: -2.0, 3: 1.0}, {0: -1.0, 2: 0.5}, {0: 0.2, 1: 1.0, 2: 0.0}], 4)
    y = LABELS[task][:4]
    named, indexed = make().learn_many(frame, y), make().partial_fit(X, y)
    assert_same_state(named, indexed, "learn_many")
    assert named.vocabulary_ == columns
    predictions = named.predict_many(frame[["city", "income", "age"]])
    assert list(predictions.index) == [10, 11, 12, 13]
    np.testing.assert_array_equal(np.asarray(predictions), indexed.predict(X))


@pytest.mark.parametrize("name", ["PAClassifier", "Perceptron", "AROW", "PNorm", "PARegressor"])
def test_hashing_equals_the_vw_reader_on_the_same_examples(tmp_path, name):
    cls = dict(olearn.all_estimators())[name]
    n_bits = 6
    labels = [1.0, -1.0, 1.0, -1.0, -1.0, 1.0]
    lines = []
    for x, y in zip(ROWS, labels):
        features = [f"{k}={v}" if isinstance(v, str) else f"{k}:{float(v)!r}" for k, v in x.items() if v is not None]
        lines.append(f"{y:g} | " + " ".join(features))
    path = tmp_path / "rows.vw"
    path.write_text("\n".join(lines) + "\n")
    X, y, _ = load_vw(path, n_bits=n_bits)
    hashed = cls(n_bits=n_bits, n_features=2**n_bits)
    for x, label in zip(ROWS, labels):
        hashed.learn_one(x, label)
    from_file = cls(n_features=2**n_bits).partial_fit(X, y)
    assert_same_state(hashed, from_file, "hashing")
    assert hashed.vocabulary_ == {}


MESSAGES = {
    "NaN value": "feature 'age' has value nan",
    "bad label": "third class|continuous|label|target|y",
    "float key": "feature key 2.5 is a float",
    "integer key on a named column": "column 1 holds the named feature 'city=Paris'",
    "past n_features": "n_features=8|past",
}


def _bad_label(task):
    return {"binary": "third", "multiclass": 1.5, "multilabel": 3, "regression": math.nan}[task]


def test_refused_examples_leave_the_learner_and_its_vocabulary_as_they_were(case):
    name, task, make = case
    est = make()
    for x, y in zip(ROWS[:3], LABELS[task][:3]):
        est.learn_one(x, y)
    y = LABELS[task][0]
    refused = [
        ("NaN value", {"new": 1.0, "age": math.nan}, y),
        ("bad label", {"new": 1.0, "age": 1.0}, _bad_label(task)),
        ("float key", {"new": 1.0, 2.5: 1.0}, y),
        ("integer key on a named column", {"new": 1.0, 1: 1.0}, y),
        ("past n_features", {f"new{k}": 1.0 for k in range(9)}, y),
    ]
    fixed = getattr(est, "n_features", None) is not None or "feature_map" in name
    for what, x, label in refused:
        if what == "past n_features" and not fixed:
            continue
        before = snapshot(est)
        for call in (est.learn_one, est.predict_learn_one):
            with pytest.raises((ValueError, TypeError), match=MESSAGES[what]):
                call(x, label)
            assert_same(before, est, f"{what} to {call.__name__}")
        if what == "past n_features" and "feature_map" in name:
            continue  # the map refuses Phi(x) in the pass, which keeps the rows (and names) before it
        with pytest.raises((ValueError, TypeError), match=MESSAGES[what]):
            est.partial_fit([ROWS[3], x], [label, label])
        assert_same(before, est, f"{what} in a batch")
    assert est.vocabulary_ == {"age": 0, "city=Paris": 1, "income": 2, "city=Rome": 3, "smoker": 4}


def test_save_and_load_keep_the_vocabulary(case, tmp_path):
    name, task, make = case
    if "feature_map" in name or "class_weight" in name:
        pytest.skip("a feature_map, or class weights keyed by numbers, are not saved portably")
    est = make()
    learn_batch(est, task, ROWS, LABELS[task])
    loaded = olearn.load(est.save(tmp_path / "model.npz"))
    assert loaded.vocabulary_ == COLUMNS and loaded.n_bits is None
    rows = [{"city": "Oslo", "age": 1.0}, {"height": 0.5, "city": "Paris"}]
    np.testing.assert_array_equal(loaded.predict(rows), est.predict(rows))
    # learning goes on with the same columns
    loaded.learn_one({"income": 1.0, "new": 2.0}, LABELS[task][0])
    est.learn_one({"income": 1.0, "new": 2.0}, LABELS[task][0])
    assert loaded.vocabulary_ == est.vocabulary_
    np.testing.assert_array_equal(loaded.predict(rows), est.predict(rows))


def test_saving_refuses_names_that_are_not_str_and_another_n_bits(tmp_path):
    est = olearn.PAClassifier().learn_one({("word", 1): 1.0}, 1)
    with pytest.raises(ValueError, match=r"feature name \('word', 1\) is a tuple"):
        est.save(tmp_path / "model.npz")
    est = olearn.PAClassifier().learn_one({"word": 1.0}, 1).set_params(n_bits=8)
    with pytest.raises(ValueError, match=r"n_bits=8 differs from the model learned so far \(n_bits=None\)"):
        est.save(tmp_path / "model.npz")
    assert not (tmp_path / "model.npz").exists()


def test_a_damaged_vocabulary_is_a_model_format_error(tmp_path):
    import json
    import zipfile

    path = olearn.PAClassifier().learn_one({"a": 1.0, "b": 2.0}, 1).save(tmp_path / "model.npz")
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    meta = json.loads(str(np.load(path)["__meta__"]))
    for damaged, message in (([["a", 0], ["b", 0]], "twice"), ([["a", 0], ["b", 7]], "column 7"),
                             ([["a", 0], [1, 1]], "entry 1"), ({"a": 0}, "not a list")):
        meta["vocabulary"] = damaged
        bad = tmp_path / "bad.npz"
        np.savez(bad, __meta__=np.array(json.dumps(meta)),
                 **{name[:-4]: np.load(path)[name[:-4]] for name in members if name != "__meta__.npy"})
        with pytest.raises(ModelFormatError, match=rf"bad\.npz.*{message}"):
            olearn.load(bad)


def test_a_model_fitted_on_a_dataframe_answers_dicts_keyed_by_its_column_names():
    frame = pd.DataFrame({"age": [31.0, 20.0, 45.0, 52.0], "income": [1.2, 0.3, 2.5, 0.1]})
    y = [1, -1, 1, -1]
    est = olearn.PAClassifier(shuffle=False, max_iter=1, tol=None).fit(frame, y)
    assert est.vocabulary_ == {"age": 0, "income": 1}
    for i in range(4):
        row = {"income": frame["income"][i], "age": frame["age"][i]}
        assert est.predict_one(row) == est.predict(frame.iloc[[i]])[0]
    with pytest.raises(ValueError, match="column 0 holds the named feature 'age'"):
        est.predict_one({0: 1.0})


def test_n_bits_is_checked_and_bounds_the_columns():
    with pytest.raises(ValueError, match="n_bits=4 and n_features=10 disagree"):
        olearn.PAClassifier(n_bits=4, n_features=10).learn_one({"a": 1.0}, 1)
    with pytest.raises(ValueError, match=r"parameter n_bits=32 is invalid"):
        olearn.PAClassifier(n_bits=32).learn_one({"a": 1.0}, 1)
    est = olearn.PAClassifier(n_bits=3).learn_one({"a": 1.0}, 1)
    with pytest.raises(FeatureLimitError, match=r"past the 2\*\*3 = 8 columns"):
        est.partial_fit(sp.csr_matrix(np.ones((1, 9))), [1])
    est.set_params(n_bits=None)
    with pytest.raises(ValueError, match="n_bits=None differs from the model learned so far"):
        est.learn_one({"a": 1.0}, 1)
    est.fit([{"a": 1.0}, {"b": 1.0}], [1, -1])
    assert est.vocabulary_ == {"a": 0, "b": 1}


def test_fit_forgets_the_vocabulary_and_vocabulary_is_read_only():
    est = olearn.PAClassifier()
    with pytest.raises(NotFittedError):
        est.vocabulary_
    est.learn_one({"old": 1.0}, 1)
    est.fit([{"new": 1.0}, {"newer": 1.0}], [1, -1])
    assert est.vocabulary_ == {"new": 0, "newer": 1}
    est.vocabulary_["other"] = 5
    assert est.vocabulary_ == {"new": 0, "newer": 1}
    with pytest.raises(AttributeError):
        est.vocabulary_ = {}


def test_a_stopped_pass_keeps_the_names_of_the_rows_it_learned():
    est = olearn.PAClassifier(variant="pa").learn_one({"a": 1.0}, 1)
    with pytest.raises(FloatingPointError, match="row 1"):
        est.partial_fit([{"b": 1.0}, {"c": 1e200}, {"d": 1.0}], [-1, 1, -1])
    # the rows before the stop are learned with their names; the names of the rows refused are not kept
    assert est.vocabulary_ == {"a": 0, "b": 1}
    assert est.n_features_in_ == 2 and est.coef_[0, 1] != 0.0


def test_a_fixed_n_features_takes_no_new_name():
    # the column a new name would take may have been learned by index: learned first by index, then by name,
    # the two would share a weight without a word
    est = olearn.PAClassifier(n_features=8).learn_one({5: 1.0}, 1)
    before = snapshot(est)
    for call in (est.learn_one, est.predict_learn_one):
        with pytest.raises(ValueError, match="'a', 'b' are new, and with a fixed n_features=8"):
            call({"a": 1.0, "b": 2.0}, -1)
        assert_same(before, est, call.__name__)
    with pytest.raises(ValueError, match="'a' are new"):
        est.partial_fit([{"a": 1.0}], [1])
    assert_same(before, est, "partial_fit")
    # the names of a fitted DataFrame are its columns, and hashing places any name
    frame = pd.DataFrame({"a": [1.0, 0.0], "b": [0.0, 1.0]})
    fitted = olearn.PAClassifier(n_features=8, max_iter=1, shuffle=False, tol=None).fit(frame, [1, -1])
    assert fitted.predict_one({"a": 1.0}) == 1
    assert fitted.learn_one({"b": 2.0, "a": 0.5}, -1).vocabulary_ == {"a": 0, "b": 1}
    hashed = olearn.PAClassifier(n_features=8, n_bits=3).learn_one({"a": 1.0}, 1).learn_one({"b": 1.0}, -1)
    assert hashed.coef_.shape == (1, 8)


def test_sequences_of_named_rows_equal_the_indexed_ones():
    named = [[{"word": 1.0, "pos": "N"}, {"word": 2.0, "pos": "V"}], [{"pos": "V", "end": True}]]
    indexed = [[{0: 1.0, 1: 1.0}, {0: 2.0, 2: 1.0}], [{2: 1.0, 3: 1.0}]]
    y = [["A", "B"], ["B"]]
    by_names, by_columns = olearn.PASequence(), olearn.PASequence()
    for x, xi, labels in zip(named, indexed, y):
        by_names.learn_one(x, labels)
        by_columns.learn_one(xi, labels)
    assert_same_state(by_names, by_columns, "learn_one of sequences")
    assert by_names.vocabulary_ == {"word": 0, "pos=N": 1, "pos=V": 2, "end": 3}
    batch = olearn.PASequence().partial_fit(named, y)
    saved, expected = batch._get_state(), by_columns._get_state()
    assert saved[1] == expected[1] and not differences(saved[0], expected[0])
    assert [p.tolist() for p in batch.predict(named)] == [p.tolist() for p in by_columns.predict(indexed)]
    with pytest.raises(ValueError, match=r"X\[0\], position 0: feature 'word' has value nan"):
        batch.learn_one([{"word": math.nan, "other": 1.0}], ["A"])
    assert "other" not in batch.vocabulary_


def test_uniclass_has_no_named_features():
    est = olearn.PAUniclass()
    assert "n_bits" not in est.get_params()
    with pytest.raises(AttributeError, match="no vocabulary_"):
        est.vocabulary_


def test_a_batch_mixing_dicts_and_rows_names_the_row():
    with pytest.raises(TypeError, match=r"X: row 1 is a list; a batch of named examples is a list of dicts"):
        olearn.PAClassifier().partial_fit([{"a": 1.0}, [1.0]], [1, -1])
    with pytest.raises(ValueError, match=r"X: row 1: feature 'a' has value inf"):
        olearn.PAClassifier().partial_fit([{"a": 1.0}, {"a": math.inf}], [1, -1])



def test_a_file_saved_before_n_bits_loads_with_a_vocabulary(tmp_path):
    import json

    path = olearn.PAClassifier().partial_fit(np.eye(2), [1, -1]).save(tmp_path / "model.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    del meta["params"]["n_bits"], meta["all_params"]
    old = tmp_path / "old.npz"
    np.savez(old, __meta__=np.array(json.dumps(meta)), **arrays)
    loaded = olearn.load(old)
    assert loaded.n_bits is None and loaded.vocabulary_ == {}
    assert loaded.learn_one({"a": 1.0}, 1).vocabulary_ == {"a": 2}


def test_a_hashing_model_fitted_on_a_dataframe_keeps_its_column_names_and_hashes_the_rest(tmp_path):
    frame = pd.DataFrame({"age": [1.0, -1.0], "income": [0.5, -0.5]})
    est = olearn.PAClassifier(n_bits=4, max_iter=2, tol=None).fit(frame, [1, -1])
    assert est.vocabulary_ == {"age": 0, "income": 1}
    loaded = olearn.load(est.save(tmp_path / "model.npz"))
    assert loaded.vocabulary_ == {"age": 0, "income": 1}
    for model in (est, loaded):
        assert model.decision_function([{"income": 0.5, "age": 1.0}]) == model.decision_function(frame.iloc[:1])
        pickled = pickle.loads(pickle.dumps(model))
        assert pickled.vocabulary_ == {"age": 0, "income": 1}


def test_learn_many_reads_categorical_columns_and_missing_categories():
    frame = pd.DataFrame({"city": pd.Categorical(["Paris", "Rome", None]), "tag": ["x", np.nan, "y"],
                          "n": [1, 2, 3]})
    est = olearn.PARegressor(variant="pa").learn_many(frame, [1.0, 2.0, 3.0])
    expected = olearn.PARegressor(variant="pa").partial_fit(
        _matrix([{0: 1.0, 1: 1.0, 2: 1.0}, {3: 1.0, 2: 2.0}, {4: 1.0, 2: 3.0}], 5), [1.0, 2.0, 3.0])
    assert est.vocabulary_ == {"city=Paris": 0, "tag=x": 1, "n": 2, "city=Rome": 3, "tag=y": 4}
    assert_same_state(est, expected, "learn_many")
    with pytest.raises(ValueError, match=r"X: row 1: feature 'n' has value nan"):
        est.learn_many(pd.DataFrame({"n": [1.0, np.nan], "new": [1.0, 1.0]}), [1.0, 2.0])
    assert "new" not in est.vocabulary_
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        est.learn_many([{"n": 1.0}], [1.0])


def test_an_ensemble_learns_named_dicts_through_its_learners():
    from olearn.experts import LearnerEnsemble

    ensemble = LearnerEnsemble([olearn.PAClassifier(), olearn.Perceptron()])
    indexed = LearnerEnsemble([olearn.PAClassifier(), olearn.Perceptron()])
    for x, xi, y in zip(ROWS, INDEXED, LABELS["binary"]):
        ensemble.learn_one(x, y)
        indexed.learn_one(xi, y)
    for named, plain in zip(ensemble.learners, indexed.learners):
        assert named.vocabulary_ == COLUMNS
        assert_same_state(named, plain, "ensemble")
    assert ensemble.predict_one({"city": "Rome"}) == indexed.predict_one({3: 1.0})
