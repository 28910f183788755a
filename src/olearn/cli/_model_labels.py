"""``olearn predict``, ``run -i -t``: labels of FILE the model cannot have, refused or reported, not scored
silently.

A binary model predicts one of its two classes, so a label outside them (a
0/1 model on a -1/+1 file) makes every accuracy meaningless: refused, naming
the row's line. A multiclass model may meet a class it never learned (a test
file's rare class), so such labels are counted and reported in a warning
after the score. A regression model on labels that are all two classes
(-1/1 or 0/1) is reported likewise: its MAE measures values against classes.
"""

import click
import numpy as np

from ._tasks import format_labels

_TWO_CLASSES = ({-1.0, 1.0}, {0.0, 1.0})
# a label 0 for a model of the classes -1 and 1: the file of 0/1 labels a model learned with --binary read as signs
_SIGNS_HINT = (", or read them as their signs as --binary does when it learns: "
               "olearn run -i {} -t --binary -p PREDICTIONS FILE")


class ModelLabels:
    """Checks each chunk's labels against ``model`` (of ``task``), then warns about what it could not refuse."""

    def __init__(self, model, model_path, task):
        self.model, self.model_path, self.task = model, model_path, task
        self.classes = np.asarray(getattr(model, "classes_", []))
        self.foreign = 0  # multiclass: labels that are none of the classes
        self.foreign_values = set()
        self.values = set()  # regression: the distinct labels, while at most two
        self.labelled = 0

    def check(self, y):
        """Refuse (ValueError naming ``row i`` of the chunk) or count the labels of ``y`` the model cannot have."""
        if y is None or self.task.name not in ("binary", "multiclass", "regression"):
            return
        y = np.asarray(y)
        if y.dtype.kind == "f":
            y = y[~np.isnan(y)]
        self.labelled += y.shape[0]
        if self.task.name == "regression":
            if len(self.values) <= 2:  # past two, the file is no file of two classes
                self.values.update(np.unique(y).tolist())
            return
        if len(self.classes) < 2:
            return
        outside = ~np.isin(y, self.classes)
        if not outside.any():
            return
        if self.task.name == "binary":
            i = int(np.flatnonzero(outside)[0])
            signs = self.classes.tolist() == [-1.0, 1.0] and y[i] == 0
            raise ValueError(
                f"row {i} has the label {format_labels(y[i:i + 1])[0]}, and {self.model_path} is a binary model of "
                f"the classes {' '.join(format_labels(self.classes))}: it can predict no other label, so its "
                f"accuracy on this file would be meaningless; recode the labels as the training data's"
                f"{_SIGNS_HINT.format(self.model_path) if signs else ''}")
        self.foreign += int(outside.sum())
        self.foreign_values.update(np.unique(y[outside])[:5].tolist())

    def add(self, other):
        """Count the labels ``other`` checked (another part of the same data, against the same model) as well."""
        self.foreign += other.foreign
        self.foreign_values |= other.foreign_values
        self.values |= other.values
        self.labelled += other.labelled

    def warn(self, path):
        """The warning, on stderr, about labels the model was checked against and that were not refused."""
        if self.foreign:
            shown = " ".join(format_labels(sorted(self.foreign_values)[:5]))
            click.echo(f"olearn: warning: {self.foreign} of {self.labelled} labels of {path} (such as {shown}) are "
                       f"none of the classes of {self.model_path} ({' '.join(format_labels(self.classes))}): the "
                       "model can never predict them, and the accuracy counts them as mistakes", err=True)
        if self.task.name == "regression" and self.labelled and self.values in _TWO_CLASSES:
            two = " or ".join(format_labels(sorted(self.values)))
            click.echo(f"olearn: warning: every label of {path} is {two}, as in a file of two classes, and "
                       f"{self.model_path} is a regression model: MAE and RMSE compare its values with class "
                       "labels", err=True)


class RelabelledSource:
    """A command's source whose chunks' labels pass through ``relabel(y)`` first, called with the errors it raises
    about "row i" named by the file's line (the source's :meth:`locating`); everything else is the source's."""

    def __init__(self, source, relabel):
        self._source, self._relabel = source, relabel

    def __getattr__(self, name):
        return getattr(self._source, name)

    def chunks(self):
        first = 0
        for X, y, weight in self._source.chunks():
            with self._source.locating(first):
                y = self._relabel(y)
            first += X.shape[0]
            yield X, y, weight

    def load(self):
        X, y, weight = self._source.load()
        with self._source.locating(0):
            return X, self._relabel(y), weight


def checked(source, labels):
    """``source`` whose labels ``labels`` (a :class:`ModelLabels`) checks as they are read."""

    def check(y):
        labels.check(y)
        return y

    return RelabelledSource(source, check)
