"""The schema of a learned state: what a family's saved arrays and scalars must be.

A learner family declares its state (``_state_schema``) as a :class:`StateSchema`:
every array's dtype, shape in named dimensions and values, the scalars of the
state's JSON that fix dimensions, and the relations between arrays (CSR
structure, a symmetric positive definite covariance, sorted distinct classes).
:func:`olearn._persistence.load` checks a file against it before any of it
reaches an estimator, and ``save`` checks what it is about to write: arrays
read from files are checked once, at this boundary.
"""

import numpy as np

from ._validation import INDEX_LIMIT

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
