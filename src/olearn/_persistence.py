"""Saving and loading models: portable, atomic, versioned.

A model file is a NumPy ``.npz`` archive: the learned arrays, plus one entry
``__meta__`` holding JSON with the format name and version, the estimator's
class and hyperparameters, and its scalar state. Nothing is pickled, so a
model file can be read without trusting it to run code. The file is written
to a temporary name in the target folder and renamed into place, so a crash
never leaves a half-written model behind.
"""

import importlib
import json
import os
import tempfile
import zipfile

import numpy as np

from .exceptions import ModelFormatError

FORMAT_NAME = "olearn-model"
FORMAT_VERSION = 1


class PersistenceMixin:
    """``save(path)`` for estimators that define ``_get_state`` / ``_set_state``."""

    def save(self, path):
        """Write the model to ``path`` (atomic; read it back with :func:`olearn.load`)."""
        save(self, path)
        return path


def _json_ready(params, cls_name):
    try:
        return json.loads(json.dumps(params, allow_nan=True))
    except TypeError as err:
        raise ValueError(f"{cls_name}: a hyperparameter cannot be saved portably ({err}); use pickle") from None


def save(model, path):
    """Save a fitted olearn estimator to ``path`` atomically."""
    cls = type(model)
    arrays, state = model._get_state()
    for name, array in arrays.items():
        if np.asarray(array).dtype == object:
            raise ValueError(
                f"{cls.__name__}: {name} holds Python objects and cannot be saved portably; use pickle instead"
            )
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "params": _json_ready(model.get_params(deep=False), cls.__name__),
        "state": state,
    }
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".olearn-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, __meta__=np.array(json.dumps(meta)), **arrays)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def load(path):
    """Load a model written by ``save``.

    Raises :class:`olearn.exceptions.ModelFormatError` if the file is not an
    olearn model or was written by another format version.
    """
    path = os.fspath(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ModelFormatError(f"{path}: not an olearn model file ({err})") from None
    with archive:
        if "__meta__" not in archive.files:
            raise ModelFormatError(f"{path}: not an olearn model file (no metadata)")
        meta = json.loads(str(archive["__meta__"]))
        arrays = {name: archive[name] for name in archive.files if name != "__meta__"}
    if meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: not an olearn model file (format {meta.get('format')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {meta.get('format_version')!r}; this olearn reads version {FORMAT_VERSION}"
        )
    module_name, _, qualname = meta["class"].partition(":")
    if module_name.split(".")[0] != "olearn":
        raise ModelFormatError(f"{path}: names class {meta['class']!r}, which is not an olearn estimator")
    try:
        cls = getattr(importlib.import_module(module_name), qualname)
    except (ImportError, AttributeError):
        raise ModelFormatError(f"{path}: unknown estimator class {meta['class']!r}") from None
    model = cls(**meta["params"])
    model._set_state(arrays, meta["state"])
    return model
