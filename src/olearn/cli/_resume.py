"""``olearn run -i/-t/-p``: resuming a saved model, testing it frozen, writing one prediction per line."""

import sys

import click
import numpy as np

from ._learners import ALGORITHMS, _option_name
from ._output import OutputFile


def algorithm_of(model):
    """The ``--algo`` name of a loaded model: its class, and the settings that pick a variant (arow or arow-full)."""
    params = model.get_params()
    for name, (class_name, fixed) in ALGORITHMS.items():
        if type(model).__name__ == class_name and all(params.get(k) == v for k, v in fixed.items()):
            return name
    return None


def resumed_model(model_path, algo, hyperparameters, fit_intercept, n_features, scale=None):
    """The model of ``-i MODEL`` and its ``--algo`` name; a given option that contradicts it is a usage error.

    The algorithm, every hyperparameter and the ``--scale`` come from the
    model: an option may repeat the model's value, never change it, since the
    learned state was made with it (a new step size would not continue the
    same run). A scaled model comes back whole, its scaler's statistics too.
    """
    import olearn

    from ._scaling import check_resumed_scale, learner_of

    model = olearn.load(model_path)
    check_resumed_scale(model, model_path, scale)
    learner = learner_of(model)
    name = algorithm_of(learner)
    if name is None:
        raise click.UsageError(f"-i {model_path}: a {type(learner).__name__} model, which 'olearn run' has no --algo "
                               "for: continue it with the library (olearn.run or partial_fit)")
    if algo is not None and algo != name:
        raise click.UsageError(f"--algo {algo} contradicts -i {model_path}, a model of --algo {name}: drop --algo "
                               "(a resumed model keeps its algorithm)")
    params = learner.get_params()
    given = dict(hyperparameters)
    for key, value in (("fit_intercept", fit_intercept), ("n_features", n_features)):
        if value is not None:
            given[key] = value
    for key, value in given.items():
        if key not in params:
            raise click.UsageError(f"{_given(key, value)} does not apply to -i {model_path}, a model of --algo {name}")
        if not _same(params[key], value):
            raise click.UsageError(f"{_given(key, value)} contradicts -i {model_path}, learned with {key}={params[key]}: "
                                   "drop it (a resumed model keeps its hyperparameters)")
    return model, name


def _given(key, value):
    """How the command line gave a setting: ``-C 0.5``, ``--set r=0.1``, ``--no-fit-intercept``."""
    if key == "fit_intercept":
        return "--fit-intercept" if value else "--no-fit-intercept"
    if key == "n_features":
        return f"--n-features {value}"
    option = _option_name(key)
    return f"{option}={value}" if option.startswith("--set") else f"{option} {value}"


def _same(saved, given):
    if isinstance(saved, float) or isinstance(given, float):
        try:
            return float(saved) == float(given)
        except (TypeError, ValueError):
            return False
    return saved == given


class FrozenResult:
    """What ``olearn run -t`` counts on one chunk: the predictions of a model that does not learn.

    Quacks like :class:`olearn.RunResult` as far as the progressive table
    and the prediction writer read it. A mistake is what the learner's run
    counts, judged on the frozen model's predictions (for a classifier a
    prediction other than the label, as ``olearn predict`` counts its
    accuracy; see :meth:`olearn.cli._tasks.Task.frozen`). A round's loss is
    the one ``olearn.run`` reports before learning the row, computed from the
    frozen model's scores and the rows' importance weights ``weight``, which
    only NAROW's and Fig. 1 AROW's loss reads (:mod:`olearn.cli._frozen_losses`;
    ``nan`` for an averaging learner, whose loss the scores do not give).
    """

    def __init__(self, model, X, y, task, weight=None):
        self.predictions, self.scores, wrong = task.frozen(model, X, y)
        self.n_rounds = int(wrong.shape[0])
        self.n_mistakes = int(wrong.sum())
        self.n_updates = 0
        self.cumulative_mistakes = np.cumsum(wrong, dtype=np.int64)
        self.losses = np.asarray(task.frozen_losses(model, X, y, self.scores, weight), dtype=np.float64)
        self.cumulative_loss = float(self.losses.sum())
        has_probabilities = task.name == "binary" and hasattr(model, "predict_proba") and self.n_rounds
        self.probabilities = model.predict_proba(X) if has_probabilities else np.empty((0, 0))


class PredictionWriter:
    """``-p FILE`` (``-`` for stdout): one line per example in input order, as the task writes its predictions.

    A binary learner writes the label, with ``raw`` its score w.x (positive
    for ``classes_[1]``); a multiclass (or cost-sensitive) learner the label,
    with ``raw`` ``class:score`` for every class known at that round,
    space-separated, in the order of ``classes_`` (sorted); a round before any
    class was known (a multiclass run's first) has an empty line, with or
    without ``raw``. A regressor writes the predicted value; a uniclass
    learner 1 (inside the ball) or -1, with ``raw`` the signed margin
    radius - ||y - w||; a multilabel learner the labels predicted relevant,
    comma-separated (an empty line for none), with ``raw`` the ranking margin
    (``inf`` with nothing to rank). With ``probabilities`` (``--link
    logistic``) a binary learner writes the probability of ``classes_[1]``
    (the larger label: +1 of -1/+1) before the example is learned.
    """

    def __init__(self, path, raw, task, probabilities=False):
        self.raw = raw
        self.task = task
        self.probabilities = probabilities
        self._out = OutputFile(path)

    @property
    def to_stdout(self):
        return self._out.to_stdout

    def write(self, result, model):
        if result.n_rounds == 0:
            return
        if self.probabilities:
            # of classes_[-1]: the larger label, +1 of -1/+1 (while one class is known, that one's, 1)
            lines = [repr(float(p)) for p in result.probabilities[:, -1]]
        else:
            lines = self.task.prediction_lines(result, model, self.raw)
        self.write_lines(lines)

    def write_lines(self, lines):
        """Write ``lines`` made already, one per example (nothing for none)."""
        if lines:
            self._out.write("\n".join(lines) + "\n")

    def close(self):
        self._out.close()


def resumed_source(model, model_path, file, fmt, zero_based, n_features, bits, chunk_size, label_column, delimiter,
                   max_classes, task):
    """FILE read as the training data of ``-i MODEL`` were, and refused if its layout is not the model's.

    The same reading and the same check as ``olearn predict``
    (:func:`olearn.cli._as_trained.source_as_trained`).
    """
    from ._as_trained import source_as_trained
    from ._scaling import learner_of
    from ._tasks import fixed_dimension

    source = source_as_trained(model, model_path, file, zero_based, bits, fmt=fmt, n_features=n_features,
                               chunk_size=chunk_size, label_column=label_column, delimiter=delimiter,
                               max_classes=max_classes, multilabel=task.multilabel,
                               unlabelled=not task.reads_labels)
    if source.format == "libsvm" and n_features is None:
        # an index past the model's fixed dimension is reported by the reader, by file, line and column
        source.n_features = fixed_dimension(learner_of(model), task)
    return source


def echo_stderr(line):
    """A table row on stderr, when ``-p -`` keeps stdout for the predictions."""
    print(line, file=sys.stderr)


def missing_algo():
    """The one line that answers a run without ``--algo``: olearn has no default learner (the learner decides the
    task, and Vowpal Wabbit's default, a squared-loss regression, would learn a file of classes as numbers)."""
    from ._learners import TASKS, algorithms_of

    choices = "; ".join(f"{task}: {', '.join(algorithms_of(task))}" for task in TASKS)
    return ("Missing option '--algo' / '-a' (or resume a saved model with -i MODEL): olearn has no default "
            "learner, since the learner decides the task (Vowpal Wabbit's default, a squared-loss regression, "
            "would learn a file of classes as numbers); choose it with --algo NAME (or VW's --oaa K, --binary or "
            f"--loss_function): {choices}")


def check_vw_flags(algo, initial_model, test_only, predictions, raw, save, passes, bound):
    """Usage errors among ``-a``, ``-i``, ``-t``, ``-p``, ``--raw`` and the options they exclude."""
    from ._source import check_writable

    if algo is None and initial_model is None:
        raise click.UsageError(missing_algo())
    if test_only:
        if initial_model is None:
            raise click.UsageError("-t tests a saved model without learning: give the model with -i MODEL")
        for name, value in (("-f/--save", save), ("--passes", passes if passes > 1 else None), ("--bound", bound)):
            if value:
                raise click.UsageError(f"-t learns nothing, so {name} does not apply: drop it")
    if bound and initial_model is not None:
        raise click.UsageError("--bound states the bounds of a run from a fresh learner; it does not apply to -i")
    if raw and predictions is None:
        raise click.UsageError("--raw says what -p writes: add -p FILE (or -p - for stdout)")
    if predictions is not None and predictions != "-":
        check_writable(predictions, "-p")

