"""Kernel learners on dict rows whose keys come in any order, against the plain-NumPy dual transcription.

A dict gives its columns in the order of its keys: integer keys shuffled,
names whose vocabulary order differs from the dict's, hashed names
(``n_bits``). The support vectors are stored by ascending column, which the
compiled dot product relies on (a vector whose first and last column span its
length is read as one block); before that, a row such as ``{0: a, 2: b, 1: c,
3: d}`` got the values of columns 1 and 2 swapped in every kernel value. The
learner on such a stream must equal ``tests/oracles/kernel.py`` run on the
dense matrix of the same columns; the multiclass kernel learners, which have
no transcription here, must equal themselves learning the dense rows.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from oracles import kernel as oracle
from sklearn.utils import murmurhash3_32

import olearn

TOL = {"rtol": 1e-10, "atol": 1e-10}
CASES = [
    ("PAClassifier", "pa1", {"kernel": "rbf", "gamma": 0.5, "C": 1.0}),
    ("PAClassifier", "pa", {"kernel": "poly", "degree": 2, "coef0": 1.0}),
    ("Perceptron", "perceptron", {"kernel": "poly", "degree": 3, "coef0": 1.0}),
    ("PARegressor", "pa1", {"kernel": "rbf", "gamma": 0.3, "C": 1.0, "epsilon": 0.05}),
]


def _stream(name, n=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.7)
    u = rng.standard_normal(d)
    if name == "PARegressor":
        return X, X @ u
    y = np.where(X @ u > 0, 1, -1)
    y[0], y[1] = 1, -1
    return X, y


def _dicts(X, keys, rng):
    """One dict per row, its non-zero entries keyed by ``keys`` in a random order (the zeros missing)."""
    rows = []
    for row in X:
        present = [j for j in rng.permutation(row.size) if row[j] != 0.0]
        rows.append({keys[j]: float(row[j]) for j in present})
    return rows


def _columns(X, column_of, width):
    """The dense matrix the learner sees: column j of X moved to ``column_of[j]`` (columns sharing one summed)."""
    out = np.zeros((X.shape[0], width))
    for j in range(X.shape[1]):
        out[:, column_of[j]] += X[:, j]
    return out


def _estimator(name, rule, params, **extra):
    params = dict(params, **extra)
    if name != "Perceptron":
        params["variant"] = rule
    return getattr(olearn, name)(random_state=0, **params)


def _check(est, name, rule, params, X_seen, y):
    args = {k: v for k, v in params.items()}
    args["rule"] = rule
    if name == "PARegressor":
        args["task"] = "regression"
    expected = oracle.dual_learner(X_seen, y, **args)
    assert sum(t != 0 for t in expected.taus) > 5
    assert_allclose(est.dual_coef_.ravel(), expected.alphas, **TOL)
    assert_allclose(est.support_vectors_.toarray(), np.array(expected.support), **TOL)
    kernel_params = {k: v for k, v in params.items() if k in ("kernel", "degree", "gamma", "coef0")}
    scores = est.predict(X_seen) if name == "PARegressor" else est.decision_function(X_seen)
    assert_allclose(scores, expected.decision(X_seen, **kernel_params), **TOL)


def _learn(est, rows, y):
    for x, label in zip(rows, y):
        est.learn_one(x, label.item())


@pytest.mark.parametrize("name, rule, params", CASES, ids=lambda v: str(v))
def test_integer_keys_in_any_order(name, rule, params):
    X, y = _stream(name)
    est = _estimator(name, rule, params)
    _learn(est, _dicts(X, list(range(X.shape[1])), np.random.default_rng(1)), y)
    _check(est, name, rule, params, X, y)


@pytest.mark.parametrize("name, rule, params", CASES, ids=lambda v: str(v))
def test_names_learned_in_another_order(name, rule, params):
    X, y = _stream(name, seed=2)
    keys = [f"f{j}" for j in range(X.shape[1])]
    est = _estimator(name, rule, params)
    _learn(est, _dicts(X, keys, np.random.default_rng(3)), y)
    vocabulary = est.vocabulary_
    assert list(vocabulary.values()) == sorted(vocabulary.values())
    assert list(vocabulary) != keys  # the first rows named them in another order than f0, f1, ...
    X_seen = _columns(X, [vocabulary[k] for k in keys], est.n_features_in_)
    _check(est, name, rule, params, X_seen, y)


@pytest.mark.parametrize("name, rule, params", CASES, ids=lambda v: str(v))
def test_hashed_names(name, rule, params):
    X, y = _stream(name, seed=4, d=8)
    keys = [f"feature{j}" for j in range(X.shape[1])]
    n_bits = 4
    column_of = [murmurhash3_32(k, seed=0, positive=True) % 2**n_bits for k in keys]
    assert column_of != sorted(column_of)
    est = _estimator(name, rule, params, n_bits=n_bits)
    _learn(est, _dicts(X, keys, np.random.default_rng(5)), y)
    X_seen = _columns(X, column_of, est.n_features_in_)
    _check(est, name, rule, params, X_seen, y)


def test_a_support_set_loaded_unsorted_is_read_by_column(tmp_path):
    # a model file written before the vectors were kept ascending: loading sorts them
    X, y = _stream("PAClassifier", seed=6)
    est = _estimator("PAClassifier", "pa1", CASES[0][2])
    _learn(est, [dict(enumerate(row)) for row in X], y)
    arrays = est._support.to_arrays()
    indptr, indices, data = arrays["support_indptr"], arrays["support_indices"], arrays["support_data"]
    for i in range(indptr.size - 1):  # swap the second and third entries, the first and last kept
        lo = indptr[i]
        assert indptr[i + 1] - lo >= 4
        indices[lo + 1:lo + 3], data[lo + 1:lo + 3] = indices[lo + 2:lo:-1].copy(), data[lo + 2:lo:-1].copy()
    est._support.load_arrays(arrays)
    _check(est, "PAClassifier", "pa1", CASES[0][2], X, y)


@pytest.mark.parametrize("make", [
    lambda: olearn.PAMulticlass(kernel="rbf", gamma=0.5, random_state=0),
    lambda: olearn.MIRA(kernel="poly", degree=2, coef0=1.0, random_state=0),
], ids=["PAMulticlass-rbf", "MIRA-poly"])
def test_multiclass_kernel_learners_ignore_the_key_order(make):
    # no multiclass dual transcription here: the order of a dict's keys must not change the model, which the
    # dense rows (read by column) give
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 6)) * (rng.random((60, 6)) < 0.8)
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    shuffled, dense = make(), make()
    for x, row, label in zip(_dicts(X, list(range(6)), rng), X, y):
        shuffled.learn_one(x, label)
        dense.partial_fit(row[None, :], [label])
    assert shuffled.support_vectors_.shape[0] > 5
    assert_allclose(shuffled.decision_function(X), dense.decision_function(X), rtol=1e-12, atol=1e-12)
