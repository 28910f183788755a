"""save_cache / load_cache: exact round trip, memory maps, format checks, atomic writes."""

import os
import struct

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.data import load_cache, save_cache
from olearn.data._cache import cache_meta
from olearn.exceptions import DataFormatError


def random_data(seed=0, n=200, d=30):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=rng)
    return X, rng.standard_normal(n), rng.random(n)


def test_round_trip_is_exact_and_memory_mapped(tmp_path):
    X, y, w = random_data()
    path = tmp_path / "d.olc"
    save_cache(path, X, y, importance=w)
    X2, y2, w2 = load_cache(path)
    assert isinstance(X2, sp.csr_matrix) and X2.shape == X.shape
    assert (X2 != X).nnz == 0
    np.testing.assert_array_equal(X2.data, X.data)
    np.testing.assert_array_equal(X2.indices, X.indices)
    np.testing.assert_array_equal(X2.indptr, X.indptr)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(w2, w)
    for a in (X2.data, X2.indices, X2.indptr, y2, w2):
        assert isinstance(a, np.memmap)
        assert not a.flags.writeable
    assert X2.indices.dtype == np.int32
    # the loaded matrix works as a matrix
    v = np.arange(X.shape[1], dtype=float)
    np.testing.assert_allclose(X2 @ v, X @ v)


def test_without_importance_dense_input_other_dtypes(tmp_path):
    dense = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], dtype=np.float32)
    path = tmp_path / "d.olc"
    save_cache(str(path), dense, np.array([1, -1]))
    X, y, w = load_cache(str(path))
    assert w is None
    assert X.dtype == np.float32 and y.dtype == np.array([1]).dtype
    np.testing.assert_array_equal(X.toarray(), dense)


def test_empty_matrix(tmp_path):
    path = tmp_path / "e.olc"
    save_cache(path, sp.csr_matrix((0, 5)), np.empty(0))
    X, y, _ = load_cache(path)
    assert X.shape == (0, 5) and X.nnz == 0 and y.shape == (0,)


def test_arrays_are_aligned(tmp_path):
    X, y, w = random_data(1)
    path = tmp_path / "a.olc"
    save_cache(path, X, y, w)
    X2, y2, w2 = load_cache(path)
    for a in (X2.data, X2.indices, X2.indptr, y2, w2):
        assert a.offset % 64 == 0


def test_overwrite_is_atomic_and_leaves_no_temporary(tmp_path, monkeypatch):
    X, y, _ = random_data(2)
    path = tmp_path / "o.olc"
    save_cache(path, X, y)
    # a failure in the middle of a write keeps the old file and removes the temporary
    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        save_cache(path, X * 2, y)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["o.olc"]
    X2, _, _ = load_cache(path)
    assert (X2 != X).nnz == 0
    save_cache(path, X * 2, y)
    assert (load_cache(path)[0] != X * 2).nnz == 0
    assert os.listdir(tmp_path) == ["o.olc"]


def test_version_mismatch_raises(tmp_path):
    X, y, _ = random_data()
    path = tmp_path / "v.olc"
    save_cache(path, X, y)
    raw = bytearray(path.read_bytes())
    raw[8:12] = struct.pack("<I", 99)
    path.write_bytes(bytes(raw))
    with pytest.raises(DataFormatError, match="version 99 is not supported") as info:
        load_cache(path)
    assert info.value.path == str(path)


def test_bad_magic_and_truncation_raise(tmp_path):
    not_cache = tmp_path / "n.olc"
    not_cache.write_text("1 1:1\n")
    with pytest.raises(DataFormatError, match="not an olearn cache file"):
        load_cache(not_cache)
    X, y, _ = random_data()
    path = tmp_path / "t.olc"
    save_cache(path, X, y)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(DataFormatError, match="truncated"):
        load_cache(path)


def test_bad_inputs(tmp_path):
    X, y, _ = random_data()
    with pytest.raises(ValueError, match="length 200"):
        save_cache(tmp_path / "b.olc", X, y[:-1])
    with pytest.raises(ValueError, match="importance"):
        save_cache(tmp_path / "b.olc", X, y, importance=np.ones((200, 2)))
    with pytest.raises(FileNotFoundError, match="missing.olc"):
        load_cache(tmp_path / "missing.olc")


def test_meta_is_recorded_and_read_back_alone(tmp_path):
    path = tmp_path / "m.olc"
    meta = {"read with": {"format": "libsvm", "zero_based": False, "sizes": [1, 2]}}
    save_cache(path, np.eye(3), np.arange(3.0), meta=meta)
    assert cache_meta(path) == meta
    X, y, _ = load_cache(path)
    np.testing.assert_array_equal(X.toarray(), np.eye(3))
    save_cache(path, np.eye(3), np.arange(3.0))
    assert cache_meta(path) is None
    with pytest.raises(TypeError, match="meta must be a dict"):
        save_cache(path, np.eye(3), np.arange(3.0), meta=[1])
    with pytest.raises(ValueError, match="meta is too large"):
        save_cache(path, np.eye(3), np.arange(3.0), meta={"x": "a" * 70_000})
    assert cache_meta(path) is None  # the refused writes left the file as it was
