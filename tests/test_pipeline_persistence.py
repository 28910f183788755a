"""Saving and loading pipelines: ``pipe.save(path)``, ``olearn.load(path)``.

The reference of every round trip is an independent, uninterrupted pipeline
that learned the same stream without being saved: the loaded pipeline must go
on learning to bit-identical weights and statistics. The saved statistics are
checked by hand against NumPy's mean, variance and largest absolute value.
"""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import olearn
from olearn import AROW, PAClassifier, PAMulticlass, PARegressor
from olearn._persistence import read_input_info, save
from olearn.compose import Pipeline
from olearn.exceptions import ModelFormatError, NotFittedError
from olearn.preprocessing import FeatureHasher, MaxAbsScaler, OneHotEncoder, StandardScaler


def _stream(n, seed, n_classes=2):
    """Dicts with numeric features (some absent), a categorical str and an int category; labels of a linear rule."""
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for _ in range(n):
        x = {"age": float(rng.normal(40, 12)), "income": float(rng.normal(5e4, 2e4)),
             "city": str(rng.choice(["Paris", "Rome", "Oslo"])), "zip": int(rng.choice([75001, 75002]))}
        if rng.random() < 0.3:
            x["bonus"] = float(rng.exponential(1e3))
        score = (x["age"] - 40) / 12 + (x["income"] - 5e4) / 2e4 + (x["city"] == "Rome")
        rows.append(x)
        labels.append(int(np.digitize(score, np.linspace(-1, 1, n_classes - 1))) if n_classes > 2 else
                      ("yes" if score > 0 else "no"))
    return rows, labels


PIPELINES = {
    "standard-pa": lambda: StandardScaler() | PAClassifier(variant="pa1", C=0.5),
    "maxabs-regressor": lambda: MaxAbsScaler() | PARegressor(epsilon=0.1),
    "onehot-both-scalers-averaged": lambda: (OneHotEncoder(features=["zip"]) | StandardScaler(with_mean=False)
                                             | MaxAbsScaler() | PAClassifier(average=True)),
    "hasher-arow": lambda: FeatureHasher(n_bits=6) | StandardScaler() | AROW(r=1.0),
    "fixed-width-learner": lambda: MaxAbsScaler() | PAClassifier(n_features=40),
    "n_bits-multiclass": lambda: Pipeline(("scale", StandardScaler()), PAMulticlass(), n_bits=12),
}


def _labels(name, labels):
    if name == "maxabs-regressor":
        return [1.0 if label == "yes" else -1.0 for label in labels]
    return labels


def _state(pipe):
    """What a pipeline learned: its columns and names, each scaler's statistics, the learner's state arrays."""
    state = {"n_features_in": pipe.n_features_in_, "vocabulary": pipe.feature_map_.vocabulary()}
    for name, step in pipe.steps[:-1]:
        if isinstance(step, (StandardScaler, MaxAbsScaler)):
            seen, stats = step._arrays
            state[name] = (step.n_features_in_, seen.copy(), stats[:, : step.n_features_in_].copy())
    arrays, scalars = pipe[-1]._get_state()
    state["learner"] = (arrays, scalars)
    return state


def _assert_same(got, want):
    assert got.keys() == want.keys()
    for key in want:
        if key == "learner":
            assert got[key][1] == want[key][1]
            assert got[key][0].keys() == want[key][0].keys()
            for array in want[key][0]:
                assert_array_equal(got[key][0][array], want[key][0][array])
        elif isinstance(want[key], tuple):
            assert got[key][0] == want[key][0]
            assert_array_equal(got[key][1], want[key][1])
            assert_array_equal(got[key][2], want[key][2])
        else:
            assert got[key] == want[key]


def _continue(pipe, rows, labels, classes):
    """Go on learning by every route (predict_learn_one, learn_one, partial_fit); the predictions made on the way."""
    third = len(rows) // 3
    made = [pipe.predict_learn_one(x, y) for x, y in zip(rows[:third], labels[:third])]
    made += [pipe.predict_one(x) for x in rows[third: 2 * third]]
    for x, y in zip(rows[third: 2 * third], labels[third: 2 * third]):
        pipe.learn_one(x, y)
    pipe.partial_fit(rows[2 * third:], labels[2 * third:], **classes)
    return made


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_loaded_pipeline_goes_on_learning_as_the_uninterrupted_one(tmp_path, name):
    rows, labels = _stream(150, seed=3, n_classes=3 if "multiclass" in name else 2)
    labels = _labels(name, labels)
    classes = {"classes": sorted(set(labels))} if name == "n_bits-multiclass" else {}
    first, rest = slice(0, 60), slice(60, None)

    saved = PIPELINES[name]()
    for x, y in zip(rows[first], labels[first]):
        saved.learn_one(x, y)
    path = saved.save(tmp_path / "pipe.npz")
    loaded = olearn.load(path)
    assert isinstance(loaded, Pipeline)
    assert [step_name for step_name, _ in loaded.steps] == [step_name for step_name, _ in saved.steps]
    assert repr(loaded) == repr(saved)

    uninterrupted = PIPELINES[name]()
    for x, y in zip(rows[first], labels[first]):
        uninterrupted.learn_one(x, y)
    unseen = rows[rest] + [{"age": 30.0, "city": "Lima", "new": 2.0}]
    assert_array_equal(loaded.predict(unseen), uninterrupted.predict(unseen))

    made = _continue(loaded, rows[rest], labels[rest], classes)
    assert made == _continue(uninterrupted, rows[rest], labels[rest], classes)
    _assert_same(_state(loaded), _state(uninterrupted))
    assert_array_equal(loaded.predict(unseen), uninterrupted.predict(unseen))


def test_a_pipeline_of_dense_batches_saved_twice_matches_one_run(tmp_path):
    rng = np.random.default_rng(7)
    X = rng.normal(3.0, 5.0, size=(90, 4))
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 0.0]) > 0, 1, -1)
    pipe = StandardScaler() | MaxAbsScaler() | PAClassifier()
    pipe.partial_fit(X[:30], y[:30])
    pipe = olearn.load(pipe.save(tmp_path / "a.npz"))
    pipe.partial_fit(X[30:60], y[30:60])
    pipe = olearn.load(pipe.save(tmp_path / "b.npz"))
    pipe.partial_fit(X[60:], y[60:])
    once = (StandardScaler() | MaxAbsScaler() | PAClassifier()).partial_fit(X, y)
    _assert_same(_state(pipe), _state(once))
    assert_array_equal(pipe.decision_function(X), once.decision_function(X))


def test_the_saved_statistics_are_numpys_mean_variance_and_largest_value(tmp_path):
    """A hand check of the file itself: per column, the examples that held it, their mean and squared deviations."""
    rng = np.random.default_rng(11)
    X = rng.normal(2.0, 3.0, size=(40, 3)) * (rng.random((40, 3)) < 0.7)  # zeros are absent features
    rows = [{f"x{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]
    pipe = StandardScaler() | MaxAbsScaler() | PARegressor()
    for x, target in zip(rows, X.sum(axis=1)):
        pipe.learn_one(x, float(target))
    path = pipe.save(tmp_path / "pipe.npz")
    with np.load(path) as archive:
        meta = json.loads(str(archive["__meta__"]))
        arrays = {name: archive[name] for name in archive.files if name != "__meta__"}
    assert meta["vocabulary"] == [[f"x{j}", j] for j in range(3)]  # x0, x1, x2 first appear in that order here
    order = [column for _, column in meta["vocabulary"]]
    present = X[:, order] != 0.0
    held = [X[present[:, j], order[j]] for j in range(3)]
    assert_array_equal(arrays["step0.seen"], [40.0])
    assert_array_equal(arrays["step0.count"], present.sum(axis=0))
    np.testing.assert_allclose(arrays["step0.mean"], [values.mean() for values in held], rtol=1e-13)
    np.testing.assert_allclose(arrays["step0.m2"], [values.var() * values.size for values in held], rtol=1e-12)
    loaded = olearn.load(path)
    np.testing.assert_allclose(loaded["standardscaler"].mean_, X[:, order].mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(loaded["standardscaler"].var_, X[:, order].var(axis=0), rtol=1e-12)
    # the max-abs scaler learns the standard scaler's output, each row scaled by the rows before it
    assert_array_equal(loaded["maxabsscaler"].max_abs_, arrays["step1.max_abs"])
    assert loaded["maxabsscaler"].n_seen_ == 40


def test_a_pipeline_of_transformers_goes_on_learning_as_the_uninterrupted_one(tmp_path):
    rows, _ = _stream(60, seed=13)

    def make():
        return OneHotEncoder(features=["zip"]) | StandardScaler() | MaxAbsScaler()

    pipe = make()
    for x in rows[:25]:
        pipe.learn_one(x)
    pipe = olearn.load(pipe.save(tmp_path / "pipe.npz"))
    uninterrupted = make()
    for x in rows[:25]:
        uninterrupted.learn_one(x)
    for learner in (pipe, uninterrupted):
        for x in rows[25:40]:
            learner.learn_one(x)
        learner.partial_fit(rows[40:])
    assert pipe.feature_map_.vocabulary() == uninterrupted.feature_map_.vocabulary()
    for name in ("standardscaler", "maxabsscaler"):
        width = uninterrupted[name].n_features_in_
        assert pipe[name].n_features_in_ == width
        assert_array_equal(pipe[name]._arrays[0], uninterrupted[name]._arrays[0])
        assert_array_equal(pipe[name]._arrays[1][:, :width], uninterrupted[name]._arrays[1][:, :width])
    assert pipe.transform_one(rows[0]) == uninterrupted.transform_one(rows[0])


def test_hashed_names_need_no_vocabulary_and_keep_their_columns(tmp_path):
    rows, labels = _stream(50, seed=5)
    pipe = FeatureHasher(n_bits=5) | StandardScaler() | PAClassifier()
    for x, y in zip(rows, labels):
        pipe.learn_one(x, y)
    path = pipe.save(tmp_path / "pipe.npz")
    with np.load(path) as archive:
        meta = json.loads(str(archive["__meta__"]))
    assert "vocabulary" not in meta
    assert [step["class"] for step in meta["steps"]] == [
        "olearn.preprocessing._encode:FeatureHasher", "olearn.preprocessing._scale:StandardScaler",
        "olearn.linear._pa:PAClassifier"]
    loaded = olearn.load(path)
    assert loaded.feature_map_.n_bits == 5
    x = {"a never seen name": 3.0, "age": 50.0}
    assert loaded.predict_one(x) == pipe.predict_one(x)
    assert loaded["featurehasher"].transform_one(x) == FeatureHasher(n_bits=5).transform_one(x)


@pytest.mark.parametrize("step, param", [(0, "n_bits"), (2, "average"), (2, "n_bits")])
def test_a_step_lacking_a_hyperparameter_is_refused(tmp_path, step, param):
    """Even those a learner's older files may lack: a pipeline's hasher would silently hash into 2**18 columns."""
    pipe = (FeatureHasher(n_bits=4) | StandardScaler() | PAClassifier()).learn_one({"a": 1.0}, 1)
    path = pipe.save(tmp_path / "pipe.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    del meta["steps"][step]["params"][param]
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match=rf"{path}: step {step} .*lacks the .* hyperparameters \['{param}'\]"):
        olearn.load(path)


def test_a_learner_of_other_examples_than_rows_is_refused_as_the_last_step(tmp_path):
    from olearn import PAUniclass
    from olearn._persistence import model_entry

    pipe = (StandardScaler() | PAClassifier()).learn_one({"a": 1.0}, 1)
    path = pipe.save(tmp_path / "pipe.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files if not name.startswith("step1.")}
    meta = json.loads(str(arrays.pop("__meta__")))
    entry, uniclass_arrays = model_entry(PAUniclass().learn_one(np.array([1.0])))
    meta["steps"][1] = {"name": "pauniclass", **entry}
    arrays.update((f"step1.{name}", array) for name, array in uniclass_arrays.items())
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match=r"invalid Pipeline .*does not learn from rows of features"):
        olearn.load(path)


def test_the_command_lines_input_entry_is_kept(tmp_path):
    pipe = (StandardScaler() | PAClassifier()).learn_one({"a": 1.0}, 1).learn_one({"a": -1.0}, -1)
    path = tmp_path / "pipe.npz"
    save(pipe, path, input_info={"format": "libsvm", "zero_based": False})
    assert read_input_info(path) == {"format": "libsvm", "zero_based": False}
    assert olearn.load(path).predict_one({"a": 2.0}) == pipe.predict_one({"a": 2.0})


def test_what_cannot_be_saved_is_refused_at_saving(tmp_path):
    with pytest.raises(NotFittedError, match="learned nothing"):
        (StandardScaler() | PAClassifier()).save(tmp_path / "a.npz")
    tuples = (StandardScaler() | PAClassifier()).learn_one({("a", 1): 1.0}, 1)
    with pytest.raises(ValueError, match=r"feature name \('a', 1\) is a tuple"):
        tuples.save(tmp_path / "b.npz")
    encoder = (OneHotEncoder(features=[("a", "b")]) | PAClassifier()).learn_one({"c": 1.0}, 1)
    with pytest.raises(ValueError, match=r"would load as \[\['a', 'b'\]\]"):
        encoder.save(tmp_path / "c.npz")
    assert sorted(os.listdir(tmp_path)) == []


def test_a_batch_that_overflowed_part_way_saves_the_rows_before_it(tmp_path):
    """The learner keeps the rows before an overflow, and the pipeline their names and statistics: it saves."""
    pipe = (MaxAbsScaler() | PARegressor(epsilon=0.0)).learn_one({"a": 1e-300}, 1.0)
    with pytest.raises(FloatingPointError):
        pipe.partial_fit([{"b": 1.0}, {"c": 2.0, "a": 1e-10}], [1.0, 1e300])
    assert list(pipe.feature_map_.vocabulary()) == ["a", "b"]
    pipe.learn_one({"b": 0.5}, 2.0)  # b's scale is known now: a prediction that is not zero
    loaded = olearn.load(pipe.save(tmp_path / "pipe.npz"))
    probe = {"a": 1e-300, "b": 2.0, "c": 1.0}
    assert loaded.predict_one(probe) == pipe.predict_one(probe) != 0.0


# -- damaged and hostile files ---------------------------------------------------------------


def _saved_parts(tmp_path):
    rows, labels = _stream(30, seed=9)
    pipe = OneHotEncoder(features=["zip"]) | StandardScaler() | MaxAbsScaler() | PAClassifier()
    for x, y in zip(rows, labels):
        pipe.learn_one(x, y)
    path = pipe.save(tmp_path / "good.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return json.loads(str(arrays.pop("__meta__"))), arrays


def _variants(meta, arrays):
    """{case: (meta, arrays, what the error must say)}: one damage each."""
    cases = {}

    def add(case, match, change_meta=None, change_arrays=None):
        m, a = json.loads(json.dumps(meta)), {name: array.copy() for name, array in arrays.items()}
        if change_meta:
            change_meta(m)
        if change_arrays:
            change_arrays(a)
        cases[case] = (m, a, match)

    stats = [name for name in arrays if name.startswith(("step1.", "step2."))]
    for name in stats + ["step3.weights"]:
        def longer(a, name=name):
            a[name] = np.append(a[name], 0.0)

        def nan(a, name=name):
            a[name] = a[name].copy()
            a[name][-1] = np.nan

        def negative(a, name=name):
            a[name] = a[name].copy()
            a[name][0] = -1.0

        def as_int(a, name=name):
            a[name] = a[name].astype(np.int64)

        def dropped(a, name=name):
            del a[name]

        add(f"{name} longer", rf"array '{name[6:]}' has shape|array '{name[6:]}' .*entries", change_arrays=longer)
        add(f"{name} NaN", rf"array '{name[6:]}' has nan", change_arrays=nan)
        add(f"{name} int64", rf"array '{name[6:]}' has dtype", change_arrays=as_int)
        add(f"{name} dropped", r"lacks arrays", change_arrays=dropped)
        if not name.endswith(("mean", "weights")):
            add(f"{name} negative", rf"array '{name[6:]}' has -1.0", change_arrays=negative)

    def count_past_seen(a):
        a["step1.count"] = a["step1.count"].copy()
        a["step1.count"][0] = a["step1.seen"][0] + 1

    def mean_of_nothing(a):
        a["step1.count"], a["step1.mean"] = a["step1.count"].copy(), a["step1.mean"].copy()
        a["step1.count"][0] = 0.0
        a["step1.mean"][0] = 1.0

    def overflow(a):
        a["step1.mean"] = a["step1.mean"].copy()
        a["step1.mean"][0] = 1e200

    def fractional(a):
        a["step1.count"] = a["step1.count"].copy()
        a["step1.count"][0] = 1.5

    def stray(a):
        a["step9.extra"] = np.zeros(3)

    def extra_in_step(a):
        a["step1.extra"] = np.zeros(3)

    add("count past seen", "more examples in a column than in all", change_arrays=count_past_seen)
    add("mean of no example", "count 0, yet mean", change_arrays=mean_of_nothing)
    add("sum of squares overflows", "overflows", change_arrays=overflow)
    add("fractional count", r"array 'count' has 1.5", change_arrays=fractional)
    add("array of no step", r"unexpected arrays \['step9.extra'\]", change_arrays=stray)
    add("unknown array of a step", r"unexpected arrays \['extra'\]", change_arrays=extra_in_step)

    def set_step(k, key, value):
        return lambda m: m["steps"][k].__setitem__(key, value)

    for k, cls in [(1, "os:system"), (1, "numpy:array"), (1, "builtins:eval"), (1, "olearn._features:FeatureMap"),
                   (1, "olearn.compose._pipeline:Pipeline"), (1, "olearn.linear._pa:PAClassifier"),
                   (3, "olearn.preprocessing._scale:Nothing"), (3, "olearn.metrics:accuracy_score")]:
        match = "not an olearn estimator|unknown estimator class|neither an olearn transformer|only be the last"
        add(f"step {k} class {cls}", match, change_meta=set_step(k, "class", cls))
    add("last step a transformer class of other arrays", r"step 3 \(.paclassifier.\): invalid MaxAbsScaler",
        change_meta=set_step(3, "class", "olearn.preprocessing._scale:MaxAbsScaler"))
    add("unknown key in a step", r"step 1 has unknown entries \['pickle'\]", change_meta=set_step(1, "pickle", 1))
    add("step without state", r"step 2 lacks \['state'\]", change_meta=lambda m: m["steps"][2].pop("state"))
    add("unknown metadata entry", r"unknown entries \['code'\]", change_meta=lambda m: m.__setitem__("code", "x"))
    add("unknown pipeline state", r"state has unknown entries",
        change_meta=lambda m: m["state"].__setitem__("other", 1))
    add("unknown pipeline parameter", r"params has unknown entries",
        change_meta=lambda m: m["params"].__setitem__("memory", 1))
    add("unknown step hyperparameter", r"invalid StandardScaler hyperparameters",
        change_meta=lambda m: m["steps"][1]["params"].__setitem__("copy", True))
    add("missing step hyperparameter", r"lacks the StandardScaler hyperparameters \['with_std'\]",
        change_meta=lambda m: m["steps"][1]["params"].pop("with_std"))
    add("invalid step hyperparameter", r"with_mean",
        change_meta=lambda m: m["steps"][1]["params"].__setitem__("with_mean", "yes"))
    add("unknown step state", r"state has unknown entries",
        change_meta=lambda m: m["steps"][1]["state"].__setitem__("sum", 1))
    add("scaler wider than the pipeline", r"past the pipeline's n_features_in",
        change_meta=lambda m: m["state"].__setitem__("n_features_in", m["state"]["n_features_in"] - 1))
    add("negative width", r"n_features_in.*expected an integer >= 0",
        change_meta=lambda m: m["state"].__setitem__("n_features_in", -1))
    for width in (2**31, 2**63):  # loaded once, then overflowed scipy on the next batch
        add(f"width {width} past the column limit", r"n_features_in.*at most 2147483647",
            change_meta=lambda m, width=width: m["state"].__setitem__("n_features_in", width))
    add("steps not a list", r"steps is", change_meta=lambda m: m.__setitem__("steps", {"a": 1}))
    add("no steps", r"steps is \[\]", change_meta=lambda m: m.__setitem__("steps", []))
    add("twice the same name", r"step 2 has name 'standardscaler'", change_meta=set_step(2, "name", "standardscaler"))
    add("a name with __", r"step 1 has name 'a__b'", change_meta=set_step(1, "name", "a__b"))
    def renumbered(a):
        for name in sorted(a):
            if name.startswith(("step1.", "step2.")):
                a[f"step{int(name[4]) - 1}{name[5:]}"] = a.pop(name)

    add("encoder after a scaler", r"invalid Pipeline .*acts on the names",
        change_meta=lambda m: m["steps"].insert(2, m["steps"].pop(0)), change_arrays=renumbered)
    add("vocabulary past the columns", r"vocabulary puts feature",
        change_meta=lambda m: m["vocabulary"][0].__setitem__(1, 10 ** 6))
    add("vocabulary names a column twice", r"twice",
        change_meta=lambda m: m["vocabulary"][1].__setitem__(1, m["vocabulary"][0][1]))
    add("vocabulary of a hashing pipeline", r"hashes names .*yet has a vocabulary",
        change_meta=lambda m: m["params"].__setitem__("n_bits", 20))
    add("a transformer as the model", r"not an olearn estimator",
        change_meta=lambda m: m.__setitem__("class", "olearn.preprocessing._scale:StandardScaler"))
    add("a learner's class on a pipeline's file", r"PAClassifier",
        change_meta=lambda m: m.__setitem__("class", "olearn.linear._pa:PAClassifier"))
    add("a learner of sequences last", r"step 3 .*PASequence",
        change_meta=set_step(3, "class", "olearn.sequence._pa:PASequence"))
    add("unhashable encoder features", r"step 0 .*invalid OneHotEncoder hyperparameters .*features",
        change_meta=lambda m: m["steps"][0]["params"].__setitem__("features", [["zip"]]))
    add("n_bits true", r"invalid Pipeline .*n_bits", change_meta=lambda m: m["params"].__setitem__("n_bits", True))
    add("n_bits out of range", r"invalid Pipeline .*n_bits", change_meta=lambda m: m["params"].__setitem__("n_bits", 0))
    return cases


# loads each file, then uses what loaded; prints one JSON outcome per file
_CHILD = """
import json, sys
import olearn
from olearn.exceptions import ModelFormatError
outcomes = {}
for path in sys.argv[1:]:
    try:
        pipe = olearn.load(path)
        pipe.predict_one({"age": 1.0, "city": "Paris"})
        pipe.learn_one({"age": 1.0, "bonus": 2.0}, "yes")
        outcomes[path] = ["loaded", ""]
    except ModelFormatError as err:
        outcomes[path] = ["ModelFormatError", str(err)]
    except Exception as err:
        outcomes[path] = [type(err).__name__, str(err)]
print("OUTCOMES " + json.dumps(outcomes))
"""


def test_every_damage_is_a_model_format_error_naming_the_file_and_the_fault(tmp_path):
    meta, arrays = _saved_parts(tmp_path)
    cases = _variants(meta, arrays)
    assert len(cases) > 60
    paths = {}
    for k, (case, (m, a, _)) in enumerate(sorted(cases.items())):
        paths[case] = os.fspath(tmp_path / f"case{k}.npz")
        with open(paths[case], "wb") as fh:
            np.savez(fh, __meta__=np.array(json.dumps(m)), **a)
    # loading runs in a child: a file that slipped through the checks could crash a compiled loop
    proc = subprocess.run([sys.executable, "-c", _CHILD, *paths.values()], capture_output=True, text=True,
                          env={**os.environ, "PYTHONFAULTHANDLER": "1"}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    line = next(line for line in proc.stdout.splitlines() if line.startswith("OUTCOMES "))
    outcomes = json.loads(line[len("OUTCOMES "):])
    wrong = {}
    for case, (_, _, match) in cases.items():
        kind, message = outcomes[paths[case]]
        if kind != "ModelFormatError" or paths[case] not in message or not re.search(match, message):
            wrong[case] = (kind, message, match)
    assert wrong == {}


def test_the_undamaged_file_loads_in_the_child_too(tmp_path):
    """The child's use of a loaded pipeline works on a good file: the outcomes above are the checks'."""
    _saved_parts(tmp_path)
    path = os.fspath(tmp_path / "good.npz")
    proc = subprocess.run([sys.executable, "-c", _CHILD, path], capture_output=True, text=True, timeout=600)
    line = next(line for line in proc.stdout.splitlines() if line.startswith("OUTCOMES "))
    assert json.loads(line[len("OUTCOMES "):])[path] == ["loaded", ""]
