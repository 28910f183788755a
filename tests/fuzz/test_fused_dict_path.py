"""Fuzz the one-call path of dict examples of the binary linear learners against their batch path.

A stream of dicts whose keys repeat (the same key objects, as a River user's
stream has them) is learned one example at a time by ``predict_one``,
``learn_one`` and ``predict_learn_one``, which take one compiled call per
example while the keys repeat, the classes are known and no weight applies.
The streams break that now and then: a key missing, a categorical value, a
value None, a feature first seen late, a label of one class only at first,
a sample weight, a hyperparameter set midway, the learner pickled and loaded
midway. Each accepted example is replayed on a fresh learner of the same
settings as a one-row CSR matrix to ``partial_fit`` (the array path), its
columns given by an independent vocabulary; after every step both must hold
the same weights (to 1e-12) and predict the same class wherever the score is
not within 1e-9 of 0 (a dict's columns and a CSR row's are summed in
different orders). ``--fuzz-long`` multiplies the number of streams.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from fuzz.test_named_dicts import Vocabulary

import olearn

LABELS = {"int": [0, 1], "str": ["no", "yes"], "bool": [False, True]}
LEARNERS = [
    ("PAClassifier", lambda: olearn.PAClassifier(variant="pa1", C=1.0)),
    ("PAClassifier-pa", lambda: olearn.PAClassifier(variant="pa")),
    ("PAClassifier-pa2-intercept", lambda: olearn.PAClassifier(variant="pa2", C=0.5, fit_intercept=True)),
    ("PAClassifier-averaged", lambda: olearn.PAClassifier(average=True)),
    ("PAClassifier-class_weight", lambda: olearn.PAClassifier(class_weight={})),
    ("Perceptron", lambda: olearn.Perceptron()),
    ("OGDClassifier", lambda: olearn.OGDClassifier(radius=2.0)),
    ("OGDClassifier-logistic", lambda: olearn.OGDClassifier(loss="logistic", fit_intercept=True)),
    ("OnlineSVM", lambda: olearn.OnlineSVM()),
]
# a setting to change midway (set_params), per learner: it must be seen from the next example on
MIDWAY = {"PAClassifier": {"C": 0.25}, "OGDClassifier": {"eta": 0.5}, "OnlineSVM": {"eta": 0.5}}


def _keys(kind, n):
    return list(range(n)) if kind == "int" else [f"f{j}" for j in range(n)]


def _random_row(rng, keys, late):
    """A row with the usual keys, now and then one missing, a category, a None or a late feature."""
    values = rng.normal(size=len(keys)) * rng.choice([1.0, 3.0])
    row = dict(zip(keys, values.tolist()))
    roll = rng.random()
    if roll < 0.05:
        del row[keys[int(rng.integers(len(keys)))]]
    elif roll < 0.08:
        row[keys[int(rng.integers(len(keys)))]] = str(rng.choice(["red", "blue"]))
    elif roll < 0.1:
        row[keys[int(rng.integers(len(keys)))]] = None
    elif roll < 0.15:
        row[late[int(rng.integers(len(late)))]] = float(rng.normal())
    return row


def _csr_row(indices):
    """The oracle's example: one CSR row, columns in the dict's order."""
    columns = np.fromiter(indices, dtype=np.int64, count=len(indices))
    values = np.fromiter(indices.values(), dtype=np.float64, count=len(indices))
    width = int(columns.max()) + 1 if columns.size else 1
    return sp.csr_matrix((values, columns, np.array([0, columns.size])), shape=(1, width))


def _same_model(est, oracle, where):
    if not oracle._is_started():
        return
    assert est.classes_.tolist() == oracle.classes_.tolist(), where
    # an empty dict adds no column, the oracle's CSR row one: the columns past the other's weigh 0
    mine, theirs = est.coef_[0], oracle.coef_[0]
    width = min(mine.size, theirs.size)
    np.testing.assert_allclose(mine[:width], theirs[:width], rtol=1e-12, atol=1e-12, err_msg=where)
    assert not mine[width:].any() and not theirs[width:].any(), where
    np.testing.assert_allclose(est.intercept_, oracle.intercept_, rtol=1e-12, atol=1e-12, err_msg=where)


def _same_prediction(said, oracle, row, where, current=False):
    """``said`` equals the oracle's class for ``row`` unless the score is ~0 (``current``: the prediction of
    predict_learn_one, by the current weights, not compared for an averaging learner)."""
    if not oracle._is_started():
        assert said is None, where
        return
    if current and oracle.average:
        return  # predict_learn_one scores with the current weights, the oracle's decision_function the average
    score = oracle.decision_function(row)[0]
    if abs(score) > 1e-9:
        expected = oracle.classes_[-1] if score > 0 else oracle.classes_[0]
        assert said == expected and type(said) is type(expected.item()), f"{where}: {said!r} != {expected!r}"


def _pad(row, width):
    return sp.csr_matrix((row.data, row.indices, row.indptr), shape=(1, max(width, row.shape[1])))


def campaign_fused_dicts(n_examples, seed):
    """Random dict streams through every binary linear learner, against partial_fit of CSR rows."""
    rng = np.random.default_rng(seed)
    tried = 0
    for stream in range(n_examples):
        name, make = LEARNERS[int(rng.integers(len(LEARNERS)))]
        key_kind = str(rng.choice(["int", "str"]))
        labels = LABELS[str(rng.choice(list(LABELS)))]
        keys = _keys(key_kind, int(rng.integers(1, 12)))
        late = [k + 100 for k in range(3)] if key_kind == "int" else ["late0", "late1", "late2"]
        est, oracle, vocabulary = make(), make(), Vocabulary(fixed=False)
        truth = rng.normal(size=len(keys))
        first_label = labels[int(rng.integers(2))]
        for step in range(int(rng.integers(5, 40))):
            where = f"{name}, {key_kind} keys, stream {stream}, step {step} (seed {seed})"
            x = _random_row(rng, keys, late)
            score = sum(truth[j] * x.get(k, 0.0) for j, k in enumerate(keys) if isinstance(x.get(k), float))
            y = labels[int(score > 0)] if step > 3 else first_label  # one class only at first
            indexed = vocabulary.indexed(x)
            if indexed is None:  # an integer key on the column a category's name took: refused, nothing learned
                with pytest.raises(ValueError, match="holds the named feature"):
                    est.learn_one(x, y)
                _same_model(est, oracle, where + " refused")
                continue
            indices, new = indexed
            row = _pad(_csr_row(indices), oracle.__dict__.get("n_features_in_", 0))
            roll = rng.random()
            if roll < 0.3:
                _same_prediction(est.predict_one(x), oracle, row, where + " predict_one")
            elif roll < 0.35 and name.split("-")[0] in MIDWAY:
                est.set_params(**MIDWAY[name.split("-")[0]])
                oracle.set_params(**MIDWAY[name.split("-")[0]])
            elif roll < 0.4:
                est = pickle.loads(pickle.dumps(est))
            weight = float(rng.choice([0.5, 2.0])) if rng.random() < 0.1 else None
            weighted = {} if weight is None else {"sample_weight": weight}
            if rng.random() < 0.5:
                said = est.predict_learn_one(x, y, **weighted)
                _same_prediction(said, oracle, row, where + " predict_learn_one", current=True)
            else:
                est.learn_one(x, y, **weighted)
            oracle.partial_fit(row, [y], **({} if weight is None else {"sample_weight": [weight]}))
            vocabulary.learned(indices, new)
            _same_model(est, oracle, where)
            tried += 1
    return tried


def test_fused_dict_path(campaign):
    assert campaign("fuzz.test_fused_dict_path:campaign_fused_dicts", 150, seed=0) > 0
