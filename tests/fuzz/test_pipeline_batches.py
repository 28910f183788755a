"""Fuzzing pipelines with batches that overflow part way, and the files of the pipelines they leave.

Random pipelines (encoders and scalers before a learner of every family) learn
random batches of dicts: names old and new, values of every scale (tiny ones
that teach a scaler a tiny scale, huge ones that the transformed row then
overflows), categories, labels old and new. Invariants:

* a batch is learned whole, or stopped by an overflow at row k
  (``PartialUpdateError``), or refused (``ValueError``, ``TypeError``) with the
  pipeline exactly as it was; a stopped batch leaves the pipeline exactly what a
  fresh pipeline fed the same history and then the k rows kept makes (the
  transformers' statistics, the names, the learner's arrays, classes and width,
  as saved), and a pipeline stopped at its first row as it was;
* a learned pipeline saves, the file loads (a file that saves must load), and the
  loaded pipeline predicts as the original and goes on learning exactly as it;
  the file with one mutation (``test_model_files``) is refused with a
  ModelFormatError naming it, or loads into a pipeline that predicts and learns
  with no error but the documented refusals.
"""

import collections
import json
import os
import tempfile
import warnings

import numpy as np

import olearn
from fuzz._learners import differences, snapshot
from fuzz.test_model_files import _documented, _mutated
from olearn import AROW, OGDClassifier, PAClassifier, PAMulticlass, PARegressor, Perceptron, PNorm, Winnow
from olearn.compose import Pipeline
from olearn.compose._saving import pipeline_contents
from olearn.exceptions import ModelFormatError, PartialUpdateError
from olearn.multiclass import MulticlassPerceptron
from olearn.preprocessing import MaxAbsScaler, OneHotEncoder, StandardScaler

NAMES = ["a", "b", "c", "d", "e", "f"]
# (task, factory): a learner of each family a pipeline takes; a kernel's random_state fixed, so that two learn alike
LEARNERS = [
    ("binary", lambda: PAClassifier(variant="pa1", C=1.0)),
    ("binary", lambda: Perceptron(average=True)),
    ("binary", lambda: PAClassifier(kernel="rbf", random_state=0)),
    ("binary", lambda: OGDClassifier(loss="logistic", fit_intercept=True)),
    ("binary", lambda: AROW(covariance="diag")),
    ("binary", lambda: AROW(r=1.0)),
    ("binary", Winnow),
    ("binary", PNorm),
    ("multiclass", PAMulticlass),
    ("multiclass", lambda: MulticlassPerceptron(kernel="linear", random_state=0)),
    ("regression", lambda: PARegressor(epsilon=0.0)),
]
LABELS = {"binary": ["no", "yes"], "multiclass": ["x", "y", "z", "w"], "regression": [-1.0, 0.5, 2.0]}


def _pick(rng, items):
    return items[int(rng.integers(len(items)))]


def _steps(rng):
    """Factories of the transformers: maybe an encoder, then up to two scalers."""
    steps = [OneHotEncoder] if rng.random() < 0.3 else []
    for _ in range(int(rng.integers(0, 3))):
        steps.append(_pick(rng, [StandardScaler, MaxAbsScaler, lambda: StandardScaler(with_mean=False)]))
    return steps


def _value(rng):
    draw = rng.random()
    if draw < 0.08:
        return float(_pick(rng, [1e-300, -1e-300, 1e-150]))  # teaches a scaler a tiny scale
    if draw < 0.14:
        return float(_pick(rng, [1e140, -1e120, 1e150, 1e200]))  # overflows, raw or once scaled
    if draw < 0.19:
        return str(_pick(rng, ["Paris", "Rome", "Oslo"]))
    return float(rng.normal(0.0, _pick(rng, [1.0, 10.0, 1000.0])))


def _tiny_column_value(rng):
    """A value of the stream's column of tiny values, which a scaler maps to huge ones when it is not tiny."""
    if rng.random() < 0.75:
        return float(_pick(rng, [1e-300, -1e-300, 1e-150, -1e-150, 0.0]))
    return float(_pick(rng, [1.0, 1e140, -1e140]))


def _batch(rng, task, n_names):
    n = int(rng.integers(1, 7))
    X = []
    for _ in range(n):
        # the column of tiny values in most rows, then others
        others = 1 + rng.permutation(n_names - 1)[: int(rng.integers(n_names))]
        keys = ([0] if rng.random() < 0.8 else []) + list(others)
        X.append({NAMES[k]: _tiny_column_value(rng) if k == 0 else _value(rng) for k in keys})
    labels = LABELS[task][: int(rng.integers(1, len(LABELS[task]) + 1))]
    return X, [_pick(rng, labels) for _ in range(n)]


def _pipeline(steps, make):
    return Pipeline(*[step() for step in steps], make())


def _learned(pipe):
    """The pipeline as saved (None before it learned anything), for an exact comparison."""
    if not pipe._is_started():
        return None
    entry, arrays = pipeline_contents(pipe)
    return json.dumps(entry, sort_keys=True, default=str), {name: a.tobytes() for name, a in arrays.items()}


def _stream(rng, steps, task, make, n_batches, outcomes):
    """Learn ``n_batches`` random batches, checking each outcome (counted in ``outcomes``); return (pipeline,
    the chunks it learned, the batches tried)."""
    pipe = _pipeline(steps, make)
    chunks, tried = [], 0
    n_names = int(rng.integers(2, len(NAMES) + 1))
    for _ in range(n_batches):
        X, y = _batch(rng, task, n_names)
        tried += 1
        pipe._plan()  # the steps checked (a cache, built on first use)
        before = snapshot(pipe)
        try:
            pipe.partial_fit(X, y)
        except PartialUpdateError as err:
            k = err.rows_kept
            outcomes["stopped at the first row" if k == 0 else "stopped part way"] += 1
            if k == 0:
                diff = differences(before, snapshot(pipe))
                assert not diff, f"a batch stopped at its first row changed the pipeline: {X!r}: {diff[:3]}"
                continue
            chunks.append((X[:k], y[:k]))
            reference = _pipeline(steps, make)
            for chunk in chunks:
                reference.partial_fit(*chunk)
            assert _learned(pipe) == _learned(reference), f"stopped at row {k} of {X!r}, {y!r}"
            continue
        except (ValueError, TypeError):
            outcomes["refused"] += 1
            diff = differences(before, snapshot(pipe))
            assert not diff, f"a refused batch changed the pipeline: {X!r}, {y!r}: {diff[:3]}"
            continue
        outcomes["learned"] += 1
        chunks.append((X, y))
    return pipe, chunks, tried


def campaign_stopped_batches(n_examples, seed):
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(seed)
    outcomes = collections.Counter()
    tried = 0
    while tried < n_examples:
        task, make = _pick(rng, LEARNERS)
        _, _, count = _stream(rng, _steps(rng), task, make, int(rng.integers(1, 8)), outcomes)
        tried += count
    print("outcomes:", json.dumps(outcomes, sort_keys=True))
    return tried


def test_stopped_batches_leave_the_pipeline_as_the_rows_kept_alone_would(campaign):
    assert campaign("fuzz.test_pipeline_batches:campaign_stopped_batches", 150, seed=2) >= 150


def _use(pipe, task, probes):
    """What a pipeline predicts for the probes, then after learning them: its outputs as one array."""
    first = np.asarray(pipe.predict(probes), dtype=object)
    labels = [_pick(np.random.default_rng(0), LABELS[task]) for _ in probes]
    pipe.partial_fit(probes, labels)
    return np.concatenate([first, np.asarray(pipe.predict(probes), dtype=object)])


def campaign_saved_pipelines(n_examples, seed):
    warnings.simplefilter("ignore", RuntimeWarning)
    rng = np.random.default_rng(seed)
    folder = tempfile.mkdtemp()
    path, mutated = os.path.join(folder, "pipeline.npz"), os.path.join(folder, "mutated.npz")
    outcomes = collections.Counter()
    tried = 0
    while tried < n_examples:
        task, make = _pick(rng, LEARNERS)
        pipe, chunks, _ = _stream(rng, _steps(rng), task, make, int(rng.integers(1, 5)), collections.Counter())
        if not chunks:
            continue
        tried += 1
        try:
            pipe.save(path)
        except ValueError as err:
            # a name JSON cannot keep, or (ModelFormatError) what load would refuse, named
            assert isinstance(err, ModelFormatError) or str(err).startswith("Pipeline"), f"save raised {err!r}"
            outcomes["save refused"] += 1
            continue
        loaded = olearn.load(path)  # a file that saves must load
        assert _learned(loaded) == _learned(pipe), f"the loaded pipeline differs from the saved one: {chunks!r}"
        probes = _batch(rng, task, len(NAMES))[0]
        try:
            expected = _use(pipe, task, probes)
        except (FloatingPointError, ValueError):
            continue  # probes the pipeline refuses (an overflow once scaled): nothing to compare
        assert np.array_equal(_use(loaded, task, probes), expected), "the loaded pipeline predicts or learns otherwise"
        with open(path, "rb") as fh:
            content = fh.read()
        with np.load(path) as archive:
            arrays = {key: archive[key] for key in archive.files}
        meta = json.loads(str(arrays.pop("__meta__")))
        kind, damaged = _mutated(rng, meta, arrays, content)
        with open(mutated, "wb") as fh:
            fh.write(damaged)
        try:
            model = olearn.load(mutated)
        except ModelFormatError as err:
            assert mutated in str(err), f"the error does not name the file: {err}"
            outcomes["mutated: refused"] += 1
            continue
        try:
            _use(model, task, probes)
        except Exception as err:
            if not (_documented(err, model) or str(err).startswith("Pipeline")):
                raise AssertionError(f"a mutated file ({kind}) loaded into a failing pipeline: {err!r}") from err
        outcomes[f"mutated: loaded ({kind})"] += 1
    print("outcomes:", json.dumps(outcomes, sort_keys=True))
    return tried


def test_saved_pipelines_load_and_mutated_ones_are_refused_or_work(campaign):
    assert campaign("fuzz.test_pipeline_batches:campaign_saved_pipelines", 60, seed=3) >= 60
