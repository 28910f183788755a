"""Settings built from the hyperparameters once per change, not once per example.

``learn_one`` is called millions of times with the same settings: a change
is noticed where it is made, in ``__setattr__`` (:class:`SettingsCache`), or,
for a value that can change in place (:func:`changes_in_place`), by comparing
its content with its content when the settings were built (:func:`freeze`).
The learners (:meth:`olearn._learner.OnlineLearner._checked_config`) and the
transformers (:meth:`olearn.preprocessing._base.Transformer._config`) keep
their settings so.
"""

import functools

import numpy as np


@functools.cache
def hyperparameter_names(cls):
    """The names of an estimator class's hyperparameters, as a frozenset."""
    return frozenset(cls._get_param_names())


def freeze(value):
    """A hyperparameter value as something ``==`` compares safely and exactly, by content.

    Types count (True == 1 == 1.0, yet only some of them are valid values);
    arrays, lists, tuples, dicts and sets compare by what they hold, as it is
    now: the result is a copy, which a later change of ``value`` in place
    leaves as it was.

    >>> freeze(1) == freeze(True), freeze(np.eye(2)) == freeze(np.eye(2))
    (False, True)
    >>> weights = {0: 1.0}; before = freeze(weights); weights[0] = 2.0; freeze(weights) == before
    False
    """
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return (type(value), tuple((freeze(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return (type(value), frozenset(freeze(v) for v in value))
    return (type(value), value)


def changes_in_place(value):
    """Whether a hyperparameter value can change without being set again.

    Lists, dicts, sets and arrays can (and tuples holding one). Any other
    value (a number, a str, None, a callable, an object) changes only by
    assignment, which :meth:`SettingsCache.__setattr__` sees.
    """
    if isinstance(value, tuple):
        return any(changes_in_place(v) for v in value)
    return isinstance(value, (list, dict, set, np.ndarray))


class SettingsCache:
    """The settings built from the hyperparameters (``_config_cache``), dropped when a hyperparameter is set.

    ``_config_cache`` holds the settings and the hyperparameters that can
    change in place with their values when built; None until built, and again
    after a change. It is no part of the model: never pickled or copied.
    """

    __slots__ = ()

    _config_cache = None

    def __setattr__(self, name, value):
        # setting a hyperparameter (by attribute or set_params) drops the settings built from it; the entry
        # stays (None), so that the attributes of an estimator are the same before and after a refused call
        if name in hyperparameter_names(type(self)) and self.__dict__.get("_config_cache") is not None:
            self.__dict__["_config_cache"] = None
        object.__setattr__(self, name, value)

    def __getstate__(self):
        # the settings are rebuilt from the hyperparameters on first use
        state = self.__dict__.copy()
        state.pop("_config_cache", None)
        return state
