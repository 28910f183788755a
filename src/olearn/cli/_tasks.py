"""What each task of the command line measures and writes: the table's columns, the predictions, the summary.

One :class:`Task` per task of :data:`olearn.cli._learners.TASKS`; the
commands ask :func:`task_named` or :func:`task_of_model` for it and never
test a task's name themselves. A round's *mistake* is what
:class:`olearn.RunResult` counts for the learner (for a uniclass learner, a
vector outside the ball; for a multilabel one, a ranking that puts an
irrelevant label at or above a relevant one; a regressor makes none); the
other columns are computed here from the rounds' predictions and labels.
"""

import math

import numpy as np

from ._frozen_losses import binary_losses, multiclass_losses, multilabel_losses, regression_losses, uniclass_losses
from ._scaling import learner_of

_COLUMNS = f"{'examples':>12} {{:>12}} {{:>13}} {{:>13}} {{:>11}}"


def format_labels(labels):
    """One text label per prediction: integral floats print as integers (``1`` and ``-1``, not ``1.0``)."""
    labels = np.asarray(labels)
    if labels.dtype.kind == "f" and np.all(np.isfinite(labels)) and np.all(labels == np.round(labels)):
        labels = labels.astype(np.int64)
    return [str(label) for label in labels.tolist()]


class Task:
    """Binary and multiclass classification: mistakes, mistake rate, average loss, mistake rate since last row."""

    name = "binary"
    reads_labels = True  # False: the rows themselves are the examples (uniclass)
    multilabel = False  # labels are comma-separated sets (LIBSVM only)
    mistakes_name = "mistakes"
    rate_name = "mistake rate"
    counts_mistakes = True  # False: the learner makes none (regression)
    n_extras = 0  # per-round quantities summed besides the mistakes and the loss

    def header(self):
        return _COLUMNS.format(self.mistakes_name, self.rate_name, "average loss", "since last")

    def extras(self, result, y, model):
        """(n, n_extras) per-round quantities of ``result`` whose sums the table keeps."""
        return np.empty((result.n_rounds, 0))

    def row(self, examples, mistakes, loss, extras, last):
        """A table row; ``last`` is (examples, mistakes, extras) at the previous row."""
        since = (mistakes - last[1]) / (examples - last[0])
        return f"{examples:>12d} {mistakes:>12d} {mistakes / examples:>13.6f} {loss / examples:>13.6f} {since:>11.6f}"

    def summary(self, examples, mistakes, loss, extras):
        """(name, value) items of the closing summary and of ``olearn compare``'s table (value a number)."""
        rate = mistakes / examples if examples else 0.0
        return [(self.mistakes_name, mistakes), (self.rate_name, rate),
                ("average loss", loss / examples if examples else 0.0)]

    # -- the held-out rows of a multi-pass run (olearn.cli._holdout) ------------------------------------------

    # a task whose held-out rows are measured by sums (a regressor's errors and losses: RegressionTask) rather
    # than by their mistakes has n_held_out_sums > 0, held_out_sums(model, y, predictions), the (n, n_held_out_sums)
    # quantities of n held-out rows, and held_out_items(examples, sums), the (name, value) their lines report
    n_held_out_sums = 0

    # -- predictions of a model that does not learn (run -t, held-out rows, predict) --------------------------

    def frozen(self, model, X, y):
        """(predictions, scores, mistake of each row) of ``model`` on X, as the learner's run would count them."""
        predictions = model.predict(X)
        wrong = np.asarray(predictions != np.asarray(y), dtype=bool)
        return predictions, model.decision_function(X), wrong

    def frozen_losses(self, model, X, y, scores, weight):
        """The loss ``olearn.run`` would report for each row of X, :meth:`frozen`'s ``scores`` its scores, ``weight``
        the rows' importance weights (None: all 1; see :mod:`olearn.cli._frozen_losses`)."""
        return binary_losses(model, X, scores, y, weight)

    # -- the lines of -p and of olearn predict ----------------------------------------------------------------

    def check_raw(self):
        """None if ``-p --raw`` applies; else why not."""
        return None

    def prediction_lines(self, result, model, raw):
        """One ``-p`` line per round of ``result`` (a RunResult or a frozen one) of ``model``."""
        return _raw_lines(result.scores, model) if raw else _label_lines(result)

    def predict_lines(self, model, X):
        """(lines, predictions) of ``olearn predict`` on X."""
        predictions = model.predict(X)
        return format_labels(predictions), predictions

    def predict_score(self, model, predictions, y):
        """(sums, count) of what ``olearn predict`` reports about the rows with labels."""
        y = np.asarray(y)
        known = ~np.isnan(y) if y.dtype.kind == "f" else np.ones(y.shape, dtype=bool)
        return np.array([int((predictions[known] == y[known]).sum())]), int(known.sum())

    def predict_report(self, sums, count):
        return f"accuracy: {sums[0] / count:.6f} ({int(sums[0])}/{count} correct)"


class MulticlassTask(Task):
    name = "multiclass"

    def frozen(self, model, X, y):
        return _frozen_classes(model, X, y)

    def frozen_losses(self, model, X, y, scores, weight):
        return multiclass_losses(model, scores, y)


class CostSensitiveTask(Task):
    """Cost-sensitive multiclass: the average cost of the predicted labels is one more column."""

    name = "cost-sensitive"
    n_extras = 1

    def header(self):
        return (f"{'examples':>12} {'mistakes':>12} {'mistake rate':>13} {'average cost':>13} {'average loss':>13} "
                f"{'since last':>11}")

    def extras(self, result, y, model):
        return self.costs(model, y, result.predictions)[:, None]

    def frozen(self, model, X, y):
        return _frozen_classes(model, X, y)

    def frozen_losses(self, model, X, y, scores, weight):
        return multiclass_losses(model, scores, y)

    @staticmethod
    def costs(model, y, predictions):
        """rho(y, prediction) of each row, from the model's cost matrix over its sorted classes (0/1 without one)."""
        y, predictions = np.asarray(y), np.asarray(predictions)
        cost = model.get_params()["cost"]
        if cost is None:
            return (y != predictions).astype(np.float64)
        classes = np.asarray(model.classes_)
        matrix = np.asarray(cost, dtype=np.float64)
        return matrix[np.searchsorted(classes, y), np.searchsorted(classes, predictions)]

    def row(self, examples, mistakes, loss, extras, last):
        since = (mistakes - last[1]) / (examples - last[0])
        return (f"{examples:>12d} {mistakes:>12d} {mistakes / examples:>13.6f} {extras[0] / examples:>13.6f} "
                f"{loss / examples:>13.6f} {since:>11.6f}")

    def summary(self, examples, mistakes, loss, extras):
        items = super().summary(examples, mistakes, loss, extras)
        return [*items[:2], ("average cost", extras[0] / examples if examples else 0.0), items[2]]

    def predict_score(self, model, predictions, y):
        y = np.asarray(y)
        known = ~np.isnan(y)
        # a label the costs do not list has no cost: the average is over the rows whose label they list
        listed = known & (np.isin(y, model.classes_) if model.get_params()["cost"] is not None else True)
        cost = self.costs(model, y[listed], predictions[listed]).sum()
        return (np.array([int((predictions[known] == y[known]).sum()), cost, int(listed.sum())]),
                int(known.sum()))

    def predict_report(self, sums, count):
        accuracy = super().predict_report(sums, count)
        if not sums[2]:
            return f"{accuracy}; no label is one of the costs' labels, so no cost is given"
        rows = "" if sums[2] == count else f" (over the {int(sums[2])} examples whose label the costs list)"
        return f"{accuracy}, average cost: {sums[1] / sums[2]:.6f}{rows}"


class RegressionTask(Task):
    """Regression: mean absolute and root mean squared error of the predictions so far, MAE since the last row."""

    name = "regression"
    counts_mistakes = False
    n_extras = 2

    def header(self):
        return _COLUMNS.format("MAE", "RMSE", "average loss", "since last")

    def extras(self, result, y, model):
        error = np.asarray(result.predictions, dtype=np.float64) - np.asarray(y, dtype=np.float64)
        return np.column_stack([np.abs(error), error * error])

    def row(self, examples, mistakes, loss, extras, last):
        since = (extras[0] - last[2][0]) / (examples - last[0])
        return (f"{examples:>12d} {extras[0] / examples:>12.6f} {math.sqrt(extras[1] / examples):>13.6f} "
                f"{loss / examples:>13.6f} {since:>11.6f}")

    def summary(self, examples, mistakes, loss, extras):
        n = examples if examples else 1
        return [("MAE", extras[0] / n), ("RMSE", math.sqrt(extras[1] / n)), ("average loss", loss / n)]

    n_held_out_sums = 3

    def held_out_sums(self, model, y, predictions):
        """|error|, error^2 and the learner's loss of each held-out row: PARegressor's epsilon-insensitive
        max(0, |y - prediction| - epsilon) (Crammer et al. 2006, Sec. 5), that of the table's average loss."""
        error = np.asarray(predictions, dtype=np.float64) - np.asarray(y, dtype=np.float64)
        absolute = np.abs(error)
        return np.column_stack([absolute, error * error, np.maximum(absolute - learner_of(model).epsilon, 0.0)])

    def held_out_items(self, examples, sums):
        n = examples if examples else 1
        return [("MAE", sums[0] / n), ("RMSE", math.sqrt(sums[1] / n)), ("loss", sums[2] / n)]

    def frozen(self, model, X, y):
        predictions = model.predict(X)
        return predictions, predictions, np.zeros(predictions.shape[0], dtype=bool)

    def frozen_losses(self, model, X, y, scores, weight):
        return regression_losses(model, scores, y)

    def check_raw(self):
        return "a regressor's prediction is its raw score already"

    def prediction_lines(self, result, model, raw):
        return [repr(float(v)) for v in np.asarray(result.predictions, dtype=np.float64)]

    def predict_lines(self, model, X):
        predictions = model.predict(X)
        return [repr(float(v)) for v in predictions], predictions

    def predict_score(self, model, predictions, y):
        y = np.asarray(y, dtype=np.float64)
        known = ~np.isnan(y)
        error = predictions[known] - y[known]
        return np.array([np.abs(error).sum(), (error * error).sum()]), int(known.sum())

    def predict_report(self, sums, count):
        return f"MAE: {sums[0] / count:.6f}, RMSE: {math.sqrt(sums[1] / count):.6f} ({count} examples with labels)"


class UniclassTask(Task):
    """Uniclass: the vectors that fell outside the ball (the learner's mistakes), their rate, the average loss."""

    name = "uniclass"
    reads_labels = False
    mistakes_name = "outside"
    rate_name = "outside rate"

    def frozen(self, model, X, y):
        scores = model.decision_function(X)
        predictions = np.where(scores >= 0.0, 1, -1)
        return predictions, scores, predictions < 0

    def frozen_losses(self, model, X, y, scores, weight):
        return uniclass_losses(model, scores)

    def prediction_lines(self, result, model, raw):
        if raw:
            return [repr(float(s)) for s in np.asarray(result.scores, dtype=np.float64)]
        return format_labels(result.predictions)

    def predict_score(self, model, predictions, y):
        return np.array([int((predictions < 0).sum())]), int(predictions.shape[0])

    def predict_report(self, sums, count):
        return f"outside the ball: {sums[0] / count:.6f} ({int(sums[0])}/{count} vectors)"


class MultilabelTask(Task):
    """Multilabel: rounds whose ranking is not perfect (the learner's mistakes), their rate, the average loss."""

    name = "multilabel"
    multilabel = True

    def frozen(self, model, X, y):
        from ..multilabel._labels import ranking_margins  # here: only a multilabel run loads the multilabel learner

        scores = model.decision_function(X)
        margins = ranking_margins(scores, model.classes_, y)
        return scores > 0.0, margins, margins <= 0.0

    def frozen_losses(self, model, X, y, scores, weight):
        return multilabel_losses(model, scores)

    def prediction_lines(self, result, model, raw):
        if raw:
            return [repr(float(s)) for s in np.asarray(result.scores, dtype=np.float64)]
        return _label_sets(result.predictions, model.classes_)

    def predict_lines(self, model, X):
        predictions = model.predict(X).astype(bool)
        return _label_sets(predictions, model.classes_), predictions

    def predict_score(self, model, predictions, y):
        predicted = [set(labels.split(",")) - {""} for labels in _label_sets(predictions, model.classes_)]
        exact = sum(found == {str(label) for label in labels} for found, labels in zip(predicted, y))
        return np.array([exact]), len(y)

    def predict_report(self, sums, count):
        return f"exact match: {sums[0] / count:.6f} ({int(sums[0])}/{count} label sets predicted exactly)"


def _frozen_classes(model, X, y):
    """(predictions, scores, mistake of each row) of a multiclass ``model`` on X, a score per class known (the
    columns of ``classes_``) as its run records them, also while it knows two (``decision_function`` then gives
    their difference)."""
    learner = learner_of(model)
    scores = learner._class_scores(X if learner is model else model._transformed(X)[1])
    predictions = learner.classes_[np.argmax(scores, axis=1)]
    return predictions, scores, np.asarray(predictions != np.asarray(y), dtype=bool)


def _label_sets(indicator, classes):
    """The labels each row of an indicator matrix (columns as ``classes``) marks, comma-separated."""
    names = format_labels(classes)
    return [",".join(name for name, on in zip(names, row) if on) for row in np.asarray(indicator, dtype=bool)]


def _label_lines(result):
    lines = format_labels(result.predictions)
    scores = np.asarray(result.scores)
    if scores.ndim == 1:
        return lines
    # a multiclass round before any class was known predicts none (olearn.run shows classes_[0] there, a
    # mistake, and which class that is depends on how much of the stream one call of run sees)
    return ["" if np.isneginf(row).all() else line for line, row in zip(lines, scores)]


def _raw_lines(scores, model):
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        return [repr(float(s)) for s in scores]
    names = format_labels(model.classes_)
    # -inf marks a class not known yet at that round: it has no score
    return [" ".join(f"{name}:{float(s)!r}" for name, s in zip(names, row) if s != -np.inf) for row in scores]


def fixed_dimension(model, task):
    """The dimension a LIBSVM file must be read with for ``model``: its ``n_features``, or for a uniclass model
    (whose vectors all have one dimension) the dimension of its center; None: any."""
    fixed = model.get_params().get("n_features")
    if fixed is None and not task.reads_labels:
        fixed = model.n_features_in_
    return fixed


_TASKS = {task.name: task for task in (Task(), MulticlassTask(), RegressionTask(), UniclassTask(), MultilabelTask(),
                                       CostSensitiveTask())}


def task_named(name):
    return _TASKS[name]


def task_of_model(model):
    """The task of a loaded model, from its class (a PACostSensitive is cost-sensitive, whatever its costs)."""
    if type(model).__name__ == "PACostSensitive":
        return _TASKS["cost-sensitive"]
    return _TASKS.get(getattr(model, "_task", None) or "binary", _TASKS["binary"])
