"""A batch that an overflow stops at row k leaves every learner as if it had learned only ``X[:k]``.

``PartialUpdateError(rows_kept=k)`` promises that the learner keeps the updates
of the rows before the overflow, and nothing the others brought: not their
classes, not their columns, not their names. The reference is independent of the
stopped learner: a fresh learner of the same settings fed the same history and
then ``X[:k]`` alone (nothing at all for k = 0, where the learner must be
bit-for-bit what it was before the call, unfitted if it was). Every registered
family is covered, with the settings that take other paths (kernels, feature
maps, averaging, a full covariance); in each batch the rows from the overflow on
bring a class (a binary learner's second class, which changes which one is +1)
and, as dicts, a feature name of their own.
"""

import numpy as np
import pytest

from fuzz._learners import cases, differences, snapshot
from olearn import AROW, PAClassifier, PAMulticlass, PARegressor, PNorm, Winnow
from olearn.compose import Pipeline
from olearn.compose._saving import pipeline_contents
from olearn.exceptions import PartialUpdateError
from olearn.preprocessing import MaxAbsScaler, OneHotEncoder, StandardScaler

DIMENSION = 4
HUGE = 1e200  # its squared norm overflows float64

# (task) -> labels of the history, of the rows kept, and of the rows from the overflow on (new ones among them)
LABELS = {
    "binary": (1, 1, -1),
    "multiclass": ("a", "b", "c"),
    "multilabel": (("a",), ("b",), ("c",)),
    "regression": (0.5, -1.0, 2.0),
}


def _labels(task, n, first_new):
    """n labels: the known ones, and from row ``first_new`` on a class the rows before never named."""
    if task == "uniclass":
        return None
    if task == "sequence":
        return [["N", "V"] if i < first_new else ["Z", "N"] for i in range(n)]
    known_a, known_b, new = LABELS[task]
    return [known_a if i % 2 else known_b for i in range(first_new)] + [new] * (n - first_new)


def _named(row):
    return {f"f{j}": float(v) for j, v in enumerate(row)}


def _rows(task, n, named, rng):
    if task == "sequence":
        sequences = [rng.standard_normal((2, DIMENSION)) for _ in range(n)]
        return [[_named(token) for token in s] for s in sequences] if named else sequences
    X = rng.standard_normal((n, DIMENSION))
    return [_named(row) for row in X] if named else X


def _batch(task, k, named, n=5):
    """(X, y): n rows whose row k overflows; from row k on a new class and (dicts) a new name, and a name in row 1.

    Sequences have a width each: as arrays, those from the overflow on are wider.
    """
    rng = np.random.default_rng(7)
    X = _rows(task, n, named, rng)
    if task == "sequence" and named:
        X[k] = [{name: HUGE for name in token} for token in X[k]]
        X[1][0]["kept"] = 1.0
        for sequence in X[k:]:
            sequence[-1]["refused"] = -1.0
    elif task == "sequence":
        X[k] = X[k] * 0.0 + HUGE
        X[k:] = [np.hstack([s, np.ones((len(s), 2))]) for s in X[k:]]
    elif named:
        X[k] = {name: HUGE for name in X[k]}
        X[1]["kept"] = 1.0
        for row in X[k:]:
            row["refused"] = -1.0
    else:
        X[k] = HUGE
    return X, _labels(task, n, k)


def _history(task, named):
    X = _rows(task, 3, named, np.random.default_rng(3))
    # a binary history of one class: the batch's second class then changes the encoding
    return X, [1, 1, 1] if task == "binary" else _labels(task, 3, 3)


def _learn(est, task, X, y, batch=False):
    if task == "uniclass":
        return est.partial_fit(X)
    if task in ("multiclass", "multilabel"):
        # the known classes declared (so that a first row has a class to rank against), not the one the rows
        # refused bring; a batch also declares a class of its own, which joins at once (at k = 0, not even that),
        # unless a feature map fixes the classes
        declared = ["a", "b"] + (["d"] if batch and est.feature_map is None else [])
        return est.partial_fit(X, y, classes=declared)
    return est.partial_fit(X, y)


def _learned(est):
    """What the learner learned, as saved (its arrays and scalars), and its names, classes and width.

    A learner with a feature map (Python code) is not saved: then all it holds, its per-class biases
    without the room reserved for more classes.
    """
    if getattr(est, "feature_map", None) is not None:
        held = snapshot(est)
        for name in ("_wb", "_uwb"):
            if name in held:
                held[name] = held[name][: len(est.classes_)]
        return held
    arrays, scalars = est._get_state()
    vocabulary = est.vocabulary_ if "_features" in vars(est) and est._features.n_bits is None else None
    return arrays, scalars, vocabulary, getattr(est, "classes_", None), est.n_features_in_


def _cases():
    out = []
    for label, task, make in cases():
        for named in (False, True):
            if named and (task == "uniclass" or make().get_params().get("n_features") is not None):
                continue  # no named rows (uniclass), or no new name in a fixed space
            out.append(pytest.param(task, make, named, id=f"{label}-{'dicts' if named else 'array'}"))
    return out


@pytest.mark.parametrize("task, make, named", _cases())
@pytest.mark.parametrize("started", [False, True], ids=["fresh", "started"])
@pytest.mark.parametrize("k", [0, 2])
def test_a_stopped_batch_leaves_the_learner_as_the_rows_kept_alone_would(task, make, named, started, k):
    history = _history(task, named)
    X, y = _batch(task, k, named)
    est = make()
    if started:
        _learn(est, task, *history)
    before = snapshot(est)
    with pytest.raises(PartialUpdateError) as caught:
        _learn(est, task, X, y, batch=True)
    assert caught.value.rows_kept == k

    if k == 0:
        # exactly as before the call: unfitted if it was
        diff = differences(before, snapshot(est))
        assert not diff, diff[:5]
        assert est._is_started() == started
        return
    reference = make()
    if started:
        _learn(reference, task, *history)
    _learn(reference, task, X[:k], None if y is None else y[:k], batch=True)
    diff = differences(_learned(reference), _learned(est))
    assert not diff, diff[:5]
    # and it goes on learning as the reference does
    later_X, later_y = _batch(task, 4, named)
    for learner in (est, reference):
        _learn(learner, task, later_X[:4], None if later_y is None else later_y[:4], batch=True)
    diff = differences(_learned(reference), _learned(est))
    assert not diff, diff[:5]


# -- pipelines ------------------------------------------------------------------------------------------------------

# (steps before the learner, the values of "a" in the history, the value of "a" that makes row k overflow): the
# scalers learn from the rows before (the history's, or the batch's own) a scale that maps the later value past
# 1e154, whose square overflows; the encoder passes the value as it is
PIPELINES = {
    "StandardScaler": (lambda: [StandardScaler()], [0.0, 1e-150, 0.0], 1e140),
    "MaxAbsScaler": (lambda: [MaxAbsScaler()], [1e-300, -1e-300, 1e-300], 1e-10),
    "OneHotEncoder": (lambda: [OneHotEncoder()], [0.5, -1.0, 2.0], 1e200),
}
PIPELINE_LEARNERS = {
    "binary": lambda: PAClassifier(variant="pa1", C=1.0),
    "second-order": lambda: AROW(r=1.0, covariance="full"),
    "quasi-additive": Winnow,
    "p-norm": PNorm,
    "kernel": lambda: PAClassifier(kernel="linear", random_state=0),
    "multiclass": PAMulticlass,
    "regression": lambda: PARegressor(epsilon=0.0),
}


def _pipeline(steps, learner):
    return Pipeline(*PIPELINES[steps][0](), PIPELINE_LEARNERS[learner]())


def _pipeline_rows(steps, values, first=0):
    """Dict rows with names z and a (and a city, one-hot encoded), one new name in the second row."""
    rng = np.random.default_rng(11 + first)
    rows = []
    for i, a in enumerate(values):
        row = {"z": float(rng.standard_normal()), "a": a}
        if steps == "OneHotEncoder":
            row["city"] = "Paris" if i % 2 else "Rome"
        rows.append(row)
    return rows


def _pipeline_labels(learner, n, first_new):
    task = {"multiclass": "multiclass", "regression": "regression"}.get(learner, "binary")
    return _labels(task, n, first_new)


def _pipeline_history(steps, learner):
    X = _pipeline_rows(steps, PIPELINES[steps][1])
    return X, [1, 1, 1] if _pipeline_labels(learner, 1, 1) == [-1] else _pipeline_labels(learner, 3, 3)


def _pipeline_batch(steps, learner, k, n=5):
    """n rows whose row k overflows once transformed; from row k on a new class, a new name and a new city."""
    known = PIPELINES[steps][1]
    values = [known[i % len(known)] for i in range(n)]
    values[k] = PIPELINES[steps][2]
    X = _pipeline_rows(steps, values, first=1)
    X[1]["kept"] = 0.25
    for row in X[k:]:
        row["refused"] = 1.0
        if steps == "OneHotEncoder":
            row["city"] = "Oslo"
    return X, _pipeline_labels(learner, n, k)


def _pipeline_learned(pipe):
    """What the pipeline learned, as saved: every step's arrays and scalars, its names and its width."""
    entry, arrays = pipeline_contents(pipe)
    return entry["state"], entry.get("vocabulary"), [step["state"] for step in entry["steps"]], arrays


def _pipeline_cases():
    # a fresh scaler transforms a first row to 0: only the encoder's pipeline can overflow at a fresh first row
    return [pytest.param(k, started, steps, learner, id=f"{k}-{'started' if started else 'fresh'}-{steps}-{learner}")
            for k in (0, 2) for started in (False, True) for steps in sorted(PIPELINES)
            for learner in sorted(PIPELINE_LEARNERS) if k or started or steps == "OneHotEncoder"]


@pytest.mark.parametrize("k, started, steps, learner", _pipeline_cases())
def test_a_stopped_batch_leaves_the_pipeline_as_the_rows_kept_alone_would(k, started, steps, learner):
    history = _pipeline_history(steps, learner)
    X, y = _pipeline_batch(steps, learner, k)
    pipe = _pipeline(steps, learner)
    if started:
        pipe.partial_fit(*history)
    pipe._plan()  # the steps checked (a cache, built on first use)
    before = snapshot(pipe)
    with pytest.raises(PartialUpdateError) as caught:
        pipe.partial_fit(X, y)
    assert caught.value.rows_kept == k

    reference = _pipeline(steps, learner)
    if started:
        reference.partial_fit(*history)
    if k == 0:
        diff = differences(before, snapshot(pipe))
        assert not diff, diff[:5]
    else:
        reference.partial_fit(X[:k], y[:k])
        diff = differences(_pipeline_learned(reference), _pipeline_learned(pipe))
        assert not diff, diff[:5]
    # usable, and it goes on learning as the reference does (a fresh pipeline stopped at its first row included)
    later_X, later_y = _pipeline_batch(steps, learner, 4)
    for each in (pipe, reference):
        each.partial_fit(later_X[:4], later_y[:4])
    diff = differences(_pipeline_learned(reference), _pipeline_learned(pipe))
    assert not diff, diff[:5]


@pytest.mark.parametrize("make", [PAClassifier, lambda: AROW(covariance="diag")], ids=["PAClassifier", "AROW"])
def test_the_columns_forgotten_grow_back_as_new_ones_after_the_classes_change_sides(make):
    """The room past the columns kept is negated with the weights when a second class arrives; it must stay +0.0."""
    chunks = [([{"a": 1.0}], [1]), ([{"a": 1.0, "b": 1.0}], [1]), ([{"a": -1.0}], [2]),
              ([{"a": 0.5, 4: 1.0}], [2])]  # column 4 by index: 2 and 3 grow in untouched
    est = make().partial_fit(*chunks[0])
    with pytest.raises(PartialUpdateError):
        est.partial_fit([{"a": 1.0, "b": 1.0}, {"c": HUGE, "d": 1.0, "e": 1.0}], [1, 1])
    for chunk in chunks[2:]:
        est.partial_fit(*chunk)
    reference = make()
    for chunk in chunks:
        reference.partial_fit(*chunk)
    diff = differences(_learned(reference), _learned(est))
    assert not diff, diff[:5]
