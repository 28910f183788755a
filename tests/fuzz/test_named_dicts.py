"""Fuzz streams of named dicts: every learner of rows against a learner of the same stream by column index.

Each stream mixes str names, categorical values, None, a few integer keys and
refusable examples (NaN, inf, lists, float keys, an integer key on a named
column, a bad label). A refused example must leave the learner exactly as it
was (:func:`fuzz._learners.snapshot`), vocabulary included; every accepted one
is replayed with its names replaced by the columns an independent Python
vocabulary gives (the next free column, after every column learned, for each
name in the order first learned), and at the end both learners must hold the
same state and the named one that vocabulary.
"""

import copy
import math

import numpy as np
from fuzz._learners import DOCUMENTED, EVERY_ESTIMATOR, cases, differences, snapshot
from sklearn.utils import murmurhash3_32

pytestmark = EVERY_ESTIMATOR

NAMES = ["age", "income", "height", "w", "x1", "city", "colour", "a b", "é"]
CATEGORIES = ["Paris", "Rome", "", "1.5"]
LABELS = {
    "binary": [1, -1],
    "multiclass": ["a", "b", "c"],
    "multilabel": [("a",), ("b", "c"), ("c",)],
    "regression": [0.5, -1.0, 2.0],
}
BAD_LABELS = {"binary": 7, "multiclass": 2.5, "multilabel": 3, "regression": math.nan}


def _row_cases():
    # a fixed n_features gives names the columns from 0 up, where integer keys may have been learned:
    # the streams with integer keys use growing learners only (see _random_row)
    return [(name, task, make) for name, task, make in cases() if task in LABELS]


def _random_value(rng, bad):
    roll = rng.random()
    if bad and roll < 0.3:
        return rng.choice([math.nan, math.inf, -math.inf, None]) if rng.random() < 0.8 else [1.0]
    if roll < 0.5:
        return float(rng.standard_normal())
    if roll < 0.65:
        return int(rng.integers(-3, 4))
    if roll < 0.75:
        return bool(rng.integers(2))
    if roll < 0.9:
        return str(rng.choice(CATEGORIES))
    return None


def _random_row(rng, with_indices):
    bad = rng.random() < 0.2
    row = {}
    for _ in range(int(rng.integers(0, 5))):
        key = str(rng.choice(NAMES))
        if with_indices and rng.random() < 0.15:
            key = int(rng.integers(0, 12))
        elif bad and rng.random() < 0.1:
            key = 0.5
        row[key] = _random_value(rng, bad)
    return row


class Vocabulary:
    """The oracle: names to columns as a growing model learns them, written without olearn."""

    def __init__(self, fixed):
        self.columns = {}
        self.fixed = fixed
        self.width = 0

    def indexed(self, x):
        """The row with names as columns, or None when the rules refuse it (an integer key on a named column)."""
        entries = []  # (name or None, index, value) in the row's order
        for key, value in x.items():
            if value is None:
                continue
            if isinstance(value, str):
                entries.append((f"{key}={value}", None, 1.0))
            elif isinstance(key, int):
                if key in self.columns.values():
                    return None
                entries.append((None, key, float(value)))
            else:
                entries.append((key, None, float(value)))
        largest = max((index for _, index, _ in entries if index is not None), default=-1)
        first = max(0 if self.fixed else self.width, max(self.columns.values(), default=-1) + 1, largest + 1)
        new, indices = {}, {}
        for name, index, value in entries:
            if name is not None:
                if name not in self.columns and name not in new:
                    new[name] = first + len(new)
                index = self.columns.get(name, new.get(name))
            indices[index] = value
        return indices, new

    def learned(self, indices, new):
        self.columns.update(new)
        self.width = max(self.width, max(indices, default=-1) + 1)


class Hashing:
    """The oracle of ``n_bits``: a name's column is scikit-learn's MurmurHash3 of it mod 2**n_bits."""

    def __init__(self, n_bits):
        self.n_bits = n_bits
        self.columns = {}

    def indexed(self, x):
        """The row with names hashed (entries sharing a column summed, then sorted), or None when refused."""
        indices, shared = {}, False
        for key, value in x.items():
            if value is None:
                continue
            if isinstance(value, str):
                column, value = murmurhash3_32(f"{key}={value}", seed=0, positive=True) % 2**self.n_bits, 1.0
            elif isinstance(key, int):
                if key >= 2**self.n_bits:
                    return None
                column = key
            else:
                column = murmurhash3_32(key, seed=0, positive=True) % 2**self.n_bits
            shared = shared or column in indices
            indices[column] = indices.get(column, 0.0) + float(value)
        return (dict(sorted(indices.items())) if shared else indices), {}

    def learned(self, indices, new):
        pass


def _finite(x):
    """Whether the rules accept every entry: finite numbers, categories, None; a float key only as a category's."""
    return all(v is None or isinstance(v, str) or (isinstance(v, (int, float)) and math.isfinite(v)
                                                    and not isinstance(k, float))
               for k, v in x.items())


def _batch(est, oracle, vocabulary, task, rng, fixed, where):
    """partial_fit of a list of 1 to 3 random rows, replayed on the oracle if accepted; returns the outcome."""
    X = [_random_row(rng, with_indices=not fixed) for _ in range(int(rng.integers(1, 4)))]
    y = [LABELS[task][int(rng.integers(len(LABELS[task])))] for _ in X]
    trial = copy.deepcopy(vocabulary)
    expected = []
    for x in X:
        indexed = trial.indexed(x) if _finite(x) else None
        if indexed is None:
            break
        trial.learned(*indexed)
        expected.append(indexed[0])
    before = snapshot(est)
    try:
        est.partial_fit(X, y)
    except DOCUMENTED:
        diff = differences(before, snapshot(est))
        assert not diff, f"{where}: the refused batch {X!r} -> {y!r} changed the learner: {diff[:5]}"
        return "refused"
    assert len(expected) == len(X), f"{where}: the batch {X!r} was accepted; the rules refuse it"
    oracle.partial_fit(expected, y)
    vocabulary.__dict__.update(trial.__dict__)
    return "accepted"


def campaign_named_streams(n_examples, seed):
    """Random named streams to learn_one / predict_learn_one / partial_fit of every learner of rows, against the oracle."""
    rng = np.random.default_rng(seed)
    all_cases = _row_cases()
    tried = 0
    outcomes = {"accepted": 0, "refused": 0}
    for _ in range(n_examples):
        name, task, make = all_cases[int(rng.integers(len(all_cases)))]
        fixed = "n_features" in name or "feature_map" in name
        est, oracle, vocabulary = make(), make(), Vocabulary(fixed)
        if rng.random() < 0.3:
            # hashing: a fixed width of 8 (n_features, or a feature map's) is 2**3 columns
            n_bits = 3 if fixed else int(rng.choice([1, 3, 6]))
            est.set_params(n_bits=n_bits)
            vocabulary = Hashing(n_bits)
        for step in range(8):
            # a feature map refuses a too wide Phi(x) within the pass, which keeps the rows before it
            if rng.random() < 0.2 and "feature_map" not in name:
                outcome = _batch(est, oracle, vocabulary, task, rng, fixed, f"{name}, step {step} (seed {seed})")
                outcomes[outcome] += 1
                tried += 1
                continue
            x = _random_row(rng, with_indices=not fixed)
            y = LABELS[task][int(rng.integers(len(LABELS[task])))]
            if rng.random() < 0.1:
                y = BAD_LABELS[task]
            what = f"{name}, step {step}: {x!r} -> {y!r} (seed {seed})"
            expected = vocabulary.indexed(x) if _finite(x) else None
            before = snapshot(est)
            predicting = rng.random() < 0.5
            try:
                said = est.predict_learn_one(x, y) if predicting else est.learn_one(x, y)
            except DOCUMENTED:
                diff = differences(before, snapshot(est))
                assert not diff, f"refused {what} changed the learner: {diff[:5]}"
                outcomes["refused"] += 1
                tried += 1
                continue
            assert expected is not None, f"{what} was accepted; the rules refuse it"
            indices, new = expected
            replayed = oracle.predict_learn_one(indices, y) if predicting else oracle.learn_one(indices, y)
            if predicting:
                assert said == replayed or (said != said and replayed != replayed), f"{what}: {said!r} != {replayed!r}"
            vocabulary.learned(indices, new)
            outcomes["accepted"] += 1
            tried += 1
        if oracle._is_started():
            assert est.vocabulary_ == vocabulary.columns, f"{name}: {est.vocabulary_} != {vocabulary.columns}"
            mine, theirs = snapshot(est), snapshot(oracle)
            for state in (mine, theirs):
                state.pop("_features", None)
                state.pop("n_bits", None)
            diff = differences(theirs, mine)
            assert not diff, f"{name} (seed {seed}): the named stream's learner differs: {diff[:5]}"
    print("outcomes:", outcomes)
    return tried


def test_named_streams(campaign):
    assert campaign("fuzz.test_named_dicts:campaign_named_streams", 120, seed=0) > 0
