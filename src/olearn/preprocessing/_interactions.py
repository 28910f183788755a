"""Crossed features of dict examples: Vowpal Wabbit's ``-q`` for named features."""

import numbers

from .._features import CATEGORY_SEPARATOR
from ._base import NameTransformer, _check_dict

# VW's names (its --invert_hash): feature x of namespace a is "a^x", the crossing of a^x and b^y "a^x*b^y"
NAMESPACE_SEPARATOR = "^"
CROSS_SEPARATOR = "*"
WILDCARD = ":"


class _Terms:
    """The constraint of ``interactions``: a list of terms, each a str of two letters or more, or a tuple of two
    names or more."""

    def accepts(self, value):
        if not isinstance(value, (list, tuple)) or not value:
            return False
        return all(isinstance(term, (str, list, tuple)) and len(term) >= 2
                   and all(isinstance(part, str) and part for part in term) for term in value)

    def describe(self):
        return ("a non-empty list of interactions, each a str of namespace letters ('ab', 'a:') or a tuple of "
                "two feature names or more (('user', 'item'))")


def _features(x):
    """(key, name, value) of the features of dict ``x`` with str keys: a str value is the category
    ``key=value`` of value 1, as the learners read it; None values are absent."""
    out = []
    for key, value in x.items():
        if value is None or not isinstance(key, str):
            continue
        if isinstance(value, str):
            out.append((key, f"{key}{CATEGORY_SEPARATOR}{value}", 1.0))
        elif isinstance(value, numbers.Real):
            out.append((key, key, float(value)))
        else:
            raise TypeError(f"Interactions: feature {key!r} has value {value!r:.50} of type {type(value).__name__}; "
                            "a feature's value is a number or a str (a category)")
    return out


def _letter(key):
    """The namespace letter of a key: the first character of ``namespace^name``, ' ' (VW's default namespace)
    for a key without a namespace."""
    namespace, separator, _ = key.partition(NAMESPACE_SEPARATOR)
    return namespace[:1] if separator and namespace else " "


def _in_group(key, group):
    """Whether feature ``key`` is in the group of that name: itself, a feature ``group^name`` of its namespace, or a
    category ``group=value`` a :class:`OneHotEncoder` made of it."""
    return key == group or key.startswith((group + NAMESPACE_SEPARATOR, group + CATEGORY_SEPARATOR))


def _cross(groups, out):
    """Add to ``out`` the crossings of ``groups`` (lists of (name, value)): one choice of a feature per group, the
    positions nondecreasing where a group is the one before it (each pair once, VW's rule)."""
    order = len(groups)
    at = [0] * order
    if any(not group for group in groups):
        return
    for pos in range(1, order):
        at[pos] = at[pos - 1] if groups[pos] is groups[pos - 1] else 0
    while True:
        name = CROSS_SEPARATOR.join(groups[pos][at[pos]][0] for pos in range(order))
        value = 1.0
        for pos in range(order):
            value *= groups[pos][at[pos]][1]
        out[name] = out.get(name, 0.0) + value
        pos = order - 1
        while pos >= 0:
            at[pos] += 1
            if at[pos] < len(groups[pos]):
                break
            pos -= 1
        if pos < 0:
            return
        for q in range(pos + 1, order):
            at[q] = at[q - 1] if groups[q] is groups[q - 1] else 0


class Interactions(NameTransformer):
    """Add crossed features to dict examples, as Vowpal Wabbit's ``-q``/``--cubic``/``--interactions``.

    A term is a tuple of two names or more: ``("user", "item")`` adds, for a
    feature of key ``user`` and one of key ``item``, the feature named
    ``"user*item"`` of value the product of their values; a str value is its
    category, ``user=alice`` of value 1 (as the learners and
    :class:`OneHotEncoder` name it), so ``{"user": "alice", "item": "book"}``
    gains ``"user=alice*item=book": 1.0``. A name also takes the keys of a
    namespace written as VW's ``--invert_hash`` writes them, ``name^feature``
    (``"user^age"`` is in ``"user"``).

    A term may instead be a str of namespace letters, with VW's rules: ``"ab"``
    crosses the keys ``ns^feature`` whose namespace starts with ``a`` with
    those whose namespace starts with ``b``; a key without ``^`` is in VW's
    default namespace, the letter ``' '``; ``":"`` stands for every namespace
    of the example. Crossed names are VW's: ``"a^x*b^y"``.

    As in VW (and :func:`olearn.data.load_vw`), a term that repeats a group
    (``("user", "user")``, ``"aa"``) takes each pair once, its squares included,
    the letters a run of ``:`` stands for are taken once each, namespaces an
    earlier term crossed are not crossed again (``"ab"`` then ``"::"``), the features
    of the example stay, and crossed features of the same name are summed.
    The transformer learns nothing. In a :class:`~olearn.compose.Pipeline` it
    crosses the names before the pipeline maps them to columns, so it comes
    before a :class:`FeatureHasher` (or the pipeline's ``n_bits``) and the
    scalers, and takes dict examples only.

    Parameters
    ----------
    interactions : list of tuples of names or of str of letters, default ("::",)
        The terms; the default crosses every pair of namespaces (of features,
        for keys without ``^``).

    Examples
    --------
    >>> from olearn.preprocessing import Interactions
    >>> Interactions([("user", "item")]).transform_one({"user": "alice", "item": "book", "price": 9.0})
    {'user': 'alice', 'item': 'book', 'price': 9.0, 'user=alice*item=book': 1.0}
    >>> Interactions(["ab"]).transform_one({"a^x": 2.0, "a^y": 3.0, "b^z": 5.0})
    {'a^x': 2.0, 'a^y': 3.0, 'b^z': 5.0, 'a^x*b^z': 10.0, 'a^y*b^z': 15.0}
    """

    _constraints = {"interactions": _Terms()}
    _crosses_names = True

    def __init__(self, interactions=("::",)):
        self.interactions = interactions

    @staticmethod
    def _settings(values):
        """The distinct terms: a term that is another reordered is left out, as VW drops ``-q ba`` after ``-q ab``."""
        (interactions,) = values
        terms, seen = [], set()
        for term in interactions:
            term = term if isinstance(term, str) else tuple(term)
            key = (isinstance(term, str), tuple(sorted(term)))
            if key not in seen:
                seen.add(key)
                terms.append(term)
        return tuple(terms)

    @classmethod
    def _saved_params(cls, params):
        """The terms as a tuple of str and tuples, however they were given or saved (JSON keeps lists only)."""
        terms = params.get("interactions")
        if isinstance(terms, (list, tuple)):
            params["interactions"] = tuple(term if isinstance(term, str) or not isinstance(term, (list, tuple))
                                           else tuple(term) for term in terms)
        return params

    def _names_in_plan(self, name, n_bits, pipeline_n_bits):
        """In a pipeline: the crossing of names (:meth:`_crossed`), refused after a FeatureHasher step."""
        if n_bits is not None and pipeline_n_bits is None:
            raise ValueError(f"Pipeline: step {name!r} crosses names after a FeatureHasher; cross first")
        return self._crossed, n_bits

    def transform_one(self, x):
        """``x`` with the crossed features added (see the class docstring)."""
        _check_dict(x, type(self).__name__)
        return self._crossed(x)

    def transform(self, X):
        """The rows of X (a list of dicts) with the crossed features added."""
        if hasattr(X, "columns") and hasattr(X, "to_dict"):
            X = X.to_dict("records")
        rows = []
        for i, x in enumerate(X):
            _check_dict(x, f"{type(self).__name__}: row {i}")
            rows.append(self._crossed(x))
        return rows

    def _crossed(self, x):
        """``x`` and its crossed features, a new dict (the pipeline's conversion of a dict example)."""
        terms = self._config()
        features = _features(x)
        crossed, letters_crossed = {}, set()
        for term in terms:
            if isinstance(term, str):
                self._cross_letters(term, features, crossed, letters_crossed)
            else:
                cache = {}
                groups = [cache.setdefault(group, [(name, value) for key, name, value in features
                                                   if _in_group(key, group)]) for group in term]
                _cross(groups, crossed)
        out = dict(x)
        for name, value in crossed.items():
            out[name] = out.get(name, 0.0) + value
        return out

    @staticmethod
    def _cross_letters(term, features, crossed, letters_crossed):
        """Cross the namespaces of ``term`` (letters, ':') into ``crossed``, but for the choices of letters that
        ``letters_crossed`` holds in any order (an earlier term's: VW crosses ab once under -q ab -q ::)."""
        by_letter = {}
        for key, name, value in features:
            by_letter.setdefault(_letter(key), []).append((name, value))
        present = sorted(by_letter)
        wild = [pos for pos, char in enumerate(term) if char == WILDCARD]
        choices = [[]]
        for _ in wild:  # the letters of the wildcards, nondecreasing
            choices = [chosen + [letter] for chosen in choices for letter in present
                       if not chosen or letter >= chosen[-1]]
        for chosen in choices:
            letters = list(term)
            for pos, letter in zip(wild, chosen):
                letters[pos] = letter
            key = tuple(sorted(letters))
            if key in letters_crossed:
                continue
            letters_crossed.add(key)
            _cross([by_letter.get(letter, []) for letter in letters], crossed)
