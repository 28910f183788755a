"""The list of every public olearn estimator, for users and for the common tests."""

import inspect

from ._estimator import Estimator

_TYPES = ("classifier", "regressor")


def all_estimators(type_filter=None):
    """Return sorted (name, class) pairs of the estimators that ``olearn`` exports.

    ``type_filter`` keeps only one kind, as in scikit-learn: ``"classifier"``,
    ``"regressor"``, or a list of them; None keeps all.

    >>> from olearn import all_estimators
    >>> [name for name, _ in all_estimators()][:2]
    ['OGDClassifier', 'OnlineSVM']
    >>> [name for name, _ in all_estimators(type_filter="regressor")]
    ['PARegressor']
    """
    import olearn

    if type_filter is None:
        wanted = None
    else:
        wanted = {type_filter} if isinstance(type_filter, str) else set(type_filter)
        unknown = sorted(map(repr, wanted - set(_TYPES)))
        if unknown:
            raise ValueError(f"type_filter: unknown estimator type {', '.join(unknown)}; expected one of {_TYPES} or None")
    found = {
        name: obj
        for name, obj in vars(olearn).items()
        if inspect.isclass(obj) and issubclass(obj, Estimator) and not name.startswith("_")
        and (wanted is None or obj._estimator_type in wanted)
    }
    return sorted(found.items())
