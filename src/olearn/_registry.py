"""The list of every public olearn estimator, for users and for the common tests."""

import inspect

from ._estimator import Estimator


def all_estimators():
    """Return sorted (name, class) pairs of the estimators that ``olearn`` exports.

    >>> from olearn import all_estimators
    >>> [name for name, _ in all_estimators()][:2]
    ['OGDClassifier', 'OnlineSVM']
    """
    import olearn

    found = {
        name: obj
        for name, obj in vars(olearn).items()
        if inspect.isclass(obj) and issubclass(obj, Estimator) and not name.startswith("_")
    }
    return sorted(found.items())
