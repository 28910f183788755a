"""Online transformers (olearn.preprocessing) against NumPy, River, the VW reader and the FeatureMap.

The convention checked here: an example that lacks a feature counts as a 0 in
that feature's statistics (NumPy's statistics of the dense prefix, and
scikit-learn's on sparse matrices). River's scaler skips an absent key, so it is
an oracle only on streams where every example holds every key.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from olearn._features import FeatureMap
from olearn.data import load_vw
from olearn.preprocessing import FeatureHasher, MaxAbsScaler, OneHotEncoder, StandardScaler


def _sparse_stream(n, d, seed, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(3.0, 2.0, size=(n, d)) * (rng.random((n, d)) < density)
    return X, [{f"f{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]


def _state(transformer):
    return pickle.dumps(transformer)


@pytest.mark.parametrize("density", [1.0, 0.3])
def test_standard_scaler_after_each_prefix_is_numpy_mean_and_var_of_the_prefix(density):
    X, rows = _sparse_stream(60, 5, seed=1, density=density)
    scaler = StandardScaler()
    for i, x in enumerate(rows, start=1):
        scaler.learn_one(x)
        order = [int(name[1:]) for name in scaler.feature_map_.vocabulary()]
        # absent features count as 0: the statistics of the dense prefix
        assert_allclose(scaler.mean_, X[:i, order].mean(axis=0), rtol=1e-12, atol=1e-14)
        assert_allclose(scaler.var_, X[:i, order].var(axis=0), rtol=1e-10, atol=1e-12)
        assert scaler.n_seen_ == i


def test_standard_scaler_batches_dense_and_sparse_agree_with_numpy():
    X, _ = _sparse_stream(80, 6, seed=2, density=0.5)
    dense = StandardScaler().partial_fit(X[:30]).partial_fit(X[30:])
    sparse = StandardScaler().partial_fit(sp.csr_matrix(X[:50])).partial_fit(sp.csr_matrix(X[50:]))
    for scaler in (dense, sparse):
        assert_allclose(scaler.mean_, X.mean(axis=0), rtol=1e-12)
        assert_allclose(scaler.var_, X.var(axis=0), rtol=1e-10)
    # a dense batch transforms every entry: scikit-learn's batch formula on the learned statistics
    expected = (X - X.mean(axis=0)) / X.std(axis=0)
    assert_allclose(dense.transform(X), expected, rtol=1e-9)
    # a sparse batch transforms its stored entries only, and stays sparse
    out = sparse.transform(sp.csr_matrix(X))
    assert sp.issparse(out) and out.nnz == np.count_nonzero(X)
    mask = X != 0
    assert_allclose(out.toarray()[mask], expected[mask], rtol=1e-9)
    assert_allclose(StandardScaler(with_mean=False).partial_fit(X).transform(X), X / X.std(axis=0), rtol=1e-9)
    assert_allclose(StandardScaler(with_std=False).partial_fit(X).transform(X), X - X.mean(axis=0), atol=1e-12)


def test_standard_scaler_equals_rivers_on_a_stream_that_always_holds_every_key():
    preprocessing = pytest.importorskip("river.preprocessing")
    rng = np.random.default_rng(3)
    X = rng.normal(10.0, 3.0, size=(50, 4))
    X[:, 2] = 7.0  # a constant feature: variance 0, scaled to 0 by both
    ours, theirs = StandardScaler(), preprocessing.StandardScaler()
    for row in X:
        x = {f"x{j}": float(v) for j, v in enumerate(row)}
        # the transform before learning (the pipeline's order), then after
        assert ours.transform_one(x) == pytest.approx(theirs.transform_one(x), rel=1e-9, abs=1e-12)
        ours.learn_one(x)
        theirs.learn_one(x)
        assert ours.transform_one(x) == pytest.approx(theirs.transform_one(x), rel=1e-9, abs=1e-12)


def test_maxabs_scaler_is_the_largest_absolute_value_of_the_prefix_and_rivers_transform():
    preprocessing = pytest.importorskip("river.preprocessing")
    X, rows = _sparse_stream(40, 4, seed=4, density=0.6)
    X = X - 3.0 * (X != 0)  # signs of both kinds
    rows = [{f"f{j}": float(v) for j, v in enumerate(row) if v != 0.0} for row in X]
    ours, theirs = MaxAbsScaler(), preprocessing.MaxAbsScaler()
    for i, x in enumerate(rows, start=1):
        ours.learn_one(x)
        theirs.learn_one(x)
        order = [int(name[1:]) for name in ours.feature_map_.vocabulary()]
        assert_allclose(ours.max_abs_, np.abs(X[:i, order]).max(axis=0))
        assert ours.transform_one(x) == pytest.approx(theirs.transform_one(x), rel=1e-12)
    assert_allclose(MaxAbsScaler().partial_fit(sp.csr_matrix(X)).max_abs_, np.abs(X).max(axis=0))


def test_hasher_gives_the_columns_of_the_vw_reader_and_of_the_feature_map(tmp_path):
    rows = [{"price": 2.5, "color": "red", "size": 3.0}, {"colour": 1.0, "price": -1.0}, {"a b": 1.0}]
    path = tmp_path / "hashed.vw"
    # the VW reader spells a category as name=value, and has no spaces inside a name
    path.write_text("1 | price:2.5 color=red size:3\n-1 | colour:1 price:-1\n1 | x:1\n")
    X_vw = load_vw(str(path), n_bits=12)[0]
    hashed = FeatureHasher(n_bits=12).transform(rows[:2])
    assert hashed.shape == (2, 4096)
    assert (hashed != X_vw[:2]).nnz == 0
    fm = FeatureMap(n_bits=12)
    for x in rows:
        indices, data, _, _ = fm.row(x)
        assert FeatureHasher(n_bits=12).transform_one(x) == dict(zip(indices.tolist(), data.tolist()))


def test_one_hot_encoder_names_categories_as_the_feature_map_does():
    x = {"city": "Paris", "zip": 75001, "age": 31, "gone": None}
    assert OneHotEncoder().transform_one(x) == {"city=Paris": 1.0, "zip": 75001, "age": 31}
    assert OneHotEncoder(features=["zip"]).transform_one(x) == {"city=Paris": 1.0, "zip=75001": 1.0, "age": 31}
    fm = FeatureMap()
    indices, _, _, new = fm.row(x, learning=True)
    assert [name for name, _ in new] == ["city=Paris", "zip", "age"]
    frame = pytest.importorskip("pandas").DataFrame({"city": ["Paris", "Rome"], "age": [31, 40]})
    out = OneHotEncoder().transform(frame)
    assert out.to_dict("list") == {"city=Paris": [1.0, 0.0], "age": [31, 40], "city=Rome": [0.0, 1.0]}


def test_batch_forms_give_back_what_they_were_given():
    pd = pytest.importorskip("pandas")
    X, rows = _sparse_stream(20, 3, seed=5, density=1.0)
    frame = pd.DataFrame(X, columns=["a", "b", "c"], index=range(100, 120))
    scaler = StandardScaler().learn_many(frame)
    assert_allclose(scaler.mean_, X.mean(axis=0))
    out = scaler.transform_many(frame)
    assert list(out.columns) == ["a", "b", "c"] and list(out.index) == list(range(100, 120))
    assert_allclose(out.to_numpy(), (X - X.mean(axis=0)) / X.std(axis=0), rtol=1e-9)
    # a frame of mixed kinds goes row by row, categories one-hot
    mixed = pd.DataFrame({"a": [1.0, 3.0], "city": ["Paris", "Rome"]})
    listed = StandardScaler().partial_fit(mixed).transform([{"a": 2.0, "city": "Paris"}])
    # city=Paris was 1 then absent (0): mean 0.5, deviation 0.5
    assert listed == [{"a": 0.0, "city=Paris": 1.0}]


def test_bad_input_is_refused_by_name_and_leaves_the_transformer_as_it_was():
    scaler = StandardScaler().learn_one({"a": 1.0, "b": 2.0}).learn_one({"a": 3.0})
    before = _state(scaler)
    with pytest.raises(ValueError, match="feature 'b' has value nan"):
        scaler.learn_one({"a": 5.0, "b": float("nan")})
    with pytest.raises(TypeError, match="feature 'c' has value"):
        scaler.learn_one({"a": 5.0, "c": [1.0]})
    with pytest.raises(TypeError, match="an example must be a dict"):
        scaler.learn_one([1.0, 2.0])
    with pytest.raises(ValueError, match="feature 'a' has value 1e\\+300.*would overflow"):
        scaler.learn_one({"new": 1.0, "a": 1e300})
    with pytest.raises(ValueError, match="row 1: X has value nan|row 1"):
        scaler.partial_fit(np.array([[1.0, 2.0], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="row 1: .*feature 'a' has value nan"):
        scaler.partial_fit([{"a": 1.0, "z": 2.0}, {"a": float("nan")}])
    assert _state(scaler) == before
    assert "z" not in scaler.feature_map_.vocabulary()
    # a first example refused leaves the scaler unfitted
    fresh = StandardScaler()
    with pytest.raises(ValueError):
        fresh.learn_one({"a": float("inf")})
    assert not hasattr(fresh, "n_features_in_")


@pytest.mark.parametrize("make,name,value", [
    (lambda: StandardScaler(with_mean="yes"), "with_mean", "'yes'"),
    (lambda: StandardScaler(with_std=1), "with_std", "1"),
    (lambda: FeatureHasher(n_bits=40), "n_bits", "40"),
    (lambda: OneHotEncoder(features="city"), "features", "'city'"),
])
def test_bad_hyperparameters_are_named(make, name, value):
    with pytest.raises(ValueError, match=f"parameter {name}={value} is invalid"):
        make().learn_one({"a": 1.0})


def test_params_clone_and_pickle():
    from sklearn.base import clone

    scaler = StandardScaler(with_mean=False)
    assert scaler.get_params() == {"with_mean": False, "with_std": True}
    assert scaler.set_params(with_std=False).with_std is False
    scaler.set_params(with_std=True)
    _, rows = _sparse_stream(10, 3, seed=6)
    for x in rows:
        scaler.learn_one(x)
    copy = pickle.loads(pickle.dumps(scaler))
    assert copy.transform_one(rows[0]) == scaler.transform_one(rows[0])
    fresh = clone(scaler)
    assert fresh.get_params() == scaler.get_params() and not hasattr(fresh, "mean_") or fresh.n_seen_ == 0
    # a changed setting is used at once
    assert scaler.set_params(with_std=False).transform_one({"f0": 1.0})["f0"] == pytest.approx(1.0)
