"""Process-wide settings: how much memory a learner's state, and a line of a data file, may take.

A feature index is a position in the learner's weight arrays, so one huge index
(a typo in a data file, an unhashed identifier) would make a learner allocate
for every index below it. Learning therefore refuses, before allocating, to
grow a learner's feature-indexed state past ``max_state_bytes`` (1 GiB by
default); the error says how much the growth would take and how to raise the
limit. Prediction never allocates for features a learner has not seen: they
contribute 0 to every score.

>>> import olearn
>>> olearn.get_config()["max_state_bytes"] == 2**30
True
>>> with olearn.config_context(max_state_bytes=2**20):
...     olearn.PAClassifier().learn_one({2**20: 1.0}, 1)
Traceback (most recent call last):
...
olearn.exceptions.FeatureLimitError: PAClassifier: x: feature index 1048576 would grow the learned state to 8.0 MiB, past max_state_bytes=1.0 MiB; raise it with olearn.set_config(max_state_bytes=...) or hash the features into fewer indices

Likewise a reader that goes through a file in blocks holds a line whole
before parsing it, so a file without line breaks (a damaged or binary file)
would be read whole into memory: a line that spans blocks is refused as soon
as more than ``max_line_bytes`` (64 MiB by default) of it are held.
"""

import contextlib

_DEFAULTS = {"max_state_bytes": 2**30, "max_line_bytes": 2**26}
_config = dict(_DEFAULTS)


def get_config():
    """A copy of the current settings: ``{"max_state_bytes": int, "max_line_bytes": int}``."""
    return dict(_config)


def set_config(max_state_bytes=None, max_line_bytes=None):
    """Change the settings; an argument left at None keeps its current value.

    Parameters
    ----------
    max_state_bytes : int, optional
        The most memory (in bytes) that one learner's feature-indexed arrays
        (weights, covariance, per-class prototypes) may grow to while learning.
        A full covariance matrix counts ``8 d^2`` bytes for ``d`` features.
    max_line_bytes : int, optional
        The most bytes of one line of a data file that the readers going
        through a file in blocks (4 MiB by default) hold while they look for
        its end: ``iter_libsvm``, ``iter_vw``, ``iter_conll``, ``load_conll``
        and the command line's reading of LIBSVM, VW and CoNLL files
        (``load_libsvm``, ``load_vw`` and ``load_csv`` hold the whole file
        anyway). A line within one block is never held so.
    """
    checked = {name: value for name, value in (("max_state_bytes", max_state_bytes),
                                               ("max_line_bytes", max_line_bytes)) if value is not None}
    for name, value in checked.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer (bytes); got {value!r}")
    _config.update({name: int(value) for name, value in checked.items()})


@contextlib.contextmanager
def config_context(**settings):
    """Apply ``set_config(**settings)`` inside a ``with`` block, then restore the previous settings."""
    saved = get_config()
    set_config(**settings)
    try:
        yield
    finally:
        _config.update(saved)


def format_bytes(n):
    """``n`` bytes as a short human-readable size.

    >>> format_bytes(3 * 2**30), format_bytes(512)
    ('3.0 GiB', '512 B')
    """
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"
