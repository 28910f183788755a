"""``--link logistic``: class probabilities from the command line, as Vowpal Wabbit's ``--link logistic``."""

import click

from ._learners import ALGORITHMS, task_of

# the margin learners that learn a calibration of their scores online (``calibration="platt"``): every binary
# learner but ogd, whose logistic loss gives probabilities of its own
CALIBRATED = tuple(name for name in ALGORITHMS if task_of(name) == "binary" and name != "ogd")


def check_logistic_link(algo, task, hyperparameters, model, raw):
    """A usage error unless ``--link logistic`` applies: a binary learner that has, or learns, probabilities."""
    if raw:
        raise click.UsageError("--raw writes scores and --link logistic probabilities: give one of them")
    if task.name != "binary":
        raise click.UsageError(f"--link logistic gives the probabilities of two classes, and this {task.name} "
                               f"{'model' if algo is None else f'learner (--algo {algo})'} has none")
    if model is not None:
        if not hasattr(model, "predict_proba"):
            raise click.UsageError(
                f"--link logistic: the model ({type(model).__name__}) has no probabilities; learn it with "
                "--link logistic"
            )
        return
    if algo == "ogd":
        if hyperparameters.get("loss") != "logistic":
            raise click.UsageError("--link logistic with --algo ogd needs --loss logistic, whose scores are log-odds")
        return
    if hyperparameters.get("calibration", "platt") != "platt":
        raise click.UsageError("--link logistic learns calibration=platt; drop the other --set calibration")
