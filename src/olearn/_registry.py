"""The list of every public olearn estimator, for users and for the common tests."""

import inspect

from ._estimator import Estimator

_TYPES = ("classifier", "regressor", "outlier_detector")
# The problems the estimators solve; each has its own contract (labels, inputs)
# and so its own common tests.
TASKS = ("binary", "regression", "multiclass", "multilabel", "uniclass", "sequence")


def _wanted(value, known, argument):
    if value is None:
        return None
    wanted = {value} if isinstance(value, str) else set(value)
    unknown = sorted(map(repr, wanted - set(known)))
    if unknown:
        raise ValueError(f"{argument}: unknown value {', '.join(unknown)}; expected one of {known} or None")
    return wanted


def all_estimators(type_filter=None, task=None):
    """Return sorted (name, class) pairs of the estimators that ``olearn`` exports.

    ``type_filter`` keeps only one kind, as in scikit-learn: ``"classifier"``,
    ``"regressor"``, ``"outlier_detector"`` (the uniclass learners), or a list of them; ``task`` keeps the estimators of one
    problem (one of ``TASKS``: ``"binary"``, ``"regression"``, ``"multiclass"``,
    ...) or of a list of them. None keeps all.

    >>> from olearn import all_estimators
    >>> [name for name, _ in all_estimators()][:3]
    ['AROW', 'AdaGrad', 'CW']
    >>> [name for name, _ in all_estimators(type_filter="regressor")]
    ['PARegressor']
    >>> [name for name, _ in all_estimators(task="uniclass")]
    ['PAUniclass']
    """
    import olearn

    types = _wanted(type_filter, _TYPES, "type_filter")
    tasks = _wanted(task, TASKS, "task")
    # every public name, loaded if it was not yet (olearn loads its names on first use)
    found = {
        name: obj
        for name, obj in ((name, getattr(olearn, name)) for name in olearn.__all__)
        if inspect.isclass(obj) and issubclass(obj, Estimator) and not name.startswith("_")
        and (types is None or obj._estimator_type in types)
        and (tasks is None or obj._task in tasks)
    }
    return sorted(found.items())
