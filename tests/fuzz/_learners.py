"""Every registered estimator with valid data of its task, and an exact snapshot of its learned state.

Shared by the fuzz campaign of ``test_estimator_inputs.py`` and the ordinary tests of
``tests/test_rejected_inputs.py``: a refused input must leave a learner bit-identical
(:func:`snapshot` / :func:`assert_same`), and a learner that saw refused inputs between
valid ones must end where a fresh learner that saw only the valid ones ends.
"""

import copy
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn._features import FeatureMap
from olearn._registry import TASKS
from olearn.exceptions import OlearnError
from olearn.kernel import SupportSet
from olearn.multiclass import BlockFeatureMap

DIMENSION = 4
CLASSES = {"binary": [-1, 1], "multiclass": ["a", "b", "c"], "multilabel": ["a", "b", "c"]}

# Settings beyond the defaults that take other code paths at the boundary: the dual
# (kernel) form, a full covariance, a fixed n_features, an intercept, an averaged learner. A kernel learner's
# random_state is fixed, so that two learners of the same settings start alike.
EXTRA_SETTINGS = {
    "PAClassifier": [{"kernel": "rbf", "gamma": 0.5, "random_state": 0}, {"fit_intercept": True, "n_features": 8},
                     {"average": True, "class_weight": {1: 2.0}}],
    "Perceptron": [{"kernel": "poly", "degree": 2, "random_state": 0}],
    "PARegressor": [{"kernel": "rbf", "random_state": 0}, {"average": 3, "fit_intercept": True}],
    "OnlineSVM": [{"average": True, "radius": 0.5}],
    "AROW": [{"covariance": "full", "fit_intercept": True}],
    "NAROW": [{"covariance": "diag"}],
    "PAMulticlass": [{"kernel": "rbf", "random_state": 0}, {"fit_intercept": True, "n_features": 8},
                     {"feature_map": BlockFeatureMap(CLASSES["multiclass"], 8)},
                     {"average": 3, "fit_intercept": True},
                     {"feature_map": BlockFeatureMap(CLASSES["multiclass"], 8), "average": True}],
    "PACostSensitive": [{"average": True, "update": "max-loss"}],
    "MIRA": [{"kernel": "poly", "degree": 2, "budget": 4, "budget_policy": "random", "random_state": 0},
             {"average": True}],
    "MulticlassPerceptron": [{"kernel": "linear", "random_state": 0}],
    "PNorm": [{"p": 3.0, "fit_intercept": True}],
    "PAUniclass": [{"learn_radius": True, "B": 1e6}],
    "PAMultilabel": [{"feature_map": BlockFeatureMap(CLASSES["multilabel"], 8)},
                     {"feature_map": BlockFeatureMap(CLASSES["multilabel"], 8), "fit_intercept": True},
                     {"average": True}, {"feature_map": BlockFeatureMap(CLASSES["multilabel"], 8), "average": 2}],
    "PASequence": [{"average": 2}],
}

# caches rebuilt from the hyperparameters, scratch buffers (zero workspaces a call may widen) and
# the averaged weights kept between predictions (a learner's slot, olearn._averaging.kept_average; their
# staleness is tested in tests/test_averaged_prediction.py), which are not learned state
_CACHES = {"_config_cache", "_mercer", "_margin_cache", "_scratch", "work", "_plan_cache", "_kept_average"}



# The campaigns that teach the estimators of cases() compile the same kernels (those not compiled ahead of time)
# in their child processes: with this mark they run one after the other on one worker, and all but the first
# find the kernels in numba's cache instead of compiling them at the same time as another.
EVERY_ESTIMATOR = pytest.mark.xdist_group("fuzz-every-estimator")


def cases():
    """(case id, task, estimator factory) for every registered estimator and its extra settings."""
    out = []
    for task in TASKS:
        for name, cls in olearn.all_estimators(task=task):
            for settings in [{}] + EXTRA_SETTINGS.get(name, []):
                label = name + "".join(f"-{k}={v}" for k, v in settings.items())
                out.append((label, task, _factory(cls, settings)))
    return out


def _factory(cls, settings):
    def make():
        return cls(**settings)

    return make


def valid_batch(task, rng, n=5, d=DIMENSION):
    """(X, y) of ``n`` valid examples of ``task`` with ``d`` features (y None for uniclass)."""
    if task == "sequence":
        lengths = rng.integers(1, 4, size=n)
        X = [rng.standard_normal((t, d)) for t in lengths]
        y = [rng.choice(["N", "V"], size=t) for t in lengths]
        return X, y
    X = rng.standard_normal((n, d))
    if task == "uniclass":
        return X, None
    if task == "regression":
        return X, rng.standard_normal(n)
    if task == "multilabel":
        labels = CLASSES["multilabel"]
        return X, [tuple(sorted(set(rng.choice(labels, size=rng.integers(1, 3))))) for _ in range(n)]
    labels = CLASSES[task]
    y = np.array([labels[i % len(labels)] for i in range(n)], dtype=object)
    rng.shuffle(y)
    return X, y.tolist()


def learn_batch(est, task, X, y):
    """``partial_fit`` with the arguments the task takes."""
    if task == "uniclass":
        return est.partial_fit(X)
    if task in ("binary", "multiclass") and not hasattr(est, "classes_"):
        return est.partial_fit(X, y, classes=CLASSES[task])
    return est.partial_fit(X, y)


def learn_one(est, task, x, y):
    if task == "uniclass":
        return est.learn_one(x)
    return est.learn_one(x, y)


def predict_one(est, task, x):
    if task == "uniclass":
        return est.predict_one()
    return est.predict_one(x)


def one_label(task, rng):
    if task == "regression":
        return float(rng.standard_normal())
    if task == "multilabel":
        return ("a",)
    if task == "uniclass":
        return None
    if task == "sequence":
        return ["N"]
    return CLASSES[task][int(rng.integers(len(CLASSES[task])))]


def snapshot(est):
    """A deep copy of everything the estimator holds except caches of its hyperparameters."""
    return copy.deepcopy(_fields(est))


def differences(a, b, where="est"):
    """Where the snapshots ``a`` and ``b`` differ (bit for bit, NaN equal to NaN), as a list of paths."""
    if type(a) is not type(b):
        return [f"{where}: {type(a).__name__} != {type(b).__name__}"]
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return [f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"]
        if a.dtype.kind == "O":
            return [d for i, (u, v) in enumerate(zip(a.ravel(), b.ravel())) for d in differences(u, v, f"{where}[{i}]")]
        if a.tobytes() != b.tobytes():
            return [f"{where}: values differ"]
        return []
    if isinstance(a, dict):
        if set(a) != set(b):
            return [f"{where}: keys {sorted(map(str, set(a) ^ set(b)))} differ"]
        return [d for k in a for d in differences(a[k], b[k], f"{where}[{k!r}]")]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} != {len(b)}"]
        return [d for i, (u, v) in enumerate(zip(a, b)) for d in differences(u, v, f"{where}[{i}]")]
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return []
    if hasattr(a, "__dict__") or hasattr(a, "__slots__"):
        if callable(a) and not hasattr(a, "__dict__"):
            return [] if a is b else [f"{where}: {a!r} != {b!r}"]
        return differences(_fields(a), _fields(b), where)
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def _fields(obj):
    if isinstance(obj, SupportSet):
        # its live contents, as saved: the room reserved beyond them is not learned state
        return obj.to_arrays()
    if isinstance(obj, FeatureMap):
        # its vocabulary and where the next name goes: the rest memoizes rows and hashes
        return {"n_bits": obj.n_bits, "vocabulary": obj.vocabulary(), "next": obj._next}
    fields = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            # an estimator's lock (and the slots that keep __dict__) are no learned state
            if hasattr(obj, name) and name not in ("_lock", "__dict__", "__weakref__"):
                fields[name] = getattr(obj, name)
    return {k: v for k, v in fields.items() if k not in _CACHES}


def assert_same(before, est, what):
    diff = differences(before, snapshot(est))
    assert not diff, f"{what} changed the learner: {diff[:5]}"


# the exceptions README documents for refused input; FloatingPointError is an overflow
DOCUMENTED = (ValueError, TypeError, FloatingPointError, OlearnError)


def bad_rows(d=DIMENSION):
    """(name, x) examples that every learn_one / predict_one must refuse."""
    return [
        ("key 2**63", {2**63: 1.0}),
        ("key 2**64", {2**64: 1.0}),
        ("negative key", {-1: 1.0}),
        ("float key", {1.5: 1.0}),
        ("named NaN value", {"f": float("nan")}),
        ("named list value", {"f": [1.0]}),
        ("NaN value", {0: float("nan")}),
        ("inf value", {1: float("inf")}),
        ("list value", {0: [1.0]}),
        ("2-d array", np.ones((2, d))),
        ("NaN in array", np.array([1.0, np.nan] + [0.0] * (d - 2))),
        ("two-row sparse", sp.csr_matrix(np.ones((2, d)))),
        ("sparse index out of range", bad_csr(1, d, "index past")),
        ("sparse negative index", bad_csr(1, d, "negative index")),
        ("sparse bad indptr", bad_csr(1, d, "indptr start")),
    ]


def bad_csr(n_rows, d, kind, rng=None):
    """A CSR matrix of shape (n_rows, d) broken in the way ``kind`` names (see ``CSR_DEFECTS``)."""
    rng = np.random.default_rng(0) if rng is None else rng
    dense = rng.standard_normal((n_rows, d))
    dense[rng.random((n_rows, d)) < 0.3] = 0.0
    dense[:, 0] = 1.0  # every row has an entry
    X = sp.csr_matrix(dense)
    indices, indptr, data = X.indices.copy(), X.indptr.copy(), X.data.copy()
    k = int(rng.integers(indices.size))
    if kind == "index past":
        indices[k] = d
    elif kind == "index huge":
        indices[k] = 40_000_000
    elif kind == "negative index":
        indices[k] = -1
    elif kind == "indptr decreasing":
        # row 0 claims one entry more than there are, so row 1 starts before it ends
        indptr[1] = indices.size + 1 if n_rows > 1 else -1
    elif kind == "indptr start":
        indptr[0] = 1
    elif kind == "indptr short":
        indptr = indptr[:-1]
    elif kind == "indptr end":
        indptr[-1] = indices.size - 1
    elif kind == "lengths":
        data = data[:-1]
    elif kind == "nan":
        data[k] = np.nan
    elif kind == "inf":
        data[k] = -np.inf
    elif kind == "complex":
        data = data.astype(np.complex128)
    elif kind == "float indices":
        indices = indices.astype(np.float64)
    else:
        raise ValueError(kind)
    X.indices, X.indptr, X.data = indices, indptr, data
    return X


CSR_DEFECTS = ("index past", "index huge", "negative index", "indptr decreasing", "indptr start", "indptr short",
               "indptr end", "lengths", "nan", "inf", "complex", "float indices")


def scores_are_finite(est, task, d=DIMENSION):
    """The learner's scores on a small valid batch are finite (its state is usable)."""
    if task == "uniclass":
        return math.isfinite(est.radius_) and np.isfinite(est.center_).all()
    if task == "sequence":
        est.predict([np.eye(d)])
        return np.isfinite(est.coef_).all()
    # sparse: the model may have learned fewer features than d (a dense batch must be as wide as it)
    probe = sp.csr_matrix(np.eye(d))
    if task == "regression":
        return np.isfinite(est.predict(probe)).all()
    return np.isfinite(est.decision_function(probe)).all()


def sorted_csr(n_rows, d, rng):
    """A CSR matrix of rows of 2 to 5 sorted distinct column indices (int32) below ``d``, float64 values."""
    rows = [np.sort(rng.choice(d, size=int(rng.integers(2, 6)), replace=False)) for _ in range(n_rows)]
    indptr = np.concatenate(([0], np.cumsum([r.size for r in rows])))
    indices = np.concatenate(rows).astype(np.int32)
    return sp.csr_matrix((rng.standard_normal(indices.size), indices, indptr), shape=(n_rows, d))


def learn_a_broken_batch(est, kind, row, started, n_rows, d, rng, stops):
    """``olearn.run(est, X, y)`` on a sorted CSR batch ``X`` broken at ``row`` as ``kind`` names (one of
    ``ROW_DEFECTS_MERGED``), after a first sorted batch when ``started``.

    ``stops`` is the ``checking_pass_stops`` fixture: the checking pass must
    have stopped at the broken row (after learning the first batch through).
    Returns (the run's result, the first batch and its labels, ``X`` merged
    as scipy's ``sum_duplicates`` puts it, ``y``); labels are -1.0 / +1.0.
    """
    first = sorted_csr(n_rows, d, rng)
    first_labels = np.where(rng.random(n_rows) < 0.5, -1.0, 1.0)
    X, stop = csr_broken_at(sorted_csr(n_rows, d, rng), kind, row)
    y = np.where(rng.random(n_rows) < 0.5, -1.0, 1.0)
    if started:
        est.partial_fit(first, first_labels)
    result = olearn.run(est, X, y)
    # the checking pass stopped at the row; the checked path learned the whole batch again from the same start
    assert stops == ([-1, stop] if started else [stop])
    merged = X.copy()
    merged.sum_duplicates()
    assert merged.nnz == X.nnz - (kind == "duplicate")
    return result, first, first_labels, merged, y


def csr_broken_at(X, kind, row):
    """A copy of the CSR matrix ``X`` (rows of 2 entries or more) broken at ``row`` as ``kind`` names.

    Returns (the matrix, the row where a pass that checks each row just before
    reading it stops: ``row``, or 0 where the ends of ``indptr`` are wrong).
    See ``ROW_DEFECTS``.
    """
    d = X.shape[1]
    indices, indptr, data = X.indices.copy(), X.indptr.copy(), X.data.copy()
    lo, hi = indptr[row], indptr[row + 1]
    stop = row
    if kind == "index past":
        indices[hi - 1] = d  # still sorted: the last index is out of range
    elif kind == "index huge":
        indices[hi - 1] = 40_000_000
    elif kind == "negative index":
        indices[lo] = -1  # still sorted, as signed integers
    elif kind == "indptr decreasing":
        indptr[row + 1] = lo - 1
    elif kind == "indptr past the end":
        indptr[row + 1] = indices.size + 1000
    elif kind == "indptr start":
        indptr[0] = 1
    elif kind == "indptr end":
        indptr[-1] -= 1
    elif kind == "nan":
        data[lo] = np.nan
    elif kind == "inf":
        data[hi - 1] = -np.inf
    elif kind == "unsorted":
        indices[lo], indices[lo + 1] = indices[lo + 1], indices[lo]
    elif kind == "duplicate":
        indices[lo + 1] = indices[lo]
    else:
        raise ValueError(kind)
    if indptr[0] != 0 or indptr[-1] != indices.size:
        stop = 0  # checked before the first row
    X = X.copy()
    X.indices, X.indptr, X.data = indices, indptr, data
    return X, stop


# the defects of csr_broken_at at any row: refused (the last three would read out of bounds if a
# pass trusted them), and learned in their canonical form; "indptr start" and "indptr end" as well
ROW_DEFECTS_REFUSED = ("index past", "indptr decreasing", "nan", "inf", "index huge", "negative index",
                       "indptr past the end")
ROW_DEFECTS_MERGED = ("unsorted", "duplicate")
