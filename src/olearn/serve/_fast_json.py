"""Request bodies decoded by orjson, with :func:`~olearn.serve._requests.parse_json`'s answer for every body.

orjson decodes a body several times faster than :mod:`json` with the hook
that finds a repeated key, but reads JSON a little otherwise: it keeps the
last of a repeated key, reads an integer of 19 digits or more as a float when
it is past 64 bits, and refuses NaN, lone surrogates and numbers past float64
with its own messages. :func:`parse_json_fast` therefore takes orjson's
document only when none of that can have happened, and otherwise answers
what :func:`parse_json` answers (its value or its error):

* a body with no run of 19 digits and no escaped surrogate, which orjson
  decodes into an object;
* whose objects hold, all together, as many keys as the body has colons, or
  else as many as it has ends of a key: a quote, JSON whitespace, then a
  colon. Every key ends so, and so may a string's content, which alone holds
  any other colon: the body has at least as many colons as ends of keys, at
  least as many ends of keys as keys written, and the document at most as
  many keys as were written; equal counts mean that no key was repeated.
  One count of the colons decides a body whose strings hold none (counted
  with its braces by ``bytes.count`` in a small body, one example's of a few
  hundred bytes, and by NumPy in a larger one, a batch's, where one
  vectorized pass over the bytes is the cheaper).
"""

import re
from itertools import chain, compress

import numpy as np

from .._lazy import LazyModule
from ._requests import _SURROGATE_ESCAPE, parse_json
from ._wal import long_digits

orjson = LazyModule("orjson")  # the serve extra's, imported when a service decodes a body

_KEY_END = re.compile(rb'"[ \t\n\r]*:')
# the size in bytes under which a body's braces and colons are counted by bytes.count, not by NumPy: below
# about 5 kB it is the faster
_SMALL_BODY = 4096
_CONTAINERS = {dict, list}
_DICT = {dict}
_LIST = {list}


def parse_json_fast(body):
    """:func:`~olearn.serve._requests.parse_json` of the bytes ``body``: the same document, or the same error, by
    orjson when it reads the body as :mod:`json` does (see the module's docstring)."""
    # a body without a backslash escapes no surrogate: one C-level search decides it
    if (b"\\" not in body or _SURROGATE_ESCAPE.search(body) is None) and not long_digits(body):
        try:
            document = orjson.loads(body)
        except ValueError:  # orjson.JSONDecodeError: parse_json names the fault
            document = None
        if type(document) is dict and _no_key_repeated(document, body):
            return document
    return parse_json(body)


def _no_key_repeated(document, body):
    """Whether the objects of ``document``, decoded from ``body``, hold as many keys as the body has colons, or
    else as many as it has ends of keys (see the module's docstring)."""
    if len(body) < _SMALL_BODY:
        braces, colons = body.count(b"{"), body.count(b":")
    else:
        codes = np.frombuffer(body, dtype=np.uint8)
        braces, colons = _occurrences(codes, b"{"), _occurrences(codes, b":")
    keys = _keys(document, braces)
    return keys == colons or keys == len(_KEY_END.findall(body))


def _occurrences(codes, byte):
    """How many of the bytes ``codes`` (a uint8 array) are ``byte``: one vectorized comparison, where
    ``bytes.count`` compares byte by byte (about 7x the time on a batch's body of 30 kB; on one example's 300
    bytes it takes 0.25 us, the comparison about 2 us whatever the size up to a few kilobytes)."""
    return int(np.count_nonzero(codes == byte[0]))


def _keys(document, braces):
    """The keys of all the objects in the decoded JSON ``document``, whose body holds ``braces`` opening braces.

    Counted level by level: each level's objects and arrays are told apart, their values gathered and the next
    level's found by C-level passes, with no Python call per object. Every object decoded was opened by a brace
    of its own outside the strings, so once as many objects as braces are found there is no other, and the
    values of the last level are not read (a batch's features: its objects' values are numbers). A body of two
    braces whose ``"x"`` is an object (one example's) holds those two objects only: their keys at once.
    """
    if braces == 2 and type(document.get("x")) is dict:  # one example's body: its object and its features', no other
        return len(document) + len(document["x"])
    count = found = 0
    level = [document]
    while level:
        kinds = [*map(type, level)]
        objects = [*compress(level, map(_DICT.__contains__, kinds))]
        count += sum(map(len, objects))
        found += len(objects)
        if found == braces:
            break
        values = [*chain(chain.from_iterable(map(dict.values, objects)),
                         chain.from_iterable(compress(level, map(_LIST.__contains__, kinds))))]
        if _CONTAINERS.isdisjoint(map(type, values)):
            break
        level = [*compress(values, map(_CONTAINERS.__contains__, map(type, values)))]
    return count
