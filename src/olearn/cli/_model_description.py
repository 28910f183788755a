"""A saved model described as ``olearn inspect`` shows it (:mod:`olearn.cli._inspect`) and as ``olearn run
--invert_hash`` writes its weights by name (:func:`olearn.cli._names.write_invert_hash`)."""

import numpy as np


def describe(model, input_info, top):
    """The JSON-ready description of ``model``; ``input_info`` is how ``olearn run`` read its data (``{}``)."""
    steps = getattr(model, "steps", None)
    learner = steps[-1][1] if steps else model
    classes = getattr(learner, "classes_", None)
    layout = {"n_features": getattr(learner, "n_features_in_", None), **_names_layout(learner)}
    if steps:
        layout["pipeline"] = [{"name": name, "step": type(step).__name__} for name, step in steps]
    hashed_names = (input_info or {}).get("hashed_names")
    if input_info:
        layout["read_as"] = {key: value for key, value in input_info.items() if key != "hashed_names"}
    if hashed_names is not None:
        layout["hashed_names"] = {"named_columns": len(hashed_names["columns"]), "limit": hashed_names["limit"],
                                  "complete": hashed_names["complete"]}
    return {
        "learner": type(learner).__name__,
        "task": getattr(learner, "_task", None),
        "hyperparameters": {key: _plain(value) for key, value in learner.get_params(deep=False).items()},
        "classes": None if classes is None else [_plain(label) for label in np.asarray(classes).tolist()],
        "intercept": _intercept(learner),
        "input": layout,
        "weights": _largest_weights(learner, classes, top, None if hashed_names is None else hashed_names["columns"]),
    }


def _names_layout(learner):
    """How the learner's feature names map to columns: a vocabulary, hashing, or none (the columns of arrays,
    LIBSVM files, and VW or CoNLL files, whose names ``olearn run`` hashes without keeping them)."""
    if not hasattr(learner, "_feature_map") or not getattr(learner, "_named_features", False):
        return {"names": "columns"}
    features = learner._feature_map()
    if features.hashing:
        return {"names": "hashed", "n_bits": features.n_bits, "named_columns": features.size}
    if features.size == 0:
        return {"names": "columns"}
    return {"names": "vocabulary", "vocabulary_size": features.size}


def _intercept(learner):
    """The learned intercept: a number, one per row of ``coef_``, or None (none learned)."""
    if not getattr(learner, "fit_intercept", False) or getattr(learner, "intercept_", None) is None:
        return None
    values = np.ravel(np.asarray(learner.intercept_, dtype=float)).tolist()
    return values[0] if len(values) == 1 else values


def _largest_weights(learner, classes, top, hashed_names=None):
    """The ``top`` non-zero weights of ``coef_`` (a uniclass learner's ``center_``) by absolute value, largest
    first, or None without either (a kernel learner keeps support vectors). ``hashed_names``: the names kept
    for each hashed column (``{"column": [names]}``), which each weight then lists as ``names``."""
    coef = getattr(learner, "coef_", None)
    if coef is None:
        coef = getattr(learner, "center_", None)
    if coef is None:
        return None
    weights = np.atleast_2d(np.asarray(coef, dtype=float))
    rows, columns = np.nonzero(weights)
    order = np.argsort(-np.abs(weights[rows, columns]), kind="stable")[:top]
    features = learner._feature_map() if getattr(learner, "_named_features", False) else None
    labels = _row_labels(weights.shape[0], classes)
    entries = [{"feature": None if features is None else _plain(features.name_of(int(columns[i]))),
                "column": int(columns[i]), "class": labels[rows[i]], "weight": float(weights[rows[i], columns[i]])}
               for i in order]
    if hashed_names is not None:
        for entry in entries:
            names = hashed_names.get(str(entry["column"]), [])
            entry["names"] = names
            entry["feature"] = " | ".join(names) if names else entry["feature"]
    return entries


def _row_labels(n_rows, classes):
    """What each row of ``coef_`` scores: a class of a multiclass learner; None for one row (positive: the last
    class of a binary learner)."""
    if n_rows == 1 or classes is None or len(classes) != n_rows:
        return [None] * n_rows
    return [_plain(label) for label in np.asarray(classes).tolist()]


def _plain(value):
    """``value`` as JSON holds it: numbers, strings, booleans and None as they are, anything else as its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, int, float, str)) for v in value):
        return list(value)
    return repr(value)
