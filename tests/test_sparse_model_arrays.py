"""Model files store a mostly-zero array as its non-zero entries (issue #34), and check them when loading.

A hashed model's file is then proportional to what it learned; a file of
dense arrays (all files written before) loads as it did; a crafted sparse
array (indices out of range, unsorted, repeated, of the wrong type, a shape
past the state limit, a part missing) is refused with a ModelFormatError.
"""

import json
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import olearn
from olearn.exceptions import ModelFormatError
from olearn.linear import PAClassifier
from olearn.multiclass import PAMulticlass
from olearn._persistence import save

D = 2**20


def _hashed_model():
    rng = np.random.default_rng(0)
    X = sp.random(40, D, density=2e-5, format="csr", random_state=rng)
    model = PAClassifier(average=True, n_features=D).partial_fit(X, np.where(rng.random(40) > 0.5, 1, -1))
    model._w[7] = -0.0  # a negative zero is kept as it is
    return model, X


def _members(path):
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return names, json.loads(str(arrays.pop("__meta__"))), arrays


def _write(path, meta, arrays):
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)


def test_a_hashed_model_file_holds_its_non_zero_weights_and_loads_bit_for_bit(tmp_path):
    model, X = _hashed_model()
    path = tmp_path / "hashed.npz"
    save(model, path)
    names, _, arrays = _members(path)
    weights = np.append(model._w[:D], model._w[-1])
    assert "weights.npy" not in names and "weights@nonzero.npy" in names
    stored = np.flatnonzero((weights != 0) | np.signbit(weights))
    assert_array_equal(arrays["weights@nonzero"], stored)
    assert_array_equal(arrays["weights@shape"], [D + 1])
    # the file is what was learned: 16 bytes a stored entry (and a few records), not 8 bytes a column
    assert path.stat().st_size < 16 * (stored.size + np.count_nonzero(model._avg)) + 8192
    loaded = olearn.load(path)
    assert loaded._w.tobytes() == model._w.tobytes() and np.signbit(loaded._w[7])
    assert loaded._avg.tobytes() == model._avg.tobytes()
    assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_file_of_dense_arrays_loads_as_before(tmp_path):
    model, X = _hashed_model()
    path = tmp_path / "hashed.npz"
    save(model, path)
    _, meta, arrays = _members(path)
    dense = {}
    for name in ("weights", "average"):
        full = np.zeros(int(arrays.pop(f"{name}@shape")[0]))
        full[arrays.pop(f"{name}@nonzero")] = arrays.pop(f"{name}@values")
        dense[name] = full
    old = tmp_path / "dense.npz"
    _write(old, meta, {**arrays, **dense})
    loaded = olearn.load(old)
    assert loaded._w.tobytes() == np.append(dense["weights"][:D], dense["weights"][-1]).tobytes()
    assert_array_equal(loaded.decision_function(X), model.decision_function(X))


def test_a_small_or_dense_array_stays_dense(tmp_path):
    path = tmp_path / "small.npz"
    save(PAMulticlass().partial_fit(np.eye(3), [0, 1, 2]), path)
    names, _, _ = _members(path)
    assert not any("@" in name for name in names)


def _crafted(tmp_path, change):
    model, _ = _hashed_model()
    path = tmp_path / "hashed.npz"
    save(model, path)
    _, meta, arrays = _members(path)
    change(arrays)
    crafted = tmp_path / "crafted.npz"
    _write(crafted, meta, arrays)
    return crafted


def _set(name, value):
    return lambda arrays: arrays.__setitem__(name, value)


@pytest.mark.parametrize("change,message", [
    (lambda a: a["weights@nonzero"].__setitem__(-1, D + 1), r"index 1048577, out of range for 1048577 entries"),
    (lambda a: a["weights@nonzero"].__setitem__(0, -3), r"index -3, out of range"),
    (lambda a: a["weights@nonzero"].__setitem__(slice(0, 2), a["weights@nonzero"][1::-1].copy()),
     r"must increase strictly .* at position 1"),
    (lambda a: a["weights@nonzero"].__setitem__(1, a["weights@nonzero"][0]), r"must increase strictly"),
    (lambda a: a.__setitem__("weights@nonzero", a["weights@nonzero"].astype(np.float64)), r"1-d int64 array"),
    (lambda a: a.__setitem__("weights@values", a["weights@values"][:-1]), r"as long as weights@nonzero"),
    (lambda a: a.__setitem__("weights@values", a["weights@values"].astype(np.int64)), r"float array"),
    (_set("weights@shape", np.array([-1], dtype=np.int64)), r"sizes >= 0"),
    (_set("weights@shape", np.array([2**40], dtype=np.int64)), r"past max_state_bytes"),
    (lambda a: a.pop("weights@values"), r"lacks \['weights@values'\]"),
    (_set("weights", np.zeros(D + 1)), r"also has a member 'weights'"),
])
def test_a_crafted_sparse_array_is_refused(tmp_path, change, message):
    crafted = _crafted(tmp_path, change)
    with pytest.raises(ModelFormatError, match=r"crafted\.npz: array 'weights' .*" + message):
        olearn.load(crafted)


def test_a_sparse_array_is_still_checked_by_the_state_schema(tmp_path):
    # in range and sorted, but the dense array has the wrong shape for the model
    crafted = _crafted(tmp_path, _set("weights@shape", np.array([D + 5], dtype=np.int64)))
    with pytest.raises(ModelFormatError, match=r"invalid PAClassifier model: array 'weights' has shape"):
        olearn.load(crafted)
