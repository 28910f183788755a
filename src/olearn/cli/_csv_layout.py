"""Where a CSV file's label is, and whether a label column the user did not name can hold a classifier's labels."""

import click
import numpy as np

from ..exceptions import DataFormatError
from ._file_names import named

# a classifier's label column rarely holds more distinct values than this; more, when the label column was
# not named, suggests a feature read as the label
MAX_PLAUSIBLE_CLASSES = 32
_LABEL_NAMES = ("label", "labels", "y", "class", "target")


class CsvLayout:
    """Where a CSV file's label is and how its cells are separated (the columns counted from 1, as a user does)."""

    def __init__(self, path, label_column=None, delimiter=None, labelled=True, trained=None):
        from ..data import csv_columns

        trained = trained or {}
        self.path = path
        self.name = named(path)  # as messages name the file ("standard input" for a stream read from it)
        self.delimiter = delimiter or trained.get("delimiter", ",")
        try:
            self.header, self.n_columns = csv_columns(path, delimiter=self.delimiter)
        except DataFormatError:
            raise  # a damaged compressed file, named as such
        except ValueError as err:  # a delimiter that cannot separate numbers
            raise click.BadParameter(str(err), param_hint="'--delimiter'") from None
        # the names of the columns of a table with text columns (one-hot ``name=value``), as the training file's
        # vocabulary left them; None: a numeric file, whose columns are its cells
        self.features = trained.get("features")
        self.trained = bool(trained)
        self.defaulted = label_column is None
        self.labelled = labelled
        self.label = None
        if labelled and self.n_columns:
            if label_column is not None:
                self.label = self._column(str(label_column))
            else:
                # the training file's label column, if this file has it (else the layouts' check reports it)
                self.label = trained.get("label_column", self.n_columns)
                self.label = self.label if self.label <= self.n_columns else None

    def _column(self, text):
        if text.strip().lstrip("+").isdigit():
            number = int(text)
            if not 1 <= number <= self.n_columns:
                raise click.BadParameter(f"{text}: {self.name} has columns 1 to {self.n_columns}",
                                         param_hint="'--label-column'")
            return number
        if self.header is None or text not in self.header:
            found = "has no header" if self.header is None else f"names the columns {', '.join(self.header)}"
            raise click.BadParameter(f"{text!r} is neither a column number nor a column name: {self.name} {found}",
                                     param_hint="'--label-column'")
        return self.header.index(text) + 1

    def describe(self, number=None):
        """``column 3 ('price')``: a column as the file numbers and names it."""
        number = self.label if number is None else number
        name = f" ({self.header[number - 1]!r})" if self.header else ""
        return f"column {number}{name}"

    def info(self):
        """The model metadata's ``csv`` entry."""
        info = {"label_column": self.label, "delimiter": self.delimiter, "n_columns": self.n_columns,
                "header": self.header}
        if self.features is not None:
            info["features"] = self.features
        return info

    def load(self, learning):
        """(X, y) of the file: its numeric cells as they are, or, if a column holds text (or the training file
        had one), every column named by the header, a text column's values one-hot as ``name=value``."""
        from ..data import load_csv

        label = None if self.label is None else self.label - 1
        if self.features is None:
            try:
                return load_csv(self.path, label_column=label, delimiter=self.delimiter)
            except DataFormatError as err:
                from ..data import _io, csv_text_columns

                if _io.once_input(self.path) is not None:  # read once: its text cannot be read again as a table
                    raise DataFormatError(f"{err.message}; a CSV file with text columns (categories) is read from a "
                                          "file, not from a stream: save the stream to a file first", err.path,
                                          err.line, err.column) from None
                text = csv_text_columns(self.path, label, self.delimiter)
                if not text:
                    raise
                if self.trained:
                    raise DataFormatError(f"column {text[0] + 1} holds text, and the model was trained on a CSV file "
                                          "of numbers, whose columns are its cells", self.path) from None
                if self.header is None:
                    raise DataFormatError(f"column {text[0] + 1} holds text, read as categories named by the header "
                                          "(name=value), and the file has no header: add a line naming the columns",
                                          self.path) from None
        from .._features import FeatureMap
        from ..data import load_csv_table

        X, y, features = load_csv_table(self.path, label, self.delimiter, FeatureMap(names=self.features or ()),
                                        learning)
        self.features = list(features.vocabulary())
        return X, y

    def check_labels(self, y, max_classes):
        """Refuse a label column the user did not name that cannot hold a classifier's labels (``max_classes``
        None: a regressor's targets, any real values, checked only against a header that names another column)."""
        if not self.defaulted or y is None or y.size == 0:
            return
        fix = "name the label column with --label-column N|NAME"
        if self.header:
            label_like = [k for k, name in enumerate(self.header, 1) if name.strip().lower() in _LABEL_NAMES]
            if label_like and self.label not in label_like:
                raise click.UsageError(
                    f"{self.name}: the label is read from the last column, {self.describe()}, but "
                    f"{self.describe(label_like[0])} looks like the label: {fix} (e.g. --label-column {label_like[0]})")
        if max_classes is None:
            return  # any real value is a target
        values = np.unique(y)
        where = f"{self.name}: the label is read from the last column, {self.describe()}, which holds"
        if not np.all(values == np.round(values)):
            odd = values[values != np.round(values)][0]
            raise click.UsageError(f"{where} non-integer values (such as {odd:g}), not class labels: {fix}")
        if values.size == 1:
            raise click.UsageError(f"{where} the single value {values[0]:g} on every row, nothing to learn: {fix}")
        if values.size > max_classes:
            multiclass = (f"; or, if it is the label of {values.size} classes, learn them with a multiclass "
                          "learner (e.g. --algo pa1-multiclass, or --oaa K for labels 1..K)") if max_classes == 2 else ""
            raise click.UsageError(f"{where} {values.size} distinct values, more than the {max_classes} classes "
                                   f"expected: {fix} (naming it, even as --label-column {self.label}, accepts it)"
                                   f"{multiclass}")
