"""``--costs FILE``: the cost matrix of the cost-sensitive learners, read and checked.

The file is text: blank lines and lines starting with ``#`` are skipped; the
first other line lists the k labels, separated by spaces (or tabs); then come
k lines of k costs each, one line per true label in the order of the header,
one column per predicted label in the same order. Costs are finite numbers
>= 0, and 0 on the diagonal (a right prediction costs nothing). Example, where
predicting 3 for 1 costs 4::

    # true \\ predicted
    1 2 3
    0 1 4
    1 0 1
    4 1 0

Every label of the data must be one of the header's labels.
"""

import math

import numpy as np

from ..exceptions import DataFormatError
from ._learners import parse_value


class Costs:
    """The labels of a cost file (sorted) and its matrix over them, as PACostSensitive's ``cost`` wants it.

    ``origin`` names where they come from in messages: the cost file, or the model that holds them.
    """

    def __init__(self, origin, labels, matrix):
        self.origin = origin
        self.labels = np.asarray(labels)  # sorted
        self.matrix = matrix  # list of lists, rows and columns in the order of ``labels``

    @classmethod
    def of_model(cls, model, path):
        """The costs a saved cost-sensitive model learned with (its classes are the labels)."""
        return cls(f"the costs of the model {path}", model.classes_, model.get_params()["cost"])

    def check_labels(self, y):
        """Raise a ValueError naming the first row of ``y`` (0-based, as ``row i``) whose label is not listed."""
        unknown = np.flatnonzero(~np.isin(np.asarray(y), self.labels))
        if unknown.size:
            i = int(unknown[0])
            raise ValueError(f"row {i} has the label {y[i]:g}, which {self.origin} do not list "
                             f"(their labels: {' '.join(f'{label:g}' for label in self.labels)})")


def read_costs(path):
    """The :class:`Costs` of the file at ``path``; a malformed file is a DataFormatError naming its line."""
    lines = []
    with open(path, encoding="utf-8-sig") as f:  # a leading BOM skipped, as the data readers do
        for number, line in enumerate(f, start=1):
            text = line.strip()
            if text and not text.startswith("#"):
                lines.append((number, text.split()))
    if not lines:
        raise DataFormatError("a cost file needs a line of labels and one line of costs per label; this one is "
                              "empty", path)
    number, header = lines[0]
    labels = []
    for column, token in enumerate(header, start=1):
        value = parse_value(token)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise DataFormatError(f"the first line lists the labels, numbers as in the data; found {token!r} "
                                  f"(entry {column})", path, number)
        if float(value) in labels:
            raise DataFormatError(f"the label {token} is listed twice (entry {column})", path, number)
        labels.append(float(value))
    k = len(labels)
    if k < 2:
        raise DataFormatError(f"the first line lists {k} label; a cost matrix needs at least 2", path, number)
    rows = lines[1:]
    if len(rows) != k:
        where = rows[k][0] if len(rows) > k else (rows[-1][0] if rows else number)
        raise DataFormatError(f"{len(rows)} lines of costs for the {k} labels of line {number}; expected {k}, one "
                              "per true label", path, where)
    matrix = np.empty((k, k))
    for i, (number, tokens) in enumerate(rows):
        if len(tokens) != k:
            raise DataFormatError(f"{len(tokens)} costs on the line of label {labels[i]:g}; expected {k}, one per "
                                  "predicted label", path, number)
        for j, token in enumerate(tokens):
            try:
                cost = float(token)
            except ValueError:
                cost = math.nan
            if not (math.isfinite(cost) and cost >= 0):
                raise DataFormatError(f"cost {token!r} (entry {j + 1}): costs are finite numbers >= 0", path,
                                      number)
            if i == j and cost != 0:
                raise DataFormatError(f"cost {token} (entry {j + 1}) of predicting {labels[i]:g} for {labels[i]:g}: "
                                      "a right prediction costs 0", path, number)
            matrix[i, j] = cost
    order = np.argsort(labels)
    return Costs(f"the costs of {path}", np.asarray(labels)[order], matrix[np.ix_(order, order)].tolist())
