"""Model files: atomic writes, versioned format, refusal of anything that is not an olearn model."""

import json
import os
import pickle
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import olearn
import olearn._persistence as persistence
from olearn.exceptions import ModelFormatError, OlearnError


@pytest.fixture
def model():
    X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0]])
    return olearn.PAClassifier(variant="pa2", C=0.5, fit_intercept=True).fit(X, ["ham", "spam", "ham"])


def _rewrite(path, meta_update=None, drop=(), meta_text=None, extra=None):
    """Rewrite an olearn model file with changed metadata or arrays."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    meta.update(meta_update or {})
    for name in drop:
        arrays.pop(name)
    arrays.update(extra or {})
    text = json.dumps(meta) if meta_text is None else meta_text
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(text), **arrays)


def _leftovers(folder, keep):
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


# -- atomic writes ---------------------------------------------------------------


def test_save_writes_exactly_the_path_given(model, tmp_path):
    for name in ("m.npz", "m", "model.olearn"):
        model.save(tmp_path / name)
        assert (tmp_path / name).is_file()
        assert_array_equal(olearn.load(tmp_path / name).coef_, model.coef_)
    model.save(str(tmp_path / "as_str.npz"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["as_str.npz", "m", "m.npz", "model.olearn"]


def test_failed_save_keeps_the_old_file_and_leaves_no_temp_files(model, tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    model.save(path)
    before = path.read_bytes()
    newer = olearn.PAClassifier().fit(np.eye(3), [0, 1, 0])

    def savez_that_dies_halfway(fh, *args, **kwargs):
        fh.write(b"PK\x03\x04 half a zip archive")
        raise OSError("disk full")

    monkeypatch.setattr(persistence.np, "savez", savez_that_dies_halfway)
    with pytest.raises(OSError, match="disk full"):
        newer.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _leftovers(tmp_path, {"model.npz"}) == []
    loaded = olearn.load(path)
    assert_array_equal(loaded.coef_, model.coef_)
    assert list(loaded.classes_) == ["ham", "spam"]


def test_interrupted_save_leaves_no_temp_files(model, tmp_path, monkeypatch):
    """KeyboardInterrupt (not just Exception) while writing a new file: nothing is left behind."""

    def interrupted(fh, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(persistence.np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.save(tmp_path / "new.npz")
    assert list(tmp_path.iterdir()) == []


def test_failed_rename_keeps_the_old_file(model, tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    model.save(path)
    before = path.read_bytes()

    def replace_fails(src, dst):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(persistence.os, "replace", replace_fails)
    with pytest.raises(PermissionError):
        olearn.Perceptron().fit(np.eye(2), [0, 1]).save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _leftovers(tmp_path, {"model.npz"}) == []


def test_save_into_missing_folder_fails_cleanly(model, tmp_path):
    with pytest.raises(FileNotFoundError):
        model.save(tmp_path / "no" / "such" / "m.npz")


def test_load_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        olearn.load(tmp_path / "absent.npz")


# -- format and version ----------------------------------------------------------------


def test_file_is_a_plain_npz_with_json_metadata(model, tmp_path):
    """Portable: readable with numpy alone, no pickles, metadata as JSON."""
    path = model.save(tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(str(archive["__meta__"]))
        assert meta["format"] == "olearn-model"
        assert meta["format_version"] == persistence.FORMAT_VERSION
        assert meta["params"] == model.get_params()
        for name in archive.files:
            assert archive[name].dtype != object
    assert zipfile.is_zipfile(path)


@pytest.mark.parametrize("version", [0, 2, 999, "1", None])
def test_format_version_mismatch(model, tmp_path, version):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, {"format_version": version})
    with pytest.raises(ModelFormatError, match=r"version"):
        olearn.load(path)


def test_model_format_error_is_an_olearn_value_error():
    assert issubclass(ModelFormatError, OlearnError) and issubclass(ModelFormatError, ValueError)


def test_wrong_format_name(model, tmp_path):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, {"format": "someone-elses-model"})
    with pytest.raises(ModelFormatError, match=r"not an olearn model"):
        olearn.load(path)


def test_non_olearn_npz(tmp_path):
    path = tmp_path / "data.npz"
    np.savez(path, weights=np.ones(3), classes=np.array([0, 1]))
    with pytest.raises(ModelFormatError, match=r"not an olearn model"):
        olearn.load(path)


@pytest.mark.parametrize("content", [b"", b"hello world\n", b"PK\x03\x04 truncated zip", b"\x93NUMPY garbage"],
                         ids=["empty", "text", "truncated_zip", "bad_npy"])
def test_not_a_model_file_at_all(tmp_path, content):
    path = tmp_path / "junk.npz"
    path.write_bytes(content)
    with pytest.raises(ModelFormatError, match=r"junk\.npz"):
        olearn.load(path)


def test_a_plain_npy_file_is_not_a_model(tmp_path):
    path = tmp_path / "array.npy"
    np.save(path, np.arange(5.0))
    with pytest.raises(ModelFormatError, match=r"array\.npy"):
        olearn.load(path)


def test_pickled_npy_is_refused_without_unpickling(tmp_path):
    path = tmp_path / "obj.npy"
    np.save(path, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ModelFormatError):
        olearn.load(path)


@pytest.mark.parametrize("text", ["not json", "[1, 2]", "null", '"olearn-model"'])
def test_corrupt_metadata(model, tmp_path, text):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, meta_text=text)
    with pytest.raises(ModelFormatError):
        olearn.load(path)


@pytest.mark.parametrize(
    "cls",
    [
        "os:system",
        "builtins:eval",
        "subprocess:Popen",
        "olearnx.linear:PAClassifier",
        "sklearn.linear_model:SGDClassifier",
        "numpy:array",
    ],
)
def test_non_olearn_class_is_refused(model, tmp_path, cls):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, {"class": cls})
    with pytest.raises(ModelFormatError, match=r"not an olearn estimator"):
        olearn.load(path)


@pytest.mark.parametrize(
    "cls",
    [
        "olearn.exceptions:ModelFormatError",  # an olearn class, but not an estimator
        "olearn:load",  # an olearn callable, not a class
        "olearn._persistence:os",  # a module reachable from an olearn module
        "olearn.linear:NoSuchEstimator",
        "olearn.no_such_module:PAClassifier",
    ],
)
def test_olearn_names_that_are_not_estimators_are_refused(model, tmp_path, cls):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, {"class": cls})
    with pytest.raises(ModelFormatError):
        olearn.load(path)


def test_missing_class_entry(model, tmp_path):
    path = model.save(tmp_path / "m.npz")
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    del meta["class"]
    with open(path, "wb") as fh:
        np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError):
        olearn.load(path)


def test_unknown_hyperparameter_in_file(model, tmp_path):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, {"params": {**model.get_params(), "from_the_future": 3}})
    with pytest.raises(ModelFormatError):
        olearn.load(path)


def test_missing_array_in_file(model, tmp_path):
    path = model.save(tmp_path / "m.npz")
    _rewrite(path, drop=["weights"])
    with pytest.raises(ModelFormatError):
        olearn.load(path)


# -- what can be saved -----------------------------------------------------------------


def test_object_dtype_labels_refuse_to_save(tmp_path):
    y = np.array(["ham", "spam", "ham"], dtype=object)
    est = olearn.Perceptron().fit(np.eye(3), y)
    with pytest.raises(ValueError, match=r"classes.*(Python objects|object).*pickle"):
        est.save(tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []
    # pickle, as the message suggests, works
    assert list(pickle.loads(pickle.dumps(est)).classes_) == ["ham", "spam"]


def test_infinite_C_round_trips(tmp_path):
    est = olearn.PAClassifier(variant="pa1", C=float("inf")).fit(np.eye(2), [0, 1])
    loaded = olearn.load(est.save(tmp_path / "m.npz"))
    assert loaded.C == float("inf")


def test_numpy_integer_hyperparameter_saves(tmp_path):
    """n_features=np.int64(3) is accepted by the estimator, so it must be saveable too."""
    est = olearn.Perceptron(n_features=np.int64(3)).fit(np.eye(3), [0, 1, 0])
    loaded = olearn.load(est.save(tmp_path / "m.npz"))
    assert loaded.n_features == 3
    assert_array_equal(loaded.coef_, est.coef_)


def test_saved_file_permissions_follow_umask(model, tmp_path):
    """A saved model is an ordinary file: its mode follows the umask like any file the user writes."""
    old = os.umask(0o022)
    try:
        path = model.save(tmp_path / "m.npz")
        with open(tmp_path / "plain", "wb"):
            pass
    finally:
        os.umask(old)
    assert (os.stat(path).st_mode & 0o777) == (os.stat(tmp_path / "plain").st_mode & 0o777)
