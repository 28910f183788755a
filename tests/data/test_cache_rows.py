"""``load_cache_rows``: the arrays of ``load_cache`` as CSRRows (no scipy), checked the same way."""

import numpy as np
import pytest
import scipy.sparse as sp

from olearn._sparse import CSRRows
from olearn.data import load_cache, save_cache
from olearn.data._cache import load_cache_rows
from olearn.exceptions import DataFormatError


def test_the_rows_are_the_arrays_of_load_cache(tmp_path):
    path = tmp_path / "x.olc"
    X = sp.csr_matrix(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0], [0.0, 0.0, 0.0]]))
    save_cache(path, X, np.array([1.0, -1.0, 1.0]), importance=np.array([1.0, 2.0, 0.5]))
    rows, y, importance = load_cache_rows(path)
    assert isinstance(rows, CSRRows) and rows.shape == (3, 3)
    assert rows.indptr.tolist() == [0, 1, 3, 3] and rows.indices.tolist() == [1, 0, 2]
    assert rows.data.tolist() == [1.5, 2.0, -3.0]
    assert y.tolist() == [1.0, -1.0, 1.0] and importance.tolist() == [1.0, 2.0, 0.5]
    scipy_X, _, _ = load_cache(path)
    assert (scipy_X != X).nnz == 0


def test_a_damaged_cache_is_refused_as_by_load_cache(tmp_path):
    path = tmp_path / "x.olc"
    save_cache(path, sp.csr_matrix(np.eye(3)), np.zeros(3))
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF  # the last byte of the last array (y)
    path.write_bytes(bytes(raw))
    with pytest.raises(DataFormatError, match="checksum"):
        load_cache_rows(path)
