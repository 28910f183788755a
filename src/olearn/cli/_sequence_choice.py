"""Whether a command line is about sequences, decided before the sequence path is loaded.

``olearn run`` and ``compare`` ask this first; only a sequence ``--algo``, a
sequence model to resume or a CoNLL file loads :mod:`olearn.cli._sequences`,
so a command on rows does not import it.
"""

import os

from .._persistence import read_input_info
from ..data import _io
from ..exceptions import DataFormatError
from ._learners import SEQUENCES


def _format_of(path, fmt):
    """``fmt``, or the detected format of a regular file (None where the ordinary path will say what is wrong)."""
    if fmt != "auto":
        return fmt
    if _io.is_stream(path) or not os.path.isfile(path):
        return None
    from ..data import detect_format

    try:
        return detect_format(path)
    except DataFormatError:
        return None


def is_sequence_model(model_path):
    """Whether the model file at ``model_path`` is a sequence learner's (False if it cannot be read: said later)."""
    try:
        info = read_input_info(model_path)
        if "format" in info:
            return info["format"] == "conll"
        import olearn

        # the learner's task, as olearn predict asks it: isinstance(..., olearn.PASequence) would load the family
        return getattr(olearn.load(model_path), "_task", None) == "sequence"
    except (OSError, ValueError):
        return False


def wants_sequences(algo, initial_model, fmt, files):
    """Whether ``olearn run`` is about sequences: a sequence --algo, a sequence model to resume, or a CoNLL file."""
    if algo in SEQUENCES:
        return True
    if algo is None and initial_model is not None and is_sequence_model(initial_model):
        return True
    return any(_format_of(file, fmt) == "conll" for file in files)


def compares_sequences(algos, algos_given, fmt, file):
    """Whether ``olearn compare`` is about sequences: sequence learners listed, or a CoNLL file."""
    if algos_given and any(name.split(":")[0].strip().lower() in SEQUENCES for name in algos.split(",")):
        return True
    return _format_of(file, fmt) == "conll"
