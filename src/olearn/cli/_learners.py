"""Algorithm names of the command line, their hyperparameter options, and building estimators."""

import click

# name -> (estimator class name in olearn, fixed keyword arguments, tunable hyperparameters)
ALGORITHMS = {
    "perceptron": ("Perceptron", {}, ("eta",)),
    "pa": ("PAClassifier", {"variant": "pa"}, ()),
    "pa1": ("PAClassifier", {"variant": "pa1"}, ("C",)),
    "pa2": ("PAClassifier", {"variant": "pa2"}, ("C",)),
    "ogd": ("OGDClassifier", {}, ("eta", "loss", "schedule", "radius")),
    "svm": ("OnlineSVM", {}, ("radius", "eta", "schedule")),
}
ALGORITHM_NAMES = tuple(ALGORITHMS)
LOSSES = ("hinge", "logistic", "squared")
SCHEDULES = ("constant", "sqrt", "inverse")
# Algorithms whose mistake bounds olearn.bounds knows (Novikoff; Crammer et al. 2006).
BOUNDED = ("perceptron", "pa", "pa1", "pa2")

_OPTION_NAMES = {"C": "-C", "eta": "--eta", "loss": "--loss", "schedule": "--schedule", "radius": "--radius"}
_POSITIVE = click.FloatRange(min=0.0, min_open=True)


def hyperparameter_options(func):
    """The hyperparameter options shared by ``run`` and ``compare``."""
    options = [
        click.option("-C", "C", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Aggressiveness of PA-I / PA-II, > 0 ('inf' allowed). [default: 1.0]"),
        click.option("--eta", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Learning rate of perceptron, ogd, svm. [default: 1.0]"),
        click.option("--loss", type=click.Choice(LOSSES), default=None,
                     help="Loss minimised by ogd. [default: hinge]"),
        click.option("--schedule", type=click.Choice(SCHEDULES), default=None,
                     help="Learning-rate schedule eta_t = eta, eta/sqrt(t) or eta/t (ogd, svm). [default: sqrt]"),
        click.option("--radius", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Radius of the L2 ball the weights are projected onto (ogd: none by default; svm: 10)."),
        click.option("--fit-intercept/--no-fit-intercept", default=None,
                     help="Learn a bias as the weight of a constant feature. [default: off; on for svm]"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def collect_hyperparameters(C, eta, loss, schedule, radius):
    """The hyperparameters given on the command line (those left out are absent)."""
    given = {"C": C, "eta": eta, "loss": loss, "schedule": schedule, "radius": radius}
    return {name: value for name, value in given.items() if value is not None}


def check_applicable(algo, hyperparameters):
    """Reject a hyperparameter that ``algo`` does not have (a usage error, exit code 2)."""
    tunable = ALGORITHMS[algo][2]
    for name in hyperparameters:
        if name not in tunable:
            takers = ", ".join(a for a, spec in ALGORITHMS.items() if name in spec[2])
            raise click.UsageError(f"{_OPTION_NAMES[name]} does not apply to --algo {algo} (it applies to: {takers})")


def make_estimator(algo, hyperparameters, fit_intercept=None, n_features=None):
    """A fresh estimator for ``algo``; hyperparameters it does not take are ignored."""
    import olearn

    class_name, fixed, tunable = ALGORITHMS[algo]
    kwargs = dict(fixed)
    kwargs.update({name: value for name, value in hyperparameters.items() if name in tunable})
    if fit_intercept is not None:
        kwargs["fit_intercept"] = fit_intercept
    if n_features is not None:
        kwargs["n_features"] = n_features
    return getattr(olearn, class_name)(**kwargs)


def describe_estimator(est):
    """Short text of the hyperparameters that matter, e.g. ``C=0.1`` or ``loss=hinge, eta=1, schedule=sqrt``."""
    params = est.get_params()
    shown = []
    for name in ("C", "eta", "loss", "schedule", "radius", "fit_intercept"):
        if name not in params or (name == "C" and params.get("variant") == "pa"):
            continue
        value = params[name]
        if name == "fit_intercept":
            if value:
                shown.append("intercept")
            continue
        if value is None:
            continue
        shown.append(f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}")
    return ", ".join(shown)


def parse_algorithm_list(text):
    """Parse ``--algos``: ``pa1,perceptron,ogd`` or with per-algorithm settings ``pa1:C=0.01,ogd:loss=logistic``.

    Returns a list of (label, algo, own hyperparameters).
    """
    entries = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, *settings = item.split(":")
        name = name.strip().lower()
        if name not in ALGORITHMS:
            raise click.BadParameter(
                f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHM_NAMES)}", param_hint="'--algos'"
            )
        own = {}
        for setting in settings:
            key, sep, value = setting.partition("=")
            key = key.strip()
            if not sep or key not in _OPTION_NAMES:
                raise click.BadParameter(
                    f"{item!r}: expected NAME:KEY=VALUE with KEY one of {', '.join(_OPTION_NAMES)}",
                    param_hint="'--algos'",
                )
            if key not in ALGORITHMS[name][2]:
                raise click.BadParameter(f"{item!r}: {name} has no hyperparameter {key}", param_hint="'--algos'")
            own[key] = _parse_setting(key, value.strip(), item)
        entries.append((item, name, own))
    if not entries:
        raise click.BadParameter("name at least one algorithm", param_hint="'--algos'")
    labels = [label for label, _, _ in entries]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise click.BadParameter(f"{', '.join(duplicates)} listed twice", param_hint="'--algos'")
    return entries


def _parse_setting(key, value, item):
    choices = {"loss": LOSSES, "schedule": SCHEDULES}.get(key)
    if choices is not None:
        if value not in choices:
            raise click.BadParameter(f"{item!r}: {key} must be one of {', '.join(choices)}", param_hint="'--algos'")
        return value
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number > 0:
        raise click.BadParameter(f"{item!r}: {key} must be a number > 0", param_hint="'--algos'")
    return number

