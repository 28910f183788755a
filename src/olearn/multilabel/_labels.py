"""Sets of relevant labels: reading them, and indexing the labels for the kernel.

Labels come either as one collection per row (list, tuple, set, frozenset or a
1-d array of label names, as :func:`olearn.data.load_libsvm` gives them with
``multilabel=True``) or as a binary indicator matrix (a 2-d NumPy array or a
sparse matrix) whose columns are the labels of ``classes_`` in order. The
kernel indexes labels in order of first appearance; ``classes_`` lists them
sorted, as scikit-learn's ``MultiLabelBinarizer`` does.
"""

import math
import numbers

import numpy as np
import scipy.sparse as sp

from .._labels import plain_label


def _is_indicator(y):
    return sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2)


def _sorted(labels, owner):
    try:
        return sorted(labels)
    except TypeError:
        shown = ", ".join(repr(plain_label(label)) for label in list(labels)[:4])
        raise ValueError(f"{owner}: labels must be mutually comparable to be sorted into classes_; got {shown}") from None


def _check_label(label, where, owner):
    try:
        hash(label)
    except TypeError:
        raise ValueError(f"{owner}: label {label!r} in the labels of {where} is not hashable") from None
    if isinstance(label, numbers.Real) and not isinstance(label, numbers.Integral) and math.isnan(label):
        raise ValueError(f"{owner}: the labels of {where} contain nan; expected label names")
    return plain_label(label)


def label_collection(labels, where, owner):
    """The distinct labels of one example (``where``: "row 3", "this example"), as a list in a deterministic order."""
    if isinstance(labels, np.ndarray) and labels.ndim == 1:
        labels = labels.tolist()
    if not isinstance(labels, (list, tuple, set, frozenset)):
        raise ValueError(
            f"{owner}: the labels of {where} must be a collection (list, tuple, set) of relevant labels; "
            f"got {labels!r} ({type(labels).__name__}). One label per row is written [label]; an indicator "
            "matrix must be a 2-d NumPy array or a sparse matrix"
        )
    distinct = dict.fromkeys(_check_label(label, where, owner) for label in labels)
    return _sorted(distinct, owner) if len(distinct) > 1 else list(distinct)


def indicator_rows(y, n_rows, owner):
    """A binary indicator matrix as CSR with sorted columns, checked to hold only 0 and 1."""
    Y = sp.csr_matrix(y) if sp.issparse(y) else None
    if Y is None:
        try:
            dense = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{owner}: the indicator matrix y could not be read as numbers: {err}") from None
        bad = ~np.isin(dense, (0.0, 1.0))
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(
                f"{owner}: the indicator matrix y has {dense[row, col]} at row {row}, column {col}; expected 0 or 1"
            )
        Y = sp.csr_matrix(dense)
    else:
        Y = Y.astype(np.float64)
        Y.sum_duplicates()
        bad = ~np.isin(Y.data, (0.0, 1.0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            row = int(np.searchsorted(Y.indptr, k, side="right") - 1)
            raise ValueError(
                f"{owner}: the indicator matrix y has {Y.data[k]} at row {row}, column {Y.indices[k]}; expected 0 or 1"
            )
        Y.eliminate_zeros()
    if Y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but the indicator matrix y has {Y.shape[0]}")
    Y.eliminate_zeros()
    Y.sort_indices()
    return Y


def label_array(labels):
    """A 1-d array of the labels (an object array when NumPy would make it 2-d, e.g. for tuples)."""
    array = np.array(labels) if labels else np.empty(0)
    if array.ndim != 1 or array.size != len(labels):
        array = np.empty(len(labels), dtype=object)
        array[:] = labels
    return array


class LabelIndex:
    """Every label known, indexed in order of first appearance, and its sorted view ``classes``."""

    def __init__(self, owner):
        self.owner = owner
        self.labels = []
        self.index = {}
        self._sorted = None

    def __len__(self):
        return len(self.labels)

    def add(self, labels):
        """Index the labels not known yet, in the order given.

        The new labels are checked to sort with the known ones before any is
        added, so that a refused label leaves the index as it was.
        """
        new = [label for label in dict.fromkeys(labels) if label not in self.index]
        if not new:
            return
        names = _sorted([*self.labels, *new], self.owner)
        for label in new:
            self.index[label] = len(self.labels)
            self.labels.append(label)
        self._sorted = None
        self._view(names)

    def truncate(self, n):
        """Forget the labels from the ``n``-th on (in order of first appearance)."""
        for label in self.labels[n:]:
            del self.index[label]
        del self.labels[n:]
        self._sorted = None
        self._view()

    def declare(self, classes):
        """The labels of ``classes=``, sorted among themselves."""
        if isinstance(classes, (str, bytes)) or not hasattr(classes, "__iter__"):
            raise ValueError(f"{self.owner}: classes must be a collection of labels; got {classes!r}")
        self.add(label_collection(list(classes), "classes=", self.owner))

    def _view(self, names=None):
        if self._sorted is None:
            if names is None:
                names = _sorted(self.labels, self.owner)
            order = np.array([self.index[label] for label in names], dtype=np.int64)
            self._sorted = (label_array(names), order)
        return self._sorted

    @property
    def classes(self):
        """The labels, sorted."""
        return self._view()[0]

    @property
    def order(self):
        """order[j] is the kernel's index of ``classes[j]``."""
        return self._view()[1]

    def encode_sets(self, rows):
        """(label_ptr, labels) of label collections whose labels are all indexed."""
        label_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        flat = []
        for i, row in enumerate(rows):
            flat.extend(self.index[label] for label in row)
            label_ptr[i + 1] = len(flat)
        return label_ptr, np.array(flat, dtype=np.int64)

    def encode_indicator(self, Y):
        """(label_ptr, labels) of an indicator matrix whose columns are ``classes`` in order."""
        if Y.shape[1] != len(self.labels):
            known = ", ".join(repr(plain_label(c)) for c in self.classes[:6]) + (", ..." if len(self) > 6 else "")
            raise ValueError(
                f"{self.owner}: the indicator matrix y has {Y.shape[1]} columns, but {len(self)} labels are known "
                f"(classes_: [{known}]); its columns must be classes_ in order"
            )
        return Y.indptr.astype(np.int64), self.order[Y.indices]

    def set_labels(self, labels):
        """Restore the labels in the kernel's order (loading a saved model)."""
        self.labels = []
        self.index = {}
        self._sorted = None
        self.add([plain_label(label) for label in labels])
        if len(self.labels) != len(labels):
            raise ValueError("the saved labels are not distinct")


def read_label_rows(y, n_rows, owner):
    """('indicator', CSR matrix) or ('sets', list of label lists) for the labels of n_rows rows."""
    if y is None:
        raise ValueError(
            f"{owner}: y is missing: give the relevant labels of each row of X (it requires y to be passed, but the "
            "target y is None)"
        )
    if not isinstance(y, (np.ndarray, list, tuple)) and not sp.issparse(y) and hasattr(y, "__array__"):
        # a DataFrame or another array-like: its array (an indicator matrix when 2-d)
        y = np.asarray(y)
    if _is_indicator(y):
        return "indicator", indicator_rows(y, n_rows, owner)
    if isinstance(y, np.ndarray) and (y.ndim != 1 or y.dtype != object):
        first = y.ravel()[0] if y.size else y
        raise ValueError(
            f"{owner}: y must hold one collection of labels per row (or be a 2-d indicator matrix); got an "
            f"array of shape {y.shape} whose rows are single values such as {plain_label(first)!r}; "
            "one label per row is written [label]"
        )
    if isinstance(y, (str, bytes)) or not hasattr(y, "__len__"):
        raise ValueError(f"{owner}: y must be a sequence of label collections, one per row; got {y!r}")
    if len(y) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {len(y)} label sets")
    return "sets", [label_collection(row, f"row {i}", owner) for i, row in enumerate(y)]


def ranking_margins(scores, classes, y):
    """Lowest relevant minus highest irrelevant score of each row (inf with nothing to rank), as the learner's run.

    A relevant label the model does not know scores 0, as a label that
    arrives in a run is given a prototype of zeros before its round is
    predicted.
    """
    classes = list(np.asarray(classes).tolist())
    margins = np.full(scores.shape[0], np.inf)
    for i, labels in enumerate(y):
        relevant = set(labels)
        known = [j for j, c in enumerate(classes) if c in relevant]
        low = min([scores[i, j] for j in known] + ([0.0] if len(known) < len(relevant) else []), default=None)
        irrelevant = [scores[i, j] for j, c in enumerate(classes) if c not in relevant]
        if low is not None and irrelevant:
            margins[i] = low - max(irrelevant)
    return margins
