"""Importance weights of examples: ``sample_weight`` and ``class_weight``, checked once at the boundary.

An example's weight says how much it counts. What "counts ``w`` times" means
for an update depends on the step rule, and each family states it exactly in
its docstring (for PA-I the aggressiveness ``C`` is scaled by ``w``, so an
integer weight ``w`` equals the example repeated ``w`` times; see
:mod:`olearn._kernels._steps`). The kernels receive one float64 weight per row,
or an empty array for the unweighted stream, whose path stays the plain one.

``class_weight`` follows scikit-learn: a dict maps a class to its weight
(classes missing from it weigh 1), and ``"balanced"`` weighs class ``c`` by
``n_samples / (n_classes * count(c))`` over the ``y`` given to ``fit``. As in
scikit-learn's ``SGDClassifier``, ``"balanced"`` needs the whole ``y`` and so is
refused by ``partial_fit``, ``learn_one`` and :func:`olearn.run`.
"""

from collections.abc import Mapping

import numpy as np

# an empty weight array: the kernels' sign for "every example weighs 1"
UNWEIGHTED = np.empty(0)


def _refuse_weight(value, where):
    raise ValueError(f"{where} is {value!r}; an importance weight must be a finite number >= 0")


def check_sample_weight(sample_weight, n_rows, name="sample_weight"):
    """``sample_weight`` as a float64 array of ``n_rows`` finite weights >= 0, or None; raises ValueError.

    A scalar weighs every row the same. The message names the first bad row.

    >>> check_sample_weight([1, 2.5], 2).tolist()
    [1.0, 2.5]
    >>> check_sample_weight(None, 3) is None
    True
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, (str, bytes, Mapping)):
        raise ValueError(f"{name} must be a number or an array of {n_rows} numbers; got {type(sample_weight).__name__}")
    try:
        weights = np.asarray(sample_weight)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number or an array of {n_rows} numbers: {exc}") from None
    if weights.dtype.kind not in "biuf":
        raise ValueError(f"{name} has dtype {weights.dtype}; expected real numbers")
    if weights.ndim == 0:
        weights = np.full(n_rows, weights, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_rows:
        raise ValueError(f"{name} has shape {weights.shape}; expected ({n_rows},), one weight per row of X")
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(weights) & (weights >= 0.0)))
    if bad.size:
        _refuse_weight(float(weights[bad[0]]), f"{name}[{bad[0]}]")
    return weights


def check_weight_one(sample_weight):
    """One example's weight as a float (1.0 for None); raises ValueError for a non-finite or negative one.

    >>> check_weight_one(None), check_weight_one(2)
    (1.0, 2.0)
    """
    if sample_weight is None:
        return 1.0
    if isinstance(sample_weight, (bool, np.bool_)) or not isinstance(sample_weight, (int, float, np.integer, np.floating)):
        raise ValueError(f"sample_weight must be a number; got {type(sample_weight).__name__}")
    weight = float(sample_weight)
    if not (np.isfinite(weight) and weight >= 0.0):
        _refuse_weight(sample_weight, "sample_weight")
    return weight


def check_class_weight(class_weight, name="class_weight"):
    """Refuse a ``class_weight`` that is neither None, ``"balanced"`` nor a dict of finite weights >= 0."""
    if class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced"):
        return
    if not isinstance(class_weight, Mapping):
        raise ValueError(f"{name} must be None, 'balanced' or a dict {{class: weight}}; got {class_weight!r}")
    for label, weight in class_weight.items():
        if isinstance(weight, (bool, np.bool_)) or not isinstance(weight, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name}[{label!r}] must be a number; got {type(weight).__name__}")
        if not (np.isfinite(weight) and weight >= 0.0):
            _refuse_weight(weight, f"{name}[{label!r}]")


class ClassWeightConstraint:
    """The ``class_weight`` hyperparameter: None, ``"balanced"`` or a dict {class: finite weight >= 0}."""

    def accepts(self, value):
        try:
            check_class_weight(value)
        except ValueError:
            return False
        return True

    def describe(self):
        return "None, 'balanced' or a dict {class: weight} of finite weights >= 0"


CLASS_WEIGHT = ClassWeightConstraint()


def balanced_class_weight(y):
    """scikit-learn's ``"balanced"`` weights of the classes present in ``y``: n / (k * count(c)).

    >>> balanced_class_weight(["a", "a", "a", "b"])
    {'a': 0.6666666666666666, 'b': 2.0}
    """
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    n = float(counts.sum())
    return {label.item() if hasattr(label, "item") else label: n / (classes.size * int(count))
            for label, count in zip(classes, counts)}


def class_weight_of(class_weight, label):
    """The weight of one label under a dict ``class_weight`` (a class missing from the dict weighs 1)."""
    try:
        return float(class_weight.get(label, 1.0))
    except TypeError:
        # an unhashable label cannot be a key: it is refused by the label checks that follow
        return 1.0


def _refuse_misspelt_classes(class_weight, labels, owner):
    """Refuse, in fit, a dict naming a class that y lacks while a class of y has no weight (scikit-learn's rule).

    Such a key is most likely a misspelt class, whose weight would otherwise
    silently go to nobody. A stream (partial_fit) may name classes still to
    come, so only fit, which sees every label, checks.
    """
    try:
        classes = set(labels)
    except TypeError:
        return  # an unhashable label is refused by the label checks that follow
    unknown = [key for key in class_weight if key not in classes]
    unweighted = sorted((label for label in classes if label not in class_weight), key=repr)
    if unknown and unweighted:
        raise ValueError(
            f"{owner}: class_weight names {sorted(unknown, key=repr)}, not a class of y, while the classes "
            f"{unweighted} of y are not in class_weight (a misspelt class?)"
        )


def _balanced_outside_fit(owner):
    return ValueError(
        f"{owner}: class_weight='balanced' needs the class counts of the whole training set and is "
        "available in fit only; for a stream, pass a dict, e.g. computed with "
        "sklearn.utils.class_weight.compute_class_weight on a sample of the labels"
    )


def one_class_weight(class_weight, label, owner):
    """The weight of one example's class under ``class_weight`` (not None), for ``learn_one``; refuses "balanced"."""
    check_class_weight(class_weight)
    if isinstance(class_weight, str):
        raise _balanced_outside_fit(owner)
    return class_weight_of(class_weight, label.item() if isinstance(label, np.generic) else label)


def row_weights(class_weight, y, sample_weight, n_rows, fitting, owner):
    """The weight of each row: ``sample_weight`` times the weight of the row's class; None when all are 1.

    ``class_weight="balanced"`` is computed over ``y`` when ``fitting`` (a call
    of ``fit``) and refused otherwise, since a stream's class counts are not
    known in advance. ``fit`` refuses sample weights that are all zero (it would
    learn nothing, yet report a fitted model), in scikit-learn's words; a stream's
    batch of zero weights is just skipped.
    """
    weights = check_sample_weight(sample_weight, n_rows)
    if fitting and weights is not None and weights.size and not weights.any():
        raise ValueError(f"{owner}: Sample weights must contain at least one non-zero number; fit would learn nothing")
    if class_weight is None:
        return weights
    check_class_weight(class_weight)
    if isinstance(class_weight, str):
        if not fitting:
            raise _balanced_outside_fit(owner)
        class_weight = balanced_class_weight(y)
    labels = [label.item() if hasattr(label, "item") else label for label in np.asarray(y).ravel()[:n_rows]]
    if len(labels) != n_rows:
        return weights
    if fitting:
        _refuse_misspelt_classes(class_weight, labels, owner)
    per_row = np.array([class_weight_of(class_weight, label) for label in labels], dtype=np.float64)
    return per_row if weights is None else per_row * weights
