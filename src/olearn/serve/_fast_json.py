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
* whose objects hold, all together, as many keys as the body has ends of a
  key: a quote, JSON whitespace, then a colon. Every key ends so, and so may
  a string's content, so the body holds at least that many keys and the
  document at most that many: equal counts mean that no key was repeated.
"""

import re

from .._lazy import LazyModule
from ._requests import _SURROGATE_ESCAPE, parse_json
from ._wal import long_digits

orjson = LazyModule("orjson")  # the serve extra's, imported when a service decodes a body

_KEY_END = re.compile(rb'"[ \t\n\r]*:')
_CONTAINERS = {dict, list}


def parse_json_fast(body):
    """:func:`~olearn.serve._requests.parse_json` of the bytes ``body``: the same document, or the same error, by
    orjson when it reads the body as :mod:`json` does (see the module's docstring)."""
    if _SURROGATE_ESCAPE.search(body) is None and not long_digits(body):
        try:
            document = orjson.loads(body)
        except ValueError:  # orjson.JSONDecodeError: parse_json names the fault
            document = None
        if type(document) is dict and _keys(document) == _key_ends(body):
            return document
    return parse_json(body)


def _keys(value):
    """The keys of all the objects in the decoded JSON ``value``."""
    if type(value) is dict:
        count, items = len(value), value.values()
    elif type(value) is list:
        count, items = 0, value
    else:
        return 0
    if not set(map(type, items)).isdisjoint(_CONTAINERS):
        count += sum(map(_keys, items))
    return count


def _key_ends(body):
    """How many times a quote, JSON whitespace and a colon follow each other in ``body``: by two counts when every
    colon follows a quote (a body written without a space before its colons), else by a regular expression."""
    quoted = body.count(b'":')
    return quoted if quoted == body.count(b":") else len(_KEY_END.findall(body))
