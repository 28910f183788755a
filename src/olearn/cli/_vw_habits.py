"""Vowpal Wabbit flags that olearn does not take, each answered with one line naming the olearn way.

The flags olearn shares with VW (``-d``, ``-f``, ``-i``, ``-t``, ``-p``,
``-b``, ``-c``, ``--passes``, ``--holdout_off``, ``--loss_function``,
``--oaa``, ``--binary``) are options of the commands themselves. The others
are looked up here before the command parses its options, so a VW user's
habit gets the olearn spelling instead of click's "no such option".
"""

import click
import numpy as np

# VW flag spellings -> what olearn does instead (the message after "FLAG is Vowpal Wabbit's: ")
VW_FLAGS = {
    ("-l", "--learning_rate"): "olearn's learning rate is --eta (perceptron, ogd, svm, cw), its decay --schedule",
    ("--power_t",): "olearn's learning rate decays by --schedule constant|sqrt|inverse (VW's --power_t 0, 0.5, 1)",
    ("--initial_t",): "olearn's --schedule counts t from the first example, with no offset",
    ("--decay_learning_rate",): "olearn learns every pass of --passes on one schedule, with no decay per pass",
    ("--adaptive", "--normalized", "--invariant", "--sgd"): (
        "olearn's learners take their own steps: per-feature adaptive steps are --algo adagrad, steps scaled by "
        "a learned confidence --algo arow, narow or cw, plain gradient steps --algo ogd; on unscaled columns "
        "add --scale standard"),
    ("--l1",): "olearn has no L1 penalty; --radius R keeps ogd's weights in an L2 ball",
    ("--l2",): ("olearn's regularised learner is svm (ogd on the hinge loss in an L2 ball of --radius R, the "
                "constraint form of an L2 penalty); ogd takes --radius too"),
    ("--daemon",): "olearn serve MODEL keeps a learner behind an HTTP/JSON service (docs/serve.md)",
    ("--readable_model", "--audit"): "olearn inspect MODEL shows what a model saved with -f learned",
    ("--invert_hash",): ("olearn run --invert_hash FILE (or --keep-names with -f MODEL) keeps the names of a VW "
                         "file's hashed features; olearn inspect MODEL shows them"),
    ("--cache_file",): "-c keeps FILE's cache beside FILE, as FILE.olc",
    ("-k", "--kill_cache"): "-c rebuilds the cache itself when FILE or the reading options change",
    ("--holdout_period",): "--holdout-every K",
    ("--save_resume",): "every model saved with -f resumes with -i",
    ("--hash",): "olearn hashes every VW feature name, digits included, as VW's --hash all",
    ("--csoaa",): "cost-sensitive multiclass is --algo pa1-cost-sensitive --costs FILE (a cost matrix)",
    ("--ect", "--log_multi"): "olearn's multiclass learners are --oaa K, --algo pa1-multiclass, mira, ...",
    ("--ksvm",): "a kernel machine on a budget is --algo perceptron --set kernel=rbf --set budget=B",
    ("--bfgs", "--conjugate_gradient"): "olearn learns online; --passes N reads the file N times",
    ("-P", "--progress"): "olearn's table prints a row at 1, 2, 4, 8, ... examples",
}
_HINTS = {flag: hint for flags, hint in VW_FLAGS.items() for flag in flags}
# what a VW user may type for olearn's command of learning a file (``vw data.vw`` has no command)
_LEARN_WORDS = ("learn", "train")
# the commands that read files as VW does, whose options VW's flags could be mistaken for
COMMANDS = ("run", "predict", "compare")
# VW's flags that a command takes itself, as VW means them
_TAKEN = {"run": ("--invert_hash",)}


def vw_flag_hint(args, command=None):
    """The one-line answer to the first VW-only flag of ``command``'s ``args`` (up to ``--``), or None."""
    taken = _TAKEN.get(command, ())
    for arg in args:
        if arg == "--":
            return None
        flag = arg.partition("=")[0] if arg.startswith("--") else arg
        if flag in _HINTS and flag not in taken:
            return f"{flag} is Vowpal Wabbit's: {_HINTS[flag]} (docs/cli.md, \"Vowpal Wabbit's flags\")"
    return None


def learn_command_hint(word):
    """The answer to ``olearn WORD`` when WORD is no command but a word for learning or a file (VW's habit of
    ``vw data.vw``), or None."""
    import os

    if word in _LEARN_WORDS or os.path.isfile(word):
        return (f"No such command {word!r}: olearn learns a file with 'olearn run --algo NAME FILE' "
                "('olearn run --help' lists the learners)")
    return None


def vw_algorithm(algo, loss, oaa, binary, initial_model):
    """The --algo that VW's ``--loss_function``, ``--oaa K`` and ``--binary`` choose when --algo is not given,
    checked against the --algo that is: a multiclass learner for --oaa (pa1-multiclass by default), a binary
    one for --binary, and for a loss alone ogd, olearn's learner of the hinge, logistic and squared losses."""
    from ._learners import task_of

    if oaa is not None and binary:
        raise click.UsageError("--oaa K learns K classes and --binary two: give one of them")
    if initial_model is not None:
        # --binary goes on reading the labels as their signs (check_binary_model); --oaa only chooses the learner
        if oaa is not None:
            raise click.UsageError("--oaa chooses the learner of a fresh run; the model of -i keeps its own classes: "
                                   "drop --oaa")
        return algo
    if algo is None:
        return "pa1-multiclass" if oaa is not None else "ogd" if binary or loss is not None else None
    wanted = "multiclass" if oaa is not None else "binary" if binary else None
    if wanted is not None and task_of(algo) != wanted:
        raise click.UsageError(f"{'--oaa' if oaa is not None else '--binary'} asks for a {wanted} learner, and "
                               f"--algo {algo} learns {task_of(algo)}")
    return algo


def check_binary_model(binary, algo, initial_model):
    """``--binary`` with ``-i MODEL``: the labels are read as their signs again, as they were for a model learned
    with ``--binary`` (so that it resumes, or is tested with ``-t``, on the file of 0/1 labels it learned from);
    a model of another task than binary classification is a usage error."""
    from ._learners import task_of

    if binary and initial_model is not None and task_of(algo) != "binary":
        raise click.UsageError(f"--binary reads the labels as their signs for a binary learner, and -i "
                               f"{initial_model} is a model of --algo {algo}, which learns {task_of(algo)}")


def oaa_labels(oaa, model_path=None):
    """The labels 1..K of ``--oaa K`` as the checked labels of a run (every label of the file must be one);
    ``model_path``: the model of ``-i`` that was learned with ``--oaa K``, named in messages."""
    from ._costs import Costs

    kept = "" if model_path is None else f", kept by the model {model_path}"
    return Costs(f"--oaa {oaa} (labels 1 to {oaa}{kept})", np.arange(1.0, oaa + 1.0), None)


def with_oaa(input_info, oaa):
    """The model metadata's ``input`` entry recording ``--oaa K`` (as ``oaa``: K), so that a resumed run refuses the
    labels outside 1..K that the fresh run refused; ``input_info`` itself without --oaa."""
    return input_info if oaa is None else {**input_info, "oaa": oaa}


def trained_oaa(model_path):
    """The K of the ``--oaa K`` that the model at ``model_path`` was learned with, or None (learned without, or saved
    by an olearn that did not record it: such a model takes new labels as new classes, as PAMulticlass does)."""
    from .._persistence import read_input_info

    return read_input_info(model_path).get("oaa")


def sign_labels(source):
    """``source`` whose labels are read as their sign, as VW's ``--binary``: > 0 is 1, else -1."""
    from ._model_labels import RelabelledSource

    return RelabelledSource(source, lambda y: np.where(np.asarray(y) > 0, 1.0, -1.0))
