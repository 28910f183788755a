"""Decoding a request body by orjson, with the strictness of :func:`~olearn.serve._requests.parse_json`.

:func:`parse_json` decodes by Python's reader, building each object from its
pairs to refuse a repeated key: per example, most of a batch's reading.
:func:`decode_body` decodes the body once by orjson instead, and takes its
document only when it is the one :func:`parse_json` would return; any other
body is read by :func:`parse_json`, which then answers exactly as before
(the same document, or the same error). orjson's document is that one when:

* orjson reads the body at all: it refuses what is not JSON (``NaN``,
  ``Infinity``), numbers past a float (``1e400``, which Python reads as
  infinity and the checks then refuse), bytes that are not UTF-8 and lone
  surrogates, all of which :func:`parse_json` reads or refuses itself;
* no number is written with 19 digits or more: orjson reads an integer past
  64 bits as a float, Python as an int (a run of 19 digits anywhere, in a
  string too, sends the body to :func:`parse_json`); floats are read by both
  correctly rounded, to the same bits;
* no object repeats a key, which orjson would fold into one entry. Counted
  on the raw bytes: every member of an object is written ``"key"``, optional
  whitespace, then ``:``, so the matches of that pattern are at least the
  members written. When the ``{`` of the body are exactly the objects
  counted in the document (the body, and ``"x"``'s objects: no other object
  anywhere, and no ``{`` in a string), the members written are at least
  those decoded, more by one for every repeated key; a count of matches
  equal to the members decoded thus proves that no key is repeated. Any
  other count (a ``{`` or ``":`` inside a string, say) sends the body to
  :func:`parse_json`.
"""

import re

from .._lazy import LazyModule
from ._requests import parse_json

orjson = LazyModule("orjson")  # the serve extra's

# the end of an object's key: its closing quote, optional JSON whitespace, the colon
_KEY_END = re.compile(rb'"[ \t\n\r]*:')
# a quote followed by whitespace: where a key's end may be spelled with whitespace before its colon
_QUOTE_SPACES = (b'" ', b'"\t', b'"\n', b'"\r')
# a number of 19 digits or more (or such a run in a string), which orjson may read otherwise than Python
_LONG_DIGITS = re.compile(rb"[0-9]{19}")


def decode_body(body):
    """The JSON object of a request body, as :func:`parse_json` returns it (and its errors for any body it refuses),
    decoded by orjson when that gives the same document (see the module's docstring)."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        return parse_json(body)
    if type(document) is not dict or _LONG_DIGITS.search(body) or not _keys_distinct(document, body):
        return parse_json(body)
    return document


def _keys_distinct(document, body):
    """Whether ``body`` writes no key twice in an object, proven by counting (False when not proven)."""
    x = document.get("x")
    objects = [x] if type(x) is dict else [item for item in x if type(item) is dict] if type(x) is list else []
    if body.count(b"{") != 1 + len(objects):
        return False
    members = len(document) + sum(map(len, objects))
    if any(spaced in body for spaced in _QUOTE_SPACES):
        key_ends = len(_KEY_END.findall(body))
    else:
        key_ends = body.count(b'":')
    return key_ends == members
