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
parameter checks) and the learned state against the :class:`StateSchema` the
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
from ._validation import INDEX_LIMIT
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


# -- the schema of a learned state -------------------------------------------------


class Values:
    """What every entry of an array may hold: ``ok(array)`` is a boolean mask of the good entries.

    >>> COUNT.describe(), COUNT.first_bad(np.array([0.0, 2.0, 1.5]))
    ('a count (an integer >= 0)', 2)
    """

    def __init__(self, description, ok):
        self.description = description
        self.ok = ok

    def describe(self):
        return self.description

    def first_bad(self, array):
        """The flat index of the first entry that breaks the rule, or None."""
        with np.errstate(invalid="ignore"):
            bad = ~np.asarray(self.ok(array), dtype=bool).ravel()
        return int(np.argmax(bad)) if bad.any() else None


FINITE = Values("a finite number", np.isfinite)
NONNEGATIVE = Values("a finite number >= 0", lambda a: np.isfinite(a) & (a >= 0))
POSITIVE = Values("a finite number > 0", lambda a: np.isfinite(a) & (a > 0))
COUNT = Values("a count (an integer >= 0)", lambda a: np.isfinite(a) & (a >= 0) & (a == np.floor(a)))
SIGN = Values("-1 or +1", lambda a: (a == 1.0) | (a == -1.0))
ANY = Values("any value", lambda a: np.ones(a.shape, dtype=bool))

# the dtype of class labels: any plain scalar kind NumPy saves without pickling
LABELS = "labels"
_LABEL_KINDS = "biufU"


class Array:
    """One array of a learned state.

    Parameters
    ----------
    dtype : str
        A NumPy dtype name the array must have exactly (``"float64"``,
        ``"int64"``, ...), or :data:`LABELS` (booleans, integers, finite floats
        or strings: class labels as NumPy keeps them).
    shape : tuple
        One entry per axis: an int, or the name of a dimension, optionally
        ``"+1"`` (``"n_features_in+1"``). A dimension is fixed by a scalar of
        the state (:class:`Count`) or by the first array that uses it.
    values : Values, optional
        The rule for every entry (default: finite numbers for floats, anything
        for integers and labels).
    entries : dict, optional
        {index: Values} for a flat state vector whose entries mean different things.
    """

    def __init__(self, dtype, shape, values=None, entries=None):
        self.dtype = dtype
        self.shape = tuple(shape)
        self.values = values
        self.entries = entries or {}


class Count:
    """A scalar of the state's JSON: an integer >= ``low`` that fixes the dimension ``name``.

    A dimension is at most ``INDEX_LIMIT`` (2**31 - 1), the columns olearn's
    kernels index: a larger one would reach them as an overflow or an
    allocation of terabytes, not as a refused file.
    """

    def __init__(self, name, low=0):
        self.name = name
        self.low = low

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= INDEX_LIMIT:
            return f"is {value!r:.100}; expected an integer >= {self.low} and at most {INDEX_LIMIT}"
        return None


class Scalar:
    """A scalar of the state's JSON checked by ``problem(value)``: None, or what is wrong with it."""

    def __init__(self, problem):
        self.problem = problem

    def check(self, value):
        return self.problem(value)


class StateSchema:
    """What a learner family's saved state is made of; :func:`load` checks a file against it.

    Parameters
    ----------
    scalars : dict
        {key of the metadata's ``state``: Count or Scalar}; every key is required.
    arrays : dict
        {member name: Array}, in the order their dimensions are fixed.
        Exactly these arrays must be present, but for the ``optional`` ones.
    relations : list
        Functions ``(arrays, dims) -> None or a message``, checked after the
        arrays' dtypes, shapes and values (see :func:`csr`,
        :func:`symmetric_positive_definite`, :func:`distinct`, ...).
    limits : dict
        {dimension: (low, high)}: the bounds the hyperparameters set (high None for none).
    optional : collection of str
        Names of ``arrays`` that a file may lack (state a learner keeps only in
        some phases); when present they are checked like the others.
    """

    def __init__(self, scalars=None, arrays=None, relations=(), limits=None, optional=()):
        self.scalars = dict(scalars or {})
        self.arrays = dict(arrays or {})
        self.relations = list(relations)
        self.limits = dict(limits or {})
        self.optional = frozenset(optional)

    def extended(self, scalars=None, arrays=None, relations=(), limits=None, optional=()):
        """This schema with more scalars, arrays, relations, limits and optional arrays (a subclass's state)."""
        return StateSchema(
            {**self.scalars, **(scalars or {})}, {**self.arrays, **(arrays or {})},
            self.relations + list(relations), {**self.limits, **(limits or {})}, self.optional | set(optional),
        )

    def problem(self, arrays, state):
        """None if ``arrays`` and ``state`` follow the schema, else what is wrong (the first thing found)."""
        dims = {}
        unknown = sorted(set(state) - set(self.scalars))
        if unknown:
            return f"the state has unknown entries {unknown}"
        for key, rule in self.scalars.items():
            if key not in state:
                return f"the state lacks {key!r}"
            problem = rule.check(state[key])
            if problem:
                return f"state entry {key!r} {problem}"
            if isinstance(rule, Count):
                dims[rule.name] = state[key]
        missing = [name for name in self.arrays if name not in arrays and name not in self.optional]
        extra = sorted(set(arrays) - set(self.arrays))
        if missing:
            return f"the file lacks arrays {missing}"
        if extra:
            return f"the file has unexpected arrays {extra}"
        for name, spec in self.arrays.items():
            if name not in arrays:
                continue
            problem = _array_problem(arrays[name], spec, dims)
            if problem:
                return f"array {name!r} {problem}"
        for dim, (low, high) in self.limits.items():
            if dim in dims and not (low <= dims[dim] and (high is None or dims[dim] <= high)):
                bounds = f"{low}" if low == high else f"in [{low}, {'inf' if high is None else high}]"
                return f"{dim} is {dims[dim]}; the hyperparameters require {bounds}"
        for relation in self.relations:
            problem = relation(arrays, dims)
            if problem:
                return problem
        return None


def _array_problem(array, spec, dims):
    """What is wrong with one array (fixing the dimensions it is the first to use), or None."""
    if spec.dtype == LABELS:
        if array.dtype.kind not in _LABEL_KINDS or array.dtype.fields is not None:
            return f"has dtype {array.dtype}; expected class labels (booleans, integers, numbers or strings)"
    elif array.dtype != np.dtype(spec.dtype):
        return f"has dtype {array.dtype.str}; expected {np.dtype(spec.dtype).name}"
    if array.ndim != len(spec.shape):
        return f"has shape {array.shape}; expected {len(spec.shape)} dimension(s)"
    for axis, (size, want) in enumerate(zip(array.shape, spec.shape)):
        if isinstance(want, int):
            expected, name = want, None
        else:
            name, _, plus = want.partition("+")
            offset = int(plus or 0)
            if name not in dims:
                if size < offset:
                    return f"has {size} entries along axis {axis}; expected {want} >= {offset}"
                dims[name] = size - offset
            expected = dims[name] + offset
        if size != expected:
            named = f" ({want} with {name} = {dims[name]})" if name else ""
            return f"has shape {array.shape}; expected {expected} entries along axis {axis}{named}"
    values = spec.values
    if values is None:
        values = FINITE if array.dtype.kind == "f" else ANY
    bad = values.first_bad(array)
    if bad is not None:
        return f"has {array.ravel()[bad].item()!r} at flat index {bad}; expected {values.describe()}"
    for index, rule in spec.entries.items():
        if rule.first_bad(array[index:index + 1]) is not None:
            return f"has {array[index].item()!r} at index {index}; expected {rule.describe()}"
    return None


def csr(indptr, indices, width):
    """Relation: ``indptr``/``indices`` are CSR rows over ``width`` columns (0 first, monotone, in range)."""

    def relation(arrays, dims):
        ptr, ind = arrays[indptr], arrays[indices]
        if ptr[0] != 0 or ptr[-1] != ind.size or np.any(np.diff(ptr) < 0):
            return f"array {indptr!r} is not a CSR row pointer over {ind.size} entries (0 first, non-decreasing)"
        if ind.size and (ind.min() < 0 or ind.max() >= dims[width]):
            return f"array {indices!r} holds a column index outside [0, {width} = {dims[width]})"
        return None

    return relation


# How far below 0 (relative to the largest) the smallest eigenvalue of a learned covariance may be:
# long runs of rank-one shrinking updates leave directions of variance ~1e-9 below 0 in rounding.
_EIGENVALUE_TOLERANCE = 1e-6


def symmetric_positive_definite(name):
    """Relation: the matrix ``name``, when present, is symmetric with positive variances, positive definite up to
    rounding."""

    def relation(arrays, dims):
        if name not in arrays:
            return None
        matrix = arrays[name]
        scale = float(np.abs(matrix).max(initial=0.0))
        if not np.allclose(matrix, matrix.T, rtol=1e-9, atol=1e-12 * scale):
            return f"array {name!r} is not symmetric"
        if matrix.size and np.diag(matrix).min() <= 0.0:
            return f"array {name!r} has a variance (a diagonal entry) <= 0"
        eigenvalues = np.linalg.eigvalsh(matrix)
        if eigenvalues.size and eigenvalues[0] < -_EIGENVALUE_TOLERANCE * eigenvalues[-1]:
            return f"array {name!r} is not positive definite (an eigenvalue is {eigenvalues[0]:.3g})"
        return None

    return relation


def square_root_of_a_covariance(name):
    """Relation: the matrix ``name``, when present, is a square root S of a covariance S S^T with finite,
    positive variances (no row of S is 0, none so large that its squares overflow); S S^T is positive
    semi-definite whatever S is."""

    def relation(arrays, dims):
        if name not in arrays:
            return None
        with np.errstate(over="ignore"):
            variances = np.einsum("ij,ij->i", arrays[name], arrays[name])
        bad = np.flatnonzero(~(np.isfinite(variances) & (variances > 0.0)))
        if bad.size:
            variance = variances[bad[0]].item()
            return f"array {name!r} makes a variance of {variance!r} at index {bad[0]}; expected a finite number > 0"
        return None

    return relation


def one_of(*names):
    """Relation: exactly one of the (optional) arrays ``names`` is present."""

    def relation(arrays, dims):
        present = [name for name in names if name in arrays]
        if len(present) != 1:
            return f"the file holds {present or 'none'} of the arrays {list(names)}; expected exactly one"
        return None

    return relation


def distinct(name, ordered=False):
    """Relation: the labels ``name`` are distinct (and sorted when ``ordered``)."""

    def relation(arrays, dims):
        labels = arrays[name]
        unique = np.unique(labels)
        if unique.size != labels.size:
            return f"array {name!r} repeats a label"
        if ordered and not np.array_equal(unique, labels):
            return f"array {name!r} is not sorted"
        return None

    return relation


def entry_is(name, index, dim):
    """Relation: entry ``index`` of the array ``name`` equals the dimension ``dim``."""

    def relation(arrays, dims):
        if arrays[name][index] != dims[dim]:
            return f"array {name!r} has {arrays[name][index].item()!r} at index {index}; expected {dim} = {dims[dim]}"
        return None

    return relation


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
    :class:`StateSchema` refuse; FileNotFoundError (and other OSErrors) when it
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
    ``ignore``, ``keep``, ``ngram``, ``skips``) and ``hashed_names`` (the names
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


def averaged_schema(schema, start):
    """``schema`` with the average's state when averaging from round ``start`` (0: none): the running sum,
    laid out as the weights, and ``average_count`` = [k, the first averaged round], which must be ``start``."""
    if not start:
        return schema

    def same_start(arrays, dims):
        saved = arrays["average_count"][1]
        if saved != start:
            return f"array 'average_count' starts averaging at round {saved:g}; average says {start}"
        return None

    return schema.extended(
        arrays={"average_sum": Array("float64", ("n_features_in+1",)),
                "average_count": Array("float64", (2,), entries={0: COUNT, 1: COUNT})},
        relations=[same_start],
    )
