"""The parameter entries that every learner family shares, written once.

A numpydoc entry whose description is the same rule in every family
(``average``, ``class_weight``, ``n_bits``, the epochs of ``fit``, the
``sample_weight`` of ``partial_fit``) is kept here; a docstring names it with a
line ``<shared entry: NAME>`` under the entry's name and type, and
:func:`shared_entries` puts the text there when the class or function is
defined, so that ``help()``, the Sphinx reference and ``__doc__`` show it in
full. Where a family's rule differs, the difference is written after that
line, in the family's docstring: it adds to the shared rule, it does not
restate it.

>>> @shared_entries
... def learn(sample_weight=None):
...     '''Learn.
...
...     Parameters
...     ----------
...     sample_weight : float or array-like of shape (n_samples,), optional
...         <shared entry: sample_weight>
...     '''
>>> for line in learn.__doc__.splitlines()[4:7]:
...     print(line)
    sample_weight : float or array-like of shape (n_samples,), optional
        Importance weight of each example (finite, >= 0); the class
        docstring states what a weight does to the step.
"""

import re

ENTRIES = {
    "average": """\
Predict with the average of the weights after each round (scikit-learn's
SGD ``average``; not in the source texts): True averages every round, an
integer n the rounds from the n-th on (before it, the current weights
predict). The prediction methods, ``coef_``, ``intercept_`` and saved
models use the average; :func:`olearn.run` and ``predict_learn_one`` score
each round with the current weights.""",
    "class_weight": """\
The weight of each class, multiplying the importance weight
(``sample_weight``) of each example whose true label is that class
(scikit-learn's convention; a class missing from the dict weighs 1).
``"balanced"`` (n_samples / (n_classes * count of the class)) needs the
class counts of the whole y: ``fit`` only (``partial_fit``, ``learn_one``
and :func:`olearn.run` refuse it).""",
    "epochs": """\
The passes of ``fit``, as in scikit-learn's ``SGDClassifier``: see
:meth:`fit`. ``partial_fit``, ``learn_one`` and :func:`olearn.run` make
one pass in order.""",
    "n_bits": """\
How the feature names of dict examples become columns: None learns a
vocabulary (``vocabulary_``, saved with the model), an integer b in
[1, 31] hashes each name into ``2**b`` columns with MurmurHash3, as
:func:`olearn.data.load_vw` does (feature indices then stay below
``2**b``; a fixed ``n_features`` must be ``2**b``). Integer keys are
column indices either way.""",
    "sample_weight": """\
Importance weight of each example (finite, >= 0); the class
docstring states what a weight does to the step.""",
}

_PLACE = re.compile(r"^(?P<indent>[ \t]*)<shared entry: (?P<name>\w+)>[ \t]*$", re.MULTILINE)


def _entry(match):
    indent = match["indent"]
    return "\n".join(indent + line for line in ENTRIES[match["name"]].splitlines())


def shared_entries(obj):
    """Decorator: ``obj``'s docstring with each ``<shared entry: NAME>`` line replaced by ``ENTRIES[NAME]``,
    indented as that line (an unknown NAME is a KeyError when ``obj`` is defined)."""
    obj.__doc__ = _PLACE.sub(_entry, obj.__doc__)
    return obj
