"""Algorithm names of the command line, their hyperparameter options, and building estimators."""

import contextlib
import difflib
import functools
import math

import click
from click.core import ParameterSource

# name -> (estimator class name in olearn, fixed keyword arguments). Every other
# hyperparameter of the class can be set: the common ones by their own options
# (-C, --eta, ...), any of them by --set NAME=VALUE.
ALGORITHMS = {
    "perceptron": ("Perceptron", {}),
    "pa": ("PAClassifier", {"variant": "pa"}),
    "pa1": ("PAClassifier", {"variant": "pa1"}),
    "pa2": ("PAClassifier", {"variant": "pa2"}),
    "ogd": ("OGDClassifier", {}),
    "svm": ("OnlineSVM", {}),
    "winnow": ("Winnow", {}),
    "pnorm": ("PNorm", {}),
    "dual": ("DualAscent", {}),
    # second order: diagonal by default on the command line, where files are often
    # wide; a full covariance costs O(d^2) memory and time per example
    "arow": ("AROW", {"covariance": "diag"}),
    "narow": ("NAROW", {"covariance": "diag"}),
    "cw": ("CW", {"covariance": "diag"}),
    "adagrad": ("AdaGrad", {}),
    "arow-full": ("AROW", {"covariance": "full"}),
    "narow-full": ("NAROW", {"covariance": "full"}),
    "cw-full": ("CW", {"covariance": "full"}),
    "sop": ("SecondOrderPerceptron", {}),
    # Orabona & Crammer 2010's own AROW (their Fig. 1 with a fixed r): Sec. 4.3 (diagonal), Sec. 4.2 (full)
    "fig1-arow": ("Fig1AROW", {"covariance": "diag"}),
    "fig1-arow-full": ("Fig1AROW", {"covariance": "full"}),
    # multiclass: one prototype per class; labels are any values in the file
    "pa-multiclass": ("PAMulticlass", {"variant": "pa"}),
    "pa1-multiclass": ("PAMulticlass", {"variant": "pa1"}),
    "pa2-multiclass": ("PAMulticlass", {"variant": "pa2"}),
    "perceptron-multiclass": ("MulticlassPerceptron", {}),
    "mira": ("MIRA", {}),
    # the other tasks of Crammer et al. 2006: regression (Sec. 5), uniclass (Sec. 6), multilabel (Sec. 7),
    # cost-sensitive multiclass (Sec. 8, the costs from --costs FILE)
    **{f"{variant}-{task}": (class_name, {"variant": variant})
       for task, class_name in (("regression", "PARegressor"), ("uniclass", "PAUniclass"),
                                ("multilabel", "PAMultilabel"), ("cost-sensitive", "PACostSensitive"))
       for variant in ("pa", "pa1", "pa2")},
    # sequences (CoNLL files): Viterbi over a first-order chain of tags (Sec. 9)
    "pa-sequence": ("PASequence", {"variant": "pa"}),
    "pa1-sequence": ("PASequence", {"variant": "pa1"}),
    "pa2-sequence": ("PASequence", {"variant": "pa2"}),
}
ALGORITHM_NAMES = tuple(ALGORITHMS)
# the one place that says which task each algorithm learns (every algorithm not named here is binary)
_TASK_ALGORITHMS = {
    "multiclass": ("pa-multiclass", "pa1-multiclass", "pa2-multiclass", "perceptron-multiclass", "mira"),
    **{task: tuple(f"{variant}-{task}" for variant in ("pa", "pa1", "pa2"))
       for task in ("regression", "uniclass", "multilabel", "cost-sensitive", "sequence")},
}
SEQUENCES = _TASK_ALGORITHMS["sequence"]
TASKS = ("binary", *_TASK_ALGORITHMS)


def did_you_mean(word, choices, spell=str):
    """``; did you mean X?`` naming the choices closest to a mistyped ``word`` (difflib's ratio), or ``""``."""
    close = difflib.get_close_matches(word, choices, n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(spell(c) for c in close)}?" if close else ""


def unknown_algorithm(name, names=ALGORITHM_NAMES):
    """The message for an algorithm name that is none of ``names``: the closest names, then all of them."""
    return f"unknown algorithm {name!r}{did_you_mean(name, names)} (choose from {', '.join(names)})"


class AlgorithmChoice(click.Choice):
    """click's Choice of algorithm names (all of ALGORITHM_NAMES by default) whose error first names the closest."""

    def __init__(self, names=ALGORITHM_NAMES):
        super().__init__(names)

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        if value in ALGORITHM_NAMES:
            self.fail(f"{value!r} is not one of the algorithms this command takes: {', '.join(self.choices)}",
                      param, ctx)
        self.fail(unknown_algorithm(str(value), tuple(self.choices)), param, ctx)


def task_of(algo):
    """The task ``algo`` learns: binary, multiclass, regression, uniclass, multilabel, cost-sensitive or sequence."""
    return next((task for task, names in _TASK_ALGORITHMS.items() if algo in names), "binary")


def algorithms_of(task):
    """The algorithms that learn ``task``, in the order of ALGORITHMS."""
    return tuple(name for name in ALGORITHMS if task_of(name) == task)


# what ``olearn compare`` runs when not told, per task: for binary data every binary learner whose cost per
# example is O(nnz); for the other tasks all their learners
COMPARED_BY_DEFAULT = {
    task: tuple(name for name in algorithms_of(task) if not name.endswith("-full") and name not in ("sop", "dual"))
    for task in TASKS
}
LOSSES = ("hinge", "logistic", "squared")
SCHEDULES = ("constant", "sqrt", "inverse")
# Algorithms whose mistake or loss bounds olearn.bounds.bound_report evaluates (Novikoff; Shalev-Shwartz &
# Singer 2006, Thm. 2, Examples 2 and 3, Thm. 3 and Eq. (30); Crammer et al. 2006, Sec. 4-8; Cesa-Bianchi et al. 2005; Crammer et al.
# 2009; Orabona & Crammer 2010; OGD's regret)
BOUNDED = ("perceptron", "pa", "pa1", "pa2", "pa-multiclass", "pa1-multiclass", "pa2-multiclass", "sop", "arow-full",
           "narow", "narow-full", "fig1-arow", "fig1-arow-full", "ogd", "pnorm", "pa-regression", "pa1-regression", "pa2-regression", "pa-uniclass",
           "pa1-uniclass", "pa2-uniclass", "pa-cost-sensitive", "pa1-cost-sensitive", "pa2-cost-sensitive",
           "pa-multilabel", "pa1-multilabel", "pa2-multilabel", "pa-sequence", "pa1-sequence", "pa2-sequence", "winnow",
           "dual")

_OPTION_NAMES = {"C": "-C", "eta": "--eta", "loss": "--loss", "schedule": "--schedule", "radius": "--radius"}
_POSITIVE = click.FloatRange(min=0.0, min_open=True)
# set by their own options on every learner, never through --set (and the cost-sensitive learners' cost by --costs)
_STRUCTURAL = ("fit_intercept", "n_features")
# the passes of the estimators' fit, which the commands never call: they learn online, --passes times
_FIT_PASSES = ("max_iter", "tol", "n_iter_no_change", "shuffle")


# hyperparameters a learner has but ignores unless another one says so: {name: (condition on the chosen
# hyperparameters, how to say it)}; the kernel ones are those of olearn.kernel (Mercer kernels on a budget)
_KERNEL_GIVEN = (lambda chosen: chosen.get("kernel") is not None, "--set kernel=linear|poly|rbf")
_CONDITIONS = {
    "degree": (lambda chosen: chosen.get("kernel") == "poly", "--set kernel=poly"),
    "coef0": (lambda chosen: chosen.get("kernel") == "poly", "--set kernel=poly"),
    "gamma": (lambda chosen: chosen.get("kernel") in ("poly", "rbf"), "--set kernel=poly|rbf"),
    "budget": _KERNEL_GIVEN,
    "budget_policy": _KERNEL_GIVEN,
    "random_state": (lambda chosen: chosen.get("budget_policy") == "random", "--set budget_policy=random"),
}


@functools.cache
def tunable(algo):
    """The hyperparameters of ``algo`` that the command line may set."""
    import olearn

    class_name, fixed = ALGORITHMS[algo]
    names = getattr(olearn, class_name)._get_param_names()
    # random_state seeds a kernel's random budget policy; otherwise it only orders fit's passes
    unused = (*_FIT_PASSES, *(() if "kernel" in names else ("random_state",)))
    if fixed.get("variant") == "pa":
        unused += ("C",)  # the plain PA step has no aggressiveness bound (Crammer et al. 2006, eq. 6)
    if task_of(algo) == "cost-sensitive":
        unused += ("cost",)  # read from --costs FILE
    return tuple(name for name in names if name not in fixed and name not in _STRUCTURAL and name not in unused)


def _takes(algo, name, value):
    """Whether ``algo`` has the hyperparameter ``name``, or fixes it to ``value`` (``--set covariance=diag`` for arow)."""
    return name in tunable(algo) or (name in ALGORITHMS[algo][1] and ALGORITHMS[algo][1][name] == value)


def _takers(name, value):
    return ", ".join(a for a in ALGORITHMS if _takes(a, name, value)) or "no algorithm"


def _refuse_fit_passes(name):
    if name in _FIT_PASSES:
        raise click.UsageError(
            f"--set {name} sets the passes of the estimators' fit, which the command line does not use: it "
            "learns online, each example predicted then learned; read the file several times with --passes"
        )


def hyperparameter_options(func):
    """The hyperparameter options shared by ``run`` and ``compare``."""
    options = [
        click.option("-C", "C", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Aggressiveness of PA-I / PA-II, > 0 ('inf' allowed). [default: 1.0]"),
        click.option("--eta", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Learning rate of perceptron, ogd, svm. [default: 1.0]"),
        click.option("--loss", "--loss_function", type=click.Choice(LOSSES), default=None,
                     help="Loss minimised by ogd (--loss_function: VW's spelling). [default: hinge]"),
        click.option("--schedule", type=click.Choice(SCHEDULES), default=None,
                     help="Learning-rate schedule eta_t = eta, eta/sqrt(t) or eta/t (ogd, svm). [default: sqrt]"),
        click.option("--radius", type=_POSITIVE, default=None, metavar="FLOAT",
                     help="Radius of the L2 ball the weights are projected onto (ogd: none by default; svm: 10)."),
        click.option("--fit-intercept/--no-fit-intercept", default=None,
                     help="Learn a bias as the weight of a constant feature. [default: off; on for svm and the "
                          "*-sequence taggers]"),
        click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
                     help="Any other hyperparameter of the learner, e.g. --set r=0.1 --set covariance=diag "
                          "(repeatable; numbers, true/false and words are understood)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def collect_hyperparameters(C, eta, loss, schedule, radius, settings=()):
    """The hyperparameters given on the command line (those left out are absent)."""
    given = {"C": C, "eta": eta, "loss": loss, "schedule": schedule, "radius": radius}
    chosen = {name: value for name, value in given.items() if value is not None}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise click.BadParameter(f"{setting!r}: expected NAME=VALUE", param_hint="'--set'")
        if name in _STRUCTURAL:
            raise click.BadParameter(f"{name} has its own option; use it instead of --set", param_hint="'--set'")
        if name in chosen:
            raise click.BadParameter(f"{name} is given twice", param_hint="'--set'")
        chosen[name] = parse_value(text.strip())
    return chosen


def parse_value(text):
    """A hyperparameter value written on the command line: an int, a float, a boolean or a word."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(text)
    return text


def _option_name(name):
    return _OPTION_NAMES.get(name, f"--set {name}")


def _shown(name, value):
    """How the command line names a setting: ``-C``, ``--set r``, or with its value one that picks a variant."""
    fixing = any(name in fixed for _, fixed in ALGORITHMS.values())
    return f"--set {name}={value}" if fixing else _option_name(name)


def check_applicable(algo, hyperparameters):
    """Reject a hyperparameter that ``algo`` does not have or would ignore (a usage error, exit code 2)."""
    for name, value in hyperparameters.items():
        _refuse_fit_passes(name)
        if name == "cost" and task_of(algo) == "cost-sensitive":
            raise click.UsageError(f"--algo {algo} reads its costs from --costs FILE, not from --set cost")
        class_name, fixed = ALGORITHMS[algo]
        if name in fixed and fixed[name] != value:
            # the setting chooses among the command line's variants of one estimator (arow, arow-full)
            twins = [a for a, (cls, own) in ALGORITHMS.items() if cls == class_name and own.get(name) == value]
            if twins:
                raise click.UsageError(f"{_shown(name, value)} does not apply to --algo {algo}, which is "
                                       f"{name}={fixed[name]}: use --algo {' or '.join(twins)}")
        if not _takes(algo, name, value):
            hint = did_you_mean(name, tunable(algo), _option_name)
            raise click.UsageError(f"{_shown(name, value)} does not apply to --algo {algo} (it applies to: "
                                   f"{_takers(name, value)}){hint}")
        _check_condition(algo, name, hyperparameters, f"--algo {algo}")


def check_some_takes(hyperparameters, algos):
    """Reject a hyperparameter that none of ``algos`` has (a usage error, exit code 2)."""
    for name, value in hyperparameters.items():
        _refuse_fit_passes(name)
        if not any(_takes(algo, name, value) for algo in algos):
            names = sorted({own for algo in algos for own in tunable(algo)})
            raise click.UsageError(f"{_shown(name, value)} applies to none of the listed algorithms (it applies "
                                   f"to: {_takers(name, value)}){did_you_mean(name, names, _option_name)}")


def check_conditions(entries, common):
    """Reject, for each ``(label, algo, own)`` of ``olearn compare``, a setting its other settings make it ignore."""
    for label, algo, own in entries:
        chosen = {name: value for name, value in {**common, **own}.items() if _takes(algo, name, value)}
        for name in chosen:
            _check_condition(algo, name, chosen, f"--algos entry {label}")


def _check_condition(algo, name, hyperparameters, who):
    """Reject a hyperparameter that the other chosen ones make the learner ignore (a kernel's, without a kernel).

    Only for the learners that take a kernel: another learner's hyperparameter of the same name is its own
    (DualAscent's gamma is its margin).
    """
    if name in _CONDITIONS and "kernel" in tunable(algo):
        applies, needed = _CONDITIONS[name]
        if not applies(hyperparameters):
            raise click.UsageError(f"--set {name} is ignored by {who} unless {needed} is given: add it, or drop "
                                   f"--set {name}")


def draws_random_numbers(algo, hyperparameters):
    """Whether ``algo`` with ``hyperparameters`` draws random numbers: a kernel learner's random budget policy, whose
    generator ``random_state`` seeds (olearn.kernel; a support vector is removed at random when the set is full)."""
    return "random_state" in tunable(algo) and _CONDITIONS["random_state"][0](hyperparameters)


# the seed of what a command-line run draws at random unless told otherwise (Vowpal Wabbit's --random_seed default)
RANDOM_SEED = 0
# the values of a seed option (--random-seed of run and serve, --seed of demo and reproduce): the states of a kernel
# learner's 64-bit generator (its random_state's range, olearn.kernel._hyperparameters), which numpy's default_rng
# and SeedSequence (the streams of demo and reproduce) take as well; refused with the option's name past them
RANDOM_SEEDS = click.IntRange(0, 2**64 - 1)


def random_seed_given():
    """Whether the command line gave ``--random-seed`` (rather than leaving its default)."""
    source = click.get_current_context().get_parameter_source("random_seed")
    return source not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def seeded(algo, hyperparameters, seed=RANDOM_SEED):
    """``hyperparameters`` with ``random_state=seed`` where ``algo`` draws random numbers and ``--set random_state``
    did not seed it: a command-line run is reproducible, as Vowpal Wabbit's (its ``--random_seed``, default 0),
    while the library keeps numpy's convention (``random_state=None``: fresh entropy)."""
    if "random_state" in hyperparameters or not draws_random_numbers(algo, hyperparameters):
        return hyperparameters
    return {**hyperparameters, "random_state": seed}


def max_classes(*algos):
    """The most distinct labels a file learned by ``algos`` may plausibly hold: 2 if one of them is binary,
    None (any real value) for regression."""
    from ._csv_layout import MAX_PLAUSIBLE_CLASSES

    tasks = {task_of(algo) for algo in algos}
    if tasks == {"regression"}:
        return None
    return 2 if "binary" in tasks else MAX_PLAUSIBLE_CLASSES


def check_fit_intercept(algo, fit_intercept):
    """Reject --fit-intercept/--no-fit-intercept for a learner without an intercept (the uniclass ones)."""
    if fit_intercept is None:
        return  # (without loading every family to list the learners that have no intercept)
    import olearn

    without = [name for name, (class_name, _) in ALGORITHMS.items()
               if "fit_intercept" not in getattr(olearn, class_name)._get_param_names()]
    if algo in without:
        raise click.UsageError(f"--{'' if fit_intercept else 'no-'}fit-intercept does not apply to --algo {algo}, "
                               f"which has no intercept (it applies to every algorithm but {', '.join(without)})")


def make_estimator(algo, hyperparameters, fit_intercept=None, n_features=None, cost=None):
    """A fresh estimator for ``algo``; hyperparameters it does not take are ignored; ``cost`` is the matrix of
    a cost-sensitive one (sorted labels)."""
    import olearn

    class_name, fixed = ALGORITHMS[algo]
    kwargs = dict(fixed)
    kwargs.update({name: value for name, value in hyperparameters.items() if name in tunable(algo)})
    if fit_intercept is not None:
        kwargs["fit_intercept"] = fit_intercept
    if n_features is not None:
        kwargs["n_features"] = n_features
    if cost is not None:
        kwargs["cost"] = cost
    return getattr(olearn, class_name)(**kwargs)


def describe_estimator(est):
    """Short text of the hyperparameters that matter, e.g. ``C=0.1`` or ``loss=hinge, eta=1, schedule=sqrt``."""
    params = est.get_params()
    defaults = type(est)().get_params()
    common = ("C", "eta", "loss", "schedule", "radius", "fit_intercept")
    # the other hyperparameters only where they differ from the default (set with --set)
    # (a cost matrix or function, read from --costs, is not a short text)
    others = [name for name in sorted(params) if name not in common and name not in _STRUCTURAL
              and name != "variant" and not (name == "cost" and not isinstance(params[name], str))
              and params[name] != defaults[name]]
    shown = []
    for name in (*common[:-1], *others, common[-1]):
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
            raise click.BadParameter(unknown_algorithm(name), param_hint="'--algos'")
        own = {}
        for setting in settings:
            key, sep, value = setting.partition("=")
            key = key.strip()
            if not sep or not key.isidentifier():
                raise click.BadParameter(f"{item!r}: expected NAME:KEY=VALUE", param_hint="'--algos'")
            _refuse_fit_passes(key)
            own[key] = _parse_setting(key, value.strip(), item)
            if not _takes(name, key, own[key]):
                raise click.BadParameter(f"{item!r}: {key}={value.strip()} does not apply to {name} (it applies to: "
                                         f"{_takers(key, own[key])})", param_hint="'--algos'")
        entries.append((item, name, own))
    if not entries:
        raise click.BadParameter("name at least one algorithm", param_hint="'--algos'")
    labels = [label for label, _, _ in entries]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise click.BadParameter(f"{', '.join(duplicates)} listed twice", param_hint="'--algos'")
    return entries


def _parse_setting(key, value, item):
    """Check the settings that have their own option as that option would; the others are checked by the learner."""
    choices = {"loss": LOSSES, "schedule": SCHEDULES}.get(key)
    if choices is not None:
        if value not in choices:
            raise click.BadParameter(f"{item!r}: {key} must be one of {', '.join(choices)}", param_hint="'--algos'")
        return value
    if key not in _OPTION_NAMES:
        return parse_value(value)
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not number > 0:
        raise click.BadParameter(f"{item!r}: {key} must be a number > 0", param_hint="'--algos'")
    return number

