"""Vowpal Wabbit's namespace options, checked: interactions, ``--ignore``/``--keep``, ``--ngram``/``--skips``.

A namespace is named by its first letter, as in VW: ``-q ab`` crosses every
namespace whose name starts with ``a`` with every one starting with ``b``; the
default namespace (``| x y``) is the letter ``' '``; ``:`` in an interaction
stands for every namespace of the line. The crossing itself is compiled
(:mod:`olearn._kernels._interactions`, whose docstring gives the hashes).
"""

from dataclasses import dataclass

import numpy as np

WILDCARD = ":"


def _letter(char, what):
    code = ord(char)
    if code >= 128 or char in "|\n\r":
        raise ValueError(f"{what}: {char!r} cannot name a namespace; a namespace is named by its first "
                         "character, an ASCII character other than '|' (':' stands for every namespace in an interaction)")
    return code


def _terms(interactions):
    """The interactions as distinct terms (tuples of letters, ``:`` kept), each at least two letters long."""
    if isinstance(interactions, str):
        interactions = [interactions]
    terms, seen = [], set()
    for term in interactions:
        if not isinstance(term, str):
            raise TypeError(f"interactions: each is a str of namespace letters ('ab', 'abc', 'a:'); got "
                            f"{type(term).__name__}")
        if len(term) < 2:
            raise ValueError(f"interactions: {term!r} crosses fewer than two namespaces; write two letters or more "
                             "('ab' crosses the namespaces starting with a and with b)")
        for char in term:
            if char != WILDCARD:
                _letter(char, f"interactions {term!r}")
        key = "".join(sorted(term))  # 'ba' crosses the same features as 'ab': VW keeps one of them
        if key not in seen:
            seen.add(key)
            terms.append(term)
    return tuple(terms)


def _per_letter(specs, what, minimum):
    """``{letter or None (every namespace): n}`` from VW's ``a2``/``2`` forms of --ngram and --skips."""
    if isinstance(specs, (str, int)):
        specs = [specs]
    out = {}
    for spec in specs:
        text = str(spec)
        letter, number = (None, text) if text.isdigit() else (text[:1], text[1:])
        if not number.isdigit() or int(number) < minimum:
            raise ValueError(f"{what}: expected a number >= {minimum}, optionally after a namespace letter "
                             f"('2' for every namespace, 'a2' for namespace a); got {text!r}")
        out[None if letter is None else _letter(letter, what)] = int(number)
    return out


def _letters(text, what):
    if not isinstance(text, str):
        raise TypeError(f"{what}: a str of namespace letters; got {type(text).__name__}")
    return [_letter(char, what) for char in text]


@dataclass(frozen=True)
class Namespaces:
    """How the namespaces of a VW file are turned into features (see the module docstring).

    ``interactions``: terms of two letters or more; ``ignore``/``keep``: the
    letters of the namespaces dropped / the only ones kept (not both);
    ``ngram``/``skips``: ``{letter or None: n}``.
    """

    interactions: tuple = ()
    ignore: str = ""
    keep: str = ""
    ngram: tuple = ()
    skips: tuple = ()

    @classmethod
    def of(cls, interactions=None, ignore=None, keep=None, ngram=None, skips=None):
        """The checked options, or None when none is given (features read as they are)."""
        if not any((interactions, ignore, keep, ngram, skips)):
            return None
        if ignore and keep:
            raise ValueError("ignore and keep are exclusive: ignore drops the namespaces it names, keep drops all "
                             "the others")
        ngrams = _per_letter(ngram or (), "ngram", 1)
        gaps = _per_letter(skips or (), "skips", 0)
        if gaps and not any(n > 1 for n in ngrams.values()):
            raise ValueError("skips apply to n-grams: give ngram as well (skips 'a1' with ngram 'a2')")
        _letters(ignore or "", "ignore")
        _letters(keep or "", "keep")
        return cls(_terms(interactions or ()), ignore or "", keep or "", tuple(sorted(ngrams.items(), key=str)),
                   tuple(sorted(gaps.items(), key=str)))

    def info(self):
        """The options as saved with a model (JSON), read back by :meth:`from_info`."""
        return {"interactions": list(self.interactions), "ignore": self.ignore, "keep": self.keep,
                "ngram": [_spec_text(letter, n) for letter, n in self.ngram],
                "skips": [_spec_text(letter, n) for letter, n in self.skips]}

    @classmethod
    def from_info(cls, info):
        """The options :meth:`info` saved (checked by :func:`namespaces_problem`), None for none."""
        return None if info is None else cls.of(**info)

    def _arrays(self):
        from .._kernels import _parse_vw_codes as K

        kept = np.ones(256, dtype=np.bool_)
        if self.keep:
            kept[:] = False
            kept[_letters(self.keep, "keep")] = True
        kept[_letters(self.ignore, "ignore")] = False
        ngram = _table(self.ngram, 1)
        skips = _table(self.skips, 0)
        order = max((len(term) for term in self.interactions), default=1)
        terms = np.full((len(self.interactions), order), -1, dtype=np.int64)
        for t, term in enumerate(self.interactions):
            terms[t, :len(term)] = [K.WILDCARD if char == WILDCARD else ord(char) for char in term]
        grams = max((sum((int(s) + 1) ** (length - 1) for length in range(2, int(n) + 1))
                     for n, s in zip(ngram, skips)), default=0)
        return kept, ngram, skips, terms, grams

    def cross(self, indptr, hashes, data, spaces, n_rows, n_bits):
        """(indptr, indices, data) of the rows parsed with their ``hashes`` and ``spaces``, crossed; unsorted."""
        from .._kernels import _compiled

        kept, ngram, skips, terms, grams = self._arrays()
        out_indptr = np.empty(n_rows + 1, dtype=np.int64)
        args = (indptr, hashes, data, spaces, n_rows, n_bits, kept, ngram, skips, terms, grams, out_indptr)
        nnz = _compiled.cross_rows(*args, np.empty(0, dtype=np.int32), np.empty(0, dtype=data.dtype), False)
        indices = np.empty(nnz, dtype=np.int32)
        values = np.empty(nnz, dtype=data.dtype)
        _compiled.cross_rows(*args, indices, values, True)
        return out_indptr, indices, values


def _spec_text(letter, n):
    return str(n) if letter is None else f"{chr(letter)}{n}"


def _table(pairs, default):
    """A number per letter from ``{letter or None: n}`` pairs: None's for every letter, then the letters' own."""
    table = np.full(256, default, dtype=np.int64)
    for letter, n in pairs:
        if letter is None:
            table[:] = n
    for letter, n in pairs:
        if letter is not None:
            table[letter] = n
    return table


def namespaces_problem(info):
    """What is wrong with the ``namespaces`` entry of a model's input record, or None."""
    fields = set(Namespaces.__dataclass_fields__)
    if not isinstance(info, dict) or not set(info) <= fields:
        return f"{info!r:.100}: not an object of {', '.join(sorted(fields))}"
    try:
        Namespaces.of(**info)
    except (TypeError, ValueError) as err:
        return f"{info!r:.100}: {err}"
    return None
