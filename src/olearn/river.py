"""River interop: an olearn learner or pipeline as a River estimator.

:func:`to_river` wraps an olearn classifier, regressor or pipeline in an
:class:`OlearnClassifier` or :class:`OlearnRegressor`, which subclass River's
``river.base.MiniBatchClassifier`` and ``river.base.MiniBatchRegressor`` (its
classifiers and regressors that also learn and predict DataFrames). The result passes
River's own ``river.checks.check_estimator`` and works wherever River takes a
model: in a ``river.compose.Pipeline`` (``StandardScaler() | to_river(...)``),
in ``river.evaluate.progressive_val_score`` with River's metrics, in River's
model selection.

**An adapter, not River's base classes in olearn's.** olearn's estimators
follow scikit-learn's contract: ``get_params``/``set_params`` with nested
``a__b`` names, ``sklearn.base.clone``, a repr that lists the changed
parameters. River's ``river.base.Base`` has its own, different contract for
the same jobs (``_get_params`` returning ``(class, params)`` pairs for nested
River objects, its own ``clone(new_params, include_attributes)`` and
``mutate``, a multi-line repr) and ``learn_one`` returning None where olearn's
returns the learner. Inheriting both in one class would make one of the two
contracts wrong, and would make River a dependency of every olearn user. The
adapter keeps olearn's learners as they are and River optional: ``import
olearn`` does not import River, and this module needs it (``pip install
"olearn[river]"``).

**What is adapted, exactly.** ``learn_one(x, y, w=1.0)`` is the learner's
``learn_one(x, y, sample_weight=w)``; ``predict_one(x)`` is its
``predict_one(x)``; ``learn_many`` and ``predict_many`` are its own, on
DataFrames whose columns are feature names. ``predict_proba_one`` (and
``predict_proba_many``) gives probabilities only where the
learner has calibrated ones (``OGDClassifier(loss="logistic")``, or a
binary margin classifier such as ``PAClassifier`` or ``AROW`` with
``calibration="platt"``, or a pipeline ending with one); elsewhere it raises NotImplementedError, River's way of saying
a classifier predicts labels only, and River's ``predict_one`` is not built
from made-up probabilities. What River's protocol cannot carry is refused with
a TypeError: multi-label learners (River's multi-label classifiers take ``y``
as a dict of booleans over a label set fixed in advance, olearn's learn a set
of relevant labels and rank them), uniclass learners (their examples have no
``x``), sequence learners (``x`` and ``y`` are sequences, for which River has
no protocol), and pipelines ending with a transformer.

**Which classes a binary learner knows.** River calls ``learn_one`` and
``predict_one``, which know only the classes seen so far (docs/streams.md):
the first prediction is None, and until the second class arrives only one
class is predicted. :func:`olearn.run` takes both classes from ``y`` before the
first round. ``to_river(est, classes=[a, b])`` declares them, so that
``progressive_val_score`` sees exactly ``olearn.run``'s predictions from the
first round.

>>> import olearn
>>> from olearn.river import to_river
>>> from river import datasets, evaluate, metrics
>>> model = to_river(olearn.PAClassifier(variant="pa1"), classes=[False, True])
>>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
Accuracy: 78.08%
"""

import copy

import numpy as np

try:
    from river import base as river_base
except ImportError as error:  # pragma: no cover - exercised in a subprocess without River
    raise ImportError('olearn.river needs River, an optional dependency: pip install "olearn[river]"') from error

from ._estimator import Estimator, call_locked
from ._learner import frame_rows
from .compose import Pipeline

__all__ = ["OlearnClassifier", "OlearnRegressor", "to_river"]

# why River's protocol cannot carry a learner of these problems
_REFUSED_TASKS = {
    "multilabel": (
        "River's multi-label classifiers take y as a dict {label: bool} over a label set fixed in advance, "
        "while olearn's learn a set of relevant labels and rank them"
    ),
    "uniclass": "its examples are the vectors themselves, with no x to predict from (learn_one(y))",
    "sequence": "its x and y are sequences (tokens and their labels), for which River has no protocol",
}


def _kind(estimator):
    """"classifier" or "regressor": the River kind ``estimator`` is adapted as, or TypeError saying why not."""
    name = type(estimator).__name__
    if not isinstance(estimator, Estimator):
        raise TypeError(f"to_river adapts an olearn learner or pipeline, not a {name}")
    if isinstance(estimator, Pipeline) and (not estimator.steps or estimator._task is None):
        raise TypeError("to_river adapts a pipeline that ends with a learner; this one ends with a transformer")
    task = estimator._task
    if task in _REFUSED_TASKS:
        raise TypeError(f"to_river cannot adapt {name} exactly: {_REFUSED_TASKS[task]}")
    if task in ("binary", "multiclass"):
        return "classifier"
    if task == "regression":
        return "regressor"
    raise TypeError(f"to_river adapts a learner of (x, y) examples; {name} is not one")


def _sample_weight(w):
    # River's unweighted call is w=1.0; olearn's is no sample_weight (a learner without weights then works too)
    return None if w == 1.0 else w


class _Adapted:
    """What both adapters share: the wrapped estimator, its cloning, learning."""

    _adapts = None

    def __init__(self, estimator):
        kind = _kind(estimator)
        if kind != self._adapts:
            raise TypeError(f"{type(self).__name__} adapts a {self._adapts}; {type(estimator).__name__} is a {kind} "
                            "(to_river picks the adapter)")
        self.estimator = estimator

    def clone(self, new_params=None, include_attributes=False):
        """A new adapter of an unfitted clone of the estimator (River's ``clone``).

        The estimator is cloned by its own (scikit-learn's) contract: its
        parameters, none of its learned state. ``new_params`` replaces
        adapter parameters (``estimator``, ``classes``); an estimator given
        there is cloned too. ``include_attributes=True`` copies the learned
        state as well (the estimator deep-copied), as River's ``clone`` copies
        a model's attributes.
        """
        from sklearn.base import clone

        new_params = new_params or {}
        params = {**self._get_params(), **new_params}
        if include_attributes and "estimator" not in new_params:
            # the learned model, its classes included, is copied: nothing is declared to it again
            adapted = type(self)(copy.deepcopy(self.estimator))
            adapted.__dict__.update((name, value) for name, value in params.items() if name != "estimator")
            return adapted
        params["estimator"] = clone(params["estimator"])
        return type(self)(**params)

    def learn_one(self, x, y, w=1.0):
        """Learn ``x`` with label or target ``y`` and importance weight ``w``: the estimator's ``learn_one``."""
        self.estimator.learn_one(x, y, sample_weight=_sample_weight(w))

    def predict_one(self, x, **kwargs):
        """The estimator's ``predict_one(x)`` (None for a classifier before any class is known)."""
        return self.estimator.predict_one(x)

    def learn_many(self, X, y):
        """Learn the rows of the DataFrame ``X`` in order, as ``learn_one`` would: the estimator's ``learn_many``.

        The columns are feature names, in any order and any subset (docs/streams.md).
        """
        self.estimator.learn_many(X, y)

    def predict_many(self, X):
        """The estimator's predictions for the rows of the DataFrame ``X``, a pandas Series on its index."""
        return self.estimator.predict_many(X)


class OlearnClassifier(_Adapted, river_base.MiniBatchClassifier):
    """An olearn classifier (binary or multiclass), or a pipeline ending with one, as a River classifier.

    Made by :func:`to_river`. The estimator learns in place: after a River
    evaluation ``estimator`` holds the learned model.

    Parameters
    ----------
    estimator : olearn classifier or olearn pipeline ending with one
    classes : sequence of labels, optional
        Declared to the estimator before anything is learned (its
        ``partial_fit`` with no rows and ``classes=``): both classes of a
        binary learner, so that its predictions are :func:`olearn.run`'s
        from the first round; a multiclass learner's, known from the start
        (where ``olearn.run`` lets a class join when first seen), as a cost
        matrix needs them.
    """

    _adapts = "classifier"

    def __init__(self, estimator, classes=None):
        super().__init__(estimator)
        self.classes = classes
        if classes is not None:
            # no rows, as wide as what the estimator has learned (an unfitted one, none)
            estimator.partial_fit(np.empty((0, getattr(estimator, "n_features_in_", 0))), [], classes=list(classes))

    @classmethod
    def _unit_test_params(cls):
        from .linear import PAClassifier

        yield {"estimator": PAClassifier()}

    @property
    def _multiclass(self):
        return self.estimator._task == "multiclass"

    def predict_proba_one(self, x, **kwargs):
        """The estimator's probability of each class known, or NotImplementedError where it has none.

        Only learners with calibrated probabilities have them
        (``OGDClassifier(loss="logistic")``, a binary margin classifier with
        ``calibration="platt"``); the dict is empty before any
        class is known, River's convention.
        """
        self._check_probabilities()
        return self.estimator.predict_proba_one(x) or {}

    def predict_proba_many(self, X):
        """The probability of each class for the rows of the DataFrame ``X`` (where the estimator has them).

        A DataFrame on ``X``'s index with a column per class known, the rows
        read as named examples as in :meth:`predict_many`.
        """
        self._check_probabilities()
        import pandas as pd

        # the probabilities and their classes read under one hold of the estimator's lock: a class learned in
        # between by another thread would shift the columns
        proba, classes = call_locked(self.estimator, self._proba_and_classes, frame_rows(X))
        return pd.DataFrame(proba, index=X.index, columns=classes)

    def _proba_and_classes(self, rows):
        return self.estimator.predict_proba(rows), self.estimator.classes_.tolist()

    def _check_probabilities(self):
        if not hasattr(self.estimator, "predict_proba_one"):
            raise NotImplementedError(
                f"{type(self.estimator).__name__} predicts classes, not probabilities "
                '(OGDClassifier(loss="logistic") has them, and every binary margin classifier with calibration="platt")'
            )


class OlearnRegressor(_Adapted, river_base.MiniBatchRegressor):
    """An olearn regressor, or a pipeline ending with one, as a River regressor.

    Made by :func:`to_river`. The estimator learns in place: after a River
    evaluation ``estimator`` holds the learned model.

    Parameters
    ----------
    estimator : olearn regressor or olearn pipeline ending with one
    """

    _adapts = "regressor"

    @classmethod
    def _unit_test_params(cls):
        from .linear import PARegressor

        yield {"estimator": PARegressor()}


def to_river(estimator, classes=None):
    """``estimator`` as a River estimator: an :class:`OlearnClassifier` or an :class:`OlearnRegressor`.

    Parameters
    ----------
    estimator : olearn learner or olearn pipeline
        A binary or multiclass classifier, a regressor, or a pipeline ending
        with one; it learns in place. Multi-label, uniclass and sequence
        learners, and pipelines ending with a transformer, are refused with a
        TypeError that says why (see :mod:`olearn.river`).
    classes : sequence of labels, optional
        A classifier's classes, declared before anything is learned; a
        regressor takes none.

    Returns
    -------
    OlearnClassifier or OlearnRegressor
    """
    if _kind(estimator) == "regressor":
        if classes is not None:
            raise TypeError(f"to_river: {type(estimator).__name__} is a regressor, which takes no classes")
        return OlearnRegressor(estimator)
    return OlearnClassifier(estimator, classes=classes)
