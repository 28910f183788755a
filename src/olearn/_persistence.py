"""Saving and loading models: portable, atomic, versioned, checked.

A model file is a NumPy ``.npz`` archive (a zip of uncompressed ``.npy``
members, :mod:`olearn._model_archive`): the learned arrays (a mostly-zero float array as its non-zero
entries when that is smaller), plus one entry ``__meta__`` holding JSON with the
format name and version, the estimator's class and hyperparameters, and its
scalar state and, optionally, ``input``: how the command line read the
training data, so that data to predict are read alike and data of another
layout are refused (:func:`read_input_info`). Nothing is
pickled, so a model file can be read without trusting it to run code. The file
is written to a temporary name in the target folder and renamed into place (:mod:`olearn._atomic`), so a crash never leaves a
half-written model behind.

A file is checked before any of it reaches an estimator: the archive (every
member a stored, unencrypted ``.npy`` of the size its header declares; an
array stored sparse, its indices in range, sorted and distinct: :mod:`olearn._model_archive`), the
metadata (types, format version, hyperparameters through the estimator's own
parameter checks) and the learned state against the
:class:`~olearn._state_schema.StateSchema` the
estimator's family declares (``_state_schema``): every array's dtype, shape in
named dimensions and values, and the relations between arrays (CSR structure,
a symmetric positive definite covariance, sorted distinct classes). Anything
else is a :class:`~olearn.exceptions.ModelFormatError` naming the file and
what is wrong. ``save`` runs the same checks on what it is about to write and
refuses, with the same error and before any file is touched, a model that
would not load back. Metadata keys other than the ones read here are ignored, so
that later versions may record more (optional) facts about a model.

A pipeline's file holds a list of steps, each recorded as a model of its
class is, and the pipeline's names of features (:mod:`olearn.compose._saving`,
which refuses entries it does not know).
"""

import importlib
import os

import numpy as np

from ._atomic import atomic_write
from ._estimator import Estimator, locked
from ._features import FeatureMap
from ._params import check_params
from .exceptions import ModelFormatError

FORMAT_NAME = "olearn-model"
FORMAT_VERSION = 1
# hyperparameters added after files of this version were first written: a file saved before one
# existed lacks it and loads with its default, which is what that model did (fit's passes, no average,
# no class weights, no hashing of names). Files written since record every hyperparameter and say so
# (ALL_PARAMS): one of them lacking a hyperparameter is refused, since its default may be another model
# (a PASequence that hashed its names into 2**b columns, loaded with n_bits=None, predicts other tags).
ADDED_HYPERPARAMETERS = frozenset({"max_iter", "tol", "n_iter_no_change", "shuffle", "random_state", "average",
                                   "class_weight", "n_bits", "calibration"})
ALL_PARAMS = "all_params"


class PersistenceMixin:
    """``save(path)`` for estimators that define ``_get_state``, ``_set_state`` and ``_state_schema``."""

    _constraints = {}

    def _all_constraints(self):
        """The constraints of every hyperparameter, checked on learning and on loading."""
        return self._constraints

    def _check_hyperparameters(self):
        """Check every hyperparameter (a learner adds the checks of hyperparameters together); load calls it."""
        check_params(self, self._all_constraints())

    @classmethod
    def _saved_params(cls, params):
        """The constructor's arguments for the hyperparameters a file recorded (a class renames old ones here)."""
        return params

    @locked
    def save(self, path):
        """Write the model to ``path`` (atomic; read it back with :func:`olearn.load`)."""
        save(self, path)
        return path


# -- writing -----------------------------------------------------------------------


def _plain_value(value):
    """NumPy scalars as the Python numbers they hold; anything else is refused."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _json_ready(params, cls_name):
    for name, value in params.items():
        if isinstance(value, dict) and not all(isinstance(key, str) for key in value):
            # JSON would turn the keys into strings: class_weight={1: 2.0} would load as {"1": 2.0}
            raise ValueError(
                f"{cls_name}: hyperparameter {name}={value!r} has keys that are not strings and cannot be saved "
                "portably; use pickle"
            )
    import json

    try:
        return json.loads(json.dumps(params, allow_nan=True, default=_plain_value))
    except TypeError as err:
        raise ValueError(f"{cls_name}: a hyperparameter cannot be saved portably ({err}); use pickle") from None


def save(model, path, input_info=None):
    """Save a fitted olearn estimator (or a :class:`~olearn.compose.Pipeline`) to ``path`` atomically.

    ``input_info`` (optional, a JSON-ready dict such as ``{"zero_based": False}``)
    is stored as the metadata's ``input`` entry; :func:`read_input_info` reads it back.
    A model that writes files of its own layout defines ``_file_contents()``
    (the metadata's entries and the arrays) and the class method ``_from_file``.
    A model that :func:`load` would refuse is refused (ModelFormatError) before
    anything is written.
    """
    from ._model_archive import write_archive

    text, arrays = _file_contents(model, input_info, os.fspath(path))
    with atomic_write(path) as fh:
        write_archive(fh, text, arrays)


def write_model(model, fh, input_info=None):
    """Write the model file of :func:`save` to the binary file object ``fh`` (a file, or a BytesIO)."""
    from ._model_archive import write_archive

    text, arrays = _file_contents(model, input_info, "the model file")
    write_archive(fh, text, arrays)


def _file_contents(model, input_info, name):
    """The metadata (JSON text) and the arrays of ``model``'s file, checked as :func:`load` checks them."""
    import json

    from ._model_archive import stored_arrays

    if hasattr(model, "_file_contents"):
        entry, arrays = model._file_contents()
    else:
        entry, arrays = model_entry(model)
        entry[ALL_PARAMS] = True
    meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, **entry}
    if input_info is not None:
        meta["input"] = dict(input_info)
    text = json.dumps(meta, default=_plain_value)
    arrays = stored_arrays(arrays)
    _check_loadable(name, text, arrays)
    return text, arrays


def _check_loadable(name, text, arrays):
    """Refuse to write what :func:`load` would refuse: the file's metadata ``text`` and (copies of) its arrays
    go through load's checks before anything is written; ModelFormatError naming the reason."""
    import json

    try:
        _model_from_meta(name, json.loads(text), {key: np.array(a) for key, a in arrays.items()})
    except ModelFormatError as err:
        raise ModelFormatError(f"not saved, the file would not load: {err}") from None


def model_entry(model):
    """The metadata entries (class, params, state; feature_names and vocabulary when any) and the arrays of a model."""
    cls = type(model)
    arrays, state = model._get_state()
    for name, array in arrays.items():
        if np.asarray(array).dtype == object:
            raise ValueError(
                f"{cls.__name__}: {name} holds Python objects and cannot be saved portably; use pickle instead"
            )
    entry = {
        "class": f"{cls.__module__}:{cls.__qualname__}",
        "params": _json_ready(model.get_params(deep=False), cls.__name__),
        "state": state,
    }
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        entry["feature_names"] = [str(name) for name in names]
    vocabulary = _saved_vocabulary(model)
    if vocabulary:
        entry["vocabulary"] = vocabulary
    return entry, arrays


def _saved_vocabulary(model):
    """The names of a learner's features as ``[[name, column], ...]`` in the order learned (empty when none).

    JSON keeps str names only: another name (a tuple, say) would not load as
    itself, so the model is refused.
    """
    features = model.__dict__.get("_features") if getattr(model, "_named_features", False) else None
    if features is None:
        return []
    if features.n_bits != model.n_bits:
        # the file records the hyperparameter, and the model's columns follow the map it learned with
        raise ValueError(
            f"{type(model).__name__}: parameter n_bits={model.n_bits!r} differs from the model learned so far "
            f"(n_bits={features.n_bits!r}); set it back, or call fit to start over with it, before saving"
        )
    return vocabulary_entries(features, type(model).__name__)


def vocabulary_entries(features, owner):
    """The vocabulary of the FeatureMap ``features`` as ``[[name, column], ...]``; a name that is not a str is refused."""
    vocabulary = features.vocabulary()
    for name in vocabulary:
        if not isinstance(name, str):
            raise ValueError(
                f"{owner}: the feature name {name!r:.100} is a {type(name).__name__}; only str "
                "names can be saved portably (use str keys, or pickle the model)"
            )
    return [[name, int(column)] for name, column in vocabulary.items()]


def olearn_class(path, name, where=""):
    """The olearn class ``module:qualname`` a file names (``where`` says where), or ModelFormatError."""
    module_name, _, qualname = name.partition(":")
    if module_name.split(".")[0] != "olearn":
        raise ModelFormatError(f"{path}: {where}names class {name!r}, which is not an olearn estimator")
    try:
        cls = getattr(importlib.import_module(module_name), qualname)
    except (ImportError, AttributeError, ValueError):
        raise ModelFormatError(f"{path}: {where}unknown estimator class {name!r}") from None
    if not isinstance(cls, type):
        raise ModelFormatError(f"{path}: {where}names {name!r}, which is not an olearn estimator")
    return cls


def _estimator_class(path, name):
    cls = olearn_class(path, name)
    savable = issubclass(cls, PersistenceMixin) or hasattr(cls, "_from_file")
    if not (savable and issubclass(cls, Estimator)):
        raise ModelFormatError(f"{path}: names {name!r}, which is not an olearn estimator")
    return cls


def _checked_meta(path, meta):
    """The class, hyperparameters and state of checked metadata."""
    if meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: not an olearn model file (format {meta.get('format')!r})")
    version = meta.get("format_version")
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {version!r}; this olearn reads version {FORMAT_VERSION}"
        )
    if meta.get(ALL_PARAMS, True) is not True:
        raise ModelFormatError(f"{path}: metadata entry {ALL_PARAMS!r} is {meta[ALL_PARAMS]!r:.100}; expected true")
    missing = [key for key in ("class", "params", "state") if key not in meta]
    if missing:
        raise ModelFormatError(f"{path}: the metadata lacks {', '.join(missing)}")
    for key, kind, what in (("class", str, "a string"), ("params", dict, "an object"), ("state", dict, "an object")):
        if not isinstance(meta[key], kind):
            raise ModelFormatError(f"{path}: metadata entry {key!r} is {meta[key]!r}; expected {what}")
    return _estimator_class(path, meta["class"]), meta["params"], meta["state"]


def load(path):
    """Load a model written by ``save``.

    Raises :class:`olearn.exceptions.ModelFormatError`, naming the file and
    what is wrong, if the file is not an olearn model, was written by another
    format version, or holds anything the estimator's checks or its family's
    :class:`~olearn._state_schema.StateSchema` refuse; FileNotFoundError (and other OSErrors) when it
    cannot be read at all. A model that learned from a DataFrame keeps its
    ``feature_names_in_`` (the optional metadata entry ``feature_names``).
    """
    from ._model_archive import read_archive

    path = os.fspath(path)
    meta, arrays = read_archive(path)
    return _model_from_meta(path, meta, arrays)


def _model_from_meta(path, meta, arrays):
    """The model a file's metadata dict and arrays describe, every part checked; ModelFormatError otherwise."""
    from ._model_archive import dense_arrays

    cls, params, state = _checked_meta(path, meta)
    dense_arrays(path, arrays)
    if hasattr(cls, "_from_file"):
        return cls._from_file(path, meta, arrays)
    added = frozenset() if meta.get(ALL_PARAMS) is True else ADDED_HYPERPARAMETERS
    return model_from_entry(path, cls, params, state, arrays, meta, added=added)


class _HandedOnce(dict):
    """A file's arrays as a learner's ``_set_state`` takes them: reading an array removes it from here."""

    def __getitem__(self, name):
        return self.pop(name)


def model_from_entry(path, cls, params, state, arrays, meta, where="", added=ADDED_HYPERPARAMETERS):
    """The model of class ``cls`` a file's entries describe, every part checked (``where`` names the part).

    ``added``: the hyperparameters the entries may lack (files older than them).
    """
    params = cls._saved_params(dict(params))
    # a hyperparameter left out would silently take its default: a different model, but for the ones a class
    # gained after its files were written, whose default is what those models did
    missing = sorted(set(cls._get_param_names()) - set(params) - added - getattr(cls, "_params_added_later", set()))
    if missing:
        raise ModelFormatError(f"{path}: {where}the metadata lacks the {cls.__name__} hyperparameters {missing}")
    try:
        model = cls(**params)
        if isinstance(model, PersistenceMixin):
            model._check_hyperparameters()
        else:
            check_params(model, model._all_constraints())
        schema = model._state_schema()
    except (TypeError, ValueError) as err:
        raise ModelFormatError(f"{path}: {where}invalid {cls.__name__} hyperparameters ({err})") from None
    problem = schema.problem(arrays, state)
    if problem:
        raise ModelFormatError(f"{path}: {where}invalid {cls.__name__} model: {problem}")
    # the learner takes each checked array once, and the file's copy is dropped as it does (it keeps a copy of
    # its own): loading holds the model and one array, not the model twice
    handed = _HandedOnce(arrays)
    arrays.clear()
    try:
        model._set_state(handed, state)
    except (TypeError, KeyError, ValueError, IndexError) as err:
        raise ModelFormatError(f"{path}: {where}inconsistent {cls.__name__} model ({err!r})") from None
    names = None
    if "feature_names" in meta:
        names = _feature_names(path, meta["feature_names"], model)
        model.feature_names_in_ = names
    if getattr(model, "_named_features", False):
        model._features = _vocabulary(path, meta.get("vocabulary", []), names, model)
    return model


def _vocabulary(path, saved, names, model):
    """The FeatureMap of a loaded learner: its saved vocabulary, checked (str names, distinct columns in range).

    A DataFrame's column names hold the columns 0, 1, ... (a file without
    a vocabulary has them from ``feature_names`` alone).
    """
    features = FeatureMap(model.n_bits)
    if not isinstance(saved, list):
        raise ModelFormatError(f"{path}: the metadata's vocabulary is not a list: {saved!r:.200}")
    width = getattr(model, "n_features_in_", 0)
    names = [] if names is None else list(names)
    columns, taken = {}, set()
    for k, entry in enumerate(saved):
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], int) and not isinstance(entry[1], bool)):
            raise ModelFormatError(
                f"{path}: entry {k} of the metadata's vocabulary is {entry!r:.200}; expected [name, column]"
            )
        name, column = entry
        if not 0 <= column < width:
            raise ModelFormatError(
                f"{path}: the vocabulary puts feature {name!r:.100} at column {column}; the model has "
                f"n_features_in={width} columns"
            )
        if name in columns or column in taken:
            raise ModelFormatError(
                f"{path}: the vocabulary names feature {name!r:.100} or column {column} twice (entry {k})"
            )
        columns[name] = column
        taken.add(column)
    for column, name in enumerate(names):
        if saved and columns.get(name) != column:
            raise ModelFormatError(
                f"{path}: the vocabulary puts feature {name!r:.100} at column {columns.get(name)}; the model's "
                f"feature_names put it at column {column}"
            )
    features.add(list(columns.items()) if saved else [(name, column) for column, name in enumerate(names)])
    return features


def _feature_names(path, names, model):
    """The saved column names of the DataFrame a model learned from: a string per column.

    They name the first columns of the model (it may have grown past them
    since, on sparse rows).
    """
    width = getattr(model, "n_features_in_", None)
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names) or not names:
        raise ModelFormatError(f"{path}: the metadata's feature_names is not a list of strings: {names!r:.200}")
    if width is not None and len(names) > width:
        raise ModelFormatError(
            f"{path}: the metadata names {len(names)} features, but the model has n_features_in={width}"
        )
    return np.array(names, dtype=object)


_INPUT_FORMATS = ("libsvm", "vw", "csv", "cache", "conll")


def _input_problem(info):
    """What is wrong with a metadata ``input`` entry, or None."""
    if not isinstance(info, dict):
        return "is not an object"
    checks = {
        "format": lambda v: v in _INPUT_FORMATS,
        "zero_based": lambda v: isinstance(v, bool),
        "bits": lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 31,
        "csv": lambda v: isinstance(v, dict),
        "oaa": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 2,
    }
    for key, ok in checks.items():
        if key in info and not ok(info[key]):
            return f"has {key}={info[key]!r:.100}"
    if "namespaces" in info:
        from .data._namespaces import namespaces_problem

        problem = namespaces_problem(info["namespaces"])
        if problem:
            return f"has namespaces {problem}"
    if "hashed_names" in info:
        from .data._vw_names import hashed_names_problem

        problem = hashed_names_problem(info["hashed_names"])
        if problem:
            return f"has hashed_names {problem}"
    layout = info.get("csv", {})
    n_columns = layout.get("n_columns", 0)
    if not (isinstance(n_columns, int) and not isinstance(n_columns, bool) and n_columns >= 0):
        return f"has csv n_columns={n_columns!r:.100}"
    label = layout.get("label_column")
    if label is not None and not (isinstance(label, int) and not isinstance(label, bool) and 1 <= label <= n_columns):
        return f"has csv label_column={label!r:.100}, not a column of 1 to {n_columns}"
    delimiter = layout.get("delimiter", ",")
    if not (isinstance(delimiter, str) and len(delimiter) == 1):
        return f"has csv delimiter={delimiter!r:.100}"
    header = layout.get("header")
    if header is not None and not (isinstance(header, list) and len(header) == n_columns
                                   and all(isinstance(name, str) for name in header)):
        return f"has csv header={header!r:.100}, not {n_columns} names"
    return None


def read_input_info(path):
    """How the command line read the training data of the model at ``path``: its ``input`` entry, ``{}`` if none.

    The entry (written by ``olearn run --save``) holds ``format`` (libsvm,
    vw, csv, cache or conll), ``zero_based`` (how LIBSVM indices were read),
    ``bits`` (the hashing of VW and CoNLL features) and ``csv`` (``label_column``,
    counted from 1, ``delimiter``, ``n_columns`` and the ``header``'s names
    or null), ``namespaces`` (VW's namespace options: ``interactions``,
    ``ignore``, ``keep``, ``ngram``, ``skips``), ``oaa`` (the K of ``--oaa K``: the labels
    1..K, the only ones a resumed run accepts) and ``hashed_names`` (the names
    behind a VW file's hashed columns, kept by ``olearn run --keep-names``:
    :func:`olearn.data._vw_names.vw_feature_names`). Models saved without it (by the library) or by an olearn that
    recorded ``zero_based`` only load as before. An entry of the wrong shape is
    a ModelFormatError.
    """
    from ._model_archive import read_archive

    path = os.fspath(path)
    meta, _ = read_archive(path, arrays=False)
    info = meta.get("input", {})
    problem = _input_problem(info)
    if problem:
        raise ModelFormatError(f"{path}: the metadata's input entry {problem}: {info!r:.200}")
    return info
