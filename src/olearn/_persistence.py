"""Saving and loading models: portable, atomic, versioned.

A model file is a NumPy ``.npz`` archive: the learned arrays, plus one entry
``__meta__`` holding JSON with the format name and version, the estimator's
class and hyperparameters, its scalar state and, optionally, ``input``: how
the training data were read (``{"zero_based": true}`` when the command line
read LIBSVM indices as 0-based, false for 1-based), so that data to predict
are read alike. Nothing is pickled, so a
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

from ._estimator import Estimator
from .exceptions import ModelFormatError

FORMAT_NAME = "olearn-model"
FORMAT_VERSION = 1


class PersistenceMixin:
    """``save(path)`` for estimators that define ``_get_state`` / ``_set_state``."""

    def save(self, path):
        """Write the model to ``path`` (atomic; read it back with :func:`olearn.load`)."""
        save(self, path)
        return path


def _plain_value(value):
    """NumPy scalars as the Python numbers they hold; anything else is refused."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _json_ready(params, cls_name):
    try:
        return json.loads(json.dumps(params, allow_nan=True, default=_plain_value))
    except TypeError as err:
        raise ValueError(f"{cls_name}: a hyperparameter cannot be saved portably ({err}); use pickle") from None


def save(model, path, input_info=None):
    """Save a fitted olearn estimator to ``path`` atomically.

    ``input_info`` (optional, a JSON-ready dict such as ``{"zero_based": False}``)
    is stored as the metadata's ``input`` entry; :func:`read_input_info` reads it back.
    """
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
    if input_info is not None:
        meta["input"] = dict(input_info)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".olearn-", suffix=".tmp", dir=folder)
    try:
        # mkstemp makes the file private; a saved model gets the usual permissions
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, __meta__=np.array(json.dumps(meta, default=_plain_value)), **arrays)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _read_archive(path):
    """The metadata dict and the arrays of a model file, or ModelFormatError."""
    try:
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ModelFormatError(f"{path}: not an olearn model file ({err})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ModelFormatError(f"{path}: not an olearn model file (a single array, not an archive)")
    with archive:
        if "__meta__" not in archive.files:
            raise ModelFormatError(f"{path}: not an olearn model file (no metadata)")
        try:
            meta = json.loads(str(archive["__meta__"]))
            arrays = {name: archive[name] for name in archive.files if name != "__meta__"}
        except (ValueError, zipfile.BadZipFile, EOFError) as err:
            raise ModelFormatError(f"{path}: unreadable model file ({err})") from None
    if not isinstance(meta, dict):
        raise ModelFormatError(f"{path}: the metadata is not a JSON object")
    return meta, arrays


def _estimator_class(path, name):
    module_name, _, qualname = str(name).partition(":")
    if module_name.split(".")[0] != "olearn":
        raise ModelFormatError(f"{path}: names class {name!r}, which is not an olearn estimator")
    try:
        cls = getattr(importlib.import_module(module_name), qualname)
    except (ImportError, AttributeError, ValueError):
        raise ModelFormatError(f"{path}: unknown estimator class {name!r}") from None
    if not (isinstance(cls, type) and issubclass(cls, PersistenceMixin) and issubclass(cls, Estimator)):
        raise ModelFormatError(f"{path}: names {name!r}, which is not an olearn estimator")
    return cls


def load(path):
    """Load a model written by ``save``.

    Raises :class:`olearn.exceptions.ModelFormatError` if the file is not an
    olearn model, was written by another format version, or is incomplete.
    """
    path = os.fspath(path)
    meta, arrays = _read_archive(path)
    if meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: not an olearn model file (format {meta.get('format')!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {meta.get('format_version')!r}; this olearn reads version {FORMAT_VERSION}"
        )
    missing = [key for key in ("class", "params", "state") if key not in meta]
    if missing:
        raise ModelFormatError(f"{path}: the metadata lacks {', '.join(missing)}")
    cls = _estimator_class(path, meta["class"])
    try:
        model = cls(**meta["params"])
        model._set_state(arrays, meta["state"])
    except (TypeError, KeyError, ValueError, IndexError) as err:
        raise ModelFormatError(f"{path}: incomplete or inconsistent {cls.__name__} model ({err!r})") from None
    return model


def read_input_info(path):
    """How the training data of the model at ``path`` were read: its ``input`` entry, ``{}`` if it has none.

    Models saved without it (by the library, or by an olearn older than the
    entry) load as before. A ``zero_based`` that is not a boolean is a
    ModelFormatError.
    """
    path = os.fspath(path)
    meta, _ = _read_archive(path)
    info = meta.get("input", {})
    if not isinstance(info, dict) or not isinstance(info.get("zero_based", False), bool):
        raise ModelFormatError(f"{path}: the metadata's input entry is not {{'zero_based': true|false}}: {info!r}")
    return info
