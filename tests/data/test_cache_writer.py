"""CacheWriter: a cache written chunk by chunk is the file save_cache writes from the stacked chunks, in bounded memory."""

import os
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.data import load_cache, save_cache
from olearn.data._cache import CacheWriter


def _chunks(weighted=(True, False, True, False), seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i, has_weight in enumerate(weighted):
        X = sp.random(6 + i, 4 + 2 * i, density=0.5, random_state=seed + i, format="csr")  # widths differ
        y = rng.choice([-1.0, 1.0], X.shape[0])
        out.append((X, y, rng.random(X.shape[0]) + 0.5 if has_weight else None))
    return out


def _stacked(chunks):
    """The chunks as one matrix by scipy, as wide as the widest, and their weights (1 where a chunk has none)."""
    width = max(X.shape[1] for X, _, _ in chunks)
    X = sp.vstack([sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width)) for X, _, _ in chunks],
                  format="csr")
    y = np.concatenate([y for _, y, _ in chunks])
    if all(w is None for _, _, w in chunks):
        return X, y, None
    return X, y, np.concatenate([np.ones(y.size) if w is None else w for _, y, w in chunks])


@pytest.mark.parametrize("weighted", [(True, False, True, False), (False, False, False, False)])
def test_the_file_equals_save_cache_of_the_stacked_chunks_byte_for_byte(tmp_path, weighted):
    chunks = _chunks(weighted)
    writer = CacheWriter(tmp_path / "streamed.cache")
    for chunk in chunks:
        writer.append(*chunk)
    writer.close(meta={"from": "test"})
    save_cache(tmp_path / "whole.cache", *_stacked(chunks), meta={"from": "test"})
    assert (tmp_path / "streamed.cache").read_bytes() == (tmp_path / "whole.cache").read_bytes()
    X, y, w = load_cache(tmp_path / "streamed.cache")
    expected = _stacked(chunks)
    assert (X != expected[0]).nnz == 0 and X.shape == expected[0].shape
    np.testing.assert_array_equal(y, expected[1])
    assert (w is None) == (expected[2] is None)


def test_no_chunk_gives_an_empty_cache(tmp_path):
    writer = CacheWriter(tmp_path / "empty.cache")
    writer.close()
    X, y, w = load_cache(tmp_path / "empty.cache")
    assert X.shape == (0, 0) and y.size == 0 and w is None


def test_a_chunk_of_another_value_type_is_refused_and_discard_keeps_the_old_cache(tmp_path):
    path = tmp_path / "data.cache"
    save_cache(path, np.eye(2), np.array([1.0, -1.0]))
    before = path.read_bytes()
    writer = CacheWriter(path)
    writer.append(sp.csr_matrix(np.eye(3)), np.ones(3))
    with pytest.raises(ValueError, match="the data of this chunk are float32, those of the chunks before float64"):
        writer.append(sp.csr_matrix(np.eye(3, dtype=np.float32)), np.ones(3))
    with pytest.raises(ValueError, match="y must be a numeric 1-d array of length 3"):
        writer.append(sp.csr_matrix(np.eye(3)), np.ones(2))
    writer.discard()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["data.cache"]  # no temporary file left behind


def test_memory_holds_one_chunk_not_the_stream(tmp_path):
    # 40 chunks of 2,000 x 60 entries (about 1.4 MB each as CSR): appending them must not keep them
    rng = np.random.default_rng(1)
    indptr = np.arange(0, 2000 * 60 + 1, 60)
    writer = CacheWriter(tmp_path / "big.cache")
    tracemalloc.start()
    try:
        for _ in range(40):
            indices = np.sort(rng.choice(4096, size=(2000, 60), replace=True), axis=1).astype(np.int32).ravel()
            X = sp.csr_matrix((rng.random(indices.size), indices, indptr), shape=(2000, 4096))
            writer.append(X, rng.choice([-1.0, 1.0], 2000))
            del X, indices
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    writer.close()
    assert load_cache(tmp_path / "big.cache")[0].shape == (80_000, 4096)
    assert peak < 12e6, f"peak {peak / 1e6:.1f} MB while appending 40 chunks of about 1.4 MB each"
