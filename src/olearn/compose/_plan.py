"""A pipeline's plan: what its steps do, checked once per change, and the routing of an example's names by it.

:meth:`Plan.of` checks the steps in order (transformers on names, then
transformers on values, then at most one learner of rows, last) and asks
each step on names what it does at its place (:meth:`~olearn.compose._step.Step._names_in_plan`):
the plan holds the functions applied to a dict's names before the pipeline's
:class:`~olearn._features.FeatureMap` (one-hot encoding, crossing), the
hashing of names, the steps on values and the learner. :meth:`Plan.row` and
:meth:`Plan.encoded_batch` route an example or a batch by it: a dict's names
through those functions, an array or a sparse row by index (refused where a
step crosses names, which columns do not have).
"""

import numpy as np
import scipy.sparse as sp

from .._batch_rows import _is_frame
from .._estimator import Estimator
from .._learner import OnlineLearner
from .._validation import check_row, dense_row
from ._step import Step


class Plan:
    """What a pipeline's steps do, checked once per change: the encoders, the map, the scalers, the learner."""

    __slots__ = ("key", "features", "n_bits", "scalers", "learner", "locks", "crosses")

    def __init__(self, key, features, n_bits, scalers, learner, locks, crosses=False):
        self.key = key
        # the steps' locks, in the order the pipeline takes them (olearn.compose._locks)
        self.locks = locks
        # what is done to a dict's names before the map, in step order: each OneHotEncoder with a list one-hots
        # its features (those with None leave str values to the FeatureMap), each Interactions crosses
        self.features = features
        self.n_bits = n_bits
        self.scalers = scalers
        self.learner = learner
        # an Interactions step crosses names: the examples must be dicts
        self.crosses = crosses

    @classmethod
    def of(cls, key, steps, pipeline_n_bits):
        """The plan of ``steps`` ((name, step) pairs) for a pipeline of ``n_bits=pipeline_n_bits``; ``key`` is
        what it is valid for. TypeError or ValueError for steps that do not make a pipeline."""
        if not steps:
            raise ValueError("Pipeline: no steps; give transformers and a learner")
        features, scalers, n_bits, learner = [], [], pipeline_n_bits, None
        for position, (name, step) in enumerate(steps):
            last = position == len(steps) - 1
            if isinstance(step, OnlineLearner) and last:
                if not hasattr(step, "_learn_row"):
                    raise TypeError(
                        f"Pipeline: step {name!r} ({type(step).__name__}) does not learn from rows of features"
                    )
                learner = step
                continue
            if not isinstance(step, Step):
                where = "the last step" if last else f"step {name!r}"
                raise TypeError(
                    f"Pipeline: {where} is a {type(step).__name__}; "
                    + ("a learner can only be the last step" if isinstance(step, OnlineLearner) else
                       "the steps are olearn transformers (olearn.preprocessing) followed by an olearn learner")
                )
            step._config()
            if step._acts_on_names and scalers:
                raise ValueError(
                    f"Pipeline: step {name!r} ({type(step).__name__}) acts on the names of the features and comes "
                    f"after {scalers[-1][0]!r}, which acts on their values; put the encoders and the hasher first"
                )
            if step._acts_on_names:
                encode, n_bits = step._names_in_plan(name, n_bits, pipeline_n_bits)
                if encode is not None:
                    features.append(encode)
            else:
                scalers.append((name, step))
        return cls(key, tuple(features), n_bits, tuple(step for _, step in scalers), learner, locks_of(steps),
                   any(step._crosses_names for _, step in steps if isinstance(step, Step)))

    def check_named(self, x):
        """``x``, an example (or batch) of columns, refused where a step crosses the names of dict features."""
        if self.crosses:
            raise TypeError(f"Pipeline: an Interactions step crosses the names of dict features; got "
                            f"{type(x).__name__} examples, whose columns have no names: give dicts")
        return x

    def encoded(self, x):
        """The dict ``x`` through the plan's functions of names, in step order."""
        for encode in self.features:
            x = encode(x)
        return x

    def encoded_batch(self, X):
        """The batch X with each dict row :meth:`encoded` (a DataFrame as its rows' dicts), for a plan with
        functions of names; a batch of columns is checked (:meth:`check_named`) and comes back as it is."""
        if _is_frame(X):
            X = X.to_dict("records")
        if isinstance(X, (list, tuple)) and X and isinstance(X[0], dict):
            return [self.encoded(x) if isinstance(x, dict) else self.check_named(x) for x in X]
        return self.check_named(X)

    def row(self, x, fm, base, learning):
        """(indices, data, n_features, new) of one example: a dict through the plan and the map ``fm`` (``base``:
        the pipeline's first free column, see :meth:`FeatureMap.row`), an array or sparse row by index."""
        if type(x) is dict or isinstance(x, dict):
            return fm.row(self.encoded(x) if self.features else x, base, learning)
        self.check_named(x)
        if sp.issparse(x):
            indices, data, n_features = check_row(x)
            indices = indices.astype(np.int64)
        else:
            data = dense_row(x)
            # every entry of a dense row is present (a scaler centres its zeros too)
            indices, n_features = np.arange(data.size, dtype=np.int64), data.size
        if fm.hashing and n_features > (1 << fm.n_bits):
            raise ValueError(f"feature index {n_features - 1} is past the 2**{fm.n_bits} columns of the hashed names")
        return indices, data, n_features, None


def locks_of(steps):
    """The locks of the estimators among ``steps`` ((name, step) pairs), in the order of their ids."""
    locks = [step._lock for _, step in steps if isinstance(step, Estimator)]
    if len(locks) > 1:
        locks.sort(key=id)
    return locks
