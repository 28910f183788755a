"""The saved state of a multiclass learner (:mod:`olearn._persistence`): its schema, and the arrays out and in."""

import numpy as np

from .._averaging import average_start
from .._state_schema import COUNT, LABELS, Array, Count, StateSchema, distinct
from ..kernel import SupportSet
from ._prototypes import restore_prototypes, saved_prototypes


def _sum_starts_after(start):
    """Relation: the averaged sum is 0 while at most ``start`` rounds were learned (it grows from round start + 1)."""

    def relation(arrays, dims):
        if int(arrays["rounds"][0]) <= start and np.any(arrays["average_sum"]):
            return (f"array 'average_sum' is not 0 although only {int(arrays['rounds'][0])} rounds were learned "
                    f"(average={start} adds to it from round {start + 1} on)")
        return None

    return relation


class SavedState:
    """The persistence hooks of :class:`~olearn.multiclass._base.MulticlassLearner`."""

    def _state_schema(self):
        """The saved state: the distinct labels in slot order, and one prototype per class (a column of
        ``weights``, the intercept's row last) or with a kernel the support set with a coefficient per class.

        With ``average`` on, also the averaged sum of the weights (``average_sum``, shaped as
        ``weights``) and the count of rounds learned (``rounds``, one entry); the sum is 0
        until averaging has started.
        """
        fixed = self._fixed_classes()
        schema = StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={"labels": Array(LABELS, ("n_classes",))},
            relations=[distinct("labels")],
            limits={**self._width_limits(), **({} if fixed is None else {"n_classes": (fixed, fixed)})},
        )
        if self._uses_kernel:
            return schema.extended(**vars(SupportSet.state_schema("n_classes", self.budget)))
        schema = schema.extended(arrays={"weights": Array("float64", ("n_features_in+1", "n_classes"))})
        start = average_start(self.average)
        if not start:
            return schema
        return schema.extended(
            arrays={"average_sum": Array("float64", ("n_features_in+1", "n_classes")),
                    "rounds": Array("int64", (1,), values=COUNT)},
            relations=[_sum_starts_after(start)],
        )

    def _get_state(self):
        self._check_started()
        if self._uses_map or self._python_kernel is not None:
            what = "feature_map" if self._uses_map else "callable kernel"
            raise ValueError(
                f"{type(self).__name__}: a model with a {what} cannot be saved portably (the {what} is Python "
                "code); use pickle instead"
            )
        k = len(self._labels)
        if self._uses_kernel:
            arrays = {"labels": np.asarray(self._labels.labels), **self._dual.to_arrays(k)}
            return arrays, {"n_features_in": self.n_features_in_}
        arrays = {"labels": np.asarray(self._labels.labels), "weights": saved_prototypes(self._W, self.n_features_in_, k)}
        if self._averaging:
            arrays["average_sum"] = saved_prototypes(self._A, self.n_features_in_, k)
            arrays["rounds"] = self._clock.copy()
        return arrays, {"n_features_in": self.n_features_in_}

    def _set_state(self, arrays, state):
        self._config()
        self._start()
        labels = arrays["labels"]
        self._labels.set_labels(list(labels))
        self._grow_classes(len(labels))
        self._n_active[0] = len(labels)
        self.classes_ = self._labels.classes if len(labels) else np.empty(0)
        self._grow_features(int(state["n_features_in"]), "n_features_in")
        if self._uses_kernel:
            self._dual.load_arrays(arrays)
            return
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        restore_prototypes(self._W, weights)
        self._bound[0] = np.abs(weights).max(initial=0.0)
        if self._averaging:
            total = np.asarray(arrays["average_sum"], dtype=np.float64)
            restore_prototypes(self._A, total)
            self._clock[0] = int(arrays["rounds"][0])
            # the kernel's guard takes |A| <= (t - a) * bound, true of every sum it wrote itself
            stamp = self._clock[0] - self._averaged_from
            if stamp > 0:
                self._bound[0] = max(self._bound[0], np.abs(total).max(initial=0.0) / stamp)
