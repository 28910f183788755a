"""The saved state of :class:`~olearn.multilabel.PAMultilabel` (:mod:`olearn._persistence`)."""

import numpy as np

from .._averaging import averaging_relation, interleaved
from .._kernels import _multilabel as K
from .._kernels._codes import N_AVERAGING
from .._state_schema import LABELS, Array, Count, StateSchema, distinct, entry_is
from ._labels import label_array


class SavedState:
    """The persistence hooks of :class:`~olearn.multilabel.PAMultilabel`."""

    def _state_schema(self):
        """The saved state: a weight vector per label (the intercept's last), the distinct labels and the
        kernel's count of them; with ``average``, the averaging correction of the weights and the rounds."""
        return StateSchema(
            scalars={"n_features_in": Count("n_features_in")},
            arrays={
                "weights": Array("float64", ("n_labels", "n_features_in+1")),
                "labels": Array(LABELS, ("n_labels",)),
                "state": Array("int64", (K.N_MULTILABEL_STATE,)),
                "average_correction": Array("float64", ("n_labels", "n_features_in+1")),
                "averaging": Array("int64", (N_AVERAGING,)),
            },
            relations=[
                distinct("labels"), entry_is("state", K.M_ACTIVE, "n_labels"),
                averaging_relation(self, {"average_correction": "weights"}, "averaging"),
            ],
            limits=self._width_limits(),
            optional=("average_correction", "averaging"),
        )

    def _get_state(self):
        self._check_started()
        if self._uses_map:
            raise ValueError(
                f"{type(self).__name__}: a model with a feature_map cannot be saved portably (the feature_map is "
                "Python code); use pickle instead"
            )
        arrays = {"weights": self._saved_columns(self._W), "labels": label_array(self._labels.labels),
                  "state": self._state}
        if self._averages:
            arrays["average_correction"] = self._saved_columns(self._U)
            arrays["averaging"] = self._averaging
        return arrays, {"n_features_in": self.n_features_in_}

    def _saved_columns(self, W):
        """The columns of the features seen and the intercept's."""
        return np.hstack([W[:, : self.n_features_in_], W[:, -1:]])

    def _set_state(self, arrays, state):
        self._start()
        if "averaging" in arrays:
            # read straight into the records of W and U side by side (the layout of _interleave): one copy of each
            self._W, self._U = interleaved(arrays["weights"], arrays["average_correction"])
            self._averaging = np.array(arrays["averaging"], dtype=np.int64)
        else:
            self._W = np.array(arrays["weights"], dtype=np.float64)
        self._state = np.array(arrays["state"], dtype=np.int64)
        self._labels.set_labels(arrays["labels"].tolist())
        self.n_features_in_ = int(state["n_features_in"])
        self.classes_ = self._labels.classes
